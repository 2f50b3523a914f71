"""The fault injection API chaos injectors wrap: validation, one write, rollback and journal."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.gpu.faults import (
    EccStorm,
    GpuFaultRollback,
    RowRemapFailure,
    ThermalSlowdown,
    Xid,
    inject_from_spec,
    inject_gpu_fault,
    parse_fault,
)
from fixtures.nvml.profiles import GpuSpecError, make_profile, profile_from_spec
from fixtures.nvml.state import GpuNode


@pytest.mark.parametrize(("spec", "fault"), [
    ({"kind": "xid", "code": 79}, Xid(79)), ("xid:48", Xid(48)), ("thermal-slowdown", ThermalSlowdown()),
    ({"kind": "thermal-slowdown", "hardware": False, "temperatureC": 88}, ThermalSlowdown(False, 88)),
    ("row-remap-failure", RowRemapFailure()), ({"kind": "ecc-storm", "corrected": 5000}, EccStorm(5000)),
])
def test_specs_parse(spec: object, fault: object) -> None:
    assert parse_fault(spec) == fault


@pytest.mark.parametrize(("spec", "message"), [
    ({"kind": "xid", "code": 13}, "fault.code: unknown Xid 13; supported: 48, 79, 94, 95"),
    ("xid:abc", "fault.code: not an integer: 'abc'"),
    ({"kind": "xid"}, "fault.code: required for kind xid"),
    ({"kind": "meltdown"}, "fault.kind: unknown fault 'meltdown'; use one of: xid, thermal-slowdown, row-remap-failure, ecc-storm"),
    ({"kind": "ecc-storm", "corrected": 0}, "fault.corrected: must be an integer from 1 to 1000000000, got 0"),
    ({"kind": "row-remap-failure", "rows": 3}, "fault.rows: unknown field for row-remap-failure; allowed: none"),
    (["xid"], "fault: must be a mapping with a kind, got list"),
])
def test_bad_specs_are_one_clear_error(spec: object, message: str) -> None:
    with pytest.raises(GpuSpecError) as e:
        parse_fault(spec)
    assert str(e.value) == message


@pytest.mark.parametrize(("spec", "message"), [
    ({"shape": "V100"}, "shape: unknown GPU shape 'V100'; use one of: H100, H200, A100, B200"),
    ({"count": 0}, "count: must be an integer from 1 to 64, got 0"),
    ({"count": "8"}, "count: must be an integer from 1 to 64, got '8'"),
    ({"gpus": 8}, "profile.gpus: unknown field; allowed: shape, count"),
    ("H100", "profile: must be a mapping with shape and count, got str"),
])
def test_bad_profiles_are_one_clear_error(spec: object, message: str) -> None:
    with pytest.raises(GpuSpecError) as e:
        profile_from_spec(spec, "n")
    assert str(e.value) == message


def test_a_bad_node_writes_no_files(tmp_path: Path) -> None:
    with pytest.raises(GpuSpecError, match="^shape: unknown GPU shape 'V100'"):
        GpuNode.create(tmp_path / "n", "n", "V100")
    assert not (tmp_path / "n").exists()


def test_uuids_are_stable_per_node_and_distinct() -> None:
    a, b = make_profile("node-a"), make_profile("node-b")
    assert a == make_profile("node-a")
    assert len({d.uuid for d in a.devices + b.devices}) == 16


def test_a_fault_on_a_missing_device_changes_nothing(tmp_path: Path) -> None:
    node = GpuNode.create(tmp_path / "n", "node-a")
    before = node.state_path.read_text()
    with pytest.raises(GpuSpecError, match=r"^device: no GPU 'GPU-missing' on node node-a \(its GPUs: GPU-"):
        inject_gpu_fault(node, "GPU-missing", Xid(79))
    with pytest.raises(GpuSpecError, match="^fault: not a GPU fault: 'xid-79'"):
        inject_gpu_fault(node, node.profile.devices[0].uuid, "xid-79")  # type: ignore[arg-type]
    assert node.state_path.read_text() == before


def test_rollback_round_trips_through_json_and_is_idempotent(tmp_path: Path) -> None:
    node = GpuNode.create(tmp_path / "n", "node-a")
    uuid = node.profile.devices[7].uuid
    rb = inject_gpu_fault(node, uuid, Xid(79))
    assert node.read().devices[7]["lost"] == 1
    replayed = GpuFaultRollback.from_json(rb.to_json())
    assert replayed == rb and replayed.fault == "xid-79" and replayed.restore == {"lost": 0}
    replayed.undo()
    replayed.undo()
    assert node.read().devices[7]["lost"] == 0
    assert [(e.device, e.type, e.data) for e in node.read().events] == [(7, 0x8, 79)]


def test_inject_from_spec_validates_before_it_writes(tmp_path: Path) -> None:
    node = GpuNode.create(tmp_path / "n", "node-a")
    before = node.state_path.read_text()
    with pytest.raises(GpuSpecError, match="^fault.code: unknown Xid 31"):
        inject_from_spec(node.dir, node.profile.devices[0].uuid, {"kind": "xid", "code": 31})
    with pytest.raises(GpuSpecError, match="^node: no GPU node state in"):
        inject_from_spec(tmp_path / "nowhere", node.profile.devices[0].uuid, "xid:79")
    assert node.state_path.read_text() == before
    rb = inject_from_spec(node.dir, node.profile.devices[0].uuid, {"kind": "ecc-storm", "corrected": 250})
    assert node.read().devices[0]["ecc_sbe_volatile"] == 250
    rb.undo()
    assert node.read().devices[0]["ecc_sbe_volatile"] == 0
