"""DRA prioritized lists (``firstAvailable``) rank nodes by the subrequests they satisfy
(after upstream's ``test/integration/dra/prioritizedlist.go``, ``testPrioritizedListScoring``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fixtures import FakeDriver, Target
from fixtures.helpers.nodes import wait_schedulable
from reference_impl.api import DRA_API, make_pool_node, make_pool_pod, make_resource_claim
from reference_impl.errors import NotFound

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-4381")]


class Pool:
    """Three private nodes, each with its own driver and DeviceClass (two devices each),
    so a subrequest for class i can only be satisfied on node i; a probe pod holds one
    device of node 2."""

    def __init__(self, target: Target, ns: str) -> None:
        self.target, self.ns = target, ns
        self.nodes = [f"dra-pl-{ns}-{i}"[:63] for i in range(3)]
        self.classes = [f"dra-pl-{ns}-{i}"[:63] for i in range(3)]
        self.drivers = [FakeDriver(target, driver=f"pl{i}.garhwal.dev", prefix="dra") for i in range(3)]

    def setup(self) -> None:
        for node, cls, drv in zip(self.nodes, self.classes, self.drivers, strict=True):
            self.target.apply(make_pool_node(node, self.ns).build())
            drv.publish([node], gpus=2)
            drv.install_class(cls)
        # Every node must be a candidate: a live node controller taints a new node
        # node.kubernetes.io/not-ready until it reports Ready.
        wait_schedulable(self.target, self.nodes)
        # A probe pod on the last node's class: once it is bound, the scheduler has seen
        # every node, slice and class (each informer delivers in order), so the pods
        # under test are scored against all three nodes, not the first to arrive.
        self.target.apply(make_resource_claim("probe", self.ns).request("gpu", self.classes[2]).build())
        self.pod("probe", "probe")
        self.target.wait_until(lambda: self.node_of("probe") == self.nodes[2], timeout=60,
                               what="probe pod bound")

    def cleanup(self) -> None:
        for drv in self.drivers:
            drv.cleanup()
        for node in self.nodes:
            try:
                self.target.delete("v1", "Node", node)
            except NotFound:
                pass

    def claim(self, name: str, order: list[int]) -> None:
        subs = [(f"subreq-{k}", self.classes[i], 1) for k, i in enumerate(order)]
        self.target.apply(make_resource_claim(name, self.ns).first_available("req", *subs).build())

    def pod(self, name: str, *claims: str) -> None:
        pod = make_pool_pod(name, self.ns, cpu="100m")
        for c in claims:
            pod = pod.claim(c, claim=c)
        self.target.apply(pod.build())

    def node_of(self, pod: str) -> str:
        return str(self.target.get("v1", "Pod", pod, self.ns)["spec"].get("nodeName") or "")

    def results(self, claim: str) -> list[dict[str, str]]:
        alloc = (self.target.get(DRA_API, "ResourceClaim", claim, self.ns).get("status") or {}).get("allocation")
        return list((alloc or {}).get("devices", {}).get("results") or [])


@pytest.fixture
def pool(target: Target, namespace: str) -> Iterator[Pool]:
    p = Pool(target, namespace)
    try:
        p.setup()
        yield p
    finally:
        p.cleanup()


def test_single_claim_gets_its_first_choice(target: Target, pool: Pool) -> None:
    """DRA prioritized list, one claim.

    With one ``firstAvailable`` claim whose subrequests name one node's class each, the
    pod MUST be placed on the node of the first subrequest (it scores 8, the others 7
    and 6), and the claim MUST be allocated from that subrequest (``req/subreq-0``).
    """
    pool.claim("c", [1, 2, 0])
    pool.pod("p", "c")
    target.wait_until(lambda: bool(pool.node_of("p")), timeout=60, what="pod bound")
    assert pool.node_of("p") == pool.nodes[1]
    target.wait_until(lambda: bool(pool.results("c")), timeout=60, what="claim allocated")
    assert [(r["request"], r["pool"]) for r in pool.results("c")] == [("req/subreq-0", pool.nodes[1])]


def test_two_claims_pick_the_node_with_the_best_sum_of_ranks(target: Target, pool: Pool) -> None:
    """DRA prioritized list, two claims.

    With claim 1 preferring nodes (0, 1, 2) and claim 2 preferring (1, 2, 0), node 0
    scores 8+6=14, node 1 scores 7+8=15 and node 2 scores 6+7=13: the pod MUST be placed
    on node 1, claim 1 allocated from its second subrequest and claim 2 from its first.
    """
    pool.claim("c1", [0, 1, 2])
    pool.claim("c2", [1, 2, 0])
    pool.pod("p", "c1", "c2")
    target.wait_until(lambda: bool(pool.node_of("p")), timeout=60, what="pod bound")
    assert pool.node_of("p") == pool.nodes[1]
    target.wait_until(lambda: bool(pool.results("c1")) and bool(pool.results("c2")),
                      timeout=60, what="claims allocated")
    assert [r["request"] for r in pool.results("c1")] == ["req/subreq-1"]
    assert [r["request"] for r in pool.results("c2")] == ["req/subreq-0"]
