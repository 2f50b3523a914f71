"""Volume binder assume/bind rows ported from upstream
pkg/scheduler/framework/plugins/volumebinding/binder_test.go (v1.37.2):
TestAssumePodVolumes, TestRevertAssumedPodVolumes, TestFindAssumeVolumes,
TestBindAPIUpdate and TestCheckBindings.

``Env`` stands in for upstream's testEnv: informer caches the binder's assume caches read,
and a fake API server with optimistic concurrency (resourceVersion + 1 on each update).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.api.pv_helpers import SELECTED_NODE
from reference_impl.errors import ApiError
from reference_impl.scheduler.plugins import volume_binder as vbr
from suites.selftest.reference_impl.scheduler.upstream_volume_binder_env import (
    Env,
    add_provision_ann,
    bound_pvc,
    bound_pvc_node1a,
    make_pod,
    node1,
    prebound_pvc_node1a,
    provisioned_pvc,
    provisioned_pvc2,
    provisioned_pvc_bound,
    provisioned_pvc_higher,
    pv_bound,
    pv_node1a,
    pv_node1a_bound,
    pv_node1b,
    pv_node1b_bound,
    pv_node1b_bound_higher,
    pv_node1c,
    pv_node2,
    pv_remove_claim_uid,
    selected_node_pvc,
    unbound_pvc,
    unbound_pvc2,
    with_annotations,
    without_rv,
)

Obj = dict[str, Any]


def binding(pvc: Obj, pv: Obj) -> vbr.Binding:
    """``makeBinding``: deep copies."""
    return vbr.Binding(copy.deepcopy(pvc), copy.deepcopy(pv))


def _key(o: Obj) -> str:
    m = o["metadata"]
    return f"{m['namespace']}/{m['name']}" if m.get("namespace") else str(m["name"])


def validate_assume(env: Env, bindings: list[vbr.Binding], pvcs: list[Obj]) -> None:
    """``validateAssume``: assumed PVs carry the claimRef, claims the selected node."""
    for b in bindings:
        pv = env.binder.pvs.get(_key(b.pv))
        assert pv is not None
        ref = pv["spec"].get("claimRef")
        assert ref is not None
        assert (ref["name"], ref["namespace"]) == (b.pvc["metadata"]["name"], b.pvc["metadata"]["namespace"])
    for p in pvcs:
        got = env.binder.pvcs.get(_key(p))
        assert got is not None
        assert (got["metadata"].get("annotations") or {}).get(SELECTED_NODE) == "node1"


def validate_restored(env: Env, bindings: list[vbr.Binding], pvcs: list[Obj]) -> None:
    """``validateCacheRestored``: nothing assumed is left."""
    for b in bindings:
        pv = env.binder.pvs.get(_key(b.pv))
        assert pv is None or pv is env.binder.pvs.get_api(_key(b.pv))
    for p in pvcs:
        got = env.binder.pvcs.get(_key(p))
        assert got is not None
        assert not (got["metadata"].get("annotations") or {}).get(SELECTED_NODE)


# -- TestAssumePodVolumes --------------------------------------------------------------------
# name: (pod claims, pvs, bindings, provisions, fails, all bound, want bindings, want provisions)
ASSUME: dict[str, tuple[Any, ...]] = {
    "all-bound": ([bound_pvc], [pv_bound], [], [], False, True, None, None),
    "one-binding": ([unbound_pvc], [pv_node1a], [(unbound_pvc, pv_node1a)], [], False, False,
                    [(unbound_pvc, pv_node1a_bound)], []),
    "two-bindings": ([unbound_pvc, unbound_pvc2], [pv_node1a, pv_node1b],
                     [(unbound_pvc, pv_node1a), (unbound_pvc2, pv_node1b)], [], False, False,
                     [(unbound_pvc, pv_node1a_bound), (unbound_pvc2, pv_node1b_bound)], []),
    "pv-already-bound": ([unbound_pvc], [pv_node1a_bound], [(unbound_pvc, pv_node1a_bound)], [], False, False,
                         [(unbound_pvc, pv_node1a_bound)], []),
    "tmpupdate-failed": ([unbound_pvc], [pv_node1a], [(unbound_pvc, pv_node1a), (unbound_pvc2, pv_node1b)], [],
                         True, False, None, None),
    "one-binding, one-pvc-provisioned": ([unbound_pvc, provisioned_pvc], [pv_node1a], [(unbound_pvc, pv_node1a)],
                                         [provisioned_pvc], False, False, [(unbound_pvc, pv_node1a_bound)],
                                         [selected_node_pvc]),
    "one-binding, one-provision-tmpupdate-failed": ([unbound_pvc, provisioned_pvc_higher], [pv_node1a],
                                                    [(unbound_pvc, pv_node1a)], [provisioned_pvc2], True, False,
                                                    None, None),
}


@pytest.mark.parametrize("name", list(ASSUME))
def test_assume_pod_volumes(name: str) -> None:
    pod_pvcs, pvs, bindings, provisions, fails, all_bound, want_b, want_p = ASSUME[name]
    env = Env()
    env.init(pod_pvcs, None)
    pod = make_pod(*pod_pvcs)
    volumes = vbr.PodVolumes([binding(c, v) for c, v in bindings], [vbr.Provision(copy.deepcopy(p)) for p in provisions])
    env.init(pvs, None)
    try:
        got_all_bound = env.binder.assume_pod_volumes(pod, "node1", volumes)
        failed = False
    except vbr.BinderError:
        got_all_bound, failed = False, True
    assert (failed, got_all_bound) == (fails, all_bound)
    want_bindings = [binding(c, v) for c, v in (want_b if want_b is not None else bindings)]
    want_provisions = list(want_p if want_p is not None else provisions)
    if fails:
        validate_restored(env, [binding(c, v) for c, v in bindings], list(provisions))
    else:
        validate_assume(env, want_bindings, want_provisions)
    # validatePodCache
    assert [(b.pvc, b.pv) for b in volumes.static_bindings] == [(b.pvc, b.pv) for b in want_bindings]
    assert [(p.pvc, p.capacity) for p in volumes.dynamic_provisions] == [(p, None) for p in want_provisions]


def test_revert_assumed_pod_volumes() -> None:
    """TestRevertAssumedPodVolumes."""
    env = Env()
    env.init([unbound_pvc, provisioned_pvc], None)
    pod = make_pod(unbound_pvc, provisioned_pvc)
    volumes = vbr.PodVolumes([binding(unbound_pvc, pv_node1a)], [vbr.Provision(copy.deepcopy(provisioned_pvc))])
    env.init([pv_node1a], None)
    assert env.binder.assume_pod_volumes(pod, "node1", volumes) is False
    validate_assume(env, [binding(unbound_pvc, pv_node1a_bound)], [selected_node_pvc])
    env.binder.revert_assumed_pod_volumes(volumes)
    validate_restored(env, [binding(unbound_pvc, pv_node1a)], [provisioned_pvc])


def test_find_assume_volumes() -> None:
    """TestFindAssumeVolumes: after assuming, FindPodVolumes keeps choosing the same PV."""
    env = Env()
    env.init([pv_node2, pv_node1a, pv_node1c], None)
    env.init([unbound_pvc], None)
    pod = make_pod(unbound_pvc)
    labels = node1["metadata"]["labels"]
    found, reasons = env.binder.find_pod_volumes(pod, env.binder.pod_volume_claims(pod), "node1", labels)
    assert reasons == []
    assert env.binder.assume_pod_volumes(pod, "node1", found) is False
    validate_assume(env, found.static_bindings, [])
    expected = [(b.pvc, b.pv) for b in found.static_bindings]
    for _ in range(50):
        again, reasons = env.binder.find_pod_volumes(pod, env.binder.pod_volume_claims(pod), "node1", labels)
        assert reasons == []
        assert [(b.pvc, b.pv) for b in again.static_bindings] == expected
        assert again.dynamic_provisions == []


# -- TestBindAPIUpdate -----------------------------------------------------------------------
# name: (bindings, cached pvs, api pvs, provisioned, cached pvcs, api pvcs, fails,
#        want pvs, want api pvs, want pvcs, want api pvcs); None bindings/provisioned is nil.
BIND_API: dict[str, tuple[Any, ...]] = {
    "nothing-to-bind-nil": (None, [], None, None, [], None, True, [], None, [], None),
    "nothing-to-bind-bindings-nil": (None, [], None, [], [], None, True, [], None, [], None),
    "nothing-to-bind-provisionings-nil": ([], [], None, None, [], None, True, [], None, [], None),
    "nothing-to-bind-empty": ([], [], None, [], [], None, False, [], None, [], None),
    "one-binding": ([(unbound_pvc, pv_node1a_bound)], [pv_node1a], None, [], [], None, False,
                    [pv_node1a_bound], None, [], None),
    "two-bindings": ([(unbound_pvc, pv_node1a_bound), (unbound_pvc2, pv_node1b_bound)], [pv_node1a, pv_node1b], None,
                     [], [], None, False, [pv_node1a_bound, pv_node1b_bound], None, [], None),
    "api-already-updated": ([(unbound_pvc, pv_node1a_bound)], [pv_node1a_bound], None, [], [], None, False,
                            [pv_node1a_bound], None, [], None),
    "api-update-failed": ([(unbound_pvc, pv_node1a_bound), (unbound_pvc2, pv_node1b_bound)], [pv_node1a, pv_node1b],
                          [pv_node1a, pv_node1b_bound_higher], [], [], None, True, [pv_node1a_bound, pv_node1b],
                          [pv_node1a_bound, pv_node1b_bound_higher], [], None),
    "one-provisioned-pvc": ([], [], None, [add_provision_ann(provisioned_pvc)], [provisioned_pvc], None, False, [],
                            None, [add_provision_ann(provisioned_pvc)], None),
    "provision-api-update-failed": ([], [], None, [add_provision_ann(provisioned_pvc),
                                                   add_provision_ann(provisioned_pvc2)],
                                    [provisioned_pvc, provisioned_pvc2], [provisioned_pvc, provisioned_pvc_higher],
                                    True, [], None, [add_provision_ann(provisioned_pvc), provisioned_pvc2],
                                    [add_provision_ann(provisioned_pvc), provisioned_pvc_higher]),
    "binding-succeed, provision-api-update-failed": (
        [(unbound_pvc, pv_node1a_bound)], [pv_node1a], None,
        [add_provision_ann(provisioned_pvc), add_provision_ann(provisioned_pvc2)], [provisioned_pvc, provisioned_pvc2],
        [provisioned_pvc, provisioned_pvc_higher], True, [pv_node1a_bound], None,
        [add_provision_ann(provisioned_pvc), provisioned_pvc2],
        [add_provision_ann(provisioned_pvc), provisioned_pvc_higher]),
}


@pytest.mark.parametrize("name", list(BIND_API))
def test_bind_api_update(name: str) -> None:
    bindings_in, cached_pvs, api_pvs, provisioned, cached_pvcs, api_pvcs, fails, want_pvs, want_api_pvs, \
        want_pvcs, want_api_pvcs = BIND_API[name]
    env = Env()
    pod = make_pod()
    env.init(cached_pvs, api_pvs if api_pvs is not None else cached_pvs)
    env.init(cached_pvcs, api_pvcs if api_pvcs is not None else cached_pvcs)
    bindings = None if bindings_in is None else [binding(c, v) for c, v in bindings_in]
    provisions = None if provisioned is None else [vbr.Provision(copy.deepcopy(p)) for p in provisioned]
    for b in bindings or ():  # assumeVolumes
        env.binder.pvs.assume(b.pv)
    for p in provisions or ():
        env.binder.pvcs.assume(p.pvc)
    try:
        env.binder.bind_api_update(pod, env.update, bindings, provisions)
        failed = False
    except (vbr.BinderError, ApiError):
        failed = True
    assert failed == fails
    # validateBind / validateProvision: the caches and the API objects, resourceVersions aside.
    assert [without_rv(env.binder.pvs.get(_key(pv))) for pv in want_pvs] == [without_rv(pv) for pv in want_pvs]
    want_api = want_api_pvs if want_api_pvs is not None else want_pvs
    assert [without_rv(env.api["PersistentVolume"][_key(pv)]) for pv in want_api] == [without_rv(pv) for pv in want_api]
    assert [without_rv(env.binder.pvcs.get(_key(c))) for c in want_pvcs] == [without_rv(c) for c in want_pvcs]
    want_api_c = want_api_pvcs if want_api_pvcs is not None else want_pvcs
    assert [without_rv(env.api["PersistentVolumeClaim"][_key(c)]) for c in want_api_c] == [
        without_rv(c) for c in want_api_c]


# -- TestCheckBindings -----------------------------------------------------------------------
# name: (init pvs, init pvcs, bindings, provisioned, api pvs, api pvcs, delete pvs, delete pvcs,
#        fails, bound); None bindings/provisioned is nil.
CHECK: dict[str, tuple[Any, ...]] = {
    "nothing-to-bind-nil": ([], [], None, None, [], [], False, False, True, False),
    "nothing-to-bind-bindings-nil": ([], [], None, [], [], [], False, False, True, False),
    "nothing-to-bind-provisionings-nil": ([], [], [], None, [], [], False, False, True, False),
    "nothing-to-bind": ([], [], [], [], [], [], False, False, False, True),
    "binding-bound": ([pv_node1a_bound], [bound_pvc_node1a], [(unbound_pvc, pv_node1a_bound)], [], [], [], False,
                      False, False, True),
    "binding-prebound": ([pv_node1a_bound], [prebound_pvc_node1a], [(unbound_pvc, pv_node1a_bound)], [], [], [],
                         False, False, False, False),
    "binding-unbound": ([pv_node1a_bound], [unbound_pvc], [(unbound_pvc, pv_node1a_bound)], [], [], [], False, False,
                        False, False),
    "binding-pvc-not-exists": ([pv_node1a_bound], [], [(unbound_pvc, pv_node1a_bound)], [], [], [], False, False,
                               True, False),
    "binding-pv-not-exists": ([pv_node1a_bound], [bound_pvc_node1a], [(unbound_pvc, pv_node1a_bound)], [], [], [],
                              True, False, True, False),
    "binding-claimref-nil": ([pv_node1a], [bound_pvc_node1a], [(unbound_pvc, pv_node1a_bound)], [], [pv_node1a],
                             [bound_pvc_node1a], False, False, True, False),
    "binding-claimref-uid-empty": ([pv_node1a_bound], [bound_pvc_node1a], [(unbound_pvc, pv_node1a_bound)], [],
                                   [pv_remove_claim_uid(pv_node1a_bound)], [bound_pvc_node1a], False, False, True,
                                   False),
    "binding-one-bound,one-unbound": ([pv_node1a_bound, pv_node1b_bound], [bound_pvc_node1a, unbound_pvc2],
                                      [(unbound_pvc, pv_node1a_bound), (unbound_pvc2, pv_node1b_bound)], [], [], [],
                                      False, False, False, False),
    "provisioning-pvc-bound": ([pv_bound], [provisioned_pvc_bound], [], [add_provision_ann(provisioned_pvc)], [],
                               [add_provision_ann(provisioned_pvc_bound)], False, False, False, True),
    "provisioning-pvc-unbound": ([], [add_provision_ann(provisioned_pvc)], [], [add_provision_ann(provisioned_pvc)],
                                 [], [], False, False, False, False),
    "provisioning-pvc-not-exists": ([], [provisioned_pvc], [], [add_provision_ann(provisioned_pvc)], [], [], False,
                                    True, True, False),
    "provisioning-pvc-annotations-nil": ([], [provisioned_pvc], [], [add_provision_ann(provisioned_pvc)], [],
                                         [provisioned_pvc], False, False, True, False),
    "provisioning-pvc-selected-node-dropped": ([], [provisioned_pvc], [], [add_provision_ann(provisioned_pvc)], [],
                                               [{**provisioned_pvc, "metadata": {  # pvcSetEmptyAnnotations
                                                   **provisioned_pvc["metadata"], "annotations": {}}}],
                                               False, False, True, False),
    "provisioning-pvc-selected-node-wrong-node": ([], [provisioned_pvc], [], [add_provision_ann(provisioned_pvc)], [],
                                                  [with_annotations(provisioned_pvc, **{SELECTED_NODE: "wrong-node"})],
                                                  False, False, True, False),
    "binding-bound-provisioning-unbound": ([pv_node1a_bound], [bound_pvc_node1a, add_provision_ann(provisioned_pvc)],
                                           [(unbound_pvc, pv_node1a_bound)], [add_provision_ann(provisioned_pvc)], [],
                                           [], False, False, False, False),
    "tolerate-provisioning-pvc-bound-pv-not-found": ([pv_node1a], [provisioned_pvc], [],
                                                     [add_provision_ann(provisioned_pvc)], [],
                                                     [add_provision_ann(provisioned_pvc_bound)], True, False, False,
                                                     False),
}


@pytest.mark.parametrize("name", list(CHECK))
def test_check_bindings(name: str) -> None:
    init_pvs, init_pvcs, bindings_in, provisioned, api_pvs, api_pvcs, del_pvs, del_pvcs, fails, bound = CHECK[name]
    env = Env()
    pod = make_pod()
    env.add(pod)
    env.add(node1)
    env.init(init_pvs, None)
    env.init(init_pvcs, None)
    bindings = None if bindings_in is None else [binding(c, v) for c, v in bindings_in]
    provisions = None if provisioned is None else [vbr.Provision(copy.deepcopy(p)) for p in provisioned]
    for b in bindings or ():  # assumeVolumes
        env.binder.pvs.assume(b.pv)
    for p in provisions or ():
        env.binder.pvcs.assume(p.pvc)
    if del_pvs:
        env.delete(init_pvs)
    else:
        env.update_and_sync(api_pvs)
    if del_pvcs:
        env.delete(init_pvcs)
    else:
        env.update_and_sync(api_pvcs)
    try:
        got = env.binder.check_bindings(pod, bindings, provisions)
        failed = False
    except vbr.BinderError:
        got, failed = False, True
    assert (failed, got) == (fails, bound)
