"""The resource claim controller (``pkg/controller/resourceclaim/controller.go``).

One work queue of prefixed keys (``pod:``, ``podgroup:``, ``claim:``) as upstream.
``syncPod`` generates the claims of a pod's template claims (``resourceclaim_create``),
records them in ``pod.status.resourceClaimStatuses`` and, once the pod is bound,
reserves allocated claims not reserved for it yet. ``syncClaim``
(``resourceclaim_reserved``) drops stale reservations, deallocates and deletes unused
generated claims. ``syncPodGroup`` (``resourceclaim_podgroup``) does the same generation
for PodGroups (KEP-5729). The event handlers port ``enqueuePod``/``podNeedsWork``,
``enqueueResourceClaim``, ``enqueueResourceClaimTemplate`` and ``enqueuePodGroup``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.controllers.resourceclaim_create import ClaimMaker
from reference_impl.controllers.resourceclaim_index import ClaimOwnerIndex, KeyIndex
from reference_impl.controllers.resourceclaim_names import (
    NonRetryable,
    SyncError,
    bind_to,
    is_for_pod,
    is_pod_group_consumer,
    is_reserved_for_pod,
    name_from_pod_group,
    pod_claim_name,
)
from reference_impl.controllers.resourceclaim_podgroup import (
    group_claim_keys,
    group_template_keys,
    sync_pod_group,
)
from reference_impl.controllers.resourceclaim_reserved import ReservationCleaner
from reference_impl.dra.workload_claims import POD_GROUP_VERSION
from reference_impl.lru import LRU

__all__ = ["ResourceClaimController"]

Obj = dict[str, Any]
API: Final = "resource.k8s.io/v1"
POD: Final = "pod:"
GROUP: Final = "podgroup:"
CLAIM: Final = "claim:"
MAX_UID_CACHE: Final = 500  # maxUIDCacheEntries


def _ns(obj: Obj) -> str:
    return str(obj["metadata"].get("namespace") or "default")


def pod_claim_keys(pod: Obj) -> list[str]:
    """``podResourceClaimIndexFunc``: keys of the claims a pod uses, when known."""
    return sorted({f"{_ns(pod)}/{name}" for name in _known_claim_names(pod)})


def _known_claim_names(pod: Obj) -> list[str]:
    """The names of the pod's claims that are known (generated ones once recorded)."""
    out: list[str] = []
    for ref in pod["spec"].get("resourceClaims") or ():
        try:
            name, _ = pod_claim_name(pod, ref)
        except SyncError:
            continue
        if name is not None:
            out.append(name)
    return out


def pod_template_keys(pod: Obj) -> list[str]:
    """``podResourceClaimTemplateIndexFunc``."""
    return sorted({f"{_ns(pod)}/{r['resourceClaimTemplateName']}"
                   for r in pod["spec"].get("resourceClaims") or ()
                   if r.get("resourceClaimTemplateName") is not None})


def _group_member_keys(pod: Obj) -> list[str]:
    """``podGroupMemberIndexFunc``."""
    name = (pod["spec"].get("schedulingGroup") or {}).get("podGroupName")
    return [f"{_ns(pod)}/{name}"] if name else []


def pod_claims(pod: Obj) -> list[str]:
    """``resourceclaim.PodClaims``: the known claim names, then the extended-resource claim."""
    out = _known_claim_names(pod)
    ext = ((pod.get("status") or {}).get("extendedResourceClaimStatus") or {}).get("resourceClaimName")
    if ext:
        out.append(str(ext))
    return out


class _UIDs:
    """``uidCache``: a bounded LRU set of UIDs seen deleted."""

    def __init__(self, size: int) -> None:
        self._lru: LRU[str, bool] = LRU(size)

    def add(self, uid: str) -> None:
        self._lru.put(uid, True)

    def __contains__(self, uid: object) -> bool:
        return isinstance(uid, str) and self._lru.get(uid) is not None


