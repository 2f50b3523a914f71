"""``PodValidationOptions`` read where ValidatePodSpec reads them (validation.go, v1.37.2),
for pods and every pod template kind (``GetValidationOptionsFromPodTemplate``).

Upstream rows: TestNumericTolerationsWithFeatureGate, TestValidateHostUsers (the
volumeDevices and hostNetwork rows) and TestValidateTopologySpreadConstraints (the
matchLabelKeys option rows). Then, through the reference APIServer, for each option an
update whose stored object already had the thing (an apiserver of another version or gate
stored it: written to storage here) is accepted, and one whose stored object did not is
refused with upstream's field path and message; for a Pod and for each template kind.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.registry import strategy_for
from reference_impl.apiserver.server import APIServer
from reference_impl.apiserver.strategies.core import toleration_causes
from reference_impl.apiserver.validation.pod_security import pod_security_causes
from reference_impl.apiserver.validation.pod_spec_rules import pod_spec_rule_causes
from reference_impl.apiserver.validation.pod_validation_options import (
    PodValidationOptions,
    options_from_pod_spec_and_meta,
    options_from_pod_template,
)
from reference_impl.clock import SimClock
from reference_impl.errors import Cause, Invalid
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
_DECIMAL = "must be a valid decimal integer in canonical form"


def _tol(op: str, value: str, key: str = "node.kubernetes.io/sla") -> Obj:
    return {"key": key, "operator": op, "value": value, "effect": "NoSchedule"}


# --- TestNumericTolerationsWithFeatureGate: (toleration, gate on, error substring)
@pytest.mark.parametrize(
    ("toleration", "on", "want"),
    [
        pytest.param(_tol("Gt", "950"), True, "", id="Gt operator with valid numeric value and feature gate enabled"),  # noqa: E501
        pytest.param(_tol("Lt", "800"), True, "", id="Lt operator with valid numeric value and feature gate enabled"),  # noqa: E501
        pytest.param(_tol("Gt", "-100", "test-key"), True, "", id="Gt operator with negative numeric value and feature gate enabled"),  # noqa: E501
        pytest.param(_tol("Gt", "high"), True, f'tolerations[0].value: Invalid value: "high": {_DECIMAL}', id="Gt operator with non-numeric value and feature gate enabled"),  # noqa: E501
        pytest.param(_tol("Gt", "0950"), True, f'tolerations[0].value: Invalid value: "0950": {_DECIMAL}', id="Gt operator with leading zeros and feature gate enabled (invalid - strict validation)"),  # noqa: E501
        pytest.param(_tol("Gt", "0", "test-key"), True, "", id="Gt operator with value '0' and feature gate enabled (valid)"),  # noqa: E501
        pytest.param(_tol("Gt", "95.5"), True, f'tolerations[0].value: Invalid value: "95.5": {_DECIMAL}', id="Gt operator with decimal value and feature gate enabled"),  # noqa: E501
        pytest.param(_tol("Gt", "-", "test-key"), True, f'tolerations[0].value: Invalid value: "-": {_DECIMAL}', id="Gt operator with just minus sign and feature gate enabled"),  # noqa: E501
        pytest.param(_tol("Gt", "+100", "test-key"), True, f'tolerations[0].value: Invalid value: "+100": {_DECIMAL}', id="Gt operator with plus sign and feature gate enabled (invalid - strict validation)"),  # noqa: E501
        pytest.param(_tol("Gt", "95 0", "test-key"), True, f'tolerations[0].value: Invalid value: "95 0": {_DECIMAL}', id="Gt operator with space in value and feature gate enabled"),  # noqa: E501
        pytest.param(_tol("Gt", "", "test-key"), True, 'tolerations[0].value: Invalid value: "": must be non-empty', id="Gt operator with empty value and feature gate enabled"),  # noqa: E501
        pytest.param(_tol("Lt", "950"), False, "Unsupported value", id="Lt operator with feature gate disabled"),  # noqa: E501
        pytest.param(_tol("Gt", "9223372036854775807", "test-key"), True, "", id="Gt operator with max int64 value and feature gate enabled"),  # noqa: E501
        pytest.param(
            _tol("Gt", "9223372036854775808", "test-key"), True,
            'tolerations[0].value: Invalid value: "9223372036854775808": strconv.ParseInt: parsing "9223372036854775808": value out of range',  # noqa: E501
            id="Gt operator with overflow value and feature gate enabled",
        ),
    ],
)
def test_numeric_tolerations_with_feature_gate(toleration: Obj, on: bool, want: str) -> None:
    errs = toleration_causes([toleration], "tolerations", allow_comparison=on)
    text = "; ".join(f"{c.field}: {c.message}" for c in errs)
    if want:
        assert want in text
    else:
        assert errs == []


def _device_ctr(kind: str) -> Obj:
    return {kind: [{"name": "test-container", "volumeDevices": [{"name": "test-volume", "devicePath": "/dev/test-device"}]}]}  # noqa: E501


# --- TestValidateHostUsers (the rows with options or the rules they waive)
@pytest.mark.parametrize(
    ("spec", "opts", "success"),
    [
        pytest.param({"hostUsers": False, "hostNetwork": True}, PodValidationOptions(), False, id="hostUsers=false & HostNetwork"),  # noqa: E501
        pytest.param({"hostUsers": False, **_device_ctr("containers")}, PodValidationOptions(), False, id="hostUsers=false & container volumeDevice"),  # noqa: E501
        pytest.param({"hostUsers": False, **_device_ctr("initContainers")}, PodValidationOptions(), False, id="hostUsers=false & initContainer volumeDevice"),  # noqa: E501
        pytest.param({"hostUsers": False, **_device_ctr("ephemeralContainers")}, PodValidationOptions(), False, id="hostUsers=false & ephemeralContainer volumeDevice"),  # noqa: E501
        pytest.param({"hostUsers": False, **_device_ctr("containers")}, PodValidationOptions(allow_user_namespaces_with_volume_devices=True), True, id="opts: Allow... & hostUsers=false & container volumeDevice"),  # noqa: E501
        pytest.param({"hostUsers": False, **_device_ctr("initContainers")}, PodValidationOptions(allow_user_namespaces_with_volume_devices=True), True, id="opts: Allow... & hostUsers=false & initContainer volumeDevice"),  # noqa: E501
        pytest.param({"hostUsers": False, **_device_ctr("ephemeralContainers")}, PodValidationOptions(allow_user_namespaces_with_volume_devices=True), True, id="opts: Allow... & hostUsers=false & ephemeralContainer volumeDevice"),  # noqa: E501
    ],
)
def test_validate_host_users(spec: Obj, opts: PodValidationOptions, success: bool) -> None:
    errs = pod_security_causes(
        spec, "spec",
        allow_host_network=opts.allow_user_namespaces_host_network_support,
        allow_volume_devices=opts.allow_user_namespaces_with_volume_devices,
    )
    assert (errs == []) is success


def _tsc(*exprs: list[str] | None) -> Obj:
    sel = None if exprs == (None,) else {"matchExpressions": [{"key": "foo", "operator": "NotIn", "values": v} for v in exprs]}  # noqa: E501
    c: Obj = {"maxSkew": 1, "topologyKey": "k8s.io/zone", "whenUnsatisfiable": "DoNotSchedule", "matchLabelKeys": ["foo"]}  # noqa: E501
    if sel is not None:
        c["labelSelector"] = sel
    return {"topologySpreadConstraints": [c]}


def _mlk_opts(mlk: bool, merge: bool, violates: bool = False, legacy: bool = False) -> PodValidationOptions:  # noqa: E501
    return PodValidationOptions(
        allow_match_label_keys_in_pod_topology_spread=mlk,
        allow_match_label_keys_in_pod_topology_spread_selector_merge=merge,
        old_pod_violates_match_label_keys_validation=violates,
        old_pod_violates_legacy_match_label_keys_validation=legacy,
    )


_MERGED = "spec.topologySpreadConstraints[0][0]"
_LEGACY = "spec.topologySpreadConstraints[0].matchLabelKeys[0]"


# --- TestValidateTopologySpreadConstraints: the rows about the matchLabelKeys options
@pytest.mark.parametrize(
    ("spec", "opts", "want"),
    [
        pytest.param(_tsc(["value1"], ["value2", "value3"]), _mlk_opts(True, True), [_MERGED], id="invalid MatchLabelKeys when OldPodViolatesMatchLabelKeysValidation is false"),  # noqa: E501
        pytest.param(_tsc(["value1"], ["value2", "value3"]), _mlk_opts(True, True, violates=True), [_LEGACY], id="invalid MatchLabelKeys when OldPodViolatesMatchLabelKeysValidation is true"),  # noqa: E501
        pytest.param(_tsc(["value1"]), _mlk_opts(True, True), [], id="valid MatchLabelKeys when OldPodViolatesMatchLabelKeysValidation is false"),  # noqa: E501
        pytest.param(_tsc(["value1"]), _mlk_opts(True, False), [_LEGACY], id="invalid MatchLabelKeys when AllowMatchLabelKeysInPodTopologySpreadSelectorMerge is false and OldPodViolatesLegacyMatchLabelKeysValidation is false"),  # noqa: E501
        pytest.param(_tsc(["value1"]), _mlk_opts(True, False, legacy=True), [], id="invalid MatchLabelKeys when AllowMatchLabelKeysInPodTopologySpreadSelectorMerge is false and OldPodViolatesLegacyMatchLabelKeysValidation is true"),  # noqa: E501
        pytest.param(_tsc(), _mlk_opts(True, False), [], id="valid MatchLabelKeys when AllowMatchLabelKeysInPodTopologySpreadSelectorMerge is false and OldPodViolatesLegacyMatchLabelKeysValidation is false"),  # noqa: E501
        pytest.param(_tsc(["value1"], ["value2", "value3"]), _mlk_opts(False, True), [_LEGACY], id="invalid MatchLabelKeys when AllowMatchLabelKeysInPodTopologySpread is false and AllowMatchLabelKeysInPodTopologySpreadSelectorMerge is true"),  # noqa: E501
    ],
)
def test_validate_topology_spread_constraints_match_label_keys(
    spec: Obj, opts: PodValidationOptions, want: list[str]
) -> None:
    errs = pod_spec_rule_causes(spec, "spec", opts)
    assert [c.field for c in errs if c.field.startswith("spec.topologySpreadConstraints")] == want


# --- The APIServer: create, then update, for a pod and for each template kind.

_CTR: Obj = {"name": "c", "image": "busybox"}
_LABELS = {"app": "a"}


def _template(spec: Obj) -> Obj:
    return {"metadata": {"labels": dict(_LABELS)}, "spec": spec}


def _workload(kind: str, spec: Obj) -> Obj:
    """A valid ``kind`` whose pod template's spec is ``spec``."""
    sel = {"matchLabels": dict(_LABELS)}
    meta = {"name": "w", "namespace": "default"}
    if kind == "Pod":
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if kind == "PodTemplate":
        return {"apiVersion": "v1", "kind": "PodTemplate", "metadata": meta, "template": _template(spec)}  # noqa: E501
    if kind == "ReplicationController":
        return {"apiVersion": "v1", "kind": kind, "metadata": meta, "spec": {"selector": dict(_LABELS), "template": _template(spec)}}  # noqa: E501
    if kind in ("Deployment", "ReplicaSet", "DaemonSet"):
        return {"apiVersion": "apps/v1", "kind": kind, "metadata": meta, "spec": {"selector": sel, "template": _template(spec)}}  # noqa: E501
    if kind == "StatefulSet":
        return {"apiVersion": "apps/v1", "kind": kind, "metadata": meta, "spec": {"selector": sel, "serviceName": "s", "template": _template(spec)}}  # noqa: E501
    job_spec = {"template": _template({**spec, "restartPolicy": "OnFailure"})}
    if kind == "Job":
        return {"apiVersion": "batch/v1", "kind": kind, "metadata": meta, "spec": job_spec}
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta,
            "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": job_spec}}}  # fmt: skip


