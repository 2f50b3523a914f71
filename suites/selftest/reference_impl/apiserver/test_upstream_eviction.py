"""Rows of pkg/registry/core/pod/storage/eviction_test.go (v1.37.2) on the reference's
pods/eviction subresource (``reference_impl/apiserver/eviction.py``).

Budgets are stored through the apiserver, so they carry generation 1; each row's status
gets ``observedGeneration: 1`` to stand for upstream's fake budgets (generation 0 and
observedGeneration 0), which the "still being processed" check lets through. Errors are
compared as upstream's ``errToString`` renders them (message, reason, causes); the
reference's TooManyRequests folds its causes into its message, which is undone first.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_namespace, make_pod
from reference_impl.apiserver import deletion
from reference_impl.apiserver import eviction as eviction_subresource
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import ApiError, Invalid, TooManyRequests
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NS = "default"
A_TRUE = {"matchLabels": {"a": "true"}}
B_TRUE = {"matchLabels": {"b": "true"}}
VIOLATES = "Cannot evict pod as it would violate the pod's disruption budget.: TooManyRequests: "


_DELETE_CALLS: dict[int, int] = {}  # store deletes asked for, by id of the server


@pytest.fixture(autouse=True)
def _count_deletes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Count the store's Delete calls (the eviction REST's, as upstream's test counts
    them; ``APIServer.delete`` goes through the same function)."""
    real = deletion.delete

    def delete(srv: APIServer, *args: Any, **kwargs: Any) -> Any:
        _DELETE_CALLS[id(srv)] = _DELETE_CALLS.get(id(srv), 0) + 1
        return real(srv, *args, **kwargs)

    monkeypatch.setattr(deletion, "delete", delete)


class Env:
    """An apiserver holding the row's pod and budgets; counts pod deletions."""

    def __init__(self) -> None:
        self.clock = SimClock()
        self.server = APIServer(MVCCStore(), self.clock, Rng(1).child("apiserver"), FeatureGates())
        self.server.create(make_namespace(NS).build())
        _DELETE_CALLS[id(self.server)] = 0

    @property
    def deletes(self) -> int:
        return _DELETE_CALLS.get(id(self.server), 0)

    @deletes.setter
    def deletes(self, value: int) -> None:
        _DELETE_CALLS[id(self.server)] = value

    def pod(self, name: str, *, phase: str | None = None, ready: bool | None = None,
            terminating: bool = False) -> Obj:  # fmt: skip
        """``validNewPod`` labelled a=true on node foo."""
        m = make_pod(name, NS).label("a", "true").node("foo").build()
        pod = self.server.create(m)
        status = dict(pod.get("status") or {})
        if phase:
            status["phase"] = phase
        if ready is not None:
            status["conditions"] = [{"type": "Ready", "status": "True" if ready else "False"}]
        pod = self.server.update_status({**pod, "status": status})
        if terminating:
            self.server.delete("v1", "Pod", name, NS)
            self.deletes = 0
            pod = self.server.get("v1", "Pod", name, NS)
        return pod

    def pdb(self, selector: Obj, status: Obj, policy: str | None = None, name: str = "foo") -> Obj:
        """A budget named foo with the row's status."""
        spec: Obj = {"selector": selector}
        if policy is not None:
            spec["unhealthyPodEvictionPolicy"] = policy
        pdb = self.server.create({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                                  "metadata": {"name": name, "namespace": NS}, "spec": spec})  # fmt: skip
        st = {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0,
              "observedGeneration": 1, **status}  # fmt: skip
        try:
            return self.server.update_status({**pdb, "status": st})
        except Invalid:
            pass
        # A status the apiserver refuses (a negative count, a reason with "-") reaches the
        # subresource only through upstream's fake client: serve it from the list instead.
        real_list = self.server.list

        def list_(api_version: str, kind: str, *args: Any, **kwargs: Any) -> list[Obj]:
            items = real_list(api_version, kind, *args, **kwargs)
            if kind != "PodDisruptionBudget":
                return items
            return [{**i, "status": st} if i["metadata"]["name"] == name else i for i in items]

        self.server.list = list_  # type: ignore[method-assign]
        return {**pdb, "status": st}

    def evict(self, name: str, delete_options: Obj | None = None, *, url_name: str | None = None,
              dry_run: list[str] | None = None) -> Obj:  # fmt: skip
        """POST pods/{url_name}/eviction."""
        ev: Obj = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": NS}}
        if delete_options is not None:
            ev["deleteOptions"] = delete_options
        return eviction_subresource.evict(self.server, NS, url_name or name, ev, dry_run)

    def live(self, name: str) -> Obj | None:
        return self.server.try_get("v1", "Pod", name, NS)

    def budget(self) -> Obj:
        return dict(self.server.get("policy/v1", "PodDisruptionBudget", "foo", NS)["status"])


