"""storage.k8s.io classes and attachments: StorageClass, VolumeAttributesClass,
CSIStorageCapacity and VolumeAttachment.

Models ``pkg/apis/storage/validation/validation.go`` (1.37.2), the v1 defaults of
``pkg/apis/storage/v1/defaults.go`` and the strategies of ``pkg/registry/storage``.
CSIDriver and CSINode are in ``storage_csi``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Final

from reference_impl.api.formats import dns1123_subdomain_errors, label_key_errors
from reference_impl.api.meta import parse_quantity
from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.strategies.policy import label_selector_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.persistent_volume import (
    SOURCE_KEYS,
    access_mode_causes,
    csi_driver_causes,
)
from reference_impl.errors import Cause

__all__ = ["immutable", "qualified_name_causes"]

Obj = dict[str, Any]
_MAX_PARAMS_LEN: Final = 512
_MAX_PARAMS_SIZE: Final = 256 * (1 << 10)
_MAX_METADATA_SIZE: Final = 256 * (1 << 10)
_MAX_ERROR_MESSAGE: Final = 1024
_RECLAIM: Final = ("Delete", "Retain")
_BINDING_MODES: Final = ("Immediate", "WaitForFirstConsumer")
_IMMUTABLE: Final = "field is immutable"
_ONE_SOURCE: Final = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"
_INLINE: Final = "in the context of inline volumes"
_OTHER_SOURCES: Final = tuple(k for k in SOURCE_KEYS if k != "csi")  # an inline spec uses csi


def immutable(path: str, new: Any, old: Any) -> list[Cause]:
    """``ValidateImmutableField``."""
    return [] if new == old else [fe.invalid(path, fe.OMIT, _IMMUTABLE)]


def qualified_name_causes(value: str, path: str) -> list[Cause]:
    """``ValidateQualifiedName``."""
    return [fe.invalid(path, value, m) for m in label_key_errors(value)]


def _subdomain(value: str, path: str) -> list[Cause]:
    return [fe.invalid(path, value, m) for m in dns1123_subdomain_errors(value)]


def _provisioner(value: str, path: str) -> list[Cause]:
    """``validateProvisioner``: required, then a qualified name once lowercased."""
    if not value:
        return [fe.required(path)]
    return qualified_name_causes(value.lower(), path)


def _parameters(params: dict[str, str] | None, allow_empty: bool, path: str) -> list[Cause]:
    """``validateParameters``: at most 512 entries, no empty key, 256 kB in all."""
    params = params or {}
    if len(params) > _MAX_PARAMS_LEN:
        return [fe.too_long(path, _MAX_PARAMS_LEN)]
    out = [fe.invalid(path, k, "field can not be empty.") for k in params if not k]
    if sum(len(k) + len(str(v)) for k, v in params.items()) > _MAX_PARAMS_SIZE:
        out.append(fe.too_long(path, _MAX_PARAMS_SIZE))
    if not allow_empty and not params:
        out.append(fe.required(path, "must contain at least one key/value pair"))
    return out


@defaulter("StorageClass")
def default_storage_class(sc: Obj, ctx: Context) -> None:
    """``SetDefaults_StorageClass``: Delete, Immediate."""
    if sc.get("reclaimPolicy") is None:
        sc["reclaimPolicy"] = "Delete"
    if sc.get("volumeBindingMode") is None:
        sc["volumeBindingMode"] = "Immediate"


def _topology_term(term: Obj, path: str) -> tuple[dict[str, frozenset[str]], list[Cause]]:
    """``ValidateTopologySelectorTerm``: each requirement's values set and key, no key twice."""
    exprs: dict[str, frozenset[str]] = {}
    out: list[Cause] = []
    for i, req in enumerate(term.get("matchLabelExpressions") or ()):
        p = f"{path}.matchLabelExpressions[{i}]"
        values, key = list(req.get("values") or ()), str(req.get("key") or "")
        if not values:
            out.append(fe.required(f"{p}.values"))
        out += [fe.duplicate(f"{p}.values[{j}]", v) for j, v in enumerate(values) if v in values[:j]]
        out += [fe.invalid(f"{p}.key", key, m) for m in label_key_errors(key)]
        if key in exprs:
            out.append(fe.duplicate(f"{p}.key", key))
        exprs[key] = frozenset(values)
    return exprs, out


