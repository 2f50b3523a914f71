"""Decoding a write: strict schema check at the wire version, then conversion to storage.

As upstream's codec: the body is decoded (and checked strictly) as the version the client
sent, so schema errors carry that version's field paths, and defaulted in that version;
then it is converted to the storage version, which is what defaulting, semantic validation, admission and storage see.
Also the small comparisons the update path needs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver import conversion, schema
from reference_impl.apiserver.nulls import normalize_nulls
from reference_impl.apiserver.wire import wire_errors
from reference_impl.errors import ApiError, BadRequest, Cause, Invalid, MethodNotAllowed
from reference_impl.storage import codec

__all__ = [
    "Decoded",
    "annotations_bump",
    "carry_meta",
    "content",
    "decode",
    "schema_causes",
    "spec_part",
    "status_schema_causes",
    "verify_protobuf_bodies",
]

Obj = dict[str, Any]
# Metadata only the server sets; a write keeps the stored values.
SERVER_META: Final = (
    "uid",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "generation",
)


@dataclass(frozen=True, slots=True)
class Decoded:
    """A decoded write: the resource as addressed, the private storage-version copy, and
    the version the client wrote (replies are converted back to it)."""

    info: ResourceInfo
    obj: Obj
    api_version: str


def schema_causes(obj: Obj, walk: Obj | None = None) -> list[Cause]:
    """The decoding errors of ``obj`` at its own apiVersion, as upstream's strict decoder
    reports them (``wire``): the first type error, else every unknown field; BadRequest
    when a custom unmarshaler (Quantity, Time, ...) fails. ``walk``: the part of ``obj``
    not already known to decode cleanly (default: all of it)."""
    errs = wire_errors(obj if walk is None else walk, str(obj.get("apiVersion")), str(obj.get("kind")))
    if errs is None:
        return []
    if errs.fatal:
        raise _undecodable(obj, errs.fatal, [])
    return errs.causes()


def _undecodable(obj: Obj, detail: str, causes: list[Cause]) -> BadRequest:
    # The 400 of runtime.NewStrictDecodingError / a json error, wrapped by the codec.
    kind, version = obj.get("kind"), str(obj.get("apiVersion")).rpartition("/")[2]
    return BadRequest(f'{kind} in version "{version}" cannot be handled as a {kind}: {detail}', causes)


def _check_decodes(obj: Obj, walk: Obj | None) -> None:
    """BadRequest, as upstream's decoder answers: the first type error's json message, or
    "strict decoding error: " with every unknown field."""
    causes = schema_causes(obj, walk)
    if not causes:
        return
    if causes[0].reason == "FieldValueTypeInvalid":
        raise _undecodable(obj, causes[0].message, causes)
    detail = ", ".join(c.message for c in causes)
    raise _undecodable(obj, f"strict decoding error: {detail}", causes)


def status_schema_causes(new: Obj, wire_version: str) -> list[Cause]:
    """Strict-schema field errors of a status write: ``new`` is the stored object with
    only ``status`` replaced by the decoded body's (defaulted, at the storage version).

    ``decode`` already checked the whole body, status included, at ``wire_version``; when
    that is the storage version the status is that checked value, so nothing is left to
    check. Otherwise the converted status is checked against the storage schema: the
    rest of ``new`` is the stored object, checked when it was written, and the 1.37 root
    schemas constrain each top-level field on its own, so a valid status makes the whole
    object valid. Failing that, the whole object is checked, for every error's path."""
    if new.get("apiVersion") == wire_version and "status" in new:
        return []
    if schema.field_valid(new, "status"):
        return []
    return schema_causes(new)


# Whether a protobuf body is also walked as JSON would be, failing loudly where that
# would refuse or change it (the test suites turn this on: ``verify_protobuf_bodies``).
_verify_protobuf = False


def verify_protobuf_bodies(on: bool) -> None:
    """Walk every protobuf body too, and raise AssertionError where the strict JSON decoder
    would refuse it or canonicalise a quantity in it: a Go client could not have sent it."""
    global _verify_protobuf
    _verify_protobuf = on


