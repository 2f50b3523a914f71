"""Rows of pkg/api/pod/util_test.go (v1.37.2) for the pod-spec drops of gates off by default
(``DropDisabledPodFields``): TestDisableEvictionResponders (``core``), TestDisabledSchedulingGroup,
TestDropHTTPProbeProtocol, TestDropVolumeBindMountOptions, TestDropContainerStopSignals,
TestDropEmptyDirVolumeMode, TestDropGRPCContainerProbeTLS and
TestDropAtomicWriteVolumeUserFields (``pod_alpha_drops``), and TestDropFSGroupFields (no
gate left: every drop module keeps the policy).

Upstream's matrix tests (gate x old pod x new pod) keep their generated row names.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from reference_impl.apiserver.registry import Context
from reference_impl.apiserver.strategies.core import drop_disabled_eviction_responders
from reference_impl.apiserver.strategies.pod_alpha_drops import drop_alpha_fields
from reference_impl.apiserver.strategies.pod_beta_drops import drop_beta_fields
from reference_impl.apiserver.strategies.pod_ga_drops import drop_ga_fields
from reference_impl.features import FeatureGates

Obj = dict[str, Any]
NOW = "2026-01-01T00:00:00Z"


def _drop_disabled_pod_fields(new: Obj, old: Obj | None, gates: FeatureGates) -> None:
    """``DropDisabledPodFields``'s spec half: every pod-spec drop module."""
    ctx = Context(gates=gates, get=lambda *_: None, list=lambda *_: [])
    drop_alpha_fields(new, old, "Pod", gates)
    old_spec = None if old is None else old.get("spec") or {}
    if isinstance(new.get("spec"), dict):
        drop_beta_fields(new["spec"], old_spec, gates)
        drop_ga_fields(new["spec"], old_spec, gates)
    drop_disabled_eviction_responders(new, old, NOW, ctx)


def _check(gate: str, enabled: bool, old: Obj | None, new: Obj, want: Obj) -> None:
    old_copy, new_copy = copy.deepcopy(old), copy.deepcopy(new)
    _drop_disabled_pod_fields(new_copy, old_copy, FeatureGates({gate: enabled}))
    assert old_copy == old  # the old pod is never changed
    assert new_copy == want


# --- TestDisableEvictionResponders and TestDisabledSchedulingGroup: (old, new, want)
_WITH_RESPONDERS: Obj = {"spec": {"evictionResponders": [{"name": "graceful-eviction.raspberry.io"}]}}  # noqa: E501
_WITH_GROUP: Obj = {"spec": {"schedulingGroup": {"podGroupName": "pg"}}}
_WITHOUT: Obj = {"spec": {}}


def _with_without_rows(thing: str, with_: Obj) -> list[Any]:
    rows = []
    for enabled in (False, True):
        state = "enabled" if enabled else "disabled"
        for old_has, new_has in ((True, True), (False, True), (True, False), (False, False)):
            old, new = with_ if old_has else _WITHOUT, with_ if new_has else _WITHOUT
            want = with_ if new_has and (enabled or old_has) else _WITHOUT
            name = (
                f"old {'with' if old_has else 'without'} {thing} / "
                f"new {'with' if new_has else 'without'} {thing} / {state}"
            )
            rows.append(pytest.param(enabled, old, new, want, id=name))
    return rows


@pytest.mark.parametrize(("enabled", "old", "new", "want"), _with_without_rows("responders", _WITH_RESPONDERS))  # noqa: E501
def test_disable_eviction_responders(enabled: bool, old: Obj, new: Obj, want: Obj) -> None:
    _check("EvictionRequestAPI", enabled, old, new, want)


@pytest.mark.parametrize(("enabled", "old", "new", "want"), _with_without_rows("scheduling group", _WITH_GROUP))  # noqa: E501
def test_disabled_scheduling_group(enabled: bool, old: Obj, new: Obj, want: Obj) -> None:
    _check("GenericWorkload", enabled, old, new, want)


# --- TestDropHTTPProbeProtocol: (gate, oldProto, newProto, wantDrop)
def _http_spec(proto: str | None) -> Obj:
    get: Obj = {"path": "/", "port": 80, "scheme": "HTTP"}
    if proto is not None:
        get["protocol"] = proto
    return {"spec": {"containers": [{"name": "test", "livenessProbe": {"httpGet": get}}]}}


@pytest.mark.parametrize(
    ("gate", "old_proto", "new_proto", "want_drop"),
    [
        pytest.param(True, None, "HTTP2", False, id="gate on, protocol set - keep"),
        pytest.param(False, "HTTP2", "HTTP2", False, id="gate off, old had protocol - keep (in use)"),  # noqa: E501
        pytest.param(False, None, "HTTP2", True, id="gate off, old did not have protocol - drop protocol field only"),  # noqa: E501
        pytest.param(False, None, None, False, id="gate off, both nil - no change"),
    ],
)
def test_drop_http_probe_protocol(
    gate: bool, old_proto: str | None, new_proto: str | None, want_drop: bool
) -> None:
    want = _http_spec(None if want_drop else new_proto)
    _check("H2CContainerProbe", gate, _http_spec(old_proto), _http_spec(new_proto), want)


