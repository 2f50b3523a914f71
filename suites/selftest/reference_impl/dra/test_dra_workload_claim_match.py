"""Unit tests of the KEP-5729 matching rule (reference_impl.dra.workload_claims)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.dra.workload_claims import group_claim_entry, group_claim_name, group_consumer

Obj = dict[str, Any]
_opt = st.one_of(st.none(), st.sampled_from(["a", "b"]))


def _pg(*claims: Obj, statuses: list[Obj] | None = None) -> Obj:
    return {
        "metadata": {"name": "pg", "uid": "u1"},
        "spec": {"resourceClaims": list(claims)},
        "status": {"resourceClaimStatuses": statuses or []},
    }


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(["gpu", "nic"]), claim=_opt, tmpl=_opt)
def test_a_pod_claim_matches_only_when_all_three_fields_are_equal(
    name: str, claim: str | None, tmpl: str | None
) -> None:
    """Matching is exact equality on name, resourceClaimName, resourceClaimTemplateName."""
    entry = {"name": "gpu", "resourceClaimTemplateName": "a"}
    ref = {
        k: v
        for k, v in {
            "name": name,
            "resourceClaimName": claim,
            "resourceClaimTemplateName": tmpl,
        }.items()
        if v is not None
    }
    expected = name == "gpu" and claim is None and tmpl == "a"
    assert (group_claim_entry(ref, _pg(entry)) is not None) == expected


def test_no_pod_group_means_no_match() -> None:
    """Without a PodGroup a pod claim keeps per-pod semantics."""
    assert group_claim_entry({"name": "gpu", "resourceClaimName": "x"}, None) is None


def test_the_group_claim_name_comes_from_spec_or_status() -> None:
    """An existing claim is named in spec; a generated one only once listed in status."""
    existing = {"name": "a", "resourceClaimName": "shared"}
    tmpl = {"name": "b", "resourceClaimTemplateName": "t"}
    assert group_claim_name(_pg(existing, tmpl), existing) == "shared"
    assert group_claim_name(_pg(existing, tmpl), tmpl) is None
    pg = _pg(existing, tmpl, statuses=[{"name": "b", "resourceClaimName": "pg-b-x"}])
    assert group_claim_name(pg, tmpl) == "pg-b-x"


def test_the_consumer_is_the_pod_group() -> None:
    """reservedFor names podgroups in scheduling.k8s.io with the group's uid."""
    assert group_consumer(_pg()) == {
        "apiGroup": "scheduling.k8s.io",
        "resource": "podgroups",
        "name": "pg",
        "uid": "u1",
    }
