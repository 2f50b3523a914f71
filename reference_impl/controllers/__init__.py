"""The controllers of kube-controller-manager, one module per upstream controller.

``start_controllers`` builds and starts them in a fixed order; the order matters only
for same-instant ties (ReplicaSets reconcile before Deployments read their status).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from reference_impl.apiserver.component import ComponentContext
from reference_impl.controllers.clusterrole_aggregation import ClusterRoleAggregationController
from reference_impl.controllers.cronjob import CronJobController
from reference_impl.controllers.daemon import DaemonSetsController
from reference_impl.controllers.deployment import DeploymentController
from reference_impl.controllers.device_taint_eviction import DeviceTaintEvictionController
from reference_impl.controllers.disruption import DisruptionController
from reference_impl.controllers.endpoint import EndpointController
from reference_impl.controllers.endpointslice import EndpointSliceController
from reference_impl.controllers.ephemeral_volume import EphemeralVolumeController
from reference_impl.controllers.fake_provisioner import FakeProvisioner
from reference_impl.controllers.garbagecollector import GarbageCollector
from reference_impl.controllers.hpa import HorizontalController
from reference_impl.controllers.hpa.replica_calculator import ExternalMetrics, PodMetrics
from reference_impl.controllers.job import JobController
from reference_impl.controllers.namespace import NamespaceController
from reference_impl.controllers.pod_gc import PodGCController
from reference_impl.controllers.podcertificate import PodCertificateSignerController
from reference_impl.controllers.podcertificate_cleaner import PodCertificateRequestCleaner
from reference_impl.controllers.podgroup_protection import PodGroupProtectionController
from reference_impl.controllers.pv_binder import PVBinderController
from reference_impl.controllers.pv_protection import PVProtectionController
from reference_impl.controllers.pvc_protection import PVCProtectionController
from reference_impl.controllers.replicaset import ReplicaSetController
from reference_impl.controllers.resourceclaim import ResourceClaimController
from reference_impl.controllers.resourcepoolstatusrequest import (
    ResourcePoolStatusRequestController,
)
from reference_impl.controllers.resourcequota import ResourceQuotaController
from reference_impl.controllers.root_ca_publisher import RootCACertPublisher
from reference_impl.controllers.serviceaccounts import ServiceAccountsController
from reference_impl.controllers.servicecidrs import ServiceCIDRController
from reference_impl.controllers.statefulset import StatefulSetController
from reference_impl.controllers.taint_eviction import TaintEvictionController
from reference_impl.controllers.ttl_after_finished import TTLAfterFinishedController

__all__ = [
    "ClusterRoleAggregationController",
    "Controller",
    "CronJobController",
    "DaemonSetsController",
    "DeploymentController",
    "FakeProvisioner",
    "DeviceTaintEvictionController",
    "DisruptionController",
    "EndpointController",
    "EndpointSliceController",
    "EphemeralVolumeController",
    "GarbageCollector",
    "HorizontalController",
    "JobController",
    "NamespaceController",
    "PodCertificateRequestCleaner",
    "PodGCController",
    "PodCertificateSignerController",
    "PodGroupProtectionController",
    "PVCProtectionController",
    "PVBinderController",
    "PVProtectionController",
    "ReplicaSetController",
    "ResourceClaimController",
    "ResourcePoolStatusRequestController",
    "ResourceQuotaController",
    "RootCACertPublisher",
    "ServiceAccountsController",
    "ServiceCIDRController",
    "StatefulSetController",
    "TaintEvictionController",
    "TTLAfterFinishedController",
    "controller_enabled",
    "start_controllers",
]


class Controller(Protocol):
    """A control loop: a name (as in ``--controllers``) and a ``start`` that subscribes it."""

    @property
    def name(self) -> str:
        """The upstream controller name, e.g. ``"replicaset-controller"``."""
        ...

    def start(self) -> None:
        """Register informer handlers and queue existing objects; never blocks."""
        ...


def controller_enabled(name: str, flags: Sequence[str]) -> bool:
    """kube-controller-manager's ``--controllers``: ``name`` runs when the list names it, or
    holds ``*`` and not ``-name`` (the reference has no off-by-default controllers)."""
    if f"-{name}" in flags:
        return False
    return name in flags or "*" in flags


def start_controllers(
    ctx: ComponentContext,
    external_metrics: ExternalMetrics | None = None,
    pod_metrics: PodMetrics | None = None,
    flags: Sequence[str] = ("*",),
) -> list[Controller]:
    """Build and start the controllers ``flags`` enables (``--controllers``), in
    kube-controller-manager's registration order."""
    controllers: list[Controller] = [
        EndpointController(ctx),  # registered first upstream, then EndpointSlices
        EndpointSliceController(ctx),
        GarbageCollector(ctx),
        NamespaceController(ctx),
        ServiceAccountsController(ctx),
        ReplicaSetController(ctx),
        ResourceQuotaController(ctx),
        DeploymentController(ctx),
        DaemonSetsController(ctx),
        JobController(ctx),
        ResourceClaimController(ctx),
        ResourcePoolStatusRequestController(ctx),
        DeviceTaintEvictionController(ctx),
        HorizontalController(ctx, external_metrics, pod_metrics=pod_metrics),
        StatefulSetController(ctx),
        CronJobController(ctx),
        FakeProvisioner(ctx),
        PVBinderController(ctx),
        PodCertificateSignerController(ctx),
        PodCertificateRequestCleaner(ctx),
        PodGroupProtectionController(ctx),
        ClusterRoleAggregationController(ctx),
        PVCProtectionController(ctx),
        PVProtectionController(ctx),
        TTLAfterFinishedController(ctx),
        RootCACertPublisher(ctx),
        EphemeralVolumeController(ctx),
        DisruptionController(ctx),
        TaintEvictionController(ctx),
        ServiceCIDRController(ctx),
        PodGCController(ctx),
    ]
    unknown = {f.removeprefix("-") for f in flags} - {"*"} - {c.name for c in controllers}
    if unknown:  # as kube-controller-manager refuses to start
        raise ValueError(f"--controllers: unknown controllers {sorted(unknown)}")
    controllers = [c for c in controllers if controller_enabled(c.name, flags)]
    for c in controllers:
        c.start()
    return controllers