class ResourceClaimController:
    """Generates claims from templates, reserves them and releases finished consumers."""

    name: Final = "resourceclaim-controller"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        inf = ctx.informers
        self.generic_workload = bool(ctx.gates["GenericWorkload"])
        self.group_claims = self.generic_workload and bool(ctx.gates["DRAWorkloadResourceClaims"])
        self.queue = WorkQueue(ctx.clock, self._work, name="resource_claim",
                               rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        self._pods = inf.informer("v1", "Pod")
        self._claims = inf.informer(API, "ResourceClaim")
        self._templates = inf.informer(API, "ResourceClaimTemplate")
        self._groups: SharedInformer | None = (
            inf.informer(POD_GROUP_VERSION, "PodGroup") if self.generic_workload else None)
        self._owned = ClaimOwnerIndex()
        self._owned.seed(self._claims.cache.values())
        self._claims.add_handler(self._owned.on_event)
        self.pods_by_claim = KeyIndex(pod_claim_keys)
        self.pods_by_template = KeyIndex(pod_template_keys)
        self.pods_by_group = KeyIndex(_group_member_keys)
        self.groups_by_claim = KeyIndex(group_claim_keys)
        self.groups_by_template = KeyIndex(group_template_keys)
        self.deleted = _UIDs(MAX_UID_CACHE)
        self._maker = ClaimMaker(ctx, self._owned, self.group_claims)
        self._cleaner = ReservationCleaner(ctx, self._groups if self.group_claims else None, self.deleted)

    def start(self) -> None:
        """Index and watch pods, claims, templates and (KEP-5729) PodGroups."""
        pod_indexes = [self.pods_by_claim, self.pods_by_template]
        if self.group_claims:
            pod_indexes.append(self.pods_by_group)
        for idx in pod_indexes:
            idx.seed(self._pods.items())
        self._pods.add_handler(lambda ev: self._indexed(pod_indexes, ev, self._on_pod))
        self._claims.add_handler(self._on_claim)
        self._templates.add_handler(self._on_template)
        if self.group_claims and self._groups is not None:
            group_indexes = [self.groups_by_claim, self.groups_by_template]
            for idx in group_indexes:
                idx.seed(self._groups.items())
            self._groups.add_handler(lambda ev: self._indexed(group_indexes, ev, self._on_group))
            for g in self._groups.items():
                self.enqueue_pod_group(g, False)
        for p in self._pods.items():
            self.enqueue_pod(p, False)
        for c in self._claims.items():
            self.queue.add(CLAIM + object_key(c))

    # -- event handlers -------------------------------------------------------------

    @staticmethod
    def _indexed(indexes: list[KeyIndex], ev: ObjectEvent, then: Any) -> None:
        for idx in indexes:
            idx.on_event(ev)
        then(ev)

    def _on_pod(self, ev: ObjectEvent) -> None:
        self.enqueue_pod(ev.obj, ev.type == "DELETED")

    def _on_group(self, ev: ObjectEvent) -> None:
        self.enqueue_pod_group(ev.obj, ev.type == "DELETED")

    def _on_claim(self, ev: ObjectEvent) -> None:
        """``enqueueResourceClaim``: the claim (unless deleted), then its pods and PodGroups."""
        claim = ev.obj
        key = object_key(claim)
        if ev.type != "DELETED":
            self.queue.add(CLAIM + key)
        self._enqueue_users(self.pods_by_claim.keys(key), self.groups_by_claim.keys(key))

    def _on_template(self, ev: ObjectEvent) -> None:
        """``enqueueResourceClaimTemplate`` (adds and updates only)."""
        if ev.type == "DELETED":
            return
        key = object_key(ev.obj)
        self._enqueue_users(self.pods_by_template.keys(key), self.groups_by_template.keys(key))

    def _enqueue_users(self, pod_keys: Iterable[str], group_keys: Iterable[str]) -> None:
        """Queue the pods, then (with PodGroup claims) the PodGroups, that use an object."""
        for pk in pod_keys:
            pod = self._pods.get(pk)
            if pod is not None:
                self.enqueue_pod(pod, False)
        if self.group_claims and self._groups is not None:
            for gk in group_keys:
                pg = self._groups.get(gk)
                if pg is not None:
                    self.enqueue_pod_group(pg, False)

    def enqueue_pod(self, pod: Obj, deleted: bool) -> None:
        """``enqueuePod``: release the claims of a pod that will not run; queue pod work."""
        has_ext = (pod.get("status") or {}).get("extendedResourceClaimStatus") is not None
        if not pod["spec"].get("resourceClaims") and not has_ext:
            return
        if deleted:
            self.deleted.add(str(pod["metadata"].get("uid")))
        ns = _ns(pod)
        if deleted or _terminal(pod) or (pod["metadata"].get("deletionTimestamp") and not pod["spec"].get("nodeName")):
            for name in pod_claims(pod):
                self.queue.add(f"{CLAIM}{ns}/{name}")
        if not deleted and self.pod_needs_work(pod):
            self.queue.add(POD + object_key(pod))

    def pod_needs_work(self, pod: Obj) -> bool:
        """``podNeedsWork``: a claim to create from a template, or one to reserve."""
        if pod["metadata"].get("deletionTimestamp"):
            return False
        ns = _ns(pod)
        for ref in pod["spec"].get("resourceClaims") or ():
            try:
                name, check = pod_claim_name(pod, ref)
            except SyncError:
                return True
            if name is None:
                continue
            claim = self._claims.get(f"{ns}/{name}")
            if claim is None:
                if ref.get("resourceClaimTemplateName") is not None:
                    try:
                        pg = self._pod_group(pod)
                    except (SyncError, NonRetryable):
                        return True  # the claim might have to be created from the template
                    try:
                        consumer = bind_to(pod, pg, ref)
                    except SyncError:
                        continue
                    if is_pod_group_consumer(consumer):
                        continue  # the PodGroup's claim is created for the PodGroup
                    return True
                continue  # the user must create it
            if check and is_for_pod(pod, claim, self.group_claims) is not None:
                continue
            if not pod["spec"].get("nodeName"):
                continue
            if (claim.get("status") or {}).get("allocation") and not is_reserved_for_pod(
                    pod, claim, self.group_claims):
                return True
        return False

    def enqueue_pod_group(self, pg: Obj, deleted: bool) -> None:
        """``enqueuePodGroup``: release claims of a removed PodGroup, queue its work and
        its member pods (a status update may make the group's claims known to them)."""
        entries = (pg.get("spec") or {}).get("resourceClaims") or ()
        if not entries:
            return
        ns = _ns(pg)
        if deleted:
            self.deleted.add(str(pg["metadata"].get("uid")))
            for e in entries:
                try:
                    name, _ = name_from_pod_group(pg, e)
                except SyncError:
                    continue
                if name is not None:
                    self.queue.add(f"{CLAIM}{ns}/{name}")
        elif self._group_needs_work(pg):
            self.queue.add(GROUP + object_key(pg))
        for pk in self.pods_by_group.keys(object_key(pg)):
            pod = self._pods.get(pk)
            if pod is not None:
                self.enqueue_pod(pod, False)

    def _group_needs_work(self, pg: Obj) -> bool:
        """``podGroupNeedsWork``: a template claim not created yet."""
        if pg["metadata"].get("deletionTimestamp"):
            return False
        for e in (pg.get("spec") or {}).get("resourceClaims") or ():
            try:
                name, _ = name_from_pod_group(pg, e)
            except SyncError:
                return True
            if name is not None and self._claims.get(f"{_ns(pg)}/{name}") is None and (
                    e.get("resourceClaimTemplateName") is not None):
                return True
        return False

    # -- work -----------------------------------------------------------------------

    def _work(self, key: str) -> None:
        try:
            self.sync_handler(key)
        except NonRetryable:
            pass  # upstream logs it and forgets the key

    def sync_handler(self, key: str) -> None:
        """``syncHandler``: dispatch on the key's prefix; raises the sync's error."""
        prefix, _, rest = key.partition(":")
        ns, _, name = rest.partition("/")
        if prefix + ":" == POD:
            self.sync_pod(ns, name)
        elif prefix + ":" == GROUP:
            if self._groups is not None:
                sync_pod_group(self._ctx, self._groups, self._maker, ns, name)
        elif prefix + ":" == CLAIM:
            self._cleaner.sync(ns, name)
        else:
            raise SyncError(f"unexpected key prefix: {prefix}:")

    def _pod_group(self, pod: Obj) -> Obj | None:
        """``getPodGroup``: the pod's PodGroup (NotFound is an error), or None."""
        name = (pod["spec"].get("schedulingGroup") or {}).get("podGroupName")
        if not name:
            return None
        if not self.generic_workload or self._groups is None:
            raise NonRetryable(f"Pod is a member of PodGroup {name} but GenericWorkload feature is disabled")
        pg = self._groups.get(f"{_ns(pod)}/{name}")
        if pg is None:
            raise SyncError(f'podgroup.scheduling.k8s.io "{name}" not found')
        return pg

    def sync_pod(self, ns: str, name: str) -> None:
        """``syncPod``."""
        pod = self._pods.get(f"{ns}/{name}")
        if pod is None or pod["metadata"].get("deletionTimestamp"):
            return
        try:
            pg = self._pod_group(pod)
        except SyncError as e:
            raise SyncError(f"get PodGroup for Pod {ns}/{name}: {e}") from e
        except NonRetryable as e:
            raise NonRetryable(f"get PodGroup for Pod {ns}/{name}: {e}") from e
        new: dict[str, str] = {}
        for ref in pod["spec"].get("resourceClaims") or ():
            try:
                self._maker.handle_pod_claim(pod, pg, ref, new)
            except SyncError as e:
                raise SyncError(f"pod {ns}/{name}, PodResourceClaim {ref.get('name')}: {e}") from e
            except NonRetryable as e:
                raise NonRetryable(f"pod {ns}/{name}, PodResourceClaim {ref.get('name')}: {e}") from e
        if new:
            self._write_statuses(pod, new)
        if pod["spec"].get("nodeName"):
            self._reserve(pod, pg)

    def _write_statuses(self, pod: Obj, new: dict[str, str]) -> None:
        """Merge with the known names, sorted by claim name (upstream's ApplyStatus)."""
        merged = {s["name"]: s["resourceClaimName"]
                  for s in (pod.get("status") or {}).get("resourceClaimStatuses") or ()
                  if s.get("resourceClaimName") is not None}
        merged.update(new)
        latest = self._pods.get(object_key(pod))
        if latest is None:
            return
        statuses = [{"name": n, "resourceClaimName": merged[n]} for n in sorted(merged)]
        self._ctx.server.update_status(
            {**latest, "status": {**(latest.get("status") or {}), "resourceClaimStatuses": statuses}})

    def _reserve(self, pod: Obj, pg: Obj | None) -> None:
        """Reserve allocated claims of a bound pod (from the pod as synced, as upstream)."""
        ns = _ns(pod)
        for ref in pod["spec"].get("resourceClaims") or ():
            name, check = pod_claim_name(pod, ref)
            if name is None:
                continue
            claim = self._claims.get(f"{ns}/{name}")
            if claim is None:
                return
            if check:
                err = is_for_pod(pod, claim, self.group_claims)
                if err is not None:
                    raise SyncError(err)
            status = claim.get("status") or {}
            if not status.get("allocation") or is_reserved_for_pod(pod, claim, self.group_claims):
                continue
            consumer = bind_to(pod, pg, ref)
            if is_pod_group_consumer(consumer) and not self.group_claims:
                continue  # reserving a PodGroup claim needs DRAWorkloadResourceClaims
            reserved = [*(status.get("reservedFor") or []), consumer]
            self._ctx.server.update_status({**claim, "status": {**status, "reservedFor": reserved}})


def _terminal(pod: Obj) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")

