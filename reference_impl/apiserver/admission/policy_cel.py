"""Admission CEL evaluation with cel-python: apiserver pkg/admission/plugin/cel (activation.go,
condition.go's ``CreateAdmissionRequest``/``CreateNamespaceObject``, composition.go's
variables) as the ValidatingAdmissionPolicy plugin uses it.

Variables are evaluated in order before the expressions; one that fails holds its error,
which surfaces only where an expression reads it (upstream's lazy composition). The
``authorizer`` variable and its library come from ``cel_authz``."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

import celpy
from celpy import celtypes
from celpy.adapter import json_to_cel
from celpy.evaluation import CELEvalError

from reference_impl.apiserver import conversion
from reference_impl.apiserver.cel_authz import FUNCTIONS as AUTHZ_FUNCTIONS
from reference_impl.apiserver.cel_authz import AuthorizerVal
from reference_impl.apiserver.user_info import UserInfo, admission_user_info

__all__ = [
    "Activation",
    "CelInputs",
    "EvalResult",
    "compile_error",
    "evaluate",
    "request_of",
    "type_name",
    "versioned",
]

Obj = dict[str, Any]
_ENV: Final = celpy.Environment()
_NO_KEY: Final = re.compile(r"no such member in mapping: '([^']*)'")


@dataclass(frozen=True, slots=True)
class EvalResult:
    """One expression's outcome: ``value`` (a Python value) or ``error`` (upstream's detail)."""

    value: Any = None
    error: str = ""


@lru_cache(maxsize=1024)
def _compiled(expression: str) -> tuple[Any, Exception | None]:
    """The program, or the error compiling it: kept together, as lru_cache keeps no
    exceptions, so a failing expression is parsed once, not on every evaluation."""
    try:
        return _ENV.program(_ENV.compile(expression), functions=AUTHZ_FUNCTIONS), None
    except Exception as e:  # noqa: BLE001 - celpy raises several parse error types
        return None, e.with_traceback(None)  # the text is all that is read; drop the frames


def compile_error(expression: str) -> str:
    """``compilation error: ...`` when ``expression`` does not parse, else ""."""
    e = _compiled(expression)[1]
    if e is None:
        return ""
    text = str(e.args[0]) if e.args else type(e).__name__
    first = text.strip().splitlines()[0]
    return f"compilation error: compilation failed: ERROR: <input>: Syntax error: {first}"


def _detail(err: BaseException) -> str:
    """cel-go's wording for the errors cel-python names otherwise (``no such key: x``)."""
    text = str(err.args[0]) if err.args else str(err)
    m = _NO_KEY.search(text)
    return f"no such key: {m.group(1)}" if m else text


_TYPE_NAMES: Final = (
    (celtypes.BoolType, "bool"),
    (celtypes.IntType, "int"),
    (celtypes.UintType, "uint"),
    (celtypes.DoubleType, "double"),
    (celtypes.StringType, "string"),
    (celtypes.BytesType, "bytes"),
    (celtypes.ListType, "list(dyn)"),
    (celtypes.MapType, "map(string, dyn)"),
)


def type_name(v: Any) -> str:
    """cel-go's name for the type of a value (what compile.go's return-type check reports)."""
    if v is None:
        return "null_type"
    if isinstance(getattr(v, "cel_type", None), str):  # the authz library's types
        return str(v.cel_type)
    return next((name for t, name in _TYPE_NAMES if isinstance(v, t)), "dyn")


def _to_py(v: Any) -> Any:
    if isinstance(v, celtypes.BoolType):
        return bool(v)
    if isinstance(v, celtypes.StringType):
        return str(v)
    return v


class CelInputs:
    """One write's admission inputs as CEL values, each converted when first read and then
    shared, read-only, by every policy, binding and param that reads it (upstream converts
    them for every evaluation; the values are the same). Keyed by the source's identity:
    a source must not change while this lives, and is kept here so no identity is reused."""

    __slots__ = ("_cel", "_namespaces", "_versioned")

    def __init__(self) -> None:
        self._cel: dict[int, tuple[object, Any]] = {}
        self._namespaces: dict[int, tuple[object, Any]] = {}
        self._versioned: dict[tuple[int, tuple[str, str, str]], tuple[object, Obj | None]] = {}

    def cel(self, value: Obj | None) -> Any:
        """``json_to_cel(value)``."""
        hit = self._cel.get(id(value))
        if hit is None or hit[0] is not value:
            hit = self._cel[id(value)] = (value, json_to_cel(value))
        return hit[1]

    def namespace_object(self, ns: Obj | None) -> Any:
        """``json_to_cel`` of ``CreateNamespaceObject(ns)``."""
        hit = self._namespaces.get(id(ns))
        if hit is None or hit[0] is not ns:
            hit = self._namespaces[id(ns)] = (ns, json_to_cel(_namespace_object(ns)))
        return hit[1]

    def versioned(self, obj: Obj | None, gvk: tuple[str, str, str]) -> Obj | None:
        """``versioned(obj, gvk)``, converted once per version; the copy is read-only."""
        key = (id(obj), gvk)
        hit = self._versioned.get(key)
        if hit is None or hit[0] is not obj:
            hit = self._versioned[key] = (obj, versioned(obj, gvk))
        return hit[1]


