"""ObjectMeta inside custom resources (apiextensions-apiserver
``pkg/apiserver/schema/objectmeta``): ``GetObjectMetaWithOptions`` (the metadata decoded
into ObjectMeta as ``utiljson``/``kjson`` would: a wrongly typed field fails the decode,
or with ``drop_malformed`` only drops that field), ``SetObjectMeta`` (the decoded
ObjectMeta written back as ``ToUnstructured`` does: zero values and unknown fields gone),
``CoerceWithOptions`` (every ``x-kubernetes-embedded-resource`` below the root) and
``Validate`` (an embedded resource's apiVersion, kind and ObjectMeta)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from reference_impl.api.formats import dns1035_label_errors, dns1123_label_errors
from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.strategies.apiextensions_structural import items_schema
from reference_impl.apiserver.strategies.meta import meta_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.resource.lists import as_dict
from reference_impl.apiserver.wire import definition_errors, go_kind
from reference_impl.errors import Cause

__all__ = ["ObjectMetaResult", "coerce", "get_object_meta", "set_object_meta", "validate"]

Obj = dict[str, Any]
_DEF: Final = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_EMBEDDED: Final = "x-kubernetes-embedded-resource"
_STRINGS: Final = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion")
_OWNER_REQUIRED: Final = ("apiVersion", "kind", "name", "uid")
_MANAGED_STRINGS: Final = ("manager", "operation", "apiVersion", "fieldsType", "subresource")
# The generic ObjectMeta check (path-segment names, no kube finalizer rule): the rules
# ``meta_causes`` applies to a kind its strategy leaves to rest.BeforeCreate.
_GENERIC: Final = ResourceInfo(
    "policy/v1", "PodDisruptionBudget", "poddisruptionbudgets", True, True
)


def _sorted(v: Any) -> Any:
    """As ``utiljson.Marshal`` writes a map: keys in order, so errors come in that order."""
    if isinstance(v, dict):
        return {k: _sorted(v[k]) for k in sorted(v)}
    if isinstance(v, list):
        return [_sorted(x) for x in v]
    return v


@dataclass(slots=True)
class ObjectMetaResult:
    """``GetObjectMetaWithOptions``' results: the decoded ObjectMeta (as ``SetObjectMeta``
    writes it), whether metadata was there, the unknown field paths and the error."""

    meta: Obj | None = None
    found: bool = False
    unknown: list[str] = field(default_factory=list)
    error: str = ""


def _decode_error(meta: Obj) -> tuple[str, list[str]]:
    """The decode's first type error (or failed custom unmarshaler), else the strict
    errors' paths."""
    errs = definition_errors(_sorted(meta), _DEF)
    if errs is None:
        return "", []
    if errs.fatal:
        return errs.fatal, []
    if errs.type_error is not None:
        return errs.type_error.message, []
    return "", [c.field for c in errs.unknown]


def get_object_meta(
    obj: Obj, *, drop_malformed: bool, return_unknown: bool = True, parent: str = ""
) -> ObjectMetaResult:
    """``GetObjectMetaWithOptions`` of ``obj["metadata"]``; unknown paths are prefixed by
    ``parent``'s metadata ("metadata.x" at the root)."""
    if "metadata" not in obj:
        return ObjectMetaResult()
    raw = obj["metadata"]
    prefix = f"{parent}.metadata" if parent else "metadata"
    if raw is None:  # null into a struct: an empty ObjectMeta
        return ObjectMetaResult({}, True)
    if not isinstance(raw, dict):
        if not drop_malformed:
            msg = f"json: cannot unmarshal {go_kind(raw)} into Go value of type v1.ObjectMeta"
            return ObjectMetaResult(None, True, error=msg)
        go = {"string": "string", "number": "int64", "bool": "bool", "array": "[]interface {}"}
        got = "float64" if isinstance(raw, float) else go[go_kind(raw)]
        return ObjectMetaResult(error=f"invalid metadata: expected object, got {got}")
    err, unknown = _decode_error(raw)
    if not err:
        paths = [f"{prefix}.{p}" for p in unknown] if return_unknown else []
        return ObjectMetaResult(set_object_meta(raw), True, paths)
    if not drop_malformed:
        return ObjectMetaResult(None, True, error=err)
    kept: Obj = {}
    paths = []
    for k, v in raw.items():  # each field alone: the malformed ones are dropped whole
        one_err, one_unknown = _decode_error({k: v})
        if not one_err:
            kept[k] = v
            paths += [f"{prefix}.{p}" for p in one_unknown] if return_unknown else []
    return ObjectMetaResult(set_object_meta(kept), True, paths)


