"""pkg/controlplane/reconcilers/lease_test.go (v1.37.2): TestLeaseEndpointReconciler's
reconcile and non-reconcile tables. The master leases are the row's keys plus the
reconciling apiserver's IP, listed in etcd key order; the client's creates and updates
(Endpoints, then its EndpointSlice) are compared as ``Semantic.DeepEqual`` does."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.apiserver import kubernetes_service as ks
from reference_impl.errors import AlreadyExists, NotFound

Obj = dict[str, Any]


class FakeClient:
    """``fake.NewSimpleClientset`` over the row's objects; writes recorded."""

    def __init__(self, objs: list[Obj]) -> None:
        self.objs = {(o["kind"], o["metadata"]["name"]): o for o in objs}
        self.actions: list[tuple[str, Obj]] = []

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Obj:
        try:
            return copy.deepcopy(self.objs[(kind, name)])
        except KeyError:
            raise NotFound(name) from None

    def create(self, manifest: Obj) -> Obj:
        self.actions.append(("create", copy.deepcopy(manifest)))
        if (manifest["kind"], manifest["metadata"]["name"]) in self.objs:
            raise AlreadyExists(manifest["metadata"]["name"])
        self.objs[(manifest["kind"], manifest["metadata"]["name"])] = manifest
        return manifest

    def update(self, manifest: Obj) -> Obj:
        self.actions.append(("update", copy.deepcopy(manifest)))
        self.objs[(manifest["kind"], manifest["metadata"]["name"])] = manifest
        return manifest

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Any:
        self.actions.append(("delete", {"kind": kind}))
        return self.objs.pop((kind, name))


def _p(name: str, port: int, proto: str = "TCP") -> Obj:
    return {"name": name, "port": port, "protocol": proto}


def _endpoints(name: str, ips: list[str], ports: list[Obj], skip: bool = True) -> Obj:
    """``makeEndpoints``."""
    meta: Obj = {"namespace": "default", "name": name}
    if skip:
        meta["labels"] = {ks.LABEL_SKIP_MIRROR: "true"}
    out: Obj = {"apiVersion": "v1", "kind": "Endpoints", "metadata": meta}
    if ips or ports:
        out["subsets"] = [{"addresses": [{"ip": ip} for ip in ips], "ports": ports}]
    return out


def _slice(name: str, ips: list[str], ports: list[Obj]) -> Obj:
    """``makeEndpointSlice``."""
    return {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {
            "namespace": "default",
            "name": name,
            "labels": {ks.LABEL_SERVICE_NAME: name},
        },  # fmt: skip
        "addressType": "IPv4",
        "endpoints": [{"addresses": [ip], "conditions": {"ready": True}} for ip in ips],
        "ports": [dict(p) for p in ports],
    }


def _both(name: str, ips: list[str], ports: list[Obj]) -> list[Obj]:
    """``makeEndpointsArray``."""
    return [_endpoints(name, ips, ports), _slice(name, ips, ports)]


FOO = [_p("foo", 8080)]
THREE = [_p("foo", 8080), _p("bar", 1000), _p("baz", 1010)]
TWO = [_p("foo", 8080), _p("bar", 1000)]
M4 = ["4.3.2.1", "4.3.2.2", "4.3.2.3", "4.3.2.4"]

