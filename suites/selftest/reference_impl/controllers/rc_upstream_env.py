"""A small harness for the resource claim controller's upstream table rows.

Objects live in a real APIServer (all gates on, so PodGroup claims are stored); the
controller under test gets its own gate set and is not started: a row calls its
``sync_handler`` with one key, as upstream's ``TestSyncHandler`` does.
"""

from __future__ import annotations

from typing import Any

from reference_impl.api import make_namespace, make_pod
from reference_impl.api.dra_builders import make_claim_template
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer, ObjectEvent
from reference_impl.clock import SimClock
from reference_impl.controllers.resourceclaim import ResourceClaimController
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
API = "resource.k8s.io/v1"
PG_API = "scheduling.k8s.io/v1beta1"
NS, OTHER_NS = "my-namespace", "not-my-namespace"
POD, GROUP, REF, TEMPLATE, NODE = "test-pod", "test-podgroup", "acme-resource", "my-template", "worker"
FINALIZER = "resource.kubernetes.io/delete-protection"
ANNOTATION = "resource.kubernetes.io/pod-claim-name"
ALLOCATION: Obj = {"devices": {"results": [
    {"request": "req-0", "driver": "driver.example.com", "pool": "pool", "device": "dev-0"}]}}


class Env:
    """One row's store and controller."""

    def __init__(self, generic: bool, group_claims: bool) -> None:
        self.clock = SimClock()
        rng = Rng(1)
        all_on = FeatureGates({"GenericWorkload": True, "DRAWorkloadResourceClaims": True})
        self.server = APIServer(MVCCStore(), self.clock, rng.child("apiserver"), all_on)
        for ns in ("default", NS, OTHER_NS):
            m = make_namespace(ns).build()
            m["metadata"]["labels"] = {"resource.kubernetes.io/admin-access": "true"}
            self.server.create(m)
        gates = FeatureGates({"GenericWorkload": generic, "DRAWorkloadResourceClaims": group_claims})
        ctx = ComponentContext(self.server, InformerFactory(self.server), self.clock, rng, gates, Trace(self.clock))
        self.ctrl = ResourceClaimController(ctx)
        self.events: list[ObjectEvent] = []
        self.server.add_event_handler(self.events.append)

    # -- objects ------------------------------------------------------------------------

    def pod(self, name: str = POD, *, claims: tuple[tuple[str, str], ...] = ((REF, TEMPLATE),),
            group: str | None = None, node: str | None = None, statuses: dict[str, str] | None = None,
            phase: str | None = None, deleting: bool = False) -> Obj:
        b = make_pod(name, NS)
        for ref, tmpl in claims:
            b.claim(ref, template=tmpl)
        m = b.build()
        if group:
            m["spec"]["schedulingGroup"] = {"podGroupName": group}
        if node:
            m["spec"]["nodeName"] = node
        if deleting:
            m["metadata"]["finalizers"] = ["example.com/keep"]
        pod = self.server.create(m)
        status: Obj = {}
        if statuses is not None:
            status["resourceClaimStatuses"] = [{"name": k, "resourceClaimName": v} for k, v in statuses.items()]
        if phase:
            status["phase"] = phase
        if status:
            pod = self.server.update_status({**pod, "status": {**(pod.get("status") or {}), **status}})
        if deleting:
            self.server.delete("v1", "Pod", name, NS)
        return self.server.get("v1", "Pod", name, NS)

    def group(self, *, claims: bool = True, statuses: dict[str, str] | None = None, deleting: bool = False) -> Obj:
        m: Obj = {"apiVersion": PG_API, "kind": "PodGroup", "metadata": {"name": GROUP, "namespace": NS},
                  "spec": {"schedulingPolicy": {"basic": {}}}}
        if claims:
            m["spec"]["resourceClaims"] = [{"name": REF, "resourceClaimTemplateName": TEMPLATE}]
        if deleting:
            m["metadata"]["finalizers"] = ["example.com/keep"]
        pg = self.server.create(m)
        if statuses is not None:
            st = [{"name": k, "resourceClaimName": v} for k, v in statuses.items()]
            pg = self.server.update_status({**pg, "status": {**(pg.get("status") or {}), "resourceClaimStatuses": st}})
        if deleting:
            self.server.delete(PG_API, "PodGroup", GROUP, NS)
        return self.server.get(PG_API, "PodGroup", GROUP, NS)

    def template(self, admin: bool = False) -> Obj:
        b = make_claim_template(TEMPLATE, NS)
        if admin:
            b.request("req-0", "class", admin_access=True)
        return self.server.create(b.build())

    def claim(self, name: str, owner: Obj | None = None, *, ns: str = NS, pod_claim: str | None = None,
              generate: str | None = None, allocated: bool = False, reserved: tuple[Obj, ...] = (),
              finalizer: bool = False, deleting: bool = False, extra: tuple[Obj, ...] = (),
              admin: bool = False, annotations: dict[str, str] | None = None) -> Obj:
        meta: Obj = {"name": name, "namespace": ns}
        if owner is not None:
            meta["ownerReferences"] = [owner_ref(owner)]
        if pod_claim is not None:
            meta["annotations"] = {ANNOTATION: pod_claim}
        if annotations:
            meta["annotations"] = {**(meta.get("annotations") or {}), **annotations}
        if generate is not None:
            meta["generateName"] = generate
        if finalizer:
            meta["finalizers"] = [FINALIZER]
        c = self.server.create({"apiVersion": API, "kind": "ResourceClaim", "metadata": meta,
                                "spec": {"devices": {"requests": [
                                    {"name": "req-0", "exactly": {"deviceClassName": "class", **(
                                        {"adminAccess": True} if admin else {})}}]}}})
        status: Obj = {}
        if allocated:
            status["allocation"] = ALLOCATION
        refs = [consumer(o) for o in reserved] + list(extra)
        if refs:
            status["reservedFor"] = refs
        if status:
            c = self.server.update_status({**c, "status": status})
        if deleting:
            self.server.delete(API, "ResourceClaim", name, ns)
        return self.server.get(API, "ResourceClaim", name, ns)

    # -- results ------------------------------------------------------------------------

    def sync(self, key: str) -> str | None:
        """Run one sync; the error message, or None."""
        try:
            self.ctrl.sync_handler(key)
        except Exception as e:  # noqa: BLE001 - a row may expect any sync error
            return str(e)
        return None

    def gen(self, name: Any) -> Any:
        """The claim name as ``norm`` shows it."""
        c = self.server.try_get(API, "ResourceClaim", name, NS) if isinstance(name, str) else None
        return _generated(name, c["metadata"].get("generateName")) if c is not None else name

    def claims(self) -> list[Obj]:
        out = [norm(c) for ns in (NS, OTHER_NS) for c in self.server.list(API, "ResourceClaim", ns)]
        return sorted(out, key=lambda c: (c["namespace"], c["name"]))

    def statuses(self) -> dict[str, list[Obj]]:
        out: dict[str, list[Obj]] = {}
        for p in self.server.list("v1", "Pod", NS):
            st = (p.get("status") or {}).get("resourceClaimStatuses")
            if st:
                out[p["metadata"]["name"]] = [{**s, "resourceClaimName": self.gen(s.get("resourceClaimName"))} for s in st]
        return out

    def group_statuses(self) -> dict[str, list[Obj]]:
        out: dict[str, list[Obj]] = {}
        for g in self.server.list(PG_API, "PodGroup", NS):
            st = (g.get("status") or {}).get("resourceClaimStatuses")
            if st:
                out[g["metadata"]["name"]] = [{**s, "resourceClaimName": self.gen(s.get("resourceClaimName"))} for s in st]
        return out


