"""Pod-spec fields of alpha gates (off by default in 1.37), dropped on write while the
gate is off unless the stored object's spec already uses them
(``pkg/api/pod/util.go``), for pods and every pod template (``DropDisabledTemplateFields``):

- ``dropDisabledAtomicWriteVolumeUserFields`` (AtomicWriteVolumeUserFields): the volume
  sources' ``defaultUser`` and their items' ``user``;
- ``dropHTTPProbeProtocol`` (H2CContainerProbe): ``httpGet.protocol`` of the probes and
  lifecycle handlers;
- the volume mounts' ``bindMountOptions`` (VolumeBindMountOptions);
- ``dropContainerStopSignals`` (ContainerStopSignals): ``lifecycle.stopSignal``, and the
  lifecycle itself when nothing else is left in it;
- ``emptyDir.mode`` of the volumes (EmptyDirVolumeMode);
- ``dropDisabledGRPCContainerProbeTLS`` (GRPCContainerProbeTLS): the probes' ``grpc.mode``;
- ``dropDisabledSchedulingGroup`` (GenericWorkload, beta but off): ``schedulingGroup``.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, preparer
from reference_impl.features import FeatureGates

__all__ = ["SPEC_PATHS", "drop_alpha_fields", "pod_spec_at"]

Obj = dict[str, Any]
_SOURCES: Final = ("secret", "configMap", "downwardAPI", "projected")
_PROJECTED_USER: Final = ("serviceAccountToken", "clusterTrustBundle", "podCertificate")
# kind -> the path of its pod spec
_SPECS: Final[dict[str, tuple[str, ...]]] = {
    "Pod": ("spec",),
    "PodTemplate": ("template", "spec"),
    "ReplicationController": ("spec", "template", "spec"),
    "Deployment": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}


SPEC_PATHS: Final = _SPECS


def _dicts(value: Any) -> list[Obj]:
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _spec(obj: Obj | None, kind: str) -> Obj | None:
    node: Any = obj
    for step in _SPECS[kind]:
        node = node.get(step) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


def pod_spec_at(obj: Obj | None, kind: str) -> Obj | None:
    """The pod spec of ``obj``, a ``kind`` of SPEC_PATHS (None when absent)."""
    return _spec(obj, kind)


def _user_holders(spec: Obj) -> list[tuple[Obj, str]]:
    """Every (mapping, key) of a user field the gate covers, first source only (as the
    upstream switch)."""
    out: list[tuple[Obj, str]] = []
    for vol in _dicts(spec.get("volumes")):
        name = next((n for n in _SOURCES if isinstance(vol.get(n), dict)), None)
        if name is None:
            continue
        src = vol[name]
        out.append((src, "defaultUser"))
        if name != "projected":
            out += [(item, "user") for item in _dicts(src.get("items"))]
            continue
        for s in _dicts(src.get("sources")):
            kind = next((n for n in ("secret", "downwardAPI", "configMap", *_PROJECTED_USER) if isinstance(s.get(n), dict)), None)
            if kind in _PROJECTED_USER:
                out.append((s[kind], "user"))
            elif kind is not None:
                out += [(item, "user") for item in _dicts(s[kind].get("items"))]
    return out


def _mounts(spec: Obj) -> list[Obj]:
    fields = ("initContainers", "containers", "ephemeralContainers")
    return [m for f in fields for c in _dicts(spec.get(f)) for m in _dicts(c.get("volumeMounts"))]


def _http_gets(spec: Obj) -> list[Obj]:
    """Every container's probe and lifecycle handler ``httpGet``."""
    out: list[Obj] = []
    for field in ("initContainers", "containers", "ephemeralContainers"):
        for c in _dicts(spec.get(field)):
            handlers = [c.get(p) for p in ("livenessProbe", "readinessProbe", "startupProbe")]
            life = c.get("lifecycle")
            if isinstance(life, dict):
                handlers += [life.get("postStart"), life.get("preStop")]
            out += [h["httpGet"] for h in handlers if isinstance(h, dict) and isinstance(h.get("httpGet"), dict)]
    return out


