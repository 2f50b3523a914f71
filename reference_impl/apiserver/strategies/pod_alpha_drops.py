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
from reference_impl.features.gate_memo import per_gates

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


_ALL: Final = ("initContainers", "containers", "ephemeralContainers")
_PROBES: Final = ("livenessProbe", "readinessProbe", "startupProbe")
_OFF_GATES: Final = (
    "AtomicWriteVolumeUserFields", "H2CContainerProbe", "VolumeBindMountOptions",
    "ContainerStopSignals", "EmptyDirVolumeMode", "GRPCContainerProbeTLS", "GenericWorkload",
)  # fmt: skip


def _containers(spec: Obj) -> list[Obj]:
    return [c for f in _ALL for c in _dicts(spec.get(f))]


def _mounts(containers: list[Obj]) -> list[Obj]:
    return [m for c in containers for m in _dicts(c.get("volumeMounts"))]


def _http_gets(containers: list[Obj]) -> list[Obj]:
    """Every container's probe and lifecycle handler ``httpGet``."""
    out: list[Obj] = []
    for c in containers:
        handlers = [c.get(p) for p in _PROBES]
        life = c.get("lifecycle")
        if isinstance(life, dict):
            handlers += [life.get("postStart"), life.get("preStop")]
        out += [h["httpGet"] for h in handlers if isinstance(h, dict) and isinstance(h.get("httpGet"), dict)]
    return out


def _grpcs(containers: list[Obj]) -> list[Obj]:
    """Every container's probe ``grpc`` action."""
    probes = [c.get(p) for c in containers for p in _PROBES]
    return [p["grpc"] for p in probes if isinstance(p, dict) and isinstance(p.get("grpc"), dict)]


def _empty_dirs(spec: Obj) -> list[Obj]:
    return [v["emptyDir"] for v in _dicts(spec.get("volumes")) if isinstance(v.get("emptyDir"), dict)]


def _lifecycles(containers: list[Obj]) -> list[Obj]:
    return [c["lifecycle"] for c in containers if isinstance(c.get("lifecycle"), dict)]


@per_gates
def _off(gates: FeatureGates) -> frozenset[str]:
    """The gates above that are off (all but GenericWorkload by default)."""
    return frozenset(g for g in _OFF_GATES if not gates.enabled(g))


def _drop_more(spec: Obj, ospec: Obj | None, off: frozenset[str], cs: list[Obj], ocs: list[Obj]) -> None:
    """The drops of the gates added after the first three (same in-use rule); ``cs`` and
    ``ocs``: the containers of ``spec`` and ``ospec``, walked once."""
    if "ContainerStopSignals" in off and (
        ospec is None or not any(lc.get("stopSignal") is not None for lc in _lifecycles(ocs))
    ):
        for c in cs:
            life = c.get("lifecycle")
            if isinstance(life, dict) and life.get("stopSignal") is not None:
                life.pop("stopSignal")
                if not any(v is not None for v in life.values()):  # == api.Lifecycle{}
                    c.pop("lifecycle")
    if "EmptyDirVolumeMode" in off and (
        ospec is None or not any(e.get("mode") is not None for e in _empty_dirs(ospec))
    ):
        for e in _empty_dirs(spec):
            e.pop("mode", None)
    # grpcProbeModeInUse: any mode, Plaintext included, keeps the field.
    if "GRPCContainerProbeTLS" in off and (
        ospec is None or not any(g.get("mode") is not None for g in _grpcs(ocs))
    ):
        for g in _grpcs(cs):
            g.pop("mode", None)
    if "GenericWorkload" in off and (ospec is None or ospec.get("schedulingGroup") is None):
        spec.pop("schedulingGroup", None)


def _drop(obj: Obj, old: Obj | None, kind: str, gates: FeatureGates) -> None:
    spec = _spec(obj, kind)
    if spec is None:
        return
    off = _off(gates)
    if not off:
        return
    ospec = _spec(old, kind)
    # No drop here adds or removes a container, so each spec's list is walked once.
    cs, ocs = _containers(spec), ([] if ospec is None else _containers(ospec))
    # atomicWriteVolumeUserFieldsInUse: kept
    if "AtomicWriteVolumeUserFields" in off and (
        ospec is None or not any(h.get(k) is not None for h, k in _user_holders(ospec))
    ):
        for holder, key in _user_holders(spec):
            holder.pop(key, None)
    # httpProbeProtocolInUse: kept
    if "H2CContainerProbe" in off and (
        ospec is None or not any(g.get("protocol") is not None for g in _http_gets(ocs))
    ):
        for get in _http_gets(cs):
            get.pop("protocol", None)
    # bindMountOptionsInUse: kept
    if "VolumeBindMountOptions" in off and (
        ospec is None or not any(m.get("bindMountOptions") for m in _mounts(ocs))
    ):
        for mount in _mounts(cs):
            mount.pop("bindMountOptions", None)
    _drop_more(spec, ospec, off, cs, ocs)


def drop_alpha_fields(obj: Obj, old: Obj | None, kind: str, gates: FeatureGates) -> None:
    """The drops above on ``obj`` (a ``kind`` of ``_SPECS``); ``old`` is None on create."""
    _drop(obj, old, kind, gates)


def _register(kind: str) -> None:
    @preparer(kind)
    def drop_alpha_pod_fields(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
        _drop(obj, old, kind, ctx.gates)


for _kind in _SPECS:
    _register(_kind)
