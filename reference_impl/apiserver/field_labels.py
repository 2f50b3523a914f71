"""Selectable fields beyond pods and nodes, and every version's field label conversions.

The registries' ``GetAttrs``/``ToSelectableFields`` (pkg/registry/**) name the fields an
object can be selected by; the schemes' ``AddFieldLabelConversionFunc`` tables
(pkg/apis/*/v1*/conversion.go) name the labels a client may send for one group/version
and kind, each with its own error text. A kind with no table takes
``runtime.DefaultMetaV1FieldSelectorConversion`` (metadata.name and metadata.namespace);
a kind with no ``AttrFunc`` the store's ``DefaultNamespaceScopedAttr`` or
``DefaultClusterScopedAttr``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from reference_impl.apiserver.validation.field import quote

__all__ = [
    "DEFAULT_CONVERSION",
    "SELECTABLE",
    "Conversion",
    "conversion_for",
    "meta_fields",
]

Obj = dict[str, Any]


def meta_fields(obj: Obj, *, namespaced: bool) -> dict[str, str]:
    """``generic.ObjectMetaFieldsSet`` (also the store's default attrs)."""
    meta = obj.get("metadata") or {}
    out = {"metadata.name": str(meta.get("name") or "")}
    if namespaced:
        out["metadata.namespace"] = str(meta.get("namespace") or "")
    return out


def _get(obj: Obj, path: str) -> Any:
    cur: Any = obj
    for part in path.split("."):
        cur = cur.get(part) if isinstance(cur, dict) else None
    return cur


def _s(obj: Obj, path: str) -> str:
    v = _get(obj, path)
    return "" if v is None else str(v)


def _itoa(obj: Obj, path: str) -> str:
    """``strconv.Itoa`` of an int32 status count (absent reads as 0)."""
    return str(int(_get(obj, path) or 0))


def event_to_selectable_fields(ev: Obj) -> dict[str, str]:
    """core/event ``ToSelectableFields``. An events.k8s.io object names the same fields
    ``regarding``, ``reportingController`` and ``deprecatedSource``."""
    events_api = "regarding" in ev or str(ev.get("apiVersion", "")).startswith("events.k8s.io/")
    ref = (ev.get("regarding") if events_api else ev.get("involvedObject")) or {}
    reporting = _s(ev, "reportingController")
    source = _s(ev, "deprecatedSource.component" if events_api else "source.component")
    out = {f"involvedObject.{k}": str(ref.get(k) or "") for k in (
        "kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")}  # fmt: skip
    out.update({
        "reason": _s(ev, "reason"),
        "reportingComponent": reporting,  # the core/v1 name of reportingController
        "source": source or reporting,
        "type": _s(ev, "type"),
    })  # fmt: skip
    return {**out, **meta_fields(ev, namespaced=True)}


def _with_meta(namespaced: bool, **paths: str) -> Callable[[Obj], dict[str, str]]:
    """``MergeFieldsSets(ObjectMetaFieldsSet(...), {field: value at path})``."""

    def fields(obj: Obj) -> dict[str, str]:
        out = meta_fields(obj, namespaced=namespaced)
        out.update({field: _s(obj, path) for field, path in paths.items()})
        return out

    return fields


def _with_meta_name(namespaced: bool, **extra: str) -> Callable[[Obj], dict[str, str]]:
    """Registries that still also select on the bare ``name`` ("a bug, kept for
    backward compatibility"); no conversion accepts it."""
    base = _with_meta(namespaced, **extra)

    def fields(obj: Obj) -> dict[str, str]:
        out = base(obj)
        out["name"] = out["metadata.name"]
        return out

    return fields


def _with_count(field: str, path: str) -> Callable[[Obj], dict[str, str]]:
    def fields(obj: Obj) -> dict[str, str]:
        return {**meta_fields(obj, namespaced=True), field: _itoa(obj, path)}

    return fields


# (API group, kind) -> the registry's selectable fields; Pod and Node live in
# field_selectors. Field names are the registry's (internal) ones.
SELECTABLE: dict[tuple[str, str], Callable[[Obj], dict[str, str]]] = {
    ("", "Event"): event_to_selectable_fields,
    ("events.k8s.io", "Event"): event_to_selectable_fields,
    ("", "Namespace"): _with_meta_name(False, **{"status.phase": "status.phase"}),
    ("", "Secret"): _with_meta(True, type="type"),
    ("", "Service"): _with_meta(True, **{"spec.clusterIP": "spec.clusterIP", "spec.type": "spec.type"}),
    ("", "ReplicationController"): _with_count("status.replicas", "status.replicas"),
    ("", "PersistentVolume"): _with_meta_name(False),
    ("", "PersistentVolumeClaim"): _with_meta_name(True),
    ("apps", "ReplicaSet"): _with_count("status.replicas", "status.replicas"),
    ("batch", "Job"): _with_count("status.successful", "status.succeeded"),
    ("certificates.k8s.io", "CertificateSigningRequest"): _with_meta(
        False, **{"spec.signerName": "spec.signerName"}),
    ("certificates.k8s.io", "ClusterTrustBundle"): _with_meta(
        False, **{"spec.signerName": "spec.signerName"}),
    ("certificates.k8s.io", "PodCertificateRequest"): _with_meta(True, **{
        "spec.signerName": "spec.signerName", "spec.podName": "spec.podName",
        "spec.nodeName": "spec.nodeName"}),
    ("resource.k8s.io", "ResourceSlice"): _with_meta(False, **{
        "spec.nodeName": "spec.nodeName", "spec.driver": "spec.driver",
        "spec.pool.name": "spec.pool.name"}),
    ("coordination.k8s.io", "LeaseCandidate"): _with_meta(
        True, **{"spec.leaseName": "spec.leaseName"}),
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Conversion:
    """One ``FieldLabelConversionFunc``: accepted label -> the registry's field, and the
    error text for any other label."""

    labels: Mapping[str, str]
    error: Callable[[str], str]

    def convert(self, label: str) -> str | None:
        return self.labels.get(label)


def _same(*labels: str) -> dict[str, str]:
    return {label: label for label in labels}


def _not_supported(label: str) -> str:
    return f"field label not supported: {label}"


def _not_known(label: str) -> str:
    return f"{quote(label)} is not a known field selector: only \"metadata.name\", \"metadata.namespace\""


DEFAULT_CONVERSION = Conversion(_same("metadata.name", "metadata.namespace"), _not_known)

_EVENTS_K8S_IO = Conversion({
    "reason": "reason",
    **{f"regarding.{k}": f"involvedObject.{k}" for k in (
        "kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")},
    "reportingController": "reportingComponent",
    "type": "type",
    **_same("metadata.namespace", "metadata.name"),
}, _not_supported)  # fmt: skip

_SIGNER = Conversion(_same("metadata.name", "spec.signerName"), _not_supported)
_POD_CERT = Conversion(
    _same("metadata.name", "spec.signerName", "spec.podName", "spec.nodeName"), _not_supported
)


def _slice(version: str) -> Conversion:
    gvk = f"resource.k8s.io/{version}, Kind=ResourceSlice"  # schema.GroupVersionKind.String
    return Conversion(
        _same("metadata.name", "spec.nodeName", "spec.driver", "spec.pool.name"),
        lambda label: f"field label not supported for {gvk}: {label}",
    )


def _stateful_set(version: str) -> Conversion:
    return Conversion(
        _same("metadata.name", "metadata.namespace", "status.successful"),
        lambda label: f"field label not supported for apps{version}.StatefulSet: {label}",
    )


def _batch_v1beta1(kind: str) -> Conversion:
    return Conversion(
        _same("metadata.name", "metadata.namespace", "status.successful"),
        lambda label: f"field label {quote(label)} not supported for {quote(kind)}",
    )


# (apiVersion, kind) -> conversion, as each version's scheme registers it.
_CONVERSIONS: dict[tuple[str, str], Conversion] = {
    ("v1", "Pod"): Conversion({
        **_same("metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy",
                "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork",
                "status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName"),
        "spec.host": "spec.nodeName",  # old v1 clients
    }, _not_supported),
    ("v1", "Node"): Conversion(_same("metadata.name", "spec.unschedulable"), _not_supported),
    ("v1", "ReplicationController"): Conversion(
        _same("metadata.name", "metadata.namespace", "status.replicas"), _not_supported),
    ("v1", "Event"): Conversion(_same(
        *(f"involvedObject.{k}" for k in (
            "kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")),
        "reason", "reportingComponent", "source", "type", "metadata.namespace",
        "metadata.name"), _not_supported),
    ("v1", "Namespace"): Conversion(_same("status.phase", "metadata.name"), _not_supported),
    ("v1", "Secret"): Conversion(
        _same("type", "metadata.namespace", "metadata.name"), _not_supported),
    ("v1", "Service"): Conversion(
        _same("metadata.namespace", "metadata.name", "spec.clusterIP", "spec.type"),
        _not_supported),
    ("events.k8s.io/v1", "Event"): _EVENTS_K8S_IO,
    ("events.k8s.io/v1beta1", "Event"): _EVENTS_K8S_IO,
    ("batch/v1", "Job"): Conversion(
        _same("metadata.name", "metadata.namespace", "status.successful"),
        lambda label: f"field label {quote(label)} not supported for Job"),
    **{("batch/v1beta1", k): _batch_v1beta1(k) for k in ("Job", "JobTemplate", "CronJob")},
    ("apps/v1beta1", "StatefulSet"): _stateful_set("v1beta1"),
    ("apps/v1beta2", "StatefulSet"): _stateful_set("v1beta2"),
    **{(f"certificates.k8s.io/{v}", "CertificateSigningRequest"): _SIGNER
       for v in ("v1", "v1beta1")},
    **{(f"certificates.k8s.io/{v}", "ClusterTrustBundle"): _SIGNER
       for v in ("v1", "v1beta1", "v1alpha1")},
    **{(f"certificates.k8s.io/{v}", "PodCertificateRequest"): _POD_CERT
       for v in ("v1", "v1beta1", "v1alpha1")},
    **{(f"resource.k8s.io/{v}", "ResourceSlice"): _slice(v) for v in ("v1", "v1beta2", "v1beta1")},
}  # fmt: skip


def conversion_for(api_version: str, kind: str) -> Conversion:
    """``Scheme.ConvertFieldLabel``'s lookup: the version's own func, else the default."""
    return _CONVERSIONS.get((api_version, kind), DEFAULT_CONVERSION)
