"""CustomResourceDefinition spec rules of upstream v1.37.2
``apiextensions-apiserver/pkg/apis/apiextensions/validation``: the internal view the
validators read (``v1/conversion.go``), ``validateCustomResourceDefinitionSpec`` (+Update),
``validateCustomResourceDefinitionVersion`` and ``validateCustomResourceConversion``."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Final

from cryptography import x509

from reference_impl.api.formats import dns1035_label_errors, dns1123_subdomain_errors
from reference_impl.apiserver.strategies.admission_webhooks_rules import (
    admission_review_versions_causes,
    client_config_causes,
)
from reference_impl.apiserver.strategies.apiextensions_fields import (
    column_causes,
    deprecation_warning_errors,
    names_causes,
    schema_has,
    selectable_fields_causes,
    subresources_causes,
)
from reference_impl.apiserver.strategies.apiextensions_schema import (
    SchemaOptions,
    validation_causes,
)
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list
from reference_impl.errors import Cause

__all__ = ["CrdOptions", "ca_bundle_errors", "internal_spec", "same", "spec_causes", "spec_update_causes"]

Obj = dict[str, Any]
# The per-version fields the v1 -> internal conversion hoists to the spec when all
# versions agree: (v1 version field, internal spec field).
_HOISTED: Final = (
    ("schema", "validation"),
    ("subresources", "subresources"),
    ("additionalPrinterColumns", "additionalPrinterColumns"),
    ("selectableFields", "selectableFields"),
)
_PEM_CERT: Final = re.compile(rb"-----BEGIN CERTIFICATE-----\r?\n(.*?)-----END CERTIFICATE-----", re.S)
# Go maps: an empty one equals a missing one under apiequality.Semantic.
_GO_MAPS: Final = frozenset({"properties", "patternProperties", "definitions", "dependencies"})


@dataclass(frozen=True, slots=True)
class CrdOptions:
    """Upstream's ``validationOptions`` but for the schema's own (``schema``)."""

    schema: SchemaOptions = SchemaOptions()
    require_recognized_review_version: bool = True
    require_immutable_names: bool = False
    require_open_api_schema: bool = True
    allow_invalid_ca_bundle: bool = True
    # Versions ("" for the spec's own) that may keep more than 8 selectable fields.
    allow_too_many_selectable_fields: frozenset[str] = frozenset()


def _norm(v: Any, key: str = "") -> Any:
    """``v`` with what ``apiequality.Semantic.DeepEqual`` does not tell apart dropped:
    nulls, empty lists, and empty Go maps."""
    if isinstance(v, dict):
        return {
            k: _norm(x, k)
            for k, x in v.items()
            if x is not None and x != [] and not (k in _GO_MAPS and x == {})
        }
    if isinstance(v, list):
        return [_norm(x) for x in v]
    return v


def same(a: Any, b: Any) -> bool:
    """``apiequality.Semantic.DeepEqual`` of two JSON values (nil and empty slices agree)."""
    if a in (None, []) and b in (None, []):
        return True
    return bool(_norm(a) == _norm(b))


def internal_spec(spec: Obj) -> Obj:
    """The internal spec of a v1 spec: ``version`` is versions[0]'s name, the conversion
    webhook flattened, and schemas, subresources, columns and selectable fields moved up
    to the spec (cleared per version) when every version has the same."""
    versions = [dict(as_dict(v)) for v in as_list(spec.get("versions"))]
    out: Obj = {k: v for k, v in spec.items() if k not in ("versions", "conversion")}
    out["preserveUnknownFields"] = bool(spec.get("preserveUnknownFields"))
    conv = spec.get("conversion")
    if isinstance(conv, dict):
        hook = as_dict(conv.get("webhook"))
        out["conversion"] = {
            "strategy": conv.get("strategy") or "",
            "webhookClientConfig": hook.get("clientConfig"),
            "conversionReviewVersions": as_list(hook.get("conversionReviewVersions")),
        }
    out["versions"] = versions
    if versions:
        out["version"] = versions[0].get("name") or ""
        for v1_key, key in _HOISTED:
            first = versions[0].get(v1_key)
            if all(same(v.get(v1_key), first) for v in versions):
                out[key] = first
                for v in versions:
                    v.pop(v1_key, None)
    return out


def _schema_of(validation: Any) -> Any:
    return as_dict(validation).get("openAPIV3Schema")


def _schemas(spec: Obj) -> list[Any]:
    """The spec's and every version's ``openAPIV3Schema`` (``HasSchemaWith``'s order)."""
    return [_schema_of(spec.get("validation"))] + [_schema_of(v.get("schema")) for v in spec["versions"]]


def _has_defaults(s: Obj) -> bool:
    return s.get("default") is not None


def _has_extensions(s: Obj) -> bool:
    """``schemaHasKubernetesExtensions``' predicate."""
    return bool(
        s.get("x-kubernetes-embedded-resource")
        or s.get("x-kubernetes-preserve-unknown-fields") is not None
        or s.get("x-kubernetes-int-or-string")
        or as_list(s.get("x-kubernetes-list-map-keys"))
        or s.get("x-kubernetes-list-type") is not None
        or as_list(s.get("x-kubernetes-validations"))
    )


def _status_enabled(sub: Any) -> bool:
    return isinstance(sub, dict) and sub.get("status") is not None


def _subresources_for(spec: Obj, version: Obj) -> Any:
    """``getSubresourcesForVersion``."""
    if not any(v.get("subresources") is not None for v in spec["versions"]):
        return spec.get("subresources")
    return version.get("subresources")


def _version_causes(spec: Obj, i: int, opts: CrdOptions) -> list[Cause]:
    """``validateCustomResourceDefinitionVersion``."""
    v = spec["versions"][i]
    path = f"spec.versions[{i}]"
    warning = v.get("deprecationWarning")
    out = [
        fe.invalid(f"{path}.deprecationWarning", warning, e)
        for e in deprecation_warning_errors(bool(v.get("deprecated")), None if warning is None else str(warning))
    ]
    status = _status_enabled(_subresources_for(spec, v))
    if v.get("schema") is not None:
        out += validation_causes(as_dict(v["schema"]), status, opts.schema.for_version(v.get("name")), f"{path}.schema")
    out += subresources_causes(v.get("subresources"), f"{path}.subresources")
    for j, col in enumerate(as_list(v.get("additionalPrinterColumns"))):
        out += column_causes(as_dict(col), f"{path}.additionalPrinterColumns[{j}]")
    fields = as_list(v.get("selectableFields"))
    if fields:
        schema = _schema_of(v.get("schema"))
        if schema is None:
            out.append(fe.invalid(f"{path}.selectableFields", "", "may only be set when `version.schema.openAPIV3Schema` is not included"))
        else:
            allow = str(v.get("name") or "") in opts.allow_too_many_selectable_fields
            out += selectable_fields_causes(fields, schema, f"{path}.selectableFields", allow)
    return out


def ca_bundle_errors(b64: str) -> list[str]:
    """``webhook.ValidateCABundle``: the bundle must hold a PEM certificate Go can parse."""
    try:
        data = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        return ["unable to decode caBundle"]
    for m in _PEM_CERT.finditer(data):
        try:
            x509.load_der_x509_certificate(base64.b64decode(b"".join(m.group(1).split())))
        except ValueError:
            continue
        return []
    return ["unable to load root certificates: unable to parse bytes as PEM block"]


def _enum(value: str, accepted: tuple[str, ...], path: str) -> list[Cause]:
    """``validateEnumStrings`` (required)."""
    if not value:
        return [fe.required(path)]
    return [] if value in accepted else [fe.not_supported(path, value, accepted)]


def _conversion_causes(conv: Any, opts: CrdOptions) -> list[Cause]:
    """``validateCustomResourceConversion``."""
    if not isinstance(conv, dict):
        return []
    path = "spec.conversion"
    strategy = str(conv.get("strategy") or "")
    out = _enum(strategy, ("None", "Webhook"), f"{path}.strategy")
    cc, versions = conv.get("webhookClientConfig"), as_list(conv.get("conversionReviewVersions"))
    if strategy != "Webhook":
        if cc is not None:
            out.append(fe.forbidden(f"{path}.webhookClientConfig", "should not be set when strategy is not set to Webhook"))
        if versions:
            out.append(fe.forbidden(f"{path}.conversionReviewVersions", "should not be set when strategy is not set to Webhook"))
        return out
    if cc is None:
        out.append(fe.required(f"{path}.webhookClientConfig", "required when strategy is set to Webhook"))
    else:
        out += client_config_causes(as_dict(cc), f"{path}.webhookClientConfig")
        bundle = str(as_dict(cc).get("caBundle") or "")
        if bundle and not opts.allow_invalid_ca_bundle:
            at = f"{path}.webhookClientConfig.caBundle"
            out += [fe.invalid(at, bundle, e) for e in ca_bundle_errors(bundle)]
    # validateConversionReviewVersions is validateAdmissionReviewVersions but for the
    # Required message.
    review = admission_review_versions_causes(versions, opts.require_recognized_review_version, f"{path}.conversionReviewVersions")
    return out + review


def _group_causes(group: str) -> list[Cause]:
    if not group:
        return [fe.required("spec.group")]
    errs = dns1123_subdomain_errors(group)
    if errs:
        return [fe.invalid("spec.group", group, ",".join(errs))]
    if "." not in group:
        return [fe.invalid("spec.group", group, "should be a domain with at least one dot")]
    return []


def _schema_presence_causes(spec: Obj, opts: CrdOptions) -> list[Cause]:
    """The schema-required rules: every version (or only the served ones, when the old
    object lacked schemas) needs one unless the spec has one."""
    if _schema_of(spec.get("validation")) is not None:
        return []
    out: list[Cause] = []
    for i, v in enumerate(spec["versions"]):
        missing = _schema_of(v.get("schema")) is None
        at = f"spec.versions[{i}].schema.openAPIV3Schema"
        if opts.require_open_api_schema and missing:
            out.append(fe.required(at))
        elif not opts.require_open_api_schema and not spec["preserveUnknownFields"] and v.get("served") and missing:
            out.append(fe.required(at, "because otherwise all fields are pruned"))
    return out


def _exclusive_causes(spec: Obj) -> list[Cause]:
    """Top-level and per-version fields are exclusive, and per-version ones may not all agree."""
    versions = spec["versions"]
    out: list[Cause] = []
    for v1_key, key in _HOISTED[:3]:
        per_version = [v.get(v1_key) for v in versions]
        top = spec.get(key)
        if (top not in (None, []) if key == "additionalPrinterColumns" else top is not None) and any(
            x not in (None, []) for x in per_version
        ):
            out.append(fe.forbidden(f"spec.{key}", f"top-level and per-version {key} are mutually exclusive"))
    for v1_key, what in (("schema", "schemas"), ("subresources", "subresources"), ("additionalPrinterColumns", "additionalPrinterColumns")):
        values = [v.get(v1_key) for v in versions]
        if values and all(x not in (None, []) and same(x, values[0]) for x in values):
            out.append(fe.invalid("spec.versions", "...", f"per-version {what} may not all be set to identical values"))
    return out


def spec_causes(spec: Obj, opts: CrdOptions) -> list[Cause]:
    """``validateCustomResourceDefinitionSpec`` of the internal ``spec``."""
    out = _group_causes(str(spec.get("group") or ""))
    out += _enum(str(spec.get("scope") or ""), ("Cluster", "Namespaced"), "spec.scope")
    preserve = bool(spec["preserveUnknownFields"])
    schemas = _schemas(spec)
    structural = opts.schema.require_structural_schema or not preserve
    out += _schema_presence_causes(spec, opts)
    if opts.schema.allow_defaults and any(schema_has(s, _has_defaults) for s in schemas):
        structural = True
        if preserve:
            out.append(fe.invalid("spec.preserveUnknownFields", True, "must be false in order to use defaults in the schema"))
    if any(schema_has(s, _has_extensions) for s in schemas):
        structural = True
    opts = dataclasses.replace(opts, schema=dataclasses.replace(opts.schema, require_structural_schema=structural))
    versions = spec["versions"]
    names_seen: set[str] = set()
    for i, v in enumerate(versions):
        name = str(v.get("name") or "")
        names_seen.add(name)
        errs = dns1035_label_errors(name)
        if errs:
            out.append(fe.invalid(f"spec.versions[{i}].name", name, ",".join(errs)))
        out += _version_causes(spec, i, opts)
    out += _exclusive_causes(spec)
    if len(names_seen) != len(versions):
        out.append(fe.invalid("spec.versions", "...", "must contain unique version names"))
    if sum(1 for v in versions if v.get("storage")) != 1:
        out.append(fe.invalid("spec.versions", "...", "must have exactly one version marked as storage version"))
    version = str(spec.get("version") or "")
    if version:
        errs = dns1035_label_errors(version)
        if errs:
            out.append(fe.invalid("spec.version", version, ",".join(errs)))
        if versions and versions[0].get("name") != version:
            out.append(fe.invalid("spec.version", version, "must match the first version in spec.versions"))
    names = as_dict(spec.get("names"))
    for key in ("plural", "singular", "kind", "listKind"):
        if not names.get(key):
            out.append(fe.required(f"spec.names.{key}"))
    out += names_causes(names, "spec.names")
    if spec.get("validation") is not None:
        status = _status_enabled(spec.get("subresources")) or any(_status_enabled(v.get("subresources")) for v in versions)
        schema_opts = opts.schema.for_version(spec.get("version"))
        out += validation_causes(as_dict(spec["validation"]), status, schema_opts, "spec.validation")
    out += subresources_causes(spec.get("subresources"), "spec.subresources")
    for j, col in enumerate(as_list(spec.get("additionalPrinterColumns"))):
        out += column_causes(as_dict(col), f"spec.additionalPrinterColumns[{j}]")
    fields = as_list(spec.get("selectableFields"))
    if fields:
        if spec.get("validation") is None:
            out.append(fe.invalid("spec.selectableFields", "", "may only be set when validations.schema is included"))
        else:
            allow = "" in opts.allow_too_many_selectable_fields
            out += selectable_fields_causes(fields, _schema_of(spec["validation"]), "spec.selectableFields", allow)
    conv = as_dict(spec.get("conversion"))
    if conv and conv.get("strategy") != "None" and preserve:
        out.append(fe.invalid("spec.conversion.strategy", conv.get("strategy"), "must be None if spec.preserveUnknownFields is true"))
    return out + _conversion_causes(spec.get("conversion"), opts)


def _immutable(new: Any, old: Any, path: str) -> list[Cause]:
    return [] if new == old else [fe.invalid(path, new, "field is immutable")]


def spec_update_causes(spec: Obj, old: Obj, opts: CrdOptions) -> list[Cause]:
    """``validateCustomResourceDefinitionSpecUpdate``."""
    out = spec_causes(spec, opts)
    names, old_names = as_dict(spec.get("names")), as_dict(old.get("names"))
    if opts.require_immutable_names:
        out += _immutable(spec.get("scope") or "", old.get("scope") or "", "spec.scope")
        out += _immutable(names.get("kind") or "", old_names.get("kind") or "", "spec.names.kind")
    out += _immutable(spec.get("group") or "", old.get("group") or "", "spec.group")
    return out + _immutable(names.get("plural") or "", old_names.get("plural") or "", "spec.names.plural")
