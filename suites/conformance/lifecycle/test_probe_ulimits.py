"""The ulimits probe: "ulimits in the pod spec" (a 1.37 article claim; no KEP).

The 1.37 Pod schema has no ulimits field at any level. The probe writes pods that carry
one where articles put it; a strict write is rejected as an unknown field on every target,
so the claim is reported as "not in 1.37".
"""

from __future__ import annotations

import pytest

from fixtures import ProbeResult, Target, probe_ulimits
from reference_impl.api import make_pod
from reference_impl.errors import BadRequest, NotFound

pytestmark = [pytest.mark.conformance, pytest.mark.feature("ULIMITS")]

LIMITS = [{"name": "nofile", "soft": 1024, "hard": 4096}]


def _probe(target: Target, namespace: str) -> ProbeResult:
    return probe_ulimits(target, namespace, name_prefix="lifecycle-ulimits")


def test_the_ulimits_probe_reports_the_article_claim_as_absent(
    target: Target, namespace: str
) -> None:
    """ulimits probe verdict.

    The probe MUST report status ``absent`` with a message saying "not in 1.37", with one
    piece of evidence per place it tried.
    """
    result = _probe(target, namespace)
    assert result.name == "ULIMITS"
    assert result.status == "absent", result.evidence
    assert "not in 1.37" in result.message
    assert len(result.evidence) == 3
    assert all("unknown field" in e for e in result.evidence)


def test_a_container_ulimits_field_is_rejected_as_an_unknown_field(
    target: Target, namespace: str
) -> None:
    """Container ulimits unknown.

    A pod with ``spec.containers[0].ulimits`` MUST be rejected as BadRequest naming
    exactly that field path (an unknown field under strict field validation), and
    nothing MUST be stored.
    """
    pod = make_pod("lifecycle-ulimits-container", namespace).build()
    pod["spec"]["containers"][0]["ulimits"] = LIMITS
    with pytest.raises(BadRequest) as err:
        target.apply(pod)
    assert "spec.containers[0].ulimits" in err.value.fields
    assert any("unknown field" in c.message for c in err.value.causes)
    with pytest.raises(NotFound):
        target.get("v1", "Pod", "lifecycle-ulimits-container", namespace)


def test_a_security_context_ulimits_field_is_rejected_at_pod_and_container_level(
    target: Target, namespace: str
) -> None:
    """securityContext ulimits unknown.

    Neither ``spec.securityContext`` (PodSecurityContext) nor a container's
    ``securityContext`` (SecurityContext) has ulimits: each write MUST be rejected as
    BadRequest (an unknown field) naming its ``...securityContext.ulimits`` path.
    """
    pod = make_pod("lifecycle-ulimits-podsc", namespace).build()
    pod["spec"]["securityContext"] = {"ulimits": LIMITS}
    with pytest.raises(BadRequest) as err:
        target.apply(pod)
    assert "spec.securityContext.ulimits" in err.value.fields
    pod = make_pod("lifecycle-ulimits-ctrsc", namespace).build()
    pod["spec"]["containers"][0]["securityContext"] = {"runAsNonRoot": True, "ulimits": LIMITS}
    with pytest.raises(BadRequest) as err:
        target.apply(pod)
    assert "spec.containers[0].securityContext.ulimits" in err.value.fields


def test_the_same_pod_without_ulimits_is_accepted(target: Target, namespace: str) -> None:
    """ulimits control case.

    The probe's pods without the ulimits field MUST be stored: the rejection is about the
    field, not the rest of the pod (a probe that cannot tell would report nothing).
    """
    pod = make_pod("lifecycle-ulimits-control", namespace).build()
    pod["spec"]["containers"][0]["securityContext"] = {"runAsNonRoot": True}
    stored = target.apply(pod)
    assert stored["metadata"]["name"] == "lifecycle-ulimits-control"
    assert "ulimits" not in stored["spec"]["containers"][0]


def test_the_ulimits_probe_leaves_no_pod_behind(target: Target, namespace: str) -> None:
    """ulimits probe is side-effect free.

    After the probe, none of its pods MUST exist in the namespace.
    """
    _probe(target, namespace)
    names = {p["metadata"]["name"] for p in target.list("v1", "Pod", namespace)}
    assert not {n for n in names if n.startswith("lifecycle-ulimits")}
