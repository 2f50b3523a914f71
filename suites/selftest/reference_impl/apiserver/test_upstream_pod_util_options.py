"""Rows of pkg/api/pod/util_test.go (v1.37.2) for the validation options and their "in use"
predicates (``validation.pod_options``): TestHasRestartContainerForNonSidecarInitContainer,
TestGetValidationOptionsAllowSysAdminWhenPrivilegeEscalationFalse,
TestHasUserNamespacesWithVolumeDevices, TestTaintTolerationComparisonOperatorsInUse,
TestAllowTaintTolerationComparisonOperators, TestPodFileKeyRefInUse,
TestValidatePodDeletionCostOption, TestValidateTopologySpreadConstraintLabelSelectorOption,
TestOldPodViolatesMatchLabelKeysValidationOption,
TestOldPodViolatesLegacyMatchLabelKeysValidationOption,
TestValidateAllowNonLocalProjectedTokenPathOption,
TestValidateInvalidLabelValueInNodeSelectorOption, TestValidateContainerRestartRulesOption,
TestValidateRestartAllContainersOption and TestValidateAllowSidecarResizePolicy (Go names
a repeated subtest name "#01"). The options the reference's validation reads are also
checked by what the APIServer refuses.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.registry import Context
from reference_impl.apiserver.server import APIServer
from reference_impl.apiserver.strategies.core import validate_pod
from reference_impl.apiserver.validation import pod_options as opts
from reference_impl.clock import SimClock
from reference_impl.errors import Invalid
from reference_impl.features import GATES, FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
_SIDECAR_RC: Obj = {
    "name": "sidecar",
    "restartPolicy": "Always",
    "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "RestartContainer"}],
}


# --- TestHasRestartContainerForNonSidecarInitContainer
@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(None, False, id="nil pod spec"),
        pytest.param({"initContainers": []}, False, id="no init containers"),
        pytest.param({"initContainers": [{"name": "init-1"}]}, False, id="regular init container without resize policy"),  # noqa: E501
        pytest.param({"initContainers": [_SIDECAR_RC]}, False, id="sidecar (restartable) init container with RestartContainer policy"),  # noqa: E501
        pytest.param(
            {"initContainers": [{"name": "init-1", "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]}]},  # noqa: E501
            False,
            id="non-sidecar init container with NotRequired policy",
        ),
        pytest.param(
            {"initContainers": [{"name": "init-1", "resizePolicy": [{"resourceName": "memory", "restartPolicy": "RestartContainer"}]}]},  # noqa: E501
            True,
            id="non-sidecar init container with RestartContainer policy",
        ),
        pytest.param(
            {"initContainers": [_SIDECAR_RC, {"name": "init-2", "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "RestartContainer"}]}]},  # noqa: E501
            True,
            id="mix of sidecar and non-sidecar with RestartContainer policy",
        ),
    ],
)
def test_has_restart_container_for_non_sidecar_init_container(
    spec: Obj | None, expected: bool
) -> None:
    assert opts.has_restart_container_for_non_sidecar_init_container(spec) is expected


def _sc(escalation: bool | None, cap: str) -> Obj:
    sc: Obj = {"capabilities": {"add": [cap]}}
    if escalation is not None:
        sc["allowPrivilegeEscalation"] = escalation
    return {"containers": [{"securityContext": sc}]}


_SYS_ADMIN_ROWS = [
    pytest.param(None, False, id="Create pod"),
    pytest.param(_sc(False, "CAP_SYS_ADMIN"), True, id="Update pod with CAP_SYS_ADMIN and not AllowPrivilegeEscalation"),  # noqa: E501
    pytest.param(_sc(None, "CAP_SYS_ADMIN"), True, id="Update pod with CAP_SYS_ADMIN and nil AllowPrivilegeEscalation"),  # noqa: E501
    pytest.param(_sc(True, "CAP_SYS_ADMIN"), False, id="Update pod with CAP_SYS_ADMIN and true AllowPrivilegeEscalation"),  # noqa: E501
    pytest.param(_sc(False, "CAP_NET_ADMIN"), False, id="Update pod without CAP_SYS_ADMIN"),
]


@pytest.mark.parametrize(("old_spec", "want"), _SYS_ADMIN_ROWS)
def test_get_validation_options_allow_sys_admin_when_privilege_escalation_false(
    old_spec: Obj | None, want: bool
) -> None:
    assert opts.allow_sys_admin_when_privilege_escalation_false(old_spec) is want


def _pod(sc: Obj | None = None, annotations: dict[str, str] | None = None) -> Obj:
    ctr: Obj = {"name": "c", "image": "i"}
    if sc is not None:
        ctr["securityContext"] = sc
    meta: Obj = {"name": "p", "namespace": "default"}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {"containers": [ctr]}}


@pytest.mark.parametrize("ratchet", [True, False], ids=["old pod has it", "old pod has not"])
def test_allow_sys_admin_when_privilege_escalation_false_in_validation(ratchet: bool) -> None:
    """ValidateSecurityContext skips the CAP_SYS_ADMIN rule when the old pod broke it."""
    sc = {"allowPrivilegeEscalation": False, "capabilities": {"add": ["CAP_SYS_ADMIN"]}}
    new = _pod(sc)
    old = _pod(sc if ratchet else None)
    ctx = Context(gates=FeatureGates(), get=lambda *_: None, list=lambda *_: [])
    msgs = [c.message for c in validate_pod(new, old, ctx)]
    hit = any("CAP_SYS_ADMIN" in m for m in msgs)
    assert hit is not ratchet
    assert any("CAP_SYS_ADMIN" in c.message for c in validate_pod(new, None, ctx))


def _devices(field: str, host_users: bool | None) -> Obj:
    spec: Obj = {field: [{"name": "test-container", "volumeDevices": [{"name": "test-volume", "devicePath": "/dev/test-device"}]}]}  # noqa: E501
    if host_users is not None:
        spec["hostUsers"] = host_users
    return spec


# --- TestHasUserNamespacesWithVolumeDevices
@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param({}, False, id="hostUsers=nil"),
        pytest.param({"hostUsers": False}, False, id="hostUsers=false & no volume devices"),
        pytest.param(_devices("containers", True), False, id="hostUsers=true & container volumeDevice"),  # noqa: E501
        pytest.param(_devices("containers", False), True, id="hostUsers=false & container volumeDevice"),  # noqa: E501
        pytest.param(_devices("initContainers", False), True, id="hostUsers=false & initContainer volumeDevice"),  # noqa: E501
        pytest.param(_devices("ephemeralContainers", False), True, id="hostUsers=false & ephemeralContainer volumeDevice"),  # noqa: E501
    ],
)
def test_has_user_namespaces_with_volume_devices(spec: Obj, expected: bool) -> None:
    assert opts.has_user_namespaces_with_volume_devices(spec) is expected


def _tols(*ops: str) -> Obj:
    values = {"Equal": "value1", "Lt": "100", "Gt": "50", "Exists": None}
    out = []
    for i, op in enumerate(ops, 1):
        t: Obj = {"key": f"key{i}", "operator": op}
        if values[op] is not None:
            t["value"] = values[op]
        out.append(t)
    return {"tolerations": out}


# --- TestTaintTolerationComparisonOperatorsInUse
@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(None, False, id="nil pod spec"),
        pytest.param({"containers": [{"name": "test"}]}, False, id="no tolerations"),
        pytest.param(_tols("Equal"), False, id="only Equal operator"),
        pytest.param(_tols("Exists"), False, id="only Exists operator"),
        pytest.param(_tols("Lt"), True, id="Lt operator present"),
        pytest.param(_tols("Gt"), True, id="Gt operator present"),
        pytest.param(_tols("Equal", "Lt", "Exists"), True, id="mixed operators with Lt"),
        pytest.param(_tols("Exists", "Gt"), True, id="mixed operators with Gt"),
        pytest.param(_tols("Lt", "Gt"), True, id="both Lt and Gt operators"),
    ],
)
def test_taint_toleration_comparison_operators_in_use(spec: Obj | None, expected: bool) -> None:
    assert opts.taint_toleration_comparison_operators_in_use(spec) is expected


# --- TestAllowTaintTolerationComparisonOperators
@pytest.mark.parametrize(
    ("enabled", "old_spec", "expected"),
    [
        pytest.param(True, None, True, id="feature gate enabled, nil old pod spec"),
        pytest.param(True, _tols("Equal"), True, id="feature gate enabled, old pod spec without comparison operators"),  # noqa: E501
        pytest.param(True, _tols("Lt"), True, id="feature gate enabled, old pod spec with Lt operator"),  # noqa: E501
        pytest.param(False, None, False, id="feature gate disabled, nil old pod spec"),
        pytest.param(False, _tols("Equal", "Exists"), False, id="feature gate disabled, old pod spec without comparison operators"),  # noqa: E501
        pytest.param(False, _tols("Lt"), True, id="feature gate disabled, old pod spec with Lt operator"),  # noqa: E501
        pytest.param(False, _tols("Gt"), True, id="feature gate disabled, old pod spec with Gt operator"),  # noqa: E501
        pytest.param(False, _tols("Equal", "Lt", "Exists"), True, id="feature gate disabled, old pod spec with mixed operators including Lt"),  # noqa: E501
        pytest.param(False, {}, False, id="feature gate disabled, empty old pod spec"),
    ],
)
def test_allow_taint_toleration_comparison_operators(
    enabled: bool, old_spec: Obj | None, expected: bool
) -> None:
    gates = FeatureGates({"TaintTolerationComparisonOperators": enabled})
    assert opts.allow_taint_toleration_comparison_operators(old_spec, gates) is expected


def _env(field: str, *envs: Obj) -> Obj:
    return {field: [{"name": "c", "env": list(envs)}]}


def _file_ref(name: str, vol: str, path: str, key: str) -> Obj:
    return {"name": name, "valueFrom": {"fileKeyRef": {"volumeName": vol, "path": path, "key": key}}}  # noqa: E501


_REGULAR: Obj = {"name": "REGULAR_ENV", "value": "regular-value"}
_SECRET: Obj = {"name": "SECRET_ENV", "valueFrom": {"secretKeyRef": {"name": "test-secret", "key": "secret-key"}}}  # noqa: E501


# --- TestPodFileKeyRefInUse
@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(None, False, id="nil pod spec"),
        pytest.param(_env("containers", _file_ref("TEST_ENV", "test-volume", "/path/to/file", "test-key")), True, id="pod spec with FileKeyRef in container"),  # noqa: E501
        pytest.param(_env("initContainers", _file_ref("INIT_ENV", "init-volume", "/init/path", "init-key")), True, id="pod spec with FileKeyRef in init container"),  # noqa: E501
        pytest.param(_env("ephemeralContainers", _file_ref("EPHEMERAL_ENV", "ephemeral-volume", "/ephemeral/path", "ephemeral-key")), True, id="pod spec with FileKeyRef in ephemeral container"),  # noqa: E501
        pytest.param(_env("containers", _REGULAR, _SECRET), False, id="pod spec without FileKeyRef"),  # noqa: E501
        pytest.param({"containers": [{"name": "test-container"}]}, False, id="pod spec with nil Env in container"),  # noqa: E501
        pytest.param(_env("containers", _REGULAR), False, id="pod spec with env var without ValueFrom"),  # noqa: E501
    ],
)
def test_pod_file_key_ref_in_use(spec: Obj | None, expected: bool) -> None:
    assert opts.pod_file_key_ref_in_use(spec) is expected


# --- TestValidatePodDeletionCostOption: (oldPodMeta, featureEnabled, want)
_COST_ROWS = [
    pytest.param(None, True, False, id="CreateFeatureEnabled"),
    pytest.param(None, False, True, id="CreateFeatureDisabled"),
    pytest.param({"annotations": {opts.DELETION_COST: "100"}}, False, True, id="UpdateFeatureDisabled"),  # noqa: E501
    pytest.param({"annotations": {opts.DELETION_COST: "100"}}, True, False, id="UpdateFeatureEnabledValidOldValue"),  # noqa: E501
    pytest.param({"annotations": {opts.DELETION_COST: "invalid-value"}}, True, True, id="UpdateFeatureEnabledValidOldValue#01"),  # noqa: E501
]


@pytest.mark.parametrize(("old_meta", "enabled", "want"), _COST_ROWS)
def test_validate_pod_deletion_cost_option(
    old_meta: Obj | None, enabled: bool, want: bool
) -> None:
    gates = FeatureGates({"PodDeletionCost": enabled})
    assert opts.allow_invalid_pod_deletion_cost(old_meta, gates) is want


@pytest.mark.parametrize("enabled", [True, False], ids=["gate on", "gate off"])
def test_validate_pod_deletion_cost_option_on_create(enabled: bool) -> None:
    """Through the APIServer: an invalid cost is refused only with PodDeletionCost."""
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates({"PodDeletionCost": enabled}))
    s.create(make_namespace("default").build())
    pod = _pod(annotations={opts.DELETION_COST: "+10"})
    if enabled:
        with pytest.raises(Invalid):
            s.create(pod)
    else:
        assert s.create(pod)["metadata"]["annotations"][opts.DELETION_COST] == "+10"


# --- TestValidateTopologySpreadConstraintLabelSelectorOption: (oldPodSpec, wantOption)
@pytest.mark.parametrize(
    ("old_spec", "want"),
    [
        pytest.param(None, False, id="Create"),
        pytest.param({"topologySpreadConstraints": [{"labelSelector": {"matchLabels": {"NoUppercaseOrSpecialCharsLike=Equals": "foo"}}}]}, True, id="UpdateInvalidLabelSelector"),  # noqa: E501
        pytest.param({"topologySpreadConstraints": [{"labelSelector": {"matchLabels": {"foo": "foo"}}}]}, False, id="UpdateValidLabelSelector"),  # noqa: E501
        pytest.param({"topologySpreadConstraints": [{}]}, False, id="UpdateEmptyLabelSelector"),
    ],
)
def test_validate_topology_spread_constraint_label_selector_option(
    old_spec: Obj | None, want: bool
) -> None:
    assert opts.allow_invalid_topology_spread_constraint_label_selector(old_spec) is want


def _not_in(*values: list[str]) -> Obj:
    exprs = [{"key": "foo", "operator": "NotIn", "values": v} for v in values]
    return {"matchExpressions": exprs}


def _mlk(sel: Obj) -> Obj:
    return {"topologySpreadConstraints": [{"matchLabelKeys": ["foo"], "labelSelector": sel}]}


_MERGE = {"MatchLabelKeysInPodTopologySpread": True, "MatchLabelKeysInPodTopologySpreadSelectorMerge": True}  # noqa: E501
_LEGACY = {"MatchLabelKeysInPodTopologySpread": True, "MatchLabelKeysInPodTopologySpreadSelectorMerge": False}  # noqa: E501


# --- TestOldPodViolatesMatchLabelKeysValidationOption
@pytest.mark.parametrize(
    ("old_spec", "want"),
    [
        pytest.param({}, False, id="Create"),
        pytest.param(_mlk(_not_in(["value1"], ["value2", "value3"])), True, id="UpdateInvalidMatchLabelKeys"),  # noqa: E501
        pytest.param(_mlk(_not_in(["value1"])), False, id="UpdateValidMatchLabelKeys"),
    ],
)
def test_old_pod_violates_match_label_keys_validation_option(old_spec: Obj, want: bool) -> None:
    violates, legacy = opts.old_pod_violates_match_label_keys(old_spec, FeatureGates(_MERGE))
    assert (violates, legacy) == (want, False)


# --- TestOldPodViolatesLegacyMatchLabelKeysValidationOption
@pytest.mark.parametrize(
    ("old_spec", "want"),
    [
        pytest.param({}, False, id="Create"),
        pytest.param(_mlk(_not_in(["value1"])), True, id="UpdateInvalidMatchLabelKeys"),
        pytest.param(_mlk({}), False, id="UpdateValidMatchLabelKeys"),
    ],
)
def test_old_pod_violates_legacy_match_label_keys_validation_option(
    old_spec: Obj, want: bool
) -> None:
    violates, legacy = opts.old_pod_violates_match_label_keys(old_spec, FeatureGates(_LEGACY))
    assert (violates, legacy) == (False, want)


def _token(path: str) -> Obj:
    return {"volumes": [{"name": "foo", "projected": {"sources": [{"serviceAccountToken": {"path": path}}]}}]}  # noqa: E501


# --- TestValidateAllowNonLocalProjectedTokenPathOption
@pytest.mark.parametrize(
    ("old_spec", "want"),
    [
        pytest.param(None, False, id="Create"),
        pytest.param(_token("../foo"), True, id="UpdateInvalidProjectedTokenPath"),
        pytest.param(_token("foo"), False, id="UpdateValidProjectedTokenPath"),
        pytest.param({"volumes": [{"name": "foo", "hostPath": {"path": "foo"}}]}, False, id="UpdateEmptyProjectedTokenPath"),  # noqa: E501
    ],
)
def test_validate_allow_non_local_projected_token_path_option(
    old_spec: Obj | None, want: bool
) -> None:
    assert opts.allow_non_local_projected_token_path(old_spec) is want


def _node_affinity(terms: list[Obj]) -> Obj:
    required = {"nodeSelectorTerms": terms}
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}}  # noqa: E501


def _term(value: str) -> Obj:
    return {"matchExpressions": [{"key": "foo", "operator": "In", "values": [value]}]}


# --- TestValidateInvalidLabelValueInNodeSelectorOption
@pytest.mark.parametrize(
    ("old_spec", "want"),
    [
        pytest.param(None, False, id="Create"),
        pytest.param(_node_affinity([_term("-1")]), True, id="UpdateInvalidLabelSelector"),
        pytest.param(_node_affinity([_term("bar")]), False, id="UpdateValidLabelSelector"),
        pytest.param(_node_affinity([]), False, id="UpdateEmptyLabelSelector"),
    ],
)
def test_validate_invalid_label_value_in_node_selector_option(
    old_spec: Obj | None, want: bool
) -> None:
    assert opts.allow_invalid_label_value_in_required_node_affinity(old_spec) is want


_RULE_42: list[Obj] = [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]


def _restart_gates(enabled: bool) -> FeatureGates:
    if enabled:
        return FeatureGates({"ContainerRestartRules": True})
    return FeatureGates({"ContainerRestartRules": False, "RestartAllContainersOnContainerExits": False})  # noqa: E501


# --- TestValidateContainerRestartRulesOption: (oldPodSpec, featureEnabled, want)
@pytest.mark.parametrize(
    ("old_spec", "enabled", "want"),
    [
        pytest.param(None, True, True, id="feature enabled"),
        pytest.param(None, False, False, id="feature disabled"),
        pytest.param({"containers": [{"restartPolicy": "Never"}]}, False, True, id="old pod spec has regular containers with restart policy"),  # noqa: E501
        pytest.param({"containers": [{"restartPolicy": "Never", "restartPolicyRules": _RULE_42}]}, False, True, id="old pod spec has regular containers with restart policy rules"),  # noqa: E501
        pytest.param({"initContainers": [{"restartPolicy": "Never"}]}, False, True, id="old pod spec has init containers with restart policy"),  # noqa: E501
        pytest.param({"initContainers": [{"restartPolicy": "Never", "restartPolicyRules": _RULE_42}]}, False, True, id="old pod spec has regular containers with restart policy rules#01"),  # noqa: E501
    ],
)
def test_validate_container_restart_rules_option(
    old_spec: Obj | None, enabled: bool, want: bool
) -> None:
    assert opts.allow_container_restart_policy_rules(old_spec, _restart_gates(enabled)) is want


_RESTART_ALL: list[Obj] = [{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [42]}}]  # noqa: E501


# --- TestValidateRestartAllContainersOption: (oldPodSpec, featureEnabled, want)
@pytest.mark.parametrize(
    ("old_spec", "enabled", "want"),
    [
        pytest.param(None, True, True, id="feature enabled"),
        pytest.param(None, False, False, id="feature disabled"),
        pytest.param({"containers": [{"name": "container"}]}, False, False, id="old pod spec has container without action"),  # noqa: E501
        pytest.param({"containers": [{"name": "container", "restartPolicyRules": _RESTART_ALL}]}, False, True, id="old pod spec has container with action"),  # noqa: E501
        pytest.param({"initContainers": [{"restartPolicy": "Always", "restartPolicyRules": _RESTART_ALL}]}, False, True, id="old pod spec has sidecar containers with rules"),  # noqa: E501
    ],
)
def test_validate_restart_all_containers_option(
    old_spec: Obj | None, enabled: bool, want: bool
) -> None:
    gates = FeatureGates({"ContainerRestartRules": enabled, "RestartAllContainersOnContainerExits": enabled})  # noqa: E501
    assert opts.allow_restart_all_containers(old_spec, gates) is want


def _ctr(name: str, sidecar: bool = False, resize: bool = False) -> Obj:
    c: Obj = {"name": name, "image": "image"}
    if sidecar:
        c["restartPolicy"] = "Always"
    if resize:
        c["resizePolicy"] = [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]
    return c


_SIDECAR_ROWS: list[tuple[str, Obj | None, bool]] = [
    ("old pod spec is nil", None, False),
    ("one sidecar container + one regular init container, no resize policy set on any of them", {"initContainers": [_ctr("c1-restartable-init", True), _ctr("c1-init")]}, False),  # noqa: E501
    ("one sidecar container + one regular init container, resize policy set on regular init container", {"initContainers": [_ctr("c1-restartable-init", True), _ctr("c1-init", resize=True)]}, False),  # noqa: E501
    ("one sidecar container + one regular init container, resize policy set on sidecar container", {"initContainers": [_ctr("c1-restartable-init", True, True), _ctr("c1-init")]}, True),  # noqa: E501
    ("one sidecar container + one regular init container, resize policy set on both of them", {"initContainers": [_ctr("c1-restartable-init", True, True), _ctr("c1-init", resize=True)]}, True),  # noqa: E501
    ("two sidecar containers, resize policy set on one of them", {"initContainers": [_ctr("c1-restartable-init", True, True), _ctr("c2-restartable-init", True)]}, True),  # noqa: E501
    ("two regular init containers, resize policy set on both of them", {"initContainers": [_ctr("c1-init", resize=True), _ctr("c2-init", resize=True)]}, False),  # noqa: E501
    ("two non-init containers, resize policy set on both of them", {"containers": [_ctr("c1", resize=True), _ctr("c2", resize=True)]}, False),  # noqa: E501
]


# --- TestValidateAllowSidecarResizePolicy: the Go test turns the locked GA gate off at
# emulation version 1.34; a gate table with it unlocked stands in.
@pytest.mark.parametrize(
    ("old_spec", "want", "ippvs"),
    [
        pytest.param(spec, want, on, id=f"{name}/{str(on).lower()}")
        for name, spec, want in _SIDECAR_ROWS
        for on in (True, False)
    ],
)
def test_validate_allow_sidecar_resize_policy(old_spec: Obj | None, want: bool, ippvs: bool) -> None:  # noqa: E501
    known = {n: replace(s, locked=False) if n == "InPlacePodVerticalScaling" else s for n, s in GATES.items()}  # noqa: E501
    gates = FeatureGates({"InPlacePodVerticalScaling": ippvs}, known=known)
    assert opts.allow_sidecar_resize_policy(old_spec, gates) is (want or ippvs)
