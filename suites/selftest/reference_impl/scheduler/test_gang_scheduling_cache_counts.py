"""GangScheduling's PreEnqueue counts the cache's pod-group state (gangscheduling.go).

Upstream's ``AllPodsCount`` is the state the event handlers keep (eventhandlers.go): a pod
being deleted still counts until its delete arrives; a pod of another scheduler never
enters (only ``addPodToSchedulingQueue`` adds unassigned members); and a pod turning
Succeeded/Failed leaves, as the scheduler's pod informer (``status.phase!=Succeeded,
status.phase!=Failed``, scheduler.go) delivers it as a delete. Each row: a gang of
minCount 2 with a held pod p1 of this scheduler and one other member p2.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_node, make_pod, make_pod_group
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.scheduler.framework.interface import Code
from reference_impl.scheduler.framework.workload_forest import pod_group_key
from reference_impl.scheduler.plugins.gang_scheduling import GangScheduling

Obj = dict[str, Any]
QUORUM = "waiting for minCount pods from a gang to appear in scheduling queue"


def _cluster() -> Cluster:
    c = Cluster({"GenericWorkload": True},
                config=ClusterConfig(nodes=0, runtime_config={"scheduling.k8s.io/v1beta1": "true"}))
    c.apply(make_node("node1").capacity(cpu="4", memory="8Gi", pods="10").build())
    c.apply(make_pod_group("pg", "default", min_count=3))  # 3: nothing ever schedules
    c.settle()
    return c


def _gang(c: Cluster) -> GangScheduling:
    plugin = next(p for p in c.scheduler.framework.plugins if p.name() == "GangScheduling")
    assert isinstance(plugin, GangScheduling)
    return plugin


def _count(c: Cluster) -> int:
    state = c.scheduler.cache.pod_group_states.get(pod_group_key("default", "pg"))
    return 0 if state is None else state.all_pods_count()


def _with_min_count(c: Cluster, n: int) -> None:
    pg = c.api.get("scheduling.k8s.io/v1beta1", "PodGroup", "pg", "default")
    pg["spec"]["schedulingPolicy"]["gang"]["minCount"] = n
    c.scheduler.cache.update_pod_group(pg, pg)  # PreEnqueue reads the cached object


def _p2_deleting(c: Cluster) -> None:
    pod = make_pod("p2", "default").pod_group("pg").build()
    pod["metadata"]["finalizers"] = ["example.com/hold"]
    c.apply(pod)
    c.delete("v1", "Pod", "p2", "default")


def _p2_other_scheduler(c: Cluster) -> None:
    pod = make_pod("p2", "default").pod_group("pg").build()
    pod["spec"]["schedulerName"] = "other-scheduler"
    c.apply(pod)


def _p2_failed(c: Cluster) -> None:
    c.apply(make_pod("p2", "default").pod_group("pg").build())
    pod = c.api.get("v1", "Pod", "p2", "default")
    pod["status"]["phase"] = "Failed"
    c.api.update_status(pod)


@pytest.mark.parametrize(
    ("setup", "count", "passes"),
    [
        pytest.param(_p2_deleting, 2, True, id="a member being deleted still counts"),
        pytest.param(_p2_other_scheduler, 1, False, id="a member of another scheduler does not"),
        pytest.param(_p2_failed, 1, False, id="a member turned Failed leaves the state"),
    ],
)
def test_pre_enqueue_counts_the_cache_state(setup: Any, count: int, passes: bool) -> None:
    c = _cluster()
    c.apply(make_pod("p1", "default").pod_group("pg").build())
    setup(c)
    c.settle()
    assert _count(c) == count
    _with_min_count(c, 2)
    got = _gang(c).pre_enqueue(c.api.get("v1", "Pod", "p1", "default"))
    if passes:
        assert got.is_success()
    else:
        assert (got.code, got.reasons) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (QUORUM,))


def test_failed_unassigned_pod_leaves_the_queue() -> None:
    """The informer's delete takes a pod turned Failed out of the queue as well."""
    c = _cluster()
    c.apply(make_pod("p2", "default").pod_group("pg").build())
    c.settle()
    assert c.scheduler.queue.where("default/p2") != ""
    pod = c.api.get("v1", "Pod", "p2", "default")
    pod["status"]["phase"] = "Failed"
    c.api.update_status(pod)
    c.settle()
    assert c.scheduler.queue.where("default/p2") == ""
    assert _count(c) == 0
