"""Rows of pkg/api/pod/util_test.go (v1.37.2) for the drops of locked GA gates
(``strategies.pod_ga_drops``): TestDropHostUsers, TestDropHostnameOverride,
TestDropSupplementalGroupsPolicy, TestDropInPlacePodVerticalScaling and
TestDropDynamicResourceAllocation (with ``pod_status_drops``), TestDropProcMount,
TestDropNodeInclusionPolicyFields, TestDropImageVolumes, TestDropSELinuxChangePolicy and
Test_dropDisabledMatchLabelKeysFieldInPodAffinity. The Go tests turn the gate off at an
older emulation version; here a gate table with that gate unlocked stands in.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from reference_impl.apiserver.strategies.pod_ga_drops import drop_ga_fields
from reference_impl.apiserver.strategies.pod_status_drops import drop_disabled_pod_status_fields
from reference_impl.features import GATES, FeatureGates

Obj = dict[str, Any]


def _gates(gate: str, enabled: bool) -> FeatureGates:
    known = {n: replace(s, locked=False) if n == gate else s for n, s in GATES.items()}
    return FeatureGates({gate: enabled}, known=known)


Info = dict[str, tuple[bool, Obj | None]]


def _matrix(infos: Info) -> list[Any]:
    """gate x old x new, the new pod never nil, upstream's row names."""
    return [
        pytest.param(e, o, n, id=f"feature enabled={str(e).lower()}, old pod {o}, new pod {n}")
        for e in (True, False)
        for o in infos
        for n in infos
        if infos[n][1] is not None
    ]


def _run(gate: str, enabled: bool, infos: Info, old_name: str, new_name: str) -> tuple[Obj, Obj, bool, bool]:  # noqa: E501
    """(got, new as given, old has the field, new has it) after the drops."""
    old_has, old = infos[old_name]
    new_has, new = infos[new_name]
    assert new is not None
    got, old_copy = copy.deepcopy(new), copy.deepcopy(old)
    gates = _gates(gate, enabled)
    drop_ga_fields(got["spec"], None if old_copy is None else old_copy["spec"], gates)
    drop_disabled_pod_status_fields(
        got.setdefault("status", {}),
        None if old_copy is None else old_copy.get("status", {}),
        got["spec"],
        None if old_copy is None else old_copy["spec"],
        gates,
    )
    if not got["status"] and "status" not in new:
        del got["status"]
    assert old_copy == old  # the old pod is never changed
    return got, new, old_has, new_has


_HOST_USERS: Info = {
    "with hostUsers=true": (True, {"spec": {"hostUsers": True}}),
    "with hostUsers=false": (True, {"spec": {"hostUsers": False}}),
    "with hostUsers=nil": (False, None),
}


@pytest.mark.parametrize(("enabled", "old_name", "new_name"), _matrix(_HOST_USERS))
def test_drop_host_users(enabled: bool, old_name: str, new_name: str) -> None:
    got, new, old_has, new_has = _run("UserNamespacesSupport", enabled, _HOST_USERS, old_name, new_name)  # noqa: E501
    assert got == (new if enabled or old_has or not new_has else {"spec": {}})


_HOSTNAME: Info = {
    "with HostnameOverride=true": (True, {"spec": {"hostnameOverride": "custom-hostname"}}),
    "with HostnameOverride=nil": (False, {"spec": {}}),
}


@pytest.mark.parametrize(("enabled", "old_name", "new_name"), _matrix(_HOSTNAME))
def test_drop_hostname_override(enabled: bool, old_name: str, new_name: str) -> None:
    got, new, old_has, new_has = _run("HostnameOverride", enabled, _HOSTNAME, old_name, new_name)
    assert got == (new if enabled or old_has or not new_has else {"spec": {}})


def _sgp(policy: bool) -> Obj:
    status: Obj = {"name": "c1", "image": "image"}
    sc: Obj = {}
    if policy:
        sc["supplementalGroupsPolicy"] = "Merge"
        status["user"] = {"linux": {"uid": 0, "gid": 0, "supplementalGroups": [0, 1000]}}
    return {
        "spec": {"securityContext": sc, "containers": [{"name": "c1", "image": "image"}]},
        "status": {"containerStatuses": [status]},
    }


