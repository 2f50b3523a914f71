"""x-kubernetes-validations at runtime (``schema/cel/validation.go`` ``Validator.Validate``):
each rule of each schema node over the value (``self``) and, on update, its correlated old
value (``oldSelf``); transition rules (those naming ``oldSelf``) run only where an old value
correlates. A false rule reports ``messageExpression``'s string, else ``message``, else
"failed rule: <rule>", at ``fieldPath`` below the node, with ``reason``'s error type. An
unchanged value's rule errors that do not use oldSelf are ratcheted (not reported). The
rules of allOf members apply at their node too (never ratcheted). Values are typed by the
schema (``cel_values``) and rules see the Kubernetes CEL library (``cel_library``)."""

from __future__ import annotations

import re
from typing import Any

from celpy.celtypes import BoolType, StringType
from celpy.evaluation import CELEvalError

from reference_impl.apiserver.customresource.cel_library import LIBRARY, NAMESPACES
from reference_impl.apiserver.customresource.cel_library_net import LibraryError
from reference_impl.apiserver.customresource.cel_values import to_cel
from reference_impl.apiserver.customresource.schema import _correlated, _same
from reference_impl.apiserver.strategies.apiextensions_cel import (
    _ENV,
    _HETEROGENEOUS,
    _eval_error,
    _reason_cause,
    _tree,
    _uses_old_self,
    valid_field_path,
)
from reference_impl.apiserver.strategies.apiextensions_structural import items_schema
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list
from reference_impl.errors import Cause

__all__ = ["evaluate", "rule_causes"]

Obj = dict[str, Any]
_NO_VERDICT = object()
_MAX_MESSAGE_BYTES = 5120  # celconfig.MaxEvaluatedMessageExpressionSizeBytes


def _strict(op: Any) -> Any:
    """cel-go's operators are strict: an error operand is the result (the heterogeneous
    equality would read it as a value of another kind)."""
    return lambda a, b: a if isinstance(a, CELEvalError) else b if isinstance(b, CELEvalError) else op(a, b)


_FUNCTIONS: dict[str, Any] = {**LIBRARY, **{k: _strict(f) for k, f in _HETEROGENEOUS.items()}}


def _run(expression: str, act: dict[str, Any]) -> Any:
    tree = _tree(expression)
    if tree is None:
        return _NO_VERDICT
    try:
        return _ENV.program(tree, functions=_FUNCTIONS).evaluate({**NAMESPACES, **act})
    except CELEvalError as e:
        return e
    except Exception:  # noqa: BLE001 - what cel-python cannot evaluate: no verdict
        return _NO_VERDICT


def evaluate(expression: str, s: Obj, x: Any, old: Any = None, *, root: bool = False) -> Any:
    """The result of one rule over ``x`` (``self``) and ``old`` (``oldSelf``) typed by ``s``:
    a CEL value, a ``CELEvalError``, or None where cel-python gives no verdict."""
    got = _run(expression, {"self": to_cel(x, s, root), "oldSelf": to_cel(old, s, root)})
    return None if got is _NO_VERDICT else got


def _runtime_error(e: CELEvalError, rule: str) -> str | None:
    """``%v evaluating rule: %v`` for the runtime errors cel-go shares: the library's own,
    a missing key (named), and those ``_eval_error`` knows."""
    if isinstance(e, LibraryError):
        return f"{e.args[0]} evaluating rule: {rule}"
    args = (*e.args, None, None, None)
    if args[1] is KeyError:
        m = re.fullmatch(r"no such member in mapping: '(.*)'", str(args[0]))
        key = m.group(1) if m else str(args[2][0]) if isinstance(args[2], tuple) and args[2] else None
        if key is not None:
            return f"no such key: {key} evaluating rule: {rule}"
    return _eval_error(e, rule)


def _detail(rule: Obj, act: dict[str, Any]) -> str:
    """``evalMessageExpression``, falling back to ``ruleMessageOrDefault`` when it fails:
    not a string, blank, over 5120 bytes or with a line break (upstream logs why)."""
    expr = rule.get("messageExpression")
    if isinstance(expr, str) and expr.strip():
        got = _run(expr, act)
        if isinstance(got, StringType | str):
            text = str(got)
            if text.strip() and len(text.encode()) <= _MAX_MESSAGE_BYTES and "\n" not in text:
                return text
    msg = str(rule.get("message") or "").strip()
    return msg or f"failed rule: {str(rule.get('rule') or '').strip()}"


