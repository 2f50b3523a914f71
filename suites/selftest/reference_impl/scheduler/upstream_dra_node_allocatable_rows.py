"""Table rows of upstream ``TestBuildNodeAllocatableDRAInfo`` and
``TestValidatePodLevelResourcesCoverDRA`` (``nodeallocatabledynamicresources_test.go``), as
v1 dicts, for ``test_upstream_dra_node_allocatable``."""

from __future__ import annotations

from typing import Any

from reference_impl.scheduler.framework.interface import Code

Obj = dict[str, Any]
DRV = "dra.example.com"


def pod_with(*containers: Obj, requests: dict[str, str] | None = None, pod_requests: dict[str, str] | None = None,
             pod_limits: dict[str, str] | None = None, overhead: dict[str, str] | None = None) -> Obj:
    """A pod in test-ns; ``requests``: one unnamed container asking for them."""
    ctrs = list(containers) or [{"name": "", "resources": {"requests": requests or {}}}]
    spec: Obj = {"containers": ctrs}
    res: Obj = {}
    if pod_requests:
        res["requests"] = pod_requests
    if pod_limits:
        res["limits"] = pod_limits
    if res:
        spec["resources"] = res
    if overhead:
        spec["overhead"] = overhead
    return {"metadata": {"name": "test-pod", "namespace": "test-ns", "uid": "test-uid"}, "spec": spec}


def ctr(name: str, *claims: str, requests: dict[str, str] | None = None,
        limits: dict[str, str] | None = None) -> Obj:
    r: Obj = {}
    if requests:
        r["requests"] = requests
    if limits:
        r["limits"] = limits
    if claims:
        r["claims"] = [{"name": c} for c in claims]
    return {"name": name, "resources": r}


# -- devices and slices of TestBuildNodeAllocatableDRAInfo ------------------------------------


def dev(name: str, **resources: Obj) -> Obj:
    return {"name": name, "nodeAllocatableResources": resources}


def by_device(mult: str) -> Obj:
    return {"mapping": {"deviceMultiplier": mult}}


def by_capacity(key: str, mult: str | None = None) -> Obj:
    m: Obj = {"capacityKey": key}
    if mult:
        m["capacityMultiplier"] = mult
    return {"mapping": m}


def over(per_pod: str | None = None, per_ctr: str | None = None, mapping: Obj | None = None) -> Obj:
    o: Obj = {}
    if per_pod:
        o["perPod"] = per_pod
    if per_ctr:
        o["perContainer"] = per_ctr
    return {**(mapping or {}), "overhead": o}


CPU_PER_INSTANCE = dev("cpu0", cpu=by_device("1"))
CPU_CAPACITY = dev("cpu0", cpu=by_capacity(f"{DRV}/cpu"))
CPU_MEM_CAPACITY = dev("device1", cpu=by_capacity(f"{DRV}/cpu"), memory=by_capacity(f"{DRV}/memory"))
GPU_AUX = dev("gpu0", cpu=by_device("2"), memory=by_device("4Gi"))
COMBINED = dev("combined-device", cpu=over("1", "500m", by_device("2")))


def sl(name: str, *devices: Obj, driver: str = DRV) -> Obj:
    return {"metadata": {"name": name},
            "spec": {"pool": {"name": "pool1"}, "nodeName": "test-node", "driver": driver,
                     "devices": list(devices)}}


def alloc(device: str, consumed: dict[str, str] | None = None, driver: str = DRV) -> Obj:
    r: Obj = {"driver": driver, "pool": "pool1", "device": device}
    if consumed:
        r["consumedCapacity"] = consumed
    return {"devices": {"results": [r]}}


def st(name: str, containers: list[str], mapping: dict[str, str] | None = None,
       overhead: list[Obj] | None = None) -> Obj:
    return {"resourceClaimName": name, "containers": containers,
            "mapping": [{"name": k, "quantity": v} for k, v in (mapping or {}).items()],
            "overhead": overhead or []}


def key(name: str, uid: str) -> tuple[str, str, str]:
    # v1.ObjectReference{Name, UID}: upstream's keys leave the namespace empty.
    return ("", name, uid)


def _one(name: str, uid: str = "claim-uid") -> dict[str, str]:
    return {name: uid}


