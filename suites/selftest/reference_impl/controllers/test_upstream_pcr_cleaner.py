"""pkg/controller/certificates/cleaner/pcrcleaner_test.go (v1.37.2), TestPCRCleaner row by
row, against ``reference_impl/controllers/podcertificate_cleaner.py``.

Upstream's clock stands at 00:30:00 and the threshold is 15 minutes; a request created at
00:15:01 (14m59s old) stays, one created at 00:14:59 (15m01s old) is deleted, pending or
terminal (Denied). Here the apiserver stamps ``creationTimestamp``, so one pass of the
worker (``clean``) runs at that stamp plus the row's age.
"""

from __future__ import annotations

import pytest

from reference_impl.api import make_pcr
from reference_impl.clock import Instant, rfc3339, seconds
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.controllers import PodCertificateRequestCleaner

API = "certificates.k8s.io/v1"


@pytest.mark.parametrize(
    ("age_s", "terminal", "deleted"),
    [
        pytest.param(899, False, False, id="Pending request within the threshold should be left alone"),
        pytest.param(901, False, True, id="Pending request outside the threshold should be deleted"),
        pytest.param(899, True, False, id="Terminal request within the threshold should be left alone"),
        pytest.param(901, True, True, id="Terminal request outside the threshold should be deleted"),
    ],
)
def test_pcr_cleaner(age_s: int, terminal: bool, deleted: bool) -> None:
    c = Cluster(config=ClusterConfig(nodes=0))
    c.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "foo"}})
    pcr = c.create(make_pcr("bar", "foo", signer="foo.com/abc").build())
    if terminal:
        denied = {"type": "Denied", "status": "True", "reason": "Foo", "message": "abc",
                  "lastTransitionTime": rfc3339(c.now)}  # fmt: skip
        pcr = c.api.update_status({**pcr, "status": {"conditions": [denied]}})
    cleaner = next(x for x in c.controllers if isinstance(x, PodCertificateRequestCleaner))
    created = pcr["metadata"]["creationTimestamp"]
    gone = cleaner.clean(Instant(c.now + seconds(age_s)))
    assert gone == (["foo/bar"] if deleted else [])
    left = c.api.try_get(API, "PodCertificateRequest", "bar", "foo")
    assert (left is None) is deleted
    assert created == rfc3339(c.now)
