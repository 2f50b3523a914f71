"""Pod-spec fields of gates that are on by default in 1.37 but may be turned off, dropped
on write while the gate is off unless the stored spec already uses them
(``dropDisabledFields`` of ``pkg/api/pod/util.go``), for pods and every pod template:

- ``dropDisabledPodLevelResources`` (PodLevelResources): ``spec.resources``;
- ``dropDisabledMatchLabelKeysFieldInTopologySpread`` (MatchLabelKeysInPodTopologySpread);
- ``dropDisabledClusterTrustBundleProjection`` / ``dropDisabledPodCertificateProjection``
  (ClusterTrustBundleProjection, PodCertificateRequest): the projected sources;
- ``dropFileKeyRefInUse`` (EnvFiles): the env vars' ``valueFrom.fileKeyRef``;
- ``dropContainerRestartRules`` (ContainerRestartRules): container ``restartPolicy`` (an
  init container keeps ``Always``, the sidecar marker) and ``restartPolicyRules``.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, preparer
from reference_impl.apiserver.strategies.pod_alpha_drops import SPEC_PATHS, pod_spec_at
from reference_impl.apiserver.validation.pod_options import container_restart_rules_in_use
from reference_impl.features import FeatureGates
from reference_impl.features.gate_memo import per_gates

__all__ = ["drop_beta_fields"]

Obj = dict[str, Any]


def _dicts(value: Any) -> list[Obj]:
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _containers(spec: Obj, fields: tuple[str, ...] = ("initContainers", "containers", "ephemeralContainers")) -> list[Obj]:  # noqa: E501
    return [c for f in fields for c in _dicts(spec.get(f))]


def _sources(spec: Obj) -> list[Obj]:
    return [
        s
        for v in _dicts(spec.get("volumes"))
        if isinstance(v.get("projected"), dict)
        for s in _dicts(v["projected"].get("sources"))
    ]


def _file_refs(spec: Obj) -> list[Obj]:
    return [
        e["valueFrom"]
        for c in _containers(spec)
        for e in _dicts(c.get("env"))
        if isinstance(e.get("valueFrom"), dict) and e["valueFrom"].get("fileKeyRef") is not None
    ]


def _pod_level_in_use(spec: Obj) -> bool:
    """``podLevelResourcesInUse``: requests or limits at pod level."""
    res = spec.get("resources")
    return isinstance(res, dict) and bool(res.get("requests") or res.get("limits"))


def _drop_restart_rules(spec: Obj) -> None:
    """``dropContainerRestartRules``."""
    for c in _dicts(spec.get("initContainers")):
        if c.get("restartPolicy") not in (None, "Always"):
            c.pop("restartPolicy")
        c.pop("restartPolicyRules", None)
    for c in _containers(spec, ("containers", "ephemeralContainers")):
        c.pop("restartPolicy", None)
        c.pop("restartPolicyRules", None)


_GATES: Final = (
    "PodLevelResources",
    "MatchLabelKeysInPodTopologySpread",
    "ClusterTrustBundleProjection",
    "PodCertificateRequest",
    "EnvFiles",
    "ContainerRestartRules",
)


@per_gates
def _all_on(gates: FeatureGates) -> bool:
    """Whether every gate this module drops for is on (the 1.37 defaults)."""
    return all(gates.enabled(g) for g in _GATES)


def drop_beta_fields(spec: Obj, old_spec: Obj | None, gates: FeatureGates) -> None:
    """The drops above on a pod spec; ``old_spec`` is None on create."""
    if _all_on(gates):  # each drop below needs its gate off
        return
    old: Obj = old_spec or {}
    if not gates.enabled("PodLevelResources") and not _pod_level_in_use(old):
        spec.pop("resources", None)
    tsc = "topologySpreadConstraints"
    if not gates.enabled("MatchLabelKeysInPodTopologySpread") and not any(
        c.get("matchLabelKeys") for c in _dicts(old.get(tsc))
    ):
        for c in _dicts(spec.get(tsc)):
            c.pop("matchLabelKeys", None)
    for gate, key in (
        ("ClusterTrustBundleProjection", "clusterTrustBundle"),
        ("PodCertificateRequest", "podCertificate"),
    ):
        if not gates.enabled(gate) and not any(s.get(key) is not None for s in _sources(old)):
            for s in _sources(spec):
                s.pop(key, None)
    if not gates.enabled("EnvFiles") and not _file_refs(old):
        for ref in _file_refs(spec):
            ref.pop("fileKeyRef")
    if not gates.enabled("ContainerRestartRules") and not container_restart_rules_in_use(old):
        _drop_restart_rules(spec)


def _register(kind: str) -> None:
    @preparer(kind)
    def drop_beta_pod_fields(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
        if _all_on(ctx.gates):
            return
        spec = pod_spec_at(obj, kind)
        if spec is not None:
            drop_beta_fields(spec, pod_spec_at(old, kind), ctx.gates)


for _kind in SPEC_PATHS:
    _register(_kind)
