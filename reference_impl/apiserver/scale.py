"""The ``<resource>/scale`` subresource (autoscaling/v1 Scale).

Built-in kinds follow ``pkg/registry/apps/{deployment,replicaset,statefulset}/storage`` and
``pkg/registry/core/replicationcontroller/storage`` (``ScaleREST``, ``scaleFrom*``,
``scaleUpdatedObjectInfo.UpdatedObject``); custom resources follow apiextensions-apiserver
``pkg/registry/customresource/etcd.go`` (``ScaleREST``, ``scaleFromCustomResource``). An
update moves the Scale's replicas (and resourceVersion precondition) into the parent and
writes the parent through its own update path, so the parent's strategy validates it and
bumps its generation.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from reference_impl.apiserver.admission.chain import Request, ScaleValidation
from reference_impl.apiserver.customresource import handler as cr_handler
from reference_impl.apiserver.customresource.info import CustomResourceInfo
from reference_impl.apiserver.customresource.scale_validation import AccessorError, nested
from reference_impl.apiserver.registry import Operation
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.warnings.recorder import header_texts
from reference_impl.errors import (
    BadRequest,
    Cause,
    Conflict,
    InternalError,
    Invalid,
    NotFound,
)

if TYPE_CHECKING:
    from reference_impl.api.resources import ResourceInfo
    from reference_impl.apiserver.server import APIServer

__all__ = [
    "SCALABLE",
    "SCALE_KIND",
    "get_scale",
    "merge_patch",
    "patch_scale",
    "selector_string",
    "update_scale",
    "validate_scale",
]

Obj = dict[str, Any]
# The built-in kinds that serve /scale, and the group their scale resource names.
SCALABLE: Final = frozenset({"Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"})
SCALE_KIND: Final = ("autoscaling", "v1", "Scale")  # every /scale's kind in 1.37
_INVALID_SPEC_REPLICAS: Final = -2147483648  # etcd.go: "signal that this was not set before"
_INT32: Final = (-(2**31), 2**31 - 1)
_FIELD_MANAGER_MAX: Final = 128  # FieldManagerMaxLength
_META: Final = ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")


def _requirement_string(key: str, op: str, values: list[str]) -> str:
    vals = ",".join(sorted(values))
    return {"In": f"{key} in ({vals})", "NotIn": f"{key} notin ({vals})", "Exists": key,
            "DoesNotExist": f"!{key}"}.get(op, f"{key}={vals}")  # fmt: skip


def selector_string(sel: Mapping[str, Any] | None) -> str:
    """``metav1.LabelSelectorAsSelector(sel).String()``: the requirements sorted by key,
    matchLabels as ``k=v``; "" for nil or an empty selector."""
    if not sel:
        return ""
    reqs = [(str(k), "=", [str(v)]) for k, v in (sel.get("matchLabels") or {}).items()]
    for e in sel.get("matchExpressions") or ():
        reqs.append(
            (str(e.get("key", "")), str(e.get("operator", "")), list(e.get("values") or ()))
        )
    reqs.sort(key=lambda r: r[0])
    return ",".join(_requirement_string(*r) for r in reqs)


def validate_scale(scale: Obj) -> list[Cause]:
    """``ValidateScale``: only the managed fields and the replicas count; the handler
    ignores and drops every other metadata field."""
    causes: list[Cause] = []
    for i, entry in enumerate(_meta(scale).get("managedFields") or ()):
        path = f"metadata.managedFields[{i}]"
        entry = entry if isinstance(entry, dict) else {}
        op = entry.get("operation") or ""
        if not op:
            causes.append(fe.required(f"{path}.operation", "must not be empty"))
        elif op not in ("Apply", "Update"):
            causes.append(fe.not_supported(f"{path}.operation", op, ("Apply", "Update")))
        if entry.get("fieldsType") and entry["fieldsType"] != "FieldsV1":
            causes.append(
                fe.invalid(f"{path}.fieldsType", entry["fieldsType"], "must be `FieldsV1`")
            )
        if len(str(entry.get("manager") or "").encode()) > _FIELD_MANAGER_MAX:
            causes.append(fe.too_long(f"{path}.manager", _FIELD_MANAGER_MAX))
    replicas = (scale.get("spec") or {}).get("replicas") or 0
    if replicas < 0:
        causes.append(fe.invalid("spec.replicas", replicas, "must be greater than or equal to 0"))
    return causes


def _scale(parent: Obj, spec_replicas: int, status_replicas: int, selector: str) -> Obj:
    meta = parent.get("metadata") or {}
    status: Obj = {"replicas": status_replicas}
    if selector:
        status["selector"] = selector
    spec: Obj = {"replicas": spec_replicas} if spec_replicas else {}  # omitempty
    return {"apiVersion": "autoscaling/v1", "kind": "Scale",
            "metadata": {k: meta[k] for k in _META if meta.get(k)},
            "spec": spec, "status": status}  # fmt: skip


def _scale_from_builtin(parent: Obj) -> Obj:
    """``scaleFromDeployment`` (and ReplicaSet's, StatefulSet's) and ``scaleFromRC``: an
    RC's selector is a plain label set (``labels.SelectorFromSet``)."""
    spec, status = parent.get("spec") or {}, parent.get("status") or {}
    sel = spec.get("selector")
    if parent.get("kind") == "ReplicationController":
        sel = {"matchLabels": sel} if sel else None
    return _scale(parent, int(spec.get("replicas") or 0), int(status.get("replicas") or 0),
                  selector_string(sel))  # fmt: skip