MEM_OVERHEAD = dev("device1", memory=over("1Gi", "500Mi"))
_C1 = pod_with(ctr("c1", "claim1"))

BUILD_ROWS: list[tuple[Any, ...]] = [
    ("empty", {"metadata": {}, "spec": {}}, {}, [], {}, []),
    ("one container, one claim, per instance quantity", pod_with(ctr("c1", "node-allocatable-claim")),
     _one("node-allocatable-claim"), [sl("slice1", CPU_PER_INSTANCE)],
     {key("node-allocatable-claim", "claim-uid"): alloc("cpu0")},
     [st("node-allocatable-claim", ["c1"], {"cpu": "1"})]),
    ("Pod with Standard and DRA CPU and Memory Request",
     pod_with(ctr("c1", "node-allocatable-claim", requests={"cpu": "100m", "memory": "100Mi"})),
     _one("node-allocatable-claim"), [sl("slice1", CPU_MEM_CAPACITY)],
     {key("node-allocatable-claim", "claim-uid"): alloc("device1", {f"{DRV}/cpu": "4", f"{DRV}/memory": "8Gi"})},
     [st("node-allocatable-claim", ["c1"], {"cpu": "4", "memory": "8Gi"})]),
    ("Fungible GPU/CPU claim - GPU selected", pod_with(ctr("c1", "fungible-claim", requests={"cpu": "1"})),
     _one("fungible-claim"), [sl("gpu-slice", {"name": "gpu0"})],
     {key("fungible-claim", "claim-uid"): alloc("gpu0")}, []),
    ("Fungible GPU/CPU claim - CPU selected", pod_with(ctr("c1", "fungible-claim", requests={"cpu": "1"})),
     _one("fungible-claim"), [sl("cpu-slice", CPU_CAPACITY)],
     {key("fungible-claim", "claim-uid"): alloc("cpu0", {f"{DRV}/cpu": "30"})},
     [st("fungible-claim", ["c1"], {"cpu": "30"})]),
    ("Combined CPU request and Auxiliary Request",
     pod_with(ctr("c1", "gpu-claim", "cpu-claim", requests={"cpu": "100m"})),
     {"cpu-claim": "cpu-claim-uid", "gpu-claim": "gpu-claim-uid"},
     [sl("cpu-slice", CPU_CAPACITY), sl("gpu-slice", GPU_AUX)],
     {key("cpu-claim", "cpu-claim-uid"): alloc("cpu0", {f"{DRV}/cpu": "10"}),
      key("gpu-claim", "gpu-claim-uid"): alloc("gpu0")},
     [st("cpu-claim", ["c1"], {"cpu": "10"}), st("gpu-claim", ["c1"], {"cpu": "2", "memory": "4Gi"})]),
    ("Pod Level Resources with shared CPU claim and sidecar containers",
     pod_with(ctr("c1", "cpu-claim"), ctr("c2", "cpu-claim"), ctr("sidecar1"), ctr("sidecar2"),
              pod_requests={"cpu": "11", "memory": "10Gi"}),
     _one("cpu-claim", "cpu-claim-uid"), [sl("cpu-slice", CPU_CAPACITY)],
     {key("cpu-claim", "cpu-claim-uid"): alloc("cpu0", {f"{DRV}/cpu": "10"})},
     [st("cpu-claim", ["c1", "c2"], {"cpu": "10"})]),
    ("Multiple Claims per Container", pod_with(ctr("c1", "claim1", "claim2", requests={"cpu": "100m"})),
     {"claim1": "claim1-uid", "claim2": "claim2-uid"}, [sl("slice1", CPU_CAPACITY), sl("slice2", CPU_MEM_CAPACITY)],
     {key("claim1", "claim1-uid"): alloc("cpu0", {f"{DRV}/cpu": "4"}),
      key("claim2", "claim2-uid"): alloc("device1", {f"{DRV}/memory": "8Gi"})},
     [st("claim1", ["c1"], {"cpu": "4"}), st("claim2", ["c1"], {"memory": "8Gi"})]),
    ("Unreferenced Claims", pod_with(ctr("c1")), _one("unref-claim", "unref-claim-uid"),
     [sl("slice1", CPU_CAPACITY)], {key("unref-claim", "unref-claim-uid"): alloc("cpu0", {f"{DRV}/cpu": "4"})},
     [st("unref-claim", [], {"cpu": "4"})]),
    ("Unreferenced Claims with Overhead", pod_with(ctr("c1")), _one("unref-claim", "unref-claim-uid"),
     [sl("slice1", MEM_OVERHEAD)], {key("unref-claim", "unref-claim-uid"): alloc("device1")},
     [st("unref-claim", [], overhead=[{"name": "memory", "perPod": "1Gi", "perContainer": "500Mi"}])]),
    ("Unreferenced Claims with Overhead Per Container Only", pod_with(ctr("c1")),
     _one("unref-claim", "unref-claim-uid"), [sl("slice1", dev("device1", memory=over(None, "500Mi")))],
     {key("unref-claim", "unref-claim-uid"): alloc("device1")},
     [st("unref-claim", [], overhead=[{"name": "memory", "perContainer": "500Mi"}])]),
    ("Combined Capacity and PerAllocatedUnitQuantity", _C1, _one("claim1", "claim1-uid"),
     [sl("slice1", dev("device1", cpu=by_capacity(f"{DRV}/cores", "2")))],
     {key("claim1", "claim1-uid"): alloc("device1", {f"{DRV}/cores": "4"})}, [st("claim1", ["c1"], {"cpu": "8"})]),
    ("Capacity Key Missing in Allocation - Should be Ignored", _C1, _one("claim1", "claim1-uid"),
     [sl("slice1", CPU_CAPACITY)], {key("claim1", "claim1-uid"): alloc("cpu0", {f"{DRV}/wrong": "4"})}, []),
    ("Overhead Mappings", _C1, _one("claim1", "claim1-uid"), [sl("slice1", MEM_OVERHEAD)],
     {key("claim1", "claim1-uid"): alloc("device1")},
     [st("claim1", ["c1"], overhead=[{"name": "memory", "perPod": "1Gi", "perContainer": "500Mi"}])]),
    ("Overhead Mappings - Only PerPod", _C1, _one("claim1", "claim1-uid"),
     [sl("slice1", dev("device1", memory=over("1Gi")))], {key("claim1", "claim1-uid"): alloc("device1")},
     [st("claim1", ["c1"], overhead=[{"name": "memory", "perPod": "1Gi"}])]),
    ("Overhead Mappings - Only PerContainer", _C1, _one("claim1", "claim1-uid"),
     [sl("slice1", dev("device1", memory=over(None, "500Mi")))], {key("claim1", "claim1-uid"): alloc("device1")},
     [st("claim1", ["c1"], overhead=[{"name": "memory", "perContainer": "500Mi"}])]),
    ("Overhead Mappings - Multiple Containers", pod_with(ctr("c1", "claim1"), ctr("c2", "claim1")),
     _one("claim1", "claim1-uid"), [sl("slice1", MEM_OVERHEAD)], {key("claim1", "claim1-uid"): alloc("device1")},
     [st("claim1", ["c1", "c2"], overhead=[{"name": "memory", "perPod": "1Gi", "perContainer": "500Mi"}])]),
    ("Combined direct mapped and overhead mappings for the same resource", _C1, _one("claim1", "claim1-uid"),
     [sl("slice1", dev("device1", memory=over("1Gi", "500Mi", by_device("2Gi"))))],
     {key("claim1", "claim1-uid"): alloc("device1")},
     [st("claim1", ["c1"], {"memory": "2Gi"}, [{"name": "memory", "perPod": "1Gi", "perContainer": "500Mi"}])]),
    ("device with both mapped and overhead", _C1, _one("claim1", "claim1-uid"), [sl("slice1", COMBINED)],
     {key("claim1", "claim1-uid"): alloc("combined-device")},
     [st("claim1", ["c1"], {"cpu": "2"}, [{"name": "cpu", "perPod": "1", "perContainer": "500m"}])]),
    ("Driver name collision with same pool and device name", _C1, _one("claim1", "claim1-uid"),
     [sl("slice-a", dev("cpu0", cpu=by_device("1")), driver="driver-a.example.com"),
      sl("slice-b", dev("cpu0", cpu=by_device("8")), driver="driver-b.example.com")],
     {key("claim1", "claim1-uid"): alloc("cpu0", driver="driver-b.example.com")}, [st("claim1", ["c1"], {"cpu": "8"})]),
    ("Invalid -  Device Not Found", _C1, _one("claim1", "claim1-uid"), [sl("slice1", {"name": "device1"})],
     {key("claim1", "claim1-uid"): alloc("nonexistent-device")}, None),
]

