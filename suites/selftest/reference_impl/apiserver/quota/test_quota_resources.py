"""ResourceList arithmetic, after upstream's ``k8s.io/apiserver/pkg/quota/v1/resources_test.go``
tables, plus Go's format rules in sums, the wire and pretty-print forms, and CalculateUsage."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import MakeEnv
from reference_impl.api.quantity import Quantity
from reference_impl.apiserver.quota import resources as r
from reference_impl.apiserver.quota.types import ResourceList


def rl(**kw: str) -> ResourceList:
    """A ResourceList from wire strings (``ephemeral_storage`` -> ``ephemeral-storage``)."""
    return r.from_wire({k.replace("_", "-"): v for k, v in kw.items()})


@pytest.mark.parametrize(("a", "b", "want"), [
    (rl(), rl(), True),  # isEqual
    (rl(cpu="100m", memory="1Gi"), rl(cpu="100m", memory="1Gi"), True),  # isEqualWithKeys
    (rl(cpu="200m", memory="1Gi"), rl(cpu="100m", memory="1Gi"), False),  # isNotEqualSameKeys
    (rl(cpu="100m", memory="1Gi"), rl(cpu="100m", memory="1Gi", pods="1"), False),  # DiffKeys
])  # fmt: skip
def test_equals(a: ResourceList, b: ResourceList, want: bool) -> None:
    assert r.equals(a, b) is want


@pytest.mark.parametrize(("a", "b", "want", "out"), [
    (rl(), rl(), True, []),
    (rl(cpu="100m"), rl(cpu="100m"), True, []),
    (rl(cpu="100m"), rl(cpu="200m"), True, []),
    (rl(cpu="200m"), rl(cpu="100m"), False, ["cpu"]),
    (rl(cpu="2", memory="2Gi", pods="1"), rl(cpu="1", memory="1Gi"), False, ["cpu", "memory"]),
])  # fmt: skip
def test_less_than_or_equal(a: ResourceList, b: ResourceList, want: bool, out: list[str]) -> None:
    assert r.less_than_or_equal(a, b) == (want, out)


@pytest.mark.parametrize(("a", "b", "want"), [
    (rl(), rl(), rl()),
    (rl(cpu="100m"), rl(), rl(cpu="100m")),
    (rl(cpu="100m"), rl(cpu="150m"), rl(cpu="150m")),
    (rl(cpu="150m"), rl(cpu="100m"), rl(cpu="150m")),
    (rl(cpu="100m"), rl(cpu="100m"), rl(cpu="100m")),
])  # fmt: skip
def test_max(a: ResourceList, b: ResourceList, want: ResourceList) -> None:
    assert r.equals(r.max_(a, b), want)


@pytest.mark.parametrize(("a", "b", "want"), [
    (rl(), rl(), rl()),
    (rl(cpu="100m"), rl(), rl(cpu="100m")),
    (rl(cpu="100m"), rl(cpu="100m"), rl(cpu="200m")),
])  # fmt: skip
def test_add(a: ResourceList, b: ResourceList, want: ResourceList) -> None:
    assert r.equals(r.add(a, b), want)


@pytest.mark.parametrize(("a", "b", "want"), [
    (rl(), rl(), rl()),
    (rl(cpu="100m"), rl(), rl(cpu="100m")),
    (rl(), rl(cpu="100m"), rl(cpu="-100m")),
    (rl(cpu="200m"), rl(cpu="100m"), rl(cpu="100m")),
])  # fmt: skip
def test_subtract(a: ResourceList, b: ResourceList, want: ResourceList) -> None:
    assert r.equals(r.subtract(a, b), want)


def test_subtract_with_non_negative_result() -> None:
    got = r.subtract_with_non_negative_result(rl(cpu="1", memory="1Gi"), rl(cpu="2", pods="3"))
    assert r.to_wire(got) == {"cpu": "0", "memory": "1Gi", "pods": "0"}


def test_resource_names_contains_prefix() -> None:
    assert set(r.resource_names(rl(cpu="100m", memory="1Gi"))) == {"memory", "cpu"}
    assert r.resource_names(rl()) == []
    assert not r.contains(["memory"], "cpu")
    assert r.contains(["memory", "cpu"], "cpu")
    assert not r.contains_prefix(["hugepages-"], "cpu")
    assert r.contains_prefix(["hugepages-"], "hugepages-2Mi")


@pytest.mark.parametrize(("a", "want"), [
    (rl(), True), (rl(cpu="0", memory="0"), True), (rl(cpu="200m", memory="1Gi"), False),
])  # fmt: skip
def test_is_zero(a: ResourceList, want: bool) -> None:
    assert r.is_zero(a) is want


@pytest.mark.parametrize(("a", "want"), [
    (rl(), rl()),
    (rl(cpu="0", memory="0"), rl()),
    (rl(cpu="0", memory="0", storage="100Gi"), rl(storage="100Gi")),
    (rl(cpu="200m", memory="1Gi"), rl(cpu="200m", memory="1Gi")),
])  # fmt: skip
def test_remove_zeros(a: ResourceList, want: ResourceList) -> None:
    assert r.equals(r.remove_zeros(a), want)


@pytest.mark.parametrize(("a", "want"), [
    (rl(), set()), (rl(cpu="-10", memory="0"), {"cpu"}),
    (rl(cpu="-200m", memory="-1Gi"), {"cpu", "memory"}),
])  # fmt: skip
def test_is_negative(a: ResourceList, want: set[str]) -> None:
    assert r.to_set(r.is_negative(a)) == want


C, M = "cpu", "memory"


@pytest.mark.parametrize(("a", "b", "inter", "diff"), [
    ([], [], [], []),  # empty
    ([C, M], [C, M], [C, M], []),  # equal
    ([C, M], [C], [C], [M]),  # a has extra
    ([C], [C, M], [C], []),  # b has extra
    ([C, C, M, M], [C], [C], [M]),  # dedupes
    ([M, M, C, C], [M, M, C, C], [C, M], []),  # sorts
    ([M, M, C, C], [], [], [C, M]),  # sorts (difference)
])  # fmt: skip
def test_intersection_difference(
    a: list[str], b: list[str], inter: list[str], diff: list[str]
) -> None:
    assert r.intersection(a, b) == inter
    assert r.difference(a, b) == diff


def test_formats_follow_go() -> None:
    """``Quantity.Add`` keeps the receiver's format unless it is zero."""
    total = r.add(rl(memory="1Gi"), rl(memory="1Mi"))["memory"]
    assert (total.fmt, str(total)) == ("BinarySI", "1025Mi")
    zero_first = r.add(rl(memory="0"), rl(memory="1Gi"))["memory"]
    assert (zero_first.fmt, str(zero_first)) == ("BinarySI", "1Gi")
    assert str(r.add(rl(cpu="500m"), rl(cpu="1500m"))["cpu"]) == "2"
    assert r.q_add(r.ZERO, Quantity.of("1Ki")).fmt == "BinarySI"


