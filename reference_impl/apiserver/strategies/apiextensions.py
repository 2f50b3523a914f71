"""CustomResourceDefinition (apiextensions.k8s.io/v1): defaults, strategy and the spec,
names, versions, conversion, subresources, columns, selectable fields and status rules of
upstream v1.37.2 ``apiextensions-apiserver/pkg/apis/apiextensions/validation``.
Schemas are validated by ``apiextensions_schema``; the spec rules live in
``apiextensions_spec`` and read the internal view the v1 object converts to."""

from __future__ import annotations

import copy
from typing import Any, Final

from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.strategies.apiextensions_fields import (
    MAX_SELECTABLE_FIELDS,
    names_causes,
    schema_has,
)
from reference_impl.apiserver.strategies.apiextensions_schema import SchemaOptions
from reference_impl.apiserver.strategies.apiextensions_spec import (
    CrdOptions,
    ca_bundle_errors,
    internal_spec,
    same,
    spec_causes,
    spec_update_causes,
)
from reference_impl.apiserver.strategies.apiextensions_structural import structural_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.go_url import parse_request_uri
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list
from reference_impl.errors import Cause

__all__: list[str] = []

Obj = dict[str, Any]
_KIND: Final = "CustomResourceDefinition"
_APPROVAL: Final = "api-approved.kubernetes.io"
_OPENAPI_TYPES: Final = frozenset({"string", "number", "integer", "boolean", "array", "object"})
_PROTECTED: Final = ("k8s.io", "kubernetes.io")


@defaulter(_KIND)
def default_crd(obj: Obj, ctx: Context) -> None:
    """``SetObjectDefaults_CustomResourceDefinition``."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    names = spec.get("names")
    if isinstance(names, dict):
        kind = str(names.get("kind") or "")
        if not names.get("singular"):
            names["singular"] = kind.lower()
        if not names.get("listKind") and kind:
            names["listKind"] = kind + "List"
    if spec.get("conversion") is None:
        spec["conversion"] = {"strategy": "None"}
    svc = as_dict(as_dict(as_dict(spec["conversion"]).get("webhook")).get("clientConfig")).get("service")
    if isinstance(svc, dict) and svc.get("port") is None:
        svc["port"] = 443
    status = obj.get("status")
    if isinstance(status, dict) and not status.get("storedVersions"):
        _add_storage_version(spec, status)


def _add_storage_version(spec: Obj, status: Obj) -> None:
    """Record the first storage version among ``status.storedVersions`` if missing."""
    for v in as_list(spec.get("versions")):
        if isinstance(v, dict) and v.get("storage"):
            stored = as_list(status.get("storedVersions"))
            name = v.get("name") or ""  # a null name decodes as ""
            if name not in stored:
                status["storedVersions"] = [*stored, name]
            return


def _drop_disabled(new: Obj, old: Obj | None, ctx: Context) -> None:
    """``dropDisabledFields``: observedGeneration only where its gate is off and unused."""
    gate = "CRDObservedGenerationTracking"
    if gate not in ctx.gates or ctx.gates.enabled(gate):
        return
    old_status = as_dict((old or {}).get("status"))
    if old_status.get("observedGeneration") or any(
        as_dict(c).get("observedGeneration") for c in as_list(old_status.get("conditions"))
    ):
        return
    status = as_dict(new.get("status"))
    status.pop("observedGeneration", None)
    for c in as_list(status.get("conditions")):
        if isinstance(c, dict):
            c.pop("observedGeneration", None)


@preparer(_KIND)
def prepare_crd(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """``PrepareForCreate`` (status reset to the storage version) and ``PrepareForUpdate``
    (status kept, a new storage version recorded); the generation is the server's."""
    spec = as_dict(obj.get("spec"))
    if old is None:
        obj["status"] = {"acceptedNames": {"plural": "", "kind": ""}}
    else:
        obj["status"] = copy.deepcopy(as_dict(old.get("status")))
    _add_storage_version(spec, obj["status"])
    _drop_disabled(obj, old, ctx)