_SGP: Info = {
    "with SupplementalGroupsPolicy and User": (True, _sgp(True)),
    "without SupplementalGroupsPolicy and User": (False, _sgp(False)),
    "is nil": (False, None),
}


@pytest.mark.parametrize(("enabled", "old_name", "new_name"), _matrix(_SGP))
def test_drop_supplemental_groups_policy(enabled: bool, old_name: str, new_name: str) -> None:
    got, new, old_has, new_has = _run("SupplementalGroupsPolicy", enabled, _SGP, old_name, new_name)  # noqa: E501
    assert got == (new if enabled or old_has or not new_has else _sgp(False))


def _proc(mount: str | None) -> Obj:
    def ctr() -> Obj:
        sc = {} if mount is None else {"procMount": mount}
        return {"name": "container1", "image": "testimage", "securityContext": sc}

    return {"spec": {"restartPolicy": "Never", "containers": [ctr()], "initContainers": [ctr()]}}


_PROC: Info = {
    "has ProcMount": (True, _proc("Unmasked")),
    "has default ProcMount": (False, _proc("Default")),
    "does not have ProcMount": (False, _proc(None)),
    "is nil": (False, None),
}


@pytest.mark.parametrize(("enabled", "old_name", "new_name"), _matrix(_PROC))
def test_drop_proc_mount(enabled: bool, old_name: str, new_name: str) -> None:
    got, new, old_has, new_has = _run("ProcMountType", enabled, _PROC, old_name, new_name)
    if enabled or old_has or not new_has:
        assert got == new
    else:  # forced to the default, not dropped
        assert got != new
        assert got == _proc("Default")


def _tsc(*cs: Obj) -> Obj:
    return {"topologySpreadConstraints": list(cs)}


_AFF_H: Obj = {"nodeAffinityPolicy": "Honor"}
_AFF_I: Obj = {"nodeAffinityPolicy": "Ignore"}
_TAINT_I: Obj = {"nodeTaintsPolicy": "Ignore"}
_TAINT_H: Obj = {"nodeTaintsPolicy": "Honor"}


# TestDropNodeInclusionPolicyFields: (enabled, old, new, want)
@pytest.mark.parametrize(
    ("enabled", "old", "new", "want"),
    [
        pytest.param(False, _tsc(), _tsc(), _tsc(), id="feature disabled, both pods don't use the fields"),  # noqa: E501
        pytest.param(False, _tsc(_AFF_H), _tsc(), _tsc(), id="feature disabled, only old pod use NodeAffinityPolicy field"),  # noqa: E501
        pytest.param(False, _tsc(_TAINT_I), _tsc(), _tsc(), id="feature disabled, only old pod use NodeTaintsPolicy field"),  # noqa: E501
        pytest.param(False, _tsc(), _tsc(_AFF_H), _tsc({}), id="feature disabled, only current pod use NodeAffinityPolicy field"),  # noqa: E501
        pytest.param(False, _tsc(), _tsc(_TAINT_I), _tsc({}), id="feature disabled, only current pod use NodeTaintsPolicy field"),  # noqa: E501
        pytest.param(False, _tsc(_AFF_H), _tsc(_AFF_I), _tsc(_AFF_I), id="feature disabled, both pods use NodeAffinityPolicy fields"),  # noqa: E501
        pytest.param(False, _tsc(_TAINT_I), _tsc(_TAINT_H), _tsc(_TAINT_H), id="feature disabled, both pods use NodeTaintsPolicy fields"),  # noqa: E501
        pytest.param(True, _tsc({**_AFF_I, **_TAINT_H}), _tsc({**_AFF_H, **_TAINT_I}), _tsc({**_AFF_H, **_TAINT_I}), id="feature enabled, both pods use the fields"),  # noqa: E501
        pytest.param(True, _tsc(_AFF_H), _tsc(), _tsc(), id="feature enabled, only old pod use NodeAffinityPolicy field"),  # noqa: E501
        pytest.param(True, _tsc(_TAINT_I), _tsc(), _tsc(), id="feature enabled, only old pod use NodeTaintsPolicy field"),  # noqa: E501
        pytest.param(True, _tsc(), _tsc(_AFF_I), _tsc(_AFF_I), id="feature enabled, only current pod use NodeAffinityPolicy field"),  # noqa: E501
        pytest.param(True, _tsc(), _tsc(_TAINT_H), _tsc(_TAINT_H), id="feature enabled, only current pod use NodeTaintsPolicy field"),  # noqa: E501
    ],
)
def test_drop_node_inclusion_policy_fields(enabled: bool, old: Obj, new: Obj, want: Obj) -> None:
    got = copy.deepcopy(new)
    drop_ga_fields(got, copy.deepcopy(old), _gates("NodeInclusionPolicyInPodTopologySpread", enabled))  # noqa: E501
    assert got == want


