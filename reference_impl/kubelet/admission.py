"""The kubelet's pod admission predicates (``pkg/kubelet/lifecycle/predicate.go``).

``admit`` is ``predicateAdmitHandler.Admit``: the checks preemption cannot help first (the
``kubernetes.io/os`` pod label, ``spec.os``, SupplementalGroupsPolicy=Strict), then the
scheduler's ``AdmissionCheck`` (resource fit, node affinity, node name, host ports) and the
NoExecute taints, on a copy of the pod without the extended resources the node does not
know. Only the first failure becomes the reason (``OutOfcpu``, ``NodeAffinity``, ...).

The kubelet layer may not import the scheduler, so the few scheduler rules the kubelet
reuses (``noderesources.Fits``, ``nodeports.Fits``, ``nodename.Fits``) are ported here.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.api.host_ports import host_ports
from reference_impl.api.node_affinity import NodeSelector, compile_terms
from reference_impl.api.quantity import Quantity
from reference_impl.api.resource_names import is_extended_resource_name, is_scalar_resource_name
from reference_impl.api.taints import find_untolerated, parse_taints, parse_tolerations
from reference_impl.apiserver.quota.pod_resources import pod_requests
from reference_impl.apiserver.quota.resources import from_wire
from reference_impl.kubelet.status_manager import KUBELET_CONDITIONS

__all__ = [
    "GOOS",
    "AdmitResult",
    "InsufficientResource",
    "NodeInfo",
    "PredicateFailure",
    "admission_check",
    "admit",
    "general_filter",
    "is_static_pod",
    "reject_by_os_field",
    "reject_by_os_selector",
    "reject_by_supplemental_groups_policy",
    "rejected_status",
    "remove_missing_extended_resources",
    "supplemental_groups_policy_stage",
]

Obj = dict[str, Any]
GOOS: Final = "linux"  # runtime.GOOS of the modelled kubelet
OS_LABEL: Final = "kubernetes.io/os"
CONFIG_SOURCE: Final = "kubernetes.io/config.source"
DEVICE_CLASS_PREFIX: Final = "deviceclass.resource.kubernetes.io/"

NODE_AFFINITY: Final = "NodeAffinity"
NODE_NAME: Final = "NodeName"
NODE_PORTS: Final = "NodePorts"
TAINT_TOLERATION: Final = "TaintToleration"
ERR_NODE_AFFINITY: Final = "node(s) didn't match Pod's node affinity/selector"
ERR_NODE_NAME: Final = "node(s) didn't match the requested node name"
ERR_NODE_PORTS: Final = "node(s) didn't have free ports for the requested pod ports"
ERR_TAINT: Final = "node(s) had taints that the pod didn't tolerate"
_OUT_OF: Final = {
    "cpu": "OutOfcpu",
    "memory": "OutOfmemory",
    "ephemeral-storage": "OutOfephemeral-storage",
    "pods": "OutOfpods",
}
_BASE: Final = ("cpu", "memory", "ephemeral-storage")
@dataclass(frozen=True, slots=True)
class InsufficientResource:
    """``InsufficientResourceError`` (requested/used/capacity in milli-CPU or units)."""

    resource: str
    requested: int
    used: int
    capacity: int
    # Preemption cannot help: the request exceeds the node's allocatable outright.
    unresolvable: bool = False

    def error(self) -> str:
        """``Error()``: the rejection message."""
        return (
            f"Node didn't have enough resource: {self.resource}, requested: {self.requested}, "
            f"used: {self.used}, capacity: {self.capacity}"
        )

    def reason(self) -> str:
        """``GetReason()``."""
        return f"Insufficient {self.resource}"


@dataclass(frozen=True, slots=True)
class PredicateFailure:
    """``PredicateFailureError``: a plugin name and its reason."""

    name: str
    desc: str

    def error(self) -> str:
        """``Error()``."""
        return f"Predicate {self.name} failed: {self.desc}"

    def reason(self) -> str:
        """``GetReason()``."""
        return self.desc


FailureReason = InsufficientResource | PredicateFailure


@dataclass(frozen=True, slots=True)
class AdmitResult:
    """``PodAdmitResult``."""

    admit: bool
    reason: str = ""
    message: str = ""


def _int(name: str, q: Quantity) -> int:
    """``MilliValue`` for cpu, ``Value`` otherwise (both rounded up)."""
    return math.ceil(q.amount * 1000) if name == "cpu" else math.ceil(q.amount)


@dataclass(slots=True)
class _Resource:
    """``framework.Resource``."""

    values: dict[str, int] = field(default_factory=dict)  # cpu (milli), memory, ...
    pods: int = 0
    scalar: dict[str, int] = field(default_factory=dict)

    def get(self, name: str) -> int:
        return self.values.get(name, 0) if name in _BASE else self.scalar.get(name, 0)

    def add(self, reqs: Mapping[str, Quantity]) -> None:
        """``Resource.Add``."""
        for k, q in reqs.items():
            if k in _BASE:
                self.values[k] = self.values.get(k, 0) + _int(k, q)
            elif k == "pods":
                self.pods += _int(k, q)
            elif is_scalar_resource_name(k):
                self.scalar[k] = self.scalar.get(k, 0) + _int(k, q)

    def set_max(self, reqs: Mapping[str, Quantity]) -> None:
        """``Resource.SetMaxResource``."""
        for k, q in reqs.items():
            if k in _BASE:
                self.values[k] = max(self.values.get(k, 0), _int(k, q))
            elif k == "pods":
                self.pods = max(self.pods, _int(k, q))
            elif is_scalar_resource_name(k):
                self.scalar[k] = max(self.scalar.get(k, 0), _int(k, q))


class NodeInfo:
    """``schedulerframework.NodeInfo`` built from the node and the other admitted pods."""

    def __init__(self, node: Obj | None, pods: Sequence[Obj] = ()) -> None:
        self.pods = list(pods)
        self.requested = _Resource()
        for p in self.pods:
            # NodeInfo.AddPod: PodRequests with the status resources (in-place resize).
            self.requested.add(pod_requests(p, use_status=True, pod_level=True))
        self.node: Obj = {}
        self.allocatable = _Resource()
        if node is not None:
            self.set_node(node)

    def set_node(self, node: Obj) -> None:
        """``SetNode``: the node and its allocatable."""
        self.node = node
        self.allocatable = _Resource()
        self.allocatable.add(from_wire((node.get("status") or {}).get("allocatable")))

    def used_ports(self) -> set[tuple[str, str, int]]:
        return {p for pod in self.pods for p in host_ports(pod)}


def _ports_fit(pod: Obj, info: NodeInfo) -> bool:
    """``nodeports.Fits`` (``HostPortInfo.CheckConflict``: 0.0.0.0 clashes with any IP)."""
    used = info.used_ports()
    for ip, proto, port in host_ports(pod):
        if ip == "0.0.0.0":
            if any(p == proto and n == port for _, p, n in used):
                return False
        elif ("0.0.0.0", proto, port) in used or (ip, proto, port) in used:
            return False
    return True


def _affinity_matches(pod: Obj, node: Obj) -> bool:
    """``GetRequiredNodeAffinity(pod).Match(node)``."""
    spec = pod.get("spec") or {}
    aff = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    labels = tuple(sorted((spec.get("nodeSelector") or {}).items()))
    terms = None if aff is None else compile_terms(aff.get("nodeSelectorTerms") or ())
    meta = node.get("metadata") or {}
    return NodeSelector(labels, terms).matches(meta.get("labels") or {}, str(meta.get("name") or ""))


def _fits(pod: Obj, info: NodeInfo, pod_level: bool, resources: bool) -> list[FailureReason]:
    """``noderesources.Fits`` as ``AdmissionCheck`` calls it (no DRA manager, no ignored
    resources, no in-place-resize deltas); ``resources`` False skips it."""
    out: list[FailureReason] = []
    if not resources:
        return out
    alloc, used = info.allocatable, info.requested
    if len(info.pods) + 1 > alloc.pods:
        out.append(InsufficientResource("pods", 1, len(info.pods), alloc.pods))
    req = _Resource()
    req.set_max(pod_requests(pod, use_status=False, pod_level=pod_level))
    if not any(req.values.values()) and not req.scalar:
        return out
    for name in _BASE:
        want = req.get(name)
        if want > 0 and want > alloc.get(name) - used.get(name):
            out.append(InsufficientResource(name, want, used.get(name), alloc.get(name),
                                            want > alloc.get(name)))
    for name in sorted(req.scalar):  # a Go map: sorted here to stay deterministic
        want = req.scalar[name]
        if want > 0 and want > alloc.get(name) - used.get(name):
            out.append(InsufficientResource(name, want, used.get(name), alloc.get(name),
                                            want > alloc.get(name)))
    return out


def is_static_pod(pod: Obj) -> bool:
    """``types.IsStaticPod``: a config source annotation other than ``api``."""
    ann = (pod.get("metadata") or {}).get("annotations") or {}
    return CONFIG_SOURCE in ann and ann[CONFIG_SOURCE] != "api"


def general_filter(
    pod: Obj,
    info: NodeInfo,
    *,
    pod_level: bool = True,
    compare_taints: bool = False,
    resources: bool = True,
) -> list[FailureReason]:
    """``generalFilter``: ``scheduler.AdmissionCheck`` with every failure, then the
    untolerated NoExecute taints (static pods skip those)."""
    out = admission_check(pod, info, True, pod_level=pod_level, resources=resources)
    if not is_static_pod(pod):
        taint = find_untolerated(
            parse_taints(info.node), parse_tolerations(pod, compare_taints), frozenset({"NoExecute"})
        )
        if taint is not None:
            out.append(PredicateFailure(TAINT_TOLERATION, ERR_TAINT))
    return out


def admission_check(
    pod: Obj, info: NodeInfo, include_all_failures: bool, *, pod_level: bool = True,
    resources: bool = True,
) -> list[FailureReason]:
    """``scheduler.AdmissionCheck`` (pkg/scheduler/eventhandlers.go): resource fit, node
    affinity, node name, host ports, in that order; without ``include_all_failures`` the
    first failing check's results alone."""
    out: list[FailureReason] = list(_fits(pod, info, pod_level, resources))
    if out and not include_all_failures:
        return out
    name = (pod.get("spec") or {}).get("nodeName")
    checks: tuple[tuple[bool, str, str], ...] = (
        (_affinity_matches(pod, info.node), NODE_AFFINITY, ERR_NODE_AFFINITY),
        (not name or name == (info.node.get("metadata") or {}).get("name"), NODE_NAME,
         ERR_NODE_NAME),
        (_ports_fit(pod, info), NODE_PORTS, ERR_NODE_PORTS),
    )
    for ok, plugin, why in checks:
        if not ok:
            out.append(PredicateFailure(plugin, why))
            if not include_all_failures:
                return out
    return out


