"""Claim generation of the resource claim controller (``handleClaim``/``handlePodGroupClaim``).

Ports ``pkg/controller/resourceclaim/controller.go``: for a pod (or PodGroup) claim that
names a ResourceClaimTemplate, an existing claim is reused when recorded in the status
and still owned (``claimExists``) or found through the owner index
(``findPodResourceClaim``); otherwise one is created from the template, owned by the pod
(or PodGroup) as controller, annotated with the claim name. A pod claim that matches its
PodGroup's claim uses the PodGroup's generated claim instead (``BindTo``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.controllers.resourceclaim_index import ClaimOwnerIndex
from reference_impl.controllers.resourceclaim_names import (
    ANNOTATION,
    ClaimNotFound,
    NonRetryable,
    SyncError,
    bind_to,
    generate_name,
    is_for_pod,
    is_for_pod_group,
    is_pod_group_consumer,
    name_from_pod_group,
    pod_claim_name,
)
from reference_impl.dra.workload_claims import POD_GROUP_VERSION
from reference_impl.errors import ApiError, NotFound

__all__ = ["ClaimMaker"]

Obj = dict[str, Any]
API: Final = "resource.k8s.io/v1"


class ClaimMaker:
    """Finds or creates the generated claim of one pod or PodGroup claim entry."""

    def __init__(self, ctx: ComponentContext, owned: ClaimOwnerIndex, group_claims: bool) -> None:
        self._ctx = ctx
        self._owned = owned
        self._group_claims = group_claims  # DRAWorkloadResourceClaims

    def handle_pod_claim(self, pod: Obj, pg: Obj | None, ref: Obj, new: dict[str, str]) -> None:
        """``handleClaim``: record in ``new`` the claim generated for ``ref``, if any."""
        try:
            name, check = pod_claim_name(pod, ref)
        except ClaimNotFound:
            name, check = "", False
        except SyncError as e:
            raise SyncError(f"checking for claim before creating it: {e}") from e
        if name is None:
            return  # decided before: no claim needed
        ns = pod["metadata"].get("namespace") or "default"
        if name and self.claim_exists(ns, name, lambda c: not check or is_for_pod(
                pod, c, self._group_claims) is None):
            return
        tmpl = ref.get("resourceClaimTemplateName")
        if tmpl is None:
            return
        consumer = bind_to(pod, pg, ref)
        claim: Obj | None
        if is_pod_group_consumer(consumer):
            if not self._group_claims:
                raise NonRetryable(f"claim {ref['name']} is a PodGroup claim but the "
                                   "DRAWorkloadResourceClaims feature is disabled")
            assert pg is not None
            claim = self._owned.find(ns, str(pg["metadata"].get("uid")), ref["name"])
        else:
            # An orphan from an earlier sync that failed before the status update.
            claim = self._owned.find(ns, str(pod["metadata"].get("uid")), ref["name"])
            if claim is None:
                owner = {"apiVersion": "v1", "kind": "Pod", "name": pod["metadata"]["name"],
                         "uid": pod["metadata"].get("uid"), "controller": True}
                claim = self._create(ns, owner, ref["name"], str(tmpl))
        if claim is not None:
            new[ref["name"]] = claim["metadata"]["name"]

    def handle_group_claim(self, pg: Obj, entry: Obj, new: dict[str, str]) -> None:
        """``handlePodGroupClaim``: the same for a ``PodGroup.spec.resourceClaims`` entry."""
        try:
            name, check = name_from_pod_group(pg, entry)
        except ClaimNotFound:
            name, check = "", False
        except SyncError as e:
            raise SyncError(f"checking for claim before creating it: {e}") from e
        if name is None:
            return
        ns = pg["metadata"].get("namespace") or "default"
        if name and self.claim_exists(ns, name, lambda c: not check or is_for_pod_group(pg, c) is None):
            return
        tmpl = entry.get("resourceClaimTemplateName")
        if tmpl is None:
            return
        claim = self._owned.find(ns, str(pg["metadata"].get("uid")), entry["name"])
        if claim is None:
            owner = {"apiVersion": POD_GROUP_VERSION, "kind": "PodGroup", "name": pg["metadata"]["name"],
                     "uid": pg["metadata"].get("uid"), "controller": True}
            claim = self._create(ns, owner, entry["name"], str(tmpl))
        new[entry["name"]] = claim["metadata"]["name"]

    def claim_exists(self, ns: str, name: str, owned: Callable[[Obj], bool]) -> bool:
        """``claimExists``: the informer first, then the apiserver; False when it is gone
        or no longer owned (then a new one is generated)."""
        claim = self._ctx.informers.informer(API, "ResourceClaim").get(f"{ns}/{name}")
        if claim is None:
            try:
                claim = self._ctx.server.get(API, "ResourceClaim", name, ns)
            except NotFound:
                return False
        return owned(claim)

    def _create(self, ns: str, owner: Obj, claim_name: str, tmpl_name: str) -> Obj:
        tmpl = self._ctx.informers.informer(API, "ResourceClaimTemplate").get(f"{ns}/{tmpl_name}")
        if tmpl is None:
            raise SyncError(f'resource claim template "{tmpl_name}": '
                            f'resourceclaimtemplate.resource.k8s.io "{tmpl_name}" not found')
        tspec = tmpl.get("spec") or {}
        tmeta = tspec.get("metadata") or {}
        # A copy: the cached template must not change (TestCreateClaimDoesNotMutateTemplate).
        meta: Obj = {
            "generateName": generate_name(owner["name"], claim_name),
            "namespace": ns,
            "annotations": {**(tmeta.get("annotations") or {}), ANNOTATION: claim_name},
            "ownerReferences": [owner],
        }
        if tmeta.get("labels"):
            meta["labels"] = dict(tmeta["labels"])
        manifest = {"apiVersion": API, "kind": "ResourceClaim", "metadata": meta,
                    "spec": tspec.get("spec") or {}}
        try:
            return self._ctx.server.create(manifest)
        except ApiError as e:
            raise SyncError(f"create ResourceClaim : {e}") from e