def _unlocked(**values: bool) -> FeatureGates:
    known = {n: replace(s, locked=False) if n in values else s for n, s in GATES.items()}
    return FeatureGates(values, known=known)


def _drop_pod(new: Obj, old: Obj | None, gates: FeatureGates) -> Obj:
    got, old_copy = copy.deepcopy(new), copy.deepcopy(old)
    drop_ga_fields(got["spec"], None if old_copy is None else old_copy.get("spec") or {}, gates)
    assert old_copy == old
    return got


_IMG_WITH: Obj = {
    "spec": {
        "volumes": [{"name": "volume", "image": {}}, {"name": "volume-other", "hostPath": {}}],
        "containers": [{"volumeMounts": [{"name": "volume"}, {"name": "volume-other"}]}],
        "initContainers": [{"volumeMounts": [{"name": "volume"}]}],
        "ephemeralContainers": [{"volumeMounts": [{"name": "volume"}]}],
    }
}
_IMG_WITHOUT: Obj = {
    "spec": {
        "volumes": [{"name": "volume-other", "hostPath": {}}],
        "containers": [{"volumeMounts": [{"name": "volume-other"}]}],
        "initContainers": [{}],
        "ephemeralContainers": [{}],
    }
}
_NO_POD: Obj = {"spec": {}}


# TestDropImageVolumes: (enabled, old, new, want)
@pytest.mark.parametrize(
    ("enabled", "old", "new", "want"),
    [
        pytest.param(False, _IMG_WITH, _IMG_WITH, _IMG_WITH, id="old with volume / new with volume / disabled"),  # noqa: E501
        pytest.param(False, _IMG_WITHOUT, _IMG_WITH, _IMG_WITHOUT, id="old without volume / new with volume / disabled"),  # noqa: E501
        pytest.param(False, _NO_POD, _IMG_WITH, _IMG_WITHOUT, id="no old pod/ new with volume / disabled"),  # noqa: E501
        pytest.param(False, None, _IMG_WITH, _IMG_WITHOUT, id="nil old pod/ new with volume / disabled"),  # noqa: E501
        pytest.param(False, _IMG_WITH, _IMG_WITHOUT, _IMG_WITHOUT, id="old with volume / new without volume / disabled"),  # noqa: E501
        pytest.param(False, _IMG_WITHOUT, _IMG_WITHOUT, _IMG_WITHOUT, id="old without volume / new without volume / disabled"),  # noqa: E501
        pytest.param(False, _NO_POD, _IMG_WITHOUT, _IMG_WITHOUT, id="no old pod/ new without volume / disabled"),  # noqa: E501
        pytest.param(True, _IMG_WITH, _IMG_WITH, _IMG_WITH, id="old with volume / new with volume / enabled"),  # noqa: E501
        pytest.param(True, _IMG_WITHOUT, _IMG_WITH, _IMG_WITH, id="old without volume / new with volume / enabled"),  # noqa: E501
        pytest.param(True, _NO_POD, _IMG_WITH, _IMG_WITH, id="no old pod/ new with volume / enabled"),  # noqa: E501
        pytest.param(True, _IMG_WITH, _IMG_WITHOUT, _IMG_WITHOUT, id="old with volume / new without volume / enabled"),  # noqa: E501
        pytest.param(True, _IMG_WITHOUT, _IMG_WITHOUT, _IMG_WITHOUT, id="old without volume / new without volume / enabled"),  # noqa: E501
        pytest.param(True, _NO_POD, _IMG_WITHOUT, _IMG_WITHOUT, id="no old pod/ new without volume / enabled"),  # noqa: E501
    ],
)
def test_drop_image_volumes(enabled: bool, old: Obj | None, new: Obj, want: Obj) -> None:
    assert _drop_pod(new, old, _unlocked(ImageVolume=enabled)) == want


