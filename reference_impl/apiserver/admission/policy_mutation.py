"""MutatingAdmissionPolicy's patches: apiserver pkg/admission/plugin/policy/mutating/patch
(json_patch.go ``jsonPatcher.Patch`` over evanphx/json-patch v4, smd.go ``ApplyConfiguration``)
and the CEL object initializers of apiserver pkg/cel/mutation.

cel-python parses ``JSONPatch{op: "add"}`` and ``Object.spec{replicas: 3}`` but has no such
types; ``_rewrite`` turns each initializer into a map literal of its fields passed to a
hidden function that tags it with its type name (``TypedObject``), so a patch or an apply
configuration evaluates to maps whose names can still be checked. ApplyConfiguration merges
over the kind's OpenAPI schema as structured-merge-diff does (list-maps by key, sets as a
union, atomics replaced and refused in the configuration)."""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any, Final

import celpy
from celpy import celtypes, evaluation
from lark import Token, Tree

from reference_impl.apiserver import schema
from reference_impl.apiserver.admission.policy_cel import Activation, EvalResult
from reference_impl.apiserver.cel_authz import FUNCTIONS as AUTHZ_FUNCTIONS

__all__ = [
    "JSONPatchError",
    "TypedObject",
    "apply_configuration",
    "apply_json_patch",
    "escape_key",
    "evaluate_mutation",
    "to_json",
    "type_mismatches",
]

Obj = dict[str, Any]
_ENV: Final = celpy.Environment()


class JSONPatchError(Exception):
    """A patch that does not apply (``JSON Patch: ...``)."""


class _TestFailed(Exception):
    """evanphx ``ErrTestFailed``: the whole patch is dropped, not an error."""


def escape_key(_ns: Any, key: Any) -> celtypes.StringType:
    """``jsonpatch.escapeKey``: RFC 6901 escaping of one path segment."""
    return celtypes.StringType(str(key).replace("~", "~0").replace("/", "~1"))


def _key_expr(name: str) -> Any:
    return _ENV.compile('"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"')


class TypedObject(celtypes.MapType):
    """An initializer's value: a map that keeps its type name (``dynamic.ObjectVal``)."""

    type_name: str = ""


def _object(fields: Any, name: Any) -> TypedObject:
    out = TypedObject(fields)
    out.type_name = str(name)
    return out


def _type_name(member: Any) -> str:
    """The dotted name an initializer is written with (``Object.spec``)."""
    t = member
    while isinstance(t, Tree) and t.data in ("member", "primary") and len(t.children) == 1:
        t = t.children[0]
    if isinstance(t, Tree) and t.data == "ident":
        return str(t.children[0])
    if isinstance(t, Tree) and t.data == "member_dot" and len(t.children) == 2:
        return f"{_type_name(t.children[0])}.{t.children[1]}"
    return ""


def _rewrite(t: Any) -> Any:
    """Each ``member_object`` (``Name{f: v}``) becomes ``{"f": v}.@object("Name")``."""
    if not isinstance(t, Tree):
        return t
    children = [_rewrite(c) for c in t.children]
    if t.data != "member_object":
        return Tree(t.data, children, t.meta)
    inits: list[Any] = []
    for c in children[1:]:
        if isinstance(c, Tree) and c.data == "fieldinits":
            for i in range(0, len(c.children), 2):
                name = c.children[i]
                inits += [_key_expr(str(name.value if isinstance(name, Token) else name))]
                inits.append(c.children[i + 1])
    body = [Tree(Token("RULE", "mapinits"), inits)] if inits else []
    lit = Tree("member", [Tree("primary", [Tree(Token("RULE", "map_lit"), body)])])
    args = Tree("exprlist", [_key_expr(_type_name(children[0]))])
    return Tree("member_dot_arg", [lit, Token("IDENT", _OBJECT), args])


# Not a CEL identifier, so no expression can call it by name.
_OBJECT: Final = "@object"


