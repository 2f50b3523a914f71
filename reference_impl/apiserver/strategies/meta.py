"""ObjectMeta validation shared by every kind (``apimachinery/pkg/api/validation``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from reference_impl.api.formats import (
    dns1123_label_errors,
    dns1123_subdomain_errors,
    label_key_errors,
    label_value_errors,
)
from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.customresource.info import CustomResourceInfo
from reference_impl.apiserver.strategies.configmap import config_key_errors
from reference_impl.apiserver.strategies.storage_version import storage_version_name_errors
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.ip_formats import ip_errors
from reference_impl.errors import Cause

__all__ = [
    "GENERIC_META_ONLY",
    "generic_meta_only",
    "annotations_causes",
    "finalizer_name_causes",
    "labels_causes",
    "meta_causes",
]

# Kinds whose names must be DNS labels rather than subdomains.
_LABEL_NAMED: Final = frozenset({"Namespace", "Service", "StatefulSet"})
# Kinds whose strategy's Validate never calls ValidateObjectMeta: only rest.BeforeCreate's
# generic check runs, after (and only when) the strategy found nothing, with
# path.ValidatePathSegmentName for the name.
GENERIC_META_ONLY: Final = frozenset({"PodDisruptionBudget"})
# The same, but only at these versions (ValidateEventCreate skips metadata at core/v1).
_GENERIC_META_ONLY_AT: Final = frozenset({("v1", "Event")})
# Validated with ValidateObjectMetaWithOpts, which checks the name only: a generateName is
# left to the generated name.
_GENERATE_NAME_UNCHECKED: Final = frozenset(
    {"DeviceClass", "ReplicationController", "Eviction", "EvictionRequest"}
)
# ValidateCertificateRequestName accepts any name.
_UNCHECKED_NAMES: Final = frozenset({"CertificateSigningRequest"})
# ValidateRBACName: content.IsPathSegmentName, the same for a name and a generateName.
_RBAC_NAMED: Final = frozenset({"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"})
# Validated with apimachinery's ValidateObjectMeta, not core's: no validateKubeFinalizerName
# (coordination, node, admissionregistration, apiextensions and the aggregator).
_GENERIC_FINALIZERS: Final = frozenset({
    "Lease", "LeaseCandidate", "RuntimeClass", "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
    "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding", "CustomResourceDefinition",
    "APIService",
})  # fmt: skip
_ANNOTATIONS_MAX: Final = 256 * 1024


def meta_causes(info: ResourceInfo, obj: dict[str, Any], old: dict[str, Any] | None) -> list[Cause]:
    """Field errors in ``metadata``; on update also the immutable fields."""
    meta = obj["metadata"]
    causes: list[Cause] = []
    name = str(meta.get("name", ""))
    if not name and old is None:
        causes.append(
            Cause("metadata.name", "FieldValueRequired", "name or generateName is required")
        )
    elif old is None or info.kind == "ClusterTrustBundle":
        # ValidateClusterTrustBundleUpdate runs the whole create validation (the name
        # against the new signer) again; other kinds check the name on create only.
        causes += [
            fe.invalid("metadata.name", name, e) for e in name_errors(info.kind, name, False, obj)
        ]
    generate = str(meta.get("generateName") or "")
    if generate and old is None and info.kind not in _GENERATE_NAME_UNCHECKED:
        causes += [
            fe.invalid("metadata.generateName", generate, e)
            for e in name_errors(info.kind, generate, True, obj)
        ]
    generation = meta.get("generation")
    if isinstance(generation, int) and generation < 0:  # ValidateNonnegativeField
        causes.append(fe.invalid("metadata.generation", generation, "must be greater than or equal to 0"))
    causes += labels_causes(meta.get("labels") or {}, "metadata.labels")
    causes += annotations_causes(meta.get("annotations") or {}, "metadata.annotations")
    # Core's ValidateObjectMeta adds validateKubeFinalizerName; the generic check (custom
    # resources' too) does not.
    kube = not generic_meta_only(info) and info.kind not in _GENERIC_FINALIZERS
    kube = kube and not isinstance(info, CustomResourceInfo)
    causes += _finalizer_causes(meta.get("finalizers") or [], kube)
    for i, ref in enumerate(meta.get("ownerReferences") or []):
        for f in ("apiVersion", "kind", "name", "uid"):
            if not ref.get(f):
                causes.append(
                    Cause(
                        f"metadata.ownerReferences[{i}].{f}", "FieldValueRequired", "Required value"
                    )
                )
        causes += _owner_reference_causes(ref, f"metadata.ownerReferences[{i}]")
    if sum(1 for r in meta.get("ownerReferences") or [] if r.get("controller")) > 1:
        causes.append(
            Cause(
                "metadata.ownerReferences",
                "FieldValueInvalid",
                "Only one reference can have Controller set to true",
            )
        )
    if old is not None:
        om = old["metadata"]
        for f in ("name", "namespace", "uid", "creationTimestamp"):
            if f in om and meta.get(f) != om.get(f):
                causes.append(Cause(f"metadata.{f}", "FieldValueInvalid", "field is immutable"))
        # ValidateImmutableField: absent on both sides is equal too.
        for f in ("deletionTimestamp", "deletionGracePeriodSeconds"):
            if meta.get(f) != om.get(f):
                causes.append(Cause(f"metadata.{f}", "FieldValueInvalid", "field is immutable"))
    return causes


def _owner_reference_causes(ref: dict[str, Any], path: str) -> list[Cause]:
    """``validateOwnerReference``: an apiVersion that ``schema.ParseGroupVersion`` rejects
    or that names no version, and a banned owner kind (``BannedOwners``: core v1 Event)."""
    api_version = str(ref.get("apiVersion") or "")
    parts = api_version.split("/")
    group, version = ("", parts[0]) if len(parts) == 1 else (parts[0], parts[-1])
    causes: list[Cause] = []
    if api_version and (len(parts) > 2 or not version):
        group, version = "", ""
        causes.append(
            fe.invalid(f"{path}.apiVersion", api_version, "must be <group>/<version> or <version>")
        )
    if (group, version, ref.get("kind")) == ("", "v1", "Event"):
        causes.append(fe.invalid(path, None, "/v1, Kind=Event is disallowed from being an owner"))
    return causes


def generic_meta_only(info: ResourceInfo) -> bool:
    """Whether only rest.BeforeCreate's generic metadata check runs for ``info``."""
    return info.kind in GENERIC_META_ONLY or (info.api_version, info.kind) in _GENERIC_META_ONLY_AT


