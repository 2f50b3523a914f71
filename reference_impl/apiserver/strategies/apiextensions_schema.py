"""CustomResourceDefinition schemas: ``validateCustomResourceDefinitionValidation`` and
``ValidateCustomResourceDefinitionOpenAPISchema`` of upstream v1.37.2.

The schema arrives in the v1 wire shape; a JSON ``null`` reads as an absent field (Go's
decoder leaves the pointer, slice or map nil) and an empty ``[]`` or ``{}`` as a present
one, as the internal ``JSONSchemaProps`` tells them apart.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final

from reference_impl.apiserver.strategies.apiextensions_cel import rule_causes
from reference_impl.apiserver.strategies.apiextensions_cel_cost import CostScope
from reference_impl.apiserver.strategies.apiextensions_structural import structural_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list
from reference_impl.errors import Cause

__all__ = ["SchemaOptions", "validation_causes"]

Obj = dict[str, Any]

_OPENAPI_V3_TYPES: Final = ("array", "boolean", "integer", "number", "object", "string")
_META_FIELDS: Final = frozenset({"metadata", "kind", "apiVersion"})
_LIST_TYPES: Final = ("atomic", "set", "map")
_MAP_TYPES: Final = ("atomic", "granular")

# The internal JSONSchemaProps fields in struct order, by wire name, with how Go tells a
# zero value: "s" string, "b" bool, "p" pointer, slice or map (nil unless given).
_FIELDS: Final = (
    ("id", "s", "ID"), ("$schema", "s", "Schema"), ("$ref", "p", "Ref"),
    ("description", "s", "Description"), ("type", "s", "Type"), ("nullable", "b", "Nullable"),
    ("format", "s", "Format"), ("title", "s", "Title"), ("default", "p", "Default"),
    ("maximum", "p", "Maximum"), ("exclusiveMaximum", "b", "ExclusiveMaximum"),
    ("minimum", "p", "Minimum"), ("exclusiveMinimum", "b", "ExclusiveMinimum"),
    ("maxLength", "p", "MaxLength"), ("minLength", "p", "MinLength"),
    ("pattern", "s", "Pattern"), ("maxItems", "p", "MaxItems"), ("minItems", "p", "MinItems"),
    ("uniqueItems", "b", "UniqueItems"), ("multipleOf", "p", "MultipleOf"),
    ("enum", "p", "Enum"), ("maxProperties", "p", "MaxProperties"),
    ("minProperties", "p", "MinProperties"), ("required", "p", "Required"),
    ("items", "p", "Items"), ("allOf", "p", "AllOf"), ("oneOf", "p", "OneOf"),
    ("anyOf", "p", "AnyOf"), ("not", "p", "Not"), ("properties", "p", "Properties"),
    ("additionalProperties", "p", "AdditionalProperties"),
    ("patternProperties", "p", "PatternProperties"), ("dependencies", "p", "Dependencies"),
    ("additionalItems", "p", "AdditionalItems"), ("definitions", "p", "Definitions"),
    ("externalDocs", "p", "ExternalDocs"), ("example", "p", "Example"),
    ("x-kubernetes-preserve-unknown-fields", "p", "XPreserveUnknownFields"),
    ("x-kubernetes-embedded-resource", "b", "XEmbeddedResource"),
    ("x-kubernetes-int-or-string", "b", "XIntOrString"),
    ("x-kubernetes-list-map-keys", "p", "XListMapKeys"),
    ("x-kubernetes-list-type", "p", "XListType"), ("x-kubernetes-map-type", "p", "XMapType"),
    ("x-kubernetes-validations", "p", "XValidations"),
)  # fmt: skip
_ALLOWED_AT_ROOT: Final = (
    "Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum",
    "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems",
    "UniqueItems", "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example",
    "XPreserveUnknownFields", "XValidations",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class SchemaOptions:
    """Upstream's ``validationOptions`` fields that schema validation reads (the spec
    validator fills them; an update ratchets them from the old object)."""

    allow_defaults: bool = True
    disallow_defaults_reason: str = ""
    require_valid_property_type: bool = True
    require_structural_schema: bool = True
    require_pruned_defaults: bool = True
    require_atomic_set_type: bool = True
    require_map_list_keys_map_set_validation: bool = True
    # CEL expressions of the old object (an update may keep them as they are).
    preexisting_rules: frozenset[str] = frozenset()
    preexisting_message_expressions: frozenset[str] = frozenset()
    # Versions an update leaves with the schema they had (``versionsWithUnchangedSchemas``)
    # and, for the schema at hand, ``suppressPerExpressionCost``.
    unchanged_schema_versions: frozenset[str] = frozenset()
    suppress_per_expression_cost: bool = False

    def for_version(self, version: Any) -> SchemaOptions:
        """``suppressExpressionCostForUnchangedSchema``."""
        if version in self.unchanged_schema_versions:
            return replace(self, suppress_per_expression_cost=True)
        return self


@dataclass(frozen=True, slots=True)
class _Ssv:
    """``specStandardValidatorV3``: what the walk carries down to a node."""

    allow_defaults: bool
    disallow_defaults_reason: str
    require_valid_property_type: bool
    inside_resource_meta: bool = False

    def forbidden_defaults(self, reason: str) -> _Ssv:
        return replace(self, allow_defaults=False, disallow_defaults_reason=reason)


@dataclass(slots=True)
class _Errs:
    """``OpenAPISchemaErrorList``: schema errors and CEL errors apart."""

    schema: list[Cause]
    cel: list[Cause]

    def add(self, other: _Errs) -> None:
        self.schema += other.schema
        self.cel += other.cel


@dataclass(frozen=True, slots=True)
class _Walk:
    """What stays the same over one schema's walk."""

    opts: SchemaOptions
    root: Obj
    cost: CostScope | None = None  # None: no CEL context (rules are not compiled)