def type_mismatches(v: Any, path: list[str] | None = None) -> list[str]:
    """``ObjectVal.CheckTypeNamesMatchFieldPathNames``: each nested initializer's name must
    be its field path from the outermost one."""
    if path is None:
        path = [v.type_name] if isinstance(v, TypedObject) else []
    errs: list[str] = []
    if isinstance(v, TypedObject):
        want = ".".join(path)
        if v.type_name != want:
            errs.append(
                f'unexpected type name "{v.type_name}", expected "{want}", which matches '
                "field name path from root Object type"
            )
        for k, x in v.items():
            errs += type_mismatches(x, [*path, str(k)])
    elif isinstance(v, list):
        for x in v:
            errs += type_mismatches(x, path)
    elif isinstance(v, dict):
        for x in v.values():
            errs += type_mismatches(x, path)
    return errs


def _string(v: Any) -> celtypes.StringType:
    """cel-go's ``string(bool)`` is ``true``/``false`` (celpy writes Python's ``True``)."""
    if isinstance(v, celtypes.BoolType):
        return celtypes.StringType("true" if v else "false")
    return celtypes.StringType(v)


def _eq(a: Any, b: Any) -> celtypes.BoolType:
    """cel-go's heterogeneous equality: values of different types are unequal, not an
    error (celpy refuses ``{"v": "1"} == {"v": 1}``)."""
    try:
        return celtypes.BoolType(bool(evaluation.bool_eq(a, b)))
    except (TypeError, ValueError):
        return celtypes.BoolType(False)


def _ne(a: Any, b: Any) -> celtypes.BoolType:
    return celtypes.BoolType(not _eq(a, b))


_FUNCTIONS: Final[dict[str, Any]] = {
    **AUTHZ_FUNCTIONS,  # mutations see ``authorizer`` (compilation.go HasAuthorizer)
    "escapeKey": escape_key,
    _OBJECT: _object,
    "string": _string,
    "_==_": _eq,
    "_!=_": _ne,
}


@lru_cache(maxsize=512)
def _compiled(expression: str) -> tuple[Any, Exception | None]:
    """The program, or the error compiling it (kept, so a failing expression is parsed once)."""
    try:
        return _ENV.program(_rewrite(_ENV.compile(expression)), functions=_FUNCTIONS), None
    except Exception as e:  # noqa: BLE001 - celpy raises several parse error types
        return None, e.with_traceback(None)


def evaluate_mutation(expression: str, act: Activation) -> EvalResult:
    """Evaluate a JSONPatch or ApplyConfiguration expression with initializers as maps."""
    program, err = _compiled(expression)
    if err is not None:
        text = str(err.args[0]) if err.args else type(err).__name__
        return EvalResult(error=f"compilation error: {text.strip().splitlines()[0]}")
    bindings = dict(act.bindings)
    bindings["jsonpatch"] = celtypes.MapType()
    try:
        out = program.evaluate(bindings)
    except Exception as e:  # noqa: BLE001 - CELEvalError and celpy's internal errors alike
        text = str(e.args[0]) if e.args else str(e)
        return EvalResult(error=f"expression '{expression}' resulted in error: {text}")
    return EvalResult(value=out)


def to_json(v: Any) -> Any:
    """A CEL value as plain JSON data (structpb.Value's marshalling)."""
    if v is None:
        return None
    if isinstance(v, celtypes.BoolType | bool):
        return bool(v)
    if isinstance(v, celtypes.MapType | dict):
        return {str(k): to_json(x) for k, x in v.items()}
    if isinstance(v, celtypes.ListType | list):
        return [to_json(x) for x in v]
    if isinstance(v, celtypes.StringType | str):
        return str(v)
    if isinstance(v, celtypes.DoubleType | float):
        f = float(v)
        return int(f) if f.is_integer() else f
    if isinstance(v, int):
        return int(v)
    raise JSONPatchError(
        "JSONPath valueExpression evaluated to a type that could not marshal to JSON"
    )


_MISSING: Final = "missing value"  # evanphx ErrMissing
_BAD_INDEX: Final = "invalid index referenced"  # ErrInvalidIndex


def _unescape(seg: str) -> str:
    return seg.replace("~1", "/").replace("~0", "~")


def _atoi(key: str) -> int:
    try:
        return int(key, 10)
    except ValueError:
        raise JSONPatchError(f'strconv.Atoi: parsing "{key}": invalid syntax') from None


def _index(con: list[Any], key: str, size: int) -> int:
    """An array index, negative ones counted from the end (SupportNegativeIndices)."""
    idx = _atoi(key)
    if idx >= size or idx < -size:
        raise JSONPatchError(f"Unable to access invalid index: {idx}: {_BAD_INDEX}")
    return idx + size if idx < 0 else idx


