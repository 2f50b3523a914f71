"""Pod-spec fields of gates that are GA and locked on in 1.37 (so only an older emulation
version turns them off), dropped as ``dropDisabledFields`` of ``pkg/api/pod/util.go``
drops them while the gate is off and the stored spec does not use them; for pods and
every pod template:

- ``hostUsers`` (UserNamespacesSupport) and ``hostnameOverride`` (HostnameOverride);
- ``securityContext.supplementalGroupsPolicy`` (SupplementalGroupsPolicy);
- ``dropDisabledProcMountField`` (ProcMountType): a container's procMount is forced to
  ``Default`` (never to nil: that would diff against data persisted since 1.12);
- ``dropDisabledNodeInclusionPolicyFields`` (NodeInclusionPolicyInPodTopologySpread):
  the constraints' nodeTaintsPolicy and nodeAffinityPolicy, each kept when in use;
- ``dropDisabledMatchLabelKeysFieldInPodAffinity`` (MatchLabelKeysInPodAffinity): the
  (anti-)affinity terms' matchLabelKeys and mismatchLabelKeys;
- the containers' ``resizePolicy`` (InPlacePodVerticalScaling; in use: a regular or init
  container has one);
- ``dropImageVolumes`` (ImageVolume): image volumes and the mounts of them;
- ``dropSELinuxChangePolicy`` (SELinuxChangePolicy): ``securityContext.seLinuxChangePolicy``;
- ``dropDisabledDynamicResourceAllocationFields`` (DynamicResourceAllocation): the pod's
  ``resourceClaims`` and every container's ``resources.claims`` (in use: pod claims).
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, preparer
from reference_impl.apiserver.strategies.pod_alpha_drops import SPEC_PATHS, pod_spec_at
from reference_impl.features import FeatureGates
from reference_impl.features.gate_memo import per_gates

__all__ = ["drop_ga_fields"]

Obj = dict[str, Any]


def _dicts(value: Any) -> list[Obj]:
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _contexts(spec: Obj) -> list[Obj]:
    """Every container's securityContext."""
    fields = ("initContainers", "containers", "ephemeralContainers")
    return [
        c["securityContext"]
        for f in fields
        for c in _dicts(spec.get(f))
        if isinstance(c.get("securityContext"), dict)
    ]


def _affinity_terms(spec: Obj) -> list[Obj]:
    """Every pod (anti-)affinity term, the weighted ones' podAffinityTerm included."""
    aff = spec.get("affinity")
    out: list[Obj] = []
    for kind in ("podAffinity", "podAntiAffinity"):
        pa = aff.get(kind) if isinstance(aff, dict) else None
        if not isinstance(pa, dict):
            continue
        out += _dicts(pa.get("requiredDuringSchedulingIgnoredDuringExecution"))
        for w in _dicts(pa.get("preferredDuringSchedulingIgnoredDuringExecution")):
            if isinstance(w.get("podAffinityTerm"), dict):
                out.append(w["podAffinityTerm"])
    return out


def _drop_image_volumes(spec: Obj) -> None:
    """``dropImageVolumes``: the volumes and every container's mounts of them."""
    vols = _dicts(spec.get("volumes"))
    names = {v.get("name") for v in vols if v.get("image") is not None}
    _keep(spec, "volumes", [v for v in vols if v.get("image") is None])
    for f in ("initContainers", "containers", "ephemeralContainers"):
        for c in _dicts(spec.get(f)):
            mounts = _dicts(c.get("volumeMounts"))
            _keep(c, "volumeMounts", [m for m in mounts if m.get("name") not in names])


def _keep(holder: Obj, key: str, items: list[Obj]) -> None:
    """Go's append onto a nil slice: an emptied list is nil (omitted)."""
    if items:
        holder[key] = items
    else:
        holder.pop(key, None)


