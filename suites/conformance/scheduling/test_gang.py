"""Gang scheduling (KEP-4671): Workload and PodGroup, minCount, all-or-nothing placement."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fixtures import Target
from reference_impl.api import condition, make_pod_group, make_pool_pod, make_workload
from reference_impl.errors import Invalid

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-4671")]
PG = "scheduling.k8s.io/v1beta1"


def _bound(target: Target, namespace: str) -> dict[str, str]:
    return {
        p["metadata"]["name"]: p["spec"]["nodeName"]
        for p in target.list("v1", "Pod", namespace)
        if p["spec"].get("nodeName")
    }


def _initially(target: Target, namespace: str, name: str) -> str:
    pg = target.get(PG, "PodGroup", name, namespace)
    return str((condition(pg, "PodGroupInitiallyScheduled") or {}).get("status", ""))


def _gang(target: Target, namespace: str, group: str, pods: int, cpu: str = "1") -> None:
    for i in range(pods):
        target.apply(make_pool_pod(f"{group}-{i}", namespace, cpu).pod_group(group).build())


def test_a_32_pod_gang_on_30_nodes_binds_nothing_then_all_32_when_2_nodes_appear(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """All-or-nothing gang placement.

    A gang of 32 pods (minCount 32), each filling one node, on 30 free nodes MUST bind no
    pod at all and MUST report PodGroupInitiallyScheduled=False; once 2 more nodes appear
    all 32 pods MUST bind, one per node, and the condition MUST become True.
    """
    for _ in range(30):
        pool(cpu="1")
    target.apply(make_pod_group("big", namespace, min_count=32))
    _gang(target, namespace, "big", 32)
    target.wait_until(
        lambda: _initially(target, namespace, "big") == "False",
        timeout=120,
        what="PodGroupInitiallyScheduled=False",
    )
    assert _bound(target, namespace) == {}
    pool(cpu="1")
    pool(cpu="1")
    target.wait_until(
        lambda: len(_bound(target, namespace)) == 32, timeout=180, what="32 pods bound"
    )
    assert len(set(_bound(target, namespace).values())) == 32
    target.wait_until(
        lambda: _initially(target, namespace, "big") == "True",
        timeout=60,
        what="PodGroupInitiallyScheduled=True",
    )


def test_pods_wait_for_their_pod_group_and_for_min_count_members(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """PreEnqueue holds gang members.

    Pods naming a PodGroup that does not exist yet MUST NOT bind; after the PodGroup
    (minCount 3) is created with only 2 members they MUST still not bind; when the third
    member appears all 3 MUST bind.
    """
    for _ in range(3):
        pool(cpu="1")
    _gang(target, namespace, "late", 2)
    target.apply(make_pool_pod("solo", namespace).build())
    target.wait_until(
        lambda: "solo" in _bound(target, namespace), timeout=60, what="plain pod bound"
    )
    target.apply(make_pod_group("late", namespace, min_count=3))
    target.apply(make_pool_pod("other", namespace, "0").build())
    target.wait_until(
        lambda: "other" in _bound(target, namespace), timeout=60, what="second plain pod bound"
    )
    assert set(_bound(target, namespace)) == {"solo", "other"}
    target.delete("v1", "Pod", "solo", namespace)
    target.apply(make_pool_pod("late-2", namespace).pod_group("late").build())
    target.wait_until(
        lambda: {"late-0", "late-1", "late-2"} <= set(_bound(target, namespace)),
        timeout=120,
        what="gang of 3 bound",
    )


def test_lowering_min_count_lets_a_waiting_gang_schedule(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """Mutating minCount.

    ``gang.minCount`` MUST be mutable: a gang of 3 pods waiting for minCount 4 MUST NOT
    bind, and after minCount is lowered to 3 all 3 pods MUST bind.
    """
    for _ in range(3):
        pool(cpu="1")
    target.apply(make_pod_group("resize", namespace, min_count=4))
    _gang(target, namespace, "resize", 3)
    target.apply(make_pool_pod("marker", namespace, "0").build())
    target.wait_until(
        lambda: "marker" in _bound(target, namespace), timeout=60, what="marker bound"
    )
    assert set(_bound(target, namespace)) == {"marker"}
    pg = target.get(PG, "PodGroup", "resize", namespace)
    pg["spec"]["schedulingPolicy"]["gang"]["minCount"] = 3
    stored = target.apply(pg)
    assert stored["spec"]["schedulingPolicy"] == {"gang": {"minCount": 3}}
    target.wait_until(lambda: len(_bound(target, namespace)) == 4, timeout=120, what="gang bound")


def test_initially_scheduled_is_terminal_once_true(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """PodGroupInitiallyScheduled is terminal.

    After a gang of 2 binds, PodGroupInitiallyScheduled MUST be True, and it MUST stay
    True after a member pod is deleted.
    """
    for _ in range(2):
        pool(cpu="1")
    target.apply(make_pod_group("term", namespace, min_count=2))
    _gang(target, namespace, "term", 2)
    target.wait_until(
        lambda: _initially(target, namespace, "term") == "True",
        timeout=120,
        what="PodGroupInitiallyScheduled=True",
    )
    target.delete("v1", "Pod", "term-0", namespace)
    target.wait_until(
        lambda: (
            "term-0" not in {p["metadata"]["name"] for p in target.list("v1", "Pod", namespace)}
        ),
        timeout=120,
        what="member deleted",
    )
    assert _initially(target, namespace, "term") == "True"


def test_basic_pod_groups_are_not_gangs(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """basic groups schedule pod by pod.

    Pods of a PodGroup with ``schedulingPolicy: {basic: {}}`` MUST schedule one by one:
    with 2 one-pod nodes, 2 of 3 pods MUST bind.
    """
    pool(cpu="1")
    pool(cpu="1")
    target.apply(make_pod_group("plain", namespace))
    _gang(target, namespace, "plain", 3)
    target.wait_until(lambda: len(_bound(target, namespace)) == 2, timeout=120, what="2 pods bound")


def test_pod_group_and_workload_validation(target: Target, namespace: str) -> None:
    """PodGroup and Workload validation.

    A PodGroup with both ``basic`` and ``gang`` MUST be rejected on
    spec.schedulingPolicy; minCount 0 MUST be rejected; switching the variant of an
    existing group MUST be rejected while changing minCount MUST be accepted; a Workload
    with no templates MUST be rejected and one with a gang template MUST be accepted.
    """
    bad = make_pod_group("both", namespace, min_count=2)
    bad["spec"]["schedulingPolicy"]["basic"] = {}
    with pytest.raises(Invalid) as e:
        target.apply(bad)
    assert "spec.schedulingPolicy" in {c.field for c in e.value.causes}
    with pytest.raises(Invalid) as e:
        target.apply(make_pod_group("zero", namespace, min_count=0))
    assert "spec.schedulingPolicy.gang.minCount" in {c.field for c in e.value.causes}
    target.apply(make_pod_group("ok", namespace, min_count=2))
    pg = target.get(PG, "PodGroup", "ok", namespace)
    assert pg["spec"]["disruptionMode"] == {"single": {}}
    pg["spec"]["schedulingPolicy"] = {"basic": {}}
    with pytest.raises(Invalid):
        target.apply(pg)
    with pytest.raises(Invalid):
        target.apply({**make_workload("empty", namespace, {}), "spec": {}})
    wl = target.apply(make_workload("train", namespace, {"workers": 4}))
    assert wl["spec"]["podGroupTemplates"][0]["schedulingPolicy"] == {"gang": {"minCount": 4}}
