"""The write path of a custom resource (``pkg/registry/customresource`` ``strategy.go``,
``status_strategy.go``, ``validator.go`` behind the generic registry store): decode with
pruning and schema defaults, the ObjectMeta checks, schema validation, list-type
invariants and the x-kubernetes-validations rules; generation bumps on any non-metadata
change (the status subresource keeps ``status`` out of the main resource's writes)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reference_impl.apiserver import dry_run as dryrun
from reference_impl.apiserver import keys
from reference_impl.apiserver.admission.chain import Request
from reference_impl.apiserver.customresource import objectmeta, schema, strategy
from reference_impl.apiserver.customresource.info import CustomResourceInfo
from reference_impl.apiserver.decode import SERVER_META, Decoded, carry_meta
from reference_impl.apiserver.registry import Operation
from reference_impl.apiserver.strategies.meta import meta_causes
from reference_impl.apiserver.warnings.recorder import header_texts
from reference_impl.clock import rfc3339
from reference_impl.errors import (
    AlreadyExists,
    BadRequest,
    Forbidden,
    Invalid,
    MethodNotAllowed,
    NotFound,
)
from reference_impl.storage import codec

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["create", "update", "update_status"]

Obj = dict[str, Any]


def _decode(srv: APIServer, manifest: Obj) -> tuple[CustomResourceInfo, Obj, str]:
    api_version, kind = str(manifest.get("apiVersion")), str(manifest.get("kind"))
    info = srv.resource(api_version, kind)
    if not isinstance(info, CustomResourceInfo):
        raise NotFound(f'no matches for kind "{kind}" in version "{api_version}"')
    obj = codec.loads(codec.dumps(manifest))
    cannot = f'{kind} in version "{info.version}" cannot be handled as a {kind}: '
    # unstructuredSchemaCoercer.apply: the root metadata decoded as ObjectMeta (and
    # written back as one), pruning, then the embedded resources coerced.
    meta = objectmeta.get_object_meta(obj, drop_malformed=False)
    if meta.error:
        raise BadRequest(cannot + meta.error)
    obj["metadata"] = meta.meta or {}
    unknown = meta.unknown + schema.prune(obj, info.schema)
    schema.prune_nulls(obj, info.schema)
    err, embedded_unknown = objectmeta.coerce(obj, info.schema)
    if err is not None:
        raise BadRequest(f"{cannot}{err.field}: {err.message}")
    unknown += embedded_unknown
    if unknown:  # the reference writes with fieldValidation=Strict, as its clients ask
        fields = ", ".join(f'unknown field "{p}"' for p in unknown)
        raise BadRequest(f"{cannot}strict decoding error: {fields}")
    schema.apply_defaults(obj, info.schema)
    obj["apiVersion"] = f"{info.group}/{info.storage_version}"  # conversion strategy None
    return info, obj, api_version


def create(srv: APIServer, manifest: Obj) -> Obj:
    """POST: store a new custom resource."""
    srv.warnings = []
    info, obj, api_version = _decode(srv, manifest)
    if info.terminating:  # serveResource's forbidCreateAdmission, before all other admission
        name = (obj["metadata"].get("name") or "")
        who = f'{info.group_resource} "{name}"' if name else info.group_resource
        raise Forbidden(
            f"{who} is forbidden: create not allowed while custom resource definition is terminating"
        )
    meta = obj["metadata"]
    if meta.get("resourceVersion"):
        raise BadRequest("resourceVersion should not be set on objects to be created")
    generated = not meta.get("name") and bool(meta.get("generateName"))
    if generated:
        meta["name"] = srv._generate_name(info.kind, meta["generateName"])
    ns = keys.namespace_for(info, meta.get("namespace"))
    if ns is not None:
        meta["namespace"] = ns
        srv._check_namespace(ns, info, "" if generated else str(meta.get("name") or ""))
    else:
        meta.pop("namespace", None)
    for k in SERVER_META:
        meta.pop(k, None)
    meta["uid"] = srv._uid()
    meta["creationTimestamp"] = rfc3339(srv.clock.now())
    req = Request(srv)
    req.admit(Operation.CREATE, info, obj, None)
    strategy.prepare_for_create(obj, info.status)
    causes = strategy.validate(info.schema, info.scale, obj, meta_causes(info, obj, None))
    causes = causes or req.validate(Operation.CREATE, info, obj, None)
    if causes:
        raise Invalid(info.kind, meta.get("name", ""), causes)
    key = keys.key(info, meta["name"], ns)
    if srv.store.get(key) is not None:
        raise AlreadyExists(f'{info.group_resource} "{meta["name"]}" already exists')
    warned = header_texts([*info.deprecation_warnings, *strategy.finalizer_warnings(obj, None),
                           *req.warnings])  # fmt: skip
    out = dryrun.reply(srv, obj, api_version, None) if srv._dry else srv._commit(key, obj, api_version)
    srv.warnings = warned
    req.done()
    return out


def update(srv: APIServer, manifest: Obj) -> Obj:
    """PUT: replace; status is kept when the status subresource exists."""
    srv.warnings = []
    info, obj, api_version = _decode(srv, manifest)
    meta = obj["metadata"]
    key, old = srv._current(info, meta)
    ns = keys.namespace_for(info, meta.get("namespace"))
    if ns is not None:
        meta["namespace"] = ns
    carry_meta(old, obj)
    srv._refuse_new_finalizers(info, obj, old)
    req = Request(srv)
    req.admit(Operation.UPDATE, info, obj, old)
    strategy.prepare_for_update(obj, old, info.status)
    # The version's deprecation, the ratcheted rules' warnings, then the strategy's.
    texts: list[str] = list(info.deprecation_warnings)
    causes = strategy.validate_update(
        info.schema, info.scale, obj, old, meta_causes(info, obj, old), texts
    )
    causes = causes or req.validate(Operation.UPDATE, info, obj, old)
    if causes:
        raise Invalid(info.kind, meta.get("name", ""), causes)
    warned = header_texts(texts + strategy.finalizer_warnings(obj, old) + req.warnings)
    out = srv._finish_update(key, Decoded(info, obj, api_version), old)
    srv.warnings = warned
    req.done()
    return out


def update_status(srv: APIServer, manifest: Obj) -> Obj:
    """PUT .../status: only ``status`` changes (``statusStrategy``)."""
    srv.warnings = []
    info, obj, api_version = _decode(srv, manifest)
    if not info.status:
        raise MethodNotAllowed(f"{info.group_resource} has no status subresource")
    key, old = srv._current(info, obj["metadata"])
    req = Request(srv, "status")
    req.admit(Operation.UPDATE, info, obj, old)
    strategy.status_prepare_for_update(obj, old)
    texts: list[str] = list(info.deprecation_warnings)
    causes = strategy.validate_status_update(
        info.schema, info.scale, obj, old, meta_causes(info, obj, old), texts
    )
    causes = causes or req.validate(Operation.UPDATE, info, obj, old)
    if causes:
        raise Invalid(info.kind, obj["metadata"].get("name", ""), causes)
    out = srv._finish_update(key, Decoded(info, obj, api_version), old)
    srv.warnings = header_texts(texts + req.warnings)
    req.done()
    return out