def _node_causes(
    s: Obj, x: Any, old: Any, has_old: bool, path: str, ratchet: bool, warnings: list[str] | None,
    root: bool = False, v: Obj | None = None,
) -> list[Cause]:
    out: list[Cause] = []
    typ = str(s.get("type") or "")
    shown = fe.OMIT if typ in ("object", "array") else x
    for rule in (as_dict(r) for r in as_list((s if v is None else v).get("x-kubernetes-validations"))):
        text = str(rule.get("rule") or "")
        tree = _tree(text)
        if tree is None or not text.strip():
            continue
        uses_old = _uses_old_self(tree)
        if uses_old and not has_old:
            continue  # optionalOldSelf rules need cel optionals, which cel-python lacks
        if uses_old and rule.get("optionalOldSelf"):
            continue
        act = {"self": to_cel(x, s, root), "oldSelf": to_cel(old if has_old else x, s, root)}
        got = _run(text, act)
        if got is _NO_VERDICT:
            continue
        if isinstance(got, CELEvalError):
            why = _runtime_error(got, str(rule.get("message") or "").strip() or text.strip())
            if why is not None:
                out.append(fe.invalid(path, typ, why))
            continue
        if not (isinstance(got, BoolType) and not got):
            continue
        fp = rule.get("fieldPath")
        names = valid_field_path(fp, s) if isinstance(fp, str) and fp else None
        at = ".".join([path, *names]) if names and path else ".".join(names) if names else path
        cause = _reason_cause(at, shown, _detail(rule, act), rule.get("reason"))
        if not uses_old and ratchet:  # an unchanged value's error: a warning
            if warnings is not None:
                warnings.append(f"{cause.field}: {cause.message}")
            continue
        out.append(cause)
    return out


def rule_causes(
    s: Obj,
    x: Any,
    old: Any = None,
    *,
    has_old: bool = False,
    path: str = "",
    warnings: list[str] | None = None,
) -> list[Cause]:
    """The rule errors of ``x`` against ``s`` and below (``old``: the correlated old value,
    ``has_old`` on update). Errors of a node equal to its correlated old value, or below an
    unchanged correlated ancestor, are ratcheted: added to ``warnings`` instead."""
    return _walk(s, x, old, has_old, path, False, True, True, warnings)


def _walk(
    s: Obj, x: Any, old: Any, has_old: bool, path: str, parent_equal: bool, root: bool,
    can_ratchet: bool, warnings: list[str] | None, v: Obj | None = None,
) -> list[Cause]:  # fmt: skip
    """``Validator.validate``: ``s`` types the value, ``v`` (``s`` unless an allOf member
    of it, whose errors never ratchet) holds the rules and the subschemas to descend."""
    if x is None:
        return []
    v = s if v is None else v
    equal = can_ratchet and (_same(x, old) if has_old else parent_equal)
    out = _node_causes(s, x, old, has_old, path, equal, warnings, root, v)
    for member in (as_dict(a) for a in as_list(v.get("allOf"))):
        out += _walk(s, x, old, has_old, path, False, root, False, warnings, member)
    if isinstance(x, dict):
        props, ap = as_dict(s.get("properties")), s.get("additionalProperties")
        vprops, vap = as_dict(v.get("properties")), v.get("additionalProperties")
        o = old if isinstance(old, dict) else {}
        for k, val in x.items():
            if k in props and k in vprops:
                sub, vsub, at = as_dict(props[k]), as_dict(vprops[k]), f"{path}.{k}" if path else k
            elif k not in props and isinstance(ap, dict) and isinstance(vap, dict):
                sub, vsub, at = ap, vap, f"{path}[{k}]"
            else:
                continue
            # apiVersion and kind at the root never ratchet (both sides read converted).
            can = can_ratchet and not (root and k in ("apiVersion", "kind"))
            out += _walk(sub, val, o.get(k), has_old and k in o, at, equal, False, can, warnings, vsub)
    elif isinstance(x, list) and (items := items_schema(s)) is not None:
        vitems = items_schema(v)
        if vitems is None:
            return out
        olds = _correlated(x, old if isinstance(old, list) else None, s) if has_old else {}
        for i, val in enumerate(x):
            at = f"{path}[{i}]"
            out += _walk(items, val, olds.get(i), i in olds, at, equal, False, can_ratchet, warnings, vitems)
    return out