def name_errors(kind: str, name: str, prefix: bool, obj: dict[str, Any]) -> list[str]:
    """The kind's ValidateNameFunc on a name, or (``prefix``) on a generateName."""
    if kind in _UNCHECKED_NAMES:
        return []
    if kind == "IPAddress":  # ValidateIPAddressName: IsValidIP; a prefix is not special
        return ip_errors(name)
    if kind == "LeaseCandidate":  # ValidLeaseCandidateName: IsConfigMapKey, prefix or not
        return config_key_errors(name)
    if kind == "StorageVersion":  # ValidateStorageVersionName ignores the prefix flag too
        return storage_version_name_errors(name)
    if kind in GENERIC_META_ONLY or (obj.get("apiVersion"), kind) in _GENERIC_META_ONLY_AT:
        return _path_segment_errors(name, prefix)
    if kind in _RBAC_NAMED:
        return _path_segment_errors(name, False)
    if kind == "APIService":  # a path segment named spec.version + "." + spec.group
        return _path_segment_errors(name, False) or _apiservice_name_errors(name, obj)
    if kind == "ClusterTrustBundle":
        signer = str((obj.get("spec") or {}).get("signerName") or "")
        if not signer:
            if ":" in name:
                return ['ClusterTrustBundle without signer name must not have ":" in its name']
            return dns1123_subdomain_errors(_mask(name) if prefix else name)
        required = signer.replace("/", ":") + ":"
        if not name.startswith(required):
            return [f"ClusterTrustBundle for signerName {signer} must be named with prefix {required}"]
        rest = name[len(required) :]
        return dns1123_subdomain_errors(_mask(rest) if prefix else rest)
    check: Callable[[str], list[str]] = (
        dns1123_label_errors if kind in _LABEL_NAMED else dns1123_subdomain_errors
    )
    return check(_mask(name) if prefix else name)


