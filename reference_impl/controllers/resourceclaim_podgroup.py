"""PodGroup claims in the resource claim controller (KEP-5729, ``DRAWorkloadResourceClaims``).

Models the PodGroup half of ``pkg/controller/resourceclaim/controller.go``: for each
``PodGroup.spec.resourceClaims[]`` entry naming a ResourceClaimTemplate, one claim
``<podgroup>-<claim>-<suffix>`` is generated as soon as the PodGroup exists, owned by it
(so it is deleted with it), annotated with the claim name, and recorded in
``podGroup.status.resourceClaimStatuses``. Member pods whose claim matches then list the
group's claim in ``pod.status.resourceClaimStatuses``. A group reservation lasts while the
PodGroup exists.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer
from reference_impl.dra.workload_claims import POD_GROUP_VERSION, group_claim_name
from reference_impl.errors import AlreadyExists, Conflict, NotFound

__all__ = ["PodGroupClaims"]

Obj = dict[str, Any]
API: Final = "resource.k8s.io/v1"
POD_CLAIM_NAME: Final = "resource.kubernetes.io/pod-claim-name"


class PodGroupClaims:
    """Generates the template claims of PodGroups and answers group-reservation liveness."""

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self.groups: SharedInformer = ctx.informers.informer(POD_GROUP_VERSION, "PodGroup")

    def claim_keys(self, pg: Obj) -> list[str]:
        """Keys of every claim the PodGroup names or generated."""
        ns = pg["metadata"].get("namespace", "default")
        names = [
            group_claim_name(pg, e) for e in (pg.get("spec") or {}).get("resourceClaims") or ()
        ]
        return [f"{ns}/{n}" for n in names if n]

    def live(self, ns: str, ref: Obj) -> bool:
        """Whether the PodGroup of a ``reservedFor`` entry still exists."""
        pg = self.groups.get(f"{ns}/{ref['name']}")
        return pg is not None and pg["metadata"].get("uid") == ref.get("uid")

    def sync(self, key: str) -> None:
        """Generate missing template claims and record them in the PodGroup status."""
        pg = self.groups.get(key)
        if pg is None or pg["metadata"].get("deletionTimestamp"):
            return
        statuses = list((pg.get("status") or {}).get("resourceClaimStatuses") or [])
        known = {s["name"] for s in statuses}
        changed = False
        for entry in (pg.get("spec") or {}).get("resourceClaims") or ():
            tmpl = entry.get("resourceClaimTemplateName")
            if not tmpl or entry["name"] in known:
                continue
            claim = self._existing(pg, entry["name"]) or self._create(pg, entry["name"], tmpl)
            if claim is None:
                continue  # template missing: retried when the PodGroup changes
            statuses.append({"name": entry["name"], "resourceClaimName": claim["metadata"]["name"]})
            changed = True
        if changed:
            self._write_status(pg, statuses)

    def _write_status(self, pg: Obj, statuses: list[Obj]) -> None:
        meta = pg["metadata"]
        try:
            latest = self._ctx.server.get(
                POD_GROUP_VERSION, "PodGroup", meta["name"], meta.get("namespace")
            )
            status = {**(latest.get("status") or {}), "resourceClaimStatuses": statuses}
            self._ctx.server.update_status({**latest, "status": status})
        except (NotFound, Conflict):
            pass  # gone, or changed under us: the next event retries

    def _existing(self, pg: Obj, claim_name: str) -> Obj | None:
        uid = pg["metadata"]["uid"]
        for c in self._ctx.informers.informer(API, "ResourceClaim").items():
            meta = c["metadata"]
            if (meta.get("annotations") or {}).get(POD_CLAIM_NAME) == claim_name and any(
                r.get("uid") == uid for r in meta.get("ownerReferences") or ()
            ):
                return c
        return None

    def _create(self, pg: Obj, claim_name: str, tmpl_name: str) -> Obj | None:
        pmeta = pg["metadata"]
        ns = pmeta.get("namespace", "default")
        tmpl = self._ctx.server.try_get(API, "ResourceClaimTemplate", tmpl_name, ns)
        if tmpl is None:
            return None
        tspec = tmpl.get("spec") or {}
        tmeta = tspec.get("metadata") or {}
        meta: Obj = {
            "generateName": f"{pmeta['name']}-{claim_name}-"[:58],
            "namespace": ns,
            "annotations": {**(tmeta.get("annotations") or {}), POD_CLAIM_NAME: claim_name},
            # As the real controller writes it (checked on 1.37.2): controller, no blockOwnerDeletion.
            "ownerReferences": [
                {
                    "apiVersion": POD_GROUP_VERSION,
                    "kind": "PodGroup",
                    "name": pmeta["name"],
                    "uid": pmeta["uid"],
                    "controller": True,
                }
            ],
        }
        if tmeta.get("labels"):
            meta["labels"] = dict(tmeta["labels"])
        try:
            return self._ctx.server.create(
                {
                    "apiVersion": API,
                    "kind": "ResourceClaim",
                    "metadata": meta,
                    "spec": tspec.get("spec") or {},
                }
            )
        except AlreadyExists:
            return None