def _containers(spec: Obj) -> list[Obj]:
    fields = ("initContainers", "containers", "ephemeralContainers")
    return [c for f in fields for c in _dicts(spec.get(f))]


def _grpcs(spec: Obj) -> list[Obj]:
    """Every container's probe ``grpc`` action."""
    probes = [c.get(p) for c in _containers(spec) for p in ("livenessProbe", "readinessProbe", "startupProbe")]  # noqa: E501
    return [p["grpc"] for p in probes if isinstance(p, dict) and isinstance(p.get("grpc"), dict)]


def _empty_dirs(spec: Obj) -> list[Obj]:
    return [v["emptyDir"] for v in _dicts(spec.get("volumes")) if isinstance(v.get("emptyDir"), dict)]


def _lifecycles(spec: Obj) -> list[Obj]:
    return [c["lifecycle"] for c in _containers(spec) if isinstance(c.get("lifecycle"), dict)]


def _drop_more(spec: Obj, ospec: Obj | None, gates: FeatureGates) -> None:
    """The drops of the gates added after the first three (same in-use rule)."""
    if not gates.enabled("ContainerStopSignals") and (
        ospec is None or not any(lc.get("stopSignal") is not None for lc in _lifecycles(ospec))
    ):
        for c in _containers(spec):
            life = c.get("lifecycle")
            if isinstance(life, dict) and life.get("stopSignal") is not None:
                life.pop("stopSignal")
                if not any(v is not None for v in life.values()):  # == api.Lifecycle{}
                    c.pop("lifecycle")
    if not gates.enabled("EmptyDirVolumeMode") and (
        ospec is None or not any(e.get("mode") is not None for e in _empty_dirs(ospec))
    ):
        for e in _empty_dirs(spec):
            e.pop("mode", None)
    # grpcProbeModeInUse: any mode, Plaintext included, keeps the field.
    if not gates.enabled("GRPCContainerProbeTLS") and (
        ospec is None or not any(g.get("mode") is not None for g in _grpcs(ospec))
    ):
        for g in _grpcs(spec):
            g.pop("mode", None)
    if not gates.enabled("GenericWorkload") and (
        ospec is None or ospec.get("schedulingGroup") is None
    ):
        spec.pop("schedulingGroup", None)


def _drop(obj: Obj, old: Obj | None, kind: str, gates: FeatureGates) -> None:
    spec = _spec(obj, kind)
    if spec is None:
        return
    ospec = _spec(old, kind)
    # atomicWriteVolumeUserFieldsInUse: kept
    if not gates.enabled("AtomicWriteVolumeUserFields") and (
        ospec is None or not any(h.get(k) is not None for h, k in _user_holders(ospec))
    ):
        for holder, key in _user_holders(spec):
            holder.pop(key, None)
    # httpProbeProtocolInUse: kept
    if not gates.enabled("H2CContainerProbe") and (
        ospec is None or not any(g.get("protocol") is not None for g in _http_gets(ospec))
    ):
        for get in _http_gets(spec):
            get.pop("protocol", None)
    # bindMountOptionsInUse: kept
    if not gates.enabled("VolumeBindMountOptions") and (
        ospec is None or not any(m.get("bindMountOptions") for m in _mounts(ospec))
    ):
        for mount in _mounts(spec):
            mount.pop("bindMountOptions", None)
    _drop_more(spec, ospec, gates)


def drop_alpha_fields(obj: Obj, old: Obj | None, kind: str, gates: FeatureGates) -> None:
    """The drops above on ``obj`` (a ``kind`` of ``_SPECS``); ``old`` is None on create."""
    _drop(obj, old, kind, gates)


def _register(kind: str) -> None:
    @preparer(kind)
    def drop_alpha_pod_fields(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
        _drop(obj, old, kind, ctx.gates)


for _kind in _SPECS:
    _register(_kind)