def _time(v: Any) -> str | None:
    """``metav1.Time`` as it marshals: UTC, whole seconds."""
    if not isinstance(v, str):
        return None
    try:
        t = datetime.fromisoformat(v.replace("Z", "+00:00"))
    except ValueError:
        return v
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _int(v: Any) -> int | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return int(v)


def _str_map(v: Any) -> dict[str, str]:
    if not isinstance(v, dict):
        return {}
    return {str(k): "" if x is None else str(x) for k, x in v.items()}


def _owner(ref: Any) -> Obj:
    ref = ref if isinstance(ref, dict) else {}
    out: Obj = {k: "" if ref.get(k) is None else str(ref[k]) for k in _OWNER_REQUIRED}
    for k in ("controller", "blockOwnerDeletion"):
        if isinstance(ref.get(k), bool):
            out[k] = ref[k]
    return out


def _managed(entry: Any) -> Obj:
    entry = entry if isinstance(entry, dict) else {}
    out: Obj = {k: str(entry[k]) for k in _MANAGED_STRINGS if entry.get(k)}
    if (t := _time(entry.get("time"))) is not None:
        out["time"] = t
    if entry.get("fieldsV1") is not None:
        out["fieldsV1"] = entry["fieldsV1"]
    return out


def set_object_meta(meta: Obj) -> Obj:
    """``SetObjectMeta`` of a decoded ObjectMeta: the known fields that are not zero (the
    omitempty ones), times in UTC; a zero creationTimestamp is left out, as Coerce does."""
    out: Obj = {k: str(meta[k]) for k in _STRINGS if isinstance(meta.get(k), str) and meta[k]}
    if gen := _int(meta.get("generation")):
        out["generation"] = gen
    if (grace := _int(meta.get("deletionGracePeriodSeconds"))) is not None:
        out["deletionGracePeriodSeconds"] = grace
    for k in ("creationTimestamp", "deletionTimestamp"):
        if (t := _time(meta.get(k))) is not None:
            out[k] = t
    for k in ("labels", "annotations"):
        if m := _str_map(meta.get(k)):
            out[k] = m
    if fins := ["" if f is None else str(f) for f in meta.get("finalizers") or ()]:
        out["finalizers"] = fins
    if refs := [_owner(r) for r in meta.get("ownerReferences") or ()]:
        out["ownerReferences"] = refs
    if managed := [_managed(e) for e in meta.get("managedFields") or ()]:
        out["managedFields"] = managed
    return out


def _child(path: str, k: str) -> str:
    return f"{path}.{k}" if path else k


def coerce(
    x: Any, s: Obj | None, path: str = "", *, is_resource_root: bool = False,
    drop_invalid: bool = False,
) -> tuple[Cause | None, list[str]]:  # fmt: skip
    """``CoerceWithOptions`` (unknown paths returned): an embedded resource's apiVersion
    and kind must be strings and its metadata decodes as ObjectMeta, then is written back
    as such; ``drop_invalid`` drops what is malformed instead of failing. The first error
    (keys in order, where Go's map order is random), and the sorted unknown paths."""
    if is_resource_root:
        s = {**(s or {}), _EMBEDDED: True}
    unknown: list[str] = []
    err = _coerce(x, s, path, unknown, drop_invalid)
    return err, sorted(unknown)