def _has(node: Obj, key: str) -> bool:
    """A pointer, slice or map field is non-nil."""
    return node.get(key) is not None


def _str(node: Obj, key: str) -> str:
    v = node.get(key)
    return v if isinstance(v, str) else ""


def _true(node: Obj, key: str) -> bool:
    return node.get(key) is True


def _nonzero(node: Obj, key: str, kind: str) -> bool:
    if kind == "s":
        return _str(node, key) != ""
    if kind == "b":
        return _true(node, key)
    return _has(node, key)


def _items(node: Obj) -> tuple[bool, Obj | None, list[Any]]:
    """``items`` (``JSONSchemaPropsOrArray``): whether it is set, its single schema, its
    array of schemas."""
    v = node.get("items")
    if v is None:
        return False, None, []
    return True, v if isinstance(v, dict) else None, v if isinstance(v, list) else []


def _or_bool(v: Any) -> tuple[bool, Obj | None]:
    """``JSONSchemaPropsOrBool``: allows, schema."""
    if isinstance(v, dict):
        return True, v
    return v is True, None


def validation_causes(
    validation: Obj | None, status_enabled: bool, opts: SchemaOptions, path: str
) -> list[Cause]:
    """``validateCustomResourceDefinitionValidation``: ``validation`` is a
    CustomResourceValidation (``{"openAPIV3Schema": {...}}``) at ``path`` (for example
    ``spec.validation`` or ``spec.versions[1].schema``)."""
    if validation is None:
        return []
    schema = validation.get("openAPIV3Schema")
    if not isinstance(schema, dict):
        # A nil schema builds a validator that accepts anything.
        return []
    sp = f"{path}.openAPIV3Schema"
    errs: list[Cause] = []
    if status_enabled:
        errs += _status_root_causes(schema, sp)
    if _true(schema, "nullable"):
        errs.append(fe.forbidden(f"{sp}.nullable", "nullable cannot be true at the root"))
    ssv = _Ssv(opts.allow_defaults, opts.disallow_defaults_reason, opts.require_valid_property_type)
    cel_ok = False
    init_errs: list[Cause] = []
    if opts.require_structural_schema:
        st = structural_causes(schema, sp, opts.require_pruned_defaults)
        # NewStructural's errors overlap the walk's: shown only when nothing else is.
        init_errs = st.init_errors
        errs += st.errors
        cel_ok = st.cel_ok and not st.init_errors and not st.errors
    scope = CostScope(suppress=opts.suppress_per_expression_cost) if cel_ok else None
    walked = _walk(schema, sp, ssv, True, _Walk(opts, schema, scope), cel_ok)
    errs += walked.schema + walked.cel
    if not errs:
        errs += init_errs
    if scope is not None:
        errs += scope.total.causes(sp)
    # NewSchemaValidator can only fail on a ``$ref`` go-openapi cannot parse, and the walk
    # forbids every ``$ref``: nothing more to check here.
    return errs


