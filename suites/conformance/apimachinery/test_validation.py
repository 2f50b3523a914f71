"""API machinery conformance: bad writes are refused with field paths and change nothing."""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import make_configmap, make_node, make_pod
from reference_impl.errors import BadRequest, Invalid, NotFound

pytestmark = pytest.mark.conformance


def _pod_names(target: Target, namespace: str) -> list[str]:
    return sorted(p["metadata"]["name"] for p in target.list("v1", "Pod", namespace))


UNDECODABLE_PODS = [
    pytest.param(
        lambda ns: make_pod("bad", ns).set("spec.priorityClassNam", "x").build(),
        "spec.priorityClassNam",
        'strict decoding error: unknown field "spec.priorityClassNam"',
        id="unknown field",
    ),
    pytest.param(
        lambda ns: make_pod("bad", ns).set("spec.activeDeadlineSeconds", "soon").build(),
        "spec.activeDeadlineSeconds",
        "json: cannot unmarshal string into Go struct field PodSpec.spec.activeDeadlineSeconds"
        " of type int64",
        id="wrong type",
    ),
]

BAD_PODS = [
    pytest.param(
        lambda ns: make_pod("bad", ns).set("spec.containers", []).build(),
        "spec.containers",
        id="missing required field",
    ),
    pytest.param(
        lambda ns: make_pod("bad", ns).toleration("k", effect="Sometimes").build(),
        "spec.tolerations[0].effect",
        id="bad toleration effect",
    ),
    pytest.param(
        lambda ns: make_pod("bad", ns).restart_policy("Sometimes").build(),
        "spec.restartPolicy",
        id="bad restart policy",
    ),
    pytest.param(
        lambda ns: make_pod("Bad_Name", ns).build(),
        "metadata.name",
        id="bad name",
    ),
]


@pytest.mark.parametrize(("build", "field", "detail"), UNDECODABLE_PODS)
def test_undecodable_pod_is_a_bad_request_naming_its_field(
    target: Target, namespace: str, build: Any, field: str, detail: str
) -> None:
    """API machinery, strict decoding of pods.

    A pod body with an unknown field (under fieldValidation=Strict) or a wrongly typed
    field MUST be rejected as BadRequest (400, before validation), with the decoder's
    message naming the field, and no pod MUST be stored.
    """
    before = _pod_names(target, namespace)
    with pytest.raises(BadRequest) as err:
        target.apply(build(namespace))
    assert err.value.message == f'Pod in version "v1" cannot be handled as a Pod: {detail}'
    assert field in err.value.fields, err.value.fields
    assert _pod_names(target, namespace) == before


@pytest.mark.parametrize(("build", "field"), BAD_PODS)
def test_invalid_pod_is_rejected_with_its_field_path(
    target: Target, namespace: str, build: Any, field: str
) -> None:
    """API machinery, validation of pods.

    A pod with a missing required field, an unsupported enum value or a bad name MUST
    be rejected as Invalid, the error MUST name the field path, and no pod MUST be
    stored.
    """
    before = _pod_names(target, namespace)
    with pytest.raises(Invalid) as err:
        target.apply(build(namespace))
    assert field in err.value.fields, err.value.fields
    assert _pod_names(target, namespace) == before


def test_bad_taint_effect_on_a_node_is_invalid(target: Target) -> None:
    """API machinery, validation of node taints.

    A Node whose taint effect is not NoSchedule, PreferNoSchedule or NoExecute MUST be
    rejected as Invalid naming the taint's effect, and MUST NOT be stored. (Upstream names
    the field metadata.taints[0].effect although it lives in spec.)
    """
    node = make_node("garhwal-bad-taint").taint("example.com/flaky", "Sometimes").build()
    with pytest.raises(Invalid) as err:
        target.apply(node)
    assert "metadata.taints[0].effect" in err.value.fields
    with pytest.raises(NotFound):
        target.get("v1", "Node", "garhwal-bad-taint")


def test_invalid_update_leaves_the_stored_object_unchanged(target: Target, namespace: str) -> None:
    """API machinery, failed updates.

    An update whose body does not decode (an unknown field: BadRequest) MUST NOT change
    the stored object or its resourceVersion.
    """
    good = target.apply(make_configmap("keep", namespace, a="1").build())
    bad = make_configmap("keep", namespace, a="2").set("immutabel", True).build()
    with pytest.raises(BadRequest):
        target.apply(bad)
    now = target.get("v1", "ConfigMap", "keep", namespace)
    assert now["data"] == {"a": "1"}
    assert now["metadata"]["resourceVersion"] == good["metadata"]["resourceVersion"]


def test_unknown_api_version_is_not_found(target: Target, namespace: str) -> None:
    """API machinery, unknown group versions.

    A write whose apiVersion the 1.37 apiserver does not serve MUST fail with NotFound
    and store nothing.
    """
    cm = make_configmap("ghost", namespace).build()
    cm["apiVersion"] = "v2"
    with pytest.raises(NotFound):
        target.apply(cm)
    with pytest.raises(NotFound):
        target.get("v1", "ConfigMap", "ghost", namespace)


@pytest.mark.runtime_config("scheduling.k8s.io/v1alpha3=true")  # so only the gate is off
@pytest.mark.feature_gates(GenericWorkload=True, CompositePodGroup=False)
def test_gated_kind_is_not_served_while_its_gate_is_off(target: Target, namespace: str) -> None:
    """API machinery, feature-gated kinds.

    While the CompositePodGroup gate is off, scheduling.k8s.io/v1alpha3 CompositePodGroup
    MUST NOT be served, although its version is enabled and serves other kinds: a write
    MUST fail with NotFound.
    """
    group = {
        "apiVersion": "scheduling.k8s.io/v1alpha3",
        "kind": "CompositePodGroup",
        "metadata": {"name": "g", "namespace": namespace},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}},
    }
    with pytest.raises(NotFound):
        target.apply(group)
