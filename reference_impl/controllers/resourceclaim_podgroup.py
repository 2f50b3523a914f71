"""PodGroup claims in the resource claim controller (KEP-5729, ``DRAWorkloadResourceClaims``).

Ports ``syncPodGroup`` of ``pkg/controller/resourceclaim/controller.go``: for each
``PodGroup.spec.resourceClaims[]`` entry naming a ResourceClaimTemplate, one claim
``<podgroup>-<claim>-<suffix>`` is generated as soon as the PodGroup exists, owned by it
(so it is deleted with it), annotated with the claim name, and recorded in
``podGroup.status.resourceClaimStatuses``. Member pods whose claim matches list the
group's claim in their own status (``handleClaim``); the reservation lasts while the
PodGroup exists (``syncClaim``). Also the PodGroup index functions of the controller.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer
from reference_impl.controllers.resourceclaim_create import ClaimMaker
from reference_impl.controllers.resourceclaim_names import SyncError, name_from_pod_group
from reference_impl.errors import NotFound

__all__ = ["group_claim_keys", "group_template_keys", "sync_pod_group"]

Obj = dict[str, Any]
API: Final = "resource.k8s.io/v1"


def _ns(obj: Obj) -> str:
    return str(obj["metadata"].get("namespace") or "default")


def group_template_keys(pg: Obj) -> list[str]:
    """``podGroupResourceClaimTemplateIndexFunc``."""
    return sorted({f"{_ns(pg)}/{e['resourceClaimTemplateName']}"
                   for e in (pg.get("spec") or {}).get("resourceClaims") or ()
                   if e.get("resourceClaimTemplateName") is not None})


def group_claim_keys(pg: Obj) -> list[str]:
    """``podGroupResourceClaimIndexFunc``: the claims known for the PodGroup."""
    out: set[str] = set()
    for e in (pg.get("spec") or {}).get("resourceClaims") or ():
        try:
            name, _ = name_from_pod_group(pg, e)
        except SyncError:
            continue  # not generated yet, or an unknown API
        if name is not None:
            out.add(f"{_ns(pg)}/{name}")
    return sorted(out)


def sync_pod_group(ctx: ComponentContext, groups: SharedInformer, maker: ClaimMaker, ns: str, name: str) -> None:
    """``syncPodGroup``: generate missing template claims, record them in the status."""
    pg = groups.get(f"{ns}/{name}")
    if pg is None or pg["metadata"].get("deletionTimestamp"):
        return
    new: dict[str, str] = {}
    for entry in (pg.get("spec") or {}).get("resourceClaims") or ():
        try:
            maker.handle_group_claim(pg, entry, new)
        except SyncError as e:
            raise SyncError(f"PodGroup {ns}/{name}, PodGroupResourceClaim {entry.get('name')}: {e}") from e
    if not new:
        return
    merged = {s["name"]: s.get("resourceClaimName")
              for s in (pg.get("status") or {}).get("resourceClaimStatuses") or ()}
    merged.update(new)
    statuses = [{"name": n, "resourceClaimName": merged[n]} if merged[n] is not None else {"name": n}
                for n in sorted(merged)]
    try:
        latest = ctx.server.get(pg["apiVersion"], "PodGroup", name, ns)
    except NotFound:
        return
    status = {**(latest.get("status") or {}), "resourceClaimStatuses": statuses}
    ctx.server.update_status({**latest, "status": status})
