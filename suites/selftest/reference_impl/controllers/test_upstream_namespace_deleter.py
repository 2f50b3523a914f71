"""Rows of pkg/controller/namespace/deletion/*_test.go (v1.37.2) on the reference deleter.

The controller is built but not started; a row calls ``delete`` (upstream's
``namespacedResourcesDeleter.Delete``) once. Upstream's fake clients' actions are the
calls the controller makes: namespace get/update-status/finalize on the apiserver, the
podsGetter's list (``_list_pods``) and the metadata client's list and deletecollection
(``_list_collection``, ``_delete_collection``), recorded as upstream's action strings.
Discovery is the controller's ``discover`` hook, set to upstream's ``testResources``.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_configmap, make_namespace, make_pod
from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock, seconds
from reference_impl.controllers import namespace_conditions as nc
from reference_impl.controllers.namespace import (
    NamespaceController,
    finalized,
    finalized_spec_finalizers,
)
from reference_impl.errors import Conflict, NotFound
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]


def _path(info: ResourceInfo, ns: str) -> str:
    root = f"/apis/{info.group}" if info.group else "/api"
    return f"{root}/{info.version}/namespaces/{ns}/{info.plural}"


class Env:
    """An apiserver, a deleter that is not started, and its client actions."""

    def __init__(self) -> None:
        self.clock = SimClock()
        rng = Rng(1)
        gates = FeatureGates()
        self.server = APIServer(MVCCStore(), self.clock, rng.child("apiserver"), gates)
        ctx = ComponentContext(
            self.server, InformerFactory(self.server), self.clock, rng, gates, Trace(self.clock)
        )
        self.ctl = NamespaceController(ctx)
        self.kube: list[str] = []
        self.meta: list[str] = []
        self.meta_verbs: list[str] = []
        self.discovery_error: str | None = None
        self.kinds = [
            self.server.resource("v1", "Pod"),
            self.server.resource("v1", "Service"),
            self.server.resource("apps/v1", "Deployment"),
        ]
        self.ctl.discover = lambda: (list(self.kinds), self.discovery_error)
        self._wrap()

    def _wrap(self) -> None:
        srv, ctl = self.server, self.ctl
        get, update_status, finalize = (
            srv.get,
            srv.update_status,
            srv.finalize_namespace,
        )
        list_pods, list_coll, del_coll = (
            ctl._list_pods,
            ctl._list_collection,
            ctl._delete_collection,
        )

        def rec_get(api_version: str, kind: str, *a: Any, **k: Any) -> Obj:
            if kind == "Namespace":
                self.kube.append("get-namespaces-")
            return get(api_version, kind, *a, **k)

        def rec_update_status(manifest: Obj) -> Obj:
            if manifest["kind"] == "Namespace":
                self.kube.append("update-namespaces-status")
            return update_status(manifest)

        def rec_finalize(name: str, finalizers: list[str] | None = None) -> Obj | None:
            self.kube.append("create-namespaces-finalize")
            self.finalize_body = finalizers
            return finalize(name, finalizers)

        def rec_list_pods(namespace: str) -> list[Obj]:
            self.kube.append("list-pods-")
            return list_pods(namespace)

        def rec_list(info: ResourceInfo, namespace: str) -> list[Obj] | None:
            self.meta.append(f"GET={_path(info, namespace)}")
            self.meta_verbs.append(f"list-{info.plural}")
            return list_coll(info, namespace)

        def rec_delete(info: ResourceInfo, namespace: str) -> bool:
            self.meta.append(f"DELETE={_path(info, namespace)}")
            self.meta_verbs.append(f"delete-collection-{info.plural}")
            return del_coll(info, namespace)

        srv.get = rec_get  # type: ignore[method-assign]
        srv.update_status = rec_update_status  # type: ignore[method-assign]
        srv.finalize_namespace = rec_finalize  # type: ignore[method-assign]
        ctl._list_pods = rec_list_pods  # type: ignore[method-assign]
        ctl._list_collection = rec_list  # type: ignore[method-assign]
        ctl._delete_collection = rec_delete  # type: ignore[method-assign]

    def namespace(self, name: str, *, deleting: bool, finalized: bool = False) -> Obj:
        """A namespace; ``finalized`` ones keep a metadata finalizer so they stay stored."""
        ns = make_namespace(name).build()
        if finalized:
            ns["metadata"]["finalizers"] = ["example.com/hold"]
        self.server.create(ns)
        if deleting:
            self.server.delete("v1", "Namespace", name)
            if finalized:
                self.server.finalize_namespace(name)
        out = self.server.get("v1", "Namespace", name)
        self.kube.clear()
        self.meta.clear()
        self.meta_verbs.clear()
        return out


# -- TestFinalized, TestFinalizeNamespaceFunc -------------------------------------------


def test_finalized() -> None:
    assert not finalized({"spec": {"finalizers": ["a", "b"]}})
    assert finalized({"spec": {"finalizers": []}})


def test_finalize_namespace_func() -> None:
    assert finalized_spec_finalizers(["kubernetes", "other"]) == ["other"]


def test_finalize_namespace_func_on_the_apiserver() -> None:
    env = Env()
    ns = make_namespace("test").build()
    ns["spec"] = {"finalizers": ["kubernetes", "example.com/other"]}
    env.server.create(ns)
    env.server.delete("v1", "Namespace", "test")
    env.kube.clear()
    assert env.ctl.delete("test").error is None
    assert env.kube.count("create-namespaces-finalize") == 1
    assert env.finalize_body == ["example.com/other"]
    left = env.server.get("v1", "Namespace", "test")
    assert left["spec"]["finalizers"] == ["example.com/other"]


# -- testSyncNamespaceThatIsTerminating (NonExperimental and V1 run the same rows) ------

_ALL_META = "all"
_ROWS = {
    "pending-finalize": (
        False,
        None,
        {
            "get-namespaces-",
            "create-namespaces-finalize",
            "list-pods-",
            "update-namespaces-status",
        },
        _ALL_META,
        None,
        False,
    ),
    "complete-finalize": (True, None, {"get-namespaces-"}, set(), None, False),
    "groupVersionResourceErr": (True, "test error", {"get-namespaces-"}, set(), None, False),
    "groupVersionResourceErr-finalize": (
        False,
        "test error",
        {"get-namespaces-", "list-pods-", "update-namespaces-status"},
        _ALL_META,
        "test error",
        True,
    ),
}


@pytest.mark.parametrize(
    "row",
    [
        pytest.param(r, id=f"{fn}/{r}")
        for fn in ("TestSyncNamespaceThatIsTerminatingNonExperimental", "TestSyncNamespaceThatIsTerminatingV1")
        for r in _ROWS
    ],
)
def test_sync_namespace_that_is_terminating(row: str) -> None:
    complete, gvr_err, kube, meta, want_err, check_status = _ROWS[row]
    env = Env()
    env.discovery_error = gvr_err
    env.namespace("test", deleting=True, finalized=complete)
    res = env.ctl.delete("test")
    assert res.error == want_err
    assert set(env.kube) == kube
    want_meta = (
        {f"{v}={_path(i, 'test')}" for i in env.kinds for v in ("GET", "DELETE")}
        if meta == _ALL_META
        else meta
    )
    assert set(env.meta) == want_meta
    if check_status:
        ns = env.server.get("v1", "Namespace", "test")
        assert ns["status"]["phase"] == "Terminating"
        types = {c["type"] for c in ns["status"]["conditions"]}
        assert "NamespaceDeletionDiscoveryFailure" in types
        cond = next(
            c for c in ns["status"]["conditions"] if c["type"] == "NamespaceDeletionDiscoveryFailure"
        )
        assert (cond["status"], cond["reason"], cond["message"]) == (
            "True",
            "DiscoveryFailed",
            "test error",
        )


# -- TestRetryOnConflictError, TestSyncNamespaceThatIsActive, TestDeleteEncounters404 ---


def test_retry_on_conflict_error() -> None:
    env = Env()
    ns = env.namespace("test", deleting=False)
    tries = 0

    def retry_once(latest: Obj) -> Obj:
        nonlocal tries
        tries += 1
        if tries <= 1:
            raise Conflict('Operation cannot be fulfilled on namespaces "test": ERROR')
        return latest

    env.ctl.retry_on_conflict(ns, retry_once)
    assert tries == 2


def test_sync_namespace_that_is_active() -> None:
    env = Env()
    env.namespace("test", deleting=False)
    assert env.ctl.delete("test").error is None
    assert env.kube == ["get-namespaces-"]
    assert env.meta == []


def test_delete_encounters_404() -> None:
    """ConfigMaps stand for upstream's ``flakes``: not found in ns1 only."""
    env = Env()
    env.kinds = [env.server.resource("v1", "ConfigMap")]
    env.namespace("ns1", deleting=True)
    env.namespace("ns2", deleting=True)
    real_list = env.server.list

    def flaky_list(api_version: str, kind: str, *a: Any, **k: Any) -> list[Obj]:
        ns = a[0] if a else k.get("namespace")
        if kind == "ConfigMap" and ns == "ns1":
            raise NotFound("the server could not find the requested resource")
        return real_list(api_version, kind, *a, **k)

    env.server.list = flaky_list  # type: ignore[method-assign]
    assert env.ctl.delete("ns1").error is None
    assert env.meta_verbs == [
        "delete-collection-configmaps",
        "list-configmaps",
        "list-configmaps",
    ]
    env.meta_verbs.clear()
    assert env.ctl.delete("ns2").error is None
    assert env.meta_verbs == ["delete-collection-configmaps", "list-configmaps"]