def _selinux(policy: str | None) -> Obj:
    return {"spec": {"securityContext": {} if policy is None else {"seLinuxChangePolicy": policy}}}


_REC, _MOUNT, _NULL = _selinux("Recursive"), _selinux("MountOption"), _selinux(None)
_SELINUX_ROWS: list[tuple[str, Obj | None, Obj, Obj]] = [
    ("no old pod, new pod with Recursive", None, _REC, _REC),
    ("no old pod, new pod with MountOption", None, _MOUNT, _MOUNT),
    ("old pod with Recursive, new pod with Recursive", _REC, _REC, _REC),
    ("old pod with MountOption, new pod with Recursive", _MOUNT, _REC, _REC),
]
_SELINUX_GATES = (
    ("all features disabled", False, False),
    ("SELinuxChangePolicy feature enabled", True, False),
    ("SELinuxChangePolicy + SELinuxMount features enabled", True, True),
)


# TestDropSELinuxChangePolicy: with every gate off, a new policy is dropped (want: nil).
@pytest.mark.parametrize(
    ("old", "new", "want", "change_policy", "mount"),
    [
        pytest.param(old, new, want if cp or old is not None else _NULL, cp, m, id=f"{name}, {gname}")  # noqa: E501
        for gname, cp, m in _SELINUX_GATES
        for name, old, new, want in _SELINUX_ROWS
    ],
)
def test_drop_selinux_change_policy(
    old: Obj | None, new: Obj, want: Obj, change_policy: bool, mount: bool
) -> None:
    gates = _unlocked(SELinuxChangePolicy=change_policy, SELinuxMount=mount)
    assert _drop_pod(new, old, gates) == want


def _ippvs(with_: bool) -> Obj:
    ctr: Obj = {"name": "c1", "image": "image", "resources": {"requests": {"cpu": "100m"}, "limits": {"cpu": "200m"}}}  # noqa: E501
    status: Obj = {"name": "c1", "image": "image"}
    if with_:
        ctr["resizePolicy"] = [
            {"resourceName": "cpu", "restartPolicy": "NotRequired"},
            {"resourceName": "memory", "restartPolicy": "RestartContainer"},
        ]
        status["allocatedResources"] = {"cpu": "100m"}
        status["resources"] = {"requests": {"cpu": "200m"}, "limits": {"cpu": "300m"}}
    return {"spec": {"containers": [ctr]}, "status": {"containerStatuses": [status]}}


_IPPVS: Info = {
    "has in-place vertical scaling enabled with resources": (True, _ippvs(True)),
    "has in-place vertical scaling disabled": (False, _ippvs(False)),
    "is nil": (False, None),
}


# TestDropInPlacePodVerticalScaling (spec and status drops together)
@pytest.mark.parametrize(
    ("enabled", "old_name", "new_name"),
    [
        pytest.param(e, o, n, id=f"InPlacePodVerticalScaling={str(e).lower()}/old pod {o}, new pod {n}")  # noqa: E501
        for e in (True, False)
        for o in _IPPVS
        for n in _IPPVS
        if _IPPVS[n][1] is not None
    ],
)
def test_drop_in_place_pod_vertical_scaling(enabled: bool, old_name: str, new_name: str) -> None:
    got, new, old_has, new_has = _run("InPlacePodVerticalScaling", enabled, _IPPVS, old_name, new_name)  # noqa: E501
    if enabled or old_has or not new_has:
        assert got == new
    else:
        assert got == _ippvs(False)


