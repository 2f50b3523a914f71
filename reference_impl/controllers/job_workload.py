"""Models pkg/controller/job/job_scheduling_manager.go (KEP-5547, gate WorkloadWithJob).

``getManagementMode``: with the gate on, a root Job (no controller owner, no
``schedulingGroup`` in its pod template) gets one Workload with one PodGroupTemplate and
one PodGroup made from it, both controlled by the Job; a Job whose parent controller
delegated its PodGroup (annotation ``scheduling.k8s.io/group-template-name``) gets only
the PodGroup, made from the named template of the parent's Workload. Objects are found
by reference (Workload ``spec.controllerRef`` -> Job name, PodGroup
``spec.workloadRef.workloadName`` -> Workload name) and only those controlled by the Job
count; they are created only for a Job that never started (``isNewJob``). Names are
upstream's exactly: Workload ``<job>-<hash>`` (FNV-32a of the spew dump of the Job's
uid), template ``<job>-pgt-0``, PodGroup ``<workload>-<template>-<hash>``. A changed
``gang.minCount`` is carried to the live objects (a gang resize).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Protocol

from reference_impl.api.owners import is_controlled_by
from reference_impl.controllers.controller_utils import controller_ref
from reference_impl.errors import ApiError

__all__ = [
    "GROUP_TEMPLATE_NAME_ANNOTATION",
    "MANAGE_BOTH",
    "MANAGE_NONE",
    "MANAGE_POD_GROUP_ONLY",
    "SCHEDULING_API",
    "Recorder",
    "SchedulingClient",
    "SchedulingObjectsError",
    "ensure_workload_and_pod_group",
    "generate_workload",
    "is_new_job",
    "management_mode",
    "new_pod_group",
    "pod_group_name",
    "pod_group_owner_reference",
    "should_manage_workload",
    "sync_gang_min_count",
    "template_name",
    "workload_name",
]

Obj = dict[str, Any]
Recorder = Callable[[str, str, str], None]  # (event type, reason, message) on the Job
SCHEDULING_API: Final = "scheduling.k8s.io/v1beta1"
GROUP_TEMPLATE_NAME_ANNOTATION: Final = "scheduling.k8s.io/group-template-name"
MANAGE_NONE: Final = "None"
MANAGE_BOTH: Final = "Both"
MANAGE_POD_GROUP_ONLY: Final = "PodGroupOnly"
_SAFE: Final = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery rand.SafeEncodeString
_DNS1123_SUBDOMAIN_MAX: Final = 253


class SchedulingClient(Protocol):
    """What the manager calls on the apiserver (``APIServer`` fits; tests may pass a
    fake like upstream's clientset)."""

    def list(self, api_version: str, kind: str, namespace: str | None = None) -> list[Obj]: ...

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Obj: ...

    def create(self, manifest: Obj) -> Obj: ...

    def update(self, manifest: Obj) -> Obj: ...


class SchedulingObjectsError(ApiError):
    """An error ``ensureWorkloadAndPodGroup`` returns: the Job's sync fails and is retried
    (an ApiError so the work queue requeues it, as the Go controller does)."""


def _fnv32a_safe(data: bytes) -> str:
    """FNV-32a of ``data``, its decimal digits safe-encoded (``rand.SafeEncodeString``)."""
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return "".join(_SAFE[ord(c) % len(_SAFE)] for c in str(h))


def workload_name(job: Mapping[str, Any]) -> str:
    """``computeWorkloadName``: ``<job>-<hash>``; upstream hashes
    ``hashutil.DeepHashObject(job.UID)``, the spew ``%#v`` dump ``(types.UID)<uid>``."""
    meta = job["metadata"]
    digest = _fnv32a_safe(f"(types.UID){meta.get('uid', '')}".encode())
    prefix = str(meta["name"])[: _DNS1123_SUBDOMAIN_MAX - len(digest) - 1]
    return f"{prefix}-{digest}"


def template_name(job: Mapping[str, Any]) -> str:
    """``podGroupTemplateName``: the one PodGroupTemplate, ``<job>-pgt-0``."""
    return f"{job['metadata']['name']}-pgt-0"


def pod_group_name(workload: str, template: str) -> str:
    """``computePodGroupName``: ``<workload>-<template>-<hash>`` within 253 characters;
    when too long, each part keeps up to half the room and a short part lends the rest."""
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


def management_mode(job: Mapping[str, Any], gate: bool = True) -> str:
    """``getManagementMode``; ``gate`` is WorkloadWithJob. A pod-template
    ``schedulingGroup`` (the user's own PodGroup) wins over everything; a Job with a
    controller owner (CronJob, JobSet, ...) is managed only when the parent delegated
    its PodGroup through the template-name annotation."""
    if not gate:
        return MANAGE_NONE
    if ((job.get("spec") or {}).get("template") or {}).get("spec", {}).get("schedulingGroup"):
        return MANAGE_NONE
    if controller_ref(job) is None:
        return MANAGE_BOTH
    if GROUP_TEMPLATE_NAME_ANNOTATION in (job["metadata"].get("annotations") or {}):
        return MANAGE_POD_GROUP_ONLY
    return MANAGE_NONE


def should_manage_workload(job: Mapping[str, Any], gate: bool = True) -> bool:
    """``shouldManageWorkloadForJob``."""
    return management_mode(job, gate) != MANAGE_NONE


def is_new_job(job: Mapping[str, Any], pods: Sequence[Mapping[str, Any]]) -> bool:
    """``isNewJob``: no pods, no startTime, nothing counted and no Suspended condition
    (whatever its status), so a Job that predates the gate is left alone."""
    st = job.get("status") or {}
    if pods or st.get("startTime") or st.get("succeeded") or st.get("failed"):
        return False
    return not any(c.get("type") == "Suspended" for c in st.get("conditions") or ())


def _job_ref(job: Mapping[str, Any]) -> Obj:
    """``metav1.NewControllerRef(job, controllerKind)``."""
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "name": job["metadata"]["name"],
        "uid": job["metadata"].get("uid", ""),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _policy(sched: Mapping[str, Any], parallelism: Any) -> Obj:
    """``mapSchedulingPolicy`` + ``defaultMinCountForJob`` + ``compileSchedulingPolicy``:
    basic wins, then gang (an unset minCount is parallelism, at least 1, parallelism
    unset meaning 1); an empty or absent policy is the Job default, basic."""
    pol = sched.get("schedulingPolicy") or {}
    if pol.get("basic") is not None or pol.get("gang") is None:
        return {"basic": {}}
    mc = pol["gang"].get("minCount")
    if mc is None:
        mc = max(1, 1 if parallelism is None else int(parallelism))
    return {"gang": {"minCount": int(mc)}}


def _template(job: Mapping[str, Any]) -> Obj:
    """``buildWorkloadItem`` compiled by ``buildLeafTemplate``: only topology keys, a
    normalized disruption mode and the claim names/sources are carried over."""
    spec = job.get("spec") or {}
    sched = spec.get("scheduling") or {}
    out: Obj = {"name": template_name(job)}
    pcn = ((spec.get("template") or {}).get("spec") or {}).get("priorityClassName")
    if pcn:
        out["priorityClassName"] = pcn
    out["schedulingPolicy"] = _policy(sched, spec.get("parallelism"))
    topo = (sched.get("schedulingConstraints") or {}).get("topology") or []
    if topo:
        out["schedulingConstraints"] = {"topology": [{"key": t.get("key", "")} for t in topo]}
    dm = sched.get("disruptionMode") or {}
    if dm.get("single") is not None:
        out["disruptionMode"] = {"single": {}}
    elif dm.get("all") is not None:
        out["disruptionMode"] = {"all": {}}
    claims = []
    for c in sched.get("resourceClaims") or []:
        claim = {"name": c.get("name", "")}
        for f in ("resourceClaimName", "resourceClaimTemplateName"):
            if c.get(f) is not None:
                claim[f] = c[f]
        claims.append(claim)
    if claims:
        out["resourceClaims"] = claims
    return out


def generate_workload(job: Mapping[str, Any]) -> Obj:
    """``generateWorkload``: the Workload compiled from the Job, controlled by it and
    naming it in ``spec.controllerRef``."""
    return {
        "apiVersion": SCHEDULING_API,
        "kind": "Workload",
        "metadata": {
            "name": workload_name(job),
            "namespace": job["metadata"].get("namespace", "default"),
            "ownerReferences": [_job_ref(job)],
        },
        "spec": {
            "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": job["metadata"]["name"]},
            "podGroupTemplates": [_template(job)],
        },
    }


