"""Models pkg/controller/job/job_workload.go (KEP-5547, gate WorkloadWithJob).

A Job with ``spec.scheduling`` gets, before its pods, one Workload with one
PodGroupTemplate and one PodGroup made from it, both owned by the Job; its pods name the
PodGroup in ``spec.schedulingGroup.podGroupName``. Names follow the real controller:
Workload ``<job>-<hash>``, template ``<job>-pgt-0``, PodGroup
``<workload>-<template>-<hash>``. ``gang.minCount`` defaults to the Job's parallelism;
changing it on the Job updates the template and the PodGroup in place (a gang resize),
every other field is immutable on both sides.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from reference_impl.apiserver.server import APIServer
from reference_impl.controllers.controller_utils import owner_reference
from reference_impl.errors import AlreadyExists, Conflict

__all__ = ["SCHEDULING_API", "ensure_job_workload", "pod_group_name", "workload_name"]

Obj = dict[str, Any]
SCHEDULING_API: Final = "scheduling.k8s.io/v1beta1"
_SAFE: Final = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery rand.SafeEncodeString


def _hash(text: str) -> str:
    """FNV-32a of ``text``, safe-encoded like ``controller.ComputeHash``."""
    h = 0x811C9DC5
    for b in text.encode():
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return "".join(_SAFE[ord(c) % len(_SAFE)] for c in str(h))


def workload_name(job: Mapping[str, Any]) -> str:
    """``<job>-<hash of the Job's uid>``."""
    meta = job["metadata"]
    return f"{meta['name'][:52]}-{_hash(str(meta['uid']))}"


def template_name(job: Mapping[str, Any]) -> str:
    """The one PodGroupTemplate: ``<job>-pgt-0``."""
    return f"{job['metadata']['name'][:57]}-pgt-0"


def pod_group_name(job: Mapping[str, Any]) -> str:
    """``<workload>-<template>-<hash>``, at most 253 characters."""
    wl, tpl = workload_name(job), template_name(job)
    return f"{wl}-{tpl}"[:242] + f"-{_hash(wl + '/' + tpl)}"


def _policy(job: Mapping[str, Any]) -> Obj:
    """The template's scheduling policy: gang minCount defaults to parallelism."""
    sched = job["spec"]["scheduling"]
    pol = sched.get("schedulingPolicy") or {"basic": {}}
    if pol.get("gang") is None:
        return {"basic": {}}
    mc = pol["gang"].get("minCount") or int(job["spec"].get("parallelism", 1)) or 1
    return {"gang": {"minCount": int(mc)}}


def _group_fields(job: Mapping[str, Any]) -> Obj:
    """What the template and the PodGroup copy from ``Job.spec.scheduling``."""
    sched = job["spec"]["scheduling"]
    out: Obj = {"schedulingPolicy": _policy(job)}
    for f in ("disruptionMode", "schedulingConstraints", "resourceClaims"):
        if sched.get(f):
            out[f] = copy.deepcopy(sched[f])
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
    wl_ref = {
        "apiVersion": SCHEDULING_API,
        "kind": "Workload",
        "name": wl["metadata"]["name"],
        "uid": wl["metadata"]["uid"],
    }
    return {
        "apiVersion": SCHEDULING_API,
        "kind": "PodGroup",
        "metadata": {
            "name": pod_group_name(job),
            "namespace": job["metadata"]["namespace"],
            "ownerReferences": [owner_reference(job), wl_ref],
        },
        "spec": {
            **_group_fields(job),
            "workloadRef": {"workloadName": wl_ref["name"], "templateName": template_name(job)},
        },
    }


def _get_or_create(server: APIServer, obj: Obj) -> Obj:
    meta = obj["metadata"]
    found = server.try_get(obj["apiVersion"], obj["kind"], meta["name"], meta["namespace"])
    if found is not None:
        return found
    try:
        return server.create(obj)
    except AlreadyExists:
        return server.get(obj["apiVersion"], obj["kind"], meta["name"], meta["namespace"])


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


def ensure_job_workload(server: APIServer, job: Mapping[str, Any]) -> str | None:
    """Create or resize the Job's Workload and PodGroup; the PodGroup's name, or None when
    the Job has no ``spec.scheduling``."""
    if not job["spec"].get("scheduling"):
        return None
    policy = _policy(job)
    wl = _get_or_create(server, _workload(job))
    _sync_min_count(server, copy.deepcopy(wl), policy)
    pg = _get_or_create(server, _pod_group(job, wl))
    _sync_min_count(server, copy.deepcopy(pg), policy)
    return str(pg["metadata"]["name"])
