"""Rows of pkg/api/pod/util_test.go (v1.37.2) for the drops of gates on by default that may
be turned off (``strategies.pod_beta_drops``): TestDropPodLevelResources,
Test_dropDisabledMatchLabelKeysFieldInTopologySpread, TestDropClusterTrustBundleProjectedVolumes,
TestDropPodCertificateProjectedVolumes, Test_dropContainerRestartRules and
TestDropFileKeyRefInUse. A gate turned off takes the gates that depend on it along
(featuregatetesting would refuse the set otherwise).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.apiserver.strategies.pod_beta_drops import drop_beta_fields
from reference_impl.features import DEPENDENCIES, FeatureGates

Obj = dict[str, Any]


def _gates(gate: str, enabled: bool, **extra: bool) -> FeatureGates:
    values = {gate: enabled, **extra}
    if not enabled:
        todo = [gate]
        while todo:
            off = todo.pop()
            for name, deps in DEPENDENCIES.items():
                if off in deps and values.get(name) is not False:
                    values[name] = False
                    todo.append(name)
    return FeatureGates(values)


def _check(gates: FeatureGates, old: Obj | None, new: Obj, want: Obj) -> None:
    old_copy, new_copy = copy.deepcopy(old), copy.deepcopy(new)
    drop_beta_fields(new_copy, old_copy, gates)
    assert old_copy == old
    assert new_copy == want


_CONTAINERS: list[Obj] = [
    {"name": "c1", "image": "image", "resources": {"requests": {"cpu": "100m"}, "limits": {"cpu": "200m"}}}  # noqa: E501
]
_PLR: Obj = {
    "requests": {"cpu": "100m", "memory": "50Gi"},
    "limits": {"cpu": "100m", "memory": "50Gi"},
}
_WITHOUT_PLR: Obj = {"containers": _CONTAINERS}
_PLR_INFO: dict[str, tuple[bool, Obj | None]] = {
    "has pod-level resources": (True, {"resources": _PLR, "containers": _CONTAINERS}),
    "does not have pod-level resources": (False, _WITHOUT_PLR),
    "is nil": (False, None),
    "is empty struct": (False, {"resources": {}, "containers": _CONTAINERS}),
    "is empty Requests list": (False, {"resources": {"requests": {}}}),
    "is empty Limits list": (False, {"resources": {"limits": {}}}),
}


@pytest.mark.parametrize(
    ("enabled", "old_name", "new_name"),
    [
        pytest.param(e, o, n, id=f"feature enabled={str(e).lower()}, old pod {o}, new pod {n}")
        for e in (True, False)
        for o in _PLR_INFO
        for n in _PLR_INFO
        if _PLR_INFO[n][1] is not None
    ],
)
def test_drop_pod_level_resources(enabled: bool, old_name: str, new_name: str) -> None:
    old_has, old = _PLR_INFO[old_name]
    new_has, new = _PLR_INFO[new_name]
    assert new is not None
    got, old_copy = copy.deepcopy(new), copy.deepcopy(old)
    drop_beta_fields(got, old_copy, _gates("PodLevelResources", enabled))
    assert old_copy == old
    if enabled or old_has:
        assert got == new
    elif new_has:
        assert got == _WITHOUT_PLR
    else:
        assert got.get("resources") is None


def _tsc(*keys: list[str]) -> Obj:
    return {"topologySpreadConstraints": [{"matchLabelKeys": k} if k else {} for k in keys]}


_FOO = ["foo"]


# Test_dropDisabledMatchLabelKeysFieldInTopologySpread: (enabled, old, new, want)
@pytest.mark.parametrize(
    ("enabled", "old", "new", "want"),
    [
        pytest.param(False, _tsc(), _tsc(), _tsc(), id="feature disabled, both pods don't use MatchLabelKeys fields"),  # noqa: E501
        pytest.param(False, _tsc(_FOO), _tsc(), _tsc(), id="feature disabled, only old pod uses MatchLabelKeys field"),  # noqa: E501
        pytest.param(False, _tsc(), _tsc(_FOO), {"topologySpreadConstraints": [{}]}, id="feature disabled, only current pod uses MatchLabelKeys field"),  # noqa: E501
        pytest.param(False, _tsc(_FOO), _tsc(_FOO), _tsc(_FOO), id="feature disabled, both pods use MatchLabelKeys fields"),  # noqa: E501
        pytest.param(True, _tsc(_FOO), _tsc(), _tsc(), id="feature enabled, only old pod uses MatchLabelKeys field"),  # noqa: E501
        pytest.param(True, _tsc(), _tsc(_FOO), _tsc(_FOO), id="feature enabled, only current pod uses MatchLabelKeys field"),  # noqa: E501
        pytest.param(False, _tsc(_FOO), _tsc(_FOO), _tsc(_FOO), id="feature enabled, both pods use MatchLabelKeys fields"),  # noqa: E501
    ],
)
def test_drop_disabled_match_label_keys_field_in_topology_spread(
    enabled: bool, old: Obj, new: Obj, want: Obj
) -> None:
    _check(_gates("MatchLabelKeysInPodTopologySpread", enabled), old, new, want)


def _projected(source: Obj | None) -> Obj:
    return {"volumes": [{"name": "foo", "projected": {"sources": [source or {}]}}]}


_CTB: Obj = {"clusterTrustBundle": {"name": "foo"}}


# TestDropClusterTrustBundleProjectedVolumes: (enabled, old, new, want)
@pytest.mark.parametrize(
    ("enabled", "old", "new", "want"),
    [
        pytest.param(False, {"volumes": []}, _projected(_CTB), _projected(None), id="feature gate disabled, cannot add CTB volume to pod"),  # noqa: E501
        pytest.param(False, _projected(_CTB), _projected(_CTB), _projected(_CTB), id="feature gate disabled, can keep CTB volume on pod"),  # noqa: E501
        pytest.param(True, {"volumes": []}, _projected(_CTB), _projected(_CTB), id="feature gate enabled, can add CTB volume to pod"),  # noqa: E501
    ],
)
def test_drop_cluster_trust_bundle_projected_volumes(
    enabled: bool, old: Obj, new: Obj, want: Obj
) -> None:
    gates = _gates("ClusterTrustBundleProjection", enabled, ClusterTrustBundle=True)
    _check(gates, old, new, want)


_PODCERT: Obj = {"podCertificate": {"signerName": "foo.example.com/bar"}}


# TestDropPodCertificateProjectedVolumes: (enabled, old, new, want)
@pytest.mark.parametrize(
    ("enabled", "old", "new", "want"),
    [
        pytest.param(False, {"volumes": []}, _projected(_PODCERT), _projected(None), id="feature gate disabled, cannot add volume to pod"),  # noqa: E501
        pytest.param(False, _projected(_PODCERT), _projected(_PODCERT), _projected(_PODCERT), id="feature gate disabled, can keep volume on pod"),  # noqa: E501
        pytest.param(True, {"volumes": []}, _projected(_PODCERT), _projected(_PODCERT), id="feature gate enabled, can add volume to pod"),  # noqa: E501
    ],
)
def test_drop_pod_certificate_projected_volumes(
    enabled: bool, old: Obj, new: Obj, want: Obj
) -> None:
    _check(_gates("PodCertificateRequest", enabled), old, new, want)


_RULES: list[Obj] = [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]
_INIT_RULES: Obj = {"initContainers": [{"restartPolicy": "Always", "restartPolicyRules": _RULES}]}
_INIT_NO_RULES: Obj = {"initContainers": [{"restartPolicy": "Always"}]}
_REG_RULES: Obj = {"containers": [{"restartPolicy": "Always", "restartPolicyRules": _RULES}]}
_REG_NO_RULES: Obj = {"containers": [{}]}
_EPH_RULES: Obj = {"ephemeralContainers": [{"restartPolicy": "Always", "restartPolicyRules": _RULES}]}  # noqa: E501
_EPH_NO_RULES: Obj = {"ephemeralContainers": [{}]}


# Test_dropContainerRestartRules: (old, new, enabled, expected)
@pytest.mark.parametrize(
    ("old", "new", "enabled", "want"),
    [
        pytest.param(None, _INIT_RULES, False, _INIT_NO_RULES, id="drop init container rules"),
        pytest.param(None, _REG_RULES, False, _REG_NO_RULES, id="drop regular container rules"),
        pytest.param(None, _EPH_RULES, False, _EPH_NO_RULES, id="drop ephemeral container rules"),
        pytest.param(None, _INIT_RULES, True, _INIT_RULES, id="not drop init container rules when feature gate enabled"),  # noqa: E501
        pytest.param(None, _REG_RULES, True, _REG_RULES, id="not drop regular container rules when feature gate enabled"),  # noqa: E501
        pytest.param(_REG_RULES, _REG_RULES, False, _REG_RULES, id="not drop regular container rules when old container has rules"),  # noqa: E501
    ],
)
def test_drop_container_restart_rules(
    old: Obj | None, new: Obj, enabled: bool, want: Obj
) -> None:
    _check(_gates("ContainerRestartRules", enabled), old, new, want)


def _fref(env: str, vol: str, path: str, key: str) -> Obj:
    return {"name": env, "valueFrom": {"fileKeyRef": {"volumeName": vol, "path": path, "key": key}}}  # noqa: E501


def _dropped(env: str) -> Obj:
    return {"name": env, "valueFrom": {}}  # an empty EnvVarSource stays


def _ctr(name: str, *env: Obj) -> Obj:
    return {"name": name, "env": list(env)}


_REGULAR: Obj = {"name": "REGULAR_ENV", "value": "regular-value"}
_SECRET: Obj = {"name": "SECRET_ENV", "valueFrom": {"secretKeyRef": {"name": "test-secret", "key": "secret-key"}}}  # noqa: E501
_TEST = _fref("TEST_ENV", "test-volume", "/path/to/file", "test-key")
_NEW = _fref("NEW_ENV", "new-volume", "/new/path", "new-key")
_MULTI: Obj = {
    "containers": [
        _ctr("container1", _fref("ENV1", "volume1", "/path1", "key1")),
        _ctr("container2", _fref("ENV2", "volume2", "/path2", "key2")),
    ],
    "initContainers": [_ctr("init-container", _fref("INIT_ENV", "init-volume", "/init/path", "init-key"))],  # noqa: E501
    "ephemeralContainers": [
        _ctr("ephemeral-container", _fref("EPHEMERAL_ENV", "ephemeral-volume", "/ephemeral/path", "ephemeral-key"))  # noqa: E501
    ],
}
_MULTI_DROPPED: Obj = {
    "containers": [_ctr("container1", _dropped("ENV1")), _ctr("container2", _dropped("ENV2"))],
    "initContainers": [_ctr("init-container", _dropped("INIT_ENV"))],
    "ephemeralContainers": [_ctr("ephemeral-container", _dropped("EPHEMERAL_ENV"))],
}


# TestDropFileKeyRefInUse: (enabled, old, new, expected)
@pytest.mark.parametrize(
    ("enabled", "old", "new", "want"),
    [
        pytest.param(True, None, {"containers": [_ctr("test-container", _TEST)]}, {"containers": [_ctr("test-container", _TEST)]}, id="feature enabled - should not drop FileKeyRef"),  # noqa: E501
        pytest.param(
            False,
            {"containers": [_ctr("old-container", _fref("OLD_ENV", "old-volume", "/old/path", "old-key"))]},  # noqa: E501
            {"containers": [_ctr("new-container", _NEW)]},
            {"containers": [_ctr("new-container", _NEW)]},
            id="feature disabled - old pod has FileKeyRef - should not drop",
        ),
        pytest.param(
            False,
            {"containers": [_ctr("old-container", {"name": "OLD_ENV", "value": "old-value"})]},
            {"containers": [_ctr("new-container", _NEW, _REGULAR)]},
            {"containers": [_ctr("new-container", _dropped("NEW_ENV"), _REGULAR)]},
            id="feature disabled - old pod has no FileKeyRef - should drop",
        ),
        pytest.param(False, None, {"containers": [_ctr("test-container", _TEST)]}, {"containers": [_ctr("test-container", _dropped("TEST_ENV"))]}, id="feature disabled - old pod is nil - should drop"),  # noqa: E501
        pytest.param(False, None, _MULTI, _MULTI_DROPPED, id="feature disabled - multiple containers with FileKeyRef - should drop all"),  # noqa: E501
        pytest.param(
            False,
            None,
            {"containers": [_ctr("test-container", _REGULAR, _fref("FILE_KEY_ENV", "test-volume", "/path/to/file", "test-key"), _SECRET)]},  # noqa: E501
            {"containers": [_ctr("test-container", _REGULAR, _dropped("FILE_KEY_ENV"), _SECRET)]},
            id="feature disabled - mixed env vars - should only drop FileKeyRef",
        ),
        pytest.param(False, None, {"containers": [{"name": "test-container"}]}, {"containers": [{"name": "test-container"}]}, id="feature disabled - container with nil Env - should not panic"),  # noqa: E501
    ],
)
def test_drop_file_key_ref_in_use(enabled: bool, old: Obj | None, new: Obj, want: Obj) -> None:
    _check(_gates("EnvFiles", enabled), old, new, want)
