"""Upstream ``pkg/controller/daemon/update_test.go`` and the surge rows of
``daemon_controller_test.go``: rolling updates sync by sync (pods deleted and created per
pass), ``updatedDesiredNodeCounts`` and ``controlledHistories``."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
from daemon_upstream_env import (
    NS,
    SIMPLE_DS_LABEL,
    SIMPLE_DS_LABEL2,
    Env,
    Obj,
    new_daemon_set,
    rolling,
)

from reference_impl.clock import Instant, seconds
from reference_impl.controllers.controller_utils import is_pod_ready
from reference_impl.controllers.daemon.placement import Placement
from reference_impl.controllers.daemon.revisions import controlled_histories
from reference_impl.controllers.daemon.update import updated_desired_node_counts
from reference_impl.controllers.daemon.util import HASH_LABEL, get_target_node_name


def surge(value: int | str) -> Obj:
    """``newUpdateSurge``: maxUnavailable 0."""
    return {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": value}}


def unavailable(value: int | str) -> Obj:
    """``newUpdateUnavailable``: maxSurge unset."""
    return {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": value}}


def _live(env: Env) -> list[Obj]:
    return sorted(env.pods(), key=lambda p: str(p["metadata"]["name"]))


def mark_pods_ready(env: Env) -> None:
    """``markPodsReady``: every pod Ready (a pod already ready keeps its transition time)."""
    for pod in _live(env):
        if not is_pod_ready(pod):
            env.set_status(pod, ready=True)


def set_pod_readiness(env: Env, ready: bool, count: int, fn: Callable[[Obj], bool]) -> None:
    """``setPodReadiness``: flip ``count`` pods (not being deleted) that ``fn`` picks, the
    transition at the controller clock's now."""
    for pod in _live(env):
        if count <= 0:
            break
        if pod["metadata"].get("deletionTimestamp") or is_pod_ready(pod) == ready or not fn(pod):
            continue
        env.set_status(pod, ready=ready)
        count -= 1
    assert count == 0, "could not set readiness of enough pods"


def update_ds(env: Env, *, image: str | None = None, strategy: Obj | None = None,
              min_ready: int | None = None, tolerations: list[Obj] | None = None) -> None:  # fmt: skip
    ds = env.ds()
    spec = ds["spec"]
    if image is not None:
        spec["template"]["spec"]["containers"][0]["image"] = image
    if strategy is not None:
        spec["updateStrategy"] = copy.deepcopy(strategy)
    if min_ready is not None:
        spec["minReadySeconds"] = min_ready
    if tolerations is not None:
        spec["template"]["spec"]["tolerations"] = tolerations
        if not tolerations:
            del spec["template"]["spec"]["tolerations"]
    env.update_ds(ds)


def step(env: Env, creates: int, deletes: int) -> None:
    """``clearExpectations`` then ``expectSyncDaemonSets``."""
    env.clear_expectations()
    env.expect_sync(creates, deletes, 0)


def _started(nodes: int) -> Env:
    env = Env()
    env.add_nodes(0, nodes)
    env.add_ds(new_daemon_set("foo"))
    env.expect_sync(nodes, 0, 0)
    return env


def test_daemon_set_updates_pods() -> None:
    """TestDaemonSetUpdatesPods: maxUnavailable 2 over 5 nodes."""
    env = _started(5)
    mark_pods_ready(env)
    update_ds(env, image="foo2/bar2", strategy=rolling(2))
    for creates, deletes, ready in ((0, 2, False), (2, 0, True), (0, 2, False), (2, 0, True), (0, 1, False),
                                    (1, 0, True), (0, 0, False)):  # fmt: skip
        step(env, creates, deletes)
        if ready:
            mark_pods_ready(env)


def test_daemon_set_updates_pods_with_max_surge() -> None:
    """TestDaemonSetUpdatesPodsWithMaxSurge: maxSurge 2 over 5 nodes."""
    env = _started(5)
    mark_pods_ready(env)
    update_ds(env, image="foo2/bar2", strategy=surge(2))
    for creates, deletes, ready in ((2, 0, False), (0, 0, True), (2, 2, False), (0, 0, True), (1, 2, False),
                                    (0, 0, True), (0, 1, False), (0, 0, False)):  # fmt: skip
        step(env, creates, deletes)
        if ready:
            mark_pods_ready(env)