# -- TestUpdateConditions, TestProcessContentTotals (status_condition_utils_test.go) ----

_OK = nc.successful_condition
_GV, _DISC = nc.GV_PARSING, nc.DISCOVERY
_FOO = {"type": _GV, "status": "True", "reason": "foo", "message": "bar"}
_REST = [
    _OK(nc.CONTENT_FAILURE),
    _OK(nc.CONTENT_REMAINING),
    _OK(nc.FINALIZERS_REMAINING),
]


@pytest.mark.parametrize(
    ("new", "start", "want"),
    [
        pytest.param(
            [],
            [{"type": "unknown", "status": "True"}],
            [{"type": "unknown", "status": "True"}, _OK(_DISC), _OK(_GV), *_REST],
            id="leave unknown",
        ),
        pytest.param(
            [], [{"type": _DISC, "status": "True"}], [_OK(_DISC), _OK(_GV), *_REST], id="replace with success"
        ),
        pytest.param(
            [],
            [{"type": _GV, "status": "True"}, {"type": _DISC, "status": "True"}],
            [_OK(_GV), _OK(_DISC), *_REST],
            id="leave different order",
        ),
        pytest.param(
            [_FOO],
            [{"type": _GV, "status": "False"}, {"type": _DISC, "status": "True"}],
            [_FOO, _OK(_DISC), *_REST],
            id="overwrite with failure",
        ),
        pytest.param(
            [_FOO], [{"type": _DISC, "status": "True"}], [_OK(_DISC), _FOO, *_REST], id="write new failure"
        ),
    ],
)
def test_update_conditions(new: list[Obj], start: list[Obj], want: list[Obj]) -> None:
    status: Obj = {"conditions": [dict(c) for c in start]}
    assert nc.update_conditions(status, new, "2026-09-01T00:00:00Z")
    got = [{k: v for k, v in c.items() if k != "lastTransitionTime"} for c in status["conditions"]]
    assert got == want


