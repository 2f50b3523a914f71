"""DynamicResources' PodGroupPostFilter (dynamicresources.go ``PodGroupPostFilter``,
``deallocateOrDeletePodClaims``, ``deallocatePodGroupClaims``).

When a gang found no placement, each unscheduled member's unusable claims are handled as
its own PostFilter would (one deallocated, or its extended-resource claim deleted); if a
member freed nothing (DRAWorkloadResourceClaims on), the PodGroup's claims are released
so the next attempt may allocate them elsewhere. Always Unschedulable (or Error): the
runtime goes on to DefaultPreemption. Upstream picks claims in map order (random); here
sorted keys keep it deterministic.

The per-member PreFilter states live in the pod-group cycle's CycleState under
``GROUP_KEY`` (upstream's ``podGroupStateData.podsStateData``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from reference_impl.api.owners import is_controlled_by
from reference_impl.apiserver.informers import object_key
from reference_impl.dra.tracker import ClaimTracker
from reference_impl.dra.workload_claims import group_claim_name, pod_group_key
from reference_impl.errors import ApiError
from reference_impl.scheduler.framework.cycle_state import CycleState, StateKey
from reference_impl.scheduler.framework.interface import Code, Status
from reference_impl.scheduler.framework.pod_group_post_filter import PodGroupPostFilterInfo
from reference_impl.scheduler.plugins import dynamic_resources_binding as binding
from reference_impl.scheduler.plugins import extended_resources as ext

__all__ = ["COMPLETED", "GROUP_DEALLOCATED", "GROUP_KEY", "GROUP_UNRESERVED", "GroupState",
           "PodGroupInfo", "pod_group_post_filter", "record"]

Obj = dict[str, Any]
COMPLETED: Final = "deallocation and deletion of ResourceClaims completed"
GROUP_DEALLOCATED: Final = "deallocation of PodGroup ResourceClaim completed"
GROUP_UNRESERVED: Final = "ResourceClaim unreserved for PodGroup"
_EXT_DELETED: Final = "deletion of ResourceClaim completed"
_FINALIZER: Final = "resource.kubernetes.io/delete-protection"


class PodState(Protocol):
    """What the pod's PreFilter kept (``dynamic_resources._State``)."""

    claims: list[Obj]
    unavailable: set[str]


@dataclass(slots=True)
class GroupState:
    """``podGroupStateData.podsStateData``: pod key -> its PreFilter state."""

    pods: dict[str, PodState | None] = field(default_factory=dict)

    def clone(self) -> GroupState:
        return self  # shared by the cycle, as upstream's pointer


GROUP_KEY: Final = StateKey[GroupState]("PreFilterDynamicResources")


PodGroupInfo = PodGroupPostFilterInfo  # ``fwk.PodGroupInfo``, as the framework defines it


def record(state: CycleState, pod: Obj, s: PodState | None) -> None:
    """PreFilter: file the pod's state under the pod-group cycle's, if there is one."""
    group = state.pod_group_cycle
    if group is None:
        return
    gs = group.try_read(GROUP_KEY)
    if gs is None:
        gs = GroupState()
        group.write(GROUP_KEY, gs)
    gs.pods[object_key(pod)] = s


@dataclass(frozen=True, slots=True)
class _Env:
    server: Any
    tracker: ClaimTracker
    workload_claims: bool  # DRAWorkloadResourceClaims
    topology_aware: bool  # TopologyAwareWorkloadScheduling


def pod_group_post_filter(
    server: Any, tracker: ClaimTracker, gates: Any, group: CycleState | None, info: PodGroupInfo
) -> Status:
    """``PodGroupPostFilter`` of an enabled plugin (DRA is GA: always enabled here)."""
    env = _Env(server, tracker, gates.get("DRAWorkloadResourceClaims", False),
               gates.get("TopologyAwareWorkloadScheduling", False))
    if info.composite:
        return Status(Code.UNSCHEDULABLE)  # not supported for CompositePodGroups
    pg = info.pod_group
    if env.topology_aware and pg is not None and (pg.get("spec") or {}).get("schedulingConstraints") is not None:
        return Status(Code.UNSCHEDULABLE)  # not supported for topology-aware workloads
    gs: GroupState | None = None
    if group is not None:
        gs = group.try_read(GROUP_KEY)
        if gs is None:  # getPodGroupStateDataFromPodGroupCycleState: ErrNotFound
            return Status(Code.ERROR, ("not found",))
    unreserve_group = False
    if gs is not None and gs.pods:
        for pod in info.unscheduled:
            s = gs.pods.get(object_key(pod), _MISSING)
            if s is _MISSING:
                continue
            found, st = _pod_claims(env, pod, s)
            if st.code is Code.ERROR:
                return st
            if not found:
                unreserve_group = True  # not every member can be scheduled
    if unreserve_group and env.workload_claims and info.unscheduled:
        st2 = _group_claims(env, gs, info.unscheduled[0], pg, info.scheduled)
        if st2 is not None:
            return st2
    return Status(Code.UNSCHEDULABLE, (COMPLETED,))


_MISSING: Final[Any] = object()


