"""A small environment for the EndpointSlice reconciler rows: a real APIServer (so slices
are validated and stored), a node table and the reconciler, with its writes recorded."""

from __future__ import annotations

import copy
from typing import Any

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import Trace
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock
from reference_impl.controllers.endpointslice.reconciler import Reconciler
from reference_impl.controllers.endpointslice.utils import pod_to_endpoint
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
API = "discovery.k8s.io/v1"
TRIGGER_TIME = Instant(5_000_000_000)


def pod_ip(n: int) -> str:
    """``1.2.3.<4+n>``; past .255 upstream's fake clientset stores invalid addresses, the
    reference apiserver validates, so the count carries into the third octet."""
    q, r = divmod(4 + n, 256)
    return f"1.2.{3 + q}.{r}"


def new_pod(n: int, ns: str, ready: bool, terminating: bool = False) -> Obj:
    """utils_test.go ``newPod``."""
    meta: Obj = {"namespace": ns, "name": f"pod{n}", "labels": {"foo": "bar"},
                 "resourceVersion": str(n)}  # fmt: skip
    if terminating:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {
        "apiVersion": "v1", "kind": "Pod", "metadata": meta,
        "spec": {"containers": [{"name": "container-1"}], "nodeName": "node-1"},
        "status": {"podIP": pod_ip(n), "podIPs": [{"ip": pod_ip(n)}],
                   "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
    }  # fmt: skip


def new_pods(count: int, ns: str = "test") -> list[Obj]:
    """``count`` pods, every third not ready (the reconciler tests' loop)."""
    return [new_pod(i, ns, i % 3 != 0) for i in range(count)]


def new_service(name: str, ns: str) -> Obj:
    """utils_test.go ``newServiceAndEndpointMeta``'s Service."""
    return {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": name, "namespace": ns, "uid": f"{ns}-{name}"},
        "spec": {"ports": [{"targetPort": 80, "protocol": "TCP", "name": name}],
                 "selector": {"foo": "bar"}, "ipFamilies": ["IPv4"]},
    }  # fmt: skip


def endpoint_meta_ports(name: str) -> list[Obj]:
    """``newServiceAndEndpointMeta``'s endpointMeta ports."""
    return [{"name": name, "port": 80, "protocol": "TCP"}]


def new_empty_slice(n: int, ns: str, ports: list[Obj], svc: Obj, address_type: str = "IPv4") -> Obj:
    """utils_test.go ``newEmptyEndpointSlice`` (no labels)."""
    m = svc["metadata"]
    owner = {"apiVersion": "v1", "kind": "Service", "name": m["name"], "uid": m.get("uid", ""),
             "controller": True, "blockOwnerDeletion": True}  # fmt: skip
    return {"apiVersion": API, "kind": "EndpointSlice",
            "metadata": {"name": f"{m['name']}-{n}", "namespace": ns, "ownerReferences": [owner]},
            "ports": copy.deepcopy(ports), "addressType": address_type, "endpoints": []}  # fmt: skip


def endpoint(pod: Obj, svc: Obj, node: Obj | None = None) -> Obj:
    """``podToEndpoint(pod, &corev1.Node{}, svc, IPv4)``."""
    return pod_to_endpoint(pod, node if node is not None else {"metadata": {}}, svc, "IPv4")


class Env:
    """The apiserver, nodes and a reconciler; ``actions`` lists its writes in order."""

    def __init__(self, nodes: list[Obj] | None = None, max_endpoints: int = 100,
                 namespaces: tuple[str, ...] = ("test",)) -> None:  # fmt: skip
        self.clock = SimClock()
        self.server = APIServer(MVCCStore(), self.clock, Rng(1).child("apiserver"), FeatureGates())
        for ns in namespaces:
            self.server.create(make_namespace(ns).build())
        if nodes is None:
            nodes = [{"metadata": {"name": "node-1"}}]
        self.nodes = {n["metadata"]["name"]: n for n in nodes}
        self.trace = Trace(self.clock)
        self.written: dict[str, int] = {}  # the tracker's generations
        self.reconciler = Reconciler(self.server, self.nodes.get, max_endpoints, trace=self.trace,
                                     on_write=self._wrote)  # fmt: skip

    def _wrote(self, s: Obj) -> None:
        self.written[s["metadata"]["name"]] = int(s["metadata"].get("generation") or 0)

    def create_slices(self, *slices: Obj) -> list[Obj]:
        """Store slices as a test's ``createEndpointSlices``; returns the stored objects."""
        return [self.server.create(copy.deepcopy(s)) for s in slices]

    def reconcile(self, svc: Obj, pods: list[Obj], existing: list[Obj],
                  trigger: Instant | None = TRIGGER_TIME) -> None:  # fmt: skip
        self.reconciler.reconcile(svc, pods, existing, trigger)

    @property
    def actions(self) -> list[str]:
        """The reconciler's writes: ``create``, ``update``, ``delete``."""
        return [r.event.removesuffix("-slice") for r in self.trace.records]

    def slices(self, ns: str = "test") -> list[Obj]:
        """``fetchEndpointSlices``."""
        return self.server.list(API, "EndpointSlice", ns)

    def lengths(self, ns: str = "test") -> list[int]:
        """Endpoint counts of the stored slices, sorted (``expectUnorderedSlicesWithLengths``)."""
        return sorted(len(s.get("endpoints") or []) for s in self.slices(ns))
