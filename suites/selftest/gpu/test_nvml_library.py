"""garhwal's libnvidia-ml.so.1 through the unmodified pynvml: every call, its error codes,
events arriving during a wait, and NVML_ERROR_GPU_IS_LOST."""

from __future__ import annotations

import threading
import time
from types import ModuleType

import pytest

from fixtures.gpu.faults import EccStorm, RowRemapFailure, ThermalSlowdown, Xid, inject_gpu_fault
from fixtures.nvml.profiles import SHAPES
from fixtures.nvml.state import GpuNode


def _err(nvml: ModuleType, fn: object, *args: object) -> int:
    with pytest.raises(nvml.NVMLError) as e:
        fn(*args)  # type: ignore[operator]
    return int(e.value.value)


def test_inventory_matches_the_profile(nvml: ModuleType, nvml_node: GpuNode) -> None:
    assert nvml.nvmlDeviceGetCount() == 8
    assert nvml.nvmlSystemGetDriverVersion() == "550.163.01"
    assert nvml.nvmlSystemGetCudaDriverVersion() == 12040
    shape = SHAPES["H200"]
    for d in nvml_node.profile.devices:
        h = nvml.nvmlDeviceGetHandleByIndex(d.index)
        assert nvml.nvmlDeviceGetName(h) == "NVIDIA H200"
        assert nvml.nvmlDeviceGetUUID(h) == d.uuid
        assert nvml.nvmlDeviceGetIndex(h) == d.index
        assert nvml.nvmlDeviceGetMinorNumber(h) == d.index
        assert nvml.nvmlDeviceGetNumaNodeId(h) == d.numa
        pci = nvml.nvmlDeviceGetPciInfo(h)
        assert (pci.busId, pci.bus, pci.domain, pci.pciDeviceId) == (d.bus_id, d.bus, 0, shape.pci_device_id)
        assert pci.busIdLegacy == f"0000:{d.bus:02X}:00.0"
        byuuid = nvml.nvmlDeviceGetHandleByUUID(d.uuid)
        assert nvml.nvmlDeviceGetIndex(byuuid) == d.index
        assert nvml.nvmlDeviceGetIndex(nvml.nvmlDeviceGetHandleByPciBusId(d.bus_id)) == d.index
    assert [nvml.nvmlDeviceGetNumaNodeId(nvml.nvmlDeviceGetHandleByIndex(i)) for i in range(8)] == [0] * 4 + [1] * 4