_KEYS: Obj = {"matchLabelKeys": ["foo"], "mismatchLabelKeys": ["foo"]}


def _affinity(kind: str, where: str, term: Obj | None) -> Obj:
    """A spec with one (anti-)affinity list, empty or holding ``term``."""
    field = f"{where}DuringSchedulingIgnoredDuringExecution"
    items: list[Obj] = []
    if term is not None:
        items = [{"podAffinityTerm": copy.deepcopy(term)}] if where == "preferred" else [copy.deepcopy(term)]  # noqa: E501
    return {"affinity": {kind: {field: items}}}


# The 7 rows of each section: (text, enabled, old term, new term, want term); None: empty.
_AFF_ROWS: list[tuple[str, bool, Obj | None, Obj | None, Obj | None]] = [
    ("feature disabled, both pods don't use MatchLabelKeys/MismatchLabelKeys fields", False, None, None, None),  # noqa: E501
    ("feature disabled, only old pod uses MatchLabelKeys/MismatchLabelKeys field", False, _KEYS, None, None),  # noqa: E501
    ("feature disabled, only current pod uses MatchLabelKeys/MismatchLabelKeys field", False, None, _KEYS, {}),  # noqa: E501
    ("feature disabled, both pods use MatchLabelKeys/MismatchLabelKeys fields", False, _KEYS, _KEYS, _KEYS),  # noqa: E501
    ("feature enabled, only old pod uses MatchLabelKeys/MismatchLabelKeys field", True, _KEYS, None, None),  # noqa: E501
    ("feature enabled, only current pod uses MatchLabelKeys/MismatchLabelKeys field", True, None, _KEYS, _KEYS),  # noqa: E501
    ("feature enabled, both pods use MatchLabelKeys/MismatchLabelKeys fields", False, _KEYS, _KEYS, _KEYS),  # noqa: E501
]
_SECTIONS = (
    ("PodAffinity", "podAffinity", "required"),
    ("PodAffinity", "podAffinity", "preferred"),
    ("PodAntiAffinity", "podAntiAffinity", "required"),
    ("PodAntiAffinity", "podAntiAffinity", "preferred"),
)


@pytest.mark.parametrize(
    ("enabled", "old", "new", "want"),
    [
        pytest.param(
            en, _affinity(k, w, o), _affinity(k, w, n), _affinity(k, w, x), id=f"[{label}/{w}] {text}"
        )
        for label, k, w in _SECTIONS
        for text, en, o, n, x in _AFF_ROWS
    ],
)
def test_drop_disabled_match_label_keys_field_in_pod_affinity(
    enabled: bool, old: Obj, new: Obj, want: Obj
) -> None:
    got = copy.deepcopy(new)
    drop_ga_fields(got, copy.deepcopy(old), _gates("MatchLabelKeysInPodAffinity", enabled))
    assert got == want


def _dra_pod(claims: bool = False, status: Obj | None = None, first_only: bool = False) -> Obj:
    """TestDropDynamicResourceAllocation's pods; ``first_only``: the claim is requested by
    the regular container alone (the node allocatable pods)."""

    def ctr(with_claim: bool) -> Obj:
        return {"resources": {"claims": [{"name": "my-claim"}]} if with_claim else {}}

    spec: Obj = {
        "containers": [ctr(claims)],
        "initContainers": [ctr(claims and not first_only)],
        "ephemeralContainers": [ctr(claims and not first_only)],
    }
    if claims:
        spec["resourceClaims"] = [{"name": "my-claim", "resourceClaimName": "external-claim"}]
    pod: Obj = {"spec": spec}
    if status is not None:
        pod["status"] = status
    return pod


