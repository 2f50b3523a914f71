"""Models pkg/controller/job/job_scheduling_manager.go (KEP-5547, gate WorkloadWithJob).

With the gate on, every root Job (no controller owner, no ``schedulingGroup`` in its pod
template) gets, before its first pod, one Workload with one PodGroupTemplate and one
PodGroup made from it, both controlled by the Job; its pods name the PodGroup in
``spec.schedulingGroup.podGroupName``. A Job without ``spec.scheduling`` gets the
``basic`` policy. The objects are created only for a Job that never started; a started
one only discovers them. Names are upstream's exactly: Workload ``<job>-<hash>``
(FNV-32a of the spew dump of the Job's uid), template ``<job>-pgt-0``, PodGroup
``<workload>-<template>-<hash>`` (FNV-32a of both names). ``gang.minCount`` defaults
to the Job's parallelism (at least 1); changing it on the Job updates the template and
the PodGroup in place (a gang resize), every other field is immutable on both sides.
Not modelled: PodGroups delegated by a parent controller (the template-name annotation).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, Final

from reference_impl.apiserver.server import APIServer
from reference_impl.controllers.controller_utils import controller_ref, owner_reference
from reference_impl.errors import AlreadyExists, Conflict

__all__ = [
    "SCHEDULING_API",
    "ensure_job_workload",
    "manages_workload",
    "pod_group_name",
    "template_name",
    "workload_name",
]

Obj = dict[str, Any]
SCHEDULING_API: Final = "scheduling.k8s.io/v1beta1"
_SAFE: Final = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery rand.SafeEncodeString
_DNS1123_SUBDOMAIN_MAX: Final = 253


def _fnv32a_safe(data: bytes) -> str:
    """FNV-32a of ``data``, its decimal digits safe-encoded (``rand.SafeEncodeString``)."""
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return "".join(_SAFE[ord(c) % len(_SAFE)] for c in str(h))


def workload_name(job: Mapping[str, Any]) -> str:
    """``<job>-<hash>``: upstream hashes ``hashutil.DeepHashObject(job.UID)``, i.e. the
    spew ``%#v`` dump of a ``types.UID``, which is ``(types.UID)<uid>``."""
    meta = job["metadata"]
    digest = _fnv32a_safe(f"(types.UID){meta['uid']}".encode())
    prefix = str(meta["name"])[: _DNS1123_SUBDOMAIN_MAX - len(digest) - 1]
    return f"{prefix}-{digest}"


def template_name(job: Mapping[str, Any]) -> str:
    """The one PodGroupTemplate: ``<job>-pgt-0``."""
    return f"{job['metadata']['name']}-pgt-0"


def pod_group_name(workload: str, template: str) -> str:
    """``<workload>-<template>-<hash>`` within 253 characters; when too long, each part
    keeps up to half the room and a short part lends the rest to the other."""
    digest = _fnv32a_safe((workload + template).encode())
    room = _DNS1123_SUBDOMAIN_MAX - len(digest) - 2
    wl, tpl = workload, template
    if len(wl) + len(tpl) > room:
        half = room // 2
        if len(wl) <= half:
            tpl = tpl[: room - len(wl)]
        elif len(tpl) <= half:
            wl = wl[: room - len(tpl)]
        else:
            wl, tpl = wl[: room - half], tpl[:half]
    return f"{wl}-{tpl}-{digest}"


def manages_workload(job: Mapping[str, Any]) -> bool:
    """``getManagementMode`` for a root Job: no controller owner and no pod-template group."""
    if (job["spec"].get("template") or {}).get("spec", {}).get("schedulingGroup"):
        return False
    return controller_ref(job) is None


def _is_new(job: Mapping[str, Any], pods: Sequence[Mapping[str, Any]]) -> bool:
    """``isNewJob``: no pods, never started, nothing counted, never suspended."""
    st = job.get("status") or {}
    if pods or st.get("startTime") or st.get("succeeded") or st.get("failed"):
        return False
    return not any(c.get("type") == "Suspended" for c in st.get("conditions") or ())


def _policy(job: Mapping[str, Any]) -> Obj:
    """The template's scheduling policy: basic by default; gang minCount defaults to
    parallelism, clamped to at least 1."""
    pol = (job["spec"].get("scheduling") or {}).get("schedulingPolicy") or {}
    if pol.get("gang") is None:
        return {"basic": {}}
    mc = pol["gang"].get("minCount")
    if mc is None:
        mc = max(1, int(job["spec"].get("parallelism", 1)))
    return {"gang": {"minCount": int(mc)}}


