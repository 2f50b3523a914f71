"""The pods/resize strategy and validation: ``podResizeStrategy`` (``dropNonResizeUpdates``,
``pkg/registry/core/pod/strategy.go``) and ``ValidatePodResize``
(``pkg/apis/core/validation/validation.go``) after the pod spec's own rules."""

from __future__ import annotations

import copy
from typing import Any, Final

from reference_impl.api.well_known_annotations import MIRROR_POD
from reference_impl.apiserver.quota.pod_resources import compute_pod_qos, get_pod_qos
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause
from reference_impl.features import FeatureGates

__all__ = ["drop_non_resize_updates", "pod_resize_causes"]

Obj = dict[str, Any]
_PLR_GATE: Final = "InPlacePodLevelResourcesVerticalScaling"
_VOLUME_GATE: Final = "InPlacePodVerticalScalingMemoryBackedVolumes"
_CPU_MEM: Final = ("cpu", "memory")


def _norm(v: Any) -> Any:
    """``Semantic.DeepEqual``'s view: an empty map or list is the same as none."""
    if isinstance(v, dict):
        out = {k: _norm(x) for k, x in v.items()}
        return {k: x for k, x in out.items() if x not in (None, {}, [])}
    if isinstance(v, list):
        return [_norm(x) for x in v]
    return v


def _set(d: Obj, key: str, value: Any) -> None:
    if value is None:
        d.pop(key, None)
    else:
        d[key] = value


# -- the strategy -------------------------------------------------------------------------


def _merge_containers(new: list[Obj], old: list[Obj]) -> list[Obj]:
    """``dropNonResizeUpdatesForContainers``: the old containers with the new resources
    and resize policies; a renamed or reordered list stays as sent, for validation."""
    if not new:
        return new
    out = copy.deepcopy(old)
    for i, c in enumerate(new):
        if out[i].get("name") != c.get("name"):
            return new
        _set(out[i], "resources", copy.deepcopy(c.get("resources")))
        _set(out[i], "resizePolicy", copy.deepcopy(c.get("resizePolicy")))
    return out


def drop_non_resize_updates(new: Obj, old: Obj, gates: FeatureGates) -> Obj:
    """``dropNonResizeUpdates``: ``old`` with the container resources and resize policies
    of ``new`` (and its pod-level resources with InPlacePodLevelResourcesVerticalScaling);
    added or removed containers leave ``new`` as sent."""
    ns, os_ = new.get("spec") or {}, old["spec"]
    for f in ("containers", "initContainers"):
        if len(ns.get(f) or ()) != len(os_.get(f) or ()):
            return new
    out = copy.deepcopy(old)
    spec = out["spec"]
    if gates.enabled(_PLR_GATE):
        _set(spec, "resources", copy.deepcopy(ns.get("resources")))
    if gates.enabled(_VOLUME_GATE):
        _set(spec, "volumes", copy.deepcopy(ns.get("volumes")))
    for f in ("containers", "initContainers"):
        _set(spec, f, _merge_containers(ns.get(f) or [], os_.get(f) or []) or None)
    out["metadata"]["resourceVersion"] = (new.get("metadata") or {}).get("resourceVersion")
    # PodLevelResourcesFixDefaulting: a client unaware of pod-level resources keeps them.
    if "resources" not in spec and "resources" in os_:
        spec["resources"] = copy.deepcopy(os_["resources"])
    return out


# -- ValidatePodResize --------------------------------------------------------------------


def _drop_cpu_memory(rl: Obj | None, old: Obj | None) -> Obj | None:
    """``dropCPUMemoryUpdates``: ``rl`` with cpu and memory as they were in ``old``."""
    if rl is None and old is None:
        return None
    out = {k: v for k, v in (rl or {}).items() if k not in _CPU_MEM}
    out.update({k: v for k, v in (old or {}).items() if k in _CPU_MEM})
    return out


def _masked_requirements(res: Obj | None, old: Obj | None) -> Obj | None:
    """``dropCPUMemoryResourceRequirementsUpdates`` of pod-level resources."""
    if res is None:
        return None
    out = dict(res)
    o = old or {}
    for part in ("requests", "limits"):
        _set(out, part, _drop_cpu_memory(res.get(part), o.get(part)))
    if old is None and not (out.get("requests") or out.get("limits") or out.get("claims")):
        return None
    return out


