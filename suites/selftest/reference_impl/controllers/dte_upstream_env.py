"""A small harness for the device taint eviction controller's upstream table rows.

A real APIServer, informers and the started controller on a simulated clock that starts
at upstream's ``taintTime`` (2000-01-01T00:00:00Z). Each ``apply`` is one informer
event, handled before the next (``settle``). Object names follow
``pkg/controller/devicetainteviction/device_taint_eviction_test.go``.
"""

from __future__ import annotations

from typing import Any

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock, parse_rfc3339, rfc3339, seconds
from reference_impl.controllers.device_taint_eviction import DeviceTaintEvictionController
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
API = "resource.k8s.io/v1"
PG_API = "scheduling.k8s.io/v1beta1"
NODE, NODE2, DRIVER = "worker", "worker-2", "some-driver"
POD, GROUP, CLASS, RESOURCE = "my-pod", "my-podgroup", "my-resource-class", "my-resource"
CLAIM = f"{POD}-{RESOURCE}"
NS = "default"
TAINT_TIME = "2000-01-01T00:00:00Z"
KEY, VALUE = "example.com/taint", "something"
TAINT: Obj = {"key": KEY, "value": VALUE, "effect": "NoExecute", "timeAdded": TAINT_TIME}
REASON = "DeletionByDeviceTaintManager"
MESSAGE = "Device Taint manager: deleting due to NoExecute taint"


def at(secs: float) -> str:
    """``taintTime`` plus ``secs`` as RFC 3339."""
    return rfc3339(Instant(parse_rfc3339(TAINT_TIME) + seconds(secs)))


def slice_(name: str = f"{NODE}-{DRIVER}", pool: str = NODE, generation: int = 1, *,
           first_taints: list[Obj] | None = None, suffix: str = "", extra: bool = False,
           effect: str | None = None) -> Obj:
    """``slice`` (3 devices) with the first device's taints replaced when given; ``effect``
    rewrites every taint's effect (sliceTaintedNone/NoSchedule/Unknown)."""
    devices: list[Obj] = [
        {"name": "instance"},
        {"name": "instance-no-schedule", "taints": [{"key": KEY, "effect": "NoSchedule"}]},
        {"name": "instance-no-execute", "taints": [
            {"key": KEY, "effect": "None", "timeAdded": TAINT_TIME},
            {"key": KEY, "effect": "NoExecute", "timeAdded": TAINT_TIME}]},
    ]
    if first_taints is not None:
        devices[0]["taints"] = first_taints
    if extra:
        devices.append({**devices[0], "name": "instance-other"})
    for d in devices:
        d["name"] += suffix
        if effect is not None:
            d["taints"] = [{**t, "effect": effect} for t in d.get("taints") or ()]
    return {"apiVersion": API, "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": DRIVER, "nodeName": pool, "devices": devices,
                     "pool": {"name": pool, "generation": generation, "resourceSliceCount": 1}}}


def simple_slice() -> Obj:
    """``simpleSlice``: one untainted device."""
    s = slice_()
    s["spec"]["devices"] = [{"name": "instance"}]
    return s


def rule(name: str = "evict", *, effect: str = "NoExecute", device: str | None = None, driver: bool = True,
         time_added: str = TAINT_TIME) -> Obj:
    sel: Obj = {}
    if driver:
        sel["driver"] = DRIVER
    if device:
        sel["device"] = device
    return {"apiVersion": API, "kind": "DeviceTaintRule", "metadata": {"name": name},
            "spec": {"deviceSelector": sel, "taint": {**TAINT, "effect": effect, "timeAdded": time_added}}}


