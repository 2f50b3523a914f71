"""A small harness for upstream ``dynamicresources_test.go`` rows: the upstream fixtures
(``podWithClaimName``, ``pendingClaim``, ``workerNodeSlice`` ...) as v1 dicts and a driver
that walks one pod through the plugin the way upstream's ``testPlugin`` does
(PreEnqueue, PreFilter, Filter per node, Score when several fit, then Reserve + PreBind
or PostFilter)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import Code, NodeScore, Status
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins.dynamic_resources import DynamicResources
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
RES = "resource.k8s.io/v1"
NS = "default"
NODE, NODE2, NODE3 = "worker", "worker-2", "worker-3"
DRIVER = "some-driver"
POD, POD_UID = "my-pod", "1234"
RESOURCE = "my-resource"
CLAIM = f"{POD}-{RESOURCE}"
CLASS = "my-resource-class"
ATTR = "healthy"
BROKEN_CEL = f'device.attributes["{DRIVER}"].{ATTR}'

# -- fixtures -----------------------------------------------------------------------------


def node(name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}}


def pod(*, claim_name: bool = True, in_status: bool = False) -> Obj:
    """podWithClaimName, or podWithClaimTemplate(InStatus) with ``claim_name=False``."""
    ref: Obj = {"name": RESOURCE}
    ref["resourceClaimName" if claim_name else "resourceClaimTemplateName"] = CLAIM
    p: Obj = {"apiVersion": "v1", "kind": "Pod",
              "metadata": {"name": POD, "namespace": NS, "uid": POD_UID},
              "spec": {"containers": [{"name": "c", "image": "i"}], "resourceClaims": [ref]}}
    if in_status:
        p["status"] = {"resourceClaimStatuses": [{"name": RESOURCE, "resourceClaimName": CLAIM}]}
    return p


def empty_pod() -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "foo", "namespace": NS},
            "spec": {"containers": [{"name": "c", "image": "i"}]}}


def device_class(selector: str | None = None) -> Obj:
    spec: Obj = {"selectors": [{"cel": {"expression": selector}}]} if selector else {}
    return {"apiVersion": RES, "kind": "DeviceClass", "metadata": {"name": CLASS}, "spec": spec}


def claim(name: str = CLAIM, *, owned: bool = True, selector: str | None = None,
          admin: bool = False, class_name: str = CLASS) -> Obj:
    """st.MakeResourceClaim().Request(className); ``owned``: OwnerReference to the pod."""
    exactly: Obj = {"deviceClassName": class_name, "allocationMode": "ExactCount", "count": 1}
    if selector:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    if admin:
        exactly["adminAccess"] = True
    meta: Obj = {"name": name, "namespace": NS}
    if owned:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": POD,
                                    "uid": POD_UID, "controller": True}]
    return {"apiVersion": RES, "kind": "ResourceClaim", "metadata": meta,
            "spec": {"devices": {"requests": [{"name": "req-1", "exactly": exactly}]}}}


def allocation(device: str = "instance-1", selector: Obj | None = None) -> Obj:
    """allocationResult (devices on ``worker``, matchFields metadata.name In [worker])."""
    sel = selector or {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": [NODE]}]}]}
    return {"devices": {"results": [{"request": "req-1", "driver": DRIVER, "pool": NODE,
                                     "device": device}]}, "nodeSelector": sel}


GPU, GPU2 = "example.com/gpu", "example.com/gpu2"


def ext_class(name: str = CLASS, resource: str | None = GPU) -> Obj:
    """deviceClassWithExtendResourceName(2): a class that serves an extended resource."""
    c = device_class()
    c["metadata"]["name"] = name
    if resource:
        c["spec"]["extendedResourceName"] = resource
    return c


def ext_pod(*resources: str) -> Obj:
    """podWithExtendedResourceName(2): one container asking for 1 of each resource."""
    return ext_pod_containers({r: "1" for r in resources})


def ext_pod_containers(*requests: dict[str, str]) -> Obj:
    """A pod with one container per ``requests`` (requests = limits)."""
    p = empty_pod()
    p["metadata"].update(name=POD, uid=POD_UID)
    p["spec"]["containers"] = [{"name": f"c{i}", "image": "i", "resources": {"requests": r, "limits": r}}
                               for i, r in enumerate(requests)]
    return p


def ext_node(allocatable: dict[str, str] | None = None) -> Obj:
    """workerNodeWithExtendedResource(ZeroAllocatable): ``allocatable`` in its status."""
    n = node(NODE)
    if allocatable is not None:
        n["status"] = {"capacity": allocatable, "allocatable": allocatable}
    return n


def allocation_for(*requests: str) -> Obj:
    """An allocation on ``worker`` with one result per request name (devices are not
    compared: upstream's verify ignores them)."""
    a = allocation()
    a["devices"]["results"] = [{"request": r, "driver": DRIVER, "pool": NODE, "device": ""} for r in requests]
    return a


def prioritized_claim(name: str, *requests: list[tuple[str, int, str | None]]) -> Obj:
    """A pending claim (owned by the pod) whose requests req-1, req-2 ... each list
    subrequests (name, count, CEL selector or None)."""
    c = claim(name)
    c["spec"]["devices"]["requests"] = [
        {"name": f"req-{i + 1}", "firstAvailable": [
            {"name": n, "deviceClassName": CLASS, "allocationMode": "ExactCount", "count": k,
             **({"selectors": [{"cel": {"expression": sel}}]} if sel else {})}
            for n, k, sel in subs]}
        for i, subs in enumerate(requests)]
    return c


def allocated(c: Obj, alloc: Obj | None = None, reserved_for: list[Obj] | None = None,
              devices: list[Obj] | None = None) -> Obj:
    out = copy.deepcopy(c)
    out["metadata"]["finalizers"] = ["resource.kubernetes.io/delete-protection"]
    out["status"] = {"allocation": alloc or allocation()}
    if any(r.get("exactly", {}).get("adminAccess") for r in out["spec"]["devices"]["requests"]):
        for r in out["status"]["allocation"]["devices"]["results"]:  # adminAccess()
            r["adminAccess"] = True
    if reserved_for:
        out["status"]["reservedFor"] = reserved_for
    if devices:
        out["status"]["devices"] = devices
    return out


def for_pod(name: str = POD, uid: str = POD_UID) -> Obj:
    return {"resource": "pods", "name": name, "uid": uid}


def node_slice(node_name: str = NODE, *devices: str, attr: bool = False, taint: bool = False) -> Obj:
    devs: list[Obj] = []
    for d in devices or ("instance-1",):
        dev: Obj = {"name": d}
        if attr:
            dev["attributes"] = {ATTR: {"bool": True}}
        if taint:
            dev["taints"] = [{"key": "example.com/taint", "effect": "NoExecute"}]
        devs.append(dev)
    return {"apiVersion": RES, "kind": "ResourceSlice",
            "metadata": {"name": f"{node_name}-{DRIVER}"},
            "spec": {"nodeName": node_name, "driver": DRIVER,
                     "pool": {"name": node_name, "resourceSliceCount": 1, "generation": 0},
                     "devices": devs}}


# -- the driver -----------------------------------------------------------------------------


@dataclass
class _Handle:
    ctx: ComponentContext
    features: SchedulerFeatures = field(default_factory=SchedulerFeatures)


@dataclass
class Env:
    """One control plane (no scheduler running) and the plugin under test."""

    server: APIServer
    clock: SimClock
    plugin: DynamicResources

    def claim(self, name: str = CLAIM) -> Obj:
        got: Obj = self.server.get(RES, "ResourceClaim", name, NS)
        return got


def setup(objs: list[Obj], gates: dict[str, bool] | None = None) -> Env:
    """Store ``objs`` (a claim's status goes through /status), then build the plugin."""
    clock = SimClock()
    rng = Rng(0)
    fg = FeatureGates(gates)
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), fg)
    # The label lets claims ask for admin access (the apiserver checks it; upstream's
    # fake clientset does not).
    server.create(make_namespace(NS).label("resource.kubernetes.io/admin-access", "true").build())
    ctx = ComponentContext(server, InformerFactory(server), clock, rng, fg, Trace(clock))
    for o in objs:
        o = copy.deepcopy(o)
        status = o.pop("status", None)
        created = server.create(o)
        if status:
            if status.get("allocation"):
                # PreBind stamps allocationTimestamp (binding conditions on); upstream's
                # fake clientset accepts adding it later, the apiserver does not (the
                # allocation is immutable), so stored allocations carry it from the start.
                status["allocation"].setdefault("allocationTimestamp", "2026-09-01T00:00:00Z")
            server.update_status({**created, "status": status})
    plugin = DynamicResources(_Handle(ctx))
    clock.settle()
    return Env(server, clock, plugin)


