"""The resource claim controller (``pkg/controller/resourceclaim/controller.go``).

For each pod claim that names a ResourceClaimTemplate it creates one claim,
``<pod>-<claim>-<suffix>``, owned by the pod (so the garbage collector deletes it with
the pod) and annotated with the pod claim name, then records it in
``pod.status.resourceClaimStatuses``. When a pod is gone or finished it is removed from
``reservedFor`` of its claims, and a claim no longer reserved by anyone is deallocated.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.controllers.resourceclaim_index import ClaimOwnerIndex
from reference_impl.controllers.resourceclaim_podgroup import PodGroupClaims
from reference_impl.dra.workload_claims import (
    WORKLOAD_CLAIM_GATES,
    group_claim_entry,
    group_claim_name,
    pod_group_key,
)
from reference_impl.errors import AlreadyExists, NotFound

__all__ = ["ResourceClaimController"]

Obj = dict[str, Any]
API: Final = "resource.k8s.io/v1"
POD_CLAIM_NAME: Final = "resource.kubernetes.io/pod-claim-name"
_DONE: Final = ("Succeeded", "Failed")


class ResourceClaimController:
    """Generates claims from templates and releases reservations of finished pods."""

    name: Final = "resourceclaim-controller"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._pods = WorkQueue(ctx.clock, self._sync_pod, name="resourceclaim-pods")
        self._claims = WorkQueue(ctx.clock, self._sync_claim, name="resourceclaim-claims")
        # KEP-5729: PodGroup-level claims.
        wl = all(ctx.gates.get(g, False) for g in WORKLOAD_CLAIM_GATES)
        self._pg = PodGroupClaims(ctx) if wl else None
        self._groups = WorkQueue(ctx.clock, self._sync_group, name="resourceclaim-podgroups")
        # Upstream's owner-UID indexer: finding a pod's claims must not scan every claim.
        self._owned = ClaimOwnerIndex()
        claims = ctx.informers.informer(API, "ResourceClaim")
        self._owned.seed(claims.cache.values())
        claims.add_handler(self._owned.on_event)

    def start(self) -> None:
        """Watch pods and claims."""
        pods = self._ctx.informers.informer("v1", "Pod")
        claims = self._ctx.informers.informer(API, "ResourceClaim")
        pods.add_handler(self._on_pod)
        claims.add_handler(lambda ev: self._claims.add(object_key(ev.obj)))
        for p in pods.items():
            if p["spec"].get("resourceClaims"):
                self._pods.add(object_key(p))
        if self._pg is not None:
            self._pg.groups.add_handler(self._on_group)
            for g in self._pg.groups.items():
                self._groups.add(object_key(g))

    def _on_group(self, ev: ObjectEvent) -> None:
        if ev.type == "DELETED":  # its reservations end with it
            for key in self._pg.claim_keys(ev.obj) if self._pg else ():
                self._claims.add(key)
            return
        self._groups.add(object_key(ev.obj))

    def _sync_group(self, key: str) -> None:
        if self._pg is None:
            return
        self._pg.sync(key)
        ns, name = key.split("/", 1)
        # Members may wait for the generated name to list it in their status.
        for p in self._ctx.informers.informer("v1", "Pod").items():
            spec = p["spec"]
            if (spec.get("schedulingGroup") or {}).get("podGroupName") == name and spec.get(
                    "resourceClaims") and p["metadata"].get("namespace", "default") == ns:
                self._pods.add(object_key(p))

    def _on_pod(self, ev: ObjectEvent) -> None:
        pod = ev.obj
        if not pod["spec"].get("resourceClaims"):
            return
        ns = pod["metadata"].get("namespace", "default")
        if ev.type == "DELETED" or _finished(pod):
            for st in (pod.get("status") or {}).get("resourceClaimStatuses") or ():
                if st.get("resourceClaimName"):
                    self._claims.add(f"{ns}/{st['resourceClaimName']}")
            for ref in pod["spec"]["resourceClaims"]:
                if ref.get("resourceClaimName"):
                    self._claims.add(f"{ns}/{ref['resourceClaimName']}")
            return
        self._pods.add(object_key(pod))

    # -- claim generation ---------------------------------------------------------------

    def _sync_pod(self, key: str) -> None:
        pods = self._ctx.informers.informer("v1", "Pod")
        pod = pods.get(key)
        if pod is None or pod["metadata"].get("deletionTimestamp") or _finished(pod):
            return
        ns = pod["metadata"].get("namespace", "default")
        statuses = list((pod.get("status") or {}).get("resourceClaimStatuses") or [])
        known = {s["name"] for s in statuses}
        changed = False
        for ref in pod["spec"]["resourceClaims"]:
            tmpl_name = ref.get("resourceClaimTemplateName")
            if not tmpl_name or ref["name"] in known:
                continue
            shared = self._group_claim(pod, ref)
            if shared is not None:  # KEP-5729: the PodGroup's claim, not one of its own
                if shared:
                    statuses.append({"name": ref["name"], "resourceClaimName": shared})
                    changed = True
                continue
            claim = self._existing(pod, ref["name"]) or self._create(pod, ns, ref["name"], tmpl_name)
            if claim is None:
                continue  # template missing: retried when the pod changes
            statuses.append({"name": ref["name"], "resourceClaimName": claim["metadata"]["name"]})
            changed = True
        if changed:
            # The informer is current (events dispatch at commit), as upstream's pod lister.
            latest = pods.get(key)
            if latest is None:
                return
            status = {**(latest.get("status") or {}), "resourceClaimStatuses": statuses}
            self._ctx.server.update_status({**latest, "status": status})

    def _group_claim(self, pod: Obj, ref: Obj) -> str | None:
        """For a matching PodGroup claim, its name ("" until generated); else None."""
        key = pod_group_key(pod) if self._pg is not None else None
        pg = self._pg.groups.get(key) if self._pg is not None and key else None
        entry = group_claim_entry(ref, pg)
        if pg is None or entry is None:
            return None
        return group_claim_name(pg, entry) or ""

    def _existing(self, pod: Obj, claim_name: str) -> Obj | None:
        key = self._owned.find(str(pod["metadata"]["uid"]), claim_name)
        return None if key is None else self._ctx.informers.informer(API, "ResourceClaim").get(key)

    def _create(self, pod: Obj, ns: str, claim_name: str, tmpl_name: str) -> Obj | None:
        server = self._ctx.server
        # Upstream's templateLister; the cached template is only read.
        tmpl = self._ctx.informers.informer(API, "ResourceClaimTemplate").get(f"{ns}/{tmpl_name}")
        if tmpl is None:
            return None
        tspec = tmpl.get("spec") or {}
        tmeta = tspec.get("metadata") or {}
        pmeta = pod["metadata"]
        meta: Obj = {
            "generateName": f"{pmeta['name']}-{claim_name}-"[:58],
            "namespace": ns,
            "annotations": {**(tmeta.get("annotations") or {}), POD_CLAIM_NAME: claim_name},
            "ownerReferences": [{
                "apiVersion": "v1", "kind": "Pod", "name": pmeta["name"], "uid": pmeta["uid"],
                "controller": True, "blockOwnerDeletion": True,
            }],
        }
        if tmeta.get("labels"):
            meta["labels"] = dict(tmeta["labels"])
        try:
            return server.create({"apiVersion": API, "kind": "ResourceClaim", "metadata": meta,
                                  "spec": tspec.get("spec") or {}})
        except AlreadyExists:
            return None

    # -- reservations -------------------------------------------------------------------

    def _sync_claim(self, key: str) -> None:
        claim = self._ctx.informers.informer(API, "ResourceClaim").get(key)
        if claim is None:
            return
        status = claim.get("status") or {}
        reserved = status.get("reservedFor") or []
        pods = self._ctx.informers.informer("v1", "Pod")
        ns = claim["metadata"].get("namespace", "default")
        keep = [r for r in reserved if self._consumer_live(ns, r, pods.get(f"{ns}/{r['name']}"))]
        if keep == reserved:
            return
        new = dict(status)
        if keep:
            new["reservedFor"] = keep
        else:
            # Reserved by no one any more: deallocate (structured parameters, upstream 1.32+).
            for f in ("reservedFor", "allocation", "devices"):
                new.pop(f, None)
        try:
            self._ctx.server.update_status({**claim, "status": new})
        except NotFound:
            pass


    def _consumer_live(self, ns: str, ref: Obj, pod: Obj | None) -> bool:
        if ref.get("resource") == "podgroups":
            return self._pg is None or self._pg.live(ns, ref)
        return ref.get("resource") != "pods" or _live(pod, ref.get("uid"))


def _finished(pod: Obj) -> bool:
    return (pod.get("status") or {}).get("phase") in _DONE


def _live(pod: Obj | None, uid: str | None) -> bool:
    return pod is not None and pod["metadata"].get("uid") == uid and not _finished(pod) and not (
        pod["metadata"].get("deletionTimestamp") and pod["spec"].get("nodeName") is None)

