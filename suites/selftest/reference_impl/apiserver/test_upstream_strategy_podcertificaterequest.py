"""Rows of pkg/registry/certificates/podcertificaterequest/strategy_test.go (v1.37.2):
TestPrepareForUpdate and TestStatusPrepareForUpdate through the APIServer (what is
stored), TestStatusValidateUpdate on ``certificates_status.validate_pcr_status``.

The PCRs are the reference's (``make_pcr``: a stub PKCS#10 request rather than upstream's
PKIX key and proof), with upstream's signer-independent fields. TestStatusPrepareForUpdate's
old PCR is Denied upstream; a stored Denied request may not change its status, so here
the old request is pending and the write marks it Failed (the rule under test, the spec
taken back, is the same).
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_namespace, make_pcr
from reference_impl.apiserver.registry import Context
from reference_impl.apiserver.server import APIServer
from reference_impl.apiserver.strategies.certificates_status import validate_pcr_status
from reference_impl.clock import Instant, SimClock, rfc3339, seconds
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]


def _created() -> tuple[APIServer, Obj]:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace("foo").build())
    pcr = make_pcr("bar", "foo").build()
    pcr["spec"]["maxExpirationSeconds"] = 86400
    return s, s.create(pcr)


def _cond(ctype: str, now: str) -> Obj:
    return {"type": ctype, "status": "True", "reason": "Foo", "message": "Foo message",
            "lastTransitionTime": now}  # fmt: skip


def test_prepare_for_update() -> None:
    """TestPrepareForUpdate: a main-resource update stomps the status it carries."""
    s, pcr = _created()
    now = rfc3339(s.clock.now())
    pcr = s.update_status({**pcr, "status": {"conditions": [_cond("Denied", now)]}})
    got = s.update({**pcr, "status": {"conditions": [_cond("Failed", now)]}})
    assert got["status"] == {"conditions": [_cond("Denied", now)]}
    assert got["spec"] == pcr["spec"]


def test_status_prepare_for_update() -> None:
    """TestStatusPrepareForUpdate: a /status update resets the spec (a different signer
    name here) and keeps the new status."""
    s, pcr = _created()
    now = rfc3339(s.clock.now())
    spec = {**pcr["spec"], "signerName": "foo.com/different-value"}
    got = s.update_status({**pcr, "spec": spec, "status": {"conditions": [_cond("Failed", now)]}})
    assert got["spec"] == pcr["spec"]
    assert got["status"] == {"conditions": [_cond("Failed", now)]}


# TestStatusValidateUpdate: (whether the caller may "sign" for the signer, wanted fields).
@pytest.mark.parametrize(
    ("authorized", "want"),
    [
        pytest.param(True, [], id="No errors when the caller is authorized"),
        pytest.param(
            False, ["spec.signerName"], id="Error when the caller is not authorized",
            marks=pytest.mark.skip(
                reason="the reference's status strategy has no requesting user or "
                "authorizer: the 'sign' permission check for the signer is not modelled"
            ),
        ),
    ],
)  # fmt: skip
def test_status_validate_update(authorized: bool, want: list[str]) -> None:
    now = Instant(seconds(1000))
    ctx = Context(FeatureGates(), lambda *_: None, lambda *_: [], now=now)
    old = make_pcr("bar", "foo").build()
    old["metadata"].update(resourceVersion="1", generation=1)
    old["spec"]["maxExpirationSeconds"] = 86400
    new = {**old, "status": {"conditions": [_cond("Failed", rfc3339(now))]}}
    assert [c.field for c in validate_pcr_status(new, old, ctx)] == want