def _status_root_causes(schema: Obj, sp: str) -> list[Cause]:
    """With the status subresource, the root may only hold fields that keep their meaning
    once ``properties[status]`` is split off; the first offending field is reported."""
    for key, kind, go_name in _FIELDS:
        if not _nonzero(schema, key, kind):
            continue
        if go_name == "Type":
            t = _str(schema, "type")
            if t != "object":
                detail = (
                    'only "object" is allowed as the type at the root of the schema if the '
                    "status subresource is enabled"
                )
                return [fe.invalid(f"{sp}.type", t, detail)]
            continue
        if go_name not in _ALLOWED_AT_ROOT:
            detail = (
                f"only [{' '.join(_ALLOWED_AT_ROOT)}] fields are allowed at the root of the "
                "schema if the status subresource is enabled"
            )
            return [fe.invalid(sp, fe.OMIT, detail)]
    return []


def _standard_causes(node: Obj, p: str, ssv: _Ssv) -> list[Cause]:
    """``specStandardValidatorV3.validate``: what OpenAPI v3 allows that a CRD may not use."""
    out: list[Cause] = []
    t = _str(node, "type")
    if ssv.require_valid_property_type and t and t not in _OPENAPI_V3_TYPES:
        out.append(fe.not_supported(f"{p}.type", t, _OPENAPI_V3_TYPES))
    if _has(node, "default") and not ssv.allow_defaults:
        detail = "must not be set"
        if ssv.disallow_defaults_reason:
            detail += " " + ssv.disallow_defaults_reason
        out.append(fe.forbidden(f"{p}.default", detail))
    if _str(node, "id"):
        out.append(fe.forbidden(f"{p}.id", "id is not supported"))
    if _has(node, "additionalItems"):
        out.append(fe.forbidden(f"{p}.additionalItems", "additionalItems is not supported"))
    if as_dict(node.get("patternProperties")):
        out.append(fe.forbidden(f"{p}.patternProperties", "patternProperties is not supported"))
    if as_dict(node.get("definitions")):
        out.append(fe.forbidden(f"{p}.definitions", "definitions is not supported"))
    if _has(node, "dependencies"):
        out.append(fe.forbidden(f"{p}.dependencies", "dependencies is not supported"))
    if _has(node, "$ref"):
        out.append(fe.forbidden(f"{p}.$ref", "$ref is not supported"))
    if t == "null":
        detail = "type cannot be set to null, use nullable as an alternative"
        out.append(fe.forbidden(f"{p}.type", detail))
    if _items(node)[2]:
        detail = "items must be a schema object and not an array"
        out.append(fe.forbidden(f"{p}.items", detail))
    if ssv.inside_resource_meta and _true(node, "x-kubernetes-embedded-resource"):
        detail = "must not be used inside of resource meta"
        out.append(fe.forbidden(f"{p}.x-kubernetes-embedded-resource", detail))
    return out


