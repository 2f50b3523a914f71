"""DynamicResources, rows of upstream ``TestPlugin`` (``dynamicresources_test.go``,
``testPlugin``): each pod goes PreEnqueue, PreFilter, Filter per node, then Reserve +
PreBind on the first fitting node or PostFilter when none fits.

Upstream's ``verify`` compares only the error string of a failed status; here each
step's code is asserted too, with the code upstream's plugin returns
(``statusUnschedulable`` is UnschedulableAndUnresolvable, ``statusError`` is Error).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from reference_impl.scheduler.framework.interface import Code
from suites.selftest.reference_impl.scheduler.upstream_dra_harness import (
    ATTR,
    BROKEN_CEL,
    CLAIM,
    CLAIM2,
    CLASS,
    DRIVER,
    DRIVER2,
    GPU,
    GPU2,
    NODE,
    NODE2,
    NODE3,
    POD,
    RES,
    Obj,
    allocated,
    allocation,
    allocation_for,
    bc_allocation,
    claim,
    device_class,
    device_status,
    empty_pod,
    ext_class,
    ext_node,
    ext_pod,
    ext_pod_containers,
    fabric_slice,
    for_pod,
    node,
    node_slice,
    pod,
    pod_two_claims,
    prioritized_claim,
    setup,
    walk,
)

UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
U = Code.UNSCHEDULABLE
OK = (Code.SUCCESS, "")
CANNOT = (UU, "cannot allocate all claims")
NOT_AVAILABLE = (UU, "resourceclaim not available on the node")
CEL_ERR = ("selector #0 on device some-driver/worker/instance-1: CEL runtime error: no such key: "
           "healthy. consider using CEL optional chaining (.? followed by orValue()) or guarding "
           "the check with has() for optional fields")
# inUseClaim.Status: allocationResult, reserved for my-pod.
IN_USE = {"allocation": allocation(), "reservedFor": [for_pod()]}


DEVICES = [f"instance-{i}" for i in (1, 2, 3, 4)]
IMPLICIT = f"deviceclass.resource.kubernetes.io/{CLASS}"  # implicitExtendedResourceName
EXT = "extended claim"
STAMPED = "allocationTimestamp set"  # want key: whether PreBind stamped my-pod-my-resource  # want key: the requests of the claim PreBind creates (None: none)


def _unhealthy(s: Obj) -> Obj:
    for d in s["spec"]["devices"]:
        d["attributes"] = {ATTR: {"bool": False}}
    return s


def _no_ts(a: Obj) -> Obj:
    return {k: v for k, v in a.items() if k != "allocationTimestamp"}


@dataclass
class Row:
    pod: Obj
    objs: list[Obj]
    want: dict[str, Any]
    nodes: list[str | dict[str, str]] = field(default_factory=lambda: [NODE])  # dict: ext_node
    gates: dict[str, bool] = field(default_factory=dict)
    in_flight: list[Obj] = field(default_factory=list)


def _pending() -> Obj:
    return claim()


def _other() -> Obj:
    return claim("not-my-claim", owned=False)


ROWS: dict[str, Row] = {
    # PreBind: upstream answers Success for a pod without claims; the reference answers
    # Skip (what upstream's PreBindPreFlight says), so the framework does not call it.
    "empty": Row(empty_pod(), [], {"prefilter": (Code.SKIP, ""), "filter/worker": OK, "reserve": OK,
                                   "prebind": (Code.SKIP, "")}),
    "claim-reference": Row(
        pod(), [allocated(_pending()), _other()],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK,
         "claims": {CLAIM: IN_USE}}),
    "claim-template": Row(
        pod(claim_name=False, in_status=True), [allocated(_pending()), _other()],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK,
         "claims": {CLAIM: IN_USE}}),
    "missing-claim": Row(
        pod(claim_name=False), [allocated(_pending()), _other()],
        {"preenqueue": (UU, 'pod "default/my-pod": ResourceClaim not created yet')}),
    "deleted-claim": Row(
        pod(claim_name=False, in_status=True), [allocated(_pending())],
        {"preenqueue": (UU, 'resourceclaim "my-pod-my-resource" is being deleted')}),
    "wrong-claim": Row(
        pod(claim_name=False, in_status=True), [],
        {"preenqueue": (UU, "ResourceClaim default/my-pod-my-resource was not created for Pod "
                            "default/my-pod (Pod is not owner)")}),
    "no-resources": Row(
        pod(), [_pending(), device_class()],
        {"prefilter": OK, "filter/worker": CANNOT, "postfilter": (U, "")}),
    "with-resources": Row(
        pod(), [_pending(), device_class(), node_slice()],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK,
         "claims": {CLAIM: IN_USE}}),
    "exhausted-resources-in-informer-cache": Row(
        pod(), [_pending(), allocated(_other()), device_class(), node_slice()],
        {"prefilter": OK, "filter/worker": CANNOT, "postfilter": (U, "")}),
    "exhausted-resources-in-flight-claim": Row(
        pod(), [_pending(), _other(), device_class(), node_slice()],
        {"prefilter": OK, "filter/worker": CANNOT, "postfilter": (U, "")},
        in_flight=[allocated(_other())]),
    "tainted-device-enabled": Row(
        pod(), [_pending(), device_class(), node_slice(taint=True)],
        {"prefilter": OK, "filter/worker": CANNOT, "postfilter": (U, "")},
        gates={"DRADeviceTaints": True}),
    "request-admin-access-with-DRAAdminAccess-featuregate": Row(
        pod(), [claim(admin=True), allocated(_other()), device_class(), node_slice()],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK}),
    "structured-ignore-allocated-admin-access": Row(
        pod(), [_pending(), allocated(claim("not-my-claim", owned=False, admin=True)),
                device_class(), node_slice()],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK,
         "claims": {CLAIM: IN_USE}}),
    "claim-parameters-CEL-runtime-error": Row(
        pod(), [claim(selector=BROKEN_CEL), device_class(), node_slice()],
        {"prefilter": OK, "filter/worker": (Code.ERROR, f"claim default/{CLAIM}: {CEL_ERR}")}),
    "class-parameters-CEL-runtime-error": Row(
        pod(), [_pending(), device_class(BROKEN_CEL), node_slice()],
        {"prefilter": OK, "filter/worker": (Code.ERROR, f"class my-resource-class: {CEL_ERR}")}),
    "CEL-runtime-error-for-one-of-two-nodes": Row(
        pod(), [claim(selector=BROKEN_CEL), device_class(), node_slice(),
                node_slice(NODE2, attr=True)],
        {"prefilter": OK, "filter/worker": (Code.ERROR, f"claim default/{CLAIM}: {CEL_ERR}")},
        nodes=[NODE, NODE2]),
    "missing-class": Row(
        pod(), [_pending()],
        {"prefilter": (UU, "request req-1: device class my-resource-class does not exist"),
         "postfilter": (U, "")}),
    "wrong-topology": Row(
        pod(), [allocated(_pending(), allocation(selector={"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "no-such-label", "operator": "In", "values": ["no-such-value"]}]}]}))],
        {"prefilter": OK, "filter/worker": NOT_AVAILABLE,
         "postfilter": (U, "deallocation of ResourceClaim completed"),
         "claims": {CLAIM: {}}}),
    "good-topology": Row(
        pod(), [allocated(_pending(), allocation(selector={"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": [NODE]}]}]}))],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK}),
    "reserved-okay": Row(
        pod(), [allocated(_pending(), reserved_for=[for_pod()])],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK,
         "claims": {CLAIM: IN_USE}}),
    "claim-with-request-with-unknown-device-class": Row(
        pod(), [claim(class_name="does-not-exist")],
        # the row writes Unschedulable; upstream verify compares only the message, and
        # validateDeviceClass returns statusUnschedulable (UnschedulableAndUnresolvable).
        {"prefilter": (UU, "request req-1: device class does-not-exist does not exist"),
         "postfilter": (U, "")}),
    "other-resources-in-flight-claim": Row(
        pod(), [_pending(), _other(), device_class(), node_slice()],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK,
         "claims": {CLAIM: IN_USE}},
        in_flight=[allocated(_other(), allocation("instance-1-other"))]),
    "tainted-device-disabled": Row(
        pod(), [_pending(), device_class(), node_slice(taint=True)],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK,
         "claims": {CLAIM: IN_USE}},
        gates={"DRADeviceTaints": False}),
    # Upstream expects the same message; its code is Error (statusError: a CEL runtime
    # error is not ErrFailedAllocationOnNode), which ends the walk at the first node.
    "CEL-runtime-error-for-one-of-three-nodes": Row(
        pod(), [claim(selector=BROKEN_CEL), device_class(), node_slice(),
                node_slice(NODE2, attr=True), node_slice(NODE3, attr=True)],
        {"prefilter": OK, "filter/worker": (Code.ERROR, f"claim default/{CLAIM}: {CEL_ERR}")},
        nodes=[NODE, NODE2, NODE3]),
    "bound-claim-with-succeeded-binding-conditions": Row(
        pod(), [allocated(_pending(), bc_allocation(), devices=[device_status(DRIVER, "instance-1", True)])],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK,
         "claims": {CLAIM: {"allocation": _no_ts(bc_allocation()), "reservedFor": [for_pod()]}}}),
    "bound-claim-with-failed-binding": Row(
        pod(), [allocated(_pending(), bc_allocation(), devices=[device_status(DRIVER, "instance-1", False)]),
                node_slice()],
        {"prefilter": OK, "filter/worker": NOT_AVAILABLE,
         "postfilter": (U, "deallocation of ResourceClaim completed"), "claims": {CLAIM: {}}}),
    "bound-claim-with-timed-out-binding": Row(
        # now - 10m in the row; its time.Now() at Filter is later still, past the 600s
        # timeout, so the stamp here is one second earlier.
        pod(), [allocated(_pending(), bc_allocation(ts="2026-08-31T23:49:59Z"),
                          devices=[device_status(DRIVER, "instance-1", None)])],
        {"prefilter": OK, "filter/worker": NOT_AVAILABLE,
         "postfilter": (U, "deallocation of ResourceClaim completed"), "claims": {CLAIM: {}}}),
    "bound-claim-without-binding-conditions": Row(
        pod(claim_name=False, in_status=True), [allocated(_pending()), _other()],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK,
         "claims": {CLAIM: IN_USE}}),
    # claim2's result names "req-2" upstream, but claim2's request is "req-1": the
    # apiserver refuses that (a result must name a request of the claim), so "req-1" here.
    "multi-claims-binding-conditions-all-success": Row(
        pod_two_claims(),
        [allocated(_pending(), bc_allocation(), devices=[device_status(DRIVER, "instance-1", True)]),
         allocated(claim(CLAIM2), bc_allocation(DRIVER2, "instance-2"),
                   devices=[device_status(DRIVER2, "instance-2", True)]),
         device_class(), fabric_slice(), fabric_slice(DRIVER2, "instance-2")],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK,
         "claims": {CLAIM: {"allocation": _no_ts(bc_allocation()), "reservedFor": [for_pod()]}}}),
    "single-claim-prioritized-list-scoring": Row(
        pod(), [prioritized_claim(CLAIM, [("subreq-1", 1, BROKEN_CEL), ("subreq-2", 1, None)]), device_class(),
                node_slice(attr=True), _unhealthy(node_slice(NODE2, attr=True))],
        {"prefilter": OK, "filter/worker": OK, "filter/worker-2": OK, "score": {NODE: 8, NODE2: 7},
         "normalized": {NODE: 100, NODE2: 87}, "reserve": OK, "prebind": OK,
         "claims": {CLAIM: {"allocation": allocation_for("req-1/subreq-1"), "reservedFor": [for_pod()]}}},
        nodes=[NODE, NODE2]),
    "multiple-claims-prioritized-list-scoring": Row(
        pod_two_claims(),
        [prioritized_claim(CLAIM, [("subreq-1", 1, None)]),
         prioritized_claim(CLAIM2, [(f"subreq-{i}", 5 - i, None) for i in (1, 2, 3, 4)]), device_class(),
         node_slice(NODE, *DEVICES[:4]), node_slice(NODE2, *DEVICES[:2]), node_slice(NODE3, *DEVICES[:1])],
        {"prefilter": OK, "filter/worker": OK, "filter/worker-2": OK, "filter/worker-3": CANNOT,
         "score": {NODE: 15, NODE2: 13}, "normalized": {NODE: 100, NODE2: 86}, "reserve": OK, "prebind": OK,
         "claims": {CLAIM: {"allocation": allocation_for("req-1/subreq-1"), "reservedFor": [for_pod()]},
                    CLAIM2: {"allocation": allocation_for(*["req-1/subreq-2"] * 3), "reservedFor": [for_pod()]}}},
        nodes=[NODE, NODE2, NODE3]),
    "multiple-requests-prioritized-list-scoring": Row(
        pod(), [prioritized_claim(CLAIM, *[[("subreq-1", 2, None), ("subreq-2", 1, None)]] * 2), device_class(),
                node_slice(NODE, *DEVICES[:4]), node_slice(NODE2, *DEVICES[:3]), node_slice(NODE3, *DEVICES[:2])],
        {"prefilter": OK, **{f"filter/{n}": OK for n in (NODE, NODE2, NODE3)},
         "score": {NODE: 16, NODE2: 15, NODE3: 14}, "normalized": {NODE: 100, NODE2: 93, NODE3: 87},
         "reserve": OK, "prebind": OK,
         "claims": {CLAIM: {"allocation": allocation_for(*["req-1/subreq-1"] * 2, *["req-2/subreq-1"] * 2),
                            "reservedFor": [for_pod()]}}},
        nodes=[NODE, NODE2, NODE3]),
    "claim-with-prioritized-list": Row(
        pod(), [prioritized_claim(CLAIM, [("subreq-1", 1, None)]), device_class(), node_slice()],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK,
         "claims": {CLAIM: {"allocation": allocation_for("req-1/subreq-1"), "reservedFor": [for_pod()]}}}),
    "extended-resource-name-with-node-resource": Row(
        ext_pod(GPU), [ext_class(), ext_pod(GPU)],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK, EXT: None},
        nodes=[{GPU: "1"}]),
    "extended-resource-one-device-plugin-one-dra": Row(
        ext_pod(GPU, GPU2), [ext_class(), ext_class(f"{CLASS}2", GPU2), node_slice(), ext_pod(GPU, GPU2)],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK, EXT: ["container-0-request-1"]},
        nodes=[{GPU: "1"}]),
    "extended-resource-name-with-zero-allocatable": Row(
        ext_pod(GPU), [ext_class(), node_slice(), ext_pod(GPU)],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK, EXT: ["container-0-request-0"]},
        nodes=[{GPU: "0"}]),
    "non-DRA-extended-resource-name-with-zero-allocatable": Row(
        ext_pod(GPU), [device_class(), node_slice(), ext_pod(GPU)],
        {"prefilter": (Code.SKIP, ""), "filter/worker": OK, "reserve": OK, "prebind": (Code.SKIP, "")},
        nodes=[{GPU: "0"}]),
    "extended-resource-name-no-resource": Row(
        ext_pod(GPU), [ext_class(), ext_pod(GPU)],
        {"prefilter": OK, "filter/worker": CANNOT, "postfilter": (U, ""), EXT: None}),
    "extended-resource-name-with-resources": Row(
        ext_pod(GPU), [ext_class(), node_slice(), ext_pod(GPU)],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK, EXT: ["container-0-request-0"]}),
    "implicit-extended-resource-name-with-resources": Row(
        ext_pod_containers({IMPLICIT: "1", GPU: "2"}),
        [ext_class(), node_slice(NODE, *DEVICES), ext_pod_containers({IMPLICIT: "1", GPU: "2"})],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK,
         EXT: ["container-0-request-0", "container-0-request-1", "container-0-request-1"]}),
    "implicit-extended-resource-name-two-containers-with-resources": Row(
        ext_pod_containers({IMPLICIT: "1"}, {GPU: "2"}),
        [ext_class(), node_slice(NODE, *DEVICES), ext_pod_containers({IMPLICIT: "1"}, {GPU: "2"})],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK,
         EXT: ["container-0-request-0", "container-1-request-0", "container-1-request-0"]}),
    "dont-add-allocation-timestamp": Row(
        pod(), [_pending(), device_class(), node_slice()],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK,
         "claims": {CLAIM: IN_USE}, STAMPED: False},
        gates={"DRADeviceBindingConditions": False}),
    "add-allocation-timestamp": Row(
        pod(), [_pending(), device_class(), node_slice()],
        {"prefilter": OK, "filter/worker": OK, "reserve": OK, "prebind": OK,
         "claims": {CLAIM: IN_USE}, STAMPED: True}),
    "multi-claims-binding-conditions-one-fail": Row(
        pod_two_claims(),
        [allocated(_pending(), bc_allocation(), devices=[device_status(DRIVER, "instance-1", True)]),
         allocated(claim(CLAIM2), bc_allocation(DRIVER2, "instance-2"),
                   devices=[device_status(DRIVER2, "instance-2", False)]),
         device_class(), fabric_slice(), fabric_slice(DRIVER2, "instance-2")],
        {"prefilter": OK, "filter/worker": NOT_AVAILABLE,
         "postfilter": (U, "deallocation of ResourceClaim completed"),
         "claims": {CLAIM: {"allocation": _no_ts(bc_allocation())}, CLAIM2: {}}}),
}


SKIPPED = {
    "tainted-device-disabled": "DRADeviceTaints off: the apiserver then serves no DeviceTaintRule "
    "and drops device taints; the reference's tracker watches rules unconditionally",
}


@pytest.mark.parametrize("name", [
    pytest.param(n, id=n, marks=[pytest.mark.skip(reason=SKIPPED[n])] if n in SKIPPED else [])
    for n in ROWS])
def test_plugin(name: str) -> None:
    row = ROWS[name]
    objs = row.objs
    if name == "wrong-claim":  # allocatedClaim whose owner's uid differs from the pod's
        c = allocated(_pending())
        c["metadata"]["ownerReferences"][0]["uid"] += "123"
        objs = [c]
    env = setup(objs, row.gates or None)
    if name == "deleted-claim":  # its finalizer keeps it while it is being deleted
        env.server.delete(RES, "ResourceClaim", CLAIM, "default")
        env.clock.settle()
    got = walk(env, row.pod, [ext_node(n) if isinstance(n, dict) else node(n) for n in row.nodes],
               row.in_flight)
    want = dict(row.want)
    want_claims: dict[str, Obj] = want.pop("claims", {})
    if STAMPED in want:  # PreBind adds it only with DRADeviceBindingConditions on
        assert ("allocationTimestamp" in got["claims"][CLAIM]["allocation"]) == want.pop(STAMPED)
    if EXT in want:  # the extended-resource claim PreBind created: its requests, reserved
        ext_requests = want.pop(EXT)
        made = [(n, st) for n, st in got["claims"].items() if n.startswith(f"{POD}-extended-resources-")]
        assert [sorted(r["request"] for r in st["allocation"]["devices"]["results"]) for _, st in made] == (
            [ext_requests] if ext_requests else [])
        for claim_name, st in made:
            assert [r["name"] for r in st.get("reservedFor") or ()] == [POD], claim_name
    assert {k: v for k, v in got.items() if k in want} == want
    # No step ran beyond those the row expects (PreFilter runs whenever PreEnqueue passes).
    assert set(got) - {"claims", "preenqueue", "prefilter"} <= set(want) | {EXT, STAMPED}, got
    for cname, status in want_claims.items():
        st = got["claims"][cname]
        assert (_alloc(st.get("allocation")), st.get("reservedFor")) == (
            _alloc(status.get("allocation")), status.get("reservedFor"))


def _alloc(a: Obj | None) -> Obj | None:
    """As upstream's verify compares: no allocationTimestamp value, results without
    Device and ShareID (in their order)."""
    if not a:
        return None
    out = {k: v for k, v in a.items() if k != "allocationTimestamp"}
    devices = dict(out.get("devices") or {})
    devices["results"] = [{k: v for k, v in r.items() if k not in ("device", "shareID")}
                          for r in devices.get("results") or ()]
    return {**out, "devices": devices}