_WITH_CLAIMS = _dra_pod(True, {"resourceClaimStatuses": [{"name": "my-claim", "resourceClaimName": "pod-my-claim"}]})  # noqa: E501
_WITHOUT_CLAIMS = _dra_pod()
_EXTENDED = _dra_pod(status={"extendedResourceClaimStatus": {"resourceClaimName": "resource-claim-name", "requestMappings": [{"containerName": "c", "resourceName": "e", "requestName": "c-0-r-0"}]}})  # noqa: E501
_NAR_MAPPING = _dra_pod(True, {"nodeAllocatableResourceClaimStatuses": [{"resourceClaimName": "node-allocatable-claim", "mapping": [{"name": "memory", "quantity": "100Mi"}]}]}, first_only=True)  # noqa: E501
_NAR_OVERHEAD = _dra_pod(True, {"nodeAllocatableResourceClaimStatuses": [{"resourceClaimName": "node-allocatable-claim", "overhead": [{"name": "memory", "perPod": "100Mi"}]}]}, first_only=True)  # noqa: E501
_NAR_WITHOUT = _dra_pod(True, first_only=True)


def _dra_rows() -> list[Any]:
    rows: list[Any] = []
    pods = {"with claims": _WITH_CLAIMS, "without claims": _WITHOUT_CLAIMS}
    olds: dict[str, Obj | None] = {"old with claims": _WITH_CLAIMS, "old without claims": _WITHOUT_CLAIMS, "no old pod": None}  # noqa: E501
    for enabled in (False, True):
        for new_name, new in pods.items():
            for old_name, old in olds.items():
                keep = enabled or old is _WITH_CLAIMS or new is _WITHOUT_CLAIMS
                sep = "/" if old is None else " /"
                name = f"{old_name}{sep} new {new_name} / {'enabled' if enabled else 'disabled'}"
                rows.append(pytest.param(enabled, True, False, old, new, new if keep else _WITHOUT_CLAIMS, id=name))  # noqa: E501
    for dra, ext, label in ((False, False, "disabled"), (True, False, "extended disabled only"), (True, True, "enabled")):  # noqa: E501
        want = _EXTENDED if ext else _WITHOUT_CLAIMS
        rows.append(pytest.param(dra, ext, False, None, _EXTENDED, want, id=f"extended resource / no old pod/ new with extended resource / {label}"))  # noqa: E501
        rows.append(pytest.param(dra, ext, False, _WITHOUT_CLAIMS, _EXTENDED, want, id=f"extended resource / old without claim / new with extended resource / {label}"))  # noqa: E501
    for nar in (False, True):
        state = "enabled" if nar else "disabled"
        for new, tag, what in ((_NAR_MAPPING, "", "node allocatable resource"), (_NAR_OVERHEAD, " (overhead)", "node allocatable resource (overhead)")):  # noqa: E501
            want = new if nar else _NAR_WITHOUT
            rows.append(pytest.param(True, True, nar, None, new, want, id=f"DRA node allocatable resources{tag} / no old pod / new with DRA {what} / {state}"))  # noqa: E501
            status_what = "node allocatable resource status" if not tag else "node allocatable resource (overhead) status"  # noqa: E501
            rows.append(pytest.param(True, True, nar, _NAR_WITHOUT, new, want, id=f"DRA node allocatable resources{tag} / old without node allocatable resource status / new with {status_what} / {state}"))  # noqa: E501
    return rows


# TestDropDynamicResourceAllocation: spec and status drops (DropDisabledPodFields).
@pytest.mark.parametrize(("dra", "extended", "nar", "old", "new", "want"), _dra_rows())
def test_drop_dynamic_resource_allocation(
    dra: bool, extended: bool, nar: bool, old: Obj | None, new: Obj, want: Obj
) -> None:
    gates = _unlocked(
        DynamicResourceAllocation=dra, DRAExtendedResource=extended, DRANodeAllocatableResources=nar
    )
    got, old_copy = copy.deepcopy(new), copy.deepcopy(old)
    old_spec = None if old_copy is None else old_copy["spec"]
    drop_ga_fields(got["spec"], old_spec, gates)
    status = got.setdefault("status", {})
    old_status = None if old_copy is None else old_copy.get("status", {})
    drop_disabled_pod_status_fields(status, old_status, got["spec"], old_spec, gates)
    if not status:
        del got["status"]
    assert old_copy == old
    assert got == want