def _coerce(x: Any, s: Obj | None, path: str, unknown: list[str], drop: bool) -> Cause | None:
    if s is None:
        return None
    if isinstance(x, dict):
        props, ap = as_dict(s.get("properties")), s.get("additionalProperties")
        for k in sorted(x):
            v = x[k]
            if s.get(_EMBEDDED) and k in ("apiVersion", "kind") and not isinstance(v, str):
                if not drop:
                    return fe.invalid(_child(path, k), v, "must be a string")
                del x[k]
                continue
            if s.get(_EMBEDDED) and k == "metadata":
                got = get_object_meta(x, drop_malformed=drop, parent=path)
                unknown += got.unknown
                if got.error and not drop:
                    return fe.invalid(_child(path, "metadata"), v, got.error)
                if not got.error and got.found:
                    x["metadata"] = got.meta
            if k in props:
                if (
                    err := _coerce(x[k], as_dict(props[k]), _child(path, k), unknown, drop)
                ) is not None:
                    return err
            elif isinstance(ap, dict):
                if (err := _coerce(x[k], ap, f"{path}[{k}]", unknown, drop)) is not None:
                    return err
    elif isinstance(x, list):
        items = items_schema(s)
        for i, v in enumerate(x):
            if (err := _coerce(v, items, f"{path}[{i}]", unknown, drop)) is not None:
                return err
    return None


def validate(
    x: Any, s: Obj | None, path: str = "", *, is_resource_root: bool = False
) -> list[Cause]:
    """``Validate``: every embedded resource's apiVersion, kind and metadata."""
    if is_resource_root:
        s = {**(s or {}), _EMBEDDED: True}
    if s is None:
        return []
    out: list[Cause] = []
    if isinstance(x, dict):
        if s.get(_EMBEDDED):
            out += embedded_resource_causes(x, path)
        props, ap = as_dict(s.get("properties")), s.get("additionalProperties")
        for k in sorted(x):
            if k in props:
                out += validate(x[k], as_dict(props[k]), _child(path, k))
            elif isinstance(ap, dict):
                out += validate(x[k], ap, f"{path}[{k}]")
    elif isinstance(x, list):
        items = items_schema(s)
        for i, v in enumerate(x):
            out += validate(v, items, f"{path}[{i}]")
    return out


def _group_version_error(gv: str) -> str:
    """``schema.ParseGroupVersion``: more than one "/" is an error."""
    return f"unexpected GroupVersion string: {gv}" if gv != "/" and gv.count("/") > 1 else ""


def embedded_resource_causes(x: Obj, path: str) -> list[Cause]:
    """``validateEmbeddedResource``."""
    out: list[Cause] = []
    for k in ("apiVersion", "kind"):
        if k not in x:
            out.append(fe.required(_child(path, k)))
    if "apiVersion" in x:
        v, at = x["apiVersion"], _child(path, "apiVersion")
        if not isinstance(v, str):
            out.append(fe.invalid(at, v, "must be a string"))
        elif not v:
            out.append(fe.invalid(at, v, "must not be empty"))
        elif msg := _group_version_error(v):
            out.append(fe.invalid(at, v, msg))
    if "kind" in x:
        v, at = x["kind"], _child(path, "kind")
        if not isinstance(v, str):
            out.append(fe.invalid(at, v, "must be a string"))
        elif not v:
            out.append(fe.invalid(at, v, "must not be empty"))
        elif errs := dns1035_label_errors(v.lower()):
            detail = "may have mixed case, but should otherwise match: " + ",".join(errs)
            out.append(fe.invalid(at, v, detail))
    if "metadata" in x:
        out += _metadata_causes(x, _child(path, "metadata"))
    return out


def _metadata_causes(x: Obj, at: str) -> list[Cause]:
    """The metadata decoded (an error is Invalid at ``at``), then ``ValidateObjectMeta``
    with path-segment names (a missing name reads "fakename"), the namespace checked only
    when set (``requiresNamespace`` is ``len(namespace) > 0``)."""
    got = get_object_meta(x, drop_malformed=False, return_unknown=False)
    if got.error:
        return [fe.invalid(at, x["metadata"], got.error)]
    meta = dict(got.meta or {})
    meta.setdefault("name", "fakename")
    causes = [
        Cause(at + c.field.removeprefix("metadata"), c.reason, c.message)
        for c in meta_causes(_GENERIC, {"apiVersion": "policy/v1", "metadata": meta}, None)
    ]
    names = [c for c in causes if c.field in (f"{at}.name", f"{at}.generateName")]
    ns = str(meta.get("namespace") or "")
    namespace = (
        [fe.invalid(f"{at}.namespace", ns, e) for e in dns1123_label_errors(ns)] if ns else []
    )
    return names + namespace + [c for c in causes if c not in names]