def _mask(name: str) -> str:
    """``maskTrailingDash``: a generateName may end in "-" (its last two characters
    become "a" before the check, as upstream)."""
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def labels_causes(labels: dict[str, Any], path: str) -> list[Cause]:
    """``ValidateLabels``: key and value errors both name the map at ``path``."""
    causes: list[Cause] = []
    for k, v in sorted(labels.items()):
        causes += [fe.invalid(path, k, e) for e in label_key_errors(k)]
        causes += [fe.invalid(path, str(v), e) for e in label_value_errors(str(v))]
    return causes


def annotations_causes(annotations: dict[str, Any], path: str) -> list[Cause]:
    """``ValidateAnnotations``: qualified-name keys and at most 256 KiB in all."""
    causes: list[Cause] = []
    for k in sorted(annotations):
        causes += [fe.invalid(path, k, e) for e in label_key_errors(k)]
    if sum(len(k) + len(str(v)) for k, v in annotations.items()) > _ANNOTATIONS_MAX:
        causes.append(
            Cause(path, "FieldValueTooLong", "Too long: must have at most 262144 bytes")
        )
    return causes


_STANDARD_FINALIZERS: Final = ("kubernetes", "orphan", "foregroundDeletion")


def finalizer_name_causes(name: str, path: str) -> list[Cause]:
    """Core's ``validateFinalizerName``: a qualified name, and an unprefixed one must be a
    standard finalizer; every error at ``path``."""
    causes = [fe.invalid(path, name, e) for e in label_key_errors(name)]
    if "/" not in name and name not in _STANDARD_FINALIZERS:
        causes.append(
            fe.invalid(path, name, "name is neither a standard finalizer name nor is it fully qualified")
        )
    return causes


def _finalizer_causes(finalizers: list[Any], kube: bool) -> list[Cause]:
    """ValidateFinalizers (qualified names; not both orphan and foregroundDeletion) and
    core's validateKubeFinalizerName (an unprefixed name must be a standard one)."""
    causes: list[Cause] = []
    for f in map(str, finalizers):
        causes += [fe.invalid("metadata.finalizers", f, e) for e in label_key_errors(f)]
    if "orphan" in finalizers and "foregroundDeletion" in finalizers:
        causes.append(
            fe.invalid(
                "metadata.finalizers",
                finalizers,
                "finalizer orphan and foregroundDeletion cannot be both set",
            )
        )
    for i, f in enumerate(map(str, finalizers)):
        if kube and "/" not in f and f not in _STANDARD_FINALIZERS:
            causes.append(
                fe.invalid(
                    f"metadata.finalizers[{i}]",
                    f,
                    "name is neither a standard finalizer name nor is it fully qualified",
                )
            )
    return causes


def _apiservice_name_errors(name: str, obj: dict[str, Any]) -> list[str]:
    """kube-aggregator's ``ValidateAPIService`` name rule."""
    raw = obj.get("spec")
    spec: dict[str, Any] = raw if isinstance(raw, dict) else {}
    required = f"{spec.get('version') or ''}.{spec.get('group') or ''}"
    return [] if name == required else [f'must be `spec.version+"."+spec.group`: "{required}"']


def _path_segment_errors(name: str, prefix: bool) -> list[str]:
    """``path.ValidatePathSegmentName``: not "." or ".." (a prefix may be), no "/" or "%"."""
    if not prefix and name in (".", ".."):
        return [f"may not be {name!r}"]
    return [f"may not contain {c!r}" for c in "/%" if c in name]