def filter_with_refetch(
    pod: Obj, info: NodeInfo, get_node: Callable[[bool], Obj], **opts: bool
) -> list[FailureReason]:
    """``predicateAdmitHandler.generalFilter``: when node affinity is the only failure, the
    node is fetched again (not from the cache) and the filter rerun."""
    reasons = general_filter(pod, info, **opts)
    if any(r.reason() != ERR_NODE_AFFINITY for r in reasons):
        return reasons
    if reasons:
        info.set_node(get_node(False))
        reasons = general_filter(pod, info, **opts)
    return reasons


def reject_by_os_selector(pod: Obj, node: Obj) -> bool:
    """``rejectPodAdmissionBasedOnOSSelector``: the pod's ``kubernetes.io/os`` *label*
    against the node's, which the kubelet takes to be its own OS whatever it says."""
    del node  # the node's label is reset to runtime.GOOS before the comparison
    labels = (pod.get("metadata") or {}).get("labels") or {}
    return OS_LABEL in labels and labels[OS_LABEL] != GOOS


def reject_by_os_field(pod: Obj) -> bool:
    """``rejectPodAdmissionBasedOnOSField``: ``spec.os.name`` other than the kubelet's OS."""
    os_ = (pod.get("spec") or {}).get("os")
    return os_ is not None and os_.get("name") != GOOS


