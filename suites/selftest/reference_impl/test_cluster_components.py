"""ClusterConfig's component flags: kube-controller-manager ``--controllers`` and kube-apiserver
``--disable-admission-plugins``, and the benchmarks' scheduler_perf cluster built from them."""

from __future__ import annotations

import pytest

from fixtures.bench.cluster import bench_cluster
from reference_impl.api import make_namespace, make_pod
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.controllers import controller_enabled

pytestmark = pytest.mark.model


def test_the_controllers_flag_reads_as_kube_controller_managers() -> None:
    assert controller_enabled("replicaset-controller", ("*",))
    assert not controller_enabled("replicaset-controller", ("*", "-replicaset-controller"))
    assert controller_enabled("replicaset-controller", ("replicaset-controller",))
    assert not controller_enabled("replicaset-controller", ("namespace-controller",))


def test_only_the_named_controllers_run() -> None:
    cluster = Cluster(config=ClusterConfig(nodes=0, controllers=("*", "-replicaset-controller")))
    names = {c.name for c in cluster.controllers}
    assert "replicaset-controller" not in names and "garbage-collector-controller" in names
    only = Cluster(config=ClusterConfig(nodes=0, controllers=("namespace-controller",)))
    assert [c.name for c in only.controllers] == ["namespace-controller"]


def test_unknown_component_names_refuse_to_start() -> None:
    with pytest.raises(ValueError, match="unknown controllers"):
        Cluster(config=ClusterConfig(controllers=("*", "-replicaset")))
    with pytest.raises(ValueError, match="unknown plugins"):
        Cluster(config=ClusterConfig(disable_admission_plugins=frozenset({"Priorities"})))


def test_a_disabled_admission_plugin_leaves_pods_as_written() -> None:
    def created(cluster: Cluster) -> dict[str, object]:
        cluster.api.create(make_namespace("ns").build())
        cluster.settle()  # the namespace's default ServiceAccount
        return cluster.api.create(make_pod("p", "ns").build())["spec"]

    on = created(Cluster(config=ClusterConfig(nodes=0)))
    off = created(Cluster(config=ClusterConfig(nodes=0, disable_admission_plugins=frozenset({"Priority"}))))
    assert on["priority"] == 0 and on["preemptionPolicy"] == "PreemptLowerPriority"
    assert "priority" not in off and "preemptionPolicy" not in off


def test_the_bench_cluster_runs_what_scheduler_perf_runs() -> None:
    """No kubelet-less-cluster extras: the garbage collector, namespace, ResourceClaim and
    PV-binding controllers only; pods need no service account and get no priority."""
    cluster = bench_cluster()
    assert sorted(c.name for c in cluster.controllers) == [
        "fake-provisioner",
        "garbage-collector-controller",
        "namespace-controller",
        "resourceclaim-controller",
    ]
    cluster.api.create(make_namespace("ns").build())
    spec = cluster.api.create(make_pod("p", "ns").build())["spec"]
    assert "serviceAccountName" not in spec and "priority" not in spec