def test_wire_forms() -> None:
    got = r.from_wire({"memory": "1024Mi", "cpu": "1500m", "bad": "x1", "pods": 3})
    assert r.to_wire(got) == {"cpu": "1500m", "memory": "1Gi", "pods": "3"}
    assert list(r.to_wire(got)) == ["cpu", "memory", "pods"]
    assert r.from_wire(None) == {}
    assert r.pretty_print(got) == "cpu=1500m,memory=1Gi,pods=3"
    assert r.pretty_print_resource_names(["pods", "cpu"]) == "cpu,pods"
    assert r.mask(got, ["cpu", "nothing"]) == {"cpu": got["cpu"]}


def _pod(name: str, cpu: str, phase: str = "Running") -> dict[str, Any]:
    res = {"requests": {"cpu": cpu}, "limits": {"cpu": cpu}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ns"},
            "spec": {"containers": [{"name": "c", "resources": res}]}, "status": {"phase": phase}}  # fmt: skip


def test_calculate_usage(make_env: MakeEnv) -> None:
    """Only the hard names some evaluator tracks, zero when unused; object counts for
    served resources (deployments) and none for unknown ones."""
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "ns"}}
    dep = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d", "namespace": "ns"},
    }
    other = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d", "namespace": "o"},
    }
    env = make_env([_pod("a", "1"), _pod("b", "500m"), _pod("c", "1", "Failed"), cm, dep, other])
    hard = rl(cpu="10", pods="10", configmaps="5", services="2", widgets="1")
    hard.update(
        r.from_wire({"count/deployments.apps": "3", "count/pods": "9", "count/foos.x.io": "1"})
    )
    got = r.calculate_usage("ns", [], hard, env)
    assert r.to_wire(got) == {
        "configmaps": "1", "count/deployments.apps": "1", "count/pods": "3", "cpu": "1500m",
        "pods": "2", "services": "0",
    }  # fmt: skip
    # A scoped quota: evaluators without scopes (MatchesNoScopeFunc) count nothing.
    scoped = r.calculate_usage("ns", ["BestEffort"], hard, env)
    assert r.to_wire(scoped) == {"configmaps": "0", "count/deployments.apps": "0",
                                 "count/pods": "0", "cpu": "0", "pods": "0", "services": "0"}  # fmt: skip