_REMAINING = (
    "Some resources are remaining: daemonsets.apps.k8s.io has 5 resource instances, "
    "deployments.apps.k8s.io has 5 resource instances"
)
_FINALIZERS = (
    "Some content in the namespace has finalizers remaining: kubedb in 5 resource "
    "instances, service-catalog in 6 resource instances"
)
_RES = {("apps.k8s.io", "daemonsets"): 5, ("apps.k8s.io", "deployments"): 5}
_FINS = {"service-catalog": 6, "kubedb": 5}
_C_REM = {"type": nc.CONTENT_REMAINING, "status": "True", "reason": "SomeResourcesRemain", "message": _REMAINING}
_C_FIN = {
    "type": nc.FINALIZERS_REMAINING,
    "status": "True",
    "reason": "SomeFinalizersRemain",
    "message": _FINALIZERS,
}


@pytest.mark.parametrize(
    ("remaining", "fins", "want"),
    [
        pytest.param({}, {}, [], id="nothing"),
        pytest.param(_RES, {}, [_C_REM], id="just remaining"),
        pytest.param({}, _FINS, [_C_FIN], id="just finalizers"),
        pytest.param(_RES, _FINS, [_C_REM, _C_FIN], id="both"),
    ],
)
def test_process_content_totals(
    remaining: dict[tuple[str, str], int], fins: dict[str, int], want: list[Obj]
) -> None:
    assert nc.content_totals_conditions(remaining, fins) == want


