"""Volume binder FindPodVolumes rows ported from upstream
pkg/scheduler/framework/plugins/volumebinding/binder_test.go (v1.37.2):
TestFindPodVolumesWithoutProvisioning, TestFindPodVolumesWithProvisioning (each under its
three CSIDriver variants), TestFindPodVolumesWithCSIMigration and TestCapacity (both
CSIDriver.StorageCapacity settings).

As upstream's ``findPodVolumes`` helper: GetPodVolumeClaims, an error for unbound
immediate claims, then FindPodVolumes on node1; reasons compared sorted (checkReasons).
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.plugins import volume_binder as vbr
from suites.selftest.reference_impl.scheduler.upstream_volume_binder_env import (
    PROVISIONER,
    WAIT,
    WAIT_PROV,
    Env,
    bound_migration_pvc,
    bound_pvc,
    conflicting_generic_pvc,
    correct_generic_pvc,
    immediate_bound_pvc,
    immediate_unbound_pvc,
    make_capacity,
    make_csi_driver,
    make_node,
    make_pod,
    make_pv,
    network_attached_capacity,
    no_provisioner_pvc,
    node1,
    node1_capacity,
    node2_capacity,
    prebound_pvc,
    provisioned_pvc,
    pv_bound,
    pv_bound_generic,
    pv_bound_immediate,
    pv_bound_immediate_node2,
    pv_node1a,
    pv_node1b,
    pv_node2,
    selected_node_pvc,
    topo_mismatch_pvc,
    unbound_pvc,
    unbound_pvc2,
)

Obj = dict[str, Any]
BIND, NODE, SPACE, NOPV = vbr.BIND_CONFLICT, vbr.NODE_CONFLICT, vbr.NOT_ENOUGH_SPACE, vbr.PV_NOT_EXIST
DRIVERS = {"no CSIDriver": None, "CSIDriver with capacity tracking": make_csi_driver(True),
           "CSIDriver without capacity tracking": make_csi_driver(False)}


def find(env: Env, pod: Obj, node: Obj) -> tuple[bool, list[str], vbr.PodVolumes | None]:
    """``findPodVolumes``: (failed, sorted reasons, volumes)."""
    try:
        claims = env.binder.pod_volume_claims(pod)
        if claims.unbound_immediate:
            raise vbr.BinderError("pod has unbound immediate PersistentVolumeClaims")
        found, reasons = env.binder.find_pod_volumes(pod, claims, node["metadata"]["name"],
                                                     node["metadata"].get("labels") or {})
    except vbr.BinderError:
        return True, [], None
    return False, sorted(reasons), found


def names(found: vbr.PodVolumes | None) -> tuple[list[tuple[str, str]], list[str]]:
    if found is None:
        return [], []
    return ([(b.pvc["metadata"]["name"], b.pv["metadata"]["name"]) for b in found.static_bindings],
            [p.pvc["metadata"]["name"] for p in found.dynamic_provisions])


def _b(pvc: Obj, pv: Obj) -> tuple[str, str]:
    return pvc["metadata"]["name"], pv["metadata"]["name"]


# -- TestFindPodVolumesWithoutProvisioning ---------------------------------------------------
# name: (pvs, pod claims, cached claims or None, pod or None, bindings, reasons, fails)
WITHOUT: dict[str, tuple[Any, ...]] = {
    "no-volumes": ([], [], None, make_pod(), [], [], False),
    "no-pvcs": ([], [], None, make_pod(empty_dir=True), [], [], False),
    "pvc-not-found": ([], [bound_pvc], [], None, [], [], True),
    "bound-pvc": ([pv_bound], [bound_pvc], None, None, [], [], False),
    "bound-pvc,pv-not-exists": ([], [bound_pvc], None, None, [], [NOPV], False),
    "prebound-pvc": ([make_pv("pv-node1a", "node1", "5G", "1", unbound_pvc, WAIT)], [prebound_pvc], None, None,
                     [], [], True),
    "unbound-pvc,pv-same-node": ([pv_node2, pv_node1a, pv_node1b], [unbound_pvc], None, None,
                                 [_b(unbound_pvc, pv_node1a)], [], False),
    "unbound-pvc,pv-different-node": ([pv_node2], [unbound_pvc], None, None, [], [BIND], False),
    "two-unbound-pvcs": ([pv_node1a, pv_node1b], [unbound_pvc, unbound_pvc2], None, None,
                         [_b(unbound_pvc, pv_node1a), _b(unbound_pvc2, pv_node1b)], [], False),
    "two-unbound-pvcs,order-by-size": ([pv_node1a, pv_node1b], [unbound_pvc2, unbound_pvc], None, None,
                                       [_b(unbound_pvc, pv_node1a), _b(unbound_pvc2, pv_node1b)], [], False),
    "two-unbound-pvcs,partial-match": ([pv_node1a], [unbound_pvc, unbound_pvc2], None, None,
                                       [_b(unbound_pvc, pv_node1a)], [BIND], False),
    "one-bound,one-unbound": ([pv_bound, pv_node1a], [unbound_pvc, bound_pvc], None, None,
                              [_b(unbound_pvc, pv_node1a)], [], False),
    "one-bound,one-unbound,no-match": ([pv_bound, pv_node2], [unbound_pvc, bound_pvc], None, None, [], [BIND], False),
    "one-prebound,one-unbound": ([pv_node1a, pv_node1b], [unbound_pvc, prebound_pvc], None, None, [], [], True),
    "immediate-bound-pvc": ([pv_bound_immediate], [immediate_bound_pvc], None, None, [], [], False),
    "immediate-bound-pvc-wrong-node": ([pv_bound_immediate_node2], [immediate_bound_pvc], None, None, [], [NODE],
                                       False),
    "immediate-unbound-pvc": ([], [immediate_unbound_pvc], None, None, [], [], True),
    "immediate-unbound-pvc,delayed-mode-bound": ([pv_bound], [immediate_unbound_pvc, bound_pvc], None, None, [], [],
                                                 True),
    "immediate-unbound-pvc,delayed-mode-unbound": ([], [immediate_unbound_pvc, unbound_pvc], None, None, [], [], True),
    "generic-ephemeral,no-pvc": ([], [], None, make_pod(ephemeral="no-such-pvc"), [], [], True),
    "generic-ephemeral,with-pvc": ([pv_bound_generic], [], [correct_generic_pvc], make_pod(ephemeral="test-volume"),
                                   [], [], False),
    "generic-ephemeral,wrong-pvc": ([pv_bound_generic], [], [conflicting_generic_pvc],
                                    make_pod(ephemeral="test-volume"), [], [], True),
}


@pytest.mark.parametrize("driver", list(DRIVERS))
@pytest.mark.parametrize("name", list(WITHOUT))
def test_find_pod_volumes_without_provisioning(name: str, driver: str) -> None:
    pvs, pod_pvcs, cached, pod, bindings, reasons, fails = WITHOUT[name]
    env = Env()
    env.init(pvs, pvs)
    if DRIVERS[driver] is not None:
        env.add(DRIVERS[driver])
    env.init(pod_pvcs if cached is None else cached, None)
    got = find(env, pod if pod is not None else make_pod(*pod_pvcs), node1)
    assert got[:2] == (fails, sorted(reasons))
    assert names(got[2]) == (bindings, [])


# -- TestFindPodVolumesWithProvisioning ------------------------------------------------------
# name: (pvs, pod claims, bindings, provisions, reasons, fails, needs capacity)
WITH: dict[str, tuple[Any, ...]] = {
    "one-provisioned": ([], [provisioned_pvc], [], [provisioned_pvc], [], False, True),
    "two-unbound-pvcs,one-matched,one-provisioned": (
        [pv_node1a], [unbound_pvc, provisioned_pvc], [_b(unbound_pvc, pv_node1a)], [provisioned_pvc], [], False, True),
    "one-bound,one-provisioned": ([pv_bound], [bound_pvc, provisioned_pvc], [], [provisioned_pvc], [], False, True),
    "one-binding,one-selected-node": ([pv_bound], [bound_pvc, selected_node_pvc], [], [selected_node_pvc], [], False,
                                      True),
    "immediate-unbound-pvc": ([], [immediate_unbound_pvc], [], [], [], True, False),
    "one-immediate-bound,one-provisioned": ([pv_bound_immediate], [immediate_bound_pvc, provisioned_pvc], [],
                                            [provisioned_pvc], [], False, True),
    "invalid-provisioner": ([], [no_provisioner_pvc], [], [], [BIND], False, False),
    "volume-topology-unsatisfied": ([], [topo_mismatch_pvc], [], [], [BIND], False, False),
}


@pytest.mark.parametrize("driver", list(DRIVERS))
@pytest.mark.parametrize("name", list(WITH))
def test_find_pod_volumes_with_provisioning(name: str, driver: str) -> None:
    pvs, pod_pvcs, bindings, provisions, reasons, fails, needs_capacity = WITH[name]
    env = Env()
    env.init(pvs, pvs)
    d = DRIVERS[driver]
    if d is not None:
        env.add(d)
    env.init(pod_pvcs, None)
    want_reasons, want_provisions = list(reasons), [p["metadata"]["name"] for p in provisions]
    if needs_capacity and d is not None and d["spec"]["storageCapacity"]:
        want_reasons, want_provisions = [*want_reasons, SPACE], []  # no CSIStorageCapacity objects
    got = find(env, make_pod(*pod_pvcs), node1)
    assert got[:2] == (fails, sorted(want_reasons))
    assert names(got[2]) == (bindings, want_provisions)


# -- TestFindPodVolumesWithCSIMigration ------------------------------------------------------
ZONE1 = {"failure-domain.beta.kubernetes.io/zone": "us-east-1", "failure-domain.beta.kubernetes.io/region": "us-east-1a"}


def _migration_pv() -> Obj:
    """``makeTestPVForCSIMigration(zone1Labels, boundMigrationPVC, true)``: a GCE PD volume
    without node affinity (the translation library would derive it from the zone label)."""
    pv = make_pv("pv-migration-bound", "node1", "1G", "1", bound_migration_pvc, WAIT)
    del pv["spec"]["nodeAffinity"]
    pv["metadata"]["labels"] = dict(ZONE1)
    pv["spec"]["gcePersistentDisk"] = {"pdName": "test-disk", "fsType": "ext4"}
    return pv


def _csinode(migrated: str) -> Obj:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
            "metadata": {"name": "node1", "annotations": {"storage.alpha.kubernetes.io/migrated-plugins": migrated}}}


NODE1_ZONE1 = make_node("node1", {"topology.gke.io/zone": "us-east-1"})
NODE1_ZONE2 = make_node("node1", {"topology.gke.io/zone": "us-east-2"})
NO_TRANSLATION = pytest.mark.skip(reason="in-tree to CSI PV translation (tryTranslatePVToCSI) is not modelled")


@pytest.mark.parametrize(("node", "csinode", "reasons"), [
    pytest.param(NODE1_ZONE1, _csinode("kubernetes.io/gce-pd"), [], id="pvc-bound"),
    pytest.param(NODE1_ZONE1, _csinode(""), [], id="pvc-bound,csinode-not-migrated"),
    pytest.param(NODE1_ZONE1, None, [], id="pvc-bound,missing-csinode"),
    pytest.param(NODE1_ZONE2, _csinode("kubernetes.io/gce-pd"), [NODE], id="pvc-bound,node-different-zone",
                 marks=NO_TRANSLATION),
])
def test_find_pod_volumes_with_csi_migration(node: Obj, csinode: Obj | None, reasons: list[str]) -> None:
    env = Env()
    pv = _migration_pv()
    env.init([pv], [pv])
    env.add(node)
    if csinode is not None:
        env.add(csinode)
    env.init([bound_migration_pvc], None)
    assert find(env, make_pod(bound_migration_pvc), node)[:2] == (False, reasons)


# -- TestCapacity ----------------------------------------------------------------------------
# name: (capacities, provisioned capacity name or None, reasons)
CAPACITY: dict[str, tuple[list[Obj], Obj | None, list[str]]] = {
    "network-attached": ([network_attached_capacity], network_attached_capacity, []),
    "local-storage": ([node1_capacity], node1_capacity, []),
    # All three are named "net": the lister keeps the last one added.
    "multiple": ([network_attached_capacity, node2_capacity, node1_capacity], node1_capacity, []),
    "no-storage": ([], None, [SPACE]),
    "wrong-node": ([make_capacity("net", WAIT_PROV, "node2", "1Gi", "")], None, [SPACE]),
    "wrong-storage-class": ([make_capacity("net", WAIT, "node1", "1Gi", "")], None, [SPACE]),
    "insufficient-storage": ([make_capacity("net", WAIT_PROV, "node1", "1Mi", "")], None, [SPACE]),
    "insufficient-volume-size": ([make_capacity("net", WAIT_PROV, "node1", "1Gi", "1Mi")], None, [SPACE]),
    "zero-storage": ([make_capacity("net", WAIT_PROV, "node1", "0Mi", "")], None, [SPACE]),
    "zero-volume-size": ([make_capacity("net", WAIT_PROV, "node1", "", "0Mi")], None, [SPACE]),
    "nil-storage": ([make_capacity("net", WAIT_PROV, "node1", "", "")], None, [SPACE]),
}


@pytest.mark.parametrize("opt_in", [True, False], ids=["CSIDriver.StorageCapacity=true",
                                                       "CSIDriver.StorageCapacity=false"])
@pytest.mark.parametrize("name", list(CAPACITY))
def test_capacity(name: str, opt_in: bool) -> None:
    caps, want_cap, reasons = CAPACITY[name]
    env = Env()
    env.add(make_csi_driver(opt_in))
    for c in caps:
        env.add(c)
    env.init([provisioned_pvc], None)
    failed, got_reasons, found = find(env, make_pod(provisioned_pvc), node1)
    assert (failed, got_reasons) == (False, reasons if opt_in else [])
    if reasons and opt_in:
        return  # upstream then compares the result with itself
    assert found is not None
    assert [(p.pvc["metadata"]["name"], p.capacity) for p in found.dynamic_provisions] == [
        ("provisioned-pvc", want_cap if opt_in else None)]
    assert PROVISIONER == "test-provisioner"
