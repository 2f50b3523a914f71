"""Builders for resource.k8s.io/v1 manifests: DeviceClass, ResourceClaim(Template),
ResourceSlice and DeviceTaintRule, in the exact 1.37 wire shape."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Self

from reference_impl.api.builders import ManifestBuilder

__all__ = [
    "DRA_API",
    "ClaimBuilder",
    "DeviceClassBuilder",
    "DeviceTaintRuleBuilder",
    "ResourceSliceBuilder",
    "make_claim_template",
    "make_device",
    "make_device_class",
    "make_device_taint_rule",
    "make_resource_claim",
    "make_resource_slice",
]

Obj = dict[str, Any]
DRA_API: Final = "resource.k8s.io/v1"


class DeviceClassBuilder(ManifestBuilder):
    """A DeviceClass with CEL selectors and an optional extendedResourceName."""

    def __init__(self, name: str) -> None:
        super().__init__(DRA_API, "DeviceClass", name)
        self._obj["spec"] = {}

    def selector(self, expression: str) -> Self:
        """Add a CEL selector."""
        self._obj["spec"].setdefault("selectors", []).append({"cel": {"expression": expression}})
        return self

    def extended_resource(self, name: str) -> Self:
        """Serve pod extended-resource requests named ``name``."""
        self._obj["spec"]["extendedResourceName"] = name
        return self


class ClaimBuilder(ManifestBuilder):
    """A ResourceClaim, or (``template=True``) a ResourceClaimTemplate."""

    def __init__(self, name: str, namespace: str | None, template: bool = False) -> None:
        super().__init__(DRA_API, "ResourceClaimTemplate" if template else "ResourceClaim", name, namespace)
        claim_spec: Obj = {"devices": {}}
        self._obj["spec"] = {"spec": claim_spec} if template else claim_spec
        self._devices: Obj = claim_spec["devices"]

    def request(
        self, name: str, device_class: str, count: int | None = None, *,
        all_devices: bool = False, selectors: Sequence[str] = (),
        tolerations: Sequence[Obj] = (), admin_access: bool = False,
        capacity: dict[str, str] | None = None,
    ) -> Self:
        """Add an ``exactly`` request."""
        self._devices.setdefault("requests", []).append(
            {"name": name, "exactly": _exact(device_class, count, all_devices, selectors,
                                              tolerations, admin_access, capacity)}
        )
        return self

    def first_available(self, name: str, *subs: tuple[str, str, int]) -> Self:
        """Add a ``firstAvailable`` request from ``(sub name, class, count)`` alternatives."""
        alts = [{"name": n, "deviceClassName": c, "count": k} for n, c, k in subs]
        self._devices.setdefault("requests", []).append({"name": name, "firstAvailable": alts})
        return self

    def match_attribute(self, attribute: str, requests: Sequence[str] = ()) -> Self:
        """Constrain the devices of ``requests`` (default: all) to share ``attribute``."""
        return self._constraint("matchAttribute", attribute, requests)

    def distinct_attribute(self, attribute: str, requests: Sequence[str] = ()) -> Self:
        """Constrain the devices of ``requests`` to have distinct ``attribute`` values."""
        return self._constraint("distinctAttribute", attribute, requests)

    def _constraint(self, kind: str, attribute: str, requests: Sequence[str]) -> Self:
        con: Obj = {kind: attribute}
        if requests:
            con["requests"] = list(requests)
        self._devices.setdefault("constraints", []).append(con)
        return self


def _exact(
    device_class: str, count: int | None, all_devices: bool, selectors: Sequence[str],
    tolerations: Sequence[Obj], admin_access: bool, capacity: dict[str, str] | None,
) -> Obj:
    out: Obj = {"deviceClassName": device_class}
    if all_devices:
        out["allocationMode"] = "All"
    elif count is not None:
        out["count"] = count
    if selectors:
        out["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    if tolerations:
        out["tolerations"] = [dict(t) for t in tolerations]
    if admin_access:
        out["adminAccess"] = True
    if capacity:
        out["capacity"] = {"requests": dict(capacity)}
    return out


def make_device(
    name: str, *, attributes: dict[str, Any] | None = None,
    capacity: dict[str, str] | None = None, taints: Sequence[Obj] = (),
    allow_multiple: bool = False,
) -> Obj:
    """A Device; attribute values are typed from Python (bool, int, str)."""
    dev: Obj = {"name": name}
    if attributes:
        dev["attributes"] = {k: _attr(v) for k, v in attributes.items()}
    if capacity:
        dev["capacity"] = {k: {"value": v} for k, v in capacity.items()}
    if taints:
        dev["taints"] = [dict(t) for t in taints]
    if allow_multiple:
        dev["allowMultipleAllocations"] = True
    return dev


def _attr(v: Any) -> Obj:
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": v}
    return {"string": str(v)}


class ResourceSliceBuilder(ManifestBuilder):
    """A ResourceSlice of one pool, node-local unless ``all_nodes()``."""

    def __init__(self, name: str, driver: str, pool: str, node: str | None) -> None:
        super().__init__(DRA_API, "ResourceSlice", name)
        self._obj["spec"] = {
            "driver": driver,
            "pool": {"name": pool, "generation": 1, "resourceSliceCount": 1},
        }
        if node:
            self._obj["spec"]["nodeName"] = node

    def all_nodes(self) -> Self:
        """Make the pool reachable from every node."""
        self._obj["spec"].pop("nodeName", None)
        self._obj["spec"]["allNodes"] = True
        return self

    def generation(self, gen: int, slice_count: int = 1) -> Self:
        """Set the pool generation and its resourceSliceCount."""
        self._obj["spec"]["pool"].update(generation=gen, resourceSliceCount=slice_count)
        return self

    def device(self, device: Obj) -> Self:
        """Append a device (see ``make_device``)."""
        self._obj["spec"].setdefault("devices", []).append(device)
        return self


class DeviceTaintRuleBuilder(ManifestBuilder):
    """A DeviceTaintRule: one taint plus an optional selector (missing = matches none)."""

    def __init__(self, name: str, key: str, effect: str, value: str | None = None) -> None:
        super().__init__(DRA_API, "DeviceTaintRule", name)
        taint: Obj = {"key": key, "effect": effect}
        if value is not None:
            taint["value"] = value
        self._obj["spec"] = {"taint": taint}

    def selector(self, *, driver: str | None = None, pool: str | None = None,
                 device: str | None = None) -> Self:
        """Select devices (an empty selector, with no arguments, selects every device)."""
        sel = {k: v for k, v in (("driver", driver), ("pool", pool), ("device", device)) if v}
        self._obj["spec"]["deviceSelector"] = sel
        return self


def make_device_class(name: str) -> DeviceClassBuilder:
    """A DeviceClass builder."""
    return DeviceClassBuilder(name)


def make_resource_claim(name: str, namespace: str | None = None) -> ClaimBuilder:
    """A ResourceClaim builder."""
    return ClaimBuilder(name, namespace)


def make_claim_template(name: str, namespace: str | None = None) -> ClaimBuilder:
    """A ResourceClaimTemplate builder (same request methods as a claim)."""
    return ClaimBuilder(name, namespace, template=True)


def make_resource_slice(name: str, driver: str, pool: str, node: str | None = None) -> ResourceSliceBuilder:
    """A ResourceSlice builder."""
    return ResourceSliceBuilder(name, driver, pool, node)


def make_device_taint_rule(name: str, key: str, effect: str, value: str | None = None) -> DeviceTaintRuleBuilder:
    """A DeviceTaintRule builder."""
    return DeviceTaintRuleBuilder(name, key, effect, value)
