"""Models ``pkg/quota/v1/evaluator/core/persistent_volume_claims.go``: the claim evaluator.

A claim is charged ``count/persistentvolumeclaims``, ``persistentvolumeclaims`` and
``requests.storage`` (rounded up to whole bytes; the larger ``status.allocatedResources``
under RecoverVolumeExpansionFailure), each also as
``<class>.storageclass.storage.k8s.io/<resource>`` when it names a storage class. Under
VolumeAttributesClass the ``VolumeAttributesClass`` scope matches the class names in the
spec, the status, and a pending modification.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from reference_impl.api.quantity import Quantity
from reference_impl.apiserver.quota import generic
from reference_impl.apiserver.quota.resources import from_wire
from reference_impl.apiserver.quota.types import Env, ResourceList, UsageStatsOptions
from reference_impl.apiserver.registry import Operation

__all__ = [
    "PVC_OBJECT_COUNT",
    "STORAGE_CLASS_SUFFIX",
    "PVCEvaluator",
    "requires_quota_replenish",
    "resource_by_storage_class",
    "volume_attributes_class_names",
]

Obj = dict[str, Any]
PVC_OBJECT_COUNT: Final = "count/persistentvolumeclaims"
STORAGE_CLASS_SUFFIX: Final = ".storageclass.storage.k8s.io/"
_PVC_RESOURCES: Final = ("persistentvolumeclaims", "requests.storage")
_BETA_CLASS_ANNOTATION: Final = "volume.beta.kubernetes.io/storage-class"


def resource_by_storage_class(storage_class: str, resource: str) -> str:
    """``V1ResourceByStorageClass``: ``gold.storageclass.storage.k8s.io/requests.storage``."""
    return storage_class + STORAGE_CLASS_SUFFIX + resource


def _storage_class(pvc: Mapping[str, Any]) -> str:
    """``GetPersistentVolumeClaimClass``: the beta annotation first, then the spec."""
    annotations = (pvc.get("metadata") or {}).get("annotations") or {}
    if _BETA_CLASS_ANNOTATION in annotations:
        return str(annotations[_BETA_CLASS_ANNOTATION])
    return str((pvc.get("spec") or {}).get("storageClassName") or "")


def _round_up(q: Quantity) -> Quantity:
    """``RoundUp(0)``: whole units, away from zero, the format kept."""
    if q.amount == q.amount.to_integral_value():
        return q
    n = math.ceil(q.amount) if q.amount > 0 else math.floor(q.amount)
    return Quantity(Decimal(n), q.fmt)


def volume_attributes_class_names(pvc: Mapping[str, Any]) -> set[str]:
    """``getReferencedVolumeAttributesClassNames``."""
    spec, status = pvc.get("spec") or {}, pvc.get("status") or {}
    names = {spec.get("volumeAttributesClassName"), status.get("currentVolumeAttributesClassName")}
    names.add((status.get("modifyVolumeStatus") or {}).get("targetVolumeAttributesClassName"))
    return {str(n) for n in names if n}


def requires_quota_replenish(pvc: Obj, old: Obj, env: Env) -> bool:
    """``RequiresQuotaReplenish``. Under RecoverVolumeExpansionFailure upstream compares
    the two ``AllocatedResources.Storage()`` *pointers*, which always differ, so every
    status update is handled; without it, a change of the referenced attribute classes."""
    if generic.gate_enabled(env, "RecoverVolumeExpansionFailure"):
        return True
    if generic.gate_enabled(env, "VolumeAttributesClass"):
        return volume_attributes_class_names(old) != volume_attributes_class_names(pvc)
    return False


def _scope_matches(selector: Obj, pvc: Obj) -> bool:
    """``pvcMatchesScopeFunc``: only the VolumeAttributesClass scope."""
    if selector.get("scopeName") != "VolumeAttributesClass":
        return False
    names = volume_attributes_class_names(pvc)
    if selector.get("operator") == "Exists":
        return bool(names)
    try:
        if not names:
            return generic.selector_matches(selector, {})
        return any(generic.selector_matches(selector, {"VolumeAttributesClass": n}) for n in names)
    except ValueError as e:
        raise ValueError(f"failed to parse and convert selector: {e}") from None


@dataclass(frozen=True)
class PVCEvaluator:
    """``pvcEvaluator``."""

    env: Env
    group_resource: str = "persistentvolumeclaims"

    def _scope_func(self) -> generic.ScopeFunc:
        vac = generic.gate_enabled(self.env, "VolumeAttributesClass")
        return _scope_matches if vac else generic.matches_no_scope

    def constraints(self, required: Sequence[str], obj: Obj) -> str | None:
        return None

    def handles(self, operation: Operation, subresource: str, obj: Obj, old: Obj | None) -> bool:
        """Create and update; a status update when ``requires_quota_replenish``."""
        if subresource == "":
            return operation in (Operation.CREATE, Operation.UPDATE)
        if subresource == "status":
            return old is not None and requires_quota_replenish(obj, old, self.env)
        return False

    def matches(self, quota: Obj, obj: Obj) -> bool:
        return generic.matches(quota, obj, self.matching_resources, self._scope_func())

    def matching_resources(self, names: Sequence[str]) -> list[str]:
        """In input order: the object count, the claim resources, and either by class."""
        suffixes = tuple(STORAGE_CLASS_SUFFIX + r for r in _PVC_RESOURCES)
        return [
            n for n in names if n == PVC_OBJECT_COUNT or n in _PVC_RESOURCES or n.endswith(suffixes)
        ]

    def matching_scopes(self, obj: Obj, selectors: Sequence[Obj]) -> list[Obj]:
        if not generic.gate_enabled(self.env, "VolumeAttributesClass"):
            return []
        return generic.matching_scopes(obj, selectors, _scope_matches)

    def uncovered_quota_scopes(self, limited: Sequence[Obj], matched: Sequence[Obj]) -> list[Obj]:
        if not generic.gate_enabled(self.env, "VolumeAttributesClass"):
            return []
        return generic.uncovered_scopes(limited, matched)

    def _storage(self, pvc: Obj) -> Quantity | None:
        """``getStorageUsage``."""
        requested = from_wire(((pvc.get("spec") or {}).get("resources") or {}).get("requests"))
        if "storage" not in requested:
            return None
        result = _round_up(requested["storage"])
        if generic.gate_enabled(self.env, "RecoverVolumeExpansionFailure"):
            allocated = from_wire((pvc.get("status") or {}).get("allocatedResources"))
            if "storage" in allocated and allocated["storage"].amount > result.amount:
                result = _round_up(allocated["storage"])
        return result

    def usage(self, obj: Obj) -> ResourceList:
        out: ResourceList = {"persistentvolumeclaims": generic.ONE, PVC_OBJECT_COUNT: generic.ONE}
        cls = _storage_class(obj)
        if cls:
            out[resource_by_storage_class(cls, "persistentvolumeclaims")] = generic.ONE
        storage = self._storage(obj)
        if storage is not None:
            out["requests.storage"] = storage
            if cls:
                out[resource_by_storage_class(cls, "requests.storage")] = storage
        return out

    def usage_stats(self, options: UsageStatsOptions) -> ResourceList:
        items = self.env.ctx.list("v1", "PersistentVolumeClaim", options.namespace)
        return generic.calculate_usage_stats(options, items, self._scope_func(), self.usage)
