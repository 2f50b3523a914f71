"""Spot reclaim of a node that runs a gang of 8 pods with DRA GPUs.

The injector plays the node termination handler on the provider's notice (see
``fixtures/chaos/faults/spot.py``): taint + cordon, graceful drain (a ``disruptionMode:
all`` gang goes whole), node deleted, all before the notice window ends. The workload's
operator (the test) starts the gang again; with only 4 free GPUs left it MUST stay entirely unbound, and once
replacement capacity arrives (the reference's cluster autoscaler; on a cluster without
one the test registers the replacement node, as an autoscaler would) all 8 bind.
Bindings are read back from the pods' watch history.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Capability, FakeDriver, Target
from fixtures.chaos import Scope
from fixtures.chaos.faults import SpotReclaim
from fixtures.chaos.faults.spot import TAINT_KEYS
from fixtures.helpers.chaos_probes import node_ready
from reference_impl.api import (
    make_claim_template,
    make_pod_group,
    make_pool_pod,
)

pytestmark = [pytest.mark.disruptive, pytest.mark.feature("KEP-4671")]

Obj = dict[str, Any]
GANG = 8


def _job_pods(target: Target, namespace: str) -> list[Obj]:
    return target.list("v1", "Pod", namespace, label_selector="app=train")


def _gang(target: Target, namespace: str, generation: str) -> None:
    for i in range(GANG):
        tpl = "train-gpu"
        pod = (make_pool_pod(f"train-{generation}{i}", namespace, cpu="100m")
               .claim("gpu", template=tpl).pod_group("train").label("app", "train"))  # fmt: skip
        target.apply(pod.build())


def _bound_running(target: Target, namespace: str, uids: set[str] | None = None) -> list[Obj]:
    return [p for p in _job_pods(target, namespace)
            if p["spec"].get("nodeName") and not p["metadata"].get("deletionTimestamp")
            and (uids is None or p["metadata"]["uid"] not in uids)]  # fmt: skip


def _unschedulable(pod: Obj) -> bool:
    return any(c.get("type") == "PodScheduled" and c.get("reason") == "Unschedulable"
               for c in (pod.get("status") or {}).get("conditions") or [])  # fmt: skip


def _bindings(target: Target, namespace: str, since: str) -> list[tuple[int, str, str]]:
    """(resourceVersion, pod uid, node) for every pod event that first shows a node."""
    seen: dict[str, str] = {}
    out = []
    for ev in target.watch("v1", "Pod", since, namespace=namespace, timeout=1):
        meta = ev.object.get("metadata") or {}
        node = (ev.object.get("spec") or {}).get("nodeName")
        uid = str(meta.get("uid"))
        if ev.type in ("ADDED", "MODIFIED") and node:
            if uid in seen:
                assert seen[uid] == node, f"pod {meta.get('name')} bound twice"
                continue
            seen[uid] = node
            out.append((int(meta["resourceVersion"]), uid, str(node)))
    return out


def _replace_capacity(target: Target, drv: FakeDriver, pool_nodes: Callable[..., Obj]) -> str:
    """Register the replacement node, as an autoscaler would. The reference's cluster
    autoscaler, like upstream's, judges pending pods one by one: each gang member fits in
    the 4 free GPUs of the other node, so none triggers a scale-up; the local live
    cluster runs no autoscaler."""
    node = str(pool_nodes("spot-c")["metadata"]["name"])
    drv.publish([node], gpus=GANG, numa_nodes=1)
    return node


@pytest.mark.requires(Capability.NODE_FAULTS)
def test_spot_reclaim_drains_a_gpu_gang_whole_before_the_window_ends_and_it_rebinds_all_or_nothing(
    target: Target, namespace: str, pool_nodes: Callable[..., Obj], gpu_driver: FakeDriver
) -> None:
    """Spot reclaim of a gang of 8 with DRA GPUs.

    On the provider's notice (AWS 120 s on the reference, GCP 30 s live) the node MUST be
    tainted and cordoned, all 8 gang pods (disruptionMode all) evicted and gone, and the
    node deleted, each before the notice's deadline. The new gang MUST have no pod
    bound while only 4 GPUs are free, then all 8 bound once replacement capacity exists;
    no pod MUST ever be bound twice.
    """
    provider = "aws" if Capability.VIRTUAL_TIME in target.capabilities else "gcp"
    spot = pool_nodes("spot-a")["metadata"]["name"]
    gpu_driver.publish([spot], gpus=GANG, numa_nodes=1)
    target.wait_until(lambda: node_ready(target, spot) == "True", timeout=60, what="spot node Ready")
    tpl = "train-gpu"
    target.apply(make_claim_template(tpl, namespace).request("gpu", f"chaos-gpu-{namespace}").build())
    target.apply(make_pod_group("train", namespace, min_count=GANG, disruption="all"))
    _gang(target, namespace, "a")
    target.wait_until(lambda: len(_bound_running(target, namespace)) == GANG, timeout=90,
                      what="the gang of 8 bound")  # fmt: skip
    first = {p["metadata"]["uid"] for p in _job_pods(target, namespace)}
    assert {p["spec"]["nodeName"] for p in _bound_running(target, namespace)} == {spot}
    other = pool_nodes("spot-b")["metadata"]["name"]
    since = str(gpu_driver.publish([other], gpus=4, numa_nodes=1)[0]["metadata"]["resourceVersion"])
    injector = SpotReclaim()
    scope = Scope(namespaces=(namespace,), nodes=(spot,), params={"provider": provider})
    rollback = injector.prepare(target, scope)
    try:
        injector.apply(target, rollback)
        rep = injector.report
        print(f"spot {provider}: window {rep['window_seconds']:g}s, cordoned "
              f"+{rep['cordoned_at'] - rep['issued']:.1f}s, drained "
              f"+{(rep['drained_at'] or 0) - rep['issued']:.1f}s, node deleted "
              f"+{rep['node_deleted_at'] - rep['issued']:.1f}s")  # fmt: skip
        assert rep["window_seconds"] == {"aws": 120, "gcp": 30}[provider]
        assert rep["drained_at"] is not None and rep["drained_at"] <= rep["deadline"]
        assert rep["node_deleted_at"] <= rep["deadline"]
        assert len(rep["evicted"]) == GANG and not rep["pdb_blocked"]
        assert node_ready(target, spot) == "Gone"
        _gang(target, namespace, "r")  # the training operator starts the gang again
        target.wait_until(
            lambda: len(new := [p for p in _job_pods(target, namespace)
                                if p["metadata"]["uid"] not in first]) == GANG
            and all(_unschedulable(p) for p in new),
            timeout=60, what="the new gang pending, Unschedulable",
        )  # fmt: skip
        assert not _bound_running(target, namespace, first)  # 4 GPUs free: nothing binds
        _replace_capacity(target, gpu_driver, pool_nodes)
        target.wait_until(lambda: len(_bound_running(target, namespace, first)) == GANG,
                          timeout=120, what="the new gang bound")  # fmt: skip
        binds = _bindings(target, namespace, since)
        new_binds = [b for b in binds if b[1] not in first]
        assert len(new_binds) == GANG
        nodes_now = {n["metadata"]["name"]: int(n["metadata"]["resourceVersion"])
                     for n in target.list("v1", "Node")}  # fmt: skip
        assert {b[2] for b in new_binds} <= set(nodes_now)
    finally:
        injector.revert(target, rollback)
    node = target.get("v1", "Node", spot)  # revert registered it again, untainted
    assert not any(t.get("key") == TAINT_KEYS[provider] for t in node["spec"].get("taints") or [])