# (name, ip, ports, lease keys, initial, creates, updates, reconcile ports)
ROWS: list[tuple[str, str, list[Obj], list[str], list[Obj], list[Obj], list[Obj], bool]] = [
    ("no existing endpoints", "1.2.3.4", FOO, [], [], _both("foo", ["1.2.3.4"], FOO), [], True),
    ("existing endpoints satisfy", "1.2.3.4", FOO, [], _both("foo", ["1.2.3.4"], FOO), [], [],
     True),
    ("existing endpoints satisfy, no endpointslice", "1.2.3.4", FOO, [],
     [_endpoints("foo", ["1.2.3.4"], FOO)], [_slice("foo", ["1.2.3.4"], FOO)], [], True),
    ("existing endpointslice satisfies, no endpoints", "1.2.3.4", FOO, [],
     [_slice("foo", ["1.2.3.4"], FOO)], [_endpoints("foo", ["1.2.3.4"], FOO)], [], True),
    ("existing endpoints satisfy, endpointslice is wrong", "1.2.3.4", FOO, [],
     [_endpoints("foo", ["1.2.3.4"], FOO), _slice("foo", ["4.3.2.1"], FOO)], [],
     [_slice("foo", ["1.2.3.4"], FOO)], True),
    ("existing endpointslice satisfies, endpoints is wrong", "1.2.3.4", FOO, [],
     [_endpoints("foo", ["4.3.2.1"], FOO), _slice("foo", ["1.2.3.4"], FOO)], [],
     [_endpoints("foo", ["1.2.3.4"], FOO)], True),
    ("existing endpoints satisfy + refresh existing key", "1.2.3.4", FOO, ["1.2.3.4"],
     _both("foo", ["1.2.3.4"], FOO), [], [], True),
    ("existing endpoints satisfy but too many", "1.2.3.4", FOO, [],
     _both("foo", ["1.2.3.4", "4.3.2.1"], FOO), [], _both("foo", ["1.2.3.4"], FOO), True),
    ("existing endpoints satisfy but too many + extra masters", "1.2.3.4", FOO,
     ["1.2.3.4", *M4[1:]], _both("foo", ["1.2.3.4", *M4], FOO), [],
     _both("foo", ["1.2.3.4", *M4[1:]], FOO), True),
    ("existing endpoints satisfy but too many + extra masters + delete first", "4.3.2.4", FOO,
     M4, _both("foo", ["1.2.3.4", *M4], FOO), [], _both("foo", M4, FOO), True),
    ("existing endpoints current IP missing", "4.3.2.2", FOO, ["4.3.2.1"],
     _both("foo", ["4.3.2.1"], FOO), [], _both("foo", ["4.3.2.1", "4.3.2.2"], FOO), True),
    ("existing endpoints wrong name", "1.2.3.4", FOO, [], _both("bar", ["1.2.3.4"], FOO),
     _both("foo", ["1.2.3.4"], FOO), [], True),
    ("existing endpoints wrong IP", "1.2.3.4", FOO, [], _both("foo", ["4.3.2.1"], FOO), [],
     _both("foo", ["1.2.3.4"], FOO), True),
    ("existing endpoints wrong port", "1.2.3.4", FOO, [],
     _both("foo", ["1.2.3.4"], [_p("foo", 9090)]), [], _both("foo", ["1.2.3.4"], FOO), True),
    ("existing endpoints wrong protocol", "1.2.3.4", FOO, [],
     _both("foo", ["1.2.3.4"], [_p("foo", 8080, "UDP")]), [], _both("foo", ["1.2.3.4"], FOO),
     True),
    ("existing endpoints wrong port name", "1.2.3.4", [_p("baz", 8080)], [],
     _both("foo", ["1.2.3.4"], FOO), [], _both("foo", ["1.2.3.4"], [_p("baz", 8080)]), True),
    ("existing endpoints without skip mirror label", "1.2.3.4", FOO, [],
     [_endpoints("foo", ["1.2.3.4"], FOO, skip=False), _slice("foo", ["1.2.3.4"], FOO)], [],
     [_endpoints("foo", ["1.2.3.4"], FOO)], True),
    ("existing endpoints extra service ports satisfy", "1.2.3.4", THREE, [],
     _both("foo", ["1.2.3.4"], THREE), [], [], True),
    ("existing endpoints extra service ports missing port", "1.2.3.4", TWO, [],
     _both("foo", ["1.2.3.4"], FOO), [], _both("foo", ["1.2.3.4"], TWO), True),
    # nonReconcileTests
    ("existing endpoints extra service ports missing port no update", "1.2.3.4", TWO, [],
     _both("foo", ["1.2.3.4"], FOO), [], [], False),
    ("existing endpoints extra service ports, wrong ports, wrong IP", "1.2.3.4", TWO, [],
     _both("foo", ["4.3.2.1"], FOO), [], _both("foo", ["1.2.3.4"], FOO), False),
    ("no existing endpoints (non-reconcile)", "1.2.3.4", FOO, [], [],
     _both("foo", ["1.2.3.4"], FOO), [], False),
]  # fmt: skip


def _semantic(o: Obj) -> Any:
    """The object as ``Semantic.DeepEqual`` sees it (the fake's TypeMeta aside)."""
    body = {k: v for k, v in o.items() if k not in ("apiVersion", "kind")}
    return ks._semantic(body)


@pytest.mark.parametrize(
    ("ip", "ports", "keys", "initial", "creates", "updates", "reconcile"),
    [pytest.param(*r[1:], id=r[0]) for r in ROWS],
)
def test_lease_endpoint_reconciler(
    ip: str, ports: list[Obj], keys: list[str], initial: list[Obj], creates: list[Obj],
    updates: list[Obj], reconcile: bool,
) -> None:  # fmt: skip
    c = FakeClient(copy.deepcopy(initial))
    leases = sorted({*keys, ip})  # UpdateLease(ip), then ListLeases in key order
    ks.reconcile_endpoints(c, "foo", leases, ports, reconcile)
    got_c = [_semantic(o) for v, o in c.actions if v == "create"]
    got_u = [_semantic(o) for v, o in c.actions if v == "update"]
    assert got_c == [_semantic(o) for o in creates]
    assert got_u == [_semantic(o) for o in updates]
