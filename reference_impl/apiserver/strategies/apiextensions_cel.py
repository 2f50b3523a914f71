"""CustomResourceDefinition ``x-kubernetes-validations`` rules: the per-schema-node checks
of ``ValidateCustomResourceDefinitionOpenAPISchema`` (rule, message, messageExpression,
reason, fieldPath, optionalOldSelf) and compiling them (``cel.Compile``), and the rules'
verdict on a default (``cel.Validator``, for ``ValidateDefaults``).

Compiling is cel-python's parse and the environment's variables (``self``, ``oldSelf``),
plus the few type verdicts of ``apiextensions_cel_types`` and the literal regexes cel-go
compiles when planning the program; other type errors and unknown functions are not
reported. Estimated costs (``apiextensions_cel_cost``) are checked against the per-rule,
per-messageExpression and per-CRD limits where the estimator models the expression.
``preexisting`` expressions compile in the stored-expressions environment upstream: that
only widens the library, which a parse check does not see, so they are judged like new
ones. A default is judged (with cel-go's heterogeneous ``==``,
``!=`` and ``in``) only where cel-python evaluates the rule to false or fails with an
error cel-go shares (a missing field, no such overload, division by zero, an index out of
range, overflow, a failed conversion, a bad regex); rules with ``optionalOldSelf`` or
other evaluation errors give no verdict."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Final, cast

import celpy
from celpy.adapter import json_to_cel
from celpy.celtypes import BoolType, DoubleType, IntType, ListType, MapType, UintType
from celpy.evaluation import CELEvalError, bool_eq, operator_in
from lark import Tree

from reference_impl.apiserver.strategies.admission_policies_cel import cel_error
from reference_impl.apiserver.strategies.apiextensions_cel_cost import (
    CostScope,
    Decl,
    decl_type,
    rule_max_cardinality,
)
from reference_impl.apiserver.strategies.apiextensions_cel_types import type_error
from reference_impl.apiserver.strategies.apiextensions_structural import (
    go_regexp_error,
    items_schema,
    new_structural_error,
)
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list
from reference_impl.errors import Cause

__all__ = ["default_rule_causes", "rule_causes", "valid_field_path"]

Obj = dict[str, Any]

_ENV: Final = celpy.Environment()
# A CRD rule's environment: the scoped variables, type names and library namespaces. The
# base environment (apiserver pkg/cel/environment/base.go) has no ext.Bindings, ext.Math
# or ext.Encoders, so ``cel.bind``, ``math.*`` and ``base64.*`` are undeclared references
# (DRA's environment adds cel.bind; reference_impl/dra has its own checker).
_NAMES: Final = frozenset(
    "self oldSelf int uint double string bool bytes list map type null_type dyn google optional "
    "strings sets lists".split()
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


# Functions whose constant regex argument cel-go compiles when planning the program
# (``MatchesRegexOptimization``, ``FindRegexOptimization``, ``FindAllRegexOptimization``).
_REGEX_FUNCTIONS: Final = frozenset({"matches", "find", "findAll"})


def _string_literal(expr: Any) -> str | None:
    """The value of ``expr`` when it is a lone string literal (the live apiserver compiles
    no folded constant such as ``'[' + ']'``)."""
    node = expr
    while isinstance(node, Tree) and node.data != "literal" and len(node.children) == 1:
        node = node.children[0]
    if not (isinstance(node, Tree) and node.data == "literal"):
        return None
    try:
        value = _ENV.program(expr).evaluate({})
    except Exception:  # noqa: BLE001 - not a literal cel-python evaluates
        return None
    return str(value) if isinstance(value, str) else None


def _regex_literal_error(t: Any) -> str | None:
    """``CompileRegexConstants``' error: a regex function's literal pattern Go rejects."""
    for n in t.iter_subtrees():
        if n.data == "member_dot_arg" and len(n.children) == 3:
            name, args = str(n.children[1]), n.children[2].children
        elif n.data == "ident_arg" and len(n.children) == 2 and str(n.children[0]) == "matches":
            name, args = "matches", n.children[1].children[1:]
        else:
            continue
        pattern = _string_literal(args[0]) if name in _REGEX_FUNCTIONS and args else None
        if pattern is not None and (err := go_regexp_error(pattern)) is not None:
            return f"error parsing regexp: {err}"
    return None


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


def _compile_causes(
    i: int, rule: Obj, node: Obj, p: str, uncorrelatable: str | None, resource: bool, cost: _Cost | None = None
) -> list[Cause]:
    """``compileRule``'s errors for one rule, its estimated costs (``cost``: the schema's
    scope, the node's CEL type and cardinality), and the oldSelf checks on its result."""
    rp = f"{p}[{i}]"
    text, mexpr = str(rule.get("rule") or ""), str(rule.get("messageExpression") or "")
    if not text.strip():
        return []
    # field.Invalid(rule path, the rule, "compilation failed: " + issues) (compileRule).
    out = [fe.invalid(f"{rp}.rule", rule, err)] if (err := cel_error(text, _NAMES)) else []
    tree = _tree(text)
    if not out and tree is not None and (err := type_error(tree, node, resource, "bool")):
        detail = "cel expression must evaluate to a bool" if err == "wrong result type" else f"compilation failed: {err}"
        out.append(fe.invalid(f"{rp}.rule", rule, detail))
    if not out and tree is not None and (err := _regex_literal_error(tree)):
        out.append(fe.invalid(f"{rp}.rule", rule, f"program instantiation failed: {err}"))
    compiled = not out
    if compiled and cost is not None and tree is not None:
        out += cost[0].rule_cost_causes(tree, cost[1], cost[2], f"{rp}.rule")
    if compiled and mexpr:
        merr = cel_error(mexpr, _NAMES)
        if merr:
            out.append(fe.invalid(f"{rp}.messageExpression", rule, "messageExpression " + merr))
        mtree = _tree(mexpr)
        n_before = len(out)
        if not merr and mtree is not None and (err := type_error(mtree, node, resource, "string")):
            detail = "must evaluate to a string" if err == "wrong result type" else f"compilation failed: {err}"
            out.append(fe.invalid(f"{rp}.messageExpression", rule, f"messageExpression {detail}"))
        elif not merr and mtree is not None and (err := _regex_literal_error(mtree)):
            out.append(fe.invalid(f"{rp}.messageExpression", rule, f"messageExpression instantiation failed: {err}"))
        if not merr and len(out) == n_before and mtree is not None and cost is not None:
            out += cost[0].message_cost_causes(mtree, cost[1], f"{rp}.messageExpression")
    if compiled and tree is not None and _uses_old_self(tree):
        if uncorrelatable is not None:
            out.append(fe.invalid(f"{rp}.rule", text, f"oldSelf cannot be used on the uncorrelatable portion of the schema within {uncorrelatable}"))
    elif rule.get("optionalOldSelf") is not None:
        out.append(fe.invalid(f"{rp}.optionalOldSelf", rule["optionalOldSelf"], "may not be set if oldSelf is not used in rule"))
    return out