_CONVERT: Final = object()  # Activation's ``object_cel`` default: convert ``obj``


class Activation:
    """The bindings of one evaluation: object, oldObject, request, params, namespaceObject,
    authorizer (where bound) and the composition's variables (activation.go
    ``evaluationActivation``). ``inputs``: the write's converted values, to share;
    ``object_cel``: ``obj`` already converted."""

    def __init__(
        self,
        obj: Obj | None,
        old: Obj | None,
        request: Obj,
        params: Obj | None,
        namespace: Obj | None,
        authorizer: AuthorizerVal | None = None,
        *,
        inputs: CelInputs | None = None,
        object_cel: Any = _CONVERT,
    ) -> None:
        if inputs is None:
            self.bindings: dict[str, Any] = {
                "object": json_to_cel(obj) if object_cel is _CONVERT else object_cel,
                "oldObject": json_to_cel(old),
                "request": json_to_cel(request),
                "params": json_to_cel(params),
                "namespaceObject": json_to_cel(_namespace_object(namespace)),
            }
        else:
            self.bindings = {
                "object": inputs.cel(obj) if object_cel is _CONVERT else object_cel,
                "oldObject": inputs.cel(old),
                "request": inputs.cel(request),
                "params": inputs.cel(params),
                "namespaceObject": inputs.namespace_object(namespace),
            }
        if authorizer is not None:  # OptionalVariableBindings.Authorizer
            self.bindings["authorizer"] = authorizer

    def with_variables(self, variables: list[tuple[str, str]]) -> None:
        """Bind ``variables`` (name, expression) in order; a failing one holds its error."""
        values = celtypes.MapType()
        self.bindings["variables"] = values
        for name, expression in variables:
            program, err = _compiled(expression)
            if err is None:
                value = _evaluate_variable(program, self.bindings)
            elif isinstance(err, CELEvalError):
                value = err
            else:  # a parse error, found at policy compile
                value = CELEvalError(str(err), type(err), None)
            values[celtypes.StringType(name)] = value


def _evaluate_variable(program: Any, bindings: dict[str, Any]) -> Any:
    """A variable's value, or the error it holds."""
    try:
        return program.evaluate(bindings)
    except CELEvalError as e:
        return e
    except Exception as e:  # noqa: BLE001 - celpy's internal errors alike
        return CELEvalError(str(e), type(e), None)


def evaluate(expression: str, act: Activation) -> EvalResult:
    """Evaluate ``expression``; an error is activation.go's ``expression '<e>' resulted in
    error: <err>``."""
    program, err = _compiled(expression)
    if err is None:
        try:
            out = program.evaluate(act.bindings)
        except Exception as e:  # noqa: BLE001 - CELEvalError and celpy's internal errors alike
            err = e
        else:
            return EvalResult(value=_to_py(out))
    return EvalResult(error=f"expression '{expression}' resulted in error: {_detail(err)}")


def _namespace_object(ns: Obj | None) -> Obj | None:
    """``CreateNamespaceObject``: the namespace's metadata subset, spec and status."""
    if ns is None:
        return None
    meta = ns.get("metadata") or {}
    keep = ("name generateName namespace uid resourceVersion generation creationTimestamp "
            "deletionTimestamp deletionGracePeriodSeconds labels annotations finalizers").split()  # fmt: skip
    out: Obj = {"metadata": {k: meta[k] for k in keep if k in meta}}
    for part in ("spec", "status"):
        if part in ns:
            out[part] = ns[part]
    return out


def request_of(
    *,
    op: str,
    kind: tuple[str, str, str],
    resource: tuple[str, str, str],
    request_kind: tuple[str, str, str],
    request_resource: tuple[str, str, str],
    subresource: str,
    name: str,
    namespace: str,
    user: UserInfo | None = None,
    dry_run: bool = False,
) -> Obj:
    """``CreateAdmissionRequest``: the matched (equivalent) kind/resource, the request's
    own, the requesting user (``{}`` when the request has none) and ``IsDryRun``."""

    def gvk(t: tuple[str, str, str]) -> Obj:
        return {"group": t[0], "version": t[1], "kind": t[2]}

    def gvr(t: tuple[str, str, str]) -> Obj:
        return {"group": t[0], "version": t[1], "resource": t[2]}

    return {
        "kind": gvk(kind),
        "resource": gvr(resource),
        "subResource": subresource,
        "requestKind": gvk(request_kind),
        "requestResource": gvr(request_resource),
        "requestSubResource": subresource,
        "name": name,
        "namespace": namespace,
        "operation": op,
        "userInfo": admission_user_info(user),
        "dryRun": dry_run,
    }


def versioned(obj: Obj | None, gvk: tuple[str, str, str]) -> Obj | None:
    """``VersionedAttributes``: the (storage-version) object converted to the matched
    group/version, as policies see it; a copy only where the versions differ."""
    if obj is None:
        return None
    api_version = f"{gvk[0]}/{gvk[1]}" if gvk[0] else gvk[1]
    if obj.get("apiVersion") == api_version:
        return obj
    return conversion.convert(copy.deepcopy(obj), api_version)
