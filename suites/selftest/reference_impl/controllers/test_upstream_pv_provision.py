"""Upstream ``provision_test.go`` (v1.37.2): ``TestProvisionSync`` and
``TestProvisionMultiSync`` rows on the reference PV controller (``provisionClaim``,
``provisionClaimOperationExternal``) through ``pv_upstream_env``.

The model has no in-tree provisioning plugin (upstream's rows register a mock one for
``kubernetes.io/mock-volume``): rows that need it to provision, fail inside it, or clean
up after it are skipped; rows where it is missing, external provisioners and binding to an
existing volume run. CSI migration is not modelled.
"""

from __future__ import annotations

from typing import Any

import pytest

from suites.selftest.reference_impl.controllers.pv_upstream_env import (
    BETA_STORAGE_PROVISIONER,
    BIND_COMPLETED,
    BOUND_BY_CONTROLLER,
    CLASS_EMPTY,
    CLASS_GOLD,
    SELECTED_NODE,
    STORAGE_PROVISIONER,
    PVHarness,
    Row,
    claim_with_annotation,
    claim_with_data_source,
    new_claim,
    new_volume,
    run_multisync_row,
    run_sync_row,
    storage_class,
)

Obj = dict[str, Any]
RETAIN, DELETE = "Retain", "Delete"
MOCK = "kubernetes.io/mock-volume"
EXTERNAL, EXTERNAL_WAIT, UNKNOWN_INTERNAL, CSI = "external", "external-wait", "unknown-internal", "csi"
CLASSES = [
    storage_class("gold", MOCK), storage_class("silver", MOCK),
    storage_class("copper", MOCK, mode="WaitForFirstConsumer"),
    storage_class(EXTERNAL, "vendor.com/my-volume"),
    storage_class(EXTERNAL_WAIT, "vendor.com/my-volume-wait", mode="WaitForFirstConsumer"),
    storage_class(UNKNOWN_INTERNAL, "kubernetes.io/unknown"),
    storage_class("unsupported-mountoptions", MOCK),
    storage_class(CSI, "mydriver.csi.k8s.io"),
]
IN_TREE = "needs an in-tree provisioning plugin (upstream's mock plugin), which the model does not have"


def VA(*args: Any) -> list[Obj]:  # noqa: N802 - upstream's newVolumeArray
    return [new_volume(*args)]


def CA(*args: Any) -> list[Obj]:  # noqa: N802 - upstream's newClaimArray
    return [new_claim(*args)]


def R(name: str, *, iv: list[Obj], ev: list[Obj], ic: list[Obj], ec: list[Obj], events: list[str],  # noqa: N802
      skip: str = "", before_op: Any = None) -> Any:
    row = Row(iv, ev, ic, ec, events, "claim", classes=CLASSES, before_op=before_op)
    return pytest.param(row, id=name, marks=[pytest.mark.skip(reason=skip)] if skip else [])


def _ann(provisioner: str, claims: list[Obj]) -> list[Obj]:
    """Both provisioner annotations, as ``setClaimProvisioner`` writes them."""
    return claim_with_annotation(BETA_STORAGE_PROVISIONER, provisioner,
                                 claim_with_annotation(STORAGE_PROVISIONER, provisioner, claims))


