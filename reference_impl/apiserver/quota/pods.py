"""Models ``pkg/quota/v1/evaluator/core/pods.go``: the pod evaluator.

A pod is charged ``count/pods`` always, and ``pods`` with its compute resources
(``cpu``/``requests.cpu``/``limits.cpu``, memory, ephemeral storage, hugepages, and
``requests.<name>`` for extended resources, DRA's implicit
``deviceclass.resource.kubernetes.io/<class>`` included) while ``QuotaV1Pod``: not in a
terminal phase, nor past its deletion grace period at ``env.now``. Requests and limits are
``PodRequests``/``PodLimits`` (``pod_resources``): init containers, sidecars, overhead,
pod-level resources, and the container statuses (InPlacePodVerticalScaling).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from reference_impl.api.resource_names import is_extended_resource_name, is_native_resource
from reference_impl.apiserver.quota import generic, pod_resources
from reference_impl.apiserver.quota.resources import add, contains_prefix, from_wire, intersection
from reference_impl.apiserver.quota.types import Env, ResourceList, UsageStatsOptions
from reference_impl.apiserver.registry import Operation
from reference_impl.clock import Instant, parse_rfc3339, seconds

__all__ = [
    "POD_OBJECT_COUNT",
    "PodEvaluator",
    "is_extended_resource_name_for_quota",
    "is_terminating",
    "parse_time",
    "pod_compute_usage",
    "pod_usage",
    "quota_v1_pod",
    "uses_cross_namespace_pod_affinity",
]

Obj = dict[str, Any]
POD_OBJECT_COUNT: Final = "count/pods"
REQUESTS: Final = "requests."  # corev1.DefaultResourceRequestsPrefix
DEVICE_CLASS_PREFIX: Final = "deviceclass.resource.kubernetes.io/"  # ResourceDeviceClassPrefix
_POD_RESOURCES: Final = (
    POD_OBJECT_COUNT, "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
    "pods",
)  # fmt: skip
_POD_PREFIXES: Final = ("hugepages-", "requests.hugepages-")
# cpu/memory names a quota makes every container state (upstream: "do not add more").
_VALIDATION_SET: Final = frozenset(
    {"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"}
)


def is_extended_resource_name_for_quota(name: str) -> bool:
    """``isExtendedResourceNameForQuota``: ``requests.`` of an extended resource, or of a
    DRA implicit device-class name."""
    implicit = name.startswith(REQUESTS + DEVICE_CLASS_PREFIX)
    return (not is_native_resource(name) or implicit) and name.startswith(REQUESTS)


def pod_compute_usage(requests: ResourceList, limits: ResourceList) -> ResourceList:
    """``podComputeUsageHelper``."""
    out: ResourceList = {"pods": generic.ONE}
    for name in ("cpu", "memory", "ephemeral-storage"):
        if name in requests:
            out[name] = out[f"requests.{name}"] = requests[name]
        if name in limits:
            out[f"limits.{name}"] = limits[name]
    for name, q in requests.items():
        if name.startswith("hugepages-"):
            out[name] = out[REQUESTS + name] = q
        # schedutil.IsDRAExtendedResourceName: only requests.<name> is quota'd for these.
        if is_extended_resource_name(name) or name.startswith(DEVICE_CLASS_PREFIX):
            out[REQUESTS + name] = q
    return out


def is_terminating(pod: Mapping[str, Any]) -> bool:
    """``IsTerminating``: ``activeDeadlineSeconds`` set and not negative."""
    ads = (pod.get("spec") or {}).get("activeDeadlineSeconds")
    return isinstance(ads, int) and ads >= 0


def parse_time(raw: object) -> Instant | None:
    """An RFC 3339 timestamp as an ``Instant`` (None when absent or malformed)."""
    if not isinstance(raw, str) or not raw:
        return None
    try:
        return parse_rfc3339(raw)
    except ValueError:
        return None


def quota_v1_pod(pod: Mapping[str, Any], now: Instant) -> bool:
    """``QuotaV1Pod``: not Failed/Succeeded, and not past deletionTimestamp + grace."""
    if (pod.get("status") or {}).get("phase") in ("Failed", "Succeeded"):
        return False
    meta = pod.get("metadata") or {}
    deleted = parse_time(meta.get("deletionTimestamp"))
    grace = meta.get("deletionGracePeriodSeconds")
    if deleted is not None and isinstance(grace, int):
        if now > deleted + seconds(grace):
            return False
    return True


def pod_usage(pod: Obj, env: Env) -> ResourceList:
    """``PodUsageFunc``: ``count/pods`` always, compute resources while ``quota_v1_pod``."""
    result: ResourceList = {POD_OBJECT_COUNT: generic.ONE}
    if not quota_v1_pod(pod, env.now):
        return result
    use_status = generic.gate_enabled(env, "InPlacePodVerticalScaling")
    pod_level = generic.gate_enabled(env, "PodLevelResources")
    reqs = pod_resources.pod_requests(pod, use_status=use_status, pod_level=pod_level)
    lims = pod_resources.pod_limits(pod, use_status=use_status, pod_level=pod_level)
    return add(result, pod_compute_usage(reqs, lims))


def _terms_cross_namespace(terms: Any, weighted: bool) -> bool:
    for t in terms or ():
        term = (t.get("podAffinityTerm") or {}) if weighted else t
        if term.get("namespaces") or term.get("namespaceSelector") is not None:
            return True
    return False


def uses_cross_namespace_pod_affinity(pod: Mapping[str, Any]) -> bool:
    """``usesCrossNamespacePodAffinity``: a (anti-)affinity term, required or preferred,
    with namespaces or a namespace selector."""
    affinity = (pod.get("spec") or {}).get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        a = affinity.get(kind) or {}
        if _terms_cross_namespace(a.get("requiredDuringSchedulingIgnoredDuringExecution"), False):
            return True
        if _terms_cross_namespace(a.get("preferredDuringSchedulingIgnoredDuringExecution"), True):
            return True
    return False


@dataclass(frozen=True)
class PodEvaluator:
    """``podEvaluator``."""

    env: Env
    group_resource: str = "pods"

    def _best_effort(self, pod: Obj) -> bool:
        return "BestEffort" == pod_resources.get_pod_qos(
            pod,
            pod_level=generic.gate_enabled(self.env, "PodLevelResources"),
            fix_kubelet_qos=generic.gate_enabled(self.env, "PodLevelResourcesFixKubeletQOSClass"),
        )

    def scope_matches(self, selector: Obj, pod: Obj) -> bool:
        """``podMatchesScopeFunc`` (ValueError for a PriorityClass selector that does not
        parse)."""
        scope = selector.get("scopeName")
        if scope in ("Terminating", "NotTerminating"):
            return bool(is_terminating(pod) == (scope == "Terminating"))
        if scope in ("BestEffort", "NotBestEffort"):
            return bool(self._best_effort(pod) == (scope == "BestEffort"))
        if scope == "PriorityClass":
            name = (pod.get("spec") or {}).get("priorityClassName") or ""
            if selector.get("operator") == "Exists":
                return bool(name)
            try:
                return generic.selector_matches(selector, {"PriorityClass": name} if name else {})
            except ValueError as e:
                raise ValueError(f"failed to parse and convert selector: {e}") from None
        if scope == "CrossNamespacePodAffinity":
            return uses_cross_namespace_pod_affinity(pod)
        return False

    def constraints(self, required: Sequence[str], obj: Obj) -> str | None:
        """Each container and init container states every required cpu/memory resource,
        unless pod-level resources are set (PodLevelResources)."""
        gate = generic.gate_enabled(self.env, "PodLevelResources")
        if gate and pod_resources.is_pod_level_resources_set(obj):
            return None
        required_set = set(required) & _VALIDATION_SET
        missing: dict[str, set[str]] = {}
        spec = obj.get("spec") or {}
        for c in [*(spec.get("containers") or ()), *(spec.get("initContainers") or ())]:
            res = c.get("resources") or {}
            have = set(
                pod_compute_usage(from_wire(res.get("requests")), from_wire(res.get("limits")))
            )
            for name in required_set - have:
                missing.setdefault(name, set()).add(c.get("name", ""))
        if not missing:
            return None
        parts = [f"{r} for: {','.join(sorted(missing[r]))}" for r in sorted(missing)]
        return "must specify " + "; ".join(parts)

    def handles(self, operation: Operation, subresource: str, obj: Obj, old: Obj | None) -> bool:
        """Create; an update that changes the Terminating scope; pods/resize updates."""
        if subresource == "":
            if operation is Operation.UPDATE:
                if old is None:
                    return False
                if is_terminating(old) != is_terminating(obj):
                    return True
            return operation is Operation.CREATE
        return subresource == "resize" and operation is Operation.UPDATE

    def matches(self, quota: Obj, obj: Obj) -> bool:
        return generic.matches(quota, obj, self.matching_resources, self.scope_matches)

    def matching_resources(self, names: Sequence[str]) -> list[str]:
        """The fixed pod resources (deduped, sorted), then in input order each hugepages
        or ``requests.<extended>`` name."""
        out = intersection(names, _POD_RESOURCES)
        for name in names:
            if contains_prefix(_POD_PREFIXES, name):
                out.append(name)
            if is_extended_resource_name_for_quota(name):
                out.append(name)
        return out

    def matching_scopes(self, obj: Obj, selectors: Sequence[Obj]) -> list[Obj]:
        return generic.matching_scopes(obj, selectors, self.scope_matches)

    def uncovered_quota_scopes(self, limited: Sequence[Obj], matched: Sequence[Obj]) -> list[Obj]:
        return generic.uncovered_scopes(limited, matched)

    def usage(self, obj: Obj) -> ResourceList:
        return pod_usage(obj, self.env)

    def usage_stats(self, options: UsageStatsOptions) -> ResourceList:
        pods = self.env.ctx.list("v1", "Pod", options.namespace)
        return generic.calculate_usage_stats(options, pods, self.scope_matches, self.usage)