# -- TestValidatePodLevelResourcesCoverDRA ------------------------------------------------------

OK, UU = Code.SUCCESS, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
_ONE = {"cpu": "1", "memory": "1Gi"}


def mapped(**q: str) -> list[Obj]:
    return [{"resourceClaimName": "dra-claim", "mapping": [{"name": k, "quantity": v} for k, v in q.items()]}]


def overhead(per_pod: str | None, per_ctr: str) -> list[Obj]:
    o: Obj = {"name": "memory", "perContainer": per_ctr}
    if per_pod:
        o["perPod"] = per_pod
    return [{"resourceClaimName": "dra-claim", "containers": ["c1"], "overhead": [o]}]


COVER_ROWS: list[tuple[Any, ...]] = [
    ("PodLevelResources enabled, no pod resources set", pod_with(ctr("", "dra-claim", requests=_ONE)),
     mapped(cpu="500m", memory="512Mi"), OK, ""),
    ("PodLevel resources sufficient",
     pod_with(ctr("", "dra-claim", requests=_ONE), pod_requests={"cpu": "2", "memory": "2Gi"}),
     mapped(cpu="500m", memory="512Mi"), OK, ""),
    ("PodLevel insufficient for one of the resource",
     pod_with(ctr("", "dra-claim", requests={"cpu": "800m", "memory": "1Gi"}), pod_requests={"cpu": "1", "memory": "2Gi"}),
     mapped(cpu="300m", memory="512Mi"), UU,
     "pod level request for cpu is insufficient to cover the aggregated container and node-allocatable DRA requests"),
    ("PodLevel insufficient for multiple resources",
     pod_with(ctr("", "dra-claim", requests={"cpu": "1100m", "memory": "1100Mi"}),
              pod_requests={"cpu": "1", "memory": "1Gi"}),
     mapped(cpu="100m", memory="100Mi"), UU,
     "insufficient to cover the aggregated container and node-allocatable DRA requests"),
    ("PodLevel resources sufficient with overheads",
     pod_with(ctr("c1", "dra-claim", requests=_ONE), pod_requests={"cpu": "4", "memory": "3Gi"},
              overhead={"cpu": "500m", "memory": "512Mi"}),
     mapped(cpu="1", memory="1Gi"), OK, ""),
    ("PodLevel resources sufficient with DRA Overhead",
     pod_with(ctr("c1", "dra-claim", requests=_ONE), pod_requests={"cpu": "2", "memory": "3Gi"}),
     overhead("1Gi", "1Gi"), OK, ""),
    ("PodLevel resources insufficient with DRA Overhead",
     pod_with(ctr("c1", "dra-claim", requests=_ONE), pod_requests={"cpu": "2", "memory": "2Gi"}),
     overhead("1Gi", "1Gi"), UU,
     "pod level request for memory is insufficient to cover the aggregated container and node-allocatable DRA requests"),
    ("PodLevel limits cover DRA",
     pod_with(ctr("c1", "dra-claim", limits={"memory": "1Gi"}), pod_limits={"memory": "2Gi"}),
     overhead(None, "512Mi"), OK, ""),
    ("PodLevel limits does not cover DRA",
     pod_with(ctr("c1", "dra-claim", limits={"memory": "1.5Gi"}), pod_limits={"memory": "2Gi"}),
     overhead(None, "1Gi"), UU, "pod level limit for memory is insufficient to cover the limit and DRA overhead for container c1"),
    ("PodLevel limits overcommitted but individual container limits with DRA covered by pod level limits",
     pod_with(ctr("c1", limits={"memory": "3Gi"}), ctr("c2", limits={"memory": "3Gi"}), pod_limits={"memory": "4Gi"}),
     [], OK, ""),
]