def test_daemon_set_updates_pods_not_match_tainst_with_max_surge() -> None:
    """TestDaemonSetUpdatesPodsNotMatchTainstWithMaxSurge: node-0 gets a control-plane
    taint only the old template tolerates; its old pod goes once others are available."""
    env = Env()
    ds = new_daemon_set("foo", surge(1))
    ds["spec"]["template"]["spec"]["tolerations"] = [
        {"key": "node-role.kubernetes.io/control-plane", "operator": "Exists"}]
    env.add_ds(ds)
    env.add_node("node-0", taints=[{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}])
    env.add_nodes(1, 4)
    env.expect_sync(5, 0, 0)
    mark_pods_ready(env)
    update_ds(env, tolerations=[])
    for creates, deletes, ready in ((1, 1, False), (0, 0, True), (1, 1, False), (0, 0, True), (1, 1, False),
                                    (0, 0, True), (1, 1, False), (0, 0, True), (0, 1, False), (0, 0, False)):  # fmt: skip
        step(env, creates, deletes)
        if ready:
            mark_pods_ready(env)


def test_daemon_set_updates_when_new_pod_is_not_ready() -> None:
    """TestDaemonSetUpdatesWhenNewPodIsNotReady."""
    env = _started(5)
    mark_pods_ready(env)
    update_ds(env, image="foo2/bar2", strategy=rolling(3))
    for creates, deletes in ((0, 3), (3, 0), (0, 0)):
        step(env, creates, deletes)


def test_daemon_set_updates_some_old_pods_not_ready() -> None:
    """TestDaemonSetUpdatesSomeOldPodsNotReady: two updates; three ready pods remain."""
    env = _started(5)
    mark_pods_ready(env)
    update_ds(env, image="foo2/bar2", strategy=rolling(2))
    for creates, deletes in ((0, 2), (2, 0), (0, 0)):
        step(env, creates, deletes)
    update_ds(env, image="foo2/bar3")
    for creates, deletes in ((0, 2), (2, 0), (0, 0)):
        step(env, creates, deletes)
    assert sum(is_pod_ready(p) for p in env.pods()) == 5 - 2


def test_daemon_set_updates_save_old_healthy_pods() -> None:
    """TestDaemonSetUpdatesSaveOldHealthyPods: with 10 of 20 pods unavailable, updates only
    replace those 10 whatever maxUnavailable (upstream draws it at random from 0..9; 0
    with maxSurge 0 is refused by validation here, so 1..9 and 1 again); at 11, one ready
    pod goes."""
    env = _started(20)
    mark_pods_ready(env)
    update_ds(env, image="foo2/bar2", strategy=rolling(10))
    for creates, deletes in ((0, 10), (10, 0), (0, 0)):
        step(env, creates, deletes)
    old_ready = {p["metadata"]["name"] for p in env.pods() if is_pod_ready(p)}
    for i in range(10):
        update_ds(env, image=f"foo2/bar3-{i}", strategy=rolling(i % 9 + 1))
        for creates, deletes in ((0, 10), (10, 0), (0, 0)):
            step(env, creates, deletes)
        assert old_ready <= {p["metadata"]["name"] for p in env.pods() if is_pod_ready(p)}
    update_ds(env, image="foo2/bar4", strategy=rolling(11))
    for creates, deletes in ((0, 11), (11, 0), (0, 0)):
        step(env, creates, deletes)
    assert sum(is_pod_ready(p) for p in env.pods()) == 9


def test_daemon_set_updates_all_old_not_ready_pods_and_new_not_ready_pods() -> None:
    """TestDaemonSetUpdatesAllOldNotReadyPodsAndNewNotReadyPods: 88 unavailable new pods,
    2 unavailable old ones and 10 available old ones: the 2 go first."""
    env = _started(100)
    mark_pods_ready(env)
    hash1 = _live(env)[0]["metadata"]["labels"][HASH_LABEL]
    update_ds(env, image="foo2/bar2", strategy=rolling(10))
    for _ in range(10):
        step(env, 0, 10)
        step(env, 10, 0)
        mark_pods_ready(env)
    step(env, 0, 0)
    old_unavailable = set()
    for i, pod in enumerate(_live(env)):
        if i >= 10:
            pod = env.set_status(pod, ready=False)
        if i < 12:
            # Old as the first template's pods: its hash, and (the apiserver keeps the
            # template generation here, upstream's bare store does not) its generation.
            labels = {**pod["metadata"]["labels"], HASH_LABEL: hash1, "pod-template-generation": "1"}
            pod = env.server.update({**pod, "metadata": {**pod["metadata"], "labels": labels}})
            if i >= 10:
                old_unavailable.add(pod["metadata"]["name"])
    step(env, 0, 2)
    step(env, 2, 0)
    step(env, 0, 0)
    assert not old_unavailable & {p["metadata"]["name"] for p in env.pods()}