# A schema's cost scope, a node's CEL type and its cardinality (None: unbounded).
_Cost = tuple[CostScope, Decl | None, int | None]


def rule_causes(
    node: Obj,
    path: str,
    root: Obj,
    *,
    compile_rules: bool,
    preexisting: frozenset[str] = frozenset(),
    cost: CostScope | None = None,
) -> list[Cause]:
    """The causes of ``node``'s ``x-kubernetes-validations`` (``node`` is the schema at
    ``path``, ``root`` the whole ``openAPIV3Schema``). ``compile_rules``: the structural
    pass succeeded and the node's other schema checks (here and below) found nothing, so
    the rules are compiled, as upstream's non-nil ``celContext`` does; they are not when
    a rule's own checks fail. ``preexisting``: the old object's expressions. ``cost``: the
    schema's cost scope (estimated costs are checked and totalled only with one)."""
    rules = [as_dict(r) for r in as_list(node.get("x-kubernetes-validations"))]
    p = f"{path}.x-kubernetes-validations"
    out: list[Cause] = []
    for i, rule in enumerate(rules):
        out += _schema_causes(i, rule, node, p)
    if out or not compile_rules:
        return out
    uncorrelatable = _uncorrelatable(root, path)
    resource = path.endswith("openAPIV3Schema") or bool(node.get("x-kubernetes-embedded-resource"))
    scope: _Cost | None = None
    if cost is not None:
        scope = (cost, decl_type(node, resource), rule_max_cardinality(root, path))
    for i, rule in enumerate(rules):
        out += _compile_causes(i, rule, node, p, uncorrelatable, resource, scope)
    return out


_NUMBERS: Final = (IntType, UintType, DoubleType)


