"""Structural validation against the kubernetes-validate 1.37 strict OpenAPI schemas.

The strict schemas set ``additionalProperties: false``, so unknown fields are rejected as
the apiserver does with ``fieldValidation=Strict``. The shared definitions are loaded once.
Each kind is compiled on first use by fastjsonschema (to Python code, about 2,000 times
faster than interpreting the schema); only an object that fails is re-checked with
jsonschema, which lists every error with its path.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, Final

import fastjsonschema
import jsonschema
from referencing import Registry, Resource

from reference_impl.errors import Cause

__all__ = ["SCHEMA_VERSION", "definitions", "field_valid", "kind_schema", "schema_errors"]

SCHEMA_VERSION: Final = "v1.37.0-local-strict"


def _schema_dir() -> Any:
    return resources.files("kubernetes_validate").joinpath("kubernetes-json-schema", SCHEMA_VERSION)


@cache
def _registry() -> Registry[Any]:
    defs = json.loads(_schema_dir().joinpath("_definitions.json").read_text("utf-8"))
    defs["$defs"] = _as_decoded(dict(defs["$defs"]))
    # The kind files point at "/api/_definitions.json#/$defs/..."; register it under that URI.
    resource: Resource[Any] = Resource.from_contents(defs)
    registry: Registry[Any] = Registry().with_resource("/api/_definitions.json", resource)
    # Crawled once here: an uncrawled registry re-crawls the 1.37 definitions on every
    # lookup of every validator (about 0.1 s per failing object).
    return registry.crawl()


def _file_name(api_version: str, kind: str) -> str:
    group, _, version = api_version.rpartition("/")
    short = group.split(".")[0]
    return f"{kind.lower()}-{short}-{version}.json" if group else f"{kind.lower()}-{version}.json"


_LOCAL_REF: Final = "#/$defs/"


def _refs(node: Any, out: set[str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_LOCAL_REF):
            out.add(ref[len(_LOCAL_REF) :])
        for v in node.values():
            _refs(v, out)
    elif isinstance(node, list):
        for v in node:
            _refs(v, out)


@cache
def _local_defs() -> dict[str, Any]:
    text = _schema_dir().joinpath("_definitions.json").read_text("utf-8")
    defs: dict[str, Any] = json.loads(text.replace("/api/_definitions.json#/$defs/", _LOCAL_REF))
    return _as_decoded(dict(defs["$defs"]))


# Definitions whose ``required`` lists the typed decoder never enforces: upstream's
# validation code checks those fields itself, with its own paths and error types.
_UNENFORCED_REQUIRED: Final = ("io.k8s.api.resource.",)
_RAW_EXTENSION: Final = "io.k8s.apimachinery.pkg.runtime.RawExtension"


def _as_decoded(defs: dict[str, Any]) -> dict[str, Any]:
    """The definitions as the apiserver's decoder applies them: a ``RawExtension`` holds
    any JSON value (validation then asks for an object), and the resource.k8s.io types'
    OpenAPI ``required`` lists are left to validation."""
    for name, d in defs.items():
        if name.startswith(_UNENFORCED_REQUIRED) and isinstance(d, dict):
            d.pop("required", None)
    if isinstance(defs.get(_RAW_EXTENSION), dict):
        defs[_RAW_EXTENSION] = {"description": defs[_RAW_EXTENSION].get("description", "")}
    return defs


def _no_remote(uri: str) -> Any:
    raise LookupError(f"schema reference {uri} is not local; the reference never fetches")


def _kind_schema(api_version: str, kind: str) -> dict[str, Any] | None:
    path = _schema_dir().joinpath(_file_name(api_version, kind))
    if not path.is_file():
        return None
    text = path.read_text("utf-8").replace("/api/_definitions.json#/$defs/", _LOCAL_REF)
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def kind_schema(api_version: str, kind: str) -> dict[str, Any] | None:
    """The kind's root schema with local references (shared: callers must not mutate it)."""
    return _kind_schema(api_version, kind)


def definitions() -> dict[str, Any]:
    """The shared definitions by name (shared: callers must not mutate them)."""
    return _local_defs()


def _compile(schema: dict[str, Any], uid: str) -> Any:
    defs = _local_defs()
    # Only the definitions this schema reaches, so the generated code stays small.
    need: set[str] = set()
    _refs(schema, need)
    todo = list(need)
    while todo:
        found: set[str] = set()
        _refs(defs[todo.pop()], found)
        todo.extend(found - need)
        need |= found
    schema["$defs"] = {n: defs[n] for n in sorted(need)}
    # A unique id per schema: fastjsonschema's resolver must not mix up two documents.
    schema["$id"] = uid
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    handlers = {"http": _no_remote, "https": _no_remote}
    try:
        return fastjsonschema.compile(schema, handlers=handlers, use_formats=False)
    except (LookupError, fastjsonschema.JsonSchemaDefinitionException):
        return False  # this kind keeps to the slow path


