"""DRA-WLCLAIM: validation and gating of PodGroup / PodGroupTemplate ``resourceClaims``."""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import make_pod_group, make_workload
from reference_impl.errors import Invalid

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("KEP-5729"),
    pytest.mark.feature_gates(GenericWorkload=True),
]
Obj = dict[str, Any]
API = "scheduling.k8s.io/v1beta1"


def _group(ns: str, name: str, claims: list[Obj]) -> Obj:
    pg = make_pod_group(name, ns)
    pg["spec"]["resourceClaims"] = claims
    return pg


def _fields(target: Target, obj: Obj) -> set[str]:
    with pytest.raises(Invalid) as e:
        target.apply(obj)
    return {c.field for c in e.value.causes}


def test_each_claim_names_exactly_one_source(target: Target, namespace: str) -> None:
    """DRA-WLCLAIM, one-of.

    A PodGroup resource claim MUST set exactly one of resourceClaimName and
    resourceClaimTemplateName: neither, or both, MUST be rejected at
    spec.resourceClaims[i]; one of them MUST be accepted and stored as written.
    """
    neither = _group(namespace, "neither", [{"name": "gpu"}])
    assert "spec.resourceClaims[0]" in _fields(target, neither)
    both = _group(namespace, "both", [{"name": "gpu", "resourceClaimName": "a",
                                       "resourceClaimTemplateName": "t"}])
    assert "spec.resourceClaims[0]" in _fields(target, both)
    ok = target.apply(_group(namespace, "ok", [{"name": "gpu", "resourceClaimTemplateName": "t"}]))
    assert ok["spec"]["resourceClaims"] == [{"name": "gpu", "resourceClaimTemplateName": "t"}]


def test_at_most_four_claims(target: Target, namespace: str) -> None:
    """DRA-WLCLAIM, entry limit.

    spec.resourceClaims MUST accept 4 entries and MUST reject 5 as too many at
    spec.resourceClaims (the limit of the resulting Job-level claims, KEP-5729).
    """
    claims = [{"name": f"c{i}", "resourceClaimName": f"claim-{i}"} for i in range(5)]
    assert "spec.resourceClaims" in _fields(target, _group(namespace, "five", claims))
    four = target.apply(_group(namespace, "four", claims[:4]))
    assert [c["name"] for c in four["spec"]["resourceClaims"]] == ["c0", "c1", "c2", "c3"]


def test_claim_names_are_unique_dns_labels(target: Target, namespace: str) -> None:
    """DRA-WLCLAIM, names.

    The list-map key ``name`` MUST be unique (a repeat is rejected at its index) and a DNS
    label; resourceClaimName and resourceClaimTemplateName MUST be DNS subdomains.
    """
    dup = _group(namespace, "dup", [{"name": "gpu", "resourceClaimName": "a"},
                                    {"name": "gpu", "resourceClaimName": "b"}])
    assert "spec.resourceClaims[1]" in _fields(target, dup)
    bad = _group(namespace, "bad", [{"name": "Not_A_Label", "resourceClaimName": "a"}])
    assert "spec.resourceClaims[0].name" in _fields(target, bad)
    bad_ref = _group(namespace, "badref", [{"name": "gpu", "resourceClaimName": "Upper.Case"}])
    assert "spec.resourceClaims[0].resourceClaimName" in _fields(target, bad_ref)
    bad_tpl = _group(namespace, "badtpl", [{"name": "gpu", "resourceClaimTemplateName": "a_b"}])
    assert "spec.resourceClaims[0].resourceClaimTemplateName" in _fields(target, bad_tpl)


