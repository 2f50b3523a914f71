"""``HasAPIObjectReference`` of ``pkg/api/pod/util.go`` (1.37.2): whether a pod names an API
object (what a mirror pod may not do), the resource named first, in upstream's order:
service account, secrets, config maps, resource claims, then the volumes one by one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from reference_impl.apiserver.admission.service_account import pod_secret_names

__all__ = ["has_api_object_reference", "pod_configmap_names"]

Obj = dict[str, Any]
# Volume sources that need no API object (the switch's "continue" case).
_LOCAL: Final = frozenset({
    "awsElasticBlockStore", "azureDisk", "cephfs", "cinder", "downwardAPI", "emptyDir", "fc",
    "flexVolume", "flocker", "gcePersistentDisk", "gitRepo", "hostPath", "image", "iscsi",
    "nfs", "photonPersistentDisk", "portworxVolume", "quobyte", "rbd", "scaleIO", "storageos",
    "vsphereVolume",
})  # fmt: skip
# The rest, in the switch's order, with the resource it reports.
_REMOTE: Final = (
    ("configMap", "configmaps (via configmap volumes)"),
    ("secret", "secrets (via secret volumes)"),
    ("csi", "csidrivers (via CSI volumes)"),
    ("glusterfs", "endpoints (via glusterFS volumes)"),
    ("persistentVolumeClaim", "persistentvolumeclaims"),
    ("ephemeral", "persistentvolumeclaims (via ephemeral volumes)"),
    ("azureFile", "secrets (via azureFile volumes)"),
)
_PROJECTED: Final = (
    ("configMap", "configmaps (via projected volumes)"),
    ("secret", "secrets (via projected volumes)"),
    ("serviceAccountToken", "serviceaccounts (via projected volumes)"),
    ("clusterTrustBundle", "clustertrustbundles"),
    ("podCertificate", "podcertificates"),
)


def _dicts(value: Any) -> list[Obj]:
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def pod_configmap_names(pod: Obj) -> Iterator[str]:
    """``VisitPodConfigmapNames`` over every container kind (empty names skipped)."""
    spec = pod.get("spec") or {}
    names: list[Any] = []
    for f in ("initContainers", "containers", "ephemeralContainers"):
        for c in _dicts(spec.get(f)):
            names += [e["configMapRef"].get("name") for e in _dicts(c.get("envFrom")) if isinstance(e.get("configMapRef"), dict)]  # noqa: E501
            names += [
                e["valueFrom"]["configMapKeyRef"].get("name")
                for e in _dicts(c.get("env"))
                if isinstance((e.get("valueFrom") or {}).get("configMapKeyRef"), dict)
            ]
    for v in _dicts(spec.get("volumes")):
        if isinstance(v.get("projected"), dict):
            names += [s["configMap"].get("name") for s in _dicts(v["projected"].get("sources")) if isinstance(s.get("configMap"), dict)]  # noqa: E501
        elif isinstance(v.get("configMap"), dict):
            names.append(v["configMap"].get("name"))
    yield from (str(n) for n in names if n)


def _volume_reference(v: Obj) -> tuple[bool, str, str | None]:
    sources = {k for k, val in v.items() if k != "name" and val is not None}
    if sources & _LOCAL:
        return False, "", None
    for key, resource in _REMOTE:
        if key in sources:
            return True, resource, None
    if "projected" in sources:
        for s in _dicts((v["projected"] or {}).get("sources")):
            hit = next((r for k, r in _PROJECTED if s.get(k) is not None), None)
            if hit is not None:
                return True, hit, None
            if s.get("downwardAPI") is None:
                return True, "", f'unknown source for projected volume "{v.get("name")}"'
        return False, "", None
    return True, "", f'unknown volume type for volume  "{v.get("name")}"'


def has_api_object_reference(pod: Obj) -> tuple[bool, str, str | None]:
    """(references, resource, error): ``HasAPIObjectReference``."""
    spec = pod.get("spec") or {}
    if spec.get("serviceAccountName"):
        return True, "serviceaccounts", None
    if next(pod_secret_names(pod), None) is not None:
        return True, "secrets", None
    if next(pod_configmap_names(pod), None) is not None:
        return True, "configmaps", None
    if spec.get("resourceClaims"):
        return True, "resourceclaims", None
    for v in _dicts(spec.get("volumes")):
        found = _volume_reference(v)
        if found[0]:
            return found
    return False, "", None