def _template_by_name(workload: Mapping[str, Any], name: str) -> Obj:
    """``getPodGroupTemplateByName``: an empty name picks the only template."""
    meta = workload["metadata"]
    tpls = (workload.get("spec") or {}).get("podGroupTemplates") or []
    if not tpls:
        raise SchedulingObjectsError(
            f"workload {meta.get('namespace')}/{meta['name']} has no PodGroupTemplates"
        )
    if not name:
        return dict(tpls[0])
    for tpl in tpls:
        if tpl.get("name") == name:
            return dict(tpl)
    raise SchedulingObjectsError(
        f'PodGroupTemplate "{name}" not found in workload {meta.get("namespace")}/{meta["name"]}'
    )


def new_pod_group(
    job: Mapping[str, Any], workload: Mapping[str, Any], template: str, link_workload_owner: bool
) -> Obj:
    """The PodGroup ``createPodGroup`` submits (``workloadbuilder.newPodGroup``): the
    template's scheduling fields, ``workloadRef`` to it, a controller ownerRef to the Job
    and, for a root Job, a plain ownerRef to the Workload (no blockOwnerDeletion)."""
    tpl = _template_by_name(workload, template)
    spec: Obj = {
        "workloadRef": {"workloadName": workload["metadata"]["name"], "templateName": tpl["name"]},
        "schedulingPolicy": copy.deepcopy(tpl.get("schedulingPolicy") or {}),
    }
    for f in ("schedulingConstraints", "disruptionMode", "resourceClaims"):
        if tpl.get(f):
            spec[f] = copy.deepcopy(tpl[f])
    for f in ("priorityClassName", "priority"):
        if tpl.get(f) not in (None, ""):
            spec[f] = tpl[f]
    owners = [_job_ref(job)]
    if link_workload_owner:
        owners.append(
            {
                "apiVersion": SCHEDULING_API,
                "kind": "Workload",
                "name": workload["metadata"]["name"],
                "uid": workload["metadata"].get("uid", ""),
            }
        )
    return {
        "apiVersion": SCHEDULING_API,
        "kind": "PodGroup",
        "metadata": {
            "name": pod_group_name(workload["metadata"]["name"], tpl["name"]),
            "namespace": workload["metadata"].get("namespace", "default"),
            "ownerReferences": owners,
        },
        "spec": spec,
    }


