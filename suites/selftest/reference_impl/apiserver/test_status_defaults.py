"""/status writes are defaulted as upstream defaults every decoded body: pod IPs kept in
step (``SetDefaults_PodStatus``), a namespace's empty phase (``SetDefaults_NamespaceStatus``),
an allocated device's toleration operator (``SetObjectDefaults_ResourceClaim``, which
``conversion/resource_defaults`` already applied)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_namespace, make_pod
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

pytestmark = pytest.mark.model

Obj = dict[str, Any]


def _server() -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace("default").build())
    return s


@pytest.mark.parametrize(
    ("written", "stored"),
    [
        ({"podIP": "10.0.0.1"}, ("10.0.0.1", ["10.0.0.1"])),
        ({"podIPs": [{"ip": "10.0.0.1"}, {"ip": "fd00::1"}]}, ("10.0.0.1", ["10.0.0.1", "fd00::1"])),
        ({"podIP": "10.0.0.2", "podIPs": [{"ip": "10.0.0.1"}]}, ("10.0.0.2", ["10.0.0.2"])),
        ({"podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.1"}, {"ip": "fd00::1"}]}, ("10.0.0.1", ["10.0.0.1", "fd00::1"])),
    ],
)
def test_pod_status_ips_are_kept_in_step(written: Obj, stored: tuple[str, list[str]]) -> None:
    s = _server()
    pod = s.create(make_pod("p", "default").build())
    out = s.update_status({**pod, "status": {**pod["status"], **written}})["status"]
    assert (out["podIP"], [x["ip"] for x in out["podIPs"]]) == stored


def test_a_namespace_status_without_a_phase_is_active() -> None:
    s = _server()
    ns = s.create(make_namespace("n").build())
    assert s.update_status({**ns, "status": {}})["status"]["phase"] == "Active"


def test_an_allocated_toleration_without_an_operator_is_equal() -> None:
    s = _server()
    claim = s.create({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "x"}}]}},
    })  # fmt: skip
    result = {"request": "r", "driver": "drv.dev", "pool": "p", "device": "d0",
              "tolerations": [{"key": "k", "value": "v", "effect": "NoSchedule"}]}  # fmt: skip
    status = {"allocation": {"devices": {"results": [result]}}}
    out = s.update_status({**claim, "status": status})["status"]
    assert out["allocation"]["devices"]["results"][0]["tolerations"][0]["operator"] == "Equal"