def err_to_string(e: ApiError) -> str:
    """Upstream's ``errToString``: Error(), the reason, and each cause not already said."""
    msg = e.message
    detail = "; ".join(str(c) for c in e.causes)
    if isinstance(e, TooManyRequests) and detail and msg.endswith(" " + detail):
        msg = msg[: -len(detail) - 1]
    out = f"{msg}: {e.reason}"
    for c in e.causes:
        if not msg.endswith(c.message):
            out += f": {c.message}"
    return out


def _run(env: Env, name: str, options: Obj | None = None, **kw: Any) -> str:
    try:
        env.evict(name, options, **kw)
    except ApiError as e:
        return err_to_string(e)
    return ""


POLICIES = (None, "IfHealthyBudget", "AlwaysAllow")
GRACE0 = {"gracePeriodSeconds": 0}

# -- TestEvictionWithETCD ------------------------------------------------------------------

# (row name, selector, status, pod name, phase, bad name in URL, expected error, deleted, policies)
_ETCD_ROWS: list[tuple[str, Obj, Obj, str, str | None, bool, str, bool, tuple[str | None, ...]]] = [
    ("matching pdbs with no disruptions allowed, pod running", A_TRUE, {}, "t1", "Running", False,
     VIOLATES + "The disruption budget foo needs 0 healthy pods and has 0 currently", False,
     (None, "IfHealthyBudget")),
    ("matching pdbs with no disruptions allowed, pod pending", A_TRUE, {}, "t2", "Pending", False, "", True, POLICIES),
    ("matching pdbs with no disruptions allowed, pod succeeded", A_TRUE, {}, "t3", "Succeeded", False, "", True,
     POLICIES),
    ("matching pdbs with no disruptions allowed, pod failed", A_TRUE, {}, "t4", "Failed", False, "", True, POLICIES),
    ("matching pdbs with disruptions allowed", A_TRUE, {"disruptionsAllowed": 1}, "t5", None, False, "", True,
     POLICIES),
    ("non-matching pdbs", B_TRUE, {}, "t6", None, False, "", True, POLICIES),
    ("matching pdbs with disruptions allowed but bad name in Url", A_TRUE, {"disruptionsAllowed": 1}, "t7", None,
     True, "name in URL does not match name in Eviction object: BadRequest", False, POLICIES),
    ("matching pdbs with no disruptions allowed, pod running, empty selector", {}, {}, "t8", "Running", False,
     VIOLATES + "The disruption budget foo needs 0 healthy pods and has 0 currently", False,
     (None, "IfHealthyBudget")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("selector", "status", "pod_name", "phase", "bad_name", "want", "deleted", "policy"),
    [
        pytest.param(sel, st, pod, ph, bad, want, deleted, pol, id=f"{name} with {pol or 'nil'} policy")
        for pol in POLICIES
        for name, sel, st, pod, ph, bad, want, deleted, pols in _ETCD_ROWS
        if pol in pols
    ],
)
def test_eviction_with_etcd(selector: Obj, status: Obj, pod_name: str, phase: str | None, bad_name: bool,
                            want: str, deleted: bool, policy: str | None) -> None:  # fmt: skip
    """TestEvictionWithETCD."""
    env = Env()
    env.pod(pod_name, phase=phase)
    env.pdb(selector, status, policy)
    got = _run(env, pod_name, GRACE0, url_name=pod_name + "bad-name" if bad_name else None)
    assert got == want
    if want:
        return
    live = env.live(pod_name)
    assert live is None if deleted else live is not None and live["metadata"].get("deletionTimestamp")


# -- TestEviction (the rows that need no delete conflicts from upstream's mockStore) --------

# (row name, selector, status, pod name, phase, ready, terminating, grace, error, deletes, policies)
_ROWS: list[tuple[str, Obj, Obj, str, str | None, bool | None, bool, int, str, int, tuple[str | None, ...]]] = [
    ("matching pdbs with no disruptions allowed, pod terminating", A_TRUE, {}, "t6", None, None, True, 300, "", 1,
     POLICIES),
    ("matching pdbs with no disruptions allowed, pod running, pod healthy, unhealthy pod not ours", A_TRUE,
     {"currentHealthy": 2, "desiredHealthy": 2}, "t7", "Running", True, False, 0,
     VIOLATES + "The disruption budget foo needs 2 healthy pods and has 2 currently", 0, POLICIES),
    ("matching pdbs with disruptions allowed, pod running, pod healthy, healthy pod ours, deletes pod by honoring "
     "the PDB", A_TRUE, {"disruptionsAllowed": 1, "currentHealthy": 3, "desiredHealthy": 3}, "t8", "Running", True,
     False, 0, "", 1, POLICIES),
    ("matching pdbs with no disruptions allowed, pod running, pod unhealthy, unhealthy pod ours", A_TRUE,
     {"currentHealthy": 2, "desiredHealthy": 2}, "t8", "Running", False, False, 0, "", 1, POLICIES),
    ("matching pdbs with no disruptions allowed, pod running, pod unhealthy, unhealthy pod ours, skips the PDB "
     "check and deletes", A_TRUE, {}, "t8", "Running", False, False, 0, "", 1, ("AlwaysAllow",)),
    ("matching pdbs with no disruptions allowed, pod running, pod healthy, empty selector, pod not deleted by "
     "honoring the PDB", {}, {"currentHealthy": 3, "desiredHealthy": 3}, "t11", "Running", True, False, 0,
     VIOLATES + "The disruption budget foo needs 3 healthy pods and has 3 currently", 0, POLICIES),
    ("the error is about sync failure when the condition reason is SyncFailedReason", {},
     {"conditions": [{"type": "DisruptionAllowed", "status": "False", "reason": "SyncFailed", "message": "hoge",
                      "lastTransitionTime": "2026-01-01T00:00:00Z"}]}, "t12", "Running", True, False, 0,
     VIOLATES + "The disruption budget foo does not allow evicting pods currently because it failed sync: hoge", 0,
     POLICIES),
    ("matching pdbs with negative disruptions allowed, pod running", A_TRUE, {"disruptionsAllowed": -1}, "t-neg",
     "Running", None, False, 0,
     'poddisruptionbudget.policy "foo" is forbidden: pdb disruptions allowed is negative: Forbidden: The disruption '
     "budget foo does not allow evicting pods currently: pdb disruptions allowed is negative", 0,
     (None, "IfHealthyBudget")),
    ("matching pdbs with too many disrupted pods, pod running", A_TRUE,
     {"disruptionsAllowed": 1, "disruptedPods": {f"pod-{i}": "2026-01-01T00:00:00Z" for i in range(2001)}},
     "t-big", "Running", None, False, 0,
     'poddisruptionbudget.policy "foo" is forbidden: DisruptedPods map too big - too many evictions not confirmed '
     "by PDB controller: Forbidden: The disruption budget foo does not allow evicting pods currently: too many "
     "pending evictions not confirmed by PDB controller", 0, (None, "IfHealthyBudget")),
    ("the error includes the reason when the condition.Status is False", {},
     {"currentHealthy": 4, "desiredHealthy": 3,
      "conditions": [{"type": "DisruptionAllowed", "status": "False", "reason": "bar-reason", "message": "hoge",
                      "lastTransitionTime": "2026-01-01T00:00:00Z"}]}, "t12", "Running", True, False, 0,
     VIOLATES + "The disruption budget foo does not allow evicting pods currently (bar-reason): hoge", 0, POLICIES),
]  # fmt: skip
_CONFLICT_ROWS = [
    "pdbs No disruptions allowed, pod pending, first delete conflict, pod still pending, pod deleted successfully",
    "pdbs No disruptions allowed, pod pending, first delete conflict, pod becomes running, continueToPDBs",
    "pdbs No disruptions allowed, pod pending, first delete conflict, pod becomes running, skip PDB check, conflict",
    "pdbs disruptions allowed, pod pending, first delete conflict, pod becomes running, continueToPDBs",
    "pod pending, always conflict on delete",
    "pod pending, always conflict on delete, user provided ResourceVersion constraint",
    "matching pdbs with no disruptions allowed, pod running, pod unhealthy, unhealthy pod ours, resource version "
    "conflict",
    "matching pdbs with no disruptions allowed, pod running, pod unhealthy, unhealthy pod ours, other error on delete",
]


@pytest.mark.parametrize(
    ("selector", "status", "pod_name", "phase", "ready", "terminating", "grace", "want", "deletes", "policy"),
    [
        pytest.param(sel, st, pod, ph, rdy, term, grace, want, n, pol, id=f"{name} with {pol or 'nil'} policy")
        for pol in ("AlwaysAllow", None, "IfHealthyBudget")
        for name, sel, st, pod, ph, rdy, term, grace, want, n, pols in _ROWS
        if pol in pols
    ]
    + [
        pytest.param(None, None, "", None, None, False, 0, "", 0, None, id=name,
                     marks=pytest.mark.skip(reason="needs delete conflicts injected by upstream's mockStore; the "
                                            "reference commits each request atomically and has no retry loop"))
        for name in _CONFLICT_ROWS
    ],
)  # fmt: skip
def test_eviction(selector: Obj, status: Obj, pod_name: str, phase: str | None, ready: bool | None,
                  terminating: bool, grace: int, want: str, deletes: int, policy: str | None) -> None:  # fmt: skip
    """TestEviction."""
    env = Env()
    env.pod(pod_name, phase=phase, ready=ready, terminating=terminating)
    env.pdb(selector, status, policy)
    assert _run(env, pod_name, {"gracePeriodSeconds": grace}) == want
    assert env.deletes == deletes
    if want and "Forbidden" in want:
        assert [c.reason for c in pytest.raises(ApiError, env.evict, pod_name, GRACE0).value.causes] == [
            "DisruptionBudget"
        ]


# -- TestEvictionWithDeleteOptions ---------------------------------------------------------


@pytest.mark.parametrize(
    ("eviction_opts", "request_dry_run", "with_pdb", "want"),
    [
        pytest.param({}, ["All"], False, "", id="dry run - just request-options"),
        pytest.param({"dryRun": ["All"]}, None, False, "", id="dry run - just eviction-options"),
        pytest.param({"dryRun": ["All"]}, ["All"], False, "", id="dry run - both options"),
        pytest.param({"dryRun": ["All"]}, ["All"], True, "", id="dry run - with pdbs"),
        pytest.param({"ignoreStoreReadErrorWithClusterBreakingPotential": True}, None, False,
                     'Eviction "foo" is invalid: deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential: '
                     "FieldValueInvalid: Invalid value: true: can not be set for pod eviction, try after removing "
                     "the option: Invalid",
                     id="ignoreStoreReadErrorWithClusterBreakingPotential is set, invalid error expected"),
    ],
)  # fmt: skip
def test_eviction_with_delete_options(eviction_opts: Obj, request_dry_run: list[str] | None, with_pdb: bool,
                                      want: str) -> None:  # fmt: skip
    """TestEvictionWithDeleteOptions: a dry run deletes nothing and writes no budget."""
    env = Env()
    env.pod("foo", phase="Running", ready=True)
    if with_pdb:
        env.pdb(A_TRUE, {"disruptionsAllowed": 1})
    got = _run(env, "foo", eviction_opts, dry_run=request_dry_run)
    if want:
        assert got.startswith('Eviction "foo" is invalid: ') and got.endswith(": Invalid")
        assert "can not be set for pod eviction, try after removing the option" in got
        return
    assert got == ""
    live = env.live("foo")
    assert live is not None and not live["metadata"].get("deletionTimestamp")
    assert not any(c["type"] == "DisruptionTarget" for c in live["status"].get("conditions") or [])
    if with_pdb:
        assert env.budget()["disruptionsAllowed"] == 1 and "disruptedPods" not in env.budget()


def test_non_matching_dry_run_options() -> None:
    """``propagateDryRun``: the request's and the Eviction's dryRun must agree."""
    env = Env()
    env.pod("foo", phase="Running", ready=True)
    assert _run(env, "foo", {"dryRun": ["All"]}, dry_run=["Other"]) == (
        "Non-matching dry-run options in request and content: [Other] and [All]: InternalError"
    )


# -- TestEvictionPDBStatus -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("allowed", "want_allowed", "want_reason"),
    [
        pytest.param(1, 0, "InsufficientPods", id="pdb status is updated after eviction"),
        pytest.param(3, 2, "SufficientPods", id="condition reason is only updated if AllowedDisruptions becomes 0"),
    ],
)
def test_eviction_pdb_status(allowed: int, want_allowed: int, want_reason: str) -> None:
    """TestEvictionPDBStatus; also the evicted pod's DisruptionTarget condition."""
    env = Env()
    cond = {"type": "DisruptionAllowed", "status": "True", "reason": "SufficientPods", "message": "",
            "lastTransitionTime": "2026-01-01T00:00:00Z"}  # fmt: skip
    env.pdb(A_TRUE, {"disruptionsAllowed": allowed, "conditions": [cond]})
    for name in ("foo-1", "foo-2"):
        env.pod(name, phase="Running")
    assert _run(env, "foo-1", {}) == ""
    st = env.budget()
    assert st["disruptionsAllowed"] == want_allowed
    assert next(c for c in st["conditions"] if c["type"] == "DisruptionAllowed")["reason"] == want_reason
    assert list(st["disruptedPods"]) == ["foo-1"]
    live = env.live("foo-1")  # deleted gracefully: still there, with the condition
    assert live is not None and live["metadata"].get("deletionTimestamp")
    dt = next(c for c in live["status"]["conditions"] if c["type"] == "DisruptionTarget")
    assert (dt["status"], dt["reason"], dt["message"]) == ("True", "EvictionByEvictionAPI", "Eviction API: evicting")


