"""Reservation cleanup of the resource claim controller (upstream ``syncClaim``).

Ports ``pkg/controller/resourceclaim/controller.go``: ``reservedFor`` entries of pods
that are gone, replaced (other UID) or done (``isPodDone``) are removed, and of
PodGroups that are gone or replaced (gate ``DRAWorkloadResourceClaims``); other
consumers are kept. When the last consumer goes, a claim carrying the builtin
``resource.kubernetes.io/delete-protection`` finalizer is deallocated and the finalizer
removed; a deleted, unreserved claim loses the finalizer too. An unreserved claim
generated for a pod that is done or replaced is deleted.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer
from reference_impl.controllers.resourceclaim_names import (
    FINALIZER,
    is_pod_done,
    is_pod_group_consumer,
    owning_pod,
)
from reference_impl.dra.workload_claims import POD_GROUP_VERSION
from reference_impl.errors import NotFound

__all__ = ["ReservationCleaner"]

Obj = dict[str, Any]
API: Final = "resource.k8s.io/v1"


class ReservationCleaner:
    """``syncClaim`` over the informer caches; ``deleted`` holds UIDs seen deleted."""

    def __init__(self, ctx: ComponentContext, groups: SharedInformer | None, deleted: Container[str]) -> None:
        self._ctx = ctx
        self._pods = ctx.informers.informer("v1", "Pod")
        self._groups = groups  # None unless DRAWorkloadResourceClaims (and GenericWorkload)
        self._deleted = deleted

    def sync(self, ns: str, name: str) -> None:
        """Drop stale consumers, deallocate, remove the finalizer, delete unused claims."""
        claim = self._ctx.informers.informer(API, "ResourceClaim").get(f"{ns}/{name}")
        if claim is None:
            return
        reserved = list((claim.get("status") or {}).get("reservedFor") or [])
        remaining = [r for r in reserved if self._keep(ns, r)]
        finalizers = list(claim["metadata"].get("finalizers") or [])
        server = self._ctx.server
        if len(remaining) < len(reserved):
            status = dict(claim.get("status") or {})
            status["reservedFor"] = remaining
            if not remaining:
                status.pop("reservedFor")
                # Deallocate on the transition to unused, only what the scheduler allocated.
                if FINALIZER in finalizers:
                    status.pop("allocation", None)
            claim = server.update_status({**claim, "status": status})
            finalizers = list(claim["metadata"].get("finalizers") or [])
            if FINALIZER in finalizers and not (claim.get("status") or {}).get("allocation"):
                finalizers.remove(FINALIZER)
                claim = server.update({**claim, "metadata": {**claim["metadata"], "finalizers": finalizers}})
        elif FINALIZER in finalizers and claim["metadata"].get("deletionTimestamp") and not remaining:
            if (claim.get("status") or {}).get("allocation"):
                status = {k: v for k, v in (claim.get("status") or {}).items() if k != "allocation"}
                claim = server.update_status({**claim, "status": status})
                finalizers = list(claim["metadata"].get("finalizers") or [])
            if FINALIZER in finalizers:
                finalizers.remove(FINALIZER)
            claim = server.update({**claim, "metadata": {**claim["metadata"], "finalizers": finalizers}})
        if not remaining:
            self._delete_unused(claim)

    def _keep(self, ns: str, ref: Obj) -> bool:
        uid = ref.get("uid")
        if not ref.get("apiGroup") and ref.get("resource") == "pods":
            if uid in self._deleted:
                return False
            pod = self._pods.get(f"{ns}/{ref['name']}")
            if pod is None:  # not seen yet: ask the apiserver before dropping it
                pod = self._ctx.server.try_get("v1", "Pod", ref["name"], ns)
                return pod is not None and pod["metadata"].get("uid") == uid
            return pod["metadata"].get("uid") == uid and not is_pod_done(pod)
        if self._groups is not None and is_pod_group_consumer(ref):
            if uid in self._deleted:
                return False
            pg = self._groups.get(f"{ns}/{ref['name']}")
            if pg is None:
                pg = self._ctx.server.try_get(POD_GROUP_VERSION, "PodGroup", ref["name"], ns)
            return pg is not None and pg["metadata"].get("uid") == uid
        return True  # an unknown kind of consumer is never dropped

    def _delete_unused(self, claim: Obj) -> None:
        """A generated claim whose pod will not run is deleted now, not by the GC later."""
        name, uid = owning_pod(claim)
        if not name:
            return
        meta = claim["metadata"]
        ns = meta.get("namespace") or "default"
        pod = self._pods.get(f"{ns}/{name}")
        if pod is None or (pod["metadata"].get("uid") == uid and not is_pod_done(pod)):
            return  # unknown yet (the GC handles a pod that is truly gone), or still needed
        try:
            self._ctx.server.delete(API, "ResourceClaim", meta["name"], ns)
        except NotFound:
            pass
