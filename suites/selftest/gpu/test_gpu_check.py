"""scripts/gpu-check without a GPU, and the call-shape probe it compares with."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from types import ModuleType

from fixtures.gpu.shape import compare, probe
from fixtures.nvml.state import GpuNode

ROOT = Path(__file__).resolve().parents[3]


def test_without_a_driver_it_says_so_and_fails() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GARHWAL_NVML_") and k != "LD_LIBRARY_PATH"}
    proc = subprocess.run([str(ROOT / "scripts" / "gpu-check")], env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 1
    assert proc.stdout == ""
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("gpu-check: no NVIDIA driver found (")


def test_the_probe_covers_every_call_and_agrees_with_itself(nvml: ModuleType, nvml_node: GpuNode) -> None:
    nvml.nvmlShutdown()
    ours = probe(nvml)
    nvml.nvmlInit()
    errors = {name: r["error"] for name, r in ours.items() if "error" in r}
    assert errors == {"nvmlDeviceGetRetiredPagesPendingStatus": 3, "nvmlDeviceGetFanSpeed": 3,
                      "nvmlEventSetWait_v2(0ms)": 10}
    assert ours["nvmlDeviceGetPciInfo_v3"]["ok"] == {
        "busIdLegacy": "c_char_Array_16", "domain": "c_uint", "bus": "c_uint", "device": "c_uint",
        "pciDeviceId": "c_uint", "pciSubSystemId": "c_uint", "busId": "c_char_Array_32"}
    assert ours["nvmlDeviceGetRemappedRows"]["ok"] == ["int"] * 4
    assert compare(ours, ours) == []
    changed = dict(ours, nvmlDeviceGetFanSpeed={"ok": "int"})
    assert compare(changed, ours) == [
        "nvmlDeviceGetFanSpeed: real driver {'ok': 'int'}, garhwal library {'error': 3}"]


def test_the_daemonset_manifest_is_valid_1_37() -> None:
    import kubernetes_validate
    import yaml

    docs = list(yaml.safe_load_all((ROOT / "fixtures" / "gpu" / "data" / "gpu-health-agent.yaml").read_text()))
    assert [d["kind"] for d in docs] == ["ServiceAccount", "ClusterRole", "ClusterRoleBinding", "DaemonSet"]
    for d in docs:
        kubernetes_validate.validate(d, "1.37", strict=True)
    args = docs[3]["spec"]["template"]["spec"]["containers"][0]["args"]
    from fixtures.gpu.agent_main import _args

    parsed = _args(args)
    assert (parsed.in_cluster, parsed.publish, parsed.interval, parsed.metrics_port) == (True, "slice", 1.0, 9400)


def test_agent_bad_arguments_exit_2() -> None:
    import sys

    proc = subprocess.run([sys.executable, "-m", "fixtures.gpu.agent_main", "--node", "n", "--publish", "both"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2
    assert "--publish: invalid choice: 'both'" in proc.stderr