def decode(
    manifest: Obj,
    resolve: Callable[[str, str], ResourceInfo],
    stored: Callable[[ResourceInfo, Obj], Obj | None] | None = None,
    *,
    protobuf: bool = False,
) -> Decoded:
    """Check, copy and convert a write body; raises Invalid/BadRequest/NotFound.
    ``stored``: for an update, the stored object the body's metadata names (or None).
    ``protobuf``: the body of a control-plane component, whose client sends protobuf
    (``--kube-api-content-type``'s default): a typed Go value has no unknown field, no
    wrongly typed one and only canonical quantities, so the strict JSON walk is skipped."""
    if not isinstance(manifest, dict):
        raise BadRequest(f"the object must be a mapping, got {type(manifest).__name__}")
    api_version, kind = manifest.get("apiVersion"), manifest.get("kind")
    missing = [
        Cause(f, "FieldValueRequired", "Required value")
        for f, v in (("apiVersion", api_version), ("kind", kind))
        if not v
    ]
    if missing:
        raise Invalid(str(kind or "Object"), "", missing)
    info = resolve(str(api_version), str(kind))
    if info.virtual:
        raise MethodNotAllowed(
            f"{kind} is a request body, not a stored object; use its subresource"
        )
    raw = codec.dumps(manifest)
    obj = codec.loads(raw)  # a private copy the caller cannot alias
    if b"null" in raw:  # without one (most bodies) the walk would change nothing
        normalize_nulls(obj, str(api_version), str(kind))
    if protobuf:
        if _verify_protobuf:
            _verify_typed(obj)
    else:
        raw_meta = obj.get("metadata")
        name = raw_meta.get("name", "") if isinstance(raw_meta, dict) else ""
        walk = _unverified(obj, stored(info, raw_meta)) if stored and name else None
        _check_decodes(obj, walk)
    if not isinstance(obj.get("metadata"), dict):
        obj["metadata"] = {}
    conversion.default(obj, info)  # versioned defaults, in the shape the client sent
    return Decoded(info, conversion.to_storage(obj, info), str(api_version))


def _verify_typed(obj: Obj) -> None:
    """``verify_protobuf_bodies``: the JSON walk of a copy must find nothing to say."""
    walked = codec.loads(codec.dumps(obj))
    try:
        _check_decodes(walked, None)
    except ApiError as e:
        raise AssertionError(f"a component wrote what a Go client could not send: {e}") from None
    if codec.dumps(walked) != codec.dumps(obj):
        raise AssertionError(
            f"a component wrote a {obj.get('kind')} with a quantity not in canonical form"
        )


def _unverified(obj: Obj, old: Obj | None) -> Obj | None:
    """The part of an update body that does not repeat the stored object (None: all).
    What it repeats at the stored version decoded cleanly when stored, and the 1.37 root
    schemas constrain each top-level field on its own, so walking it again finds nothing
    (a status write repeats the whole spec and, but for resourceVersion, the metadata).
    Repeats are judged by their JSON bytes: Python's == has True == 1 == 1.0."""
    if old is None or old.get("apiVersion") != obj.get("apiVersion"):
        return None
    dumps = codec.dumps
    view = {k: v for k, v in obj.items() if k not in old or dumps(old[k]) != dumps(v)}
    meta = view.get("metadata")
    if isinstance(meta, dict) and "resourceVersion" in meta:
        rest = {k: v for k, v in meta.items() if k != "resourceVersion"}
        if dumps(rest) == dumps(old.get("metadata")):
            view["metadata"] = {"resourceVersion": meta["resourceVersion"]}
    return view


def content(obj: Obj) -> Obj:
    """What a write changes: everything but the version it was read at and the apiVersion."""
    meta = {k: v for k, v in obj["metadata"].items() if k != "resourceVersion"}
    return {**obj, "apiVersion": "", "metadata": meta}


def spec_part(obj: Obj) -> Obj:
    """Everything but metadata and status: what moves ``generation``."""
    return {k: v for k, v in obj.items() if k not in ("metadata", "status")}


def annotations_bump(info: ResourceInfo, obj: Obj, old: Obj) -> bool:
    """Upstream's Deployment strategy also bumps generation when annotations change, the
    EndpointSlice strategy when labels change."""
    field = {"Deployment": "annotations", "EndpointSlice": "labels"}.get(info.kind)
    if field is None:
        return False
    # Semantic.DeepEqual: an empty map equals a missing one.
    return bool((obj["metadata"].get(field) or {}) != (old["metadata"].get(field) or {}))


# rest.BeforeUpdate keeps these only where the stored object has them; a write that
# sets one the stored object lacks reaches ValidateObjectMetaUpdate, which refuses it.
_KEPT_IF_STORED: Final = ("deletionTimestamp", "deletionGracePeriodSeconds")


def carry_meta(old: Obj, obj: Obj) -> None:
    """Keep the server-set metadata of the stored object on an update."""
    om, nm = old["metadata"], obj["metadata"]
    for k in SERVER_META:
        if k in om:
            # BeforeUpdate restores a grace period only when the write drops it.
            if k != "deletionGracePeriodSeconds" or nm.get(k) is None:
                nm[k] = om[k]
        elif k not in _KEPT_IF_STORED:
            nm.pop(k, None)
