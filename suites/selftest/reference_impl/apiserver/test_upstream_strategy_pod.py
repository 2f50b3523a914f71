"""Rows of pkg/registry/core/pod/strategy_test.go (v1.37.2) on the reference's pod
strategy: TestCheckGracefulDelete (``deletion.check_graceful_delete``), TestGetPodQOS
(the ``prepare_pod_qos`` preparer), TestMatchPod, TestGetPodIP and
TestSelectableFieldLabelConversions (``field_selectors``), TestPodIndexFunc (skipped),
and node/strategy_test.go's TestSelectableFieldLabelConversions.

TestMatchPod's rows have no names upstream; their ids here are the selector and the
expected result.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver import deletion, field_selectors
from reference_impl.apiserver.registry import Context
from reference_impl.apiserver.strategies.core import prepare_pod_qos
from reference_impl.errors import BadRequest
from reference_impl.features import FeatureGates

Obj = dict[str, Any]
DEFAULT_GRACE = 30


# TestCheckGracefulDelete: (pod, DeleteOptions.GracePeriodSeconds, resulting period).
@pytest.mark.parametrize(
    ("pod", "delete_grace", "want"),
    [
        pytest.param(
            {"spec": {"nodeName": "something"}, "status": {"phase": "Pending"}},
            DEFAULT_GRACE,
            DEFAULT_GRACE,
            id="in pending phase with has node name",
        ),
        pytest.param(
            {"spec": {"nodeName": "something"}, "status": {"phase": "Failed"}},
            DEFAULT_GRACE,
            0,
            id="in failed phase with has node name",
        ),
        pytest.param(
            {"spec": {}, "status": {"phase": "Pending"}}, DEFAULT_GRACE, 0, id="in failed phase"
        ),
        pytest.param(
            {"spec": {}, "status": {"phase": "Succeeded"}},
            DEFAULT_GRACE,
            0,
            id="in succeeded phase",
        ),
        pytest.param({"spec": {}, "status": {}}, DEFAULT_GRACE, 0, id="no phase"),
        pytest.param(
            {"spec": {"nodeName": "something", "terminationGracePeriodSeconds": -1}, "status": {}},
            None,
            1,
            id="has negative grace period",
        ),
    ],
)
def test_check_graceful_delete(pod: Obj, delete_grace: int | None, want: int) -> None:
    assert deletion.check_graceful_delete(pod, delete_grace) == want


def _container(name: str, cpu: str, memory: str, limits: bool) -> Obj:
    rl = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    res: Obj = {}
    if rl:
        res["requests"] = rl
        if limits:
            res["limits"] = dict(rl)
    return {"name": name, "resources": res}


# TestGetPodQOS: rows are indexed upstream; ids are the pods' names.
@pytest.mark.parametrize(
    ("container", "want"),
    [
        pytest.param(
            _container("guaranteed", "100m", "100Mi", limits=True), "Guaranteed", id="guaranteed"
        ),
        pytest.param(
            _container("best-effort", "", "", limits=True), "BestEffort", id="best-effort"
        ),
        pytest.param(
            _container("burstable", "100m", "100Mi", limits=False), "Burstable", id="burstable"
        ),
    ],
)
def test_get_pod_qos(container: Obj, want: str) -> None:
    pod: Obj = {"metadata": {"name": container["name"]}, "spec": {"containers": [container]}}
    ctx = Context(gates=FeatureGates(), get=lambda *_: None, list=lambda *_: [])
    prepare_pod_qos(pod, None, "2026-01-01T00:00:00Z", ctx)
    assert pod["status"]["qosClass"] == want


def _ips(*ips: str) -> Obj:
    return {"status": {"podIPs": [{"ip": ip} for ip in ips]}}


# TestMatchPod: (pod, field selector, expectMatch), with labels.Everything().
_MATCH_POD_ROWS: list[tuple[Obj, str, bool]] = [
    ({"spec": {"nodeName": "nodeA"}}, "spec.nodeName=nodeA", True),
    ({"spec": {"nodeName": "nodeB"}}, "spec.nodeName=nodeA", False),
    ({"spec": {"restartPolicy": "Always"}}, "spec.restartPolicy=Always", True),
    ({"spec": {"restartPolicy": "Always"}}, "spec.restartPolicy=Never", False),
    ({"spec": {"schedulerName": "scheduler1"}}, "spec.schedulerName=scheduler1", True),
    ({"spec": {"schedulerName": "scheduler1"}}, "spec.schedulerName=scheduler2", False),
    (
        {"spec": {"serviceAccountName": "serviceAccount1"}},
        "spec.serviceAccountName=serviceAccount1",
        True,
    ),
    (
        {"spec": {"schedulerName": "serviceAccount1"}},
        "spec.serviceAccountName=serviceAccount2",
        False,
    ),
    ({"status": {"phase": "Running"}}, "status.phase=Running", True),
    ({"status": {"phase": "Running"}}, "status.phase=Pending", False),
    (_ips("1.2.3.4"), "status.podIP=1.2.3.4", True),
    (_ips("1.2.3.4"), "status.podIP=4.3.2.1", False),
    ({"status": {"nominatedNodeName": "node1"}}, "status.nominatedNodeName=node1", True),
    ({"status": {"nominatedNodeName": "node1"}}, "status.nominatedNodeName=node2", False),
    (_ips("2001:db8::"), "status.podIP=2001:db8::", True),
    (_ips("2001:db8::"), "status.podIP=2001:db7::", False),
    ({"spec": {"hostNetwork": True}}, "spec.hostNetwork=true", True),
    ({"spec": {"hostNetwork": True}}, "spec.hostNetwork=false", False),
    ({"spec": {"hostNetwork": False}}, "spec.hostNetwork=false", True),
    ({"spec": {}}, "spec.hostNetwork=false", True),
    ({"spec": {}}, "spec.hostNetwork=true", False),
]


@pytest.mark.parametrize(
    ("pod", "selector", "want"),
    [pytest.param(*row, id=f"{i}: {row[1]} {row[2]}") for i, row in enumerate(_MATCH_POD_ROWS)],
)
def test_match_pod(pod: Obj, selector: str, want: bool) -> None:
    predicate = field_selectors.field_predicate("Pod", selector)
    assert predicate is not None
    assert predicate(pod) is want


# TestGetPodIP
@pytest.mark.parametrize(
    ("pod", "want"),
    [
        pytest.param(None, "", id="nil pod"),
        pytest.param(
            {"metadata": {"namespace": "ns", "name": "pod1"}, "spec": {}}, "", id="no status object"
        ),
        pytest.param({"metadata": {"name": "pod1"}, "spec": {}, "status": {}}, "", id="no pod ips"),
        pytest.param({"metadata": {"name": "pod1"}, "status": {"podIPs": []}}, "", id="empty list"),
        pytest.param(_ips("10.0.0.10"), "10.0.0.10", id="1 ip"),
        pytest.param(_ips("10.0.0.10", "10.0.0.20"), "10.0.0.10", id="multiple ips"),
    ],
)
def test_get_pod_ip(pod: Obj | None, want: str) -> None:
    assert field_selectors.get_pod_ip(pod) == want


_BAD_FIELD_LABELS = ("name", ".name", "bad", "metadata", "foo.bar")


def _check_selectable_field_label_conversions(kind: str, fields: dict[str, str]) -> None:
    """``apitesting.TestSelectableFieldLabelConversionsOfKind`` with no label map."""
    assert fields
    for label in fields:
        assert field_selectors.convert_field_label(kind, label, "value") == (label, "value")
    for label in _BAD_FIELD_LABELS:
        with pytest.raises(BadRequest):
            field_selectors.convert_field_label(kind, label, "value")


def test_selectable_field_label_conversions_pod() -> None:
    """pod TestSelectableFieldLabelConversions."""
    _check_selectable_field_label_conversions("Pod", field_selectors.pod_to_selectable_fields({}))


def test_selectable_field_label_conversions_node() -> None:
    """node TestSelectableFieldLabelConversions."""
    _check_selectable_field_label_conversions("Node", field_selectors.node_to_selectable_fields({}))


@pytest.mark.skip(
    reason="NodeNameIndexFunc feeds the watch cache's spec.nodeName index; the reference's "
    "cacher filters by predicate and keeps no field indexes"
)
def test_pod_index_func() -> None:
    """TestPodIndexFunc."""