def _get(con: Any, key: str) -> Any:
    """``container.get``: a missing map key reads as null; a bad array index is an error."""
    if isinstance(con, dict):
        return con.get(key)
    return con[_index(con, key, len(con))]


def _parent(doc: Any, path: str) -> tuple[Any, str]:
    """evanphx ``findObject``: the container holding the path's last segment, or None."""
    split = path.split("/")
    if len(split) < 2:
        return None, ""
    cur = doc
    for part in split[1:-1]:
        try:
            cur = _get(cur, _unescape(part))
        except JSONPatchError:
            return None, ""
        if not isinstance(cur, dict | list):
            return None, ""
    return cur, _unescape(split[-1])


def _add(con: Any, key: str, value: Any) -> None:
    if isinstance(con, dict):
        con[key] = value
    elif key == "-":
        con.append(value)
    else:
        try:
            idx = _atoi(key)
        except JSONPatchError as e:
            raise JSONPatchError(f"value was not a proper array index: '{key}': {e}") from None
        con.insert(_index(con, str(idx), len(con) + 1), value)


def _remove(con: Any, key: str) -> None:
    if isinstance(con, dict):
        if key not in con:
            raise JSONPatchError(f"Unable to remove nonexistent key: {key}: {_MISSING}")
        del con[key]
    else:
        del con[_index(con, key, len(con))]


