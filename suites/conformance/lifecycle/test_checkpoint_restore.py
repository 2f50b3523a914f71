"""Pod-level checkpoint/restore through the CRI (KEP-5823, gate PodLevelCheckpointRestore).

The 1.37 API has no checkpoint endpoint: the suite reaches CheckpointPod/RestorePod only
on targets with the CRI_CHECKPOINT capability, and a runtime answering Unimplemented makes
a test skip with the runtime's reason. Start-up is modelled by annotations: start delay,
image pull and model load (the warm-up).
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Capability, Checkpointer, Target, checkpointer, seconds_between
from reference_impl.api import condition, make_pod
from reference_impl.errors import Unimplemented

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("CKPT"),
    pytest.mark.requires(Capability.CRI_CHECKPOINT),
]

START, PULL, LOAD = 2.0, 30.0, 60.0
COLD = START + PULL + LOAD


def _model_pod(name: str, namespace: str, node: str | None = None) -> dict[str, Any]:
    b = (
        make_pod(name, namespace)
        .req(cpu="1", memory="2Gi")
        .annotation("garhwal.dev/start-seconds", str(START))
        .annotation("garhwal.dev/image-pull-seconds", str(PULL))
        .annotation("garhwal.dev/model-load-seconds", str(LOAD))
    )
    return (b.node(node) if node else b).build()


def _ready(target: Target, namespace: str, name: str) -> bool:
    c = condition(target.get("v1", "Pod", name, namespace), "Ready")
    return c is not None and c["status"] == "True"


def _wait_ready(target: Target, namespace: str, name: str) -> dict[str, Any]:
    target.wait_until(
        lambda: _ready(target, namespace, name), timeout=COLD * 2, what=f"{name} Ready"
    )
    return target.get("v1", "Pod", name, namespace)


def _time_to_ready(pod: dict[str, Any]) -> float:
    """Seconds from the kubelet accepting the pod (status.startTime) to Ready=True."""
    ready = condition(pod, "Ready")
    assert ready is not None
    return seconds_between(pod["status"]["startTime"], ready["lastTransitionTime"])


def _cri(target: Target) -> Checkpointer:
    try:
        return checkpointer(target)
    except Unimplemented as exc:
        pytest.skip(str(exc))


def _checkpoint_warm(
    target: Target, namespace: str, name: str
) -> tuple[Checkpointer, dict[str, Any]]:
    cri = _cri(target)
    target.apply(_model_pod(name, namespace, "kwok-node-0"))
    _wait_ready(target, namespace, name)
    try:
        return cri, cri.checkpoint(namespace, name)
    except Unimplemented as exc:
        pytest.skip(str(exc))


def test_a_restored_replica_is_ready_after_the_start_delay_only(
    target: Target, namespace: str
) -> None:
    """Checkpoint/restore warm start.

    A cold pod MUST take start + image pull + model load to become Ready; a replica
    restored from a checkpoint of a warm pod MUST become Ready after the start delay only.
    """
    cri, archive = _checkpoint_warm(target, namespace, "ckpt-source")
    cold = _time_to_ready(target.get("v1", "Pod", "ckpt-source", namespace))
    cri.restore(archive, _model_pod("ckpt-replica", namespace, "kwok-node-0"))
    warm = _time_to_ready(_wait_ready(target, namespace, "ckpt-replica"))
    assert cold == pytest.approx(COLD, abs=1.0)
    assert warm == pytest.approx(START, abs=1.0)


def test_the_archive_records_state_memory_and_warm_up_done(target: Target, namespace: str) -> None:
    """Checkpoint archive contents.

    The archive of a Ready pod MUST record the pod (name, uid), its node, the state
    Running, its memory size (the containers' memory requests, 2Gi here) and that its
    warm-up (model load) is done.
    """
    _, archive = _checkpoint_warm(target, namespace, "ckpt-archive")
    pod = target.get("v1", "Pod", "ckpt-archive", namespace)
    assert archive["pod"] == {
        "namespace": namespace,
        "name": "ckpt-archive",
        "uid": pod["metadata"]["uid"],
    }
    assert archive["node"] == "kwok-node-0"
    assert archive["state"] == "Running"
    assert archive["memoryBytes"] == 2 * 1024**3
    assert archive["warmUpDone"] is True


def test_a_checkpoint_restores_onto_another_node(target: Target, namespace: str) -> None:
    """Checkpoint restore on another node.

    A replica restored with ``spec.nodeName`` naming a different node MUST run there and
    start warm, while the source pod keeps running on its own node.
    """
    cri, archive = _checkpoint_warm(target, namespace, "ckpt-move")
    cri.restore(archive, _model_pod("ckpt-moved", namespace, "kwok-node-2"))
    moved = _wait_ready(target, namespace, "ckpt-moved")
    assert moved["spec"]["nodeName"] == "kwok-node-2"
    assert _time_to_ready(moved) == pytest.approx(START, abs=1.0)
    assert _ready(target, namespace, "ckpt-move")


def test_a_checkpoint_taken_before_warm_up_is_done_does_not_skip_it(
    target: Target, namespace: str
) -> None:
    """Checkpoint before warm-up.

    A pod checkpointed while Running but not yet Ready MUST have ``warmUpDone: false``,
    and its restored replica MUST still do the model load (start + load, no pull).
    """
    cri = _cri(target)
    target.apply(_model_pod("ckpt-early", namespace, "kwok-node-1"))
    target.wait_until(
        lambda: (
            (target.get("v1", "Pod", "ckpt-early", namespace).get("status") or {}).get("phase")
            == "Running"
        ),
        timeout=COLD,
        what="ckpt-early Running",
    )
    try:
        archive = cri.checkpoint(namespace, "ckpt-early")
    except Unimplemented as exc:
        pytest.skip(str(exc))
    assert archive["warmUpDone"] is False
    cri.restore(archive, _model_pod("ckpt-early-replica", namespace, "kwok-node-1"))
    replica = _wait_ready(target, namespace, "ckpt-early-replica")
    assert _time_to_ready(replica) == pytest.approx(START + LOAD, abs=1.0)


@pytest.mark.feature_gates(PodLevelCheckpointRestore=False)
def test_with_the_gate_off_checkpoint_pod_answers_unimplemented(
    target: Target, namespace: str
) -> None:
    """Checkpoint unsupported.

    With PodLevelCheckpointRestore off the runtime path MUST answer CheckpointPod with a
    gRPC-style Unimplemented error (and a suite then skips with that reason).
    """
    cri = _cri(target)
    target.apply(_model_pod("ckpt-off", namespace, "kwok-node-0"))
    _wait_ready(target, namespace, "ckpt-off")
    with pytest.raises(Unimplemented) as err:
        cri.checkpoint(namespace, "ckpt-off")
    assert "code = Unimplemented" in str(err.value)
    assert "CheckpointPod" in str(err.value)