def _equal(a: Any, b: Any) -> BoolType:
    """cel-go's heterogeneous equality: values of different kinds are unequal (numbers
    compare by value), where cel-python finds no overload."""
    try:
        return cast(BoolType, bool_eq(a, b))
    except TypeError:
        return BoolType(isinstance(a, _NUMBERS) and isinstance(b, _NUMBERS) and a == b)


def _member(item: Any, container: Any) -> Any:
    """``in`` under heterogeneous equality: a list's items or a map's keys."""
    if isinstance(container, ListType | MapType):
        return BoolType(any(_equal(item, x) for x in container))
    return operator_in(item, container)


_HETEROGENEOUS: Final[dict[str, Any]] = {
    "_==_": _equal,
    "_!=_": lambda a, b: BoolType(not _equal(a, b)),
    "_in_": _member,
}


def _rule_verdict(rule: Obj, value: Any) -> str | None:
    """"false", an evaluation error's detail, or None (true, or no verdict)."""
    text = str(rule.get("rule") or "")
    tree = _tree(text)
    if tree is None or rule.get("optionalOldSelf") or not text.strip():
        return None
    cel_value = json_to_cel(value)
    try:
        result: Any = _ENV.program(tree, functions=_HETEROGENEOUS).evaluate({"self": cel_value, "oldSelf": cel_value})
    except CELEvalError as e:
        result = e
    except Exception:  # noqa: BLE001 - anything cel-python cannot evaluate: no verdict
        return None
    if isinstance(result, CELEvalError):
        return _eval_error(result, text)
    return "false" if isinstance(result, BoolType) and not result else None


# cel-python's failed string-to-number conversions (cel-go: a conversion error).
_BAD_CONVERSION: Final = ("invalid literal for int()", "could not convert string to float")
# cel-python's wording of an ordering between a string and a number (cel-go: no such overload).
_ORDER_MIXED: Final = re.compile(
    r"relation_(?:lt|le|gt|ge)'\) applied to '\(<class 'celpy\.celtypes\.(?:StringType'>, <class "
    r"'celpy\.celtypes\.(?:Int|Uint|Double)Type|(?:Int|Uint|Double)Type'>, <class 'celpy\.celtypes\.StringType)'>\)'"
)
# ... and of arithmetic on two primitives of different kinds (cel-go converts none).
_ARITHMETIC_MIXED: Final = re.compile(
    r"(?:addition|multiplication)_\w+'\) applied to '\(<class 'celpy\.celtypes\.(?:String|Int|Uint|Double|Bool)Type'>, "
    r"<class 'celpy\.celtypes\.(?:String|Int|Uint|Double|Bool)Type'>\)'"
)


def _eval_error(e: CELEvalError, rule: str) -> str | None:
    """The detail of a runtime error cel-go raises too (``validateExpressions``), else None:
    cel-python also fails where cel-go does not (library gaps)."""
    args = (*e.args, None, None, None)
    msg, cause, extra = str(args[0] or ""), args[1], args[2]
    mixed = _ORDER_MIXED.search(msg) or _ARITHMETIC_MIXED.search(msg)
    if (cause is TypeError and mixed) or msg.startswith("no such overload"):
        return (
            "'no such overload': call arguments did not match a supported operator, function or "
            f"macro signature for rule: {rule}"
        )
    if msg.startswith("no such"):
        what = "no such key"
    elif cause is ZeroDivisionError:
        what = "division by zero"
    elif cause is IndexError and extra == ("list index out of range",):
        what = "index out of bounds"
    elif cause is ValueError and extra == ("overflow",):
        what = "integer overflow"
    elif msg == "match error":
        what = "error parsing regexp"
    elif cause is ValueError and str((extra or ("",))[0]).startswith(_BAD_CONVERSION):
        what = "type conversion error"
    else:
        return None
    return f"{what} evaluating rule: {rule}"


def default_rule_causes(s: Obj, value: Any, path: str, *, is_resource_root: bool = False) -> list[Cause]:
    """The x-kubernetes-validations errors of ``value`` against ``s`` and below
    (``cel.Validator.Validate``), at ``path``."""
    if value is None:
        return []
    out: list[Cause] = []
    for rule in (as_dict(r) for r in as_list(s.get("x-kubernetes-validations"))):
        verdict = _rule_verdict(rule, value)
        if verdict is not None and verdict != "false":
            out.append(fe.invalid(path, value, verdict))
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
