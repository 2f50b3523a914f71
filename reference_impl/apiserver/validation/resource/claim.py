"""ResourceClaim / ResourceClaimTemplate specs (``validateDeviceClaim`` and below).

CEL expressions get their length check here; compiling, type checking and cost are
``reference_impl.dra.validation``'s (the CEL library sits above this layer).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from reference_impl.apiserver.validation import field as f
from reference_impl.apiserver.validation.resource.config import device_configuration
from reference_impl.apiserver.validation.resource.lists import (
    as_dict,
    as_list,
    validate_set,
    validate_slice,
)
from reference_impl.apiserver.validation.resource.names import (
    dns_label,
    fully_qualified_name,
    subdomain,
)
from reference_impl.apiserver.validation.resource.taints import toleration
from reference_impl.errors import Cause

__all__ = ["CEL_MAX_LENGTH", "RequestNames", "device_claim", "request_names", "request_ref", "selectors"]

MAX_ITEMS: Final = 32  # requests, constraints, configs, selectors, derived attributes
FIRST_AVAILABLE_MAX: Final = 8
CEL_MAX_LENGTH: Final = 10 * 1024
_REF_MSG: Final = ("must be the name of a request in the claim or the name of a request and a "
                   "subrequest separated by '/'")

RequestNames = dict[str, set[str] | None]


def request_names(devices: Any) -> RequestNames:
    """``gatherRequestNames``: request name -> its subrequest names (None: no subrequests)."""
    out: RequestNames = {}
    for r in as_list(as_dict(devices).get("requests")):
        r = as_dict(r)
        subs = as_list(r.get("firstAvailable"))
        out[str(r.get("name") or "")] = {str(as_dict(s).get("name") or "") for s in subs} if subs else None
    return out


def _has(names: RequestNames, ref: str) -> bool:
    parts = ref.split("/")
    if len(parts) > 2 or parts[0] not in names:
        return False
    subs = names[parts[0]]
    return len(parts) == 1 or (subs is not None and parts[1] in subs)


def request_ref(ref: str, path: str, names: RequestNames) -> list[Cause]:
    """``validateRequestNameRef``: ``request`` or ``request/subrequest`` of this claim."""
    parts = ref.split("/")
    if len(parts) > 2:
        return [f.invalid(path, ref, _REF_MSG)]
    out = [c for p in parts for c in dns_label(p, path)]
    return out + ([] if _has(names, ref) else [f.invalid(path, ref, _REF_MSG)])


def _refs(items: Any, path: str, names: RequestNames) -> list[Cause]:
    refs = [str(r) if r is not None else "" for r in as_list(items)]
    return validate_set(refs, MAX_ITEMS, lambda r, p: request_ref(r, p, names), lambda r: r, path)


def selectors(items: Any, path: str) -> list[Cause]:
    """Each selector has ``cel``; an expression longer than 10 KiB is not compiled."""
    def one(sel: Any, p: str) -> list[Cause]:
        cel = as_dict(sel).get("cel")
        if cel is None:
            return [f.required(f"{p}.cel")]
        if len(str(as_dict(cel).get("expression") or "")) > CEL_MAX_LENGTH:
            return [f.too_long(f"{p}.cel.expression", CEL_MAX_LENGTH)]
        return []
    return validate_slice(as_list(items), MAX_ITEMS, one, path)


def _constraint_attrs(constraints: list[Any]) -> dict[str, set[str]]:
    """``gatherConstraintAttributes``: request ref ("" = every request) -> attribute names."""
    out: dict[str, set[str]] = {}
    for c in (as_dict(c) for c in constraints):
        name = c.get("matchAttribute") if c.get("matchAttribute") is not None else c.get("distinctAttribute")
        if name is None:
            continue
        for ref in as_list(c.get("requests")) or [""]:
            out.setdefault(str(ref), set()).add(str(name))
    return out


def _used(name: str, ref: str, attrs: dict[str, set[str]]) -> bool:
    parent = ref.split("/", 1)[0] if "/" in ref else None
    return any(name in attrs.get(k, ()) for k in ("", ref, parent) if k is not None)


def _derived(items: Any, path: str, ref: str, attrs: dict[str, set[str]]) -> list[Cause]:
    attrs_list = as_list(items)
    # The declarative rules (required name and expression, name format) stop at its maxItems.
    declared = len(attrs_list) <= MAX_ITEMS

    def one(a: Any, p: str) -> list[Cause]:
        a = as_dict(a)
        name, expr = str(a.get("name") or ""), str(a.get("expression") or "")
        out: list[Cause] = []
        if not name:
            out += [f.required(f"{p}.name")] if declared else []
        else:
            out += fully_qualified_name(name, f"{p}.name") if declared else []
            if not _used(name, ref, attrs):
                out.append(f.invalid(f"{p}.name", name, "must be referenced by at least one matchAttribute "
                                     "or distinctAttribute constraint targeting this request"))
        if not expr:
            out += [f.required(f"{p}.expression")] if declared else []
        elif len(expr) > CEL_MAX_LENGTH:
            out.append(f.too_long(f"{p}.expression", CEL_MAX_LENGTH))
        return out
    # Upstream's set check has no limit here; the declarative maxItems adds a TooMany
    # without short-circuiting the handwritten per-item errors.
    out = validate_set(attrs_list, -1, one, lambda a: str(as_dict(a).get("name") or ""), path)
    return out + ([f.too_many(path, len(attrs_list), MAX_ITEMS)] if len(attrs_list) > MAX_ITEMS else [])


def _allocation_mode(req: dict[str, Any], path: str) -> list[Cause]:
    mode, count = req.get("allocationMode") or "", req.get("count")
    n = count if isinstance(count, int) else 0
    if mode == "All":
        return [f.invalid(f"{path}.count", n, "must not be specified when allocationMode is 'All'")] if n else []
    if mode == "ExactCount":
        return [f.invalid(f"{path}.count", n, "must be greater than zero")] if n <= 0 else []
    return [f.not_supported(f"{path}.allocationMode", mode, ("All", "ExactCount"))]


def _request_body(req: dict[str, Any], path: str, ref: str, attrs: dict[str, set[str]]) -> list[Cause]:
    cls = str(req.get("deviceClassName") or "")
    out = [f.required(f"{path}.deviceClassName")] if not cls else subdomain(cls, f"{path}.deviceClassName")
    out += selectors(req.get("selectors"), f"{path}.selectors")
    out += _derived(req.get("derivedAttributes"), f"{path}.derivedAttributes", ref, attrs)
    out += _allocation_mode(req, path)
    for i, t in enumerate(as_list(req.get("tolerations"))):
        out += toleration(t, f"{path}.tolerations[{i}]")
    return out


def _request(r: Any, path: str, attrs: dict[str, set[str]]) -> list[Cause]:
    r = as_dict(r)
    name = str(r.get("name") or "")
    out = dns_label(name, f"{path}.name")
    subs, exactly = as_list(r.get("firstAvailable")), r.get("exactly")
    if not subs and exactly is None:
        return out + [f.required(path, "exactly one of `exactly` or `firstAvailable` is required")]
    if subs and exactly is not None:
        return out + [f.invalid(path, None, "exactly one of `exactly` or `firstAvailable` is required, "
                                "but multiple fields are set")]
    if exactly is not None:
        return out + _request_body(as_dict(exactly), f"{path}.exactly", name, attrs)

    def sub(s: Any, p: str) -> list[Cause]:
        s = as_dict(s)
        sname = str(s.get("name") or "")
        return dns_label(sname, f"{p}.name") + _request_body(s, p, f"{name}/{sname}", attrs)
    return out + validate_set(subs, FIRST_AVAILABLE_MAX, sub, lambda s: str(as_dict(s).get("name") or ""),
                              f"{path}.firstAvailable", shown=lambda s: s)


def _constraint(c: Any, path: str, names: RequestNames, consumable: bool) -> list[Cause]:
    c = as_dict(c)
    out = _refs(c.get("requests"), f"{path}.requests", names)
    match, distinct = c.get("matchAttribute"), c.get("distinctAttribute")
    if match is not None:
        out += fully_qualified_name(str(match), f"{path}.matchAttribute")
    if distinct is not None:
        out += fully_qualified_name(str(distinct), f"{path}.distinctAttribute")
    if match is None and distinct is None:
        out.append(f.required(path, 'exactly one of "matchAttribute" or "distinctAttribute" is required, '
                              "but multiple fields are set") if consumable else f.required(f"{path}.matchAttribute"))
    return out


def device_claim(devices: Any, path: str, stored: bool, consumable: bool) -> list[Cause]:
    """``validateDeviceClaim`` at ``path`` (``spec.devices``). ``consumable``: the
    DRAConsumableCapacity gate, which changes a constraint's error."""
    d = as_dict(devices)
    names = request_names(d)
    constraints = as_list(d.get("constraints"))
    attrs = _constraint_attrs(constraints)
    out = validate_set(as_list(d.get("requests")), MAX_ITEMS, lambda r, p: _request(r, p, attrs),
                       lambda r: str(as_dict(r).get("name") or ""), f"{path}.requests", shown=lambda r: r)
    out += validate_slice(constraints, MAX_ITEMS, lambda c, p: _constraint(c, p, names, consumable),
                          f"{path}.constraints")

    def config(c: Any, p: str) -> list[Cause]:
        return _refs(as_dict(c).get("requests"), f"{p}.requests", names) + device_configuration(c, p, stored)
    return out + validate_slice(as_list(d.get("config")), MAX_ITEMS, config, f"{path}.config")


def exact_requests(devices: Any, path: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(field path, request reference, request body) of every ``exactly`` and subrequest."""
    for i, r in enumerate(as_list(as_dict(devices).get("requests"))):
        r = as_dict(r)
        p, name = f"{path}.requests[{i}]", str(r.get("name") or "")
        if isinstance(r.get("exactly"), dict):
            yield f"{p}.exactly", name, r["exactly"]
        for j, s in enumerate(as_list(r.get("firstAvailable"))):
            s = as_dict(s)
            yield f"{p}.firstAvailable[{j}]", f"{name}/{s.get('name') or ''}", s