def _pod_claims(env: _Env, pod: Obj, s: PodState | None) -> tuple[bool, Status]:
    """``deallocateOrDeletePodClaims``: (whether a claim was handled, the status)."""
    if s is None:  # PreFilter found no claims
        return False, Status(Code.UNSCHEDULABLE)
    extended = next((c for c in s.claims if _is_extended(c)), None)
    claims = {object_key(c): c for c in s.claims}  # as PreFilter saw them
    for key in sorted(s.unavailable):
        claim = claims.get(key)
        if claim is None:
            continue
        if extended is not None and object_key(extended) == key:
            if not _special(extended):
                break
            continue
        st = binding.deallocate(env.server, claim, pod)
        if st.code is Code.ERROR:
            return True, st
        if st.reasons:
            return True, st
    if extended is not None and not _special(extended):
        try:  # deleteClaim: drop the builtin finalizer first so the delete is final
            _delete(env.server, extended)
        except ApiError as e:
            return True, Status(Code.ERROR, (str(e),))
        return True, Status(Code.UNSCHEDULABLE, (_EXT_DELETED,))
    return False, Status(Code.UNSCHEDULABLE)


def _is_extended(claim: Obj) -> bool:
    return ((claim.get("metadata") or {}).get("annotations") or {}).get(ext.ANNOTATION) == "true"


def _special(claim: Obj) -> bool:
    """``isSpecialClaimName``: the in-memory claim PreBind has not created yet."""
    return str(claim["metadata"].get("name", "")).startswith(ext.SPECIAL_CLAIM)


def _delete(server: Any, claim: Obj) -> None:
    meta = claim["metadata"]
    latest = server.get(binding.API, "ResourceClaim", meta["name"], meta.get("namespace"))
    fins = latest["metadata"].get("finalizers") or []
    if _FINALIZER in fins:
        rest = [f for f in fins if f != _FINALIZER]
        server.update({**latest, "metadata": {**latest["metadata"], "finalizers": rest}})
    server.delete(binding.API, "ResourceClaim", meta["name"], meta.get("namespace"))


def _group_claims(
    env: _Env, gs: GroupState | None, pod: Obj, pg: Obj | None, scheduled: int
) -> Status | None:
    """``deallocatePodGroupClaims``: with no member scheduled yet, deallocate one unusable
    claim held by nobody or only the PodGroup, else take the PodGroup out of its allocated
    claims' ``reservedFor``. None: nothing changed."""
    if pod_group_key(pod) is None or scheduled > 0:
        return None
    pg_uid = (pg or {}).get("metadata", {}).get("uid")
    for pkey in sorted(gs.pods if gs is not None else ()):
        s = gs.pods[pkey] if gs is not None else None
        claims = {object_key(c): c for c in s.claims} if s is not None else {}
        for key in sorted(s.unavailable if s is not None else ()):
            claim = claims.get(key)
            if claim is None:
                continue
            reserved = (claim.get("status") or {}).get("reservedFor") or []
            if not reserved or (pg is not None and len(reserved) == 1 and reserved[0].get("uid") == pg_uid):
                status = {k: v for k, v in (claim.get("status") or {}).items()
                          if k not in ("allocation", "reservedFor", "devices")}
                try:
                    env.server.update_status({**claim, "status": status})
                except ApiError as e:
                    return Status(Code.ERROR, (str(e),))
                return Status(Code.UNSCHEDULABLE, (GROUP_DEALLOCATED,))
    if pg is None:
        return None
    ns = pg["metadata"].get("namespace", "default")
    for entry in (pg.get("spec") or {}).get("resourceClaims") or ():
        if not entry.get("resourceClaimName") and not entry.get("resourceClaimTemplateName"):
            return Status(Code.ERROR, (f"PodGroup {ns}/{pg['metadata']['name']}, spec.resourceClaim "
                                       f"{entry.get('name')}: API unsupported",))
        name = group_claim_name(pg, entry)
        if name is None:  # NameFromPodGroup: a template's claim not in the status yet
            return Status(Code.ERROR, (f"PodGroup {ns}/{pg['metadata']['name']}: ResourceClaim not found",))
        claim = env.tracker.claims.get(f"{ns}/{name}")
        if claim is None:
            return Status(Code.ERROR, (f'could not find ResourceClaim "{ns}/{name}"',))
        if entry.get("resourceClaimTemplateName") and not is_controlled_by(claim, pg):
            continue  # IsForPodGroup
        st = claim.get("status") or {}
        if st.get("allocation") and _reserved_for_pod(pod, claim):
            reserved = st.get("reservedFor") or []
            rest = [r for r in reserved if r.get("uid") != pg_uid]
            new = {k: v for k, v in st.items() if k != "reservedFor"}
            if rest:
                new["reservedFor"] = rest
            try:  # upstream: a strategic-merge patch deleting the PodGroup's entry
                env.server.update_status({**claim, "status": new})
            except ApiError:
                continue  # retried with the next attempt
            return Status(Code.UNSCHEDULABLE, (GROUP_UNRESERVED,))
    return None


def _reserved_for_pod(pod: Obj, claim: Obj) -> bool:
    """``resourceclaim.IsReservedForPod`` accepting PodGroup reservations."""
    uid = pod["metadata"].get("uid")
    group = (pod["spec"].get("schedulingGroup") or {}).get("podGroupName")
    for r in (claim.get("status") or {}).get("reservedFor") or ():
        if r.get("uid") == uid:
            return True
        if group and r.get("resource") == "podgroups" and r.get("name") == group and \
                r.get("apiGroup", "scheduling.k8s.io") == "scheduling.k8s.io":
            return True
    return False
