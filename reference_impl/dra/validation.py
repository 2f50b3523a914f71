"""CEL compile checks for resource.k8s.io selectors, registered with the apiserver.

The strategies in ``apiserver/strategies/resource.py`` check structure; this module adds
the compile step (``validateCELSelector``) for every selector path, since the CEL library
sits in this layer, above the apiserver.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from reference_impl.apiserver.registry import Context, validator
from reference_impl.dra.cel import CELError, compile_selector
from reference_impl.errors import Cause

__all__ = ["selector_paths"]

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


def _check(pairs: Iterator[tuple[str, Any]]) -> list[Cause]:
    out: list[Cause] = []
    for path, expr in pairs:
        if not isinstance(expr, str) or not expr:
            continue  # structure errors are the strategy's
        try:
            compile_selector(expr)
        except CELError as e:
            out.append(Cause(path, "FieldValueInvalid", str(e)))
    return out


@validator("DeviceClass")
def validate_class_cel(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Every class selector compiles."""
    sels = (obj.get("spec") or {}).get("selectors") or ()
    return _check(
        (f"spec.selectors[{i}].cel.expression", (s.get("cel") or {}).get("expression"))
        for i, s in enumerate(sels)
    )


@validator("ResourceClaim")
def validate_claim_cel(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Every request selector compiles."""
    return _check(selector_paths(obj.get("spec"), "spec"))


@validator("ResourceClaimTemplate")
def validate_template_cel(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Every request selector of the template compiles."""
    return _check(selector_paths((obj.get("spec") or {}).get("spec"), "spec.spec"))