# -- As modelled: deleteAllContent's pods-first rule and estimateGracefulTermination ----


def _bound_pod(env: Env, name: str, grace: int, *, finalizer: str | None = None) -> None:
    pod = make_pod(name, "test").build()
    pod["spec"]["nodeName"] = "node-1"
    pod["spec"]["terminationGracePeriodSeconds"] = grace
    if finalizer:
        pod["metadata"]["finalizers"] = [finalizer]
    env.server.create(pod)


def test_pods_go_first_and_the_estimate_is_their_grace_period() -> None:
    env = Env()
    env.kinds = [env.server.resource("v1", "Pod"), env.server.resource("v1", "ConfigMap")]
    env.namespace("test", deleting=False)
    _bound_pod(env, "a", 30)
    _bound_pod(env, "b", 45)
    env.server.create(make_configmap("cm", "test").build())
    env.server.delete("v1", "Namespace", "test")
    res = env.ctl.delete("test")
    assert res.remaining_estimate == 45
    assert res.error == "some content remains in the namespace, estimate 45 seconds before it is removed"
    # Pods remain, so ConfigMaps are left alone and the totals are not recorded.
    assert env.server.try_get("v1", "ConfigMap", "cm", "test") is not None
    ns = env.server.get("v1", "Namespace", "test")
    conds = {c["type"]: c for c in ns["status"]["conditions"]}
    assert [c["type"] for c in ns["status"]["conditions"]] == list(nc.CONDITION_TYPES)
    assert conds[nc.CONTENT_REMAINING]["reason"] == "ContentRemoved"


def test_grace_elapsed_pods_with_a_finalizer_estimate_fifteen_seconds() -> None:
    env = Env()
    env.kinds = [env.server.resource("v1", "Pod")]
    env.namespace("test", deleting=False)
    _bound_pod(env, "a", 30, finalizer="example.com/keep")
    env.server.delete("v1", "Namespace", "test")
    env.ctl.delete("test")
    env.clock.run_until(Instant(env.clock.now() + seconds(31)))
    res = env.ctl.delete("test")
    assert res.remaining_estimate == 15
    ns = env.server.get("v1", "Namespace", "test")
    conds = {c["type"]: c for c in ns["status"]["conditions"]}
    assert conds[nc.CONTENT_REMAINING]["status"] == "False"  # pods-first: totals wait


def test_content_held_by_finalizers_sets_both_conditions() -> None:
    env = Env()
    env.kinds = [env.server.resource("v1", "Pod"), env.server.resource("v1", "ConfigMap")]
    env.namespace("test", deleting=False)
    cm = make_configmap("cm", "test").build()
    cm["metadata"]["finalizers"] = ["example.com/keep"]
    env.server.create(cm)
    env.server.delete("v1", "Namespace", "test")
    res = env.ctl.delete("test")
    assert res.remaining_estimate == 15
    ns = env.server.get("v1", "Namespace", "test")
    conds = {c["type"]: c for c in ns["status"]["conditions"]}
    rem, fin = conds[nc.CONTENT_REMAINING], conds[nc.FINALIZERS_REMAINING]
    assert (rem["status"], rem["reason"], rem["message"]) == (
        "True",
        "SomeResourcesRemain",
        "Some resources are remaining: configmaps. has 1 resource instances",
    )
    assert (fin["status"], fin["reason"], fin["message"]) == (
        "True",
        "SomeFinalizersRemain",
        "Some content in the namespace has finalizers remaining: example.com/keep in 1 resource instances",
    )