def _pod_spec(obj: Obj) -> Obj:
    """The pod spec inside ``obj`` (its template's for a template kind)."""
    if obj["kind"] == "Pod":
        return dict(obj["spec"])
    if obj["kind"] == "PodTemplate":
        return dict(obj["template"]["spec"])
    spec = obj["spec"]["jobTemplate"]["spec"] if obj["kind"] == "CronJob" else obj["spec"]
    return dict(spec["template"]["spec"])


def _prefix(kind: str) -> str:
    return {"Pod": "spec", "PodTemplate": "template.spec", "CronJob": "spec.jobTemplate.spec.template.spec"}.get(kind, "spec.template.spec")  # noqa: E501


def _set_spec(obj: Obj, spec: Obj) -> None:
    if obj["kind"] == "Pod":
        obj["spec"] = spec
    elif obj["kind"] == "PodTemplate":
        obj["template"]["spec"] = spec
    elif obj["kind"] == "CronJob":
        obj["spec"]["jobTemplate"]["spec"]["template"]["spec"] = spec
    else:
        obj["spec"]["template"]["spec"] = spec


def _server(gates: dict[str, bool]) -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates(gates))
    s.create(make_namespace("default").build())
    return s


def _store(s: APIServer, obj: Obj) -> None:
    """Write ``obj`` as an older apiserver would have stored it: defaulted, not validated."""
    obj = copy.deepcopy(obj)
    for default in strategy_for(obj["kind"]).defaulters:
        default(obj, s._context())
    info = s.resource(obj["apiVersion"], obj["kind"])
    key, _ = s._current(info, obj["metadata"])
    s._put(key, obj)