def _matrix(
    infos: dict[str, tuple[bool, Obj | None]], stripped: Obj, fmt: Callable[[bool, str, str], str]
) -> list[Any]:
    """Upstream's gate x old x new matrix: the new pod is kept when the gate is on or the
    old pod uses the field, stripped when only the new one does, else unchanged."""
    rows = []
    for enabled in (True, False):
        for old_name, (old_has, old) in infos.items():
            for new_name, (new_has, new) in infos.items():
                if new is None:
                    continue
                want = new if enabled or old_has or not new_has else stripped
                rows.append(pytest.param(enabled, old, new, want, id=fmt(enabled, old_name, new_name)))  # noqa: E501
    return rows


def _mounts(options: bool) -> Obj:
    mount: Obj = {"name": "vol", "mountPath": "/mnt"}
    if options:
        mount["bindMountOptions"] = ["noexec"]
    return {"spec": {"containers": [{"volumeMounts": [mount]}]}}


# TestDropVolumeBindMountOptions: "old pod ..." / "new pod ..." descriptions.
_BIND_ROWS = _matrix(
    {
        "with bindMountOptions": (True, _mounts(True)),
        "without bindMountOptions": (False, _mounts(False)),
    },
    _mounts(False),
    lambda e, o, n: f"feature enabled={str(e).lower()}, old pod {o}, new pod {n}",
)


@pytest.mark.parametrize(("enabled", "old", "new", "want"), _BIND_ROWS)
def test_drop_volume_bind_mount_options(enabled: bool, old: Obj, new: Obj, want: Obj) -> None:
    _check("VolumeBindMountOptions", enabled, old, new, want)


def _empty_dir(mode: bool) -> Obj:
    src: Obj = {"mode": 0o755} if mode else {}
    return {"spec": {"volumes": [{"name": "vol", "emptyDir": src}]}}


@pytest.mark.parametrize(
    ("enabled", "old", "new", "want"),
    _matrix(
        {"with mode": (True, _empty_dir(True)), "without mode": (False, _empty_dir(False))},
        _empty_dir(False),
        lambda e, o, n: f"feature enabled={str(e).lower()}, old pod old pod {o}, new pod new pod {n}",  # noqa: E501
    ),
)
def test_drop_empty_dir_volume_mode(enabled: bool, old: Obj, new: Obj, want: Obj) -> None:
    _check("EmptyDirVolumeMode", enabled, old, new, want)


def _grpc_pod(tls: bool) -> Obj:
    def probe() -> Obj:
        grpc: Obj = {"port": 8443}
        if tls:
            grpc["mode"] = "TLS"
        return {"grpc": grpc}

    def ctr(name: str) -> Obj:
        return {
            "name": name,
            "image": "image",
            "livenessProbe": probe(),
            "readinessProbe": probe(),
            "startupProbe": probe(),
        }

    return {
        "spec": {
            "containers": [ctr("container1")],
            "initContainers": [ctr("initcontainer1")],
            "ephemeralContainers": [ctr("ephemeral1")],
        }
    }


@pytest.mark.parametrize(
    ("enabled", "old", "new", "want"),
    _matrix(
        {
            "with gRPC TLS": (True, _grpc_pod(True)),
            "without gRPC TLS": (False, _grpc_pod(False)),
            "nil pod": (False, None),
        },
        _grpc_pod(False),
        lambda e, o, n: f"feature enabled={str(e).lower()}, old pod {o}, new pod {n}",
    ),
)
def test_drop_grpc_container_probe_tls(
    enabled: bool, old: Obj | None, new: Obj, want: Obj
) -> None:
    _check("GRPCContainerProbeTLS", enabled, old, new, want)


# --- TestDropContainerStopSignals: (gate, old lifecycle, new lifecycle, expected)
_SIGTERM: Obj = {"stopSignal": "SIGTERM"}
_PRESTOP: Obj = {"preStop": {"exec": {"command": ["foo"]}}}
_STOP_ROWS: list[tuple[bool, Obj | None, Obj | None, Obj | None]] = [
    (True, None, None, None),
    (False, _SIGTERM, _SIGTERM, _SIGTERM),
    (False, {}, _SIGTERM, None),
    (True, {}, _SIGTERM, _SIGTERM),
    (False, _PRESTOP, {**_SIGTERM, **_PRESTOP}, _PRESTOP),
    (True, _PRESTOP, {**_SIGTERM, **_PRESTOP}, {**_SIGTERM, **_PRESTOP}),
    (True, {**_SIGTERM, **_PRESTOP}, {**_SIGTERM, **_PRESTOP}, {**_SIGTERM, **_PRESTOP}),
]


