"""Forensic container checkpointing through the kubelet (KEP-2008, ContainerCheckpoint).

``POST /checkpoint/{namespace}/{pod}/{container}`` on the kubelet (nodes/checkpoint,
reached through the apiserver's node proxy) asks the runtime to checkpoint one running
container (CRI CheckpointContainer: containerd, runc and CRIU) and answers with the archive
it wrote on the node. The container keeps running: the checkpoint is a copy, not a stop.

What 1.37 does not offer is checked elsewhere or not at all: restoring that archive needs a
runtime that creates containers from checkpoint images (CRI-O does; containerd 2.4.2's CRI
plugin does not), and pod-level CheckpointPod/RestorePod (KEP-5823) are in
``test_checkpoint_restore.py``.
"""

from __future__ import annotations

import re
from typing import Any, Final

import pytest

from fixtures import Capability, Target
from fixtures.targets.extensions import ContainerCheckpoints, container_checkpoints_of
from reference_impl.api import make_pod
from reference_impl.errors import ApiError

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("CKPT-CONTAINER"),
    pytest.mark.requires(Capability.KUBELET, Capability.CONTAINER_CHECKPOINT),
]

IMAGE: Final = "garhwal.dev/counter:v1"  # tools/images/workload: writes a growing count
ARCHIVE: Final = re.compile(r"^/var/lib/kubelet/checkpoints/checkpoint-(?P<pod>.+)_(?P<ns>.+)-(?P<c>.+)-\d{4}-.+\.tar$")
# CRIU's process images and the runtime's own records of the container
CRIU_IMAGES: Final = ("checkpoint/inventory.img", "checkpoint/pstree.img", "checkpoint/pages-1.img")
RUNTIME_FILES: Final = ("config.dump", "spec.dump", "rootfs-diff.tar")


def _checkpoints(target: Target) -> ContainerCheckpoints:
    ext = container_checkpoints_of(target)
    assert ext is not None, "CONTAINER_CHECKPOINT declared without container_checkpoints"
    return ext


def _counter(name: str, namespace: str) -> dict[str, Any]:
    pod = make_pod(name, namespace).image(IMAGE).build()
    container = pod["spec"]["containers"][0]
    container["name"] = "counter"
    container["args"] = ["counter", "/data/count"]
    container["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    pod["spec"]["volumes"] = [{"name": "data", "emptyDir": {}}]
    return pod


def _running(target: Target, namespace: str, name: str) -> dict[str, Any]:
    def running() -> bool:
        statuses = target.get("v1", "Pod", name, namespace).get("status", {}).get("containerStatuses") or []
        return bool(statuses) and "running" in (statuses[0].get("state") or {})

    target.wait_until(running, timeout=60, what=f"{name}'s container running")
    return target.get("v1", "Pod", name, namespace)


def test_a_running_container_is_checkpointed_and_keeps_running(target: Target, namespace: str) -> None:
    """Container checkpoint.

    The kubelet MUST answer a checkpoint request for a running container with one archive
    path under /var/lib/kubelet/checkpoints named after the pod, namespace and container;
    the archive MUST hold CRIU's process images and the runtime's config, spec and rootfs
    diff; the container MUST keep running in the same instance (same start time, no restart).
    """
    ext = _checkpoints(target)
    target.apply(_counter("ckpt", namespace))
    before = _running(target, namespace, "ckpt")["status"]["containerStatuses"][0]

    paths = ext.checkpoint_container(namespace, "ckpt", "counter")
    assert len(paths) == 1, paths
    match = ARCHIVE.match(paths[0])
    assert match and match.group("pod", "ns", "c") == ("ckpt", namespace, "counter"), paths[0]

    members = set(ext.archive_members(before_node := _node(target, namespace, "ckpt"), paths[0]))
    missing = [m for m in (*CRIU_IMAGES, *RUNTIME_FILES) if m not in members]
    assert not missing, f"{paths[0]} on {before_node} lacks {missing}: {sorted(members)}"

    after = _running(target, namespace, "ckpt")["status"]["containerStatuses"][0]
    assert after["restartCount"] == before["restartCount"], (before, after)
    assert after["state"]["running"]["startedAt"] == before["state"]["running"]["startedAt"], (before, after)
    assert after["containerID"] == before["containerID"]


def test_a_container_the_pod_does_not_have_is_refused(target: Target, namespace: str) -> None:
    """Container checkpoint of a missing container.

    A checkpoint request naming a container the pod does not have MUST fail, with a
    message naming it, and MUST leave the pod's container running.
    """
    ext = _checkpoints(target)
    target.apply(_counter("ckpt-missing", namespace))
    _running(target, namespace, "ckpt-missing")
    with pytest.raises(ApiError) as err:
        ext.checkpoint_container(namespace, "ckpt-missing", "no-such-container")
    assert "no-such-container" in str(err.value)
    status = _running(target, namespace, "ckpt-missing")["status"]["containerStatuses"][0]
    assert status["restartCount"] == 0


def _node(target: Target, namespace: str, name: str) -> str:
    return str(target.get("v1", "Pod", name, namespace)["spec"]["nodeName"])
