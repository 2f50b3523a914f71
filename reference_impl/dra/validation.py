"""CEL compile checks for resource.k8s.io selectors, registered with the apiserver.

The strategies in ``apiserver/strategies/resource.py`` check structure; this module adds
the compile step (``validateCELSelector``) for every selector path, since the CEL library
sits in this layer, above the apiserver.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from reference_impl.apiserver.registry import Context, validator
from reference_impl.dra.cel import CELError, compile_selector
from reference_impl.errors import Cause

__all__ = ["derived_causes", "selector_paths"]
MAX_DERIVED: Final = 32

Obj = dict[str, Any]


def selector_paths(spec: Obj | None, path: str) -> Iterator[tuple[str, Any]]:
    """``(field path, expression)`` for each selector under a ResourceClaimSpec."""
    for i, r in enumerate(((spec or {}).get("devices") or {}).get("requests") or ()):
        subs = [("exactly", r["exactly"])] if isinstance(r.get("exactly"), dict) else []
        subs += [(f"firstAvailable[{j}]", s) for j, s in enumerate(r.get("firstAvailable") or ())]
        for name, sub in subs:
            for k, sel in enumerate(sub.get("selectors") or ()):
                yield (f"{path}.devices.requests[{i}].{name}.selectors[{k}].cel.expression",
                       (sel.get("cel") or {}).get("expression"))


def _check(pairs: Iterator[tuple[str, Any]], ctx: Context, stored: set[Any]) -> list[Cause]:
    # New expressions get the environment of the enabled gates (``includes`` only with
    # DRAListTypeAttributes); expressions already stored in the old object get the full
    # one, so turning a gate off never invalidates what was written with it on.
    lists = ctx.gates.enabled("DRAListTypeAttributes")
    out: list[Cause] = []
    for path, expr in pairs:
        if not isinstance(expr, str) or not expr:
            continue  # structure errors are the strategy's
        try:
            compile_selector(expr, lists or expr in stored)
        except CELError as e:
            out.append(Cause(path, "FieldValueInvalid", str(e)))
    return out


def _requests(spec: Obj | None, path: str) -> Iterator[tuple[str, str, Obj]]:
    """(field path, request reference, request spec) of every exactly / firstAvailable entry."""
    for i, r in enumerate(((spec or {}).get("devices") or {}).get("requests") or ()):
        p = f"{path}.devices.requests[{i}]"
        if isinstance(r.get("exactly"), dict):
            yield f"{p}.exactly", str(r.get("name", "")), r["exactly"]
        for j, sub in enumerate(r.get("firstAvailable") or ()):
            yield f"{p}.firstAvailable[{j}]", f"{r.get('name', '')}/{sub.get('name', '')}", sub


def _used(name: str, ref: str, constraints: list[Obj]) -> bool:
    # ``isAttributeUsedByConstraint``: a constraint for all requests, for this
    # (sub)request, or for the parent request of a subrequest.
    for c in constraints:
        if (c.get("matchAttribute") or c.get("distinctAttribute")) != name:
            continue
        targets = c.get("requests") or []
        if not targets or ref in targets or ref.split("/", 1)[0] in targets:
            return True
    return False


def derived_causes(spec: Obj | None, path: str, ctx: Context, stored: set[Any]) -> list[Cause]:
    """``derivedAttributes``: ≤32, unique names each used by a constraint, compiling CEL."""
    constraints = list(((spec or {}).get("devices") or {}).get("constraints") or ())
    out: list[Cause] = []
    for p, ref, req in _requests(spec, path):
        attrs = req.get("derivedAttributes") or []
        if len(attrs) > MAX_DERIVED:
            out.append(Cause(f"{p}.derivedAttributes", "FieldValueTooMany",
                             f"Too many: {len(attrs)}: must have at most {MAX_DERIVED} items"))
        seen: set[str] = set()
        for k, a in enumerate(attrs):
            q, name = f"{p}.derivedAttributes[{k}]", str(a.get("name") or "")
            if not name:
                out.append(Cause(f"{q}.name", "FieldValueRequired", "Required value"))
            elif name in seen:
                out.append(Cause(f"{q}.name", "FieldValueDuplicate", f'Duplicate value: "{name}"'))
            elif not _used(name, ref, constraints):
                out.append(Cause(f"{q}.name", "FieldValueInvalid", f'Invalid value: "{name}": must be '
                                 "referenced by at least one matchAttribute or distinctAttribute "
                                 "constraint targeting this request"))
            seen.add(name)
            if not a.get("expression"):
                out.append(Cause(f"{q}.expression", "FieldValueRequired", "Required value"))
            else:
                out += _check(iter([(f"{q}.expression", a["expression"])]), ctx, stored)
    return out


def _derived_exprs(spec: Obj | None) -> set[Any]:
    return {a.get("expression") for _, _, r in _requests(spec, "") for a in r.get("derivedAttributes") or ()}


@validator("DeviceClass")
def validate_class_cel(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Every class selector compiles."""
    def pairs(o: Obj | None) -> Iterator[tuple[str, Any]]:
        sels = ((o or {}).get("spec") or {}).get("selectors") or ()
        return ((f"spec.selectors[{i}].cel.expression", (s.get("cel") or {}).get("expression"))
                for i, s in enumerate(sels))

    return _check(pairs(obj), ctx, {e for _, e in pairs(old)})


@validator("ResourceClaim")
def validate_claim_cel(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Every request selector compiles."""
    ospec = (old or {}).get("spec")
    stored = {e for _, e in selector_paths(ospec, "spec")} | _derived_exprs(ospec)
    return (_check(selector_paths(obj.get("spec"), "spec"), ctx, stored)
            + derived_causes(obj.get("spec"), "spec", ctx, stored))


@validator("ResourceClaimTemplate")
def validate_template_cel(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Every request selector of the template compiles."""
    spec = (obj.get("spec") or {}).get("spec")
    ospec = ((old or {}).get("spec") or {}).get("spec")
    stored = {e for _, e in selector_paths(ospec, "spec.spec")} | _derived_exprs(ospec)
    return (_check(selector_paths(spec, "spec.spec"), ctx, stored)
            + derived_causes(spec, "spec.spec", ctx, stored))