def _group_fields(job: Mapping[str, Any]) -> Obj:
    """What the template and the PodGroup copy from the Job."""
    sched = job["spec"].get("scheduling") or {}
    out: Obj = {"schedulingPolicy": _policy(job)}
    for f in ("disruptionMode", "schedulingConstraints", "resourceClaims"):
        if sched.get(f):
            out[f] = copy.deepcopy(sched[f])
    pcn = ((job["spec"].get("template") or {}).get("spec") or {}).get("priorityClassName")
    if pcn:
        out["priorityClassName"] = pcn
    return out


def _workload(job: Mapping[str, Any]) -> Obj:
    meta = job["metadata"]
    return {
        "apiVersion": SCHEDULING_API,
        "kind": "Workload",
        "metadata": {
            "name": workload_name(job),
            "namespace": meta["namespace"],
            "ownerReferences": [owner_reference(job)],
        },
        "spec": {
            "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": meta["name"]},
            "podGroupTemplates": [{"name": template_name(job), **_group_fields(job)}],
        },
    }


def _pod_group(job: Mapping[str, Any], wl: Obj) -> Obj:
    tpl = wl["spec"]["podGroupTemplates"][0]
    # The Workload is a non-controller owner without blockOwnerDeletion, as upstream.
    wl_ref = {
        "apiVersion": SCHEDULING_API,
        "kind": "Workload",
        "name": wl["metadata"]["name"],
        "uid": wl["metadata"]["uid"],
    }
    spec = {k: copy.deepcopy(v) for k, v in tpl.items() if k != "name"}
    spec["workloadRef"] = {"workloadName": wl_ref["name"], "templateName": tpl["name"]}
    return {
        "apiVersion": SCHEDULING_API,
        "kind": "PodGroup",
        "metadata": {
            "name": pod_group_name(wl_ref["name"], tpl["name"]),
            "namespace": job["metadata"]["namespace"],
            "ownerReferences": [owner_reference(job), wl_ref],
        },
        "spec": spec,
    }


def _controlled(server: APIServer, kind: str, job: Mapping[str, Any], name: str) -> Obj | None:
    found = server.try_get(SCHEDULING_API, kind, name, job["metadata"]["namespace"])
    if found is None or (controller_ref(found) or {}).get("uid") != job["metadata"]["uid"]:
        return None  # a user's object of that name is never adopted
    return found


def _get_or_create(server: APIServer, job: Mapping[str, Any], obj: Obj, new: bool) -> Obj | None:
    meta = obj["metadata"]
    found = _controlled(server, obj["kind"], job, meta["name"])
    if found is not None or not new:
        return found
    try:
        return server.create(obj)
    except AlreadyExists:
        return _controlled(server, obj["kind"], job, meta["name"])


def _sync_min_count(server: APIServer, obj: Obj, policy: Obj) -> None:
    """Carry a changed ``gang.minCount`` into a template or a PodGroup (resize in place)."""
    spec = obj["spec"]
    target = spec["podGroupTemplates"][0] if obj["kind"] == "Workload" else spec
    if target.get("schedulingPolicy") == policy or policy.get("gang") is None:
        return
    if (target.get("schedulingPolicy") or {}).get("gang") is None:
        return  # the variant never changes; only the count does
    target["schedulingPolicy"] = copy.deepcopy(policy)
    try:
        server.update(obj)
    except Conflict:
        pass  # a newer version exists; the next sync retries


def ensure_job_workload(
    server: APIServer, job: Mapping[str, Any], pods: Sequence[Mapping[str, Any]]
) -> str | None:
    """Create (for a new Job), discover and resize the Job's Workload and PodGroup; the
    PodGroup's name, or None when the Job schedules pod by pod."""
    if not manages_workload(job):
        return None
    new, policy = _is_new(job, pods), _policy(job)
    wl = _get_or_create(server, job, _workload(job), new)
    if wl is None:
        return None
    pg = _get_or_create(server, job, _pod_group(job, wl), new)
    if pg is None:
        return None
    _sync_min_count(server, copy.deepcopy(wl), policy)
    _sync_min_count(server, copy.deepcopy(pg), policy)
    return str(pg["metadata"]["name"])