def _generated(name: str, base: str | None) -> str:
    """A generated name ``<base>xxxxx`` as ``<base>*`` (the fake client appends ``-<n>``)."""
    if base and len(name) == len(base) + 5 and name.startswith(base):
        return base + "*"
    return name


def norm(c: Obj) -> Obj:
    meta = c["metadata"]
    name = _generated(meta["name"], meta.get("generateName"))
    status = c.get("status") or {}
    return {
        "namespace": meta["namespace"], "name": name,
        "ownerReferences": meta.get("ownerReferences") or [],
        "annotations": meta.get("annotations") or {},
        "finalizers": meta.get("finalizers") or [],
        "deleting": bool(meta.get("deletionTimestamp")),
        "allocated": bool(status.get("allocation")),
        "reservedFor": status.get("reservedFor") or [],
    }


def owner_ref(obj: Obj) -> Obj:
    """``makeOwnerReference(obj, true)``."""
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": obj["metadata"]["name"],
            "uid": obj["metadata"]["uid"], "controller": True}


def consumer(obj: Obj) -> Obj:
    """``reserveClaim``'s consumer reference."""
    if obj["kind"] == "Pod":
        return {"resource": "pods", "name": obj["metadata"]["name"], "uid": obj["metadata"]["uid"]}
    return {"apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": obj["metadata"]["name"],
            "uid": obj["metadata"]["uid"]}


def expect(name: str, owner: Obj | None = None, *, ns: str = NS, pod_claim: str | None = None,
           allocated: bool = False, reserved: tuple[Obj, ...] = (), finalizer: bool = False,
           deleting: bool = False, extra: tuple[Obj, ...] = ()) -> Obj:
    """The normalized form of an expected claim."""
    return {
        "namespace": ns, "name": name,
        "ownerReferences": [owner_ref(owner)] if owner is not None else [],
        "annotations": {ANNOTATION: pod_claim} if pod_claim is not None else {},
        "finalizers": [FINALIZER] if finalizer else [],
        "deleting": deleting, "allocated": allocated,
        "reservedFor": [consumer(o) for o in reserved] + list(extra),
    }