def test_a_visible_list_narrows_and_renumbers_the_devices(
    nvml: ModuleType, nvml_node: GpuNode, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GARHWAL_NVML_VISIBLE: a container given GPUs 5 and 2 sees those two, as 0 and 1."""
    nvml.nvmlShutdown()
    devices = nvml_node.profile.devices
    monkeypatch.setenv("GARHWAL_NVML_VISIBLE", f"{devices[5].uuid},{devices[2].uuid},GPU-unknown,{devices[5].uuid}")
    nvml.nvmlInit()
    assert nvml.nvmlDeviceGetCount() == 2
    seen = [nvml.nvmlDeviceGetHandleByIndex(i) for i in range(2)]
    assert [nvml.nvmlDeviceGetUUID(h) for h in seen] == [devices[5].uuid, devices[2].uuid]
    assert [nvml.nvmlDeviceGetIndex(h) for h in seen] == [0, 1]
    assert nvml.nvmlDeviceGetMinorNumber(seen[0]) == 5  # the device node stays the node's
    assert _err(nvml, nvml.nvmlDeviceGetHandleByIndex, 2) == nvml.NVML_ERROR_INVALID_ARGUMENT
    assert _err(nvml, nvml.nvmlDeviceGetHandleByUUID, devices[0].uuid) == nvml.NVML_ERROR_NOT_FOUND
    assert _err(nvml, nvml.nvmlDeviceGetHandleByPciBusId, devices[0].bus_id) == nvml.NVML_ERROR_NOT_FOUND


def test_readings_and_their_versions(nvml: ModuleType) -> None:
    h = nvml.nvmlDeviceGetHandleByIndex(0)
    total = SHAPES["H200"].memory_mib << 20
    reserved = SHAPES["H200"].reserved_mib << 20
    v1 = nvml.nvmlDeviceGetMemoryInfo(h)
    assert (v1.total, v1.used, v1.free) == (total, reserved, total - reserved)
    v2 = nvml.nvmlDeviceGetMemoryInfo(h, version=nvml.nvmlMemory_v2)
    assert (v2.total, v2.reserved, v2.used, v2.free) == (total, reserved, 0, total - reserved)
    assert _err(nvml, nvml.nvmlDeviceGetMemoryInfo, h, 0x01000028) == nvml.NVML_ERROR_ARGUMENT_VERSION_MISMATCH
    util = nvml.nvmlDeviceGetUtilizationRates(h)
    assert (util.gpu, util.memory) == (0, 0)
    assert nvml.nvmlDeviceGetTemperature(h, nvml.NVML_TEMPERATURE_GPU) == 38
    assert _err(nvml, nvml.nvmlDeviceGetTemperature, h, 1) == nvml.NVML_ERROR_INVALID_ARGUMENT
    assert nvml.nvmlDeviceGetPowerUsage(h) == 92000
    assert nvml.nvmlDeviceGetPowerManagementLimit(h) == nvml.nvmlDeviceGetEnforcedPowerLimit(h) == 700000
    assert nvml.nvmlDeviceGetClockInfo(h, nvml.NVML_CLOCK_SM) == 1980
    assert nvml.nvmlDeviceGetMaxClockInfo(h, nvml.NVML_CLOCK_MEM) == 3201
    assert _err(nvml, nvml.nvmlDeviceGetClockInfo, h, nvml.NVML_CLOCK_VIDEO) == nvml.NVML_ERROR_NOT_SUPPORTED
    assert nvml.nvmlDeviceGetCudaComputeCapability(h) == (9, 0)
    assert nvml.nvmlDeviceGetCurrentClocksEventReasons(h) == 0
    assert nvml.nvmlDeviceGetCurrentClocksThrottleReasons(h) == 0
    assert nvml.nvmlDeviceGetEccMode(h) == [1, 1]
    for err in (0, 1):
        for counter in (0, 1):
            assert nvml.nvmlDeviceGetTotalEccErrors(h, err, counter) == 0
            assert nvml.nvmlDeviceGetMemoryErrorCounter(h, err, counter, nvml.NVML_MEMORY_LOCATION_DRAM) == 0
    assert _err(nvml, nvml.nvmlDeviceGetTotalEccErrors, h, 2, 0) == nvml.NVML_ERROR_INVALID_ARGUMENT
    assert _err(nvml, nvml.nvmlDeviceGetMemoryErrorCounter, h, 0, 0, nvml.NVML_MEMORY_LOCATION_CBU) == nvml.NVML_ERROR_NOT_SUPPORTED
    assert nvml.nvmlDeviceGetRemappedRows(h) == (0, 0, 0, 0)
    assert nvml.nvmlDeviceGetSupportedEventTypes(h) == 0x1B


def test_unsupported_and_missing_calls_give_nvml_codes(nvml: ModuleType) -> None:
    h = nvml.nvmlDeviceGetHandleByIndex(0)
    assert _err(nvml, nvml.nvmlDeviceGetFanSpeed, h) == nvml.NVML_ERROR_NOT_SUPPORTED
    assert _err(nvml, nvml.nvmlDeviceGetRetiredPagesPendingStatus, h) == nvml.NVML_ERROR_NOT_SUPPORTED
    assert _err(nvml, nvml.nvmlDeviceGetVbiosVersion, h) == nvml.NVML_ERROR_FUNCTION_NOT_FOUND
    assert _err(nvml, nvml.nvmlDeviceGetHandleByIndex, 8) == nvml.NVML_ERROR_INVALID_ARGUMENT
    assert _err(nvml, nvml.nvmlDeviceGetHandleByUUID, b"GPU-nope") == nvml.NVML_ERROR_NOT_FOUND
    es = nvml.nvmlEventSetCreate()
    assert _err(nvml, nvml.nvmlDeviceRegisterEvents, h, 0x4, es) == nvml.NVML_ERROR_NOT_SUPPORTED
    nvml.nvmlEventSetFree(es)
    assert nvml.nvmlErrorString(nvml.NVML_ERROR_GPU_IS_LOST) == "GPU is lost"


def test_init_refcount_and_uninitialized(nvml: ModuleType) -> None:
    nvml.nvmlInit()
    nvml.nvmlShutdown()
    assert nvml.nvmlDeviceGetCount() == 8  # still one reference
    nvml.nvmlShutdown()
    assert _err(nvml, nvml.nvmlDeviceGetCount) == nvml.NVML_ERROR_UNINITIALIZED
    assert _err(nvml, nvml.nvmlShutdown) == nvml.NVML_ERROR_UNINITIALIZED
    nvml.nvmlInit()


def test_no_profile_is_driver_not_loaded(nvml: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    nvml.nvmlShutdown()
    monkeypatch.delenv("GARHWAL_NVML_PROFILE")
    assert _err(nvml, nvml.nvmlInit) == nvml.NVML_ERROR_DRIVER_NOT_LOADED


def test_faults_change_readings_while_running(nvml: ModuleType, nvml_node: GpuNode) -> None:
    uuid = nvml_node.profile.devices[3].uuid
    h = nvml.nvmlDeviceGetHandleByIndex(3)
    other = nvml.nvmlDeviceGetHandleByIndex(4)
    thermal = inject_gpu_fault(nvml_node, uuid, ThermalSlowdown())
    assert nvml.nvmlDeviceGetCurrentClocksEventReasons(h) == 0x48
    assert nvml.nvmlDeviceGetTemperature(h, 0) == 92
    storm = inject_gpu_fault(nvml_node, uuid, EccStorm(500))
    assert nvml.nvmlDeviceGetTotalEccErrors(h, 0, 0) == 500
    remap = inject_gpu_fault(nvml_node, uuid, RowRemapFailure())
    assert nvml.nvmlDeviceGetRemappedRows(h) == (0, 0, 1, 1)
    xid = inject_gpu_fault(nvml_node, uuid, Xid(48))
    assert nvml.nvmlDeviceGetTotalEccErrors(h, 1, 0) == nvml.nvmlDeviceGetTotalEccErrors(h, 1, 1) == 1
    assert nvml.nvmlDeviceGetCurrentClocksEventReasons(other) == 0
    for r in (xid, remap, storm, thermal):
        r.undo()
    assert nvml.nvmlDeviceGetCurrentClocksEventReasons(h) == 0
    assert nvml.nvmlDeviceGetRemappedRows(h) == (0, 1, 0, 0)  # the uncorrectable remap stays
    assert nvml.nvmlDeviceGetTotalEccErrors(h, 0, 0) == 0 and nvml.nvmlDeviceGetTotalEccErrors(h, 0, 1) == 500
    assert nvml.nvmlDeviceGetTotalEccErrors(h, 1, 0) == 0 and nvml.nvmlDeviceGetTotalEccErrors(h, 1, 1) == 1


def test_fallen_off_the_bus_is_gpu_is_lost(nvml: ModuleType, nvml_node: GpuNode) -> None:
    h = nvml.nvmlDeviceGetHandleByIndex(2)
    rollback = inject_gpu_fault(nvml_node, nvml_node.profile.devices[2].uuid, Xid(79))
    for call in (nvml.nvmlDeviceGetName, nvml.nvmlDeviceGetUUID, nvml.nvmlDeviceGetPciInfo,
                 nvml.nvmlDeviceGetMemoryInfo, nvml.nvmlDeviceGetPowerUsage, nvml.nvmlDeviceGetRemappedRows,
                 nvml.nvmlDeviceGetCurrentClocksEventReasons, nvml.nvmlDeviceGetUtilizationRates):
        assert _err(nvml, call, h) == nvml.NVML_ERROR_GPU_IS_LOST, call.__name__
    assert _err(nvml, nvml.nvmlDeviceGetTemperature, h, 0) == nvml.NVML_ERROR_GPU_IS_LOST
    assert nvml.nvmlDeviceGetPowerUsage(nvml.nvmlDeviceGetHandleByIndex(1)) == 92000
    rollback.undo()
    assert nvml.nvmlDeviceGetName(h) == "NVIDIA H200"


def test_events_arrive_during_a_wait(nvml: ModuleType, nvml_node: GpuNode) -> None:
    es = nvml.nvmlEventSetCreate()
    for i in (5, 6):
        nvml.nvmlDeviceRegisterEvents(nvml.nvmlDeviceGetHandleByIndex(i), nvml.nvmlEventTypeXidCriticalError, es)
    assert _err(nvml, nvml.nvmlEventSetWait_v2, es, 0) == nvml.NVML_ERROR_TIMEOUT
    inject_gpu_fault(nvml_node, nvml_node.profile.devices[1].uuid, Xid(95))  # not registered: not seen
    timer = threading.Timer(0.3, inject_gpu_fault, (nvml_node, nvml_node.profile.devices[6].uuid, Xid(94)))
    start = time.monotonic()
    timer.start()
    ev = nvml.nvmlEventSetWait_v2(es, 5000)
    waited = time.monotonic() - start
    timer.join()
    assert 0.25 < waited < 2.0, waited
    assert ev.eventType == nvml.nvmlEventTypeXidCriticalError and ev.eventData == 94
    assert nvml.nvmlDeviceGetIndex(ev.device) == 6
    assert ev.gpuInstanceId == 0xFFFFFFFF
    assert _err(nvml, nvml.nvmlEventSetWait, es, 50) == nvml.NVML_ERROR_TIMEOUT  # the DBE is not registered
    nvml.nvmlEventSetFree(es)
    assert _err(nvml, nvml.nvmlEventSetFree, es) == nvml.NVML_ERROR_INVALID_ARGUMENT


def test_events_before_the_set_was_made_are_not_delivered(nvml: ModuleType, nvml_node: GpuNode) -> None:
    inject_gpu_fault(nvml_node, nvml_node.profile.devices[0].uuid, Xid(48))
    es = nvml.nvmlEventSetCreate()
    h = nvml.nvmlDeviceGetHandleByIndex(0)
    nvml.nvmlDeviceRegisterEvents(h, nvml.nvmlEventTypeXidCriticalError | nvml.nvmlEventTypeDoubleBitEccError, es)
    assert _err(nvml, nvml.nvmlEventSetWait_v2, es, 0) == nvml.NVML_ERROR_TIMEOUT
    inject_gpu_fault(nvml_node, nvml_node.profile.devices[0].uuid, Xid(48))
    got = [nvml.nvmlEventSetWait_v2(es, 1000) for _ in range(2)]
    assert [(e.eventType, e.eventData) for e in got] == [(0x8, 48), (0x2, 1)]
    nvml.nvmlEventSetFree(es)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_shape_loads(shape: str, nvml: ModuleType, tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    node = GpuNode.create(Path(str(tmp_path)) / shape, f"n-{shape}", shape, 4)
    nvml.nvmlShutdown()
    for k, v in node.env().items():
        monkeypatch.setenv(k, v)
    nvml.nvmlInit()
    assert nvml.nvmlDeviceGetCount() == 4
    h = nvml.nvmlDeviceGetHandleByIndex(3)
    assert nvml.nvmlDeviceGetName(h) == SHAPES[shape].name
    assert nvml.nvmlDeviceGetMemoryInfo(h).total == SHAPES[shape].memory_mib << 20
    assert nvml.nvmlDeviceGetPciInfo(h).pciDeviceId == SHAPES[shape].pci_device_id


def test_a_malformed_profile_fails_init_with_one_line(nvml: ModuleType, nvml_node: GpuNode,
                                                      capfd: pytest.CaptureFixture[str]) -> None:
    nvml.nvmlShutdown()
    nvml_node.profile_path.write_text("devices=1\ndevice.0.colour=blue\n")
    assert _err(nvml, nvml.nvmlInit) == nvml.NVML_ERROR_UNKNOWN
    err = capfd.readouterr().err.strip().splitlines()
    assert err == [f"garhwal-nvml: {nvml_node.profile_path}:2: malformed line"]
