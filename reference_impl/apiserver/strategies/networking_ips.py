"""ServiceCIDR and IPAddress (networking.k8s.io; ``pkg/apis/networking/validation`` and
``pkg/registry/networking/{servicecidr,ipaddress}/strategy.go`` of upstream v1.37.2).
Object metadata (an IPAddress's name must be its canonical IP) is checked by ``meta``."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.formats import dns1123_subdomain_errors
from reference_impl.apiserver.registry import Context, preparer, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.ip_formats import cidr_errors, cidr_family
from reference_impl.apiserver.validation.tag_formats import path_segment_name_errors
from reference_impl.errors import Cause

__all__ = [
    "prepare_service_cidr",
    "prepare_service_cidr_status",
    "validate_ip_address",
    "validate_service_cidr",
]

Obj = dict[str, Any]
_CIDRS: Final = "spec.cidrs"
_IMMUTABLE: Final = "field is immutable"
_FAMILY_MSG: Final = (
    "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64"
)


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _cidrs(obj: Obj | None) -> list[str]:
    v = _o(_o(obj).get("spec")).get("cidrs")
    return [str(c) for c in v] if isinstance(v, list) else []


@preparer("ServiceCIDR")
def prepare_service_cidr(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """PrepareForCreate/Update: status is the controller's (ServiceCIDRStatusFieldWiping,
    deprecated and on by default)."""
    if old is None:
        obj.pop("status", None)
    elif "status" in old:
        obj["status"] = old["status"]
    else:
        obj.pop("status", None)


@preparer("ServiceCIDR", status=True)
def prepare_service_cidr_status(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """The status strategy's PrepareForUpdate: the spec stays as stored."""
    if old is not None and "spec" in old:
        obj["spec"] = old["spec"]


def _family(cidr: str) -> int | None:
    """``netutils.IPFamilyOfCIDRString``: 4, 6 or unknown (a bare IP is no CIDR)."""
    return cidr_family(cidr)


def _go_spec(cidrs: list[str]) -> Obj:
    """The internal ServiceCIDRSpec as the error message prints it (no JSON tags)."""
    return {"CIDRs": cidrs}


def service_cidr_spec_causes(cidrs: list[str]) -> list[Cause]:
    """``validateServiceCIDRSpec``."""
    if not cidrs:
        return [fe.required(_CIDRS, "at least one CIDR required")]
    if len(cidrs) > 2:
        return [fe.invalid(_CIDRS, _go_spec(cidrs), "may only hold up to 2 values")]
    out = [fe.invalid(f"{_CIDRS}[{i}]", c, e) for i, c in enumerate(cidrs) for e in cidr_errors(c)]
    if len(cidrs) == 2 and _family(cidrs[0]) is not None and _family(cidrs[0]) == _family(cidrs[1]):
        out.append(fe.invalid(_CIDRS, cidrs, _FAMILY_MSG))
    return out


def _service_cidr_update_causes(new: list[str], old: list[str]) -> list[Cause]:
    """``ValidateServiceCIDRUpdate``: same length, nothing changes; one to two, the first
    stays and the pair is revalidated; anything else is immutable."""
    if len(old) == len(new):
        return [
            fe.invalid(f"{_CIDRS}[{i}]", new[i], _IMMUTABLE)
            for i, c in enumerate(old)
            if c != new[i]
        ]
    if len(old) == 1 and len(new) == 2:
        out = [fe.invalid(f"{_CIDRS}[0]", new[0], _IMMUTABLE)] if new[0] != old[0] else []
        return out + service_cidr_spec_causes(new)
    return [fe.invalid(_CIDRS, new, _IMMUTABLE)]


@validator("ServiceCIDR")
def validate_service_cidr(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateServiceCIDR`` on create, ``ValidateServiceCIDRUpdate`` on update."""
    if old is None:
        return service_cidr_spec_causes(_cidrs(obj))
    return _service_cidr_update_causes(_cidrs(obj), _cidrs(old))


def _segment_causes(path: str, value: str) -> list[Cause]:
    return [fe.invalid(path, value, m) for m in path_segment_name_errors(value)]


def parent_ref_causes(ref: Any) -> list[Cause]:
    """``validateIPAddressParentReference``: group a subdomain (may be empty), resource and
    name required path segments, namespace an optional one."""
    path = "spec.parentRef"
    if not isinstance(ref, dict):
        return [fe.required(path)]
    group, resource = str(ref.get("group") or ""), str(ref.get("resource") or "")
    name, ns = str(ref.get("name") or ""), str(ref.get("namespace") or "")
    out = [fe.invalid(f"{path}.group", group, m) for m in dns1123_subdomain_errors(group)] if group else []
    out += _segment_causes(f"{path}.resource", resource) if resource else [fe.required(f"{path}.resource")]
    out += _segment_causes(f"{path}.name", name) if name else [fe.required(f"{path}.name")]
    return out + (_segment_causes(f"{path}.namespace", ns) if ns else [])


def _ref_fields(ref: Any) -> tuple[str, ...] | None:
    """A parentRef as the Go struct compares (an absent string is ``""``)."""
    if not isinstance(ref, dict):
        return None
    return tuple(str(ref.get(f) or "") for f in ("group", "resource", "namespace", "name"))


@validator("IPAddress")
def validate_ip_address(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateIPAddress``, and on update ``ValidateIPAddressUpdate``'s immutable parentRef."""
    ref = _o(obj.get("spec")).get("parentRef")
    out = parent_ref_causes(ref)
    if old is not None and _ref_fields(ref) != _ref_fields(_o(old.get("spec")).get("parentRef")):
        # the declarative immutable rule answers, naming no value
        out.append(fe.invalid("spec.parentRef", None, _IMMUTABLE))
    return out