def _masked_container(c: Obj, old: Obj) -> Obj:
    """``dropCPUMemoryResourcesFromContainer``: ``c`` with the old cpu and memory."""
    res, o = c.get("resources") or {}, old.get("resources") or {}
    masked = {p: _drop_cpu_memory(res.get(p), o.get(p)) for p in ("limits", "requests")}
    masked["claims"] = res.get("claims")
    return {**c, "resources": {k: v for k, v in masked.items() if v is not None}}


def _removed(new: Obj | None, old: Obj | None) -> bool:
    """``resourcesRemoved``: a resource of ``old`` is missing from ``new``."""
    return any(k not in (new or {}) for k in old or {})


def _container_resize(new: Obj, old: Obj, path: str) -> list[Cause]:
    """``validateContainerResize``: requests and limits may not be removed."""
    nr, orq = new.get("resources") or {}, old.get("resources") or {}
    out: list[Cause] = []
    if _removed(nr.get("requests"), orq.get("requests")):
        out.append(fe.forbidden(f"{path}.requests", "resource requests cannot be removed"))
    if _removed(nr.get("limits"), orq.get("limits")):
        out.append(fe.forbidden(f"{path}.limits", "resource limits cannot be removed"))
    return out


def _plr_set(spec: Obj) -> bool:
    res = spec.get("resources")
    return isinstance(res, dict) and bool(res.get("requests") or res.get("limits"))


def _pod_level_resize(new: Obj, old: Obj, spec_copy: Obj) -> list[Cause]:
    """``validatePodLevelResourcesResize``; leaves the masked resources in ``spec_copy``."""
    nres, ores = new.get("resources"), old.get("resources")
    if ores is not None and nres is None:
        return [fe.forbidden("spec.resources", "pod-level resources cannot be removed")]
    out: list[Cause] = []
    if ores is not None and nres is not None:
        for part, what in (("requests", "requests"), ("limits", "limits")):
            if _removed(nres.get(part), ores.get(part)):
                msg = f"pod-level resource {what} cannot be removed"
                out.append(fe.forbidden(f"spec.resources.{part}", msg))
    masked = _masked_requirements(nres, ores)
    _set(spec_copy, "resources", masked)
    if _norm(masked) != _norm(ores):
        out.append(fe.forbidden("spec", "only cpu and memory resources are mutable at pod-level"))
    return out


def _ordering(new: Obj, old: Obj) -> list[Cause]:
    """``validatePodResizeContainerOrdering``: no added, removed, renamed or moved containers."""
    out: list[Cause] = []
    for f in ("containers", "initContainers"):
        nc, oc = new.get(f) or [], old.get(f) or []
        if len(nc) != len(oc):
            out.append(fe.forbidden(f"spec.{f}", f"{f} may not be added or removed on resize"))
            continue
        for i, c in enumerate(oc):
            if nc[i].get("name") != c.get("name"):
                msg = f"{f} may not be renamed or reordered on resize"
                out.append(fe.forbidden(f"spec.{f}[{i}].name", msg))
    return out


def _regular_containers(new: Obj, old: Obj, spec_copy: Obj) -> list[Cause]:
    out: list[Cause] = []
    masked = []
    for c, o in zip(new.get("containers") or [], old.get("containers") or [], strict=True):
        m = _masked_container(c, o)
        if _norm(m) != _norm(o):
            out.append(fe.forbidden("spec", "only cpu and memory resources are mutable"))
        masked.append(m)
    spec_copy["containers"] = masked
    return out


