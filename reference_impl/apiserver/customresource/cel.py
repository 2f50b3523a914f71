"""x-kubernetes-validations at runtime (``schema/cel/validation.go`` ``Validator.Validate``):
each rule of each schema node over the value (``self``) and, on update, its correlated old
value (``oldSelf``); transition rules (those naming ``oldSelf``) run only where an old value
correlates. A false rule reports ``messageExpression``'s string, else ``message``, else
"failed rule: <rule>", at ``fieldPath`` below the node, with ``reason``'s error type. An
unchanged value's rule errors that do not use oldSelf are ratcheted (not reported)."""

from __future__ import annotations

from typing import Any

from celpy.adapter import json_to_cel
from celpy.celtypes import BoolType, StringType
from celpy.evaluation import CELEvalError

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

__all__ = ["rule_causes"]

Obj = dict[str, Any]
_NO_VERDICT = object()
_MAX_MESSAGE_BYTES = 5120  # celconfig.MaxEvaluatedMessageExpressionSizeBytes


def _run(expression: str, act: dict[str, Any]) -> Any:
    tree = _tree(expression)
    if tree is None:
        return _NO_VERDICT
    try:
        return _ENV.program(tree, functions=_HETEROGENEOUS).evaluate(act)
    except CELEvalError as e:
        return e
    except Exception:  # noqa: BLE001 - what cel-python cannot evaluate: no verdict
        return _NO_VERDICT


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
    s: Obj, x: Any, old: Any, has_old: bool, path: str, ratchet: bool, warnings: list[str] | None
) -> list[Cause]:
    out: list[Cause] = []
    typ = str(s.get("type") or "")
    shown = fe.OMIT if typ in ("object", "array") else x
    for rule in (as_dict(r) for r in as_list(s.get("x-kubernetes-validations"))):
        text = str(rule.get("rule") or "")
        tree = _tree(text)
        if tree is None or not text.strip():
            continue
        uses_old = _uses_old_self(tree)
        if uses_old and not has_old:
            continue  # optionalOldSelf rules need cel optionals, which cel-python lacks
        if uses_old and rule.get("optionalOldSelf"):
            continue
        act = {"self": json_to_cel(x), "oldSelf": json_to_cel(old if has_old else x)}
        got = _run(text, act)
        if got is _NO_VERDICT:
            continue
        if isinstance(got, CELEvalError):
            why = _eval_error(got, str(rule.get("message") or "").strip() or text.strip())
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
    can_ratchet: bool, warnings: list[str] | None,
) -> list[Cause]:  # fmt: skip
    if x is None:
        return []
    equal = can_ratchet and (_same(x, old) if has_old else parent_equal)
    out = _node_causes(s, x, old, has_old, path, equal, warnings)
    if isinstance(x, dict):
        props, ap = as_dict(s.get("properties")), s.get("additionalProperties")
        o = old if isinstance(old, dict) else {}
        for k, v in x.items():
            if k in props:
                sub, at = as_dict(props[k]), f"{path}.{k}" if path else k
            elif isinstance(ap, dict):
                sub, at = ap, f"{path}[{k}]"
            else:
                continue
            # apiVersion and kind at the root never ratchet (both sides read converted).
            can = can_ratchet and not (root and k in ("apiVersion", "kind"))
            out += _walk(sub, v, o.get(k), has_old and k in o, at, equal, False, can, warnings)
    elif isinstance(x, list) and (items := items_schema(s)) is not None:
        olds = _correlated(x, old if isinstance(old, list) else None, s) if has_old else {}
        for i, v in enumerate(x):
            at = f"{path}[{i}]"
            out += _walk(items, v, olds.get(i), i in olds, at, equal, False, can_ratchet, warnings)
    return out
