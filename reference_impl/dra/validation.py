"""CEL checks for resource.k8s.io expressions at write time (``validateCELExpression``).

The structure (a ``cel`` per selector, the 10 KiB length, derived attribute names) is
checked in ``apiserver/validation/resource``; this module compiles each new expression,
type-checks it (``cel_check``: a selector must be bool or dyn, a derived attribute a
scalar or a list of scalars) and estimates its cost (``cel_cost``: cel-go's estimate,
exactly where the port models the expression; ≤ 1,000,000 each; the derived
attributes of one claim share one such budget). As upstream, a stored expression is not
re-checked: a claim's spec is only compared on update (a template's is validated again
in full, as its strategy's ValidateUpdate does), and a DeviceClass's
selectors count as stored when they are exactly the old ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

import celpy

from reference_impl.apiserver.registry import Context, validator
from reference_impl.apiserver.validation import field as f
from reference_impl.apiserver.validation.resource.claim import (
    CEL_MAX_LENGTH,
    FIRST_AVAILABLE_MAX,
    MAX_ITEMS,
)
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list
from reference_impl.dra.cel import CELError, compile_selector
from reference_impl.dra.cel_check import CheckError, check
from reference_impl.dra.cel_cost import cost as exact_cost
from reference_impl.errors import Cause

__all__ = ["MAX_COST", "expression_causes", "selector_paths"]

MAX_COST: Final = 1_000_000
_ENV: Final = celpy.Environment()
_POSITION: Final = re.compile(r"ERROR: <input>:(\d+):(\d+): ")
_SCALARS: Final = frozenset({"bool", "int", "string", "dyn", "kubernetes.Semver"})

Obj = dict[str, Any]


def _compiled_requests(spec: Any, path: str) -> Iterator[tuple[str, Obj]]:
    """The ``exactly`` and subrequest bodies whose expressions upstream compiles: its
    ``validateSet``/``validateSlice`` skip every item past a size limit, and
    ``validateDeviceRequest`` descends into neither branch when both are set."""
    requests = as_list(as_dict(as_dict(spec).get("devices")).get("requests"))
    if len(requests) > MAX_ITEMS:
        return
    for i, r in enumerate(as_dict(r) for r in requests):
        p, subs = f"{path}.devices.requests[{i}]", as_list(r.get("firstAvailable"))
        if r.get("exactly") is not None and subs:
            continue
        if isinstance(r.get("exactly"), dict):
            yield f"{p}.exactly", r["exactly"]
        if len(subs) <= FIRST_AVAILABLE_MAX:
            yield from ((f"{p}.firstAvailable[{j}]", as_dict(s)) for j, s in enumerate(subs))


def selector_paths(spec: Obj | None, path: str) -> Iterator[tuple[str, Any]]:
    """``(field path, expression)`` for each selector under a ResourceClaimSpec that
    upstream compiles (none in a list past ``DeviceSelectorsMaxSize``)."""
    for p, req in _compiled_requests(spec, path):
        sels = as_list(req.get("selectors"))
        for k, sel in enumerate(sels if len(sels) <= MAX_ITEMS else []):
            cel = as_dict(sel).get("cel")
            if cel is not None:
                yield f"{p}.selectors[{k}].cel.expression", as_dict(cel).get("expression")


def _with_snippet(text: str, expr: str) -> str:
    """cel-go's issue format: the source line and a caret under the reported column."""
    m = _POSITION.search(text)
    if m is None:
        return text
    line_no, col = int(m.group(1)), int(m.group(2))
    lines = expr.split("\n")
    if not 0 < line_no <= len(lines):
        return text
    return f"{text}\n | {lines[line_no - 1]}\n | {'.' * max(col - 1, 0)}^"


def _derived_ok(t: str, lists: bool) -> bool:
    if t in _SCALARS:
        return True
    return lists and t.startswith("list(") and t[5:-1] in _SCALARS


def expression_causes(expr: str, path: str, lists: bool, derived: bool) -> tuple[list[Cause], int]:
    """The errors of one new expression and its estimated cost."""
    if len(expr) > CEL_MAX_LENGTH:
        return [], 0  # TooLong, reported by the apiserver's structural check
    try:
        compile_selector(expr, lists)
        tree = _ENV.compile(expr)
        checked = check(tree)
    except (CELError, CheckError) as e:
        text = str(e)
        text = text if text.startswith("compilation failed") else f"compilation failed: {text}"
        return [f.invalid(path, expr, _with_snippet(text, expr))], 0
    except Exception as e:  # noqa: BLE001 - celpy raises several parse error types
        return [f.invalid(path, expr, f"compilation failed: {e}")], 0
    # cel-go's estimate where the port has it (every upstream row does), else the rough one.
    exact = exact_cost(tree)
    cost = checked.cost if exact is None else exact
    if derived and not _derived_ok(checked.type, lists):
        what = " or a list of these scalars" if lists else ""
        return [f.invalid(path, expr, "must evaluate to a primitive scalar (string, integer, boolean, "
                          f"semver){what}, not {checked.type}")], 0  # an error: upstream adds no cost
    if not derived and checked.type not in ("bool", "dyn"):
        return [f.invalid(path, expr, f"must evaluate to bool or the unknown type, not {checked.type}")], 0
    if cost > MAX_COST:
        return [f.forbidden(path, "too complex, exceeds cost limit")], cost
    return [], cost


def _claim_causes(spec: Any, path: str, ctx: Context) -> list[Cause]:
    lists = ctx.gates.enabled("DRAListTypeAttributes")
    out: list[Cause] = []
    for p, expr in selector_paths(spec, path):
        out += expression_causes(str(expr or ""), p, lists, False)[0]
    total = 0
    for p, req in _compiled_requests(spec, path):
        for k, a in enumerate(as_list(req.get("derivedAttributes"))):
            expr = str(as_dict(a).get("expression") or "")
            if expr:
                errs, cost = expression_causes(expr, f"{p}.derivedAttributes[{k}].expression", lists, True)
                out += errs
                total = (total + cost) % 2**64  # upstream sums in a uint64, which wraps
    if total > MAX_COST:
        out.append(f.forbidden(f"{path}.devices", "too complex, total cost of derived attribute CEL "
                               "expressions in the claim exceeds cost limit"))
    return out


@validator("DeviceClass")
def validate_class_cel(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Every class selector compiles, unless the selectors are exactly the stored ones."""
    sels = as_list(as_dict(obj.get("spec")).get("selectors"))
    if old is not None and sels == as_list(as_dict(old.get("spec")).get("selectors")):
        return []
    lists = ctx.gates.enabled("DRAListTypeAttributes")
    out: list[Cause] = []
    for i, s in enumerate(sels if len(sels) <= MAX_ITEMS else []):  # validateSlice skips past it
        cel = as_dict(s).get("cel")
        if cel is not None:
            out += expression_causes(str(as_dict(cel).get("expression") or ""),
                                     f"spec.selectors[{i}].cel.expression", lists, False)[0]
    return out


@validator("ResourceClaim")
def validate_claim_cel(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Every request selector and derived attribute compiles (on create)."""
    return [] if old is not None else _claim_causes(obj.get("spec"), "spec", ctx)


@validator("ResourceClaimTemplate")
def validate_template_cel(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """As for a claim, under ``spec.spec``; also on update, where the template strategy
    re-validates the whole new object."""
    return _claim_causes(as_dict(obj.get("spec")).get("spec"), "spec.spec", ctx)
