"""CustomResourceDefinition ``x-kubernetes-validations`` rules: the per-schema-node checks
of ``ValidateCustomResourceDefinitionOpenAPISchema`` (rule, message, messageExpression,
reason, fieldPath, optionalOldSelf) and compiling them (``cel.Compile``), and the rules'
verdict on a default (``cel.Validator``, for ``ValidateDefaults``).

Compiling is cel-python's parse and the environment's variables (``self``, ``oldSelf``),
plus the few type verdicts of ``apiextensions_cel_types``; other type errors, unknown
functions and cost limits are not reported. ``preexisting`` expressions compile in
the stored-expressions environment upstream: that only widens the library, which a parse
check does not see, so they are judged like new ones. A default is judged only where
cel-python evaluates the rule to false or fails to find a field; rules with
``optionalOldSelf`` or other evaluation errors give no verdict."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Final

import celpy
from celpy.adapter import json_to_cel
from celpy.celtypes import BoolType
from celpy.evaluation import CELEvalError
from lark import Tree

from reference_impl.apiserver.strategies.admission_policies_cel import cel_causes
from reference_impl.apiserver.strategies.apiextensions_cel_types import type_error
from reference_impl.apiserver.strategies.apiextensions_structural import (
    items_schema,
    new_structural_error,
)
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list
from reference_impl.errors import Cause

__all__ = ["default_rule_causes", "rule_causes", "valid_field_path"]

Obj = dict[str, Any]

_ENV: Final = celpy.Environment()
# A CRD rule's environment: the scoped variables, type names and library namespaces.
_NAMES: Final = frozenset(
    "self oldSelf int uint double string bool bytes list map type null_type dyn google optional "
    "cel math strings sets base64 lists".split()
)
_REASONS: Final = ("FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired")
_NEWLINE: Final = re.compile(r"[\n\r]+")
_ESCAPES: Final = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "'": "'", "\\": "\\"}


@lru_cache(maxsize=1024)
def _tree(expression: str) -> Any:
    try:
        return _ENV.compile(expression)
    except Exception:  # noqa: BLE001 - celpy raises several parse error types
        return None


def _uses_old_self(t: Any) -> bool:
    """The expression references the ``oldSelf`` variable."""
    return any(
        isinstance(n, Tree) and n.data == "ident" and str(n.children[0]) == "oldSelf" for n in t.iter_subtrees()
    )


def _unescape(s: str) -> str | None:
    out, i = "", 0
    while i < len(s):
        if s[i] == "\\":
            if i + 1 >= len(s) or s[i + 1] not in _ESCAPES:
                return None
            out, i = out + _ESCAPES[s[i + 1]], i + 2
        else:
            out, i = out + s[i], i + 1
    return out


def _tokens(path: str) -> list[str]:
    """``ValidFieldPath``'s scanner: ``.``, ``[``, ``]`` and what lies between (a single
    quoted string is one token)."""
    out: list[str] = []
    i = 0
    while i < len(path):
        if path[i] == "'":
            j = i + 1
            while j < len(path) and not (path[j] == "'" and path[j - 1] != "\\"):
                j += 1
            out.append(path[i : j + 1])
            i = j + 1
        elif path[i] in ".[]":
            out.append(path[i])
            i += 1
        else:
            j = i
            while j < len(path) and path[j] not in ".[]":
                j += 1
            out.append(path[i:j])
            i = j
    return out


def valid_field_path(path: str, s: Obj) -> list[str] | None:
    """``cel.ValidFieldPath``: the field names ``path`` selects in ``s``, or None."""
    toks, names, node, i = _tokens(path), [], s, 0
    while i < len(toks):
        tok = toks[i]
        if tok == "[":
            if i + 2 >= len(toks) or toks[i + 2] != "]":
                return None
            q = toks[i + 1]
            name = _unescape(q[1:-1]) if len(q) >= 2 and q[0] == q[-1] == "'" else None
            i += 3
        elif tok == ".":
            if i + 1 >= len(toks):
                return None
            name, i = toks[i + 1], i + 2
        else:
            return None
        if name is None or not isinstance(node, dict):
            return None
        props, ap = as_dict(node.get("properties")), node.get("additionalProperties")
        if props:
            if name not in props:
                return None
            node = as_dict(props[name])
        elif isinstance(ap, bool | dict):
            node = ap if isinstance(ap, dict) else {}  # a bool: no schema below (upstream: nil)
        else:
            return None
        names.append(name)
    return names


def _path_valid(node: Obj, path: str) -> bool:
    """``pathValid`` (a schema that is not structural accepts any path)."""
    return new_structural_error(node) is not None or valid_field_path(path, node) is not None


def _uncorrelatable(root: Obj, path: str) -> str | None:
    """The highest ancestor path of ``path`` below which ``oldSelf`` cannot be correlated
    (the items of a list that is not a map, the fields of a map of unknown type)."""
    at = path.find("openAPIV3Schema")
    if at < 0:
        return None
    cur, rest, node = path[: at + len("openAPIV3Schema")], path[at + len("openAPIV3Schema") :], root
    found: str | None = None
    while rest:
        if rest.startswith(".properties["):
            tail = rest[len(".properties[") :]
            keys = [k for k in as_dict(node.get("properties")) if tail.startswith(f"{k}]")]
            if not keys:
                return found
            key = max(keys, key=len)
            if node.get("x-kubernetes-map-type") not in (None, "granular", "atomic") and found is None:
                found = cur
            node, cur, rest = as_dict(node["properties"][key]), f"{cur}.properties[{key}]", tail[len(key) + 1 :]
        elif rest.startswith(".items"):
            if node.get("x-kubernetes-list-type") != "map" and found is None:
                found = cur
            node, cur, rest = items_schema(node) or {}, f"{cur}.items", rest[len(".items") :]
        elif rest.startswith(".additionalProperties"):
            node, cur, rest = as_dict(node.get("additionalProperties")), f"{cur}.additionalProperties", rest[len(".additionalProperties") :]
        else:
            return found
    return found


def _schema_causes(i: int, rule: Obj, node: Obj, p: str) -> list[Cause]:
    """The checks of one rule that need no compiling (upstream's ``SchemaErrors``)."""
    out: list[Cause] = []
    text, msg, mexpr = (str(rule.get(k) or "") for k in ("rule", "message", "messageExpression"))
    rp = f"{p}[{i}]"
    if not text.strip():
        out.append(fe.required(f"{rp}.rule", "rule is not specified"))
    elif msg and not msg.strip():
        out.append(fe.invalid(f"{rp}.message", msg, "must be non-empty if specified"))
    elif _NEWLINE.search(msg.strip()):
        out.append(fe.invalid(f"{rp}.message", msg, "must not contain line breaks"))
    elif _NEWLINE.search(text.strip()) and not msg.strip():
        out.append(fe.required(f"{rp}.message", "message must be specified if rule contains line breaks"))
    if mexpr and not mexpr.strip():
        out.append(fe.required(f"{rp}.messageExpression", "messageExpression must be non-empty if specified"))
    reason = rule.get("reason")
    if reason is not None and reason not in _REASONS:
        out.append(fe.not_supported(f"{rp}.reason", reason, _REASONS))
    fp = rule.get("fieldPath")
    if isinstance(fp, str) and fp:
        if not fp.strip():
            out.append(fe.invalid(f"{rp}.fieldPath", fp, "must be non-empty if specified"))
        if _NEWLINE.search(fp):
            out.append(fe.invalid(f"{rp}.fieldPath", fp, "must not contain line breaks"))
        if not _path_valid(node, fp):
            out.append(fe.invalid(f"{rp}.fieldPath", fp, "must be a valid path"))
    return out


def _compile_causes(i: int, rule: Obj, node: Obj, p: str, uncorrelatable: str | None, resource: bool) -> list[Cause]:
    """``compileRule``'s errors for one rule, and the oldSelf checks on its result."""
    rp = f"{p}[{i}]"
    text, mexpr = str(rule.get("rule") or ""), str(rule.get("messageExpression") or "")
    if not text.strip():
        return []
    out = [fe.invalid(f"{rp}.rule", rule, c.message) for c in cel_causes(text, f"{rp}.rule", _NAMES)]
    tree = _tree(text)
    if not out and tree is not None and (err := type_error(tree, node, resource, "bool")):
        detail = "cel expression must evaluate to a bool" if err == "wrong result type" else f"compilation failed: {err}"
        out.append(fe.invalid(f"{rp}.rule", rule, detail))
    compiled = not out
    if compiled and mexpr:
        errs = cel_causes(mexpr, f"{rp}.messageExpression", _NAMES)
        out += [fe.invalid(f"{rp}.messageExpression", rule, "messageExpression " + c.message) for c in errs]
        mtree = _tree(mexpr)
        if not errs and mtree is not None and (err := type_error(mtree, node, resource, "string")):
            detail = "must evaluate to a string" if err == "wrong result type" else f"compilation failed: {err}"
            out.append(fe.invalid(f"{rp}.messageExpression", rule, f"messageExpression {detail}"))
    if compiled and tree is not None and _uses_old_self(tree):
        if uncorrelatable is not None:
            out.append(fe.invalid(f"{rp}.rule", text, f"oldSelf cannot be used on the uncorrelatable portion of the schema within {uncorrelatable}"))
    elif rule.get("optionalOldSelf") is not None:
        out.append(fe.invalid(f"{rp}.optionalOldSelf", rule["optionalOldSelf"], "may not be set if oldSelf is not used in rule"))
    return out


def rule_causes(
    node: Obj, path: str, root: Obj, *, compile_rules: bool, preexisting: frozenset[str] = frozenset()
) -> list[Cause]:
    """The causes of ``node``'s ``x-kubernetes-validations`` (``node`` is the schema at
    ``path``, ``root`` the whole ``openAPIV3Schema``). ``compile_rules``: the structural
    pass succeeded and the node's other schema checks (here and below) found nothing, so
    the rules are compiled, as upstream's non-nil ``celContext`` does; they are not when
    a rule's own checks fail. ``preexisting``: the old object's expressions."""
    rules = [as_dict(r) for r in as_list(node.get("x-kubernetes-validations"))]
    p = f"{path}.x-kubernetes-validations"
    out: list[Cause] = []
    for i, rule in enumerate(rules):
        out += _schema_causes(i, rule, node, p)
    if out or not compile_rules:
        return out
    uncorrelatable = _uncorrelatable(root, path)
    resource = path.endswith("openAPIV3Schema") or bool(node.get("x-kubernetes-embedded-resource"))
    for i, rule in enumerate(rules):
        out += _compile_causes(i, rule, node, p, uncorrelatable, resource)
    return out


def _rule_verdict(rule: Obj, value: Any) -> str | None:
    """"false", "missing" (a field the rule selects is absent) or None (true, or no verdict)."""
    text = str(rule.get("rule") or "")
    tree = _tree(text)
    if tree is None or rule.get("optionalOldSelf") or not text.strip():
        return None
    cel_value = json_to_cel(value)
    try:
        result: Any = _ENV.program(tree).evaluate({"self": cel_value, "oldSelf": cel_value})
    except CELEvalError as e:
        result = e
    except Exception:  # noqa: BLE001 - anything cel-python cannot evaluate: no verdict
        return None
    if isinstance(result, CELEvalError):
        return "missing" if str(result.args[0] if result.args else "").startswith("no such") else None
    return "false" if isinstance(result, BoolType) and not result else None


def default_rule_causes(s: Obj, value: Any, path: str, *, is_resource_root: bool = False) -> list[Cause]:
    """The x-kubernetes-validations errors of ``value`` against ``s`` and below
    (``cel.Validator.Validate``), at ``path``."""
    if value is None:
        return []
    out: list[Cause] = []
    for rule in (as_dict(r) for r in as_list(s.get("x-kubernetes-validations"))):
        verdict = _rule_verdict(rule, value)
        if verdict == "missing":
            out.append(fe.invalid(path, value, f"no such key evaluating rule: {rule.get('rule')}"))
        elif verdict == "false":
            fp = rule.get("fieldPath")
            names = valid_field_path(fp, s) if isinstance(fp, str) and fp else None
            at = ".".join([path, *names]) if names else path
            out.append(_reason_cause(at, value, str(rule.get("message") or "failed rule"), rule.get("reason")))
    if isinstance(value, dict):
        props, ap = as_dict(s.get("properties")), s.get("additionalProperties")
        for k, v in value.items():
            if k in props:
                out += default_rule_causes(as_dict(props[k]), v, f"{path}.{k}")
            elif isinstance(ap, dict):
                out += default_rule_causes(ap, v, f"{path}[{k}]")
    elif isinstance(value, list) and (items := items_schema(s)) is not None:
        for i, v in enumerate(value):
            out += default_rule_causes(items, v, f"{path}[{i}]")
    return out


def _reason_cause(path: str, value: Any, detail: str, reason: Any) -> Cause:
    """``fieldErrorForReason``."""
    if reason == "FieldValueForbidden":
        return fe.forbidden(path, detail)
    if reason == "FieldValueRequired":
        return fe.required(path, detail)
    if reason == "FieldValueDuplicate":
        return fe.duplicate(path, value)
    return fe.invalid(path, value, detail)
