"""CompositePodGroup (KEP-6012): minGroupCount over child gangs, at most 4 levels."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fixtures import Target
from reference_impl.api import (
    make_child_pod_group,
    make_composite_pod_group,
    make_pod_group,
    make_pool_pod,
)
from reference_impl.errors import Invalid

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("KEP-6012"),
    # v1.37.2 refuses CompositePodGroup without TopologyAwareWorkloadScheduling (a gate
    # dependency), so a cluster that serves composites has both on.
    pytest.mark.feature_gates(GenericWorkload=True, TopologyAwareWorkloadScheduling=True),
]


def _bound(target: Target, namespace: str) -> dict[str, str]:
    return {
        p["metadata"]["name"]: p["spec"]["nodeName"]
        for p in target.list("v1", "Pod", namespace)
        if p["spec"].get("nodeName")
    }


def _members(target: Target, namespace: str, group: str, pods: int, first: int = 0) -> None:
    for i in range(first, first + pods):
        target.apply(make_pool_pod(f"{group}-{i}", namespace).pod_group(group).build())


def _marker(target: Target, namespace: str, name: str) -> None:
    """A zero-cpu plain pod: once it binds, the scheduler has seen everything before it."""
    target.apply(make_pool_pod(name, namespace, "0").build())
    target.wait_until(lambda: name in _bound(target, namespace), timeout=60, what=f"{name} bound")


def _composite(target: Target, namespace: str, min_groups: int, children: dict[str, int]) -> None:
    target.apply(make_composite_pod_group("root", namespace, min_group_count=min_groups))
    for child, min_count in sorted(children.items()):
        target.apply(make_child_pod_group(child, namespace, "root", min_count))


def test_a_composite_binds_nothing_until_min_group_count_children_fit_together(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """minGroupCount is all-or-nothing over the children.

    A CompositePodGroup with minGroupCount 2 over two gangs of 2 one-node pods, on 3 free
    nodes (room for one child but not both), MUST bind no pod of either child; after a
    fourth node appears all 4 pods MUST bind.
    """
    for _ in range(3):
        pool(cpu="1")
    _composite(target, namespace, 2, {"ca": 2, "cb": 2})
    _members(target, namespace, "ca", 2)
    _members(target, namespace, "cb", 2)
    _marker(target, namespace, "marker")
    assert set(_bound(target, namespace)) == {"marker"}
    pool(cpu="1")
    target.wait_until(
        lambda: len(_bound(target, namespace)) == 5, timeout=180, what="both children bound"
    )


def test_with_min_group_count_1_one_whole_child_binds_and_the_other_waits(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """Only whole children count.

    With minGroupCount 1 over two gangs of 2 one-node pods and 2 free nodes, exactly one
    child MUST bind completely (both of its pods) and the other child MUST bind no pod.
    """
    for _ in range(2):
        pool(cpu="1")
    _composite(target, namespace, 1, {"ca": 2, "cb": 2})
    _members(target, namespace, "ca", 2)
    _members(target, namespace, "cb", 2)
    target.wait_until(
        lambda: len(_bound(target, namespace)) == 2, timeout=120, what="one child bound"
    )
    _marker(target, namespace, "marker")
    groups = {p.rsplit("-", 1)[0] for p in _bound(target, namespace) if p != "marker"}
    assert len(groups) == 1
    assert len(_bound(target, namespace)) == 3


def test_each_child_must_meet_its_own_min_count(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """A child below its own gang minimum does not count.

    With minGroupCount 2 over gangs ca (minCount 2, 2 pods) and cb (minCount 2, only 1
    pod yet) and ample room, no pod MUST bind; when cb's second pod is created, all 4 pods
    MUST bind.
    """
    for _ in range(5):
        pool(cpu="1")
    _composite(target, namespace, 2, {"ca": 2, "cb": 2})
    _members(target, namespace, "ca", 2)
    _members(target, namespace, "cb", 1)
    _marker(target, namespace, "marker")
    assert set(_bound(target, namespace)) == {"marker"}
    _members(target, namespace, "cb", 1, first=1)
    target.wait_until(
        lambda: len(_bound(target, namespace)) == 5, timeout=180, what="both children bound"
    )


def test_a_hierarchy_deeper_than_4_composite_levels_never_schedules(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """The depth limit is 4.

    A PodGroup under a chain of 4 CompositePodGroups MUST bind its pod; one under a chain
    of 5 MUST NOT bind, even with free room.
    """
    for _ in range(3):
        pool(cpu="1")
    for chain, depth in (("ok", 4), ("deep", 5)):
        parent = ""
        for level in range(1, depth + 1):
            name = f"{chain}{level}"
            target.apply(
                make_composite_pod_group(name, namespace, min_group_count=1, parent=parent)
            )
            parent = name
        target.apply(make_child_pod_group(f"{chain}-pg", namespace, parent, 1))
        target.apply(make_pool_pod(f"{chain}-pod", namespace).pod_group(f"{chain}-pg").build())
    target.wait_until(
        lambda: "ok-pod" in _bound(target, namespace), timeout=120, what="depth-4 pod bound"
    )
    _marker(target, namespace, "marker")
    assert "deep-pod" not in _bound(target, namespace)


def test_once_admitted_children_keep_scheduling_on_their_own(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """Admission is the first placement only.

    After a composite (minGroupCount 2) admitted its two children of 1 pod each, a
    further member created later in one child MUST bind on its own when room exists.
    """
    for _ in range(3):
        pool(cpu="1")
    _composite(target, namespace, 2, {"ca": 1, "cb": 1})
    _members(target, namespace, "ca", 1)
    _members(target, namespace, "cb", 1)
    target.wait_until(
        lambda: len(_bound(target, namespace)) == 2, timeout=120, what="children bound"
    )
    _members(target, namespace, "ca", 1, first=1)
    target.wait_until(
        lambda: "ca-1" in _bound(target, namespace), timeout=120, what="later member bound"
    )


def test_composite_pod_group_validation(target: Target, namespace: str) -> None:
    """CompositePodGroup validation.

    A CompositePodGroup with minGroupCount 0 MUST be rejected on
    spec.schedulingPolicy.gang.minGroupCount; one without workloadRef MUST be rejected on
    spec.workloadRef; a PodGroup naming a parent but no workloadRef MUST be rejected on
    spec.workloadRef; a valid one MUST default disruptionMode to single.
    """
    with pytest.raises(Invalid) as e:
        target.apply(make_composite_pod_group("zero", namespace, min_group_count=0))
    assert "spec.schedulingPolicy.gang.minGroupCount" in {c.field for c in e.value.causes}
    bare = make_composite_pod_group("bare", namespace, min_group_count=1)
    del bare["spec"]["workloadRef"]
    with pytest.raises(Invalid) as e:
        target.apply(bare)
    assert "spec.workloadRef" in {c.field for c in e.value.causes}
    orphan = make_pod_group("orphan", namespace, min_count=1)
    orphan["spec"]["parentCompositePodGroupName"] = "root"
    with pytest.raises(Invalid) as e:
        target.apply(orphan)
    assert "spec.workloadRef" in {c.field for c in e.value.causes}
    stored = target.apply(make_composite_pod_group("fine", namespace, min_group_count=2))
    assert stored["spec"]["disruptionMode"] == {"single": {}}