PROVISION_SYNC = [
    R("11-1 - successful provision with storage class 1", iv=[], ev=[], ic=[], ec=[], events=[], skip=IN_TREE),
    R("11-2 - plugin not found",
      iv=[], ev=[],
      ic=CA("claim11-2", "uid11-2", "1Gi", "", "Pending", CLASS_GOLD),
      ec=CA("claim11-2", "uid11-2", "1Gi", "", "Pending", CLASS_GOLD),
      events=["Warning ProvisioningFailed"]),
    R("11-3 - newProvisioner failure", iv=[], ev=[], ic=[], ec=[], events=[], skip=IN_TREE),
    R("11-4 - provision failure", iv=[], ev=[], ic=[], ec=[], events=[], skip=IN_TREE),
    R("11-6 - provisioning when there is a volume available",
      iv=VA("volume11-6", "1Gi", "", "", "Available", RETAIN, CLASS_GOLD),
      ev=VA("volume11-6", "1Gi", "uid11-6", "claim11-6", "Bound", RETAIN, CLASS_GOLD, BOUND_BY_CONTROLLER),
      ic=CA("claim11-6", "uid11-6", "1Gi", "", "Pending", CLASS_GOLD),
      ec=CA("claim11-6", "uid11-6", "1Gi", "volume11-6", "Bound", CLASS_GOLD, BOUND_BY_CONTROLLER, BIND_COMPLETED),
      events=[]),
    R("11-7 - claim is bound before provisioning", iv=[], ev=[], ic=[], ec=[], events=[], skip=IN_TREE),
    R("11-8 - cannot save provisioned volume", iv=[], ev=[], ic=[], ec=[], events=[], skip=IN_TREE),
    R("11-9 - cannot save provisioned volume, delete succeeds", iv=[], ev=[], ic=[], ec=[], events=[], skip=IN_TREE),
    R("11-10 - cannot save provisioned volume, no delete plugin found", iv=[], ev=[], ic=[], ec=[], events=[],
      skip=IN_TREE),
    R("11-11 - cannot save provisioned volume, deleter fails", iv=[], ev=[], ic=[], ec=[], events=[], skip=IN_TREE),
    R("11-12 - cannot save provisioned volume, delete succeeds 2nd time", iv=[], ev=[], ic=[], ec=[], events=[],
      skip=IN_TREE),
    R("11-13 - successful provision with storage class 2", iv=[], ev=[], ic=[], ec=[], events=[], skip=IN_TREE),
    R("11-14 - fail due to non-existing class",
      iv=[], ev=[],
      ic=CA("claim11-14", "uid11-14", "1Gi", "", "Pending", "non-existing"),
      ec=CA("claim11-14", "uid11-14", "1Gi", "", "Pending", "non-existing"),
      events=[]),
    R("11-15 - no provisioning with class=''",
      iv=[], ev=[],
      ic=CA("claim11-15", "uid11-15", "1Gi", "", "Pending", CLASS_EMPTY),
      ec=CA("claim11-15", "uid11-15", "1Gi", "", "Pending", CLASS_EMPTY),
      events=[]),
    R("11-16 - no provisioning with class=nil",
      iv=[], ev=[],
      ic=CA("claim11-15", "uid11-15", "1Gi", "", "Pending", None),
      ec=CA("claim11-15", "uid11-15", "1Gi", "", "Pending", None),
      events=[]),
    R("11-17 - external provisioner",
      iv=[], ev=[],
      ic=CA("claim11-17", "uid11-17", "1Gi", "", "Pending", EXTERNAL),
      ec=_ann("vendor.com/my-volume", CA("claim11-17", "uid11-17", "1Gi", "", "Pending", EXTERNAL)),
      events=["Normal ExternalProvisioning"]),
    R("11-18 - unknown internal provisioner",
      iv=[], ev=[],
      ic=CA("claim11-18", "uid11-18", "1Gi", "", "Pending", UNKNOWN_INTERNAL),
      ec=CA("claim11-18", "uid11-18", "1Gi", "", "Pending", UNKNOWN_INTERNAL),
      events=["Warning ProvisioningFailed"]),
    R("11-19 - provisioned volume saved but API server crashed", iv=[], ev=[], ic=[], ec=[], events=[], skip=IN_TREE),
    R("11-20 - unsupported storageClass.mountOptions", iv=[], ev=[], ic=[], ec=[], events=[], skip=IN_TREE),
    R("11-21 - external provisioner for CSI migration", iv=[], ev=[], ic=[], ec=[], events=[],
      skip="CSI migration (in-tree provisioner names translated to CSI drivers) is not modelled"),
    R("11-22 - external provisioner with volume available",
      iv=VA("volume11-22", "1Gi", "", "", "Available", RETAIN, EXTERNAL),
      ev=VA("volume11-22", "1Gi", "uid11-22", "claim11-22", "Bound", RETAIN, EXTERNAL, BOUND_BY_CONTROLLER),
      ic=CA("claim11-22", "uid11-22", "1Gi", "", "Pending", EXTERNAL),
      ec=CA("claim11-22", "uid11-22", "1Gi", "volume11-22", "Bound", EXTERNAL, BOUND_BY_CONTROLLER, BIND_COMPLETED),
      events=[]),
    R("11-23 - skip finding PV and provision for PVC annotated with AnnSelectedNode", iv=[], ev=[], ic=[], ec=[],
      events=[], skip=IN_TREE),
    R("11-24 - skip finding PV and wait external provisioner for PVC annotated with AnnSelectedNode",
      iv=VA("volume11-24", "1Gi", "", "", "Available", DELETE, EXTERNAL_WAIT),
      ev=VA("volume11-24", "1Gi", "", "", "Available", DELETE, EXTERNAL_WAIT),
      ic=claim_with_annotation(SELECTED_NODE, "node1", CA("claim11-24", "uid11-24", "1Gi", "", "Pending",
                                                          EXTERNAL_WAIT)),
      ec=_ann("vendor.com/my-volume-wait", claim_with_annotation(SELECTED_NODE, "node1", CA(
          "claim11-24", "uid11-24", "1Gi", "", "Pending", EXTERNAL_WAIT))),
      events=["Normal ExternalProvisioning"]),
    R("11-25 - failed in-tree provision with data source",
      iv=[], ev=[],
      ic=claim_with_data_source("test-snap", "VolumeSnapshot", "snapshot.storage.k8s.io",
                                CA("claim11-25", "uid11-25", "1Gi", "", "Pending", CLASS_GOLD)),
      ec=claim_with_data_source("test-snap", "VolumeSnapshot", "snapshot.storage.k8s.io",
                                CA("claim11-25", "uid11-25", "1Gi", "", "Pending", CLASS_GOLD)),
      events=["Warning ProvisioningFailed"]),
    R("11-26 - csi with data source",
      iv=[], ev=[],
      ic=claim_with_annotation(STORAGE_PROVISIONER, "mydriver.csi.k8s.io", claim_with_data_source(
          "test-snap", "VolumeSnapshot", "snapshot.storage.k8s.io",
          CA("claim11-26", "uid11-26", "1Gi", "", "Pending", CSI))),
      ec=claim_with_annotation(STORAGE_PROVISIONER, "mydriver.csi.k8s.io", claim_with_data_source(
          "test-snap", "VolumeSnapshot", "snapshot.storage.k8s.io",
          CA("claim11-26", "uid11-26", "1Gi", "", "Pending", CSI))),
      events=["Normal ExternalProvisioning"]),
]