class Env:
    """One row's control plane with the started device taint eviction controller."""

    def __init__(self, group_claims: bool = False) -> None:
        self.clock = SimClock(Instant(parse_rfc3339(TAINT_TIME)))
        rng = Rng(1)
        gates = FeatureGates({"GenericWorkload": group_claims, "DRAWorkloadResourceClaims": group_claims})
        self.server = APIServer(MVCCStore(), self.clock, rng.child("apiserver"), gates)
        for ns in (NS, f"{NS}-other"):
            if self.server.try_get("v1", "Namespace", ns) is None:
                self.server.create(make_namespace(ns).build())
        ctx = ComponentContext(self.server, InformerFactory(self.server), self.clock, rng, gates, Trace(self.clock))
        self.ctrl = DeviceTaintEvictionController(ctx)
        self.ctrl.start()
        self.clock.settle()

    def apply(self, obj: Obj, settle: bool = True) -> Obj:
        """Create or replace ``obj`` (spec and status), then (``settle``) process the work;
        a row whose events upstream all sees before processing passes ``settle=False``."""
        meta = obj["metadata"]
        cur = self.server.try_get(obj["apiVersion"], obj["kind"], meta["name"], meta.get("namespace"))
        status = obj.get("status")
        body = {k: v for k, v in obj.items() if k != "status"}
        if cur is None:
            out = self.server.create(body)
        else:
            out = self.server.update({**body, "metadata": {**cur["metadata"], **meta}})
        if status:
            out = self.server.update_status({**out, "status": status})
        if settle:
            self.clock.settle()
        return out

    def remove(self, obj: Obj) -> None:
        meta = obj["metadata"]
        self.server.delete(obj["apiVersion"], obj["kind"], meta["name"], meta.get("namespace"),
                           grace_period_seconds=0)
        self.clock.settle()

    def advance(self, secs: float) -> None:
        self.clock.run_until(Instant(self.clock.now() + seconds(secs)))
        self.clock.settle()

    def pod(self, name: str = POD, ns: str = NS) -> Obj | None:
        return self.server.try_get("v1", "Pod", name, ns)

    def evicted(self, name: str = POD, ns: str = NS) -> bool:
        """Deleted (gone or marked) with upstream's DisruptionTarget condition."""
        pod = self.pod(name, ns)
        return pod is None or bool(pod["metadata"].get("deletionTimestamp"))

    def condition(self, name: str) -> Obj | None:
        r = self.server.get(API, "DeviceTaintRule", name)
        for c in (r.get("status") or {}).get("conditions") or ():
            if c.get("type") == "EvictionInProgress":
                return {k: c.get(k) for k in ("status", "reason", "message", "lastTransitionTime")}
        return None

    def eviction_at(self, name: str = POD, ns: str = NS) -> str | None:
        """``deletePodAt``: when the pod's untolerated taints evict it, or None."""
        pod = self.pod(name, ns)
        ev = self.ctrl.pod_eviction(pod) if pod is not None else None
        return None if ev is None else rfc3339(ev.when)


def pod(name: str = POD, ns: str = NS, *, claim: str | None = CLAIM, template: bool = False,
        node: str | None = NODE, group: str | None = None, status_claim: str | None = None,
        ext_claim: str | None = None, ext: bool = False) -> Obj:
    """``podWithClaimName`` and its variants (a container so that the pod is valid)."""
    spec: Obj = {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}]}
    if claim is not None:
        ref = {"name": RESOURCE, "resourceClaimTemplateName" if template else "resourceClaimName": claim}
        spec["resourceClaims"] = [ref]
    if node:
        spec["nodeName"] = node
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    out: Obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns}, "spec": spec}
    status: Obj = {}
    if template and status_claim != "":
        status["resourceClaimStatuses"] = [{"name": RESOURCE, **(
            {"resourceClaimName": status_claim} if status_claim else {})}]
    if ext or ext_claim:  # the extended resource the status maps
        spec["containers"][0]["resources"] = {"requests": {"example.com/gpu": "1"}, "limits": {"example.com/gpu": "1"}}
    if ext_claim:
        status["extendedResourceClaimStatus"] = {"resourceClaimName": ext_claim, "requestMappings": [
            {"containerName": "main", "resourceName": "example.com/gpu", "requestName": "container-0-request-0"}]}
    if status:
        out["status"] = status
    return out


