"""Rows of pkg/registry/core/pod/strategy_test.go (v1.37.2): Test_mutatePodAffinity and
Test_mutateTopologySpreadConstraints, on the reference's create-time preparers
(``strategies/pod_affinity_keys.py``). Only the mutated part of the spec is compared,
as upstream compares ``Spec.Affinity`` / ``Spec.TopologySpreadConstraints``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.apiserver.registry import Context
from reference_impl.apiserver.strategies.pod_affinity_keys import (
    mutate_pod_affinity,
    mutate_topology_spread_constraints,
)
from reference_impl.features import FeatureGates

Obj = dict[str, Any]
NOW = "2026-01-01T00:00:00Z"
KYOTO = {"country": "Japan", "city": "Kyoto"}
TOKYO = {"country": "Japan", "city": "Tokyo"}
ASIA = {"matchLabels": {"region": "Asia"}}


def _ctx(gates: FeatureGates) -> Context:
    return Context(gates=gates, get=lambda *_: None, list=lambda *_: [])


def _term(
    selector: Obj | None, match: list[str] | None = None, mismatch: list[str] | None = None
) -> Obj:
    t: Obj = {}
    if selector is not None:
        t["labelSelector"] = copy.deepcopy(selector)
    if match:
        t["matchLabelKeys"] = match
    if mismatch:
        t["mismatchLabelKeys"] = mismatch
    return t


def _all_four(term: Obj) -> Obj:
    """The term in the required and preferred lists of both podAffinity and podAntiAffinity."""
    one = {
        "requiredDuringSchedulingIgnoredDuringExecution": [copy.deepcopy(term)],
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"podAffinityTerm": copy.deepcopy(term)}
        ],
    }
    return {"podAffinity": one, "podAntiAffinity": copy.deepcopy(one)}


def _required(term: Obj) -> Obj:
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


_MERGED = {
    **ASIA,
    "matchExpressions": [
        {"key": "country", "operator": "In", "values": ["Japan"]},
        {"key": "city", "operator": "NotIn", "values": ["Kyoto"]},
    ],
}


@pytest.mark.parametrize(
    ("affinity", "want"),
    [
        pytest.param(
            _all_four(_term(ASIA, ["country"], ["city"])),
            _all_four(_term(_MERGED, ["country"], ["city"])),
            id="matchLabelKeys are merged into labelSelector with In and mismatchLabelKeys are merged with NotIn",
        ),
        pytest.param(
            _required(_term(ASIA, ["city", "not-found"])),
            _required(
                _term(
                    {
                        **ASIA,
                        "matchExpressions": [
                            {"key": "city", "operator": "In", "values": ["Kyoto"]}
                        ],
                    },
                    ["city", "not-found"],
                )
            ),
            id="keys, which are not found in Pod labels, are ignored",
        ),
        pytest.param(
            _required(_term(None, ["country"], ["city"])),
            _required(_term(None, ["country"], ["city"])),
            id="matchLabelKeys is ignored if the labelSelector is nil",
        ),
        pytest.param(
            _required(_term(ASIA, ["country"], ["city"])),
            _required(_term(ASIA, ["country"], ["city"])),
            id="the feature gate is disabled and matchLabelKeys is ignored",
            marks=pytest.mark.skip(
                reason="needs emulation version 1.32 to turn off the locked GA gate "
                "MatchLabelKeysInPodAffinity; the reference has no emulation versions"
            ),
        ),
    ],
)
def test_mutate_pod_affinity(affinity: Obj, want: Obj) -> None:
    pod: Obj = {"metadata": {"labels": dict(KYOTO)}, "spec": {"affinity": affinity}}
    mutate_pod_affinity(pod, None, NOW, _ctx(FeatureGates()))
    assert pod["spec"]["affinity"] == want


def _constraint(selector: Obj | None, keys: list[str]) -> Obj:
    c: Obj = {
        "maxSkew": 1,
        "topologyKey": "kubernetes.io/hostname",
        "whenUnsatisfiable": "DoNotSchedule",
        "matchLabelKeys": keys,
    }
    if selector is not None:
        c["labelSelector"] = selector
    return c


def _in(*pairs: tuple[str, str]) -> Obj:
    return {"matchExpressions": [{"key": k, "operator": "In", "values": [v]} for k, v in pairs]}


@pytest.mark.parametrize(
    ("constraint", "want", "keys_enabled", "merge_enabled"),
    [
        pytest.param(
            _constraint({}, ["country", "city"]),
            _constraint(_in(("country", "Japan"), ("city", "Tokyo")), ["country", "city"]),
            True,
            True,
            id="matchLabelKeys are merged into labelSelector with In",
        ),
        pytest.param(
            _constraint({}, ["country", "not-found"]),
            _constraint(_in(("country", "Japan")), ["country", "not-found"]),
            True,
            True,
            id="keys, which are not found in Pod labels, are ignored",
        ),
        pytest.param(
            _constraint(None, ["country"]),
            _constraint(None, ["country"]),
            True,
            True,
            id="matchLabelKeys is ignored if the labelSelector is nil",
        ),
        pytest.param(
            _constraint({}, ["country", "city"]),
            _constraint({}, ["country", "city"]),
            True,
            False,
            id="matchLabelKeys are not merged into labelSelector when "
            "MatchLabelKeysInPodTopologySpreadSelectorMerge is false",
        ),
    ],
)
def test_mutate_topology_spread_constraints(
    constraint: Obj, want: Obj, keys_enabled: bool, merge_enabled: bool
) -> None:
    gates = FeatureGates(
        {
            "MatchLabelKeysInPodTopologySpread": keys_enabled,
            "MatchLabelKeysInPodTopologySpreadSelectorMerge": merge_enabled,
        }
    )
    pod: Obj = {
        "metadata": {"labels": dict(TOKYO)},
        "spec": {"topologySpreadConstraints": [copy.deepcopy(constraint)]},
    }
    mutate_topology_spread_constraints(pod, None, NOW, _ctx(gates))
    assert pod["spec"]["topologySpreadConstraints"] == [want]