@pytest.mark.parametrize("row", PROVISION_SYNC)
def test_provision_sync(row: Row) -> None:
    """``TestProvisionSync``."""
    run_sync_row(row)


def _provisioned_later(volume: Obj) -> Any:
    """12-2/12-4's hook: once a provision operation has run for the claim
    (``operationTimestamps.Has``), the external provisioner's volume appears."""
    ran = [0]

    def hook(h: PVHarness) -> None:
        if ran[0] and h.server.try_get("v1", "PersistentVolume", volume["metadata"]["name"]) is None:
            h.add_volume(volume)
        ran[0] += 1
    return hook


PROVISION_MULTI = [
    R("12-1 - successful provision", iv=[], ev=[], ic=[], ec=[], events=[], skip=IN_TREE),
    R("12-2 - external provisioner with volume provisioned success",
      iv=[], ev=VA("pvc-uid12-2", "1Gi", "uid12-2", "claim12-2", "Bound", RETAIN, EXTERNAL, BOUND_BY_CONTROLLER),
      ic=CA("claim12-2", "uid12-2", "1Gi", "", "Pending", EXTERNAL),
      ec=_ann("vendor.com/my-volume", CA("claim12-2", "uid12-2", "1Gi", "pvc-uid12-2", "Bound", EXTERNAL,
                                         BOUND_BY_CONTROLLER, BIND_COMPLETED)),
      events=["Normal ExternalProvisioning"],
      before_op=_provisioned_later(new_volume("pvc-uid12-2", "1Gi", "", "", "Available", RETAIN, EXTERNAL))),
    R("12-3 - external provisioner with volume to be provisioned",
      iv=[], ev=[],
      ic=CA("claim12-3", "uid12-3", "1Gi", "", "Pending", EXTERNAL),
      ec=_ann("vendor.com/my-volume", CA("claim12-3", "uid12-3", "1Gi", "", "Pending", EXTERNAL)),
      events=["Normal ExternalProvisioning"]),
    R("12-4 - external provisioner with volume provisioned/bound success",
      iv=[], ev=VA("pvc-uid12-4", "1Gi", "uid12-4", "claim12-4", "Bound", RETAIN, EXTERNAL, BOUND_BY_CONTROLLER),
      ic=CA("claim12-4", "uid12-4", "1Gi", "", "Pending", EXTERNAL),
      ec=_ann("vendor.com/my-volume", CA("claim12-4", "uid12-4", "1Gi", "pvc-uid12-4", "Bound", EXTERNAL,
                                         BOUND_BY_CONTROLLER, BIND_COMPLETED)),
      events=["Normal ExternalProvisioning"],
      before_op=_provisioned_later(new_volume("pvc-uid12-4", "1Gi", "uid12-4", "claim12-4", "Bound", RETAIN, EXTERNAL,
                                              BOUND_BY_CONTROLLER))),
]


@pytest.mark.parametrize("row", PROVISION_MULTI)
def test_provision_multi_sync(row: Row) -> None:
    """``TestProvisionMultiSync``."""
    run_multisync_row(row)