def claim(owner: Obj | None, *, name: str = CLAIM, ns: str = NS, devices: tuple[str, ...] = ("instance",),
          reserved: tuple[Obj, ...] = (), tolerations: list[Obj] | None = None, allocated: bool = True) -> Obj:
    """``inUseClaim`` and its variants; ``owner``/``reserved`` are stored objects."""
    meta: Obj = {"name": name, "namespace": ns}
    if owner is not None:
        meta["ownerReferences"] = [{"apiVersion": owner["apiVersion"], "kind": owner["kind"],
                                    "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"],
                                    "controller": True}]
    out: Obj = {"apiVersion": API, "kind": "ResourceClaim", "metadata": meta,
                "spec": {"devices": {"requests": [{"name": "req-1", "exactly": {"deviceClassName": CLASS}}]}}}
    if allocated:
        results: list[Obj] = [{"driver": DRIVER, "pool": NODE, "device": d, "request": "req-1"} for d in devices]
        if tolerations is not None:
            results[0]["tolerations"] = tolerations
        refs = []
        for r in reserved:
            m = r["metadata"]
            if r["kind"] == "Pod":
                refs.append({"resource": "pods", "name": m["name"], "uid": m["uid"]})
            else:
                refs.append({"apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": m["name"],
                             "uid": m["uid"]})
        out["status"] = {"allocation": {"devices": {"results": results}}, "reservedFor": refs}
    return out


def pod_group() -> Obj:
    return {"apiVersion": PG_API, "kind": "PodGroup", "metadata": {"name": GROUP, "namespace": NS},
            "spec": {"schedulingPolicy": {"basic": {}}}}


PERIOD = 10  # ruleStatusPeriod, seconds
HOUR = 3600  # tolerationDuration
TAINTED = slice_(first_taints=[TAINT])
SLICE2 = slice_(f"{NODE2}-driver", NODE2, 2)
TOLERATE_HOUR = [{"key": KEY, "operator": "Equal", "value": VALUE, "effect": "NoExecute", "tolerationSeconds": HOUR}]


def cond(status: bool, reason: str, message: str, secs: float = 0) -> Obj:
    return {"status": "True" if status else "False", "reason": reason, "message": message,
            "lastTransitionTime": at(secs)}


def pending(n: int = 1, nss: int = 1) -> str:
    pods = "1 pod needs" if n == 1 else f"{n} pods need"
    return f"{pods} to be evicted in {'1 namespace' if nss == 1 else f'{nss} different namespaces'}."


def completed(n: int = 1) -> str:
    return f"{'1 pod' if n == 1 else f'{n} pods'} evicted since starting the controller."


def none_msg(published: int, allocated: int, pods: int, nss: int) -> str:
    def n(c: int, one: str, many: str) -> str:
        return f"1 {one}" if c == 1 else f"{c} {many}"
    return (f"{n(published, 'published device', 'published devices')} selected. "
            f"{n(allocated, 'allocated device', 'allocated devices')} selected. "
            f"{n(pods, 'pod would', 'pods would')} be evicted in "
            f"{'1 namespace' if nss == 1 else f'{nss} different namespaces'} if the effect was NoExecute. "
            "This information will not be updated again. Recreate the DeviceTaintRule to trigger an update.")


def assert_evicted(e: Env, name: str = POD, ns: str = NS) -> None:
    """Deleted after the DisruptionTarget condition with upstream's reason and message."""
    p = e.pod(name, ns)
    assert p is not None and p["metadata"].get("deletionTimestamp"), "pod not deleted"
    conds = [c for c in (p.get("status") or {}).get("conditions") or () if c.get("type") == "DisruptionTarget"]
    assert [(c["status"], c["reason"], c["message"]) for c in conds] == [("True", REASON, MESSAGE)]


def assert_kept(e: Env, name: str = POD, ns: str = NS) -> None:
    p = e.pod(name, ns)
    assert p is not None and not p["metadata"].get("deletionTimestamp"), "pod got deleted"


def claim_eviction(e: Env, name: str = CLAIM, ns: str = NS) -> str | None:
    c = e.server.get("resource.k8s.io/v1", "ResourceClaim", name, ns)
    ev = e.ctrl.claim_eviction(c)
    return None if ev is None else rfc3339(ev.when)