def _view(s: Status) -> tuple[Code, str]:
    return s.code, s.message()


def walk(env: Env, p: Obj, nodes: list[Obj], assume: list[Obj] | None = None) -> dict[str, Any]:
    # A stored pod (the extended-resource rows store it: PreBind records its claim in the
    # pod's status) is walked as stored, with the uid the apiserver gave it.
    stored = env.server.try_get("v1", "Pod", p["metadata"]["name"], p["metadata"].get("namespace", NS))
    p = stored or p
    return _walk(env, p, nodes, assume)


def _walk(env: Env, p: Obj, nodes: list[Obj], assume: list[Obj] | None) -> dict[str, Any]:
    """testPlugin's sequence; the returned map holds each step that ran: its
    (code, message), ``filter/<node>`` per node, and ``claims`` (their status after)."""
    pl = env.plugin
    out: dict[str, Any] = {}
    for c in assume or ():  # inFlightClaims: SignalClaimPendingAllocation
        pl.tracker.assume(f'{NS}/{c["metadata"]["name"]}', c["status"]["allocation"])
    out["preenqueue"] = _view(pl.pre_enqueue(p))
    if out["preenqueue"][0] != Code.SUCCESS:
        return out
    state = CycleState()
    infos = [NodeInfo(n["metadata"]["name"], n) for n in nodes]
    _, st = pl.pre_filter(state, p, [NodeInfo("")])
    out["prefilter"] = _view(st)
    potential: list[str] = []
    if not st.is_rejected() and st.code != Code.ERROR:
        for ni in infos:
            fs = pl.filter(state, p, ni) if st.code != Code.SKIP else Status(Code.SUCCESS)
            out[f"filter/{ni.name}"] = _view(fs)
            if fs.code == Code.SUCCESS:
                potential.append(ni.name)
            if fs.code == Code.ERROR:
                return out
    chosen = potential[0] if potential else ""
    if len(potential) > 1:  # Score and NormalizeScore; the first best node wins
        by_name = {ni.name: ni for ni in infos}
        scores = []
        for n in potential:
            value, _ = pl.score(state, p, by_name[n])
            scores.append(NodeScore(n, value))
        out["score"] = {s.name: s.score for s in scores}
        pl.normalize_score(state, p, scores)
        out["normalized"] = {s.name: s.score for s in scores}
        chosen = max(scores, key=lambda s: s.score).name  # max keeps the first of equals
    if potential:
        rs = pl.reserve(state, p, chosen)
        out["reserve"] = _view(rs)
        if rs.code == Code.SUCCESS:
            out["prebind"] = _view(pl.pre_bind(state, p, chosen))
            env.clock.settle()
    else:
        _, ps = pl.post_filter(state, p, _NoStatuses())
        out["postfilter"] = _view(ps)
        env.clock.settle()
    out["claims"] = {c["metadata"]["name"]: c.get("status") or {}
                     for c in env.server.list(RES, "ResourceClaim", NS)}
    return out


