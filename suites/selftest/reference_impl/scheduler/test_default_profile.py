"""The default profile against upstream v1.37.2's default_plugins.go, and the scoring
arithmetic of the plugins it added, after their upstream *_test.go cases."""

from __future__ import annotations

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import NodeScore
from reference_impl.scheduler.plugins import image_locality, inter_pod_affinity_scoring
from reference_impl.scheduler.plugins.balanced_allocation import balance
from reference_impl.scheduler.plugins.pod_topology_spread_scoring import _round
from reference_impl.scheduler.profile import DEFAULT_PLUGINS

# getDefaultPlugins() then applyFeatureGates() with 1.37's defaults: NodeDeclaredFeatures
# (GA) appended, DynamicResources (GA) before DefaultPreemption; GangScheduling is
# appended only with GenericWorkload, TopologyPlacementGenerator and PodGroupPodsCount only
# with TopologyAwareWorkloadScheduling; the reference checks those gates where they act.
UPSTREAM = (
    ("SchedulingGates", 1), ("PrioritySort", 1), ("NodeName", 1), ("NodeUnschedulable", 1),
    ("TaintToleration", 3), ("NodeAffinity", 2), ("NodePorts", 1), ("NodeResourcesFit", 1),
    ("VolumeRestrictions", 1), ("NodeVolumeLimits", 1), ("VolumeBinding", 1),
    ("VolumeZone", 1), ("PodTopologySpread", 2), ("InterPodAffinity", 2),
    ("DynamicResources", 2), ("DefaultPreemption", 1), ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1), ("DefaultBinder", 1), ("NodeDeclaredFeatures", 1),
    ("GangScheduling", 1), ("TopologyPlacementGenerator", 1), ("PodGroupPodsCount", 1),
)


def test_default_profile_is_upstreams_in_order_with_its_weights() -> None:
    assert tuple((p.name, p.weight) for p in DEFAULT_PLUGINS) == UPSTREAM


@pytest.mark.parametrize(
    ("fractions", "expected"),
    [((0.5, 0.5), 100), ((0.5, 1 / 6), 83), ((0.25, 0.75), 75), ((0.1, 0.2, 0.6), 78), ((), 100)],
)
def test_balanced_resource_score(fractions: tuple[float, ...], expected: int) -> None:
    assert balance(fractions) == expected


def test_go_rounding_is_half_away_from_zero() -> None:
    assert (_round(2.5), _round(3.5), _round(-2.5), _round(2.49)) == (3, 4, -3, 2)


@pytest.mark.parametrize(
    ("total", "count", "expected"),
    [(0, 1, 0), (23 * 1024 * 1024, 1, 0), (1000 * 1024 * 1024, 1, 100), (500 * 1024 * 1024, 1, 48),
     (3000 * 1024 * 1024, 2, 100)],
)
def test_image_locality_priority(total: int, count: int, expected: int) -> None:
    assert image_locality.calculate_priority(total, count) == expected


def test_image_names_get_latest_only_without_a_tag() -> None:
    n = image_locality.normalized_image_name
    assert n("nginx") == "nginx:latest"
    assert n("registry:5000/app") == "registry:5000/app:latest"
    assert n("registry:5000/app:v1") == "registry:5000/app:v1"


def test_inter_pod_affinity_normalises_min_to_max() -> None:
    state = CycleState()
    state.write(inter_pod_affinity_scoring._PRE_SCORE,  # noqa: SLF001
                inter_pod_affinity_scoring._State({"k": {"v": 1}}))  # noqa: SLF001
    scores = [NodeScore("a", -5), NodeScore("b", 0), NodeScore("c", 15)]
    inter_pod_affinity_scoring.NORMALIZER.normalize_score(state, {}, scores)
    assert [s.score for s in scores] == [0, 25, 100]