@cache
def _fast(api_version: str, kind: str) -> Any:
    schema = _kind_schema(api_version, kind)
    if schema is None:
        return None
    return _compile(schema, f"urn:garhwal:{api_version}:{kind}")


# Root keywords that constrain each top-level field on its own (nothing across fields).
_PER_FIELD_ROOT: Final = frozenset(
    {"properties", "type", "additionalProperties", "description", "$schema", "$id"}
)


@cache
def _fast_field(api_version: str, kind: str, field: str) -> Any:
    """A compiled validator for one top-level field of a kind, or None when the kind's
    root schema is not per-field (then only the whole object can be checked)."""
    schema = _kind_schema(api_version, kind)
    if schema is None or any(
        k not in _PER_FIELD_ROOT and not k.startswith("x-kubernetes-") for k in schema
    ):
        return None
    sub = (schema.get("properties") or {}).get(field)
    if not isinstance(sub, dict) or schema.get("type") != "object":
        return None
    compiled = _compile(dict(sub), f"urn:garhwal:{api_version}:{kind}:{field}")
    return compiled or None


def field_valid(manifest: dict[str, Any], field: str) -> bool:
    """Whether ``manifest[field]`` alone satisfies its kind's strict schema for that field.

    False also when that cannot be told apart from the rest (no per-field schema): the
    caller then checks the whole object with ``schema_errors``, which names the paths."""
    if not isinstance(manifest.get(field), dict):
        return False
    fast = _fast_field(str(manifest.get("apiVersion")), str(manifest.get("kind")), field)
    if fast is None:
        return False
    try:
        fast(manifest[field])
    except fastjsonschema.JsonSchemaValueException:
        return False
    return True


@cache
def _validator(api_version: str, kind: str) -> jsonschema.protocols.Validator | None:
    path = _schema_dir().joinpath(_file_name(api_version, kind))
    if not path.is_file():
        return None
    schema = json.loads(path.read_text("utf-8"))
    cls = jsonschema.validators.Draft202012Validator
    validator: jsonschema.protocols.Validator = cls(schema, registry=_registry())
    return validator


def _path(parts: Any) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _cause(err: jsonschema.ValidationError) -> Cause:
    field = _path(err.absolute_path)
    if err.validator == "additionalProperties":
        known: Any = err.schema.get("properties", {}) if isinstance(err.schema, dict) else {}
        instance: Any = err.instance
        extra = sorted(set(instance) - set(known))
        name = extra[0] if extra else "?"
        full = f"{field}.{name}" if field else name
        return Cause(full, "FieldValueUnknown", f'unknown field "{full}"')
    if err.validator == "required":
        missing = str(err.message).split("'")[1] if "'" in err.message else "?"
        full = f"{field}.{missing}" if field else missing
        return Cause(full, "FieldValueRequired", "Required value")
    if err.validator == "type":
        want = err.validator_value
        want_s = "/".join(w for w in want if w != "null") if isinstance(want, list) else want
        got = type(err.instance).__name__
        return Cause(
            field, "FieldValueTypeInvalid", f"expected {want_s}, got {got} {err.instance!r}"
        )
    if err.validator == "enum":
        return Cause(field, "FieldValueNotSupported", f"supported values: {err.validator_value}")
    return Cause(field, "FieldValueInvalid", err.message)


def _best(err: jsonschema.ValidationError) -> jsonschema.ValidationError:
    # oneOf/anyOf (e.g. IntOrString) report sub-errors; the deepest one names the field best.
    if err.context:
        return _best(max(err.context, key=lambda e: len(e.absolute_path)))
    return err


def schema_errors(manifest: dict[str, Any]) -> list[Cause] | None:
    """Field errors of ``manifest`` against its strict schema; None if 1.37 has no schema."""
    fast = _fast(str(manifest.get("apiVersion")), str(manifest.get("kind")))
    if fast is None:
        return None
    if fast is not False:
        try:
            fast(manifest)
            return []
        except fastjsonschema.JsonSchemaValueException:
            pass
    validator = _validator(str(manifest.get("apiVersion")), str(manifest.get("kind")))
    if validator is None:
        return None
    errors = sorted(validator.iter_errors(manifest), key=lambda e: list(map(str, e.absolute_path)))
    # Upstream's decoder never requires a field: a missing one is the semantic validation's
    # to report (Required at its path, or nothing where upstream defaults or allows it).
    return [_cause(b) for b in map(_best, errors) if b.validator != "required"]