def _drop_more(spec: Obj, old: Obj, gates: FeatureGates) -> None:
    if not gates.enabled("MatchLabelKeysInPodAffinity") and not any(
        t.get("matchLabelKeys") or t.get("mismatchLabelKeys") for t in _affinity_terms(old)
    ):
        for t in _affinity_terms(spec):
            t.pop("matchLabelKeys", None)
            t.pop("mismatchLabelKeys", None)
    regular = ("containers", "initContainers")
    if not gates.enabled("InPlacePodVerticalScaling") and not any(
        c.get("resizePolicy") for f in regular for c in _dicts(old.get(f))
    ):
        for f in (*regular, "ephemeralContainers"):
            for c in _dicts(spec.get(f)):
                c.pop("resizePolicy", None)
    if not gates.enabled("ImageVolume") and not any(
        v.get("image") is not None for v in _dicts(old.get("volumes"))
    ):
        _drop_image_volumes(spec)
    if not gates.enabled("DynamicResourceAllocation") and not old.get("resourceClaims"):
        for f in ("initContainers", "containers", "ephemeralContainers"):
            for c in _dicts(spec.get(f)):
                if isinstance(c.get("resources"), dict):
                    c["resources"].pop("claims", None)
        spec.pop("resourceClaims", None)
    old_sc, sc = old.get("securityContext"), spec.get("securityContext")
    in_use = isinstance(old_sc, dict) and old_sc.get("seLinuxChangePolicy") is not None
    if not gates.enabled("SELinuxChangePolicy") and not in_use and isinstance(sc, dict):
        sc.pop("seLinuxChangePolicy", None)


_GATES: Final = (
    "UserNamespacesSupport",
    "SupplementalGroupsPolicy",
    "ProcMountType",
    "NodeInclusionPolicyInPodTopologySpread",
    "HostnameOverride",
    "MatchLabelKeysInPodAffinity",
    "InPlacePodVerticalScaling",
    "ImageVolume",
    "DynamicResourceAllocation",
    "SELinuxChangePolicy",
)


@per_gates
def _all_on(gates: FeatureGates) -> bool:
    """Whether every gate this module drops for is on (the 1.37 defaults)."""
    return all(gates.enabled(g) for g in _GATES)


def drop_ga_fields(spec: Obj, old_spec: Obj | None, gates: FeatureGates) -> None:
    """The drops above on a pod spec; ``old_spec`` is None on create."""
    if _all_on(gates):  # each drop below needs its gate off
        return
    old: Obj = old_spec or {}
    if not gates.enabled("UserNamespacesSupport") and old.get("hostUsers") is None:
        spec.pop("hostUsers", None)
    sc, old_sc = spec.get("securityContext"), old.get("securityContext")
    old_sgp = old_sc.get("supplementalGroupsPolicy") if isinstance(old_sc, dict) else None
    if not gates.enabled("SupplementalGroupsPolicy") and old_sgp is None and isinstance(sc, dict):
        sc.pop("supplementalGroupsPolicy", None)
    # procMountInUse: only a non-default value counts.
    if not gates.enabled("ProcMountType") and not any(
        c.get("procMount") not in (None, "Default") for c in _contexts(old)
    ):
        for c in _contexts(spec):
            if c.get("procMount") is not None:
                c["procMount"] = "Default"
    if not gates.enabled("NodeInclusionPolicyInPodTopologySpread"):
        tsc = "topologySpreadConstraints"
        for key in ("nodeTaintsPolicy", "nodeAffinityPolicy"):
            if not any(c.get(key) is not None for c in _dicts(old.get(tsc))):
                for c in _dicts(spec.get(tsc)):
                    c.pop(key, None)
    if not gates.enabled("HostnameOverride") and old.get("hostnameOverride") is None:
        spec.pop("hostnameOverride", None)
    _drop_more(spec, old, gates)


def _register(kind: str) -> None:
    @preparer(kind)
    def drop_ga_pod_fields(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
        if _all_on(ctx.gates):
            return
        spec = pod_spec_at(obj, kind)
        if spec is not None:
            drop_ga_fields(spec, pod_spec_at(old, kind), ctx.gates)


for _kind in SPEC_PATHS:
    _register(_kind)
