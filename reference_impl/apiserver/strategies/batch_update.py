"""The update rules of a Job's spec (``ValidateJobSpecUpdate``, 1.37.2) beyond the plain
immutable fields: ``validateCompletions`` (an Indexed job's completions change only in
tandem with parallelism) and ``validatePodTemplateUpdate`` (the template is frozen unless
the old Job is suspended and not started, when scheduling directives, template labels and
annotations and the containers' resources may change)."""

from __future__ import annotations

import copy
from typing import Any

from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["completions_update_causes", "template_update_causes"]

Obj = dict[str, Any]


def completions_update_causes(spec: Obj, ospec: Obj) -> list[Cause]:
    """``validateCompletions``."""
    new, old = spec.get("completions"), ospec.get("completions")
    if spec.get("completionMode") != "Indexed":
        return [] if new == old else [fe.invalid("spec.completions", new, "field is immutable")]
    if new == old or new is None or new == spec.get("parallelism"):
        return []
    return [
        fe.invalid("spec.completions", new, "can only be modified in tandem with spec.parallelism")
    ]


def _mutable_template(old: Obj) -> bool:
    """The strategy's ``shouldAllowMutablePodTemplate`` (the MutableSchedulingDirectives- and
    MutablePodResourcesForSuspendedJobs gates are on by default in 1.37)."""
    spec, status = old.get("spec") or {}, old.get("status") or {}
    suspended_cond = any(
        isinstance(c, dict) and c.get("type") == "Suspended" and c.get("status") == "True"
        for c in status.get("conditions") or []
    )
    not_started = status.get("startTime") is None
    return (
        bool(spec.get("suspend")) and (not_started or suspended_cond) and not status.get("active")
    )


def _put(dst: Obj, src: Obj, key: str) -> None:
    if key in src:
        dst[key] = copy.deepcopy(src[key])
    else:
        dst.pop(key, None)


def _loosen_scheduling(template: Obj, old: Obj) -> None:
    """Copy what ``AllowMutableSchedulingDirectives`` lets change from ``template`` to ``old``."""
    pod, opod = template.get("spec") or {}, old.setdefault("spec", {})
    aff, oaff = pod.get("affinity"), opod.get("affinity")
    if aff is None and isinstance(oaff, dict):
        oaff.pop("nodeAffinity", None)
        if not oaff:
            opod.pop("affinity")
    elif isinstance(aff, dict) and oaff is None:
        opod["affinity"] = {k: copy.deepcopy(v) for k, v in aff.items() if k == "nodeAffinity"}
    elif isinstance(aff, dict) and isinstance(oaff, dict):
        _put(oaff, aff, "nodeAffinity")
    for key in ("nodeSelector", "tolerations", "schedulingGates"):
        _put(opod, pod, key)
    meta, ometa = template.get("metadata") or {}, old.setdefault("metadata", {})
    for key in ("annotations", "labels"):
        _put(ometa, meta, key)


def _loosen_resources(pod: Obj, opod: Obj) -> None:
    """``validatePodResourceUpdatesOnly``: take the containers' resources from ``pod``."""
    for key in ("containers", "initContainers"):
        new, old = pod.get(key) or [], opod.get(key) or []
        if len(new) != len(old):
            continue
        for n, o in zip(new, old, strict=True):
            if isinstance(n, dict) and isinstance(o, dict) and n.get("name") == o.get("name"):
                _put(o, n, "resources")


def template_update_causes(job: Obj, old: Obj) -> list[Cause]:
    """``validatePodTemplateUpdate``."""
    template = (job.get("spec") or {}).get("template") or {}
    otemplate = copy.deepcopy((old.get("spec") or {}).get("template") or {})
    mutable = _mutable_template(old)
    if mutable:
        _loosen_scheduling(template, otemplate)
    if not mutable:
        if template == otemplate:
            return []
        return [fe.invalid("spec.template", template, "field is immutable")]
    pod, opod = template.get("spec") or {}, otemplate.get("spec") or {}
    _loosen_resources(pod, opod)
    return [] if pod == opod else [fe.invalid("spec.template.spec", pod, "field is immutable")]