def _wrap(prefix: str, fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except JSONPatchError as e:
        raise JSONPatchError(f"{prefix}: {e}") from None


def _apply_op(doc: Obj, op: Obj) -> None:
    """One operation of evanphx v4 ``Patch.ApplyIndent``, with its error texts."""
    kind, path = str(op.get("op") or ""), str(op.get("path") or "")
    if kind in ("move", "copy"):
        frm = str(op.get("from") or "")
        con, key = _parent(doc, frm)
        if con is None:
            raise JSONPatchError(f"{kind} operation does not apply: doc is missing from path: {frm}: {_MISSING}")  # fmt: skip
        if kind == "move":
            val = _wrap(f"error in move for path: '{key}'", _get, con, key)
            _wrap(f"error in move for path: '{key}'", _remove, con, key)
        else:
            val = copy.deepcopy(_wrap(f"error in copy for from: '{frm}'", _get, con, key))
        con, key = _parent(doc, path)
        if con is None:
            raise JSONPatchError(f"{kind} operation does not apply: doc is missing destination path: {path}: {_MISSING}")  # fmt: skip
        where = f"error in move for path: '{path}'" if kind == "move" else "error while adding value during copy"  # fmt: skip
        _wrap(where, _add, con, key, val)
        return
    con, key = _parent(doc, path)
    if kind == "add":
        if con is None:
            raise JSONPatchError(f'add operation does not apply: doc is missing path: "{path}": {_MISSING}')  # fmt: skip
        _wrap(f"error in add for path: '{path}'", _add, con, key, copy.deepcopy(op.get("value")))
    elif kind == "remove":
        if con is None:
            raise JSONPatchError(f'remove operation does not apply: doc is missing path: "{path}": {_MISSING}')  # fmt: skip
        _wrap(f"error in remove for path: '{path}'", _remove, con, key)
    elif kind == "replace":
        if con is None:
            raise JSONPatchError(f"replace operation does not apply: doc is missing path: {path}: {_MISSING}")  # fmt: skip
        try:
            _get(con, key)
        except JSONPatchError:
            raise JSONPatchError(f"replace operation does not apply: doc is missing key: {path}: {_MISSING}") from None  # fmt: skip
        if isinstance(con, dict):
            con[key] = copy.deepcopy(op.get("value"))
        else:
            con[_index(con, key, len(con))] = copy.deepcopy(op.get("value"))
    elif kind == "test":
        if con is None:
            raise JSONPatchError(f"test operation does not apply: is missing path: {path}: {_MISSING}")  # fmt: skip
        if _wrap(f"error in test for path: '{path}'", _get, con, key) != op.get("value"):
            raise _TestFailed
    else:
        raise JSONPatchError(f"Unexpected kind: {kind}")


def apply_json_patch(obj: Obj, patch: list[Obj]) -> Obj:
    """``jsonPatcher.Patch`` after evaluation: the patched copy of ``obj``; a failed test
    operation leaves the object as it was."""
    doc = copy.deepcopy(obj)
    try:
        for op in patch:
            _apply_op(doc, op)
    except _TestFailed:
        return obj
    except JSONPatchError as e:
        raise JSONPatchError(f"JSON Patch: {e}") from None
    return doc


def _resolve(node: Any) -> Any:
    """The schema node behind ``$ref`` / a single ``allOf``."""
    defs = schema.definitions()
    while isinstance(node, dict):
        ref = node.get("$ref") or ((node.get("allOf") or [{}])[0].get("$ref") if len(node.get("allOf") or []) == 1 else None)  # fmt: skip
        if not ref:
            break
        node = defs.get(str(ref).rpartition("/")[2])
    return node if isinstance(node, dict) else None


def _atomic(node: Any) -> bool:
    if node is None:
        return False
    if "properties" in node or isinstance(node.get("additionalProperties"), dict):
        return bool(node.get("x-kubernetes-map-type") == "atomic")
    if "items" in node:  # a list without listType is atomic (structured-merge-diff)
        return node.get("x-kubernetes-list-type") not in ("map", "set")
    return False


def _field(node: Any, key: str) -> tuple[bool, Any]:
    """The schema of field ``key`` (False: not declared)."""
    if node is None:
        return True, None
    props = node.get("properties")
    if isinstance(props, dict) and key in props:
        return True, _resolve(props[key])
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        return True, _resolve(extra)
    return props is None, None


def _check(v: Any, node: Any, path: str, atomics: list[str]) -> None:
    """``ObjectToTyped`` (undeclared fields) and smd.go ``findAtomics``."""
    if isinstance(v, dict) and (node is None or "items" not in node):
        if _atomic(node):
            atomics.append(path)
        for k, x in v.items():
            ok, sub = _field(node, k)
            if not ok:
                raise JSONPatchError(
                    "error applying patch: failed to convert patch object to typed object: "
                    f"{path}.{k}: field not declared in schema"
                )
            _check(x, sub, f"{path}.{k}", atomics)
    elif isinstance(v, list) and node is not None and "items" in node:
        if _atomic(node):
            atomics.append(path)
        for i, x in enumerate(v):
            _check(x, _resolve(node["items"]), f"{path}[{i}]", atomics)


def _merge(live: Any, cfg: Any, node: Any) -> Any:
    """``TypedValue.Merge``: structs and granular maps field by field, list-maps by key,
    sets as a union; atomics and scalars take the configuration's value."""
    if isinstance(live, dict) and isinstance(cfg, dict) and not _atomic(node):
        out = dict(live)
        for k, v in cfg.items():
            out[k] = _merge(live.get(k), v, _field(node, k)[1])
        return out
    if isinstance(live, list) and isinstance(cfg, list) and node is not None and not _atomic(node):
        if node.get("x-kubernetes-list-type") == "set":
            return live + [x for x in cfg if x not in live]
        keys = node.get("x-kubernetes-list-map-keys") or []
        item = _resolve(node.get("items"))
        merged = list(live)
        for c in cfg:
            ident = [c.get(k) if isinstance(c, dict) else None for k in keys]
            same = [i for i, x in enumerate(merged) if isinstance(x, dict) and [x.get(k) for k in keys] == ident]  # fmt: skip
            if not same:
                merged.append(copy.deepcopy(c))
                continue
            # Duplicates of a key the configuration sets collapse into one entry.
            merged[same[0]] = _merge(merged[same[0]], c, item)
            for i in reversed(same[1:]):
                del merged[i]
        return merged
    return copy.deepcopy(cfg)


def apply_configuration(obj: Obj, config: Obj) -> Obj:
    """smd.go ``ApplyStructuredMergeDiff`` over the kind's OpenAPI schema (a kind without
    one merges as a deduced type: maps merge, lists are atomic): the configuration may not
    set atomic lists, maps or structs; it is then merged into ``obj``."""
    root = schema.kind_schema(str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""))
    atomics: list[str] = []
    _check(config, root, "", atomics)
    if atomics:
        raise JSONPatchError(
            "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, "
            f"maps or structs: {', '.join(atomics)}"
        )
    return dict(_merge(obj, config, root))
