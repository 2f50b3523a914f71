"""Unit tests of the PodCertificateRequest cleaner (upstream pcrcleaner.go)."""

from __future__ import annotations

from reference_impl.api import make_pcr
from reference_impl.clock import seconds
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.controllers import PodCertificateRequestCleaner

API = "certificates.k8s.io/v1"


def _cleaner(c: Cluster) -> PodCertificateRequestCleaner:
    return next(x for x in c.controllers if isinstance(x, PodCertificateRequestCleaner))


def test_a_stale_listing_does_not_delete_a_recreated_request() -> None:
    c = Cluster(config=ClusterConfig(nodes=0))
    old = c.create(make_pcr("r", "default", signer="garhwal.dev/none").build())
    c.delete(API, "PodCertificateRequest", "r", "default")
    c.create(make_pcr("r", "default", signer="garhwal.dev/none").build())
    cleaner = _cleaner(c)
    # The old object (as a stale informer would list it) is past the threshold.
    assert not cleaner._handle(old, c.now + seconds(3600))
    assert (
        c.get(API, "PodCertificateRequest", "r", "default")["metadata"]["uid"]
        != old["metadata"]["uid"]
    )


def test_the_boundary_is_inclusive_and_the_gate_disables_it() -> None:
    c = Cluster(config=ClusterConfig(nodes=0))
    pcr = c.create(make_pcr("r", "default", signer="garhwal.dev/none").build())
    cleaner = _cleaner(c)
    assert cleaner.clean(c.now + seconds(899)) == []
    assert cleaner.clean(c.now + seconds(900)) == ["default/r"]
    assert cleaner.deleted == 1
    assert pcr["metadata"]["name"] == "r"
    off = Cluster({"PodCertificateRequest": False}, config=ClusterConfig(nodes=0))
    off.advance(3600)
    assert _cleaner(off).deleted == 0
