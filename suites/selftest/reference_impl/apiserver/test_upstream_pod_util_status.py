"""Rows of pkg/api/pod/util_test.go (v1.37.2) for ``dropDisabledPodStatusFields``
(``strategies.pod_status_drops``): TestDropDisabledPodStatusFields_HostIPs,
_ObservedGeneration, _VolumeHealth, _ResourceHealthStatus, _ResourceHealthStatusMessage,
_InPlacePodLevelResourcesVerticalScaling, TestResourceHealthStatusInUse and
TestResourceHealthStatusMessageInUse, plus one drop through the APIServer's pods/status.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.server import APIServer
from reference_impl.apiserver.strategies import pod_status_drops as drops
from reference_impl.clock import SimClock
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]


def _gates(**values: bool) -> FeatureGates:
    try:
        return FeatureGates(values)
    except ValueError:  # a gate whose dependents are on: turn those off too
        return FeatureGates({**values, "ResourceHealthStatusMessage": False})


def _drop(status: Obj, old: Obj | None, gates: FeatureGates) -> Obj:
    status, old_copy = copy.deepcopy(status), copy.deepcopy(old)
    drops.drop_disabled_pod_status_fields(status, old_copy, {}, {}, gates)
    assert old_copy == old
    return status


# --- TestDropDisabledPodStatusFields_HostIPs (no gate any more: never dropped)
_HOST_IPS: Obj = {"hostIPs": [{"ip": "10.0.0.1"}, {"ip": "fd00:10::1"}]}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param({}, {}, id="old=without, new=without"),
        pytest.param({}, _HOST_IPS, id="old=without, new=with"),
        pytest.param(_HOST_IPS, {}, id="old=with, new=without"),
        pytest.param(_HOST_IPS, _HOST_IPS, id="old=with, new=with"),
    ],
)
def test_drop_disabled_pod_status_fields_host_ips(old: Obj, new: Obj) -> None:
    assert _drop(new, old, FeatureGates()) == new


# --- TestDropDisabledPodStatusFields_ObservedGeneration (gate GA, on): nothing dropped
_COND: Obj = {"lastProbeTime": "2026-01-01T00:00:00Z", "lastTransitionTime": "2026-01-01T00:00:00Z"}  # noqa: E501
_GEN: Obj = {"observedGeneration": 1, "conditions": [_COND]}
_GEN_COND: Obj = {"conditions": [{**_COND, "observedGeneration": 1}]}
_NO_GEN: Obj = {"conditions": [_COND]}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(_NO_GEN, _NO_GEN, id="old=without, new=without / feature gate on"),
        pytest.param(_GEN, _NO_GEN, id="old=with, new=without / feature gate on"),
        pytest.param(_GEN, _GEN, id="old=with, new=with / feature gate on"),
        pytest.param(_NO_GEN, _GEN_COND, id="old=without, new=withInConditions / feature gate on"),
        pytest.param(_GEN_COND, _NO_GEN, id="old=withInConditions, new=without / feature gate on"),
        pytest.param(_GEN_COND, _GEN_COND, id="old=withInConditions, new=withInCondtions / feature gate on"),  # noqa: E501
    ],
)
def test_drop_disabled_pod_status_fields_observed_generation(old: Obj, new: Obj) -> None:
    assert _drop(new, old, FeatureGates()) == new


# --- TestDropDisabledPodStatusFields_VolumeHealth: (gate, new, old, want)
_VOL_HEALTH: Obj = {
    "volumeHealth": [
        {"name": "vol1", "healthConditions": [{"status": "Degraded", "reason": "DiskSlow"}]}
    ]
}


@pytest.mark.parametrize(
    ("gate", "old", "want"),
    [
        pytest.param(False, None, {}, id="gate=off, old=nil, new=with; should drop"),
        pytest.param(False, {}, {}, id="gate=off, old=without, new=with; should drop"),
        pytest.param(False, _VOL_HEALTH, _VOL_HEALTH, id="gate=off, old=with, new=with; should keep (backward compat)"),  # noqa: E501
        pytest.param(True, None, _VOL_HEALTH, id="gate=on, old=nil, new=with; should keep"),
        pytest.param(True, {}, _VOL_HEALTH, id="gate=on, old=without, new=with; should keep"),
    ],
)
def test_drop_disabled_pod_status_fields_volume_health(
    gate: bool, old: Obj | None, want: Obj
) -> None:
    assert _drop(_VOL_HEALTH, old, _gates(CSIVolumeHealth=gate)) == want


def _health_status(messages: bool, health: bool = True) -> Obj:
    rows = (
        ("containerStatuses", "container1", "example.com/device", "device-1", "Healthy", "ECC error detected"),  # noqa: E501
        ("initContainerStatuses", "init-container", "example.com/gpu", "gpu-1", "Unhealthy", "GPU temperature high"),  # noqa: E501
        ("ephemeralContainerStatuses", "ephemeral-container", "example.com/nic", "nic-1", "Healthy", "NIC link down"),  # noqa: E501
    )
    out: Obj = {}
    for field, name, res, rid, state, msg in rows:
        cs: Obj = {"name": name}
        if health:
            r: Obj = {"resourceID": rid, "health": state}
            if messages:
                r["message"] = msg
            cs["allocatedResourcesStatus"] = [{"name": res, "resources": [r]}]
        out[field] = [cs]
    return out


_WITH_H, _WITHOUT_H = _health_status(False), _health_status(False, health=False)


# --- TestDropDisabledPodStatusFields_ResourceHealthStatus: (enabled, old, new, want)
@pytest.mark.parametrize(
    ("enabled", "old", "new", "want"),
    [
        pytest.param(True, _WITHOUT_H, _WITHOUT_H, _WITHOUT_H, id="feature enabled, old=without, new=without"),  # noqa: E501
        pytest.param(True, _WITH_H, _WITH_H, _WITH_H, id="feature enabled, old=with, new=with"),
        pytest.param(True, _WITHOUT_H, _WITH_H, _WITH_H, id="feature enabled, old=without, new=with"),  # noqa: E501
        pytest.param(False, _WITHOUT_H, _WITHOUT_H, _WITHOUT_H, id="feature disabled, old=without, new=without"),  # noqa: E501
        pytest.param(False, _WITHOUT_H, _WITH_H, _WITHOUT_H, id="feature disabled, old=without, new=with (should drop)"),  # noqa: E501
        pytest.param(False, _WITH_H, _WITH_H, _WITH_H, id="feature disabled, old=with, new=with (should preserve - bug fix)"),  # noqa: E501
        pytest.param(False, _WITH_H, _WITHOUT_H, _WITHOUT_H, id="feature disabled, old=with, new=without (should preserve nil)"),  # noqa: E501
    ],
)
def test_drop_disabled_pod_status_fields_resource_health_status(
    enabled: bool, old: Obj, new: Obj, want: Obj
) -> None:
    assert _drop(new, old, _gates(ResourceHealthStatus=enabled)) == want


_WITH_M, _WITHOUT_M = _health_status(True), _health_status(False)


# --- TestDropDisabledPodStatusFields_ResourceHealthStatusMessage
@pytest.mark.parametrize(
    ("enabled", "old", "new", "want"),
    [
        pytest.param(True, _WITHOUT_M, _WITHOUT_M, _WITHOUT_M, id="feature enabled, old=without, new=without"),  # noqa: E501
        pytest.param(True, _WITH_M, _WITH_M, _WITH_M, id="feature enabled, old=with, new=with"),
        pytest.param(True, _WITHOUT_M, _WITH_M, _WITH_M, id="feature enabled, old=without, new=with"),  # noqa: E501
        pytest.param(False, _WITHOUT_M, _WITHOUT_M, _WITHOUT_M, id="feature disabled, old=without, new=without"),  # noqa: E501
        pytest.param(False, _WITHOUT_M, _WITH_M, _WITHOUT_M, id="feature disabled, old=without, new=with (should drop)"),  # noqa: E501
        pytest.param(False, _WITH_M, _WITH_M, _WITH_M, id="feature disabled, old=with, new=with (should preserve - bug fix)"),  # noqa: E501
        pytest.param(False, _WITH_M, _WITHOUT_M, _WITHOUT_M, id="feature disabled, old=with, new=without (should preserve nil)"),  # noqa: E501
    ],
)
def test_drop_disabled_pod_status_fields_resource_health_status_message(
    enabled: bool, old: Obj, new: Obj, want: Obj
) -> None:
    assert _drop(new, old, _gates(ResourceHealthStatusMessage=enabled)) == want


def _one(field: str, **extra: Any) -> Obj:
    return {field: [{"name": "c", **extra}]}


_ARS: list[Obj] = [{"name": "example.com/device", "resources": [{"resourceID": "device-1", "health": "Healthy"}]}]  # noqa: E501


# --- TestResourceHealthStatusInUse
@pytest.mark.parametrize(
    ("status", "expected"),
    [
        pytest.param(None, False, id="nil pod status"),
        pytest.param({"containerStatuses": []}, False, id="empty pod status"),
        pytest.param(_one("containerStatuses", allocatedResourcesStatus=_ARS), True, id="pod status with AllocatedResourcesStatus in container"),  # noqa: E501
        pytest.param(_one("initContainerStatuses", allocatedResourcesStatus=_ARS), True, id="pod status with AllocatedResourcesStatus in init container"),  # noqa: E501
        pytest.param(_one("ephemeralContainerStatuses", allocatedResourcesStatus=_ARS), True, id="pod status with AllocatedResourcesStatus in ephemeral container"),  # noqa: E501
        pytest.param(
            {**_one("containerStatuses"), **_one("initContainerStatuses"), **_one("ephemeralContainerStatuses")},  # noqa: E501
            False,
            id="pod status without AllocatedResourcesStatus",
        ),
        pytest.param(_one("containerStatuses", allocatedResourcesStatus=[]), False, id="pod status with empty AllocatedResourcesStatus array"),  # noqa: E501
    ],
)
def test_resource_health_status_in_use(status: Obj | None, expected: bool) -> None:
    assert drops.resource_health_status_in_use(status) is expected


def _msg(message: str | None) -> list[Obj]:
    r: Obj = {"resourceID": "device-1", "health": "Healthy"}
    if message is not None:
        r["message"] = message
    return [{"name": "example.com/device", "resources": [r]}]


# --- TestResourceHealthStatusMessageInUse
@pytest.mark.parametrize(
    ("status", "expected"),
    [
        pytest.param(None, False, id="nil pod status"),
        pytest.param({"containerStatuses": []}, False, id="empty pod status"),
        pytest.param(_one("containerStatuses", allocatedResourcesStatus=_msg("test message")), True, id="pod status with message in container"),  # noqa: E501
        pytest.param(_one("initContainerStatuses", allocatedResourcesStatus=_msg("test message")), True, id="pod status with message in init container"),  # noqa: E501
        pytest.param(_one("ephemeralContainerStatuses", allocatedResourcesStatus=_msg("test message")), True, id="pod status with message in ephemeral container"),  # noqa: E501
        pytest.param(_one("containerStatuses", allocatedResourcesStatus=_msg(None)), False, id="pod status without message (nil pointer)"),  # noqa: E501
        pytest.param(_one("containerStatuses", allocatedResourcesStatus=_msg(None)), False, id="pod status with AllocatedResourcesStatus but no message"),  # noqa: E501
    ],
)
def test_resource_health_status_message_in_use(status: Obj | None, expected: bool) -> None:
    assert drops.resource_health_status_message_in_use(status) is expected


# --- TestDropDisabledPodStatusFields_InPlacePodLevelResourcesVerticalScaling
def _ippr_pod(pod_level: bool) -> Obj:
    res = {"requests": {"cpu": "200m"}, "limits": {"cpu": "300m"}}
    status: Obj = {
        "resize": "InProgress",
        "containerStatuses": [
            {"name": "c1", "image": "image", "allocatedResources": {"cpu": "100m"}, "resources": res}  # noqa: E501
        ],
    }
    if pod_level:
        status = {"resources": res, "allocatedResources": {"cpu": "100m"}, **status}
    spec = {
        "containers": [
            {
                "name": "c1",
                "image": "image",
                "resources": {"requests": {"cpu": "100m"}, "limits": {"cpu": "200m"}},
                "resizePolicy": [
                    {"resourceName": "cpu", "restartPolicy": "NotRequired"},
                    {"resourceName": "memory", "restartPolicy": "RestartContainer"},
                ],
            }
        ]
    }
    return {"spec": spec, "status": status}


_IPPR: dict[str, tuple[bool, Obj | None]] = {
    "without pod-level status resources": (False, _ippr_pod(False)),
    "with pod-level status resources": (True, _ippr_pod(True)),
    "is nil": (False, None),
}


@pytest.mark.parametrize(
    ("enabled", "old_name", "new_name"),
    [
        pytest.param(e, o, n, id=f"InPlacePodLevelResourcesVerticalScaling={str(e).lower()}/old pod {o}, new pod {n}")  # noqa: E501
        for e in (True, False)
        for o in _IPPR
        for n in _IPPR
        if _IPPR[n][1] is not None
    ],
)
def test_drop_disabled_pod_status_fields_in_place_pod_level_resources_vertical_scaling(
    enabled: bool, old_name: str, new_name: str
) -> None:
    old_has, old = _IPPR[old_name]
    new_has, new = _IPPR[new_name]
    assert new is not None
    pod, old_copy = copy.deepcopy(new), copy.deepcopy(old)
    gates = FeatureGates({"NodeDeclaredFeatures": True, "InPlacePodLevelResourcesVerticalScaling": enabled})  # noqa: E501
    drops.drop_disabled_pod_status_fields(
        pod["status"],
        None if old_copy is None else old_copy["status"],
        pod["spec"],
        None if old_copy is None else old_copy["spec"],
        gates,
    )
    assert old_copy == old
    if enabled or old_has or not new_has:
        assert pod == new
    else:
        assert pod != new
        assert pod == _ippr_pod(False)


@pytest.mark.parametrize("enabled", [True, False], ids=["gate on", "gate off"])
def test_volume_health_through_pods_status(enabled: bool) -> None:
    """podStatusStrategy.PrepareForUpdate runs the drop on a pods/status write."""
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates({"CSIVolumeHealth": enabled}))
    s.create(make_namespace("default").build())
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
    }
    got = s.create(pod)
    got = s.update_status({**got, "status": {**got.get("status", {}), **_VOL_HEALTH}})
    assert ("volumeHealth" in got["status"]) is enabled
