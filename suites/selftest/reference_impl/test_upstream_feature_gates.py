"""The reference's gate registry against upstream v1.37.2.

Rows ported from component-base v0.37.2 ``featuregate/feature_gate_test.go``
(TestFeatureGateFlag, TestFeatureGateSetFromMap), with each test's own gate table; the
registry's data against tools/featuregates/extract.py's reading of the Go module cache;
the catalogue's ``[gates]`` rows and the live launcher's ``--feature-gates`` against it.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tomllib
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from fixtures.localcluster.launcher import FEATURE_GATES
from reference_impl.features import (
    ALL_ALPHA,
    ALL_BETA,
    GATES,
    FeatureGates,
    GateSpec,
    Stage,
    UnknownFeature,
    parse_feature_gates_flag,
)

ROOT = Path(__file__).resolve().parents[3]
GOMOD = Path.home() / ".cache" / "garhwal" / "gomod"
_KUBE_GO = GOMOD / "k8s.io/kubernetes@v1.37.2/pkg/features/kube_features.go"


def _extract() -> ModuleType:
    spec = importlib.util.spec_from_file_location("featuregates_extract", ROOT / "tools/featuregates/extract.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def _data() -> list[dict[str, Any]]:
    text = resources.files("reference_impl.features").joinpath("gates_1_37.json").read_text("utf-8")
    rows: list[dict[str, Any]] = json.loads(text)["gates"]
    return rows


def _catalogue_gates() -> dict[str, dict[str, Any]]:
    raw = tomllib.loads((ROOT / "reference_impl/features/v1_37.toml").read_text())
    gates: dict[str, dict[str, Any]] = raw["gates"]
    return gates


# --- the data file ---------------------------------------------------------------------


@pytest.mark.skipif(not _KUBE_GO.exists(), reason="the Go module cache (tools/build.sh) is absent")
def test_the_data_file_is_what_the_extractor_writes() -> None:
    assert _extract().build(GOMOD) == _data()


def test_the_registry_is_the_data_file_plus_the_catalogue_only_rows() -> None:
    upstream = {r["name"]: r for r in _data()}
    assert len(upstream) == 251  # v1.37.2: 237 kube map + 10 client-go + 3 logs + 1 metrics
    only = {n for n, g in _catalogue_gates().items() if g.get("upstream", True) is False}
    assert only == {"SchedulerQueueingHints", "PodLevelCheckpointRestore"}
    assert set(GATES) == set(upstream) | only
    for name, row in upstream.items():
        spec = GATES[name]
        assert (spec.stage.value, spec.default, spec.locked, list(spec.sources)) == (
            row["stage"], row["default"], row["locked"], row["sources"],
        ), name  # fmt: skip
    for name in only:
        assert name not in upstream and GATES[name].sources == ()


def test_catalogue_gate_rows_agree_with_upstream() -> None:
    upstream = {r["name"]: r for r in _data()}
    for name, g in _catalogue_gates().items():
        if g.get("upstream", True) is False:
            continue
        row = upstream.get(name)
        assert row is not None, f"{name} is not a v1.37.2 gate; mark it upstream = false"
        assert (g["stage"], g["default"], g["locked"]) == (row["stage"], row["default"], row["locked"]), name


@pytest.mark.parametrize(
    ("name", "stage", "default", "locked", "source"),
    [
        # Versioned specs: the last entry at or below 1.37 wins.
        pytest.param("AllowDNSOnlyNodeCSR", Stage.DEPRECATED, False, False, "k8s.io/kubernetes/pkg/features",
                     id="deprecated"),
        pytest.param("DRAExtendedResource", Stage.GA, True, True, "k8s.io/kubernetes/pkg/features",
                     id="ga-locked-in-1.37"),
        pytest.param("GenericWorkload", Stage.BETA, False, False, "k8s.io/kubernetes/pkg/features",
                     id="beta-off"),
        pytest.param("EtcdRangeStream", Stage.BETA, True, False, "k8s.io/apiserver/pkg/features",
                     id="apiserver"),
        pytest.param("CRDValidationRatcheting", Stage.GA, True, True,
                     "k8s.io/apiextensions-apiserver/pkg/features", id="apiextensions"),
        pytest.param("InOrderInformers", Stage.GA, True, True, "k8s.io/client-go/features", id="client-go"),
        pytest.param("ContextualLogging", Stage.BETA, True, False, "k8s.io/component-base/logs/api/v1",
                     id="logs"),
        pytest.param("NativeHistograms", Stage.BETA, True, False, "k8s.io/component-base/metrics/features",
                     id="metrics"),
        pytest.param("ComponentFlagz", Stage.BETA, True, False, "k8s.io/component-base/zpages/features",
                     id="zpages"),
        pytest.param("CPUManagerPolicyOptions", Stage.GA, True, True, "k8s.io/kubernetes/pkg/features",
                     id="kubelet"),
    ],
)  # fmt: skip
def test_known_gates(name: str, stage: Stage, default: bool, locked: bool, source: str) -> None:
    spec = GATES[name]
    assert (spec.stage, spec.default, spec.locked) == (stage, default, locked)
    assert source in spec.sources


def test_logging_stable_options_is_declared_but_not_registered() -> None:
    # logs/api/v1 declares the constant; featureGates() does not add it.
    with pytest.raises(UnknownFeature, match="unrecognized feature gate: LoggingStableOptions"):
        FeatureGates({"LoggingStableOptions": True})


# The launcher's gates with their v1.37.2 stage (pkg/features/kube_features.go, and
# genericfeatures for EtcdRangeStream).
_LAUNCHER_STAGES = {
    "GenericWorkload": Stage.BETA,
    "PodGroupPreemptionPolicy": Stage.ALPHA,
    "CompositePodGroup": Stage.ALPHA,
    "TopologyAwareWorkloadScheduling": Stage.ALPHA,
    "WorkloadWithJob": Stage.ALPHA,
    "DRAWorkloadResourceClaims": Stage.BETA,
    "InPlacePodVerticalScalingSchedulerPreemption": Stage.ALPHA,
    "EtcdRangeStream": Stage.BETA,
    "DRAListTypeAttributes": Stage.ALPHA,
    "DRADerivedAttributes": Stage.ALPHA,
    "DRAResourcePoolStatus": Stage.ALPHA,
}


def test_every_launcher_gate_is_known_upstream_with_its_stage() -> None:
    wanted = parse_feature_gates_flag(FEATURE_GATES)
    assert set(wanted) == set(_LAUNCHER_STAGES)
    gates = FeatureGates(wanted)  # the reference takes the live cluster's flag
    for name, value in wanted.items():
        spec = GATES[name]
        assert spec.sources, f"{name} is not a v1.37.2 gate"
        assert spec.stage is _LAUNCHER_STAGES[name], name
        assert gates[name] is value


def test_locked_gate_message_is_upstreams() -> None:
    with pytest.raises(ValueError) as err:
        FeatureGates({"DRAExtendedResource": False})
    assert str(err.value) == "cannot set feature gate DRAExtendedResource to false, feature is locked to true"


def test_setting_ga_or_deprecated_gates_only_warns() -> None:
    gates = FeatureGates({"AllowDNSOnlyNodeCSR": True, "PodCertificateRequest": True, "GenericWorkload": True})
    assert gates["AllowDNSOnlyNodeCSR"] is True
    assert gates.warnings == (
        "Warning: setting deprecated feature gate. It will be removed in a future release. "
        "featureGate=AllowDNSOnlyNodeCSR value=true",
        "Warning: setting GA feature gate. It will be removed in a future release. "
        "featureGate=PodCertificateRequest value=true",
    )


# --- TestFeatureGateFlag ---------------------------------------------------------------

_FLAG_KNOWN = {
    "TestAlpha": GateSpec("TestAlpha", Stage.ALPHA, False, False),
    "TestBeta": GateSpec("TestBeta", Stage.BETA, False, False),
    "TestDeprecated": GateSpec("TestDeprecated", Stage.DEPRECATED, False, False),
    "TestLockedFalse": GateSpec("TestLockedFalse", Stage.GA, False, True),
}


def _flag_expect(a: bool = False, b: bool = False, ta: bool = False, tb: bool = False,
                 dep: bool = False, lf: bool = False) -> dict[str, bool]:  # fmt: skip
    return {ALL_ALPHA: a, ALL_BETA: b, "TestAlpha": ta, "TestBeta": tb, "TestDeprecated": dep,
            "TestLockedFalse": lf}  # fmt: skip


_FLAG_ROWS = [
    ("", _flag_expect(), ""),
    ("TestDeprecated=true", _flag_expect(dep=True), ""),
    ("TestLockedFalse=true", _flag_expect(), "cannot set feature gate TestLockedFalse to true, feature is locked to false"),
    ("fooBarBaz=true", _flag_expect(), "unrecognized feature gate: fooBarBaz"),
    ("AllAlpha=false", _flag_expect(), ""),
    ("AllAlpha=true", _flag_expect(a=True, ta=True), ""),
    ("AllAlpha=banana", _flag_expect(), "invalid value of AllAlpha"),
    ("AllAlpha=false,TestAlpha=true", _flag_expect(ta=True), ""),
    ("TestAlpha=true,AllAlpha=false", _flag_expect(ta=True), ""),
    ("AllAlpha=true,TestAlpha=false", _flag_expect(a=True), ""),
    ("TestAlpha=false,AllAlpha=true", _flag_expect(a=True), ""),
    ("TestBeta=true,AllAlpha=false", _flag_expect(tb=True), ""),
    ("AllBeta=false", _flag_expect(), ""),
    ("AllBeta=true", _flag_expect(b=True, tb=True), ""),
    ("AllBeta=banana", _flag_expect(), "invalid value of AllBeta"),
    ("AllBeta=false,TestBeta=true", _flag_expect(tb=True), ""),
    ("TestBeta=true,AllBeta=false", _flag_expect(tb=True), ""),
    ("AllBeta=true,TestBeta=false", _flag_expect(b=True), ""),
    ("TestBeta=false,AllBeta=true", _flag_expect(b=True), ""),
    ("TestAlpha=true,AllBeta=false", _flag_expect(ta=True), ""),
]  # fmt: skip


@pytest.mark.parametrize(("arg", "expect", "error"), [pytest.param(*r, id=r[0] or "empty") for r in _FLAG_ROWS])
def test_feature_gate_flag(arg: str, expect: dict[str, bool], error: str) -> None:
    """TestFeatureGateFlag: a failed parse leaves the defaults (upstream checks the
    enabled map after the error; here that is a fresh gate set)."""
    if error:
        with pytest.raises((ValueError, UnknownFeature)) as err:
            FeatureGates.from_flag(arg, known=_FLAG_KNOWN)
        assert error in str(err.value)
        gates = FeatureGates(known=_FLAG_KNOWN)
    else:
        gates = FeatureGates.from_flag(arg, known=_FLAG_KNOWN)
    assert {k: gates[k] for k in expect} == expect


def test_flag_parse_errors_are_upstreams() -> None:
    # featureGate.SetWithLogger's texts.
    with pytest.raises(ValueError, match="^missing bool value for TestAlpha$"):
        parse_feature_gates_flag("TestAlpha")
    with pytest.raises(ValueError) as err:
        parse_feature_gates_flag("AllAlpha=banana")
    assert str(err.value) == 'invalid value of AllAlpha=banana, err: strconv.ParseBool: parsing "banana": invalid syntax'
    assert parse_feature_gates_flag(" TestAlpha = T ,,TestBeta=0") == {"TestAlpha": True, "TestBeta": False}


# --- TestFeatureGateSetFromMap ---------------------------------------------------------

_MAP_KNOWN = {
    "TestAlpha": GateSpec("TestAlpha", Stage.ALPHA, False, False),
    "TestBeta": GateSpec("TestBeta", Stage.BETA, False, False),
    "TestLockedTrue": GateSpec("TestLockedTrue", Stage.GA, True, True),
    "TestLockedFalse": GateSpec("TestLockedFalse", Stage.GA, False, True),
}


@pytest.mark.parametrize(
    ("setmap", "expect", "error"),
    [
        pytest.param({"TestAlpha": True, "TestBeta": True}, {"TestAlpha": True, "TestBeta": True}, "",
                     id="set TestAlpha and TestBeta true"),
        pytest.param({"TestBeta": True}, {"TestAlpha": False, "TestBeta": True}, "", id="set TestBeta true"),
        pytest.param({"TestAlpha": False}, {"TestAlpha": False, "TestBeta": False}, "", id="set TestAlpha false"),
        pytest.param({"TestInvalid": True}, {"TestAlpha": False, "TestBeta": False}, "unrecognized feature gate:",
                     id="set TestInvalid true"),
        pytest.param({"TestLockedTrue": True, "TestLockedFalse": False}, {"TestAlpha": False, "TestBeta": False},
                     "", id="set locked gates"),
        pytest.param({"TestLockedTrue": False}, {"TestAlpha": False, "TestBeta": False},
                     "cannot set feature gate TestLockedTrue to false, feature is locked to true",
                     id="set locked gates-1"),
        pytest.param({"TestLockedFalse": True}, {"TestAlpha": False, "TestBeta": False},
                     "cannot set feature gate TestLockedFalse to true, feature is locked to false",
                     id="set locked gates-2"),
    ],
)  # fmt: skip
def test_feature_gate_set_from_map(setmap: dict[str, bool], expect: dict[str, bool], error: str) -> None:
    if error:
        with pytest.raises((ValueError, UnknownFeature)) as err:
            FeatureGates(setmap, known=_MAP_KNOWN)
        assert error in str(err.value)
        gates = FeatureGates(known=_MAP_KNOWN)
    else:
        gates = FeatureGates(setmap, known=_MAP_KNOWN)
    assert {k: gates.enabled(k) for k in expect} == expect


def test_with_overrides_is_a_second_set_from_map() -> None:
    # Explicit values survive a later AllAlpha, as in unsafeSetFromMap's enabled copy.
    gates = FeatureGates({"TestAlpha": False}, known=_MAP_KNOWN).with_overrides({ALL_ALPHA: True})
    assert gates["TestAlpha"] is False
    assert FeatureGates(known=_MAP_KNOWN).with_overrides({ALL_ALPHA: True})["TestAlpha"] is True
