"""The kinds a 1.37 apiserver serves: group/version, plural, scope, subresources and gates.

The rows follow ``reference/api-1.37.md`` §A–B. ``gates`` lists the feature gates that must
all be on for the kind to be served; ``virtual`` kinds are request bodies (Binding,
TokenReview, ...) that the apiserver never stores.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

__all__ = ["RESOURCES", "ResourceInfo", "lookup", "lookup_plural", "served_versions"]


@dataclass(frozen=True, slots=True)
class ResourceInfo:
    """One served resource."""

    api_version: str
    kind: str
    plural: str
    namespaced: bool
    status: bool = False
    gates: tuple[str, ...] = ()
    virtual: bool = False
    # Derived once (read on every request): the API group, empty for core, and
    # ``plural.group`` (or ``plural`` for core), as storage keys and messages use.
    group: str = field(init=False, repr=False, compare=False)
    group_resource: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        group = self.api_version.rpartition("/")[0]
        object.__setattr__(self, "group", group)
        plural = self.plural
        object.__setattr__(self, "group_resource", f"{plural}.{group}" if group else plural)

    @property
    def version(self) -> str:
        """The version part of apiVersion."""
        return self.api_version.rpartition("/")[2]


def _plural(kind: str) -> str:
    low = kind.lower()
    if low in ("endpoints", "status"):
        return low
    if low.endswith("y"):
        return low[:-1] + "ies"
    if low.endswith("s"):
        return low + "es"
    return low + "s"


_CLUSTER: Final = frozenset(
    {
        "APIService",
        "CertificateSigningRequest",
        "ClusterRole",
        "ClusterRoleBinding",
        "ClusterTrustBundle",
        "ComponentStatus",
        "CSIDriver",
        "CSINode",
        "CustomResourceDefinition",
        "DeviceClass",
        "DeviceTaintRule",
        "FlowSchema",
        "IngressClass",
        "IPAddress",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
        "MutatingWebhookConfiguration",
        "Namespace",
        "Node",
        "PersistentVolume",
        "PriorityClass",
        "PriorityLevelConfiguration",
        "ResourcePoolStatusRequest",
        "ResourceSlice",
        "RuntimeClass",
        "SelfSubjectAccessReview",
        "SelfSubjectReview",
        "SelfSubjectRulesReview",
        "ServiceCIDR",
        "StorageClass",
        "StorageVersion",
        "StorageVersionMigration",
        "SubjectAccessReview",
        "TokenReview",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "ValidatingWebhookConfiguration",
        "VolumeAttachment",
        "VolumeAttributesClass",
    }
)
_VIRTUAL: Final = frozenset(
    {
        "Binding",
        "ComponentStatus",
        "LocalSubjectAccessReview",
        "Scale",
        "SelfSubjectAccessReview",
        "SelfSubjectReview",
        "SelfSubjectRulesReview",
        "Status",
        "SubjectAccessReview",
        "TokenRequest",
        "TokenReview",
    }
)
_WITH_STATUS: Final = frozenset(
    {
        "APIService",
        "CertificateSigningRequest",
        "CompositePodGroup",
        "CronJob",
        "CSINode",
        "CustomResourceDefinition",
        "DaemonSet",
        "Deployment",
        "DeviceTaintRule",
        "EvictionRequest",
        "FlowSchema",
        "HorizontalPodAutoscaler",
        "Ingress",
        "IPAddress",
        "Job",
        "Namespace",
        "NetworkPolicy",
        "Node",
        "PersistentVolume",
        "PersistentVolumeClaim",
        "Pod",
        "PodCertificateRequest",
        "PodDisruptionBudget",
        "PodGroup",
        "PriorityLevelConfiguration",
        "ReplicaSet",
        "ReplicationController",
        "ResourceClaim",
        "ResourcePoolStatusRequest",
        "ResourceQuota",
        "Service",
        "ServiceCIDR",
        "StatefulSet",
        "StorageVersion",
        "StorageVersionMigration",
        "ValidatingAdmissionPolicy",
        "VolumeAttachment",
    }
)
# Kinds that exist only while a gate is on (beyond the group/version being in the list).
_GATES: Final[dict[tuple[str, str], tuple[str, ...]]] = {
    ("scheduling.k8s.io/v1beta1", "Workload"): ("GenericWorkload",),
    ("scheduling.k8s.io/v1beta1", "PodGroup"): ("GenericWorkload",),
    ("scheduling.k8s.io/v1alpha3", "Workload"): ("GenericWorkload",),
    ("scheduling.k8s.io/v1alpha3", "PodGroup"): ("GenericWorkload",),
    ("scheduling.k8s.io/v1alpha3", "CompositePodGroup"): ("GenericWorkload", "CompositePodGroup"),
    ("resource.k8s.io/v1", "DeviceTaintRule"): ("DRADeviceTaints", "DRADeviceTaintRules"),
    ("resource.k8s.io/v1beta2", "DeviceTaintRule"): ("DRADeviceTaints", "DRADeviceTaintRules"),
    ("resource.k8s.io/v1alpha3", "DeviceTaintRule"): ("DRADeviceTaints", "DRADeviceTaintRules"),
    ("certificates.k8s.io/v1", "PodCertificateRequest"): ("PodCertificateRequest",),
    ("certificates.k8s.io/v1beta1", "PodCertificateRequest"): ("PodCertificateRequest",),
    ("certificates.k8s.io/v1", "ClusterTrustBundle"): ("ClusterTrustBundle",),
    ("certificates.k8s.io/v1beta1", "ClusterTrustBundle"): ("ClusterTrustBundle",),
    ("lifecycle.k8s.io/v1alpha1", "Eviction"): ("EvictionRequestAPI",),
    ("lifecycle.k8s.io/v1alpha1", "EvictionRequest"): ("EvictionRequestAPI",),
}

_SERVED: Final[dict[str, tuple[str, ...]]] = {
    "admissionregistration.k8s.io/v1": (
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
        "MutatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "ValidatingWebhookConfiguration",
    ),
    "admissionregistration.k8s.io/v1alpha1": (
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
    ),
    "admissionregistration.k8s.io/v1beta1": (
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
    ),
    "apiextensions.k8s.io/v1": ("CustomResourceDefinition",),
    "apiregistration.k8s.io/v1": ("APIService",),
    "apps/v1": ("ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"),
    "authentication.k8s.io/v1": ("SelfSubjectReview", "TokenRequest", "TokenReview"),
    "authorization.k8s.io/v1": (
        "LocalSubjectAccessReview",
        "SelfSubjectAccessReview",
        "SelfSubjectRulesReview",
        "SubjectAccessReview",
    ),
    "autoscaling/v1": ("HorizontalPodAutoscaler", "Scale"),
    "autoscaling/v2": ("HorizontalPodAutoscaler",),
    "batch/v1": ("CronJob", "Job"),
    "certificates.k8s.io/v1": (
        "CertificateSigningRequest",
        "ClusterTrustBundle",
        "PodCertificateRequest",
    ),
    "certificates.k8s.io/v1beta1": ("ClusterTrustBundle", "PodCertificateRequest"),
    "coordination.k8s.io/v1": ("Lease",),
    "coordination.k8s.io/v1alpha2": ("LeaseCandidate",),
    "coordination.k8s.io/v1beta1": ("LeaseCandidate",),
    "discovery.k8s.io/v1": ("EndpointSlice",),
    "events.k8s.io/v1": ("Event",),
    "flowcontrol.apiserver.k8s.io/v1": ("FlowSchema", "PriorityLevelConfiguration"),
    "internal.apiserver.k8s.io/v1alpha1": ("StorageVersion",),
    "lifecycle.k8s.io/v1alpha1": ("Eviction", "EvictionRequest"),
    "networking.k8s.io/v1": (
        "IPAddress",
        "Ingress",
        "IngressClass",
        "NetworkPolicy",
        "ServiceCIDR",
    ),
    "node.k8s.io/v1": ("RuntimeClass",),
    "policy/v1": ("PodDisruptionBudget",),
    "rbac.authorization.k8s.io/v1": ("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"),
    "resource.k8s.io/v1": (
        "DeviceClass",
        "DeviceTaintRule",
        "ResourceClaim",
        "ResourceClaimTemplate",
        "ResourceSlice",
    ),
    "resource.k8s.io/v1alpha3": ("DeviceTaintRule", "ResourcePoolStatusRequest"),
    "resource.k8s.io/v1beta1": (
        "DeviceClass",
        "ResourceClaim",
        "ResourceClaimTemplate",
        "ResourceSlice",
    ),
    "resource.k8s.io/v1beta2": (
        "DeviceClass",
        "DeviceTaintRule",
        "ResourceClaim",
        "ResourceClaimTemplate",
        "ResourceSlice",
    ),
    "scheduling.k8s.io/v1": ("PriorityClass",),
    "scheduling.k8s.io/v1alpha3": ("CompositePodGroup", "PodGroup", "Workload"),
    "scheduling.k8s.io/v1beta1": ("PodGroup", "Workload"),
    "storage.k8s.io/v1": (
        "CSIDriver",
        "CSINode",
        "CSIStorageCapacity",
        "StorageClass",
        "VolumeAttachment",
        "VolumeAttributesClass",
    ),
    "storagemigration.k8s.io/v1": ("StorageVersionMigration",),
    "storagemigration.k8s.io/v1beta1": ("StorageVersionMigration",),
    "v1": (
        "Binding",
        "ComponentStatus",
        "ConfigMap",
        "Endpoints",
        "Event",
        "LimitRange",
        "Namespace",
        "Node",
        "PersistentVolume",
        "PersistentVolumeClaim",
        "Pod",
        "PodTemplate",
        "ReplicationController",
        "ResourceQuota",
        "Secret",
        "Service",
        "ServiceAccount",
    ),
}


def _build() -> dict[tuple[str, str], ResourceInfo]:
    table: dict[tuple[str, str], ResourceInfo] = {}
    for api_version, kinds in _SERVED.items():
        for kind in kinds:
            table[(api_version, kind)] = ResourceInfo(
                api_version=api_version,
                kind=kind,
                plural=_plural(kind),
                namespaced=kind not in _CLUSTER,
                status=kind in _WITH_STATUS,
                gates=_GATES.get((api_version, kind), ()),
                virtual=kind in _VIRTUAL,
            )
    return table


RESOURCES: Final[dict[tuple[str, str], ResourceInfo]] = _build()
_BY_PLURAL: Final = {(r.api_version, r.plural): r for r in RESOURCES.values()}


def lookup(api_version: str, kind: str) -> ResourceInfo | None:
    """The resource for ``(apiVersion, kind)``, or None when 1.37 has no such kind."""
    return RESOURCES.get((api_version, kind))


def lookup_plural(api_version: str, plural: str) -> ResourceInfo | None:
    """The resource for ``(apiVersion, plural)``, or None."""
    return _BY_PLURAL.get((api_version, plural))


def served_versions() -> tuple[str, ...]:
    """Every group/version a 1.37 apiserver knows, sorted."""
    return tuple(sorted(_SERVED))