def _path(p: str) -> list[str]:
    """``splitReplicasPath``: the path split at dots, its leading dot dropped."""
    return p.removeprefix(".").split(".")


def _nested(obj: Obj, fields: list[str], want: str) -> tuple[Any, bool]:
    """``unstructured.NestedInt64`` / ``NestedString``: (value, found); the accessor error of
    a mistyped value is an InternalError here (``scaleFromCustomResource``)."""
    try:
        return nested(obj, ".".join(fields), want)
    except AccessorError as e:
        raise InternalError(str(e)) from None


def _scale_from_custom(cr: Obj, scale: Obj) -> tuple[Obj, bool]:
    """``scaleFromCustomResource``: the Scale and whether the spec replicas were found."""
    spec_v, found = _nested(cr, _path(str(scale.get("specReplicasPath", ""))), "int64")
    status_v, _ = _nested(cr, _path(str(scale.get("statusReplicasPath", ""))), "int64")
    selector = ""
    if scale.get("labelSelectorPath"):
        selector = _nested(cr, _path(str(scale["labelSelectorPath"])), "string")[0] or ""
    return _scale(cr, _int32(spec_v or 0), _int32(status_v or 0), selector), found


def _int32(v: int) -> int:
    """Go's ``int32(v)`` conversion: wraps around."""
    return (v + 2**31) % 2**32 - 2**31


def _info(srv: APIServer, api_version: str, kind: str) -> ResourceInfo:
    info = srv.resource(api_version, kind)
    if isinstance(info, CustomResourceInfo):
        if not info.scale:
            raise NotFound("the server could not find the requested resource")
    elif info.kind not in SCALABLE:
        raise NotFound("the server could not find the requested resource")
    return info


def get_scale(srv: APIServer, api_version: str, kind: str, name: str, namespace: str | None) -> Obj:
    """GET ``<resource>/scale``: the parent's Scale; NotFound (the parent's resource) when
    absent; a custom resource without its spec replicas is an InternalError."""
    info = _info(srv, api_version, kind)
    parent = srv.get(api_version, kind, name, namespace)
    if isinstance(info, CustomResourceInfo):
        assert info.scale is not None
        out, found = _scale_from_custom(parent, info.scale)
        if not found:
            path = info.scale.get("specReplicasPath")
            raise InternalError(f'the spec replicas field "{path}" does not exist')
        return out
    return _scale_from_builtin(parent)


def _scale_body(body: Obj) -> Obj:
    """The Scale a client sent, decoded as ``autoscaling/v1`` (a mistyped replicas count
    does not decode)."""
    if not isinstance(body, dict) or body.get("kind", "Scale") != "Scale":
        raise BadRequest(f"wrong object passed to Scale update: {body!r}")
    spec = body.get("spec")
    replicas = (spec or {}).get("replicas", 0) if isinstance(spec, dict) else 0
    if isinstance(replicas, bool) or not isinstance(replicas, int):
        raise BadRequest(
            'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal '
            f"{_json_type(replicas)} into Go struct field ScaleSpec.spec.replicas of type int32"
        )
    if not _INT32[0] <= replicas <= _INT32[1]:
        raise BadRequest(
            'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal number '
            f"{replicas} into Go struct field ScaleSpec.spec.replicas of type int32"
        )
    return body


def _json_type(v: Any) -> str:
    if isinstance(v, float):
        return f"number {v:g}"
    return {str: "string", bool: "bool", list: "array", dict: "object"}.get(type(v), "null")


def _meta(body: Obj) -> Obj:
    m = body.get("metadata")
    return m if isinstance(m, dict) else {}


def update_scale(
    srv: APIServer, api_version: str, kind: str, name: str, namespace: str | None, body: Obj
) -> Obj:
    """PUT ``<resource>/scale``: ``body`` (a Scale) replaces the parent's Scale."""
    return _update(srv, api_version, kind, name, namespace, lambda _old: _scale_body(body))


