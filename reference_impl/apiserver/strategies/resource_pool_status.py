"""ResourcePoolStatusRequest (resource.k8s.io/v1alpha3, gate DRAResourcePoolStatus).

Ports upstream v1.37.2's ``pkg/registry/resource/resourcepoolstatusrequest/strategy.go``
(PrepareForCreate, PrepareForUpdate, ``dropDisabledDRAPartitionableDevicesTypeFields``),
``pkg/apis/resource/validation/validation_resourcepoolstatusrequest.go`` (the handwritten
``ValidateResourcePoolStatusRequest*``: metadata, which the server checks for every kind,
and the status being immutable once set, then ``ValidateConditions``) and the enforced
declarative rules of ``pkg/apis/resource/v1alpha3/zz_generated.validations.go``
(``Validate_ResourcePoolStatusRequest``, ``..Spec``, ``..Status``, ``Validate_PoolStatus``,
``Validate_PartitionTypeStatus``, ``Validate_ShareableSummaryStatus``). The declarative
rules of ObjectMeta and metav1.Condition are ``+k8s:alpha`` (shadowed, never reported)
and are left out. Upstream appends the declarative errors after the handwritten ones.

The v1alpha3 default ``spec.limit: 100`` (``SetDefaults_ResourcePoolStatusRequestSpec``)
is registered as a versioned defaulter. Upstream serves the kind only with the gate on;
the reference serves it regardless (its controller tests write requests with the gate off).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from reference_impl.api.formats import (
    dns1123_subdomain_errors,
)
from reference_impl.apiserver.conversion.scheme import register_defaulter
from reference_impl.apiserver.registry import Context, preparer, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.resource.names import c_identifier, pool_name
from reference_impl.apiserver.validation.status_conditions import validate_conditions
from reference_impl.errors import Cause

__all__ = [
    "default_limit",
    "prepare_request",
    "validate_request",
    "validate_request_status",
]

Obj = dict[str, Any]
KIND: Final = "ResourcePoolStatusRequest"
LIMIT_DEFAULT: Final = 100
_TYPE_GATE: Final = "DRAPartitionableDevicesType"
_IMMUTABLE: Final = "field is immutable"


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _semantic(v: Any) -> Any:
    """The value as ``equality.Semantic.DeepEqual`` sees it: a null member or an empty
    list is the same as an absent one."""
    if isinstance(v, dict):
        return {k: _semantic(x) for k, x in v.items() if x is not None and x != []}
    if isinstance(v, list):
        return [_semantic(x) for x in v]
    return v


def default_limit(obj: Obj) -> None:
    """``SetDefaults_ResourcePoolStatusRequestSpec``: ``spec.limit`` 100 when unset."""
    spec = obj.get("spec")
    if isinstance(spec, dict) and spec.get("limit") is None:
        spec["limit"] = LIMIT_DEFAULT


register_defaulter("resource.k8s.io", "v1alpha3", KIND, default_limit)


@preparer(KIND)
def prepare_request(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """PrepareForCreate: no status (a nil pointer); PrepareForUpdate keeps the stored
    status (the server copies it). Both: ``dropDisabledDRAPartitionableDevicesTypeFields``."""
    if old is None:
        obj.pop("status", None)
    spec = obj.get("spec")
    if not isinstance(spec, dict) or ctx.gates.enabled(_TYPE_GATE):
        return
    if old is not None and _o(old.get("spec")).get("defaultPartitionTypeAttribute") is not None:
        return
    spec.pop("defaultPartitionTypeAttribute", None)


# -- the declarative formats (apimachinery/pkg/api/validate/strfmt.go) ------------------


def long_name_caseless(value: str, path: str) -> list[Cause]:
    """``LongNameCaseless``: an RFC 1123 subdomain, any case."""
    return [fe.invalid(path, value, m) for m in dns1123_subdomain_errors(value, caseless=True)]


def long_name(value: str, path: str) -> list[Cause]:
    """``LongName``: a lowercase RFC 1123 subdomain."""
    return [fe.invalid(path, value, m) for m in dns1123_subdomain_errors(value)]


def resource_pool_name(value: str, path: str) -> list[Cause]:
    """``ResourcePoolName``: the declarative ``k8s-resource-pool-name`` format (an empty
    name is an empty segment here, not a missing one)."""
    if not value:
        return [fe.invalid(path, value, "segment 0: must not be empty")]
    return pool_name(value, path, declarative=True)


def resource_fully_qualified_name(value: str, path: str) -> list[Cause]:
    """``ResourceFullyQualifiedName``: ``resourcesQualifiedName`` (a C identifier after an
    optional domain of at most 63 bytes) and a "/" required."""
    parts = value.split("/")
    out: list[Cause] = []
    if len(parts) == 1:
        out += c_identifier(parts[0], path)
    elif len(parts) == 2:
        domain, name = parts
        if not domain:
            out.append(fe.invalid(path, "", "prefix must not be empty"))
        else:
            if len(domain) > 63:
                out.append(fe.too_long(path, 63))
            out += [fe.invalid(path, domain, f"prefix: {m}") for m in dns1123_subdomain_errors(domain)]
        out += [fe.invalid(path, "", "name must not be empty")] if not name else c_identifier(name, path)
    if "/" not in value:
        out.append(fe.invalid(path, value, "a fully qualified name must be a domain and a name separated by a slash"))
    return out


# -- field rules ------------------------------------------------------------------------

Check = Callable[[Any, str], list[Cause]]


def _required_value(v: Any, path: str, then: Check | None = None) -> list[Cause]:
    """``RequiredValue`` (the zero value is missing), then the field's other rules."""
    if v is None or v == "" or v == 0 and not isinstance(v, bool):
        return [fe.required(path)]
    return then(v, path) if then is not None else []