def _walk(node: Obj, p: str, ssv: _Ssv, is_root: bool, w: _Walk, cel: bool) -> _Errs:
    """``ValidateCustomResourceDefinitionOpenAPISchema`` of ``node`` at ``p``; ``cel``:
    upstream's ``celContext`` is non-nil here (only properties, additionalProperties and
    items keep it)."""
    errs = _Errs(_standard_causes(node, p, ssv), [])
    if _true(node, "uniqueItems"):
        detail = "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"
        errs.schema.append(fe.forbidden(f"{p}.uniqueItems", detail))
    props = as_dict(node.get("properties"))
    if _has(node, "additionalProperties"):
        allows, sub = _or_bool(node["additionalProperties"])
        if props and (not allows or sub is not None):
            detail = "additionalProperties and properties are mutual exclusive"
            errs.schema.append(fe.forbidden(f"{p}.additionalProperties", detail))
        sub_ssv = ssv
        if ssv.inside_resource_meta:
            # Pruning a default without the value is ambiguous in metadata maps.
            sub_ssv = ssv.forbidden_defaults(
                "inside additionalProperties applying to object metadata"
            )
        if sub is not None:
            errs.add(_walk(sub, f"{p}.additionalProperties", sub_ssv, False, w, cel))
    for name, prop in props.items():
        sub_ssv = ssv
        if (is_root or _true(node, "x-kubernetes-embedded-resource")) and name in _META_FIELDS:
            sub_ssv = replace(sub_ssv, inside_resource_meta=True)
            if is_root:
                sub_ssv = sub_ssv.forbidden_defaults(f"in top-level {name}")
        errs.add(_walk(as_dict(prop), f"{p}.properties[{name}]", sub_ssv, False, w, cel))
    if isinstance(node.get("not"), dict):
        errs.add(_walk(node["not"], f"{p}.not", ssv, False, w, False))
    for key in ("allOf", "oneOf", "anyOf"):
        for i, sub in enumerate(as_list(node.get(key))):
            errs.add(_walk(as_dict(sub), f"{p}.{key}[{i}]", ssv, False, w, False))
    for name, sub in as_dict(node.get("definitions")).items():
        errs.add(_walk(as_dict(sub), f"{p}.definitions[{name}]", ssv, False, w, False))
    _, item, item_list = _items(node)
    if item is not None:
        errs.add(_walk(item, f"{p}.items", ssv, False, w, cel))
    for i, sub in enumerate(item_list):
        errs.add(_walk(as_dict(sub), f"{p}.items[{i}]", ssv, False, w, cel))
    for name, dep in as_dict(node.get("dependencies")).items():
        if isinstance(dep, dict):
            errs.add(_walk(dep, f"{p}.dependencies[{name}]", ssv, False, w, False))
    errs.schema += _extension_causes(node, p, w.opts)
    if w.opts.require_map_list_keys_map_set_validation:
        errs.schema += _map_list_keys_map_set_causes(node, p)
    if as_list(node.get("x-kubernetes-validations")):
        errs.add(_rules(node, p, w, cel and not errs.schema))
    return errs


def _rules(node: Obj, p: str, w: _Walk, compile_ok: bool) -> _Errs:
    """The ``x-kubernetes-validations`` of one node: their own checks are schema errors;
    they compile only when nothing in this subtree (them included) is wrong. (The rule
    module finds the uncorrelatable ancestor that forbids ``oldSelf`` from the root.)"""
    pre = w.opts.preexisting_rules
    shape = rule_causes(node, p, w.root, compile_rules=False, preexisting=pre)
    if shape or not compile_ok:
        return _Errs(shape, [])
    return _Errs([], rule_causes(node, p, w.root, compile_rules=True, preexisting=pre, cost=w.cost))


def _extension_causes(node: Obj, p: str, opts: SchemaOptions) -> list[Cause]:
    """The ``x-kubernetes-*`` rules of one node (all but ``validateMapListKeysMapSet``)."""
    out: list[Cause] = []
    t = _str(node, "type")
    if node.get("x-kubernetes-preserve-unknown-fields") is False:
        detail = "must be true or undefined"
        out.append(fe.invalid(f"{p}.x-kubernetes-preserve-unknown-fields", False, detail))
    map_type = node.get("x-kubernetes-map-type")
    if map_type is not None and t != "object":
        detail = "must be object if x-kubernetes-map-type is specified"
        out.append(fe.invalid(f"{p}.type", t, detail) if t else fe.required(f"{p}.type", detail))
    if map_type is not None and map_type not in _MAP_TYPES:
        out.append(fe.not_supported(f"{p}.x-kubernetes-map-type", map_type, _MAP_TYPES))
    list_type = node.get("x-kubernetes-list-type")
    _, item, _ = _items(node)
    if list_type is not None and t != "array":
        detail = "must be array if x-kubernetes-list-type is specified"
        out.append(fe.invalid(f"{p}.type", t, detail) if t else fe.required(f"{p}.type", detail))
    elif opts.require_atomic_set_type and list_type == "set" and item is not None:
        out += _set_item_causes(item, p)
    if list_type is not None and list_type not in _LIST_TYPES:
        out.append(fe.not_supported(f"{p}.x-kubernetes-list-type", list_type, _LIST_TYPES))
    keys = [k for k in as_list(node.get("x-kubernetes-list-map-keys")) if isinstance(k, str)]
    if as_list(node.get("x-kubernetes-list-map-keys")):
        detail = "must be map if x-kubernetes-list-map-keys is non-empty"
        if list_type is None:
            out.append(fe.required(f"{p}.x-kubernetes-list-type", detail))
        elif list_type != "map":
            out.append(fe.invalid(f"{p}.x-kubernetes-list-type", list_type, detail))
    if list_type == "map":
        out += _list_map_causes(node, p, keys)
    return out