def supplemental_groups_policy_stage(version: str) -> str | None:
    """The SupplementalGroupsPolicy gate's stage at an emulated version (kube_features)."""
    minor = int(version.split(".")[1])
    if minor >= 35:
        return "GA"
    if minor >= 33:
        return "Beta"
    return "Alpha" if minor >= 31 else None


def reject_by_supplemental_groups_policy(pod: Obj, node: Obj, stage: str | None = "GA") -> bool:
    """``rejectPodAdmissionBasedOnSupplementalGroupsPolicy``: Strict on a node that does not
    declare the feature, once the gate is beta or later."""
    sc = (pod.get("spec") or {}).get("securityContext") or {}
    if sc.get("supplementalGroupsPolicy") is None or stage not in ("Beta", "GA"):
        return False
    features = (node.get("status") or {}).get("features") or {}
    supported = bool(features.get("supplementalGroupsPolicy") or False)
    return sc["supplementalGroupsPolicy"] == "Strict" and not supported


def remove_missing_extended_resources(pod: Obj, node: Obj, *, dra_extended: bool = True) -> Obj:
    """``removeMissingExtendedResources``: a copy whose (init) containers' requests lack the
    extended resources absent from the node's allocatable and, with DRAExtendedResource,
    those a ResourceClaim backs for that container. Limits are kept."""
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    mappings = ((pod.get("status") or {}).get("extendedResourceClaimStatus") or {}).get(
        "requestMappings"
    ) or ()

    def by_dra(name: str, container: str) -> bool:
        return dra_extended and any(
            m.get("resourceName") == name and m.get("containerName") == container for m in mappings
        )

    out = copy.deepcopy(pod)
    spec = out.setdefault("spec", {})
    for part in ("containers", "initContainers"):
        for c in spec.get(part) or ():
            kept = {}
            for name, q in ((c.get("resources") or {}).get("requests") or {}).items():
                dra_name = is_extended_resource_name(name) or name.startswith(DEVICE_CLASS_PREFIX)
                if dra_name and by_dra(name, str(c.get("name") or "")):
                    continue
                if is_extended_resource_name(name) and name not in allocatable:
                    continue
                kept[name] = q
            c.setdefault("resources", {})["requests"] = kept
    return out