def test_daemon_set_updates_all_old_pods_not_ready() -> None:
    """TestDaemonSetUpdatesAllOldPodsNotReady: every unavailable old pod is replaced."""
    env = _started(5)
    update_ds(env, image="foo2/bar2", strategy=rolling(3))
    for creates, deletes in ((0, 5), (5, 0), (0, 0)):
        step(env, creates, deletes)


def _at(env: Env, unix: int) -> None:
    env.clock._now = Instant(seconds(unix))


def test_daemon_set_updates_all_old_pods_not_ready_max_surge() -> None:
    """TestDaemonSetUpdatesAllOldPodsNotReadyMaxSurge: unavailable old pods are surged at
    once; with minReadySeconds the old pods go only once the new ones are available."""
    env = _started(5)
    update_ds(env, image="foo2/bar2", strategy=surge(3))
    _at(env, 100)
    step(env, 5, 0)
    _at(env, 200)
    step(env, 0, 5)
    set_pod_readiness(env, True, 5, lambda _: True)
    update_ds(env, image="foo3/bar3", min_ready=15)
    _at(env, 300)
    step(env, 3, 0)
    hash_ = _current_hash(env)

    def by_node() -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for pod in env.pods():
            if pod["metadata"]["labels"].get(HASH_LABEL) == hash_:
                out.setdefault(get_target_node_name(pod), []).append(pod["metadata"]["name"])
        return out

    current = by_node()
    set_pod_readiness(env, True, 2, lambda p: p["metadata"]["labels"].get(HASH_LABEL) == hash_)
    set_pod_readiness(env, False, 1, lambda p: p["metadata"]["labels"].get(HASH_LABEL) != hash_
                      and not current.get(get_target_node_name(p)))  # fmt: skip
    _at(env, 310)
    step(env, 1, 0)
    _at(env, 320)
    step(env, 1, 3)
    set_pod_readiness(env, True, 3, lambda p: p["metadata"]["labels"].get(HASH_LABEL) == hash_)
    _at(env, 340)
    step(env, 0, 2)
    _at(env, 350)
    step(env, 0, 0)


def _current_hash(env: Env) -> str:
    """``currentDSHash``: the current revision's hash label."""
    from reference_impl.controllers.daemon.revisions import construct_history

    cur, _ = construct_history(env.proxy, env.ds(), env.server.list("apps/v1", "ControllerRevision", NS),
                               lambda: env.ctrl.daemon_pods(env.ds()))  # fmt: skip
    return str(cur["metadata"]["labels"][HASH_LABEL])


def test_daemon_set_updates_no_template_changed() -> None:
    """TestDaemonSetUpdatesNoTemplateChanged: a strategy change alone replaces nothing."""
    env = _started(5)
    update_ds(env, strategy=rolling(3))
    step(env, 0, 0)


# -- surge rows of daemon_controller_test.go --------------------------------------------


def _surge_env(min_ready: int = 0) -> tuple[Env, Obj]:
    env = Env()
    ds = new_daemon_set("foo", surge(1))
    if min_ready:
        ds["spec"]["minReadySeconds"] = min_ready
    stored = env.add_ds(ds)
    env.add_nodes(0, 5)
    return env, stored


def _old(env: Env, prefix: str, node: str, ds: Obj, created: int, ready: bool | None = None,
         ready_since: int | None = None, keep_hash: bool = False) -> Obj:  # fmt: skip
    pod = env.new_pod(prefix, node, SIMPLE_DS_LABEL, ds, created=Instant(seconds(created)))
    if not keep_hash:
        labels = dict(pod["metadata"]["labels"])
        del labels[HASH_LABEL]
        pod = env.server.update({**pod, "metadata": {**pod["metadata"], "labels": labels}})
    if ready is not None:
        since = Instant(seconds(ready_since)) if ready_since is not None else None
        pod = env.set_status(pod, ready=ready, ready_since=since)
    return pod