@preparer(_KIND, status=True)
def prepare_crd_status(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """The status strategy's ``PrepareForUpdate``: the spec stays; the defaults a decode
    gives the status (the storage version) apply."""
    if old is not None:
        obj["spec"] = copy.deepcopy(old.get("spec"))
    status = obj.get("status")
    if isinstance(status, dict) and not status.get("storedVersions"):
        _add_storage_version(as_dict(obj.get("spec")), status)
    _drop_disabled(obj, old, ctx)


def _established(crd: Obj) -> bool:
    """``IsCRDConditionTrue(crd, Established)``."""
    conditions = as_list(as_dict(crd.get("status")).get("conditions"))
    return any(as_dict(c).get("type") == "Established" and as_dict(c).get("status") == "True" for c in conditions)


def _approval(annotations: Obj) -> tuple[str, str]:
    """``GetAPIApprovalState``: the state and its reason."""
    value = str(annotations.get(_APPROVAL) or "")
    if not value:
        return "missing", f'protected groups must have approval annotation "{_APPROVAL}", see https://github.com/kubernetes/enhancements/pull/1111'
    if value.startswith("unapproved"):
        return "bypassed", f'not approved: "{value}"'
    try:
        u = parse_request_uri(value)
        ok = bool(u.host and u.scheme)
    except ValueError:
        ok = False
    if ok:
        return "approved", f"approved in {value}"
    return "invalid", f'protected groups must have approval annotation "{_APPROVAL}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111'


def _approval_causes(new: Obj, old: Obj | None) -> list[Cause]:
    """``validateAPIApproval``."""
    group = str(as_dict(new.get("spec")).get("group") or "")
    if not any(group == g or group.endswith("." + g) for g in _PROTECTED):
        return []
    state, reason = _approval(as_dict(as_dict(new.get("metadata")).get("annotations")))
    if old is not None and _approval(as_dict(as_dict(old.get("metadata")).get("annotations")))[0] == state:
        return []
    path = f"metadata.annotations[{_APPROVAL}]"
    if state == "missing":
        return [fe.required(path, reason)]
    if state == "invalid":
        value = as_dict(new["metadata"].get("annotations")).get(_APPROVAL)
        return [fe.invalid(path, value, reason)]
    return []


def _preserve_causes(new: Obj, old: Obj | None) -> list[Cause]:
    """``validatePreserveUnknownFields``."""
    if old is not None and as_dict(old.get("spec")).get("preserveUnknownFields"):
        return []
    if as_dict(new.get("spec")).get("preserveUnknownFields"):
        return [fe.invalid("spec.preserveUnknownFields", True, "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead")]
    return []


def stored_versions_causes(stored: list[Any], versions: list[Any]) -> list[Cause]:
    """``ValidateCustomResourceDefinitionStoredVersions``."""
    path = "status.storedVersions"
    if not stored:
        return [fe.invalid(path, stored, "must have at least one stored version")]
    out: list[Cause] = []
    left = {"" if v is None else str(v): i for i, v in enumerate(stored)}
    for v in versions:
        name = str(as_dict(v).get("name") or "")
        if as_dict(v).get("storage") and name not in left:
            out.append(fe.invalid(path, stored, "must have the storage version " + name))
        left.pop(name, None)
    for v, i in left.items():
        out.append(fe.invalid(f"{path}[{i}]", v, f"missing from spec.versions; {v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in {v} and removes {v} from status.storedVersions"))
    return out


def _status_causes(obj: Obj) -> list[Cause]:
    """``ValidateCustomResourceDefinitionStatus``."""
    return names_causes(as_dict(as_dict(obj.get("status")).get("acceptedNames")), "status.acceptedNames")


def _rules(spec: Obj) -> tuple[frozenset[str], frozenset[str]]:
    """``findPreexistingExpressions``: the rules and message expressions of every schema."""
    rules: set[str] = set()
    messages: set[str] = set()

    def collect(s: Obj) -> bool:
        for r in as_list(s.get("x-kubernetes-validations")):
            rules.add(str(as_dict(r).get("rule") or ""))
            if as_dict(r).get("messageExpression"):
                messages.add(str(r["messageExpression"]))
        return False

    for s in _all_schemas(spec):
        schema_has(s, collect)
    return frozenset(rules), frozenset(messages)


def _all_schemas(spec: Obj) -> list[Any]:
    return [as_dict(spec.get("validation")).get("openAPIV3Schema")] + [
        as_dict(v.get("schema")).get("openAPIV3Schema") for v in spec["versions"]
    ]


def _non_structural(s: Any) -> bool:
    if not isinstance(s, dict):
        return False
    res = structural_causes(s, "", True, validate_defaults=False)
    return bool(res.init_errors or res.errors)


def _non_atomic_set(s: Obj) -> bool:
    """``hasNonAtomicSetType``'s predicate."""
    items = s.get("items")
    if s.get("x-kubernetes-list-type") != "set" or not isinstance(items, dict):
        return False
    if items.get("type") == "array":
        return items.get("x-kubernetes-list-type") not in (None, "atomic")
    if items.get("type") == "object":
        return items.get("x-kubernetes-map-type") != "atomic"
    return False


def _invalid_type(s: Obj) -> bool:
    return bool(s.get("type")) and s.get("type") not in _OPENAPI_TYPES


def _too_many_allowed(new: Obj, old: Obj) -> frozenset[str]:
    """``findTooManySelectableFieldsAllowed``."""
    out: set[str] = set()
    if len(as_list(old.get("selectableFields"))) > MAX_SELECTABLE_FIELDS and same(
        new.get("selectableFields"), old.get("selectableFields")
    ):
        out.add("")
    old_versions = {str(v.get("name")): v for v in old["versions"]}
    for v in new["versions"]:
        o = old_versions.get(str(v.get("name")))
        if o is not None and len(as_list(o.get("selectableFields"))) > MAX_SELECTABLE_FIELDS and same(
            v.get("selectableFields"), o.get("selectableFields")
        ):
            out.add(str(v.get("name")))
    return frozenset(out)


def _allow_invalid_ca_bundle(old: Obj, old_spec: Obj) -> bool:
    """``allowInvalidCABundle``: before Established, or while the old bundle is invalid."""
    if not _established(old):
        return True
    bundle = str(as_dict(as_dict(old_spec.get("conversion")).get("webhookClientConfig")).get("caBundle") or "")
    return bool(bundle) and bool(ca_bundle_errors(bundle))


def _schema_for_version(spec: Obj, name: Any) -> Any:
    """``GetSchemaForVersion`` (internal spec): without per-version schemas the top-level
    one (whatever the version, even one the spec lacks), else the version's own; an
    error (both kinds, or no such version): ``_MISSING``."""
    versions = [as_dict(v) for v in as_list(spec.get("versions"))]
    if not any(v.get("schema") is not None for v in versions):
        return spec.get("validation")
    if spec.get("validation") is not None:
        return _MISSING
    return next((v.get("schema") for v in versions if v.get("name") == name), _MISSING)


_MISSING: Final = object()


def _unchanged_schema_versions(new_spec: Obj, old_spec: Obj) -> frozenset[str]:
    """``findVersionsWithUnchangedSchemas``."""
    out: set[str] = set()
    for v in as_list(new_spec.get("versions")):
        name = as_dict(v).get("name")
        new, old = _schema_for_version(new_spec, name), _schema_for_version(old_spec, name)
        if new is not _MISSING and old is not _MISSING and new == old:
            out.add(str(name))
    return frozenset(out)


def _update_options(new: Obj, old: Obj, new_spec: Obj, old_spec: Obj) -> CrdOptions:
    """``ValidateCustomResourceDefinitionUpdate``'s options, ratcheted from the old object."""
    schemas = _all_schemas(old_spec)
    conv = as_dict(old_spec.get("conversion"))
    review = as_list(conv.get("conversionReviewVersions"))
    rules, messages = _rules(old_spec)
    return CrdOptions(
        schema=SchemaOptions(
            require_valid_property_type=not any(schema_has(s, _invalid_type) for s in schemas),
            require_structural_schema=not any(_non_structural(s) for s in schemas),
            require_atomic_set_type=not any(schema_has(s, _non_atomic_set) for s in schemas),
            preexisting_rules=rules,
            preexisting_message_expressions=messages,
            unchanged_schema_versions=_unchanged_schema_versions(new_spec, old_spec),
        ),
        require_recognized_review_version=not conv or not review or any(v in ("v1", "v1beta1") for v in review),
        require_immutable_names=_established(old),
        require_open_api_schema=all(s is not None for s in schemas[1:]) or schemas[0] is not None,
        allow_invalid_ca_bundle=_allow_invalid_ca_bundle(old, old_spec),
        allow_too_many_selectable_fields=_too_many_allowed(new_spec, old_spec),
    )


def _name_causes(obj: Obj, spec: Obj) -> list[Cause]:
    """The name rule ``ValidateCustomResourceDefinition`` adds to the object meta's."""
    meta = as_dict(obj.get("metadata"))
    want = f"{as_dict(spec.get('names')).get('plural') or ''}.{spec.get('group') or ''}"
    # The name function sees generateName too (and the name generated from it).
    return [
        fe.invalid(f"metadata.{key}", meta[key], 'must be spec.names.plural+"."+spec.group')
        for key in ("generateName", "name")
        if meta.get(key) and meta[key] != want
    ]


@validator(_KIND)
def validate_crd(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateCustomResourceDefinition`` and ``ValidateCustomResourceDefinitionUpdate``."""
    spec = internal_spec(as_dict(obj.get("spec")))
    if old is None:
        out = _name_causes(obj, spec) + spec_causes(spec, CrdOptions())
    else:
        old_spec = internal_spec(as_dict(old.get("spec")))
        out = spec_update_causes(spec, old_spec, _update_options(obj, old, spec, old_spec))
    out += _status_causes(obj)
    stored = as_list(as_dict(obj.get("status")).get("storedVersions"))
    out += stored_versions_causes(stored, spec["versions"])
    return out + _approval_causes(obj, old) + _preserve_causes(obj, old)


@validator(_KIND, status=True)
def validate_crd_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateUpdateCustomResourceDefinitionStatus``."""
    return _status_causes(obj)