class _NoStatuses:
    """``filteredNodeStatusMap`` (unused by the plugin)."""

    def get(self, name: str) -> Status:
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    def node_names(self) -> list[str]:
        return []


# -- binding conditions (DRADeviceBindingConditions) ---------------------------------------

T0 = "2026-09-01T00:00:00Z"  # SimClock's start: "now" for the rows
DRIVER2 = "some-driver-2"
CLAIM2 = f"{POD}-{RESOURCE}-2"


def pod_two_claims() -> Obj:
    """podWithTwoClaimNames."""
    p = pod()
    p["spec"]["resourceClaims"].append({"name": f"{RESOURCE}-2", "resourceClaimName": CLAIM2})
    return p


def bc_allocation(driver: str = DRIVER, device: str = "instance-1", request: str = "req-1",
                  ts: str = T0) -> Obj:
    """allocationResultWithBindingConditions(2)."""
    a = allocation(device)
    a["allocationTimestamp"] = ts
    a["devices"]["results"][0].update(driver=driver, request=request, bindingConditions=["condition"],
                                      bindingFailureConditions=["failed"])
    return a


def device_status(driver: str, device: str, ok: bool | None) -> Obj:
    """An AllocatedDeviceStatus: ``ok`` True: condition True, failed False; False: the
    reverse; None: no conditions."""
    out: Obj = {"driver": driver, "pool": NODE, "device": device}
    if ok is not None:
        out["conditions"] = [_cond("condition", ok), _cond("failed", not ok)]
    return out


def _cond(kind: str, true: bool) -> Obj:
    # reason and lastTransitionTime: the apiserver requires them (the fake clientset not).
    return {"type": kind, "status": "True" if true else "False", "reason": "Test",
            "message": "", "lastTransitionTime": T0}


def fabric_slice(driver: str = DRIVER, device: str = "instance-1") -> Obj:
    """fabricSlice(2): one device that binds to the node, with binding conditions."""
    s = node_slice(NODE, device)
    s["metadata"]["name"] = f"{NODE}-{driver}"
    spec = s["spec"]
    spec["driver"] = driver
    del spec["nodeName"]
    spec["nodeSelector"] = {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": [NODE]}]}]}
    spec["devices"][0].update(bindsToNode=True, bindingConditions=["condition"],
                              bindingFailureConditions=["failed"])
    return s