def _stop_pod(field: str, lifecycle: Obj | None) -> Obj:
    ctr: Obj = {"name": "foo"}
    if lifecycle is not None:
        ctr["lifecycle"] = copy.deepcopy(lifecycle)
    return {"spec": {"os": {"name": "linux"}, field: [ctr]}}


@pytest.mark.parametrize(
    ("enabled", "old", "new", "want"),
    [pytest.param(*row, id=f"test_{i}") for i, row in enumerate(_STOP_ROWS)],
)
@pytest.mark.parametrize("field", ["containers", "initContainers", "ephemeralContainers"])
def test_drop_container_stop_signals(
    field: str, enabled: bool, old: Obj | None, new: Obj | None, want: Obj | None
) -> None:
    _check(
        "ContainerStopSignals",
        enabled,
        _stop_pod(field, old),
        _stop_pod(field, new),
        _stop_pod(field, want),
    )


def _user_volumes(users: bool) -> list[Obj]:
    """TestDropAtomicWriteVolumeUserFields's volumesWithUserFields (or without the users)."""

    def u(obj: Obj, key: str = "user", value: int = 1001) -> Obj:
        return {**obj, key: value} if users else obj

    key_item = u({"key": "key", "path": "filename"})
    field_item = u({"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}, "path": "filename"})  # noqa: E501
    sources: list[Obj] = [
        {"secret": {"items": [key_item]}},
        {"downwardAPI": {"items": [field_item]}},
        {"configMap": {"items": [key_item]}},
        {"serviceAccountToken": u({"path": "foo"})},
        {"clusterTrustBundle": u({"name": "foo"})},
        {"podCertificate": u({"signerName": "foo.example.com/bar"})},
    ]
    return [
        {"name": "secret", "secret": u({"items": [key_item]}, "defaultUser", 1000)},
        {"name": "downwardapi", "downwardAPI": u({"items": [field_item]}, "defaultUser", 1000)},
        {"name": "configmap", "configMap": u({"items": [key_item]}, "defaultUser", 1000)},
        {"name": "projected", "projected": u({"sources": sources}, "defaultUser", 1000)},
    ]


# TestDropAtomicWriteVolumeUserFields: (enabled, old volumes, new volumes, want volumes)
@pytest.mark.parametrize(
    ("enabled", "old", "new", "want"),
    [
        pytest.param(False, [], _user_volumes(True), _user_volumes(False), id="feature gate disabled, cannot add user fields to volumes"),  # noqa: E501
        pytest.param(True, _user_volumes(True), _user_volumes(True), _user_volumes(True), id="feature gate enabled, can keep user fields on volumes"),  # noqa: E501
        pytest.param(True, [], _user_volumes(True), _user_volumes(True), id="feature gate enabled, can add user fields to volumes"),  # noqa: E501
    ],
)
def test_drop_atomic_write_volume_user_fields(
    enabled: bool, old: list[Obj], new: list[Obj], want: list[Obj]
) -> None:
    _check(
        "AtomicWriteVolumeUserFields",
        enabled,
        {"spec": {"volumes": old}},
        {"spec": {"volumes": new}},
        {"spec": {"volumes": want}},
    )


def _fs_group_pod(policy: bool) -> Obj:
    spec: Obj = {"containers": [{"name": "container1", "image": "testimage"}]}
    if policy:
        spec["securityContext"] = {"fsGroup": 100, "fsGroupChangePolicy": "Always"}
    return {"spec": spec}


# TestDropFSGroupFields (no gate any more): (old pod, new has the policy, expect it kept)
@pytest.mark.parametrize(
    ("old", "new_has", "expect"),
    [
        pytest.param(_fs_group_pod(False), True, True, id="oldPod.FSGroupChangePolicy=nil, feature=true, newPod.FSGroupChangePolicy=true"),  # noqa: E501
        pytest.param(None, True, True, id="oldPod=nil, feature=true, newPod.FSGroupChangePolicy=true"),  # noqa: E501
        pytest.param(_fs_group_pod(True), False, False, id="oldPod.FSGroupChangePolicy=true, feature=true, newPod.FSGroupChangePolicy=false"),  # noqa: E501
    ],
)
def test_drop_fs_group_fields(old: Obj | None, new_has: bool, expect: bool) -> None:
    new = _fs_group_pod(True) if old is None else copy.deepcopy(old)
    if old is not None:
        new["spec"]["securityContext"] = _fs_group_pod(True)["spec"]["securityContext"] if new_has else {}  # noqa: E501
    _drop_disabled_pod_fields(new, copy.deepcopy(old), FeatureGates())
    policy = (new["spec"].get("securityContext") or {}).get("fsGroupChangePolicy")
    assert (policy is not None) is expect
