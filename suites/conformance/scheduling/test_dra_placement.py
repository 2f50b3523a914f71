"""DynamicResources scoring (DRAPrioritizedList): of nodes that can all satisfy a claim's
``firstAvailable`` request, the one that can give the more preferred alternative wins."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fixtures import FakeDriver, Target
from fixtures.helpers.dra_driver import dra_driver  # noqa: F401 - the fixture
from reference_impl.api import make_pool_pod, make_resource_claim

pytestmark = pytest.mark.conformance

DRA_API = "resource.k8s.io/v1"


@pytest.mark.parametrize("seed", [0, 1])
def test_the_node_offering_the_first_alternative_wins(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None],
    bound_node: Callable[..., str], dra_driver: FakeDriver, seed: int,  # noqa: F811
) -> None:
    """Placement differential: DRA.

    Two equal nodes publish one and two GPUs (the seed picks which has two). A claim
    asking first for two GPUs, else one, fits both; the pod MUST be placed on the node
    with two GPUs and get the "two" alternative.
    """
    nodes = [pool(cpu="4"), pool(cpu="4")]
    settle_nodes()
    cls = f"sched-dra-{namespace}"[:63]
    dra_driver.install_class(cls)
    dra_driver.publish([nodes[seed]], gpus=2)
    dra_driver.publish([nodes[1 - seed]], gpus=1)
    claim = make_resource_claim("c", namespace).first_available(
        "gpu", ("two", cls, 2), ("one", cls, 1)).build()
    target.apply(claim)
    target.apply(make_pool_pod("p", namespace, cpu="100m").claim("gpu", claim="c").build())
    assert bound_node("p") == nodes[seed]
    got = target.get(DRA_API, "ResourceClaim", "c", namespace)
    assert {r["request"] for r in got["status"]["allocation"]["devices"]["results"]} == {"gpu/two"}