def _touch(obj: Obj) -> Obj:
    """An update that changes no pod spec field: a new label on the object."""
    out = copy.deepcopy(obj)
    out["metadata"].setdefault("labels", {})["touched"] = "yes"
    return out


@dataclass(frozen=True)
class Option:
    """One option: the spec change it waives (``apply``), the gates, and upstream's cause
    (path under the pod spec, reason, message)."""

    gates: dict[str, bool]
    apply: Callable[[Obj], None]
    path: str
    reason: str
    message: str
    # Without the gate the strategy drops the field from an object that did not use it
    # (dropDisabledPodFields), so validation never sees it there.
    dropped: bool = False


def _lt(spec: Obj) -> None:
    spec["tolerations"] = [{"key": "k", "operator": "Lt", "value": "5", "effect": "NoSchedule"}]


def _userns_devices(spec: Obj) -> None:
    spec["hostUsers"] = False
    spec["volumes"] = [{"name": "v", "persistentVolumeClaim": {"claimName": "claim"}}]
    spec["containers"] = [{**_CTR, "volumeDevices": [{"name": "v", "devicePath": "/dev/x"}]}]


def _userns_host_network(spec: Obj) -> None:
    spec["hostUsers"] = False
    spec["hostNetwork"] = True


def _token_path(spec: Obj) -> None:
    token = {"serviceAccountToken": {"path": "../token", "expirationSeconds": 3600}}
    spec["volumes"] = [{"name": "t", "projected": {"sources": [token]}}]


