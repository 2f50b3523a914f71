"""Evaluator rows the other quota selftests leave out, after upstream's ``services_test.go``
(TestServiceEvaluatorMatchesResources, TestServiceConstraintsFunc,
TestServiceEvaluatorHandles) and the ``connect`` rows of every Handles table (skipped:
the reference's admission has no CONNECT operation)."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import MakeEnv
from reference_impl.apiserver.quota import resources as r
from reference_impl.apiserver.quota.services import ServiceEvaluator
from reference_impl.apiserver.registry import Operation

Obj = dict[str, Any]
NO_CONNECT = pytest.mark.skip(reason="admission.Connect is not modelled (no CONNECT operation)")


def test_service_evaluator_matches_resources(make_env: MakeEnv) -> None:
    """TestServiceEvaluatorMatchesResources."""
    names = ["configmaps", "cpu", "services", "services.nodeports", "services.loadbalancers"]
    got = ServiceEvaluator(make_env()).matching_resources(names)
    assert r.to_set(got) == {"services", "services.nodeports", "services.loadbalancers"}


def _svc(svc_type: str, *ports: int) -> Obj:
    return {"spec": {"type": svc_type, "ports": [{"port": p} for p in ports]}}


@pytest.mark.parametrize(("s", "required"), [
    pytest.param(_svc("LoadBalancer"), ["services.loadbalancers"], id="loadbalancer"),
    pytest.param(_svc("ClusterIP"), ["services.loadbalancers", "services"], id="clusterip"),
    pytest.param(_svc("NodePort", 27443), ["services.nodeports"], id="nodeports"),
    pytest.param(_svc("NodePort", 27443, 27444), ["services.nodeports"], id="multi-nodeports"),
])  # fmt: skip
def test_service_constraints(make_env: MakeEnv, s: Obj, required: list[str]) -> None:
    """TestServiceConstraintsFunc: services state no constraints."""
    assert ServiceEvaluator(make_env()).constraints(required, s) is None


@pytest.mark.parametrize(("op", "sub", "want"), [
    pytest.param(Operation.CREATE, "", True, id="create"),
    pytest.param(Operation.UPDATE, "", True, id="update"),
    pytest.param(Operation.DELETE, "", False, id="delete"),
    pytest.param(None, "", False, id="connect", marks=NO_CONNECT),
    pytest.param(Operation.CREATE, "subresource", False, id="create-subresource"),
    pytest.param(Operation.UPDATE, "subresource", False, id="update-subresource"),
])  # fmt: skip
def test_service_handles(make_env: MakeEnv, op: Operation, sub: str, want: bool) -> None:
    """TestServiceEvaluatorHandles."""
    assert ServiceEvaluator(make_env()).handles(op, sub, {}, None) is want


@pytest.mark.parametrize("evaluator", [
    pytest.param("pods", id="TestPodEvaluatorHandles/connect", marks=NO_CONNECT),
    pytest.param("persistentvolumeclaims", id="TestPersistentVolumeClaimEvaluatorHandles/connect",
                 marks=NO_CONNECT),
    pytest.param("resourceclaims.resource.k8s.io", id="TestResourceClaimEvaluatorHandles/connect",
                 marks=NO_CONNECT),
])  # fmt: skip
def test_handles_connect(evaluator: str) -> None:
    raise AssertionError(evaluator)
