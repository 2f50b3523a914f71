"""Models ``pkg/quota/v1/evaluator/core/resource_claims.go``: the ResourceClaim evaluator.

A claim is charged ``count/resourceclaims.resource.k8s.io`` and, per device class,
``<class>.deviceclass.resource.k8s.io/devices``: an ``exactly`` request its count (32,
``AllocationResultsMaxSize``, for allocationMode All; nothing for an unknown mode), a
``firstAvailable`` list its worst subrequest per class. Under DRAExtendedResource each
class's count is also charged as ``requests.deviceclass.resource.kubernetes.io/<class>``
and, when the stored DeviceClass names one, ``requests.<extendedResourceName>``, less what
the owning pod of an extended-resource claim already accounts for those names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from reference_impl.api.quantity import Quantity
from reference_impl.apiserver.quota import generic
from reference_impl.apiserver.quota.pods import (
    REQUESTS,
    is_extended_resource_name_for_quota,
    parse_time,
    pod_usage,
)
from reference_impl.apiserver.quota.resources import ZERO, q_add, q_sub
from reference_impl.apiserver.quota.types import Env, ResourceList, UsageStatsOptions
from reference_impl.apiserver.registry import Operation
from reference_impl.clock import Instant

__all__ = [
    "ALLOCATION_RESULTS_MAX_SIZE",
    "CLAIM_OBJECT_COUNT",
    "DeviceClassMapping",
    "ResourceClaimEvaluator",
    "resource_by_device_class",
]

Obj = dict[str, Any]
CLAIM_OBJECT_COUNT: Final = "count/resourceclaims.resource.k8s.io"
PER_CLASS: Final = ".deviceclass.resource.k8s.io/devices"  # ResourceClaimsPerClass
IMPLICIT: Final = "requests.deviceclass.resource.kubernetes.io/"
DEVICE_CLASS_PREFIX: Final = "deviceclass.resource.kubernetes.io/"
EXTENDED_CLAIM_ANNOTATION: Final = "resource.kubernetes.io/extended-resource-claim"
ALLOCATION_RESULTS_MAX_SIZE: Final = 32
_DRA_API: Final = "resource.k8s.io/v1"
_NEVER: Final = Instant(-(2**63))  # a missing creationTimestamp: Go's zero time


def resource_by_device_class(class_name: str) -> str:
    """``V1ResourceByDeviceClass``: ``gpu.deviceclass.resource.k8s.io/devices``."""
    return class_name + PER_CLASS


@dataclass(frozen=True)
class DeviceClassMapping:
    """``ExtendedResourceCache`` over the stored DeviceClasses: class -> its
    ``spec.extendedResourceName``, and the extended resource names some class serves
    (each class's implicit ``deviceclass.resource.kubernetes.io/<class>`` too)."""

    extended_by_class: Mapping[str, str]
    served_names: frozenset[str]

    @classmethod
    def load(cls, env: Env) -> DeviceClassMapping:
        by_class, names = {}, set()
        for dc in env.ctx.list(_DRA_API, "DeviceClass", None):
            name = (dc.get("metadata") or {}).get("name", "")
            names.add(DEVICE_CLASS_PREFIX + name)
            ern = (dc.get("spec") or {}).get("extendedResourceName")
            if ern:
                by_class[name] = str(ern)
                names.add(str(ern))
        return cls(by_class, frozenset(names))


def _device_count(req: Mapping[str, Any]) -> int:
    mode = req.get("allocationMode")
    if mode == "ExactCount":
        return int(req.get("count") or 0)
    return ALLOCATION_RESULTS_MAX_SIZE if mode == "All" else 0  # unknown: not counted


def _devices_usage(claim: Obj) -> ResourceList:
    """The object count and the per-class device counts."""
    out: ResourceList = {CLAIM_OBJECT_COUNT: generic.ONE}
    requests = ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ()
    for request in requests:
        if request.get("firstAvailable"):
            worst: dict[str, int] = {}
            for sub in request["firstAvailable"]:
                key, n = (
                    resource_by_device_class(sub.get("deviceClassName", "")),
                    _device_count(sub),
                )
                if n > worst.get(key, 0):
                    worst[key] = n
            for key, n in worst.items():
                out[key] = q_add(out.get(key, ZERO), Quantity(Decimal(n), "DecimalSI"))
        elif request.get("exactly") is not None:
            exactly = request["exactly"]
            key = resource_by_device_class(exactly.get("deviceClassName", ""))
            n = _device_count(exactly)
            out[key] = q_add(out.get(key, ZERO), Quantity(Decimal(n), "DecimalSI"))
    return out


def _controller_ref(obj: Mapping[str, Any]) -> Obj | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or ():
        if ref.get("controller") is True:
            return dict(ref)
    return None


def _pod_owner_uid(claim: Mapping[str, Any]) -> str | None:
    """``extendedResourceClaimPodUIDOwnerIndex``: the owning pod's UID of an
    extended-resource claim controlled by a v1 Pod."""
    meta = claim.get("metadata") or {}
    if (meta.get("annotations") or {}).get(EXTENDED_CLAIM_ANNOTATION) != "true":
        return None
    ref = _controller_ref(claim)
    if ref is None or ref.get("kind") != "Pod" or ref.get("apiVersion") != "v1":
        return None
    return str(ref.get("uid", ""))


def _created(obj: Mapping[str, Any]) -> Instant:
    t = parse_time((obj.get("metadata") or {}).get("creationTimestamp"))
    return _NEVER if t is None else t


@dataclass(frozen=True)
class ResourceClaimEvaluator:
    """``claimEvaluator``."""

    env: Env
    group_resource: str = "resourceclaims.resource.k8s.io"

    def _extended(self) -> bool:
        return generic.gate_enabled(self.env, "DRAExtendedResource")

    def _mapping(self) -> DeviceClassMapping | None:
        return DeviceClassMapping.load(self.env) if self._extended() else None

    def constraints(self, required: Sequence[str], obj: Obj) -> str | None:
        return None

    def handles(self, operation: Operation, subresource: str, obj: Obj, old: Obj | None) -> bool:
        return not subresource and operation in (Operation.CREATE, Operation.UPDATE)

    def matches(self, quota: Obj, obj: Obj) -> bool:
        return generic.matches(quota, obj, self.matching_resources, generic.matches_no_scope)

    def matching_scopes(self, obj: Obj, selectors: Sequence[Obj]) -> list[Obj]:
        return []

    def uncovered_quota_scopes(self, limited: Sequence[Obj], matched: Sequence[Obj]) -> list[Obj]:
        return []

    def matching_resources(self, names: Sequence[str]) -> list[str]:
        """In input order: the object count and per-class devices; under
        DRAExtendedResource, the implicit name of a class with an extended resource name
        and ``requests.<name>`` of any name a stored class serves."""
        mapping = self._mapping()
        out = []
        for name in names:
            if name == CLAIM_OBJECT_COUNT or name.endswith(PER_CLASS):
                out.append(name)
                continue
            if mapping is None:
                continue
            if name.startswith(IMPLICIT) and mapping.extended_by_class.get(name[len(IMPLICIT) :]):
                out.append(name)
                continue
            if is_extended_resource_name_for_quota(name):
                if name[len(REQUESTS) :] in mapping.served_names:
                    out.append(name)
        return out

    def _verified_pod_usage(self, claim: Obj) -> ResourceList | None:
        """``getVerifiedPodUsage``: the usage of the pod owning this extended-resource
        claim, when the pod names it (or, naming none, this is its oldest such claim)."""
        uid = _pod_owner_uid(claim)
        ref = _controller_ref(claim)
        if uid is None or ref is None:
            return None
        meta = claim.get("metadata") or {}
        ns, name = meta.get("namespace", ""), meta.get("name", "")
        pod = self.env.ctx.get("v1", "Pod", ref.get("name", ""), ns)
        if pod is None or uid != (pod.get("metadata") or {}).get("uid", ""):
            return None
        status = (pod.get("status") or {}).get("extendedResourceClaimStatus")
        if status is not None and status.get("resourceClaimName", "") != name:
            return None
        if status is None:
            mine = _created(claim)
            for other in self.env.ctx.list(_DRA_API, "ResourceClaim", ns):
                if _pod_owner_uid(other) != uid:
                    continue
                theirs = _created(other)
                other_name = (other.get("metadata") or {}).get("name", "")
                if theirs < mine or (theirs == mine and other_name < name):
                    return None
        return pod_usage(pod, self.env)

    def _usage(self, claim: Obj, mapping: DeviceClassMapping | None) -> ResourceList:
        out = _devices_usage(claim)
        if mapping is None:
            return out
        extended: ResourceList = {}
        for key, q in list(out.items()):
            cls = key[: -len(PER_CLASS)] if key.endswith(PER_CLASS) else ""
            if not cls:
                continue
            extended[IMPLICIT + cls] = q
            if ern := mapping.extended_by_class.get(cls):
                extended[REQUESTS + ern] = q
        pod = self._verified_pod_usage(claim) or {}
        for key, q in extended.items():
            left = q_sub(q, pod[key]) if key in pod else q
            if left.amount > 0:
                out[key] = left
        return out

    def usage(self, obj: Obj) -> ResourceList:
        return self._usage(obj, self._mapping())

    def usage_stats(self, options: UsageStatsOptions) -> ResourceList:
        items = self.env.ctx.list(_DRA_API, "ResourceClaim", options.namespace)
        mapping = self._mapping()
        return generic.calculate_usage_stats(
            options, items, generic.matches_no_scope, lambda c: self._usage(c, mapping)
        )