def pod_group_owner_reference(pod_group: Mapping[str, Any]) -> Obj:
    """The plain ownerRef a Job's pod gets to its PodGroup (``manageJob``): not a
    controller and not blocking, so the PodGroup's deletion never waits for pods."""
    meta = pod_group["metadata"]
    return {
        "apiVersion": SCHEDULING_API,
        "kind": "PodGroup",
        "name": meta["name"],
        "uid": meta["uid"],
    }


def _list(server: SchedulingClient, kind: str, ns: str, match: Callable[[Obj], bool]) -> list[Obj]:
    return [o for o in server.list(SCHEDULING_API, kind, ns) if match(o)]


def _workloads_for_job(server: SchedulingClient, job: Mapping[str, Any]) -> list[Obj]:
    """``listWorkloadsForJob``: Workloads whose ``spec.controllerRef`` names the Job."""
    name = job["metadata"]["name"]

    def match(wl: Obj) -> bool:
        ref = (wl.get("spec") or {}).get("controllerRef") or {}
        return (ref.get("apiGroup", ""), ref.get("kind"), ref.get("name")) == ("batch", "Job", name)

    return _list(server, "Workload", job["metadata"].get("namespace", "default"), match)


def _pod_groups_for_workload(server: SchedulingClient, workload: Mapping[str, Any]) -> list[Obj]:
    """``listPodGroupsForWorkload``: PodGroups whose ``spec.workloadRef`` names it."""
    name = workload["metadata"]["name"]

    def match(pg: Obj) -> bool:
        return bool(((pg.get("spec") or {}).get("workloadRef") or {}).get("workloadName") == name)

    return _list(server, "PodGroup", workload["metadata"].get("namespace", "default"), match)