def _node_affinity(spec: Obj) -> None:
    expr = {"key": "k", "operator": "In", "values": ["-bad-"]}
    req = {"nodeSelectorTerms": [{"matchExpressions": [expr]}]}
    spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": req}}


def _pod_affinity(spec: Obj) -> None:
    sel = {"matchExpressions": [{"key": "k", "operator": "In", "values": ["-bad-"]}]}
    term = {"labelSelector": sel, "topologyKey": "zone"}
    spec["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


def _spread_selector(spec: Obj) -> None:
    sel = {"matchExpressions": [{"key": "k", "operator": "In", "values": ["-bad-"]}]}
    spec["topologySpreadConstraints"] = [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": sel}  # noqa: E501
    ]


def _legacy_match_label_keys(spec: Obj) -> None:
    # What a merge-era apiserver stored: the key merged into the selector.
    sel = {"matchExpressions": [{"key": "app", "operator": "In", "values": ["a"]}]}
    spec["topologySpreadConstraints"] = [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": sel, "matchLabelKeys": ["app"]}  # fmt: skip
    ]


def _restart_rules(spec: Obj) -> None:
    rule = {"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}
    spec["containers"] = [{**_CTR, "restartPolicy": "Never", "restartPolicyRules": [rule]}]


def _restart_all(spec: Obj) -> None:
    rule = {"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [42]}}
    spec["containers"] = [{**_CTR, "restartPolicy": "Never", "restartPolicyRules": [rule]}]


def _non_sidecar_restart(spec: Obj) -> None:
    rp = [{"resourceName": "cpu", "restartPolicy": "RestartContainer"}]
    spec["initContainers"] = [{"name": "i", "image": "busybox", "resizePolicy": rp}]


def _host_sysctl(spec: Obj) -> None:
    spec["hostNetwork"] = True
    spec["securityContext"] = {"sysctls": [{"name": "net.ipv4.ip_forward", "value": "1"}]}


def _mount_option(spec: Obj) -> None:
    spec["securityContext"] = {"seLinuxChangePolicy": "MountOption"}


def _sys_admin(spec: Obj) -> None:
    sc = {"allowPrivilegeEscalation": False, "capabilities": {"add": ["CAP_SYS_ADMIN"]}}
    spec["containers"] = [{**_CTR, "securityContext": sc}]


_USERNS = "when `hostUsers` is false"
_BAD_VALUE = 'Invalid value: "-bad-": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')'  # noqa: E501
_RESTART_OFF = {"ContainerRestartRules": False, "RestartAllContainersOnContainerExits": False}

OPTIONS: dict[str, Option] = {
    "AllowTaintTolerationComparisonOperators": Option(
        {}, _lt, "tolerations[0].operator", "FieldValueNotSupported",
        'Unsupported value: "Lt": supported values: "Equal", "Exists", "Lt", "Gt"',
    ),
    "AllowUserNamespacesWithVolumeDevices": Option(
        {}, _userns_devices, "containers[0].volumeDevices", "FieldValueForbidden", f"Forbidden: {_USERNS}"),  # noqa: E501
    "AllowUserNamespacesHostNetworkSupport": Option(
        {}, _userns_host_network, "hostNetwork", "FieldValueForbidden", f"Forbidden: {_USERNS}"),
    "AllowNonLocalProjectedTokenPath": Option(
        {}, _token_path, "volumes[0].projected.path", "FieldValueInvalid",
        'Invalid value: "../token": must not contain \'..\'',
    ),
    "AllowInvalidLabelValueInRequiredNodeAffinity": Option(
        {}, _node_affinity,
        "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0]",  # noqa: E501
        "FieldValueInvalid", _BAD_VALUE,
    ),
    "AllowInvalidLabelValueInSelector": Option(
        {}, _pod_affinity,
        "affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values[0]",  # noqa: E501
        "FieldValueInvalid", _BAD_VALUE.replace('"-bad-"', "'-bad-'"),
    ),
    "AllowInvalidTopologySpreadConstraintLabelSelector": Option(
        {}, _spread_selector, "topologySpreadConstraints[0].labelSelector.matchExpressions[0].values[0]",  # noqa: E501
        "FieldValueInvalid", _BAD_VALUE.replace('"-bad-"', "'-bad-'"),
    ),
    "OldPodViolatesLegacyMatchLabelKeysValidation": Option(
        {"MatchLabelKeysInPodTopologySpreadSelectorMerge": False}, _legacy_match_label_keys,
        "topologySpreadConstraints[0].matchLabelKeys[0]", "FieldValueInvalid",
        'Invalid value: "app": exists in both matchLabelKeys and labelSelector',
    ),
    "AllowContainerRestartPolicyRules": Option(
        _RESTART_OFF, _restart_rules, "containers[0].restartPolicy", "FieldValueForbidden",
        "Forbidden: may not be set for non-init containers", dropped=True,
    ),
    "AllowRestartAllContainers": Option(
        {"RestartAllContainersOnContainerExits": False}, _restart_all,
        "containers[0].restartPolicyRules[0].action", "FieldValueNotSupported",
        'Unsupported value: "RestartAllContainers": supported values: "Restart"',
    ),
    "AllowExistingRestartContainerForNonSidecarInitContainer": Option(
        {}, _non_sidecar_restart, "initContainers[0].resizePolicy[0].restartPolicy", "FieldValueInvalid",  # noqa: E501
        "Invalid value: \"RestartContainer\": must not be set to 'RestartContainer' for non-sidecar initContainers",  # noqa: E501
    ),
    "AllowNamespacedSysctlsForHostNetAndHostIPC": Option(
        {}, _host_sysctl, "securityContext.sysctls[0].name", "FieldValueInvalid",
        'Invalid value: "net.ipv4.ip_forward": may not be specified when \'hostNetwork\' is true',
    ),
    # An option that restricts: without SELinuxMount only Recursive, unless the old spec set one.
    "AllowOnlyRecursiveSELinuxChangePolicy": Option(
        {"SELinuxMount": False}, _mount_option, "securityContext.seLinuxChangePolicy",
        "FieldValueNotSupported", 'Unsupported value: "MountOption": supported values: "Recursive"',
    ),
    "AllowSysAdminWhenPrivilegeEscalationFalse": Option(
        {}, _sys_admin, "containers[0].securityContext", "FieldValueInvalid",
        "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN",
    ),
}

KINDS = ("Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob",
         "ReplicationController", "PodTemplate")  # fmt: skip


def _with(kind: str, option: Option) -> Obj:
    obj = _workload(kind, {"containers": [dict(_CTR)]})
    spec = _pod_spec(obj)
    option.apply(spec)
    _set_spec(obj, spec)
    return obj


def _has(causes: tuple[Cause, ...], kind: str, option: Option) -> bool:
    field = f"{_prefix(kind)}.{option.path}"
    return any(
        c.field == field and c.reason == option.reason and option.message in c.message for c in causes
    )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_option_refuses_on_create(name: str, kind: str) -> None:
    """Without an old object the option is off: the create is refused with the cause."""
    option = OPTIONS[name]
    s = _server(option.gates)
    if option.dropped:
        assert "restartPolicy" not in _pod_spec(s.create(_with(kind, option)))["containers"][0]
        return
    with pytest.raises(Invalid) as err:
        s.create(_with(kind, option))
    assert _has(err.value.causes, kind, option), err.value.causes


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_option_ratchets_an_update_of_an_object_that_had_it(name: str, kind: str) -> None:
    """The stored object already had it: an update keeping it is accepted."""
    option = OPTIONS[name]
    s = _server(option.gates)
    created = s.create(_workload(kind, {"containers": [dict(_CTR)]}))
    spec = _pod_spec(created)
    option.apply(spec)
    _set_spec(created, spec)
    _store(s, created)
    stored = s.get(created["apiVersion"], kind, "w", "default")
    updated = s.update(_touch(stored))
    assert updated["metadata"]["labels"]["touched"] == "yes"
    fragment: Obj = {"containers": [dict(_CTR)]}
    option.apply(fragment)
    assert _subset(fragment, _pod_spec(updated))  # kept (with what defaulting adds)


def _subset(a: Any, b: Any) -> bool:
    """``a`` within ``b``: dict keys recursively, lists item by item."""
    if isinstance(a, dict):
        return isinstance(b, dict) and all(k in b and _subset(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_subset, a, b))
    return bool(a == b)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_option_refuses_an_update_of_an_object_that_had_it_not(name: str, kind: str) -> None:
    """The stored object did not have it: an update adding it is refused with the cause
    (a pod's spec is mostly immutable, so its update may be refused for that too)."""
    option = OPTIONS[name]
    s = _server(option.gates)
    created = s.create(_workload(kind, {"containers": [dict(_CTR)]}))
    spec = _pod_spec(created)
    option.apply(spec)
    _set_spec(created, spec)
    if option.dropped and kind not in ("Pod", "Job"):  # those two refuse the spec change
        assert "restartPolicy" not in _pod_spec(s.update(created))["containers"][0]
        return
    if option.dropped:
        pytest.skip("the field is dropped; the pod and job template changes are refused as immutable")  # noqa: E501
    with pytest.raises(Invalid) as err:
        s.update(created)
    assert _has(err.value.causes, kind, option), err.value.causes


def test_template_options_come_from_the_old_template() -> None:
    """``GetValidationOptionsFromPodTemplate``: the old template's spec and metadata."""
    old = _template({"tolerations": [{"key": "k", "operator": "Gt", "value": "1"}]})
    gates = FeatureGates()
    assert options_from_pod_template(_template({}), old, gates).allow_taint_toleration_comparison_operators  # noqa: E501
    assert not options_from_pod_template(_template({}), None, gates).allow_taint_toleration_comparison_operators  # noqa: E501
    created = options_from_pod_spec_and_meta({}, None, {}, None, gates)
    assert not created.allow_user_namespaces_with_volume_devices
    assert created.allow_restart_all_containers and created.allow_container_restart_policy_rules


def test_ephemeral_containers_get_the_sys_admin_ratchet() -> None:
    """pods/ephemeralcontainers: the stored pod's CAP_SYS_ADMIN without escalation lets
    an ephemeral container have it too; without it the container is refused."""
    for had in (True, False):
        s = _server({})
        pod = s.create(_workload("Pod", {"containers": [dict(_CTR)]}))
        if had:
            _sys_admin(pod["spec"])
            _store(s, pod)
            pod = s.get("v1", "Pod", "w", "default")
        sc = {"allowPrivilegeEscalation": False, "capabilities": {"add": ["CAP_SYS_ADMIN"]}}
        body = copy.deepcopy(pod)
        body["spec"]["ephemeralContainers"] = [
            {"name": "debug", "image": "busybox", "securityContext": sc,
             "terminationMessagePolicy": "File", "imagePullPolicy": "Always"}  # fmt: skip
        ]
        if had:
            got = s.update_ephemeralcontainers(body)
            assert [c["name"] for c in got["spec"]["ephemeralContainers"]] == ["debug"]
        else:
            with pytest.raises(Invalid) as err:
                s.update_ephemeralcontainers(body)
            assert [c.field for c in err.value.causes] == ["spec.ephemeralContainers[0].securityContext"]  # noqa: E501


def _status(state: str) -> Obj:
    body: Obj = {"terminated": {"exitCode": 1}} if state == "terminated" else {"running": {}}
    return {"name": "c", "image": "busybox", "imageID": "", "ready": False, "restartCount": 0, "state": body}  # noqa: E501


@pytest.mark.parametrize("had", [True, False], ids=["old spec used restart rules", "old spec did not"])  # noqa: E501
def test_status_state_transition_follows_the_restart_rules_option(had: bool) -> None:
    """``ValidateContainerStateTransition``: with ContainerRestartRules off, the rules (a
    container's own restartPolicy) still decide for a pod that used them; else the pod's
    restartPolicy Never keeps a terminated container terminated."""
    s = _server(_RESTART_OFF)
    pod = s.create(_workload("Pod", {"containers": [dict(_CTR)], "restartPolicy": "Never"}))
    if had:
        pod["spec"]["containers"][0]["restartPolicy"] = "Always"
        _store(s, pod)
    for state in ("terminated", "running"):
        pod = s.get("v1", "Pod", "w", "default")
        pod["status"]["containerStatuses"] = [_status(state)]
        if had or state == "terminated":
            s.update_status(pod)
            continue
        with pytest.raises(Invalid) as err:
            s.update_status(pod)
        assert [(c.field, c.message) for c in err.value.causes] == [
            ("status.containerStatuses[0].state", "Forbidden: may not be transitioned to non-terminated state")  # noqa: E501
        ]
