"""NodeResourcesBalancedAllocation and ImageLocality: scores that decide between nodes
that every other plugin ranks equally."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fixtures import Target
from reference_impl.api import make_pool_pod

pytestmark = pytest.mark.conformance

IMAGE = "registry.example/garhwal/locality:v1"


@pytest.mark.parametrize(
    ("first", "second", "balanced"),
    [
        # (cpu, memory) of the two nodes; LeastAllocated ties for a 1 cpu / 1Gi pod.
        (("2", "6Gi"), ("3", "3Gi"), 1),
        (("4", "8Gi"), ("5", "6Gi"), 1),
        (("6", "6Gi"), ("8", "5Gi"), 0),
    ],
)
def test_balanced_allocation_prefers_even_resource_use(
    target: Target, namespace: str, pool: Callable[..., str], bound_node: Callable[..., str],
    settle_nodes: Callable[..., None], first: tuple[str, str], second: tuple[str, str],
    balanced: int,
) -> None:
    """Balanced allocation (placement differential).

    Of two nodes that LeastAllocated scores the same for a 1 cpu / 1Gi pod, the pod MUST
    be placed on the one where its cpu and memory fractions end up closest.
    """
    nodes = [pool(cpu=c, memory=m) for c, m in (first, second)]
    settle_nodes(*nodes)
    target.apply(make_pool_pod("p", namespace, cpu="1").req(cpu="1", memory="1Gi").build())
    assert bound_node("p") == nodes[balanced]


def test_image_locality_prefers_the_node_with_the_image(
    target: Target, namespace: str, pool: Callable[..., str], bound_node: Callable[..., str],
    settle_nodes: Callable[..., None],
) -> None:
    """Image locality.

    Of two equal nodes, the pod MUST be placed on the one whose status.images lists the
    pod's (large) image.
    """
    without = pool(cpu="4")
    with_image = pool(cpu="4", images=[{"names": [IMAGE], "sizeBytes": 2_000_000_000}])
    settle_nodes(without, with_image)
    target.apply(make_pool_pod("p", namespace, cpu="100m").image(IMAGE).build())
    assert bound_node("p") == with_image