def _required_pointer(v: Any, path: str, then: Check | None = None) -> list[Cause]:
    """``RequiredPointer``: only null is missing."""
    if v is None:
        return [fe.required(path)]
    return then(v, path) if then is not None else []


def _optional(v: Any, path: str, then: Check) -> list[Cause]:
    """``OptionalPointer``: null is skipped; anything else (0 and "" too) is checked."""
    return [] if v is None else then(v, path)


def _bounds(lo: int | None, hi: int | None = None) -> Check:
    """``Maximum`` then ``Minimum`` (the generated order)."""

    def check(v: Any, path: str) -> list[Cause]:
        n, out = _int(v), []
        if n is not None and hi is not None and n > hi:
            out.append(fe.invalid(path, n, f"must be less than or equal to {hi}"))
        if n is not None and lo is not None and n < lo:
            out.append(fe.invalid(path, n, f"must be greater than or equal to {lo}"))
        return out

    return check


def _string(fn: Callable[[str, str], list[Cause]]) -> Check:
    return lambda v, path: fn(v, path) if isinstance(v, str) else []


def _max_bytes(limit: int) -> Check:
    def check(v: Any, path: str) -> list[Cause]:
        too_long = isinstance(v, str) and len(v.encode()) > limit
        return [fe.too_long(path, limit)] if too_long else []

    return check


def _fields(obj: Obj, old: Obj | None, path: str, rules: tuple[tuple[str, Callable[[Any, str], list[Cause]]], ...]) -> list[Cause]:
    """Each field's rules, skipping a field equal to the old one (ratcheting)."""
    out: list[Cause] = []
    for name, rule in rules:
        v = obj.get(name)
        if old is not None and _semantic(v) == _semantic(old.get(name)):
            continue
        out += rule(v, f"{path}.{name}")
    return out


def _list(max_items: int, item: Callable[[Obj, str], list[Cause]], unique: tuple[str, ...] = ()) -> Check:
    """``MaxItems`` (short-circuiting), ``OptionalSlice``, ``ValSliceUnique`` on the
    ``unique`` keys (a Duplicate at the later index), then each item."""

    def check(v: Any, path: str) -> list[Cause]:
        items = v if isinstance(v, list) else []
        if len(items) > max_items:
            return [fe.too_many(path, len(items), max_items)]
        out: list[Cause] = []
        if unique:
            seen: set[tuple[Any, ...]] = set()
            for i, it in enumerate(items):
                key = tuple(_o(it).get(k) or "" for k in unique)
                if key in seen:
                    out.append(fe.duplicate(f"{path}[{i}]", fe.OMIT))
                seen.add(key)
        for i, it in enumerate(items):
            out += item(_o(it), f"{path}[{i}]")
        return out

    return check


def _partition(item: Obj, path: str) -> list[Cause]:
    """``Validate_PartitionTypeStatus``."""
    return _fields(item, None, path, (
        ("attribute", _required_value),
        ("type", _required_value),
        ("total", lambda v, p: _required_pointer(v, p, _bounds(0))),
        ("allocatable", lambda v, p: _required_pointer(v, p, _bounds(0))),
    ))  # fmt: skip


def _capacity(item: Obj, path: str) -> list[Cause]:
    """``Validate_ShareableCapacityStatus``."""
    return _fields(item, None, path, (
        ("name", _required_value),
        ("total", _required_pointer),
        ("consumed", _required_pointer),
        ("available", _required_pointer),
    ))  # fmt: skip