def admit(
    pod: Obj,
    other_pods: Sequence[Obj],
    get_node: Callable[[bool], Obj | None],
    *,
    pod_level: bool = True,
    dra_extended: bool = True,
    compare_taints: bool = False,
    sgp_stage: str | None = "GA",
    resources: bool = True,
    on_failure: Callable[[Obj, list[FailureReason]], list[FailureReason]] | None = None,
) -> AdmitResult:
    """``predicateAdmitHandler.Admit``. ``get_node(use_cache)`` is ``GetCachedNode`` (None:
    it failed); ``on_failure`` is the admission failure handler (critical pod preemption),
    which by default frees nothing. Device plugin resources are not modelled."""
    node = get_node(True)
    if node is None:
        return AdmitResult(False, "InvalidNodeInfo", "Kubelet cannot get node info.")
    if reject_by_os_selector(pod, node):
        return AdmitResult(
            False,
            "PodOSSelectorNodeLabelDoesNotMatch",
            "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label",
        )
    if reject_by_os_field(pod):
        return AdmitResult(
            False, "PodOSNotSupported", "Failed to admit pod as the OS field doesn't match node OS"
        )
    if reject_by_supplemental_groups_policy(pod, node, sgp_stage):
        return AdmitResult(
            False,
            "SupplementalGroupsPolicyNotSupported",
            "SupplementalGroupsPolicy=Strict is not supported in this node",
        )
    info = NodeInfo(node, other_pods)
    trimmed = remove_missing_extended_resources(pod, node, dra_extended=dra_extended)

    def refetch(use_cache: bool) -> Obj:
        return get_node(use_cache) or node

    reasons = filter_with_refetch(
        trimmed, info, refetch, pod_level=pod_level, compare_taints=compare_taints,
        resources=resources,
    )
    if reasons and on_failure is not None:
        reasons = on_failure(pod, reasons)
    if not reasons:
        return AdmitResult(True)
    first = reasons[0]
    if isinstance(first, InsufficientResource):
        return AdmitResult(False, _OUT_OF.get(first.resource, "OutOf" + first.resource), first.error())
    return AdmitResult(False, first.name, first.error())


def rejected_status(pod: Obj, result: AdmitResult, qos: str, now: str) -> Obj:
    """The status ``Kubelet.rejectPod`` sets, as the status manager writes it: phase Failed,
    the reason, "Pod was rejected: " and the message, the QoS class, a start time, the
    observed generation; of the old conditions only those the kubelet does not own, and
    the resource claim statuses (mergePodStatus)."""
    old = pod.get("status") or {}
    status: Obj = {
        "phase": "Failed",
        "reason": result.reason,
        "message": "Pod was rejected: " + result.message,
        "qosClass": qos,
        "startTime": old.get("startTime") or now,
        "observedGeneration": int((pod.get("metadata") or {}).get("generation", 1)),
    }
    kept = [c for c in old.get("conditions") or () if c.get("type") not in KUBELET_CONDITIONS]
    if kept:
        status["conditions"] = kept
    for k in ("resourceClaimStatuses", "extendedResourceClaimStatus",
              "nodeAllocatableResourceClaimStatuses"):  # fmt: skip
        if old.get(k) is not None:
            status[k] = old[k]
    return status