def _init_containers(new: Obj, old: Obj, spec_copy: Obj) -> list[Cause]:
    """Init containers (InPlacePodVerticalScalingInitContainers is GA): cpu and memory
    only, and a non-sidecar one may not be resized under a RestartContainer policy."""
    out: list[Cause] = []
    masked = []
    for i, (c, o) in enumerate(zip(new.get("initContainers") or [], old.get("initContainers") or [], strict=True)):
        p = f"spec.initContainers[{i}]"
        m = _masked_container(c, o)
        if _norm(m) != _norm(o):
            out.append(fe.forbidden(p, "only cpu and memory resources for init or sidecar containers are mutable"))
        if _norm(c) != _norm(o) and c.get("restartPolicy") != "Always":
            msg = "non-sidecar init containers with a resize policy of RestartContainer cannot be resized"
            out += [fe.forbidden(p, msg) for rp in m.get("resizePolicy") or () if rp.get("restartPolicy") == "RestartContainer"]
        masked.append(m)
    _set(spec_copy, "initContainers", masked or None)
    return out


def _node_supports_resize(pod: Obj) -> bool:
    """``isPodResizeRequestSupported``: the first running container reports resources."""
    for c in (pod.get("status") or {}).get("containerStatuses") or ():
        if (c.get("state") or {}).get("running") is not None:
            return c.get("resources") is not None
    return True


def _early(old: Obj) -> Cause | None:
    """Static (mirror) and windows pods are never resized; the error stands alone."""
    if MIRROR_POD in (old["metadata"].get("annotations") or {}):
        return fe.forbidden("[]", "static pods cannot be resized")
    if (old["spec"].get("os") or {}).get("name") == "windows":
        return fe.forbidden("[]", "windows pods cannot be resized")
    return None


def _qos_causes(new: Obj, old: Obj, gates: FeatureGates) -> list[Cause]:
    kw: dict[str, bool] = {
        "pod_level": gates.enabled("PodLevelResources"),
        "fix_kubelet_qos": gates.enabled("PodLevelResourcesFixKubeletQOSClass"),
    }
    if get_pod_qos(old, **kw) == compute_pod_qos(new, **kw):
        return []
    qos = (new.get("status") or {}).get("qosClass", "")
    return [fe.invalid("spec", qos, "Pod QOS Class may not change as a result of resizing")]


def pod_resize_causes(new: Obj, old: Obj, gates: FeatureGates, prior: list[Cause]) -> list[Cause]:
    """``ValidatePodResize`` after ``prior`` (the metadata and spec rules' causes)."""
    early = _early(old)
    if early is not None:
        return [early]
    causes = prior + _qos_causes(new, old, gates)
    if not _node_supports_resize(old):
        causes.append(fe.forbidden("spec", "Pod running on node without support for resize"))
    ns, os_ = new["spec"], old["spec"]
    spec_copy = copy.deepcopy(ns)
    if _plr_set(os_) or _plr_set(ns):
        if not gates.enabled(_PLR_GATE):
            msg = "resize of pods with pod-level resources is forbidden when InPlacePodLevelResourcesVerticalScalingEnabled feature gate is disabled"
            return [*causes, fe.forbidden("[]", msg)]
        causes += _pod_level_resize(ns, os_, spec_copy)
    order = _ordering(ns, os_)
    if order:
        return causes + order
    for f in ("initContainers", "containers"):
        for i, (c, o) in enumerate(zip(ns.get(f) or [], os_.get(f) or [], strict=True)):
            causes += _container_resize(c, o, f"spec.{f}[{i}].resources")
    causes += _regular_containers(ns, os_, spec_copy) + _init_containers(ns, os_, spec_copy)
    causes += _volumes(ns, os_, spec_copy, gates)
    if not causes and _norm(spec_copy) != _norm(os_):
        causes.append(fe.forbidden("spec", "only cpu and memory resources are mutable"))
    return causes


def _volumes(new: Obj, old: Obj, spec_copy: Obj, gates: FeatureGates) -> list[Cause]:
    """Volumes are immutable on resize while memory-backed volume resize is off."""
    if gates.enabled(_VOLUME_GATE):
        _set(spec_copy, "volumes", copy.deepcopy(old.get("volumes")))
        return []  # the memory-backed sizeLimit rules are not ported: the gate is off here
    if _norm(new.get("volumes")) != _norm(old.get("volumes")):
        msg = "volumes are immutable on resize when InPlacePodVerticalScalingMemoryBackedVolumes feature gate is disabled"
        return [fe.forbidden("spec.volumes", msg)]
    return []