def test_surge_deals_with_existing_pods() -> None:
    """TestSurgeDealsWithExistingPods."""
    env, ds = _surge_env()
    env.add_pods("node-1", SIMPLE_DS_LABEL, ds, 1)
    env.add_pods("node-2", SIMPLE_DS_LABEL, ds, 2)
    env.add_pods("node-3", SIMPLE_DS_LABEL, ds, 5)
    env.add_pods("node-4", SIMPLE_DS_LABEL2, ds, 2)
    env.expect_sync(2, 5, 0)


def test_surge_preserves_ready_old_pods() -> None:
    """TestSurgePreservesReadyOldPods: the oldest ready old pod stays beside the new one."""
    env, ds = _surge_env()
    _old(env, "node-1-", "node-1", ds, 100, keep_hash=True)
    _old(env, "node-1-old-", "node-1", ds, 50, ready=True)
    victim = _old(env, "node-1-delete-", "node-1", ds, 60, ready=True)
    env.add_pods("node-2", SIMPLE_DS_LABEL, ds, 1)
    env.expect_sync(3, 1, 0)
    assert env.proxy.deleted == [victim["metadata"]["name"]]


def test_surge_creates_new_pod_when_at_max_surge_and_old_pod_deleted() -> None:
    """TestSurgeCreatesNewPodWhenAtMaxSurgeAndOldPodDeleted: a node whose only pod is being
    deleted gets a new one even with the surge budget spent."""
    env, ds = _surge_env()
    _old(env, "node-0-", "node-0", ds, 100, ready=False, keep_hash=True)
    _old(env, "node-0-old-ready-", "node-0", ds, 50, ready=True)
    for i in range(1, 5):
        pod = _old(env, f"node-{i}-preserve-", f"node-{i}", ds, 1, ready=True)
        if i == 4:
            env.server.update({**pod, "metadata": {**pod["metadata"], "finalizers": ["example.com/keep"]}})
            env.server.delete("v1", "Pod", pod["metadata"]["name"], NS)
    env.clear_expectations()
    env.expect_sync(1, 0, 0)


def test_surge_deletes_unready_old_pods() -> None:
    """TestSurgeDeletesUnreadyOldPods."""
    env, ds = _surge_env()
    _old(env, "node-1-", "node-1", ds, 100, keep_hash=True)
    unready = _old(env, "node-1-old-unready-", "node-1", ds, 50, ready=False)
    victim = _old(env, "node-1-delete-", "node-1", ds, 60, ready=True)
    env.add_pods("node-2", SIMPLE_DS_LABEL, ds, 1)
    env.expect_sync(3, 2, 0)
    assert set(env.proxy.deleted) == {unready["metadata"]["name"], victim["metadata"]["name"]}


@pytest.mark.parametrize(
    ("now", "deleted"),
    [
        pytest.param(60, {"excess"}, id="TestSurgePreservesOldReadyWithUnsatisfiedMinReady"),
        pytest.param(70, {"excess", "old"}, id="TestSurgeDeletesOldReadyWithUnsatisfiedMinReady"),
    ],
)
def test_surge_old_ready_with_min_ready(now: int, deleted: set[str]) -> None:
    """minReadySeconds 15, the new pod ready since t=50: at t=60 it is not available and
    the old ready pod stays; at t=70 (20 s; upstream's comment says "not long enough", its
    expectation says available) the old pod goes too."""
    env, ds = _surge_env(min_ready=15)
    _old(env, "node-1-", "node-1", ds, 100, ready=True, ready_since=50, keep_hash=True)
    pods = {"old": _old(env, "node-1-old-ready-", "node-1", ds, 50, ready=True),
            "excess": _old(env, "node-1-delete-", "node-1", ds, 60, ready=True)}  # fmt: skip
    env.add_pods("node-2", SIMPLE_DS_LABEL, ds, 1)
    _at(env, now)
    env.expect_sync(3, len(deleted), 0)
    assert set(env.proxy.deleted) == {pods[k]["metadata"]["name"] for k in deleted}


# -- updatedDesiredNodeCounts -----------------------------------------------------------