def patch_scale(
    srv: APIServer, api_version: str, kind: str, name: str, namespace: str | None, patch: Obj
) -> Obj:
    """PATCH ``<resource>/scale`` with a JSON merge patch over the current Scale (a Scale's
    strategic merge patch is the same: it has no lists)."""
    return _update(srv, api_version, kind, name, namespace,
                   lambda old: _scale_body(merge_patch(old, patch)))  # fmt: skip


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch: a null removes a key, an object merges, others replace."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def _update(
    srv: APIServer, api_version: str, kind: str, name: str, namespace: str | None, new_scale: Any
) -> Obj:
    info = _info(srv, api_version, kind)
    if isinstance(info, CustomResourceInfo):
        return _update_custom(srv, info, api_version, name, namespace, new_scale)
    resource = f"{info.plural}/scale" + (f".{info.group}" if info.group else "")
    parent = srv.try_get(api_version, kind, name, namespace)
    if parent is None:  # UpdatedObject: "the existing object does not exist"
        raise NotFound(f'{resource} "{name}" not found')
    old = _scale_from_builtin(parent)
    scale = new_scale(old)
    req = Request(srv, "scale", SCALE_KIND)
    req.admit(Operation.UPDATE, info, scale, old)  # the handler's, on the Scale body
    if causes := validate_scale(scale):
        raise Invalid("Scale.autoscaling", str(parent["metadata"]["name"]), causes)
    replicas = int((scale.get("spec") or {}).get("replicas") or 0)
    meta, pmeta = _meta(scale), parent["metadata"]
    if meta.get("uid") and meta["uid"] != pmeta.get("uid"):
        raise Conflict(
            f'Operation cannot be fulfilled on {resource} "{pmeta["name"]}": Precondition '
            f"failed: UID in precondition: {meta['uid']}, UID in object meta: {pmeta.get('uid')}"
        )
    parent["spec"]["replicas"] = replicas
    _precondition(parent, meta)
    updated = ScaleValidation(req, old, _scale_from_builtin).run(lambda: srv.update(parent))
    srv.warnings = header_texts(srv.warnings + req.done())
    return _scale_from_builtin(updated)


def _precondition(parent: Obj, scale_meta: Obj) -> None:
    """The Scale's resourceVersion becomes the parent's (storage checks it); none: the
    update is unconditional."""
    rv = scale_meta.get("resourceVersion")
    if rv:
        parent["metadata"]["resourceVersion"] = str(rv)
    else:
        parent["metadata"].pop("resourceVersion", None)


def _update_custom(
    srv: APIServer, info: CustomResourceInfo, api_version: str, name: str,
    namespace: str | None, new_scale: Any,
) -> Obj:  # fmt: skip
    """``ScaleREST.Update`` of a custom resource: the strategy validates the replicas at
    specReplicasPath (".spec.replicas: ... should be a non-negative integer")."""
    assert info.scale is not None
    cr = srv.try_get(api_version, info.kind, name, namespace)
    if cr is None:
        raise NotFound(f'{info.group_resource} "{name}" not found')
    old, found = _scale_from_custom(cr, info.scale)
    if not found:
        old["spec"]["replicas"] = _INVALID_SPEC_REPLICAS
    scale = new_scale(old)
    req = Request(srv, "scale", SCALE_KIND)
    req.admit(Operation.UPDATE, info, scale, old)
    path = str(info.scale.get("specReplicasPath", ""))
    replicas = int((scale.get("spec") or {}).get("replicas") or 0)
    if replicas == _INVALID_SPEC_REPLICAS:
        raise BadRequest(f'the spec replicas field "{path}" cannot be empty')
    _set_nested(cr, _path(path), replicas)
    rv = _meta(scale).get("resourceVersion")
    if rv:  # otherwise the stored one stays: the update is unconditional
        cr["metadata"]["resourceVersion"] = str(rv)

    def scale_of(obj: Obj) -> Obj:
        assert info.scale is not None
        return _scale_from_custom(obj, info.scale)[0]

    updated = ScaleValidation(req, old, scale_of).run(lambda: cr_handler.update(srv, cr))
    srv.warnings = header_texts(srv.warnings + req.done())
    return scale_of(updated)


def _set_nested(obj: Obj, fields: list[str], value: int) -> None:
    """``unstructured.SetNestedField``: missing maps are made; a non-map on the way fails."""
    m = obj
    for i, f in enumerate(fields[:-1]):
        nxt = m.get(f)
        if nxt is None:
            nxt = m[f] = {}
        if not isinstance(nxt, dict):
            where = "." + ".".join(fields[: i + 1])
            raise InternalError(
                f"value cannot be set because {where} is not a map[string]interface{{}}"
            )
        m = nxt
    m[fields[-1]] = value