# -- TestAddConditionAndDelete -------------------------------------------------------------


@pytest.mark.parametrize(
    ("initial", "preconditions", "want"),
    [
        pytest.param(True, None, "", id="simple"),
        pytest.param(False, None, "not found", id="missing"),
        pytest.param(True, "uid", "", id="valid uid"),
        pytest.param(True, "bad-uid", "The object might have been deleted and then recreated", id="invalid uid"),
        pytest.param(True, "rv", "", id="valid resourceVersion"),
        pytest.param(True, "bad-rv", "The object might have been modified", id="invalid resourceVersion"),
    ],
)
def test_add_condition_and_delete(initial: bool, preconditions: str | None, want: str) -> None:
    """TestAddConditionAndDelete, through the subresource (the pod is Pending, so no budget
    is consulted and addConditionAndDeletePod does all the work)."""
    env = Env()
    opts: Obj = {}
    if initial:
        pod = env.pod("foo")
        uid, rv = pod["metadata"]["uid"], pod["metadata"]["resourceVersion"]
        pre = {"uid": {"uid": uid}, "bad-uid": {"uid": uid + "1"}, "rv": {"resourceVersion": rv},
               "bad-rv": {"resourceVersion": rv + "1"}}.get(preconditions or "")  # fmt: skip
        if pre:
            opts["preconditions"] = pre
    got = _run(env, "foo", opts)
    assert (want in got) if want else got == ""
