"""Pod-level checkpoint/restore through the CRI (KEP-5823, gate PodLevelCheckpointRestore).

The 1.37 API has no checkpoint endpoint: the suite reaches CheckpointPod/RestorePod only
on targets with the CRI_CHECKPOINT capability, and a runtime answering Unimplemented makes
a test skip with the runtime's reason. The pods' start-up work (start delay, image pull,
model load) is given to the reference's kubelet model by annotations; the assertions
compare only times the target itself stamped (``status.startTime`` to the Ready
condition) of a cold pod and of restored replicas, never the values the test wrote.
No garhwal local cluster declares CRI_CHECKPOINT: containerd 2.4.2, its nodes' runtime,
registers neither RPC (container checkpoints work there: ``test_container_checkpoint.py``).
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

START, PULL, LOAD = 2.0, 30.0, 60.0  # the start-up work the model is given
COLD = START + PULL + LOAD  # only a bound for the waits


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


def test_a_restored_replica_is_ready_sooner_than_a_cold_start(
    target: Target, namespace: str
) -> None:
    """Checkpoint/restore warm start.

    A replica restored from a checkpoint of a Ready pod MUST become Ready sooner than that
    pod did from its cold start (it skips the image pull and the warm-up): its
    time-to-Ready MUST be under half the cold one.
    """
    cri, archive = _checkpoint_warm(target, namespace, "ckpt-source")
    cold = _time_to_ready(target.get("v1", "Pod", "ckpt-source", namespace))
    cri.restore(archive, _model_pod("ckpt-replica", namespace, "kwok-node-0"))
    warm = _time_to_ready(_wait_ready(target, namespace, "ckpt-replica"))
    print(f"time to Ready: cold {cold:g}s, restored {warm:g}s")
    assert warm < cold / 2


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
    start warm (Ready in under half its source's cold time-to-Ready), while the source pod
    keeps running on its own node.
    """
    cri, archive = _checkpoint_warm(target, namespace, "ckpt-move")
    cold = _time_to_ready(target.get("v1", "Pod", "ckpt-move", namespace))
    cri.restore(archive, _model_pod("ckpt-moved", namespace, "kwok-node-2"))
    moved = _wait_ready(target, namespace, "ckpt-moved")
    assert moved["spec"]["nodeName"] == "kwok-node-2"
    assert _time_to_ready(moved) < cold / 2
    assert _ready(target, namespace, "ckpt-move")


def test_a_checkpoint_taken_before_warm_up_is_done_does_not_skip_it(
    target: Target, namespace: str
) -> None:
    """Checkpoint before warm-up.

    A pod checkpointed while Running but not yet Ready MUST have ``warmUpDone: false``,
    and its restored replica MUST still do the warm-up: it MUST become Ready later than a
    replica restored from a checkpoint of the same pod once Ready, yet sooner than the
    pod's own cold start (the image is not pulled again).
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
        early = cri.checkpoint(namespace, "ckpt-early")
    except Unimplemented as exc:
        pytest.skip(str(exc))
    assert early["warmUpDone"] is False
    cri.restore(early, _model_pod("ckpt-early-replica", namespace, "kwok-node-1"))
    redone = _time_to_ready(_wait_ready(target, namespace, "ckpt-early-replica"))
    cold = _time_to_ready(_wait_ready(target, namespace, "ckpt-early"))
    cri.restore(
        cri.checkpoint(namespace, "ckpt-early"),
        _model_pod("ckpt-late-replica", namespace, "kwok-node-1"),
    )
    warm = _time_to_ready(_wait_ready(target, namespace, "ckpt-late-replica"))
    print(f"time to Ready: cold {cold:g}s, early replica {redone:g}s, warm replica {warm:g}s")
    assert warm < redone < cold


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
