"""Extended resources backed by DRA, after ``dynamicresources/extendeddynamicresources.go``
and ``dynamicresources/extended`` (KEP-5004).

A container request such as ``example.com/gpu: 2`` is served by the DeviceClass whose
``spec.extendedResourceName`` matches (the newest class wins; on a creation-time tie the
lexicographically first name). Every class also serves its implicit name
``deviceclass.resource.kubernetes.io/<class>``, with or without an extendedResourceName
(``extendedresourcecache``; validation keeps it unique). On a node that advertises the resource as allocatable
(device-plugin style) NodeResourcesFit handles it as before; on the others the
DynamicResources plugin allocates it through a special claim with one request per
long-lived container and resource, plus one for the short-lived init containers (the
largest, after reusing the requests of the containers that run beside them), named
``container-<i>-request-<j>`` (``i`` indexes init containers then containers, ``j`` the
resource in the container's sorted request names). At PreBind
the claim is created as ``<pod>-extended-resources-<suffix>``, owned by the pod and
annotated ``resource.kubernetes.io/extended-resource-claim: "true"``, and recorded in
``pod.status.extendedResourceClaimStatus``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.api.resource_names import is_extended_resource_name
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.scheduler.framework.types import NodeInfo

__all__ = [
    "ANNOTATION",
    "SPECIAL_CLAIM",
    "DeviceClassMapping",
    "class_mapping",
    "create_claim",
    "device_requests",
    "is_dra_extended_resource_name",
    "is_extended_resource_name",
    "node_claim",
    "pod_requests",
    "request_mappings",
    "requests_and_mappings",
]

Obj = dict[str, Any]
API: Final = "resource.k8s.io/v1"
ANNOTATION: Final = "resource.kubernetes.io/extended-resource-claim"
SPECIAL_CLAIM: Final = "<extended-resources>"  # in-memory name, never a valid object name
DEVICE_CLASS_PREFIX: Final = "deviceclass.resource.kubernetes.io/"


def is_dra_extended_resource_name(name: str) -> bool:
    """``schedutil.IsDRAExtendedResourceName``: an extended resource name, or a class's
    implicit ``deviceclass.resource.kubernetes.io/<class>``."""
    return is_extended_resource_name(name) or name.startswith(DEVICE_CLASS_PREFIX)


def class_mapping(classes: Iterable[Obj]) -> dict[str, str]:
    """Resource name -> DeviceClass name: each class's implicit name, and its
    extendedResourceName (on a clash the newest class wins, then the first name)."""
    best: dict[str, tuple[str, str]] = {}
    implicit: dict[str, str] = {}
    for c in classes:
        name, created = str(c["metadata"]["name"]), str(c["metadata"].get("creationTimestamp", ""))
        implicit[f"{DEVICE_CLASS_PREFIX}{name}"] = name
        ern = (c.get("spec") or {}).get("extendedResourceName")
        if not ern:
            continue
        cur = best.get(ern)
        if cur is None or created > cur[0] or (created == cur[0] and name < cur[1]):
            best[ern] = (created, name)
    return {**implicit, **{k: v[1] for k, v in best.items()}}


class DeviceClassMapping:
    """The live mapping from the DeviceClass informer, recomputed when a class changes."""

    def __init__(self, ctx: ComponentContext) -> None:
        self._classes = ctx.informers.informer(API, "DeviceClass")
        self._mapping: dict[str, str] | None = None
        self._classes.add_handler(self._changed)

    def _changed(self, ev: ObjectEvent) -> None:
        self._mapping = None

    def get(self) -> dict[str, str]:
        """The current mapping (cached between class events)."""
        if self._mapping is None:
            self._mapping = class_mapping(self._classes.items())
        return self._mapping


def _containers(pod: Obj) -> list[Obj]:
    return [*(pod["spec"].get("initContainers") or ()), *(pod["spec"].get("containers") or ())]


def _count(q: object) -> int:
    return int(parse_quantity(q))


def pod_requests(pod: Obj, mapping: dict[str, str]) -> dict[str, int]:
    """The pod's DRA-mapped extended resource requests (``PodRequests``: max of init, sum)."""
    if not mapping:  # no DeviceClass names an extended resource: nothing to look for
        return {}
    out: dict[str, int] = {}
    for c in pod["spec"].get("containers") or ():
        for r, q in ((c.get("resources") or {}).get("requests") or {}).items():
            if r in mapping and is_dra_extended_resource_name(r):
                out[r] = out.get(r, 0) + _count(q)
    for c in pod["spec"].get("initContainers") or ():
        for r, q in ((c.get("resources") or {}).get("requests") or {}).items():
            if r in mapping and is_dra_extended_resource_name(r):
                out[r] = max(out.get(r, 0), _count(q))
    return {r: n for r, n in out.items() if n > 0}


def device_requests(pod: Obj, resources: Iterable[str], mapping: dict[str, str]) -> list[Obj]:
    """``createRequestsAndMappings``' requests, sorted by name."""
    return requests_and_mappings(pod, resources, mapping)[0]


def request_mappings(claim: Obj, pod: Obj) -> list[Obj]:
    """``createRequestsAndMappings``' mappings for the resources ``claim`` serves (each
    request ``container-<i>-request-<j>`` names its container and resource)."""
    containers = _containers(pod)
    mapping: dict[str, str] = {}
    for req in claim["spec"]["devices"].get("requests") or ():
        _, i, _, j = req["name"].split("-")
        keys = sorted((containers[int(i)].get("resources") or {}).get("requests") or {})
        mapping[keys[int(j)]] = req["exactly"]["deviceClassName"]
    return requests_and_mappings(pod, mapping, mapping)[1]


