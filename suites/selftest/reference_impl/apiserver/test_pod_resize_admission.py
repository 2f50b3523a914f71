"""PodResizeValidator admission (``plugin/pkg/admission/podresize``), after upstream's
``TestResizeAdmission`` and ``TestValidateRequestsWithinAllocatable`` cases; the refusal
message was checked live against v1.37.2 (suites/conformance/scheduling/test_resize_preemption.py)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from reference_impl.api import make_namespace, make_node, make_pod, resized
from reference_impl.apiserver.admission.pod_resize import pod_requests
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import Forbidden
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]


def _server() -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace("default").build())
    s.create(make_node("linux-node").capacity(cpu="4", memory="8Gi").label("kubernetes.io/os", "linux").build())
    s.create(make_node("windows-node").capacity(cpu="4", memory="8Gi").label("kubernetes.io/os", "windows").build())
    return s


def _pod(s: APIServer, node: str = "linux-node") -> Obj:
    return s.create(make_pod("test-pod").req(cpu="1", memory="1Gi").node(node).build())


def _resize(s: APIServer, pod: Obj, **requests: str) -> Obj:
    body = resized(pod, cpu=requests.pop("cpu", "1"))
    body["spec"]["containers"][0]["resources"]["requests"].update(requests)
    return s.resize(body)


def _requests(pod: Obj) -> Obj:
    return dict(pod["spec"]["containers"][0]["resources"]["requests"])


@pytest.mark.parametrize(("change", "want"), [({"cpu": "2"}, "2"), ({"cpu": "1", "memory": "2Gi"}, "1")],
                         ids=["cpu", "memory"])  # fmt: skip
def test_a_resize_that_fits_the_linux_node_is_accepted(change: dict[str, str], want: str) -> None:
    s = _server()
    got = _resize(s, _pod(s), **change)
    assert _requests(got)["cpu"] == want and got["metadata"]["generation"] == 2


def test_an_unbound_pod_and_an_unchanged_spec_skip_the_check() -> None:
    s = _server()
    pending = s.create(make_pod("q").req(cpu="1").build())
    assert _requests(_resize(s, pending, cpu="10"))["cpu"] == "10"
    pod = _pod(s)
    assert _resize(s, pod, cpu="1")["metadata"]["generation"] == 1  # nothing changed


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"cpu": "10"}, "node didn't have enough allocatable resources: cpu, requested: 10000, allocatable: 4000"),
        ({"memory": "10Gi"}, "node didn't have enough allocatable resources: memory, requested: 10737418240, "
                             "allocatable: 8589934592"),
        ({"cpu": "10", "memory": "10Gi"}, "cpu, requested: 10000, allocatable: 4000; memory, requested: "
                                          "10737418240, allocatable: 8589934592"),
    ],
    ids=["cpu", "memory", "both"],
)  # fmt: skip
def test_a_resize_beyond_the_allocatable_is_forbidden_and_stores_nothing(change: dict[str, str], message: str) -> None:
    s = _server()
    pod = _pod(s)
    with pytest.raises(Forbidden) as err:
        _resize(s, pod, **change)
    assert str(err.value).startswith('pods "test-pod" is forbidden: ') and message in str(err.value)
    stored = s.get("v1", "Pod", "test-pod", "default")
    assert stored["metadata"]["resourceVersion"] == pod["metadata"]["resourceVersion"]
    assert _requests(stored) == {"cpu": "1", "memory": "1Gi"}


def test_a_non_linux_or_missing_node_is_forbidden() -> None:
    s = _server()
    with pytest.raises(Forbidden, match='only supported on linux nodes, node "windows-node" is "windows"'):
        _resize(s, _pod(s, "windows-node"), cpu="2")
    s2 = _server()
    orphan = s2.create(make_pod("test-pod").req(cpu="1").node("missing-node").build())
    with pytest.raises(Forbidden, match='node "missing-node" not found'):
        _resize(s2, orphan, cpu="2")


def test_pod_requests_add_the_overhead_and_take_pod_level_requests() -> None:
    spec: Obj = {"overhead": {"cpu": "100m", "memory": "100Mi"},
                 "containers": [{"resources": {"requests": {"cpu": "150m", "memory": "150Mi"}}}]}  # fmt: skip
    assert pod_requests(spec) == {"cpu": Decimal("0.25"), "memory": Decimal(250 * 2**20)}
    pod_level: Obj = {"resources": {"requests": {"cpu": "100m"}},
                      "containers": [{"resources": {"requests": {"cpu": "1000m"}}}]}  # fmt: skip
    assert pod_requests(pod_level) == {"cpu": Decimal("0.1")}


def test_pod_requests_count_sidecars_beside_the_app_and_init_containers_at_their_peak() -> None:
    spec: Obj = {
        "initContainers": [
            {"name": "side", "restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}},
            {"name": "init", "resources": {"requests": {"cpu": "3"}}},
        ],
        "containers": [{"resources": {"requests": {"cpu": "500m"}}}],
    }
    # app 0.5 + sidecar 1 = 1.5 running; the init container ran at 3 + the sidecar's 1.
    assert pod_requests(spec) == {"cpu": Decimal(4)}