def _allowed_topologies(terms: list[Obj] | None, path: str) -> list[Cause]:
    """``validateAllowedTopologies``: each term, and no term equal to an earlier one.
    Upstream's list of seen terms starts with one empty entry per term, so an empty term
    is always a duplicate."""
    out: list[Cause] = []
    seen: list[dict[str, frozenset[str]]] = [{} for _ in terms or ()]
    for i, term in enumerate(terms or ()):
        exprs, errs = _topology_term(term or {}, f"{path}[{i}]")
        out += errs
        out += [fe.duplicate(f"{path}[{i}].matchLabelExpressions", "") for t in seen if t == exprs]
        seen.append(exprs)
    return out


@validator("StorageClass")
def validate_storage_class(sc: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateStorageClass``, and on update ``ValidateStorageClassUpdate``."""
    out = _provisioner(str(sc.get("provisioner") or ""), "provisioner")
    out += _parameters(sc.get("parameters"), True, "parameters")
    policy = sc.get("reclaimPolicy")
    if policy and policy not in _RECLAIM:
        out.append(fe.not_supported("reclaimPolicy", policy, _RECLAIM))
    mode = sc.get("volumeBindingMode")
    if mode is None:
        out.append(fe.required("volumeBindingMode"))
    elif mode not in _BINDING_MODES:
        out.append(fe.not_supported("volumeBindingMode", mode, _BINDING_MODES))
    out += _allowed_topologies(sc.get("allowedTopologies"), "allowedTopologies")
    if old is None:
        return out
    for f in ("parameters", "provisioner", "reclaimPolicy", "volumeBindingMode"):
        out += immutable(f, sc.get(f) or None, old.get(f) or None)
    return out


@validator("VolumeAttributesClass")
def validate_volume_attributes_class(vac: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateVolumeAttributesClass`` after, on update, driverName and parameters frozen."""
    out: list[Cause] = []
    if old is not None:
        if vac.get("driverName") != old.get("driverName"):
            out.append(fe.forbidden("driverName", "updates to driverName are forbidden."))
        if vac.get("parameters") != old.get("parameters"):
            out.append(fe.forbidden("parameters", "updates to parameters are forbidden."))
    out += _provisioner(str(vac.get("driverName") or ""), "driverName")
    return out + _parameters(vac.get("parameters"), False, "parameters")


def _nonnegative_quantity(value: object, path: str) -> list[Cause]:
    try:
        negative = parse_quantity(value) < Decimal(0)
    except (ValueError, ArithmeticError):
        return []  # the decoder rejects a malformed quantity first
    return [fe.invalid(path, value, "must be greater than or equal to 0")] if negative else []


@validator("CSIStorageCapacity")
def validate_csi_storage_capacity(cap: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateCSIStorageCapacity``; on update nodeTopology and storageClassName frozen."""
    out = label_selector_causes(cap.get("nodeTopology"), "nodeTopology")
    out += _subdomain(str(cap.get("storageClassName") or ""), "storageClassName")
    if cap.get("capacity") is not None:
        out += _nonnegative_quantity(cap["capacity"], "capacity")
    if old is None:
        return out
    if cap.get("nodeTopology") != old.get("nodeTopology"):
        out.append(fe.invalid("nodeTopology", fe.OMIT, _IMMUTABLE))
    if cap.get("storageClassName") != old.get("storageClassName"):
        out.append(fe.invalid("storageClassName", cap.get("storageClassName"), _IMMUTABLE))
    return out


@preparer("VolumeAttachment")
def prepare_volume_attachment(va: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """Create clears the status; a spec update keeps the stored status."""
    if old is None:
        va["status"] = {"attached": False}


def _inline_csi(csi: Obj, path: str) -> list[Cause]:
    """``validateCSIPersistentVolumeSource``: driver and volumeHandle (secret refs unchecked)."""
    out = csi_driver_causes(str(csi.get("driver") or ""), f"{path}.driver")
    return out + ([] if csi.get("volumeHandle") else [fe.required(f"{path}.volumeHandle")])


def _inline_volume_spec(spec: Obj, path: str) -> list[Cause]:
    """The inline parts of ``ValidatePersistentVolumeSpec``: a CSI volume only, no claimRef,
    capacity, node affinity or storage class; reclaim Retain; Filesystem mode."""
    out: list[Cause] = []
    csi = spec.get("csi")
    for f in ("claimRef", "capacity"):
        if spec.get(f):
            out.append(fe.forbidden(f"{path}.{f}", f"may not be specified {_INLINE}"))
    if csi is None:
        out.append(fe.required(f"{path}.csi", f"has to be specified {_INLINE}"))
    out += access_mode_causes([str(m) for m in spec.get("accessModes") or ()], f"{path}.accessModes")
    policy = spec.get("persistentVolumeReclaimPolicy")
    if policy and policy != "Retain":
        out.append(fe.forbidden(f"{path}.persistentVolumeReclaimPolicy", f"may only be Retain {_INLINE}"))
    if spec.get("nodeAffinity") is not None:
        out.append(fe.forbidden(f"{path}.nodeAffinity", f"may not be specified {_INLINE}"))
    others = [k for k in _OTHER_SOURCES if spec.get(k) is not None]
    if isinstance(csi, dict):
        out += [fe.forbidden(f"{path}.csi", "may not specify more than 1 volume type")] if others else _inline_csi(csi, f"{path}.csi")
    elif not others:
        out.append(fe.required(path, "must specify a volume type"))
    if spec.get("storageClassName"):
        out.append(fe.forbidden(f"{path}.storageClassName", f"may not be specified {_INLINE}"))
    mode = spec.get("volumeMode")
    if mode is not None and mode != "Filesystem":
        out.append(fe.forbidden(f"{path}.volumeMode", f"may not specify volumeMode other than Filesystem {_INLINE}"))
    return out


def _va_source(source: Obj, path: str) -> list[Cause]:
    """``validateVolumeAttachmentSource``: exactly one of the two sources."""
    inline, pv = source.get("inlineVolumeSpec"), source.get("persistentVolumeName")
    if inline is None and pv is None:
        return [fe.required(path, _ONE_SOURCE)]
    if inline is not None and pv is not None:
        return [fe.forbidden(path, _ONE_SOURCE)]
    if pv is not None:
        return [] if pv else [fe.required(f"{path}.persistentVolumeName", "must specify non empty persistentVolumeName")]
    return _inline_volume_spec(inline, f"{path}.inlineVolumeSpec") if isinstance(inline, dict) else []


def _volume_error(err: Obj | None, path: str) -> list[Cause]:
    """``validateVolumeError``: message at most 1024 bytes, errorCode not negative."""
    if not isinstance(err, dict):
        return []
    out = []
    if len(str(err.get("message") or "")) > _MAX_ERROR_MESSAGE:
        out.append(fe.too_long(f"{path}.message", _MAX_ERROR_MESSAGE))
    code = err.get("errorCode")
    if isinstance(code, int) and code < 0:
        out.append(fe.invalid(f"{path}.errorCode", code, "must be between 0 and 2147483647, inclusive"))
    return out


def _va_status(status: Obj) -> list[Cause]:
    meta = status.get("attachmentMetadata") or {}
    out = []
    if sum(len(k) + len(str(v)) for k, v in meta.items()) > _MAX_METADATA_SIZE:
        out.append(fe.too_long("status.attachmentMetadata", _MAX_METADATA_SIZE))
    out += _volume_error(status.get("attachError"), "status.attachError")
    return out + _volume_error(status.get("detachError"), "status.detachError")


def _validate_va(va: Obj) -> list[Cause]:
    """``ValidateVolumeAttachment``."""
    spec = va.get("spec") or {}
    source = spec.get("source") or {}
    node = str(spec.get("nodeName") or "")
    out = csi_driver_causes(str(spec.get("attacher") or ""), "spec.attacher")
    out += _va_source(source, "spec.source")
    out += _subdomain(node, "spec.nodeName")
    out += _va_status(va.get("status") or {})
    pv = source.get("persistentVolumeName")
    if pv is not None:
        out += _subdomain(str(pv), "spec.source.persistentVolumeName")
    return out


@validator("VolumeAttachment")
def validate_volume_attachment(va: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateVolumeAttachment``; on update ``ValidateVolumeAttachmentUpdate`` (spec frozen)."""
    out = _validate_va(va)
    if old is not None:
        out += immutable("spec", va.get("spec"), old.get("spec"))
    return out


@validator("VolumeAttachment", status=True)
def validate_volume_attachment_status(va: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """The status strategy validates the whole object as a spec update does."""
    return validate_volume_attachment(va, old, ctx)