def test_pod_group_claims_are_immutable(target: Target, namespace: str) -> None:
    """DRA-WLCLAIM, immutability.

    After creation spec.resourceClaims MUST NOT change: adding an entry, changing its
    source, or clearing the list MUST be rejected at spec.resourceClaims.
    """
    pg = target.apply(_group(namespace, "pg", [{"name": "gpu", "resourceClaimName": "a"}]))
    for claims in ([{"name": "gpu", "resourceClaimName": "a"}, {"name": "nic", "resourceClaimName": "n"}],
                   [{"name": "gpu", "resourceClaimName": "b"}], []):
        changed = {**pg, "spec": {**pg["spec"], "resourceClaims": claims}}
        assert "spec.resourceClaims" in _fields(target, changed)
    again = target.get(API, "PodGroup", "pg", namespace)
    assert again["spec"]["resourceClaims"] == [{"name": "gpu", "resourceClaimName": "a"}]


def test_workload_template_claims_are_validated_on_the_template(
    target: Target, namespace: str
) -> None:
    """DRA-WLCLAIM, Workload templates.

    PodGroupTemplate.resourceClaims MUST follow the same rules, reported under
    spec.podGroupTemplates[i].resourceClaims, and MUST be stored when valid.
    """
    wl = make_workload("wl", namespace, {"workers": 2})
    wl["spec"]["podGroupTemplates"][0]["resourceClaims"] = [{"name": "gpu"}]
    assert "spec.podGroupTemplates[0].resourceClaims[0]" in _fields(target, wl)
    wl["spec"]["podGroupTemplates"][0]["resourceClaims"] = [
        {"name": "gpu", "resourceClaimTemplateName": "gpu-template"}]
    stored = target.apply(wl)
    assert stored["spec"]["podGroupTemplates"][0]["resourceClaims"] == [
        {"name": "gpu", "resourceClaimTemplateName": "gpu-template"}]


@pytest.mark.feature_gates(DRAWorkloadResourceClaims=False)
def test_gate_off_drops_the_claims_on_create(target: Target, namespace: str) -> None:
    """DRA-WLCLAIM, gate off.

    With DRAWorkloadResourceClaims disabled, resourceClaims on a new PodGroup or
    PodGroupTemplate MUST be dropped silently (not rejected): the objects are stored
    without them, even when the entries would be invalid.
    """
    pg = target.apply(_group(namespace, "pg", [{"name": "gpu"}]))
    assert "resourceClaims" not in pg["spec"]
    wl = make_workload("wl", namespace, {"workers": 2})
    wl["spec"]["podGroupTemplates"][0]["resourceClaims"] = [
        {"name": "gpu", "resourceClaimName": "a"}]
    assert "resourceClaims" not in target.apply(wl)["spec"]["podGroupTemplates"][0]


@pytest.mark.feature_gates(DRAWorkloadResourceClaims=False)
def test_gate_off_drops_claim_statuses_on_status_write(target: Target, namespace: str) -> None:
    """DRA-WLCLAIM, gate off, status.

    With DRAWorkloadResourceClaims disabled, status.resourceClaimStatuses written through
    the PodGroup /status subresource MUST be dropped before validation (so an entry
    naming no spec claim is not rejected) and MUST NOT be stored, while the write itself
    succeeds.
    """
    pg = target.apply(make_pod_group("pg", namespace))
    entry = {"name": "gpu", "resourceClaimName": "pg-gpu-claim"}
    out = target.patch_status({**pg, "status": {**(pg.get("status") or {}),
                                                "resourceClaimStatuses": [entry]}})
    assert "resourceClaimStatuses" not in (out.get("status") or {})
    again = target.get(API, "PodGroup", "pg", namespace)
    assert "resourceClaimStatuses" not in (again.get("status") or {})


def test_pod_group_is_created_with_an_empty_status(target: Target, namespace: str) -> None:
    """DRA-WLCLAIM, status on create.

    A PodGroup MUST be created with status {} (the empty PodGroupStatus): whatever
    status the client sends is reset, and the object is served with status {}.
    """
    body = _group(namespace, "pg", [{"name": "gpu", "resourceClaimName": "a"}])
    body["status"] = {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "a"}]}
    assert target.apply(body)["status"] == {}
    assert target.get(API, "PodGroup", "pg", namespace)["status"] == {}