def _nodes(n: int) -> list[Obj]:
    return [{"metadata": {"name": f"node-{i}"}, "spec": {}} for i in range(n)]


def _ready_pod(name: str, node: str, deleting: bool = False) -> Obj:
    meta: Obj = {"name": name, "namespace": NS, "labels": dict(SIMPLE_DS_LABEL)}
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"metadata": meta, "spec": {"nodeName": node},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}}  # fmt: skip


_COUNT_ROWS = [
    pytest.param(0, unavailable(0), {}, (0, 0, 0), 0, id="No nodes"),
    pytest.param(2, unavailable(1), {"node-0": ["pod-0"], "node-1": ["pod-1"]}, (0, 1, 2), 0,
                 id="Two nodes with ready pods"),
    pytest.param(2, unavailable(0), {"node-0": ["pod-0"]}, (0, 1, 2), 1, id="Two nodes, one node without pods"),
    pytest.param(2, surge(0), {"node-0": ["pod-0"]}, (0, 1, 2), 1, id="Two nodes, one node without pods, surge"),
    pytest.param(2, unavailable("50%"), {"node-0": ["pod-0"], "node-1": ["pod-1"]}, (0, 1, 2), 0,
                 id="Two nodes with pods, MaxUnavailable in percents"),
    pytest.param(2, surge("50%"), {"node-0": ["pod-0"], "node-1": ["pod-1"]}, (1, 0, 2), 0,
                 id="Two nodes with pods, MaxUnavailable in percents, surge"),
    pytest.param(2, surge("100%"), {"node-0": ["pod-0"], "node-1": ["pod-1"]}, (2, 0, 2), 0,
                 id="Two nodes with pods, MaxUnavailable is 100%, surge"),
    pytest.param(3, unavailable("50%"), {"node-0": ["pod-0"], "node-1": ["pod-1!"]}, (0, 2, 3), 1,
                 id="Two nodes with pods, MaxUnavailable in percents, pod terminating"),
]  # fmt: skip


@pytest.mark.parametrize(("nodes", "strategy", "pods", "want", "empty"), _COUNT_ROWS)
def test_get_unavailable_numbers(
    nodes: int, strategy: Obj, pods: dict[str, list[str]], want: tuple[int, int, int], empty: int
) -> None:
    """TestGetUnavailableNumbers: (maxSurge, maxUnavailable, desiredNumberScheduled) and an
    empty entry for each node that should run a pod and has none ("!" marks a pod being
    deleted)."""
    ds = new_daemon_set("x", strategy)
    node_to_pods = {n: [_ready_pod(p.rstrip("!"), n, p.endswith("!")) for p in names] for n, names in pods.items()}
    got = updated_desired_node_counts(ds, _nodes(nodes), node_to_pods, Placement.of(ds))
    assert got == want
    assert sum(not v for v in node_to_pods.values()) == empty


# -- controlledHistories ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "want"),
    [
        pytest.param(("ds1-x1", "ds1-x2"), {"ds1-x1", "ds1-x2"}, id="controller revision in the same namespace"),
        pytest.param(("ds1-x3",), set(),
                     id="Skip adopting the controller revision in namespace other than the one in which DS lives"),
    ],
)  # fmt: skip
def test_controlled_histories(names: tuple[str, ...], want: set[str]) -> None:
    """TestControlledHistories: owned revisions and adopted orphans of the set's namespace."""
    env = Env()
    env.server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"{NS}-other"}})
    ds = env.add_ds(new_daemon_set("ds1"))
    owner = {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "ds1", "uid": ds["metadata"]["uid"],
             "controller": True, "blockOwnerDeletion": True}  # fmt: skip
    specs = {"ds1-x1": (NS, [owner]), "ds1-x2": (NS, None), "ds1-x3": (f"{NS}-other", None)}
    for name in names:
        ns, refs = specs[name]
        meta: Obj = {"name": name, "namespace": ns, "labels": dict(SIMPLE_DS_LABEL)}
        if refs:
            meta["ownerReferences"] = refs
        env.server.create({"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": meta,
                           "data": {}, "revision": 0})  # fmt: skip
    everything = env.server.list("apps/v1", "ControllerRevision")
    got = controlled_histories(env.server, ds, everything)
    assert {cr["metadata"]["name"] for cr in got} == want
