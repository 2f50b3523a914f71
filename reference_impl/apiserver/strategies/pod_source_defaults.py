"""The generated defaults of a pod spec's volume sources and container env
(``pkg/apis/core/v1/zz_generated.defaults.go``: ``SetObjectDefaults_Pod`` and every
kind with a pod template), which ``default_pod`` applies to pods and templates alike.

Volumes: ``SetDefaults_HostPathVolumeSource`` (type ""), the Secret, ConfigMap,
DownwardAPI and Projected sources' ``defaultMode`` 0644, ``SetDefaults_ObjectFieldSelector``
(apiVersion v1) in their items, ``SetDefaults_ServiceAccountTokenProjection`` (an hour),
the ``+default`` markers of iSCSI (iscsiInterface "default"), RBD (pool "rbd", user
"admin", keyring "/etc/ceph/keyring") and ScaleIO (storageMode "ThinProvisioned",
fsType "xfs"). Containers: an env ``fieldRef``'s apiVersion, a ``fileKeyRef``'s
``optional`` false, a gRPC probe's ``service`` "".
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["default_container_sources", "default_volume_source"]

Obj = dict[str, Any]
_MODE_0644: Final = 0o644
_MARKERS: Final[dict[str, tuple[tuple[str, str], ...]]] = {
    "iscsi": (("iscsiInterface", "default"),),
    "rbd": (("pool", "rbd"), ("user", "admin"), ("keyring", "/etc/ceph/keyring")),
    "scaleIO": (("storageMode", "ThinProvisioned"), ("fsType", "xfs")),
}


def _dicts(value: Any) -> list[Obj]:
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _field_selector(holder: Any) -> None:
    ref = holder.get("fieldRef") if isinstance(holder, dict) else None
    if isinstance(ref, dict) and not ref.get("apiVersion"):
        ref["apiVersion"] = "v1"


def default_volume_source(source: Obj) -> None:
    """The defaults of a Volume's (or PersistentVolume spec's) sources."""
    host = source.get("hostPath")
    if isinstance(host, dict) and host.get("type") is None:
        host["type"] = ""
    for name in ("secret", "configMap", "downwardAPI", "projected"):
        s = source.get(name)
        if isinstance(s, dict) and s.get("defaultMode") is None:
            s["defaultMode"] = _MODE_0644
    downward = source.get("downwardAPI")
    for item in _dicts(downward.get("items") if isinstance(downward, dict) else None):
        _field_selector(item)
    projected = source.get("projected")
    for s in _dicts(projected.get("sources") if isinstance(projected, dict) else None):
        d = s.get("downwardAPI")
        for item in _dicts(d.get("items") if isinstance(d, dict) else None):
            _field_selector(item)
        token = s.get("serviceAccountToken")
        if isinstance(token, dict) and token.get("expirationSeconds") is None:
            token["expirationSeconds"] = 3600
    for name, markers in _MARKERS.items():
        s = source.get(name)
        if isinstance(s, dict):
            for key, value in markers:
                if not s.get(key):
                    s[key] = value


def default_container_sources(container: Obj) -> None:
    """A container's env value sources and gRPC probes."""
    for env in _dicts(container.get("env")):
        source = env.get("valueFrom")
        if isinstance(source, dict):
            _field_selector(source)
            ref = source.get("fileKeyRef")
            if isinstance(ref, dict) and ref.get("optional") is None:
                ref["optional"] = False
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        p = container.get(probe)
        grpc = p.get("grpc") if isinstance(p, dict) else None
        if isinstance(grpc, dict) and grpc.get("service") is None:
            grpc["service"] = ""