def _shareable(v: Any, path: str) -> list[Cause]:
    """``Validate_ShareableSummaryStatus``."""
    return _fields(_o(v), None, path, (
        ("fullyAvailableDevices", lambda x, p: _required_pointer(x, p, _bounds(0))),
        ("partiallyAvailableDevices", lambda x, p: _required_pointer(x, p, _bounds(0))),
        ("capacity", _list(32, _capacity)),
    ))  # fmt: skip


def _count(lo: int) -> Check:
    return lambda v, p: _optional(v, p, _bounds(lo))


def _pool(item: Obj, path: str) -> list[Cause]:
    """``Validate_PoolStatus``."""
    return _fields(item, None, path, (
        ("driver", lambda v, p: _required_value(v, p, _string(long_name_caseless))),
        ("poolName", lambda v, p: _required_value(v, p, _string(resource_pool_name))),
        ("generation", lambda v, p: _required_value(v, p, _bounds(0))),
        ("resourceSliceCount", _count(1)),
        ("totalDevices", _count(0)),
        ("allocatedDevices", _count(0)),
        ("availableDevices", _count(0)),
        ("unavailableDevices", _count(0)),
        ("nodeName", lambda v, p: _optional(v, p, _string(long_name))),
        ("validationError", lambda v, p: _optional(v, p, _max_bytes(256))),
        ("partitionSummary", _list(32, _partition, ("attribute", "type"))),
        ("shareableSummary", lambda v, p: _optional(v, p, _shareable)),
    ))  # fmt: skip


def spec_causes(spec: Obj, old: Obj | None, type_gate: bool) -> list[Cause]:
    """``Validate_ResourcePoolStatusRequestSpec`` under ``+k8s:immutable``: a changed
    spec is only "field is immutable" (short-circuiting)."""
    if old is not None:
        if _semantic(spec) == _semantic(old):
            return []
        return [fe.invalid("spec", None, _IMMUTABLE)]

    def partition_type(v: Any, path: str) -> list[Cause]:
        if not type_gate:  # +k8s:ifDisabled(DRAPartitionableDevicesType)=+k8s:forbidden
            return [] if v is None else [fe.forbidden(path)]
        return _optional(v, path, _string(resource_fully_qualified_name))

    return _fields(spec, None, "spec", (
        ("driver", lambda v, p: _required_value(v, p, _string(long_name_caseless))),
        ("poolName", lambda v, p: _optional(v, p, _string(resource_pool_name))),
        ("limit", lambda v, p: _required_pointer(v, p, _bounds(1, 1000))),
        ("defaultPartitionTypeAttribute", partition_type),
    ))  # fmt: skip


def status_causes(status: Any, old: Any) -> list[Cause]:
    """``Validate_ResourcePoolStatusRequestStatus`` (``OptionalPointer``: a null status
    has nothing to check; an unchanged one is not re-checked)."""
    if status is None or (old is not None and _semantic(status) == _semantic(old)):
        return []
    return _fields(_o(status), old if isinstance(old, dict) else None, "status", (
        ("poolCount", lambda v, p: _required_pointer(v, p, _bounds(0))),
        ("pools", _list(1000, _pool)),
        # the conditions' items (metav1 Validate_Condition) and uniqueness are alpha
        ("conditions", _list(10, lambda item, path: [])),
    ))  # fmt: skip


@validator(KIND)
def validate_request(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Create: ``ValidateResourcePoolStatusRequest`` (metadata only) then the declarative
    spec rules; update: ``...Update`` (metadata) then the spec's immutability. The status
    is the stored one on every spec write (PrepareForUpdate), so it never differs here."""
    old_spec = _o(old.get("spec")) if old is not None else None
    out = spec_causes(_o(obj.get("spec")), old_spec, ctx.gates.enabled(_TYPE_GATE))
    return out + status_causes(obj.get("status"), old.get("status") if old is not None else None)


@validator(KIND, status=True)
def validate_request_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateResourcePoolStatusRequestStatusUpdate``: once the status is set it is
    immutable (and nothing else is checked by hand); before that its conditions are
    metav1 conditions. Then the declarative rules of the status (the spec is the stored one)."""
    status, old_status = obj.get("status"), (old or {}).get("status")
    out: list[Cause] = []
    if old_status is not None:
        if _semantic(status) != _semantic(old_status):
            out.append(fe.invalid("status", status, _IMMUTABLE))
    elif status is not None:
        out += validate_conditions(_o(status).get("conditions") or [], "status.conditions")
    return out + status_causes(status, old_status)
