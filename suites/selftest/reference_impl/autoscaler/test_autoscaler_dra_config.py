"""Unit tests of node-group ResourceSlice templates (DRA GPU groups)."""

from __future__ import annotations

import pytest

from reference_impl.api import make_autoscaler_config, make_device, make_node_group
from reference_impl.autoscaler import parse_config
from reference_impl.autoscaler.templates import slice_manifests


def _text(groups: list[dict[str, object]]) -> str:
    return str(make_autoscaler_config(groups)["data"]["config.yaml"])


def test_resource_slices_parse_and_become_one_node_local_pool_per_driver() -> None:
    devs = [make_device(f"gpu-{i}", attributes={"type": "gpu"}) for i in range(2)]
    group = make_node_group("gpu", resource_slices={"gpu.example.com": devs})
    (g,) = parse_config(_text([group])).node_groups
    (sl,) = slice_manifests(g, "gpu-1", "uid-1")
    assert sl["metadata"]["name"] == "gpu-1-gpu.example.com"
    assert sl["metadata"]["ownerReferences"][0] == {
        "apiVersion": "v1",
        "kind": "Node",
        "name": "gpu-1",
        "uid": "uid-1",
    }
    assert sl["spec"]["nodeName"] == "gpu-1"
    assert sl["spec"]["pool"] == {"name": "gpu-1", "generation": 1, "resourceSliceCount": 1}
    assert [d["name"] for d in sl["spec"]["devices"]] == ["gpu-0", "gpu-1"]
    assert slice_manifests(parse_config(_text([make_node_group("cpu")])).node_groups[0], "n") == []


@pytest.mark.parametrize(
    ("slices", "needle"),
    [
        ("[{devices: [{name: a}]}]", "resourceSlices[0].driver"),
        ("[{driver: d}]", "resourceSlices[0].devices"),
        ("[{driver: d, devices: [{}]}]", "devices[0].name"),
        ("[{driver: d, devices: [{name: a}, {name: a}]}]", "unique"),
        ("[{driver: d, devices: [{name: a}]}, {driver: d, devices: [{name: b}]}]", "twice"),
    ],
)
def test_bad_resource_slice_templates_are_rejected_naming_the_field(
    slices: str, needle: str
) -> None:
    text = f"nodeGroups: [{{name: g, template: {{resourceSlices: {slices}}}}}]\n"
    with pytest.raises(ValueError) as err:
        parse_config(text)
    assert needle in str(err.value)