def _set_item_causes(item: Obj, p: str) -> list[Cause]:
    """Items of a set list must be atomic (nested lists and maps included)."""
    detail = "must be atomic as item of a list with x-kubernetes-list-type=set"
    it = _str(item, "type")
    if it == "array":
        lt = item.get("x-kubernetes-list-type")
        if lt is not None and lt != "atomic":
            return [fe.invalid(f"{p}.items.x-kubernetes-list-type", lt, detail)]
    elif it == "object" and item.get("x-kubernetes-map-type") != "atomic":
        # Upstream shows the item's list type here (null when unset).
        lt = item.get("x-kubernetes-list-type")
        return [fe.invalid(f"{p}.items.x-kubernetes-map-type", lt, detail)]
    return []


def _list_map_causes(node: Obj, p: str, keys: list[str]) -> list[Cause]:
    """A ``x-kubernetes-list-type: map`` list: keys, a single object item schema, scalar
    key properties named once each."""
    out: list[Cause] = []
    has_items, item, _ = _items(node)
    if not keys:
        detail = "must not be empty if x-kubernetes-list-type is map"
        out.append(fe.required(f"{p}.x-kubernetes-list-map-keys", detail))
    if not has_items:
        out.append(fe.required(f"{p}.items", "must have a schema if x-kubernetes-list-type is map"))
    elif item is None:
        detail = "must only have a single schema if x-kubernetes-list-type is map"
        out.append(fe.invalid(f"{p}.items", fe.OMIT, detail))
    if item is None:
        return out
    it = _str(item, "type")
    if it != "object":
        detail = "must be object if parent array's x-kubernetes-list-type is map"
        out.append(fe.invalid(f"{p}.items.type", it, detail))
        return out
    props = as_dict(item.get("properties"))
    seen: set[str] = set()
    for k in keys:
        if k in props:
            if _str(as_dict(props[k]), "type") in ("array", "object"):
                detail = "must be a scalar type if parent array's x-kubernetes-list-type is map"
                out.append(fe.invalid(f"{p}.items.properties[{k}].type", it, detail))
        else:
            detail = "entries must all be names of item properties"
            out.append(fe.invalid(f"{p}.x-kubernetes-list-map-keys", keys, detail))
        if k in seen:
            detail = "must not contain duplicate entries"
            out.append(fe.invalid(f"{p}.x-kubernetes-list-map-keys", keys, detail))
        seen.add(k)
    return out


def _map_list_keys_map_set_causes(node: Obj, p: str) -> list[Cause]:
    """``validateMapListKeysMapSet``: set and map items are not nullable; map keys are
    required or defaulted, and not nullable."""
    _, item, _ = _items(node)
    list_type = node.get("x-kubernetes-list-type")
    if item is None or list_type not in ("set", "map"):
        return []
    out: list[Cause] = []
    if _true(item, "nullable"):
        detail = f"cannot be nullable when x-kubernetes-list-type is {list_type}"
        out.append(fe.forbidden(f"{p}.items.nullable", detail))
    if list_type != "map":
        return out
    required = set(as_list(item.get("required")))
    props = as_dict(item.get("properties"))
    for k in as_list(node.get("x-kubernetes-list-map-keys")):
        if not isinstance(k, str) or k not in props:
            continue
        prop = as_dict(props[k])
        kp = f"{p}.items.properties[{k}]"
        if k not in required and not _has(prop, "default"):
            detail = (
                "this property is in x-kubernetes-list-map-keys, so it must have a default or "
                "be a required property"
            )
            out.append(fe.required(f"{kp}.default", detail))
        if _true(prop, "nullable"):
            detail = "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"
            out.append(fe.forbidden(f"{kp}.nullable", detail))
    return out