def _create_pod_group(
    server: SchedulingClient,
    job: Mapping[str, Any],
    workload: Mapping[str, Any],
    template: str,
    link: bool,
    record: Recorder,
) -> Obj:
    """``createPodGroup``: a failed create is the sync's error (no event)."""
    created = server.create(new_pod_group(job, workload, template, link))
    msg = f"Created PodGroup {created['metadata']['name']} for Job {job['metadata']['name']}"
    record("Normal", "PodGroupCreated", msg)
    return created


def _get_or_create_workload(
    server: SchedulingClient, job: Mapping[str, Any], new: bool, record: Recorder
) -> Obj | None:
    """``getOrCreateWorkload``: a user's Workload (not controlled by the Job) is ignored;
    two or more controlled ones fall back to pod-by-pod scheduling; one with other than
    exactly one template is an error."""
    matched = [w for w in _workloads_for_job(server, job) if is_controlled_by(w, job)]
    meta = job["metadata"]
    if not matched:
        if not new:
            return None
        wl = generate_workload(job)
        try:
            created = server.create(wl)
        except ApiError as err:
            msg = f"Failed to create Workload for Job {meta['name']}: {err}"
            record("Warning", "FailedWorkloadCreate", msg)
            raise
        msg = f"Created Workload {created['metadata']['name']} for Job {meta['name']}"
        record("Normal", "WorkloadCreated", msg)
        return created
    if len(matched) > 1:
        return None  # utilruntime.HandleError only: "found N Workloads referencing Job ..."
    wl = matched[0]
    n = len((wl.get("spec") or {}).get("podGroupTemplates") or [])
    if n != 1:
        raise SchedulingObjectsError(
            f"workload {wl['metadata'].get('namespace')}/{wl['metadata']['name']} for job "
            f"{meta.get('namespace')}/{meta['name']} has {n} PodGroupTemplates, want exactly 1"
        )
    return wl


def _get_or_create_pod_group(
    server: SchedulingClient, job: Mapping[str, Any], wl: Obj, new: bool, record: Recorder
) -> Obj | None:
    """``getOrCreatePodGroup``: as for the Workload, but also completes a Workload left
    without its PodGroup (before any pod exists)."""
    matched = [p for p in _pod_groups_for_workload(server, wl) if is_controlled_by(p, job)]
    if not matched:
        return _create_pod_group(server, job, wl, "", True, record) if new else None
    return matched[0] if len(matched) == 1 else None


def _patch_min_count(server: SchedulingClient, obj: Mapping[str, Any], count: int) -> None:
    """``patchWorkloadMinCount`` / ``patchPodGroupMinCount``: only minCount changes."""
    meta = obj["metadata"]
    ns = meta.get("namespace")
    live = copy.deepcopy(server.get(SCHEDULING_API, obj["kind"], meta["name"], ns))
    spec = live["spec"]
    target = spec["podGroupTemplates"][0] if obj["kind"] == "Workload" else spec
    target["schedulingPolicy"]["gang"]["minCount"] = count
    server.update(live)


def _gang_min_count(policy_holder: Mapping[str, Any]) -> int | None:
    gang = (policy_holder.get("schedulingPolicy") or {}).get("gang")
    return None if gang is None else int(gang.get("minCount", 0))


