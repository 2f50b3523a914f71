"""``go_encoded``: an object as Go's encoding/json writes the typed object the apiserver
read back from storage; ``wire_quantity``: a quantity as it reads back."""

from __future__ import annotations

import pytest

from reference_impl.api.quantity_wire import wire_quantity
from reference_impl.apiserver.go_encoding import go_encoded


def _deployment(**spec: object) -> dict[str, object]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d", "labels": {}},
        "spec": {"selector": {"matchLabels": {"a": "b"}}, **spec},
    }


def test_zero_values_omitempty_and_nulls() -> None:
    out = go_encoded(_deployment(paused=False, minReadySeconds=0, revisionHistoryLimit=0))
    assert out["status"] == {}  # a struct: written even when absent
    assert "labels" not in out["metadata"]  # an empty omitempty map
    spec = out["spec"]
    assert "paused" not in spec and "minReadySeconds" not in spec  # omitempty zeros
    assert spec["revisionHistoryLimit"] == 0  # a pointer to zero stays
    assert spec["template"] == {"metadata": {}, "spec": {"containers": None}}  # zero structs


def test_non_omitempty_fields_and_times() -> None:
    node = go_encoded({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
                       "status": {"conditions": [{"type": "Ready", "status": "True"}]}})  # fmt: skip
    cond = node["status"]["conditions"][0]
    assert cond["lastHeartbeatTime"] is None and cond["lastTransitionTime"] is None
    assert node["status"]["daemonEndpoints"] == {"kubeletEndpoint": {"Port": 0}}


def test_an_empty_list_reads_back_as_null() -> None:
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"},
             "spec": {"devices": {"requests": []}}}  # fmt: skip
    assert go_encoded(claim)["spec"]["devices"]["requests"] is None


def test_a_custom_resource_is_left_alone() -> None:
    cr = {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"x": []}}
    assert go_encoded(cr) == cr


@pytest.mark.parametrize(
    ("raw", "want"),
    [(0, "0"), (0.5, "500m"), (1000.0, "1k"), ("1000m", "1"), ("1100m", "1100m"), ("+1", "+1"),
     ("010", "010"), ("1E3", "1E3"), ("1024Mi", "1Gi"), ("2000Ki", "2000Ki"), ("1.5Gi", "1536Mi"),
     ("500000000u", "500"), ("0m", "0")],
)  # fmt: skip
def test_wire_quantity(raw: object, want: str) -> None:
    assert wire_quantity(raw) == want