def requests_and_mappings(
    pod: Obj, resources: Iterable[str], mapping: dict[str, str]
) -> tuple[list[Obj], list[Obj]]:
    """``createRequestsAndMappings``: per resource (sorted) served by a class, one request
    per long-lived container (regular or sidecar) that asks for it, and one for the
    short-lived init containers together: the largest of theirs, after each init
    container reuses the requests of the long-lived containers from its own index on
    (they run beside it). Mappings say which request(s) each container uses."""
    containers = _containers(pod)
    n_init = len(pod["spec"].get("initContainers") or ())
    short = [i for i in range(n_init) if containers[i].get("restartPolicy") != "Always"]
    long = [i for i in range(len(containers)) if i not in short]
    requests: list[Obj] = []
    mappings: list[Obj] = []
    for r in sorted(set(resources)):
        cls = mapping.get(r)
        if not cls:
            continue
        long_reqs: list[Obj | None] = [None] * len(containers)
        long_maps: list[Obj] = []
        for i in long:
            long_reqs[i], maps = _container_request(i, containers[i], r, cls, [])
            long_maps += maps
        best: Obj | None = None
        names: set[str] = set()
        short_maps: list[Obj] = []
        for i in short:
            req, maps = _container_request(i, containers[i], r, cls, long_reqs[i:])
            if req is not None:
                names.add(req["name"])
                if best is None or best["exactly"]["count"] < req["exactly"]["count"]:
                    best = req
            short_maps += maps
        if best is not None and len(names) > 1:  # every init container uses the largest
            names.discard(best["name"])
            for m in short_maps:
                if m["requestName"] in names:
                    m["requestName"] = best["name"]
        requests += [best] if best is not None else []
        requests += [q for q in long_reqs if q is not None]
        mappings += long_maps + short_maps
    return sorted(requests, key=lambda q: str(q["name"])), mappings


def _container_request(
    i: int, c: Obj, r: str, cls: str, reusable: list[Obj | None]
) -> tuple[Obj | None, list[Obj]]:
    """``createResourceRequestAndMappings``: container ``i``'s request for what the
    ``reusable`` requests do not already cover (None: nothing more), and its mappings."""
    reqs = (c.get("resources") or {}).get("requests") or {}
    if r not in reqs:
        return None, []
    want = parse_quantity(reqs[r])
    if want != int(want) or want == 0:  # AsInt64 fails or zero: no request
        return None, []
    maps: list[Obj] = []
    have = 0
    for q in reusable:
        if q is not None:
            have += q["exactly"]["count"]
            maps.append({"containerName": c["name"], "resourceName": r, "requestName": q["name"]})
            if have >= want:
                return None, maps
    name = f"container-{i}-request-{sorted(reqs).index(r)}"
    maps.append({"containerName": c["name"], "resourceName": r, "requestName": name})
    return {"name": name, "exactly": {"deviceClassName": cls, "allocationMode": "ExactCount",
                                      "count": int(want) - have}}, maps


def node_claim(pod: Obj, requests: dict[str, int], mapping: dict[str, str], node: NodeInfo) -> Obj | None:
    """``filterExtendedResources``: the in-memory claim for what ``node`` lacks as allocatable.

    Resources the node advertises (a device plugin) are left to NodeResourcesFit.
    """
    dra = [r for r in requests if node.allocatable.scalar.get(r, 0) <= 0]
    if not dra:
        return None
    meta = pod["metadata"]
    return {
        "apiVersion": API, "kind": "ResourceClaim",
        # Unique per pod so that assumed allocations of different pods never collide.
        "metadata": {"name": f"{SPECIAL_CLAIM}{meta.get('uid', '')}", "namespace": meta.get("namespace", "default")},
        "spec": {"devices": {"requests": device_requests(pod, dra, mapping)}},
    }


def create_claim(ctx: ComponentContext, pod: Obj, claim: Obj, allocation: Obj) -> Obj:
    """PreBind: create the special claim, allocate and reserve it, record it in the pod.

    Raises ApiError on failure (the caller turns it into an ERROR status).
    """
    server = ctx.server
    meta = pod["metadata"]
    ns = meta.get("namespace", "default")
    created = server.create({
        "apiVersion": API, "kind": "ResourceClaim",
        "metadata": {
            "generateName": f"{meta['name'][:38]}-extended-resources-", "namespace": ns,
            "annotations": {ANNOTATION: "true"},
            # Created from the allocated claim of Reserve, which has the builtin finalizer.
            "finalizers": ["resource.kubernetes.io/delete-protection"],
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": meta["name"], "uid": meta["uid"],
                                 "controller": True, "blockOwnerDeletion": True}],
        },
        "spec": claim["spec"],
    })
    consumer = {"resource": "pods", "name": meta["name"], "uid": meta["uid"]}
    created = server.update_status({**created, "status": {"allocation": allocation, "reservedFor": [consumer]}})
    latest = server.get("v1", "Pod", meta["name"], ns)
    status = {**(latest.get("status") or {}), "extendedResourceClaimStatus": {
        "resourceClaimName": created["metadata"]["name"], "requestMappings": request_mappings(created, latest)}}
    server.update_status({**latest, "status": status})
    return created