def sync_gang_min_count(
    server: SchedulingClient,
    job: Mapping[str, Any],
    workload: Mapping[str, Any],
    pod_group: Mapping[str, Any] | None,
) -> None:
    """``syncGangMinCount``: carry the Job's gang size to a gang Workload (single
    template) and PodGroup; basic policies and a changed variant are left alone."""
    desired = _gang_min_count(generate_workload(job)["spec"]["podGroupTemplates"][0])
    if desired is None:
        return
    tpls = (workload.get("spec") or {}).get("podGroupTemplates") or []
    if len(tpls) == 1 and _gang_min_count(tpls[0]) not in (None, desired):
        _patch_min_count(server, workload, desired)
    if pod_group is None:
        return
    if _gang_min_count(pod_group.get("spec") or {}) not in (None, desired):
        _patch_min_count(server, pod_group, desired)


def _parent_workload(server: SchedulingClient, job: Mapping[str, Any]) -> Obj | None:
    """``findParentWorkload``: the Workload whose ``spec.controllerRef`` names the Job's
    controller owner (group from its apiVersion, kind and name)."""
    parent = controller_ref(job)
    if parent is None:
        return None
    api_version = str(parent.get("apiVersion", ""))
    parts = api_version.split("/")
    if len(parts) > 2 or (len(parts) == 2 and not parts[1]):
        return None  # schema.ParseGroupVersion refuses it
    group = parts[0] if len(parts) == 2 else ""
    for wl in server.list(SCHEDULING_API, "Workload", job["metadata"].get("namespace", "default")):
        ref = (wl.get("spec") or {}).get("controllerRef")
        if ref and (ref.get("apiGroup", ""), ref.get("kind"), ref.get("name")) == (
            group,
            parent.get("kind"),
            parent.get("name"),
        ):
            return wl
    return None


def _delegated_pod_group(
    server: SchedulingClient, job: Mapping[str, Any], new: bool, record: Recorder
) -> Obj | None:
    """``getOrCreateDelegatedPodGroup``: the PodGroup of a Job whose parent owns the
    Workload, made from the annotated template without a Workload ownerRef; it follows
    the parent's template minCount (``syncDelegatedPodGroupMinCount``)."""
    parent = _parent_workload(server, job)
    if parent is None:
        return None  # the parent has not created it yet; a later sync retries
    name = job["metadata"]["annotations"][GROUP_TEMPLATE_NAME_ANNOTATION]
    try:
        tpl = _template_by_name(parent, name)
    except SchedulingObjectsError:
        return None  # logged and skipped upstream
    pg = next((p for p in _pod_groups_for_workload(server, parent) if is_controlled_by(p, job)), None)
    if pg is None and new:
        pg = _create_pod_group(server, job, parent, name, False, record)
    if pg is not None:
        want, have = _gang_min_count(tpl), _gang_min_count(pg.get("spec") or {})
        if want is not None and have is not None and want != have:
            _patch_min_count(server, pg, want)
    return pg


def _ignore(_type: str, _reason: str, _message: str) -> None:
    return None


def ensure_workload_and_pod_group(
    server: SchedulingClient,
    job: Mapping[str, Any],
    pods: Sequence[Mapping[str, Any]],
    record: Recorder | None = None,
    gate: bool = True,
) -> tuple[Obj | None, Obj | None]:
    """``ensureWorkloadAndPodGroup``: (Workload, PodGroup) as found or created, either
    None when the Job falls back to pod-by-pod scheduling. Errors propagate so the
    Job's sync fails before any pod is made."""
    rec = record or _ignore
    mode = management_mode(job, gate)
    if mode == MANAGE_NONE:
        return None, None
    new = is_new_job(job, pods)
    if mode == MANAGE_POD_GROUP_ONLY:
        return None, _delegated_pod_group(server, job, new, rec)
    wl = _get_or_create_workload(server, job, new, rec)
    if wl is None:
        return None, None
    pg = _get_or_create_pod_group(server, job, wl, new, rec)
    sync_gang_min_count(server, job, wl, pg)
    return wl, pg
