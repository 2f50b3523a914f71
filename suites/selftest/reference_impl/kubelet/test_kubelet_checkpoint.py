"""Selftests of the kubelet's CRI checkpoint/restore model (reference_impl/kubelet/checkpoint.py)."""

from __future__ import annotations

import pytest

from reference_impl.api import make_pod
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.errors import BadRequest, NotFound, Unimplemented
from reference_impl.kubelet import KubeletConfig

GATES = {"PodLevelCheckpointRestore": True}


def _running(cluster: Cluster, name: str) -> None:
    cluster.create(make_pod(name, "default").node("kwok-node-0").build())
    cluster.advance(5)


def test_a_runtime_without_support_answers_unimplemented() -> None:
    cluster = Cluster(
        GATES, config=ClusterConfig(kubelet=KubeletConfig(checkpoint_supported=False))
    )
    _running(cluster, "p")
    with pytest.raises(Unimplemented, match="CheckpointPod"):
        cluster.kubelet.checkpoint_pod("default", "p")
    with pytest.raises(Unimplemented, match="RestorePod"):
        cluster.kubelet.restore_manifest({"name": "x"}, make_pod("q", "default").build())


def test_only_a_running_pod_with_a_sandbox_is_checkpointed() -> None:
    cluster = Cluster(GATES)
    # Unschedulable (no node has 1000 CPUs): no sandbox, nothing to checkpoint.
    cluster.create(make_pod("pending", "default").req(cpu="1000").build())
    with pytest.raises(BadRequest, match="FailedPrecondition"):
        cluster.kubelet.checkpoint_pod("default", "pending")
    with pytest.raises(NotFound):
        cluster.kubelet.checkpoint_pod("default", "missing")
    _running(cluster, "run")
    archive = cluster.kubelet.checkpoint_pod("default", "run")
    assert archive["warmUpDone"] is True and archive["node"] == "kwok-node-0"


def test_restoring_an_unknown_archive_is_not_found_and_creates_nothing() -> None:
    cluster = Cluster(GATES)
    with pytest.raises(NotFound):
        cluster.kubelet.restore_manifest({"name": "nope"}, make_pod("r", "default").build())
    assert cluster.api.try_get("v1", "Pod", "r", "default") is None
