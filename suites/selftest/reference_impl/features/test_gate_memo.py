"""``per_gates``: a value built once per gate map, and the write-path tables built on it
give what building them afresh gives."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.strategies import pod_beta_drops, pod_ga_drops, pod_status_drops
from reference_impl.apiserver.validation import pod_validation_options as pvo
from reference_impl.features import FeatureGates, UnknownFeature
from reference_impl.features.gate_memo import per_gates


def test_built_once_per_map_and_again_for_another() -> None:
    built: list[FeatureGates] = []

    @per_gates
    def value(gates: FeatureGates) -> bool:
        built.append(gates)
        return gates.enabled("DRADerivedAttributes")

    a, b = FeatureGates(), FeatureGates({"DRADerivedAttributes": True})
    assert [value(a), value(a), value(b), value(b)] == [False, False, True, True]
    assert built == [a, b]


def test_enabled_still_refuses_an_unknown_gate() -> None:
    with pytest.raises(UnknownFeature, match="unrecognized feature gate: NoSuchGate"):
        FeatureGates().enabled("NoSuchGate")


_MAPS = [
    {},
    {"SELinuxMount": False, "EnvFiles": False, "PodDeletionCost": False},
    {"TaintTolerationComparisonOperators": True, "UserNamespacesHostNetworkSupport": True},
]


@pytest.mark.parametrize("overrides", _MAPS)
def test_create_options_are_the_unshared_build(overrides: dict[str, bool]) -> None:
    gates = FeatureGates(overrides)
    got = pvo.options_from_pod_spec_and_meta({"containers": []}, None, {}, None, gates)
    assert got == pvo._options(None, None, gates)
    assert pvo.options_from_pod_template(None, None, gates) is got  # one frozen value


def test_update_options_still_ratchet_on_the_old_spec() -> None:
    gates = FeatureGates()
    old = {"volumes": [{"name": "v", "image": {"reference": ""}}],
           "initContainers": [{"name": "i", "resizePolicy": [
               {"resourceName": "cpu", "restartPolicy": "RestartContainer"}]}]}  # fmt: skip
    got = pvo.options_from_pod_spec_and_meta({}, old, {}, {}, gates)
    assert got.allow_empty_image_volume_reference
    assert got.allow_existing_restart_container_for_non_sidecar_init_container
    assert not pvo.options_from_pod_spec_and_meta(
        {}, {}, {}, {}, gates
    ).allow_empty_image_volume_reference


def test_status_drop_rows_follow_the_gates() -> None:
    assert "CSIVolumeHealth" in [r[0] for r in pod_status_drops._off_rows(FeatureGates())]
    on = FeatureGates({"CSIVolumeHealth": True})
    assert "CSIVolumeHealth" not in [r[0] for r in pod_status_drops._off_rows(on)]


def test_all_on_shortcuts_only_while_every_gate_is_on() -> None:
    assert pod_ga_drops._all_on(FeatureGates()) and pod_beta_drops._all_on(FeatureGates())
    assert not pod_beta_drops._all_on(FeatureGates({"EnvFiles": False}))
    ref: dict[str, Any] = {"fileKeyRef": {}}
    spec: dict[str, Any] = {"containers": [{"name": "c", "env": [{"name": "e", "valueFrom": ref}]}]}
    pod_beta_drops.drop_beta_fields(spec, None, FeatureGates({"EnvFiles": False}))
    assert ref == {}
