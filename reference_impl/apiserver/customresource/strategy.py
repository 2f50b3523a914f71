"""The custom resource strategies (``pkg/registry/customresource/strategy.go``
``customResourceStrategy`` and ``status_strategy.go`` ``statusStrategy``): what create,
update and the status subresource keep, when ``metadata.generation`` moves, and the
validation after the ObjectMeta checks (``customResourceValidator``: schema and scale;
then list-type invariants, then the x-kubernetes-validations rules unless an error
blocks them)."""

from __future__ import annotations

import copy
import json
from typing import Any

from reference_impl.api.formats import label_key_errors
from reference_impl.apiserver.customresource import cel, objectmeta, scale_validation, schema
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause
from reference_impl.storage import codec

__all__ = [
    "finalizer_warnings",
    "prepare_for_create",
    "prepare_for_update",
    "status_prepare_for_update",
    "validate",
    "validate_status_update",
    "validate_update",
]

Obj = dict[str, Any]


def prepare_for_create(obj: Obj, status_enabled: bool) -> None:
    """``PrepareForCreate``: create cannot set status (with /status); generation 1."""
    if status_enabled:
        obj.pop("status", None)
    obj.setdefault("metadata", {})["generation"] = 1


def _non_metadata(obj: Obj) -> bytes:
    return codec.dumps({k: v for k, v in obj.items() if k != "metadata"}, sort_keys=True)


def prepare_for_update(obj: Obj, old: Obj, status_enabled: bool) -> None:
    """``PrepareForUpdate``: with /status the stored status stays; any change outside
    metadata bumps the generation."""
    if status_enabled:
        if "status" in old:
            obj["status"] = old["status"]
        else:
            obj.pop("status", None)
    if _non_metadata(obj) != _non_metadata(old):
        meta = obj.setdefault("metadata", {})
        meta["generation"] = int((old.get("metadata") or {}).get("generation", 0)) + 1


def status_prepare_for_update(obj: Obj, old: Obj) -> None:
    """``statusStrategy.PrepareForUpdate``: the old object with the new status (and the
    new managedFields); everything else the write sent is dropped."""
    status, has = obj.get("status"), "status" in obj
    managed = (obj.get("metadata") or {}).get("managedFields")
    obj.clear()
    obj.update(copy.deepcopy(old))
    if managed is not None:
        obj.setdefault("metadata", {})["managedFields"] = managed
    elif isinstance(obj.get("metadata"), dict):
        obj["metadata"].pop("managedFields", None)
    if has:
        obj["status"] = status
    else:
        obj.pop("status", None)


def scale_causes(obj: Obj, scale: Obj | None, *, spec: bool = True) -> list[Cause]:
    """``ValidateScaleSpec`` (``spec``) and ``ValidateScaleStatus``."""
    out = scale_validation.validate_scale_spec(obj, scale) if spec else []
    return out + scale_validation.validate_scale_status(obj, scale)


_BLOCKING = frozenset({
    "FieldValueNotSupported", "FieldValueRequired", "FieldValueTooLong", "FieldValueTooMany",
    "FieldValueTypeInvalid",
})  # fmt: skip
_NOT_CHECKED = (
    "some validation rules were not checked because the object was invalid; correct the "
    "existing errors to complete validation"
)


def _rules(
    s: Obj, obj: Obj, old: Obj | None, causes: list[Cause], warnings: list[str] | None = None
) -> list[Cause]:
    """``hasBlockingErr``: after an error of a blocking type the rules do not run, and one
    more error says so; otherwise their errors follow the others."""
    if any(c.reason in _BLOCKING for c in causes):
        return [*causes, fe.invalid("<nil>", None, _NOT_CHECKED)]  # field.Invalid(nil, nil, ...)
    return causes + cel.rule_causes(s, obj, old, has_old=old is not None, warnings=warnings)


def validate(s: Obj, scale: Obj | None, obj: Obj, meta: list[Cause] | None = None) -> list[Cause]:
    """``customResourceStrategy.Validate``; ``meta``: the ObjectMeta errors, found first."""
    causes = list(meta or ()) + schema.schema_causes(obj, s) + scale_causes(obj, scale)
    causes += objectmeta.validate(obj, s)  # the embedded resources
    causes += schema.list_causes(obj, s)
    return _rules(s, obj, None, causes)


def validate_update(
    s: Obj, scale: Obj | None, obj: Obj, old: Obj, meta: list[Cause] | None = None,
    warnings: list[str] | None = None,
) -> list[Cause]:  # fmt: skip
    """``ValidateUpdate``: schema errors ratchet; list invariants only when the old
    object kept them."""
    causes = (
        list(meta or ())
        + schema.schema_causes(obj, s, old, has_old=True)
        + scale_causes(obj, scale)
        + objectmeta.validate(obj, s)
    )
    if not schema.list_causes(old, s):
        causes += schema.list_causes(obj, s)
    return _rules(s, obj, old, causes, warnings)


def validate_status_update(
    s: Obj, scale: Obj | None, obj: Obj, old: Obj, meta: list[Cause] | None = None,
    warnings: list[str] | None = None,
) -> list[Cause]:  # fmt: skip
    """``statusStrategy.ValidateUpdate``: only status against its schema (ratcheting),
    the scale status, list invariants (new errors only when the old object had none),
    then the rules over the whole object."""
    causes: list[Cause] = list(meta or ())
    sub = (s.get("properties") or {}).get("status")
    if "status" in obj and isinstance(sub, dict):
        causes += schema.schema_causes(
            obj["status"], sub, old.get("status"), has_old="status" in old, path="status"
        )
    causes += scale_causes(obj, scale, spec=False)
    if (new := schema.list_causes(obj, s)) and not schema.list_causes(old, s):
        causes += new
    return _rules(s, obj, old, causes, warnings)


_STANDARD_FINALIZERS = frozenset({"orphan", "foregroundDeletion", "kubernetes"})


def finalizer_warnings(obj: Obj, old: Obj | None) -> list[str]:
    """``WarningsOnCreate``/``WarningsOnUpdate`` (``generateWarningsFromObj``): each newly
    added finalizer that is not a qualified name, or has no domain-qualified path."""
    new = set((obj.get("metadata") or {}).get("finalizers") or ())
    if old is not None:
        new -= set((old.get("metadata") or {}).get("finalizers") or ())
    out: list[str] = []
    path = "metadata.finalizers"
    for f in sorted(x for x in new if isinstance(x, str)):
        out += [f"{path}: {json.dumps(f)}: {m}" for m in label_key_errors(f)]
        if "/" not in f and f not in _STANDARD_FINALIZERS:
            why = (
                "a domain-qualified finalizer name including a path (/)"
                if "." in f
                else ("a domain-qualified finalizer name")
            )
            out.append(
                f"{path}: {json.dumps(f)}: prefer {why} to avoid accidental conflicts with other finalizer writers"
            )
    return out
