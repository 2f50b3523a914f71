"""Selftests of the DRA prepare hooks: gated-field dropping and taint ``timeAdded``."""

from __future__ import annotations

import copy
from typing import Any

from reference_impl.apiserver.registry import Context
from reference_impl.apiserver.strategies.resource_time import prepare_rule, prepare_slice
from reference_impl.apiserver.strategies.scheduling_claims import (
    claims_causes,
    drop_disabled_pod_group_claims,
    drop_disabled_template_claims,
)
from reference_impl.features import FeatureGates

Obj = dict[str, Any]
T0, T1 = "2026-09-01T00:00:00Z", "2026-09-01T00:01:00Z"
CLAIMS = [{"name": "gpu", "resourceClaimName": "shared"}]


def _ctx(**gates: bool) -> Context:
    return Context(FeatureGates(gates), lambda *a: None, lambda *a: [])


def _pg(claims: list[Obj] | None) -> Obj:
    spec: Obj = {"schedulingPolicy": {"basic": {}}}
    if claims is not None:
        spec["resourceClaims"] = copy.deepcopy(claims)
    return {"kind": "PodGroup", "metadata": {"name": "pg"}, "spec": spec}


def _wl(*claims: list[Obj] | None) -> Obj:
    pgts = [{"name": f"t{i}", "schedulingPolicy": {"basic": {}},
             **({"resourceClaims": copy.deepcopy(c)} if c is not None else {})}
            for i, c in enumerate(claims)]
    return {"kind": "Workload", "metadata": {"name": "wl"}, "spec": {"podGroupTemplates": pgts}}


def test_gate_off_drops_on_create_and_on_update_unless_in_use() -> None:
    off = _ctx(DRAWorkloadResourceClaims=False)
    new = _pg(CLAIMS)
    drop_disabled_pod_group_claims(new, None, T0, off)
    assert "resourceClaims" not in new["spec"]
    new = _pg(CLAIMS)
    drop_disabled_pod_group_claims(new, _pg(None), T0, off)  # old did not use it
    assert "resourceClaims" not in new["spec"]
    new = _pg(CLAIMS)
    drop_disabled_pod_group_claims(new, _pg(CLAIMS), T0, off)  # old did: kept
    assert new["spec"]["resourceClaims"] == CLAIMS
    new = _pg(CLAIMS)
    # The gate depends on GenericWorkload (off by default): a set with it alone is refused.
    drop_disabled_pod_group_claims(new, None, T0, _ctx(GenericWorkload=True, DRAWorkloadResourceClaims=True))
    assert new["spec"]["resourceClaims"] == CLAIMS


def test_workload_templates_are_paired_with_old_ones_by_index() -> None:
    off = _ctx(DRAWorkloadResourceClaims=False)
    new = _wl(CLAIMS, CLAIMS)
    drop_disabled_template_claims(new, _wl(CLAIMS, None), T0, off)
    kept, dropped = new["spec"]["podGroupTemplates"]
    assert kept["resourceClaims"] == CLAIMS and "resourceClaims" not in dropped


def test_claims_rules_short_circuit_like_declarative_validation() -> None:
    five = [{"name": f"c{i}"} for i in range(5)]
    # Too many: the per-item one-of errors are not reported as well.
    assert [c.field for c in claims_causes(five, None, "spec.resourceClaims", False)] == [
        "spec.resourceClaims"]
    # A changed list on update is immutable (and nothing else is checked).
    causes = claims_causes(CLAIMS, [], "spec.resourceClaims", True)
    assert [(c.field, c.reason) for c in causes] == [("spec.resourceClaims", "FieldValueInvalid")]
    assert claims_causes(CLAIMS, CLAIMS, "spec.resourceClaims", True) == []


def _rule(effect: str, key: str = "k", added: str | None = None) -> Obj:
    taint: Obj = {"key": key, "effect": effect}
    if added:
        taint["timeAdded"] = added
    return {"kind": "DeviceTaintRule", "metadata": {"name": "r"}, "spec": {"taint": taint}}


def test_rule_time_added_is_set_and_reset_only_when_the_effect_changes() -> None:
    ctx = _ctx()
    created = _rule("None")
    prepare_rule(created, None, T0, ctx)
    assert created["spec"]["taint"]["timeAdded"] == T0
    same_effect = _rule("None", key="other", added=T0)
    prepare_rule(same_effect, created, T1, ctx)
    assert same_effect["spec"]["taint"]["timeAdded"] == T0
    new_effect = _rule("NoExecute", added=T0)
    prepare_rule(new_effect, created, T1, ctx)
    assert new_effect["spec"]["taint"]["timeAdded"] == T1
    explicit = _rule("NoExecute", added="2026-01-01T00:00:00Z")  # the client chose a time
    prepare_rule(explicit, created, T1, ctx)
    assert explicit["spec"]["taint"]["timeAdded"] == "2026-01-01T00:00:00Z"
    omitted = _rule("None")  # omitted on update: defaulted to now, as on create
    prepare_rule(omitted, created, T1, ctx)
    assert omitted["spec"]["taint"]["timeAdded"] == T1


def test_slice_taints_get_the_write_time_not_the_creation_time() -> None:
    old_taint = {"key": "a", "effect": "NoSchedule", "timeAdded": T0}
    new_taint = {"key": "b", "effect": "NoExecute"}
    sl = {"kind": "ResourceSlice", "metadata": {"name": "s", "creationTimestamp": T0},
          "spec": {"devices": [{"name": "d0", "taints": [dict(old_taint), dict(new_taint)]}]}}
    prepare_slice(sl, copy.deepcopy(sl), T1, _ctx())
    assert [t["timeAdded"] for t in sl["spec"]["devices"][0]["taints"]] == [T0, T1]
