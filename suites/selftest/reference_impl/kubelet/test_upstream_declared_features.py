"""Node declared features (NodeDeclaredFeatures, GA in 1.37): the component-helpers
registry (reference_impl/api/node_declared_features.py) against upstream v1.37.2 tables;
the kubelet's side is in test_upstream_declared_features_kubelet.py.

Ported: component-helpers nodedeclaredfeatures framework_test.go
(TestDiscoverNodeFeatures, TestInferForPodScheduling, TestInferForPodUpdate,
TestMatchNode), featureset_test.go (TestFeatureMapper), features/registry_test.go
(TestFeatureRequirementsConsistency) and the features' own tests
(restartallcontainers, usernamespaceshostnetwork, inplacepodresize pod level / init
containers / memory-backed volumes, dranodeallocatableresources,
draoptionalnodeoperations, extendwebsocketstokubelet: TestDiscover*, TestRequirements,
TestInferFor*, TestMaxVersion). bitmap_test.go is not ported: the reference's feature
sets are frozensets, not bitmaps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reference_impl.api.node_declared_features import (
    ALL_FEATURES,
    DEFAULT_FRAMEWORK,
    DeclaredFeature,
    Framework,
    NodeConfiguration,
    RuntimeFeatures,
    Version,
    parse_version,
)

Obj = dict[str, Any]
BY_NAME = {f.name: f for f in ALL_FEATURES}


def _gates(on: dict[str, bool]) -> Callable[[str], bool]:
    return lambda g: on.get(g, False)


_NO_RUNTIME = RuntimeFeatures()


def _cfg(on: dict[str, bool], version: Version | None = None, runtime: RuntimeFeatures = _NO_RUNTIME) -> NodeConfiguration:
    return NodeConfiguration(_gates(on), version, runtime)


# -- TestDiscoverNodeFeatures --------------------------------------------------------------

_MAX = parse_version("1.38.0")
_DISCOVER_REGISTRY = Framework(
    (
        DeclaredFeature("FeatureA", ("feature-a",), max_version=_MAX),
        DeclaredFeature("FeatureB", ("feature-b",), max_version=_MAX),
    )
)


@pytest.mark.parametrize(
    ("gates", "version", "want"),
    [
        pytest.param({"feature-a": True}, None, ["FeatureA"], id="Feature Enabled"),
        pytest.param({"feature-a": True, "feature-b": True}, None, ["FeatureA", "FeatureB"], id="multiple features enabled"),
        pytest.param({"feature-a": False, "feature-b": False}, None, [], id="no features enabled"),
        pytest.param({"feature-a": True}, _MAX.add_minor(1), [], id="feature past max version"),
        pytest.param(
            {"feature-a": True}, parse_version("1.39.0-alpha.2.39+049eafd34dfbd2"), [],
            id="feature past max version - pre-release version",
        ),
    ],
)
def test_discover_node_features(gates: dict[str, bool], version: Version | None, want: list[str]) -> None:
    assert _DISCOVER_REGISTRY.discover_node_features(_cfg(gates, version)) == want


# -- TestInferForPodScheduling -------------------------------------------------------------

def _pod_level(pod: Obj) -> bool:
    return (pod.get("spec") or {}).get("resources") is not None


_WITH_PLR: Obj = {"metadata": {"name": "pod-with-podlevelresources"}, "spec": {"resources": {"requests": {"cpu": "500m"}}}}
_WITHOUT_PLR: Obj = {"metadata": {"name": "pod-without-podlevelresources"}, "spec": {}}


@pytest.mark.parametrize(
    ("max_version", "pod", "target", "want", "err"),
    [
        pytest.param(None, _WITH_PLR, "1.30.0", ["PodLevelResources"], None, id="pod with feature, inferred during scheduling"),
        pytest.param(None, _WITHOUT_PLR, "1.30.0", None, None, id="pod without feature"),
        pytest.param("1.30.0", _WITH_PLR, "1.31.0", None, None, id="feature universally available, not inferred during create"),
        pytest.param(
            "1.30.0", _WITH_PLR, "0.0.0-alpha.2.39+049eafd34dfbd2", ["PodLevelResources"], None,
            id="pre-release target version",
        ),
        pytest.param("1.30.0", _WITH_PLR, "1.40.0", None, None, id="exceeds max version"),
        pytest.param(None, _WITH_PLR, None, None, "target version cannot be nil", id="target version nil"),
    ],
)
def test_infer_for_pod_scheduling(
    max_version: str | None, pod: Obj, target: str | None, want: list[str] | None, err: str | None
) -> None:
    mv = parse_version(max_version) if max_version else None
    fw = Framework((DeclaredFeature("PodLevelResources", ("pod-level-resources",), for_scheduling=_pod_level, max_version=mv),))
    tv = parse_version(target) if target else None
    if err is not None:
        with pytest.raises(ValueError, match=err):
            fw.infer_for_pod_scheduling(pod, tv)
        return
    assert fw.unmap(fw.infer_for_pod_scheduling(pod, tv)) == want


# -- TestInferForPodUpdate -----------------------------------------------------------------

def _cpu_pod(cpu: str) -> Obj:
    return {"metadata": {"name": "test-pod"}, "spec": {"containers": [{"name": "c1", "resources": {"requests": {"cpu": cpu}}}]}}


def _resize(old: Obj, new: Obj) -> bool:
    def cpu(p: Obj) -> str:
        return str(p["spec"]["containers"][0]["resources"]["requests"]["cpu"])

    return cpu(old) != cpu(new)


@pytest.mark.parametrize(
    ("max_version", "old", "new", "target", "want", "err"),
    [
        pytest.param(None, _cpu_pod("1"), _cpu_pod("2"), "1.30.0", ["InPlacePodResize"], None, id="pod update requires feature"),
        pytest.param(
            None, _cpu_pod("1"), _cpu_pod("2"), "1.35.0-alpha.2.39+049eafd34dfbd2", ["InPlacePodResize"], None,
            id="pod update requires feature with pre-release version",
        ),
        pytest.param(None, _cpu_pod("1"), _cpu_pod("1"), "1.30.0", None, None, id="pod update does not require feature"),
        pytest.param(
            "1.30.0", _cpu_pod("1"), _cpu_pod("2"), "1.31.0", None, None,
            id="feature universally available, not inferred during update",
        ),
        pytest.param(None, _cpu_pod("1"), _cpu_pod("2"), None, None, "target version cannot be nil", id="target version nil"),
    ],
)
def test_infer_for_pod_update(
    max_version: str | None, old: Obj, new: Obj, target: str | None, want: list[str] | None, err: str | None
) -> None:
    mv = parse_version(max_version) if max_version else None
    fw = Framework((DeclaredFeature("InPlacePodResize", ("inplace-pod-resize",), for_update=_resize, max_version=mv),))
    tv = parse_version(target) if target else None
    if err is not None:
        with pytest.raises(ValueError, match=err):
            fw.infer_for_pod_update(old, new, tv)
        return
    assert fw.unmap(fw.infer_for_pod_update(old, new, tv)) == want


# -- TestMatchNode -------------------------------------------------------------------------

_ABC = Framework(tuple(DeclaredFeature(n) for n in ("feature-a", "feature-b", "feature-c")))


@pytest.mark.parametrize("variation", ["MatchNode", "MatchNodeFeatureSet"])
@pytest.mark.parametrize(
    ("required", "node_features", "unsatisfied"),
    [
        pytest.param(["feature-a", "feature-b"], ["feature-a", "feature-b", "feature-c"], [], id="all features match"),
        pytest.param(["feature-a", "feature-b"], ["feature-a", "feature-c"], ["feature-b"], id="some features missing"),
        pytest.param(["feature-a", "feature-b"], ["feature-c"], ["feature-a", "feature-b"], id="all features missing"),
        pytest.param(["feature-a", "feature-b"], [], ["feature-a", "feature-b"], id="no node features"),
        pytest.param([], ["feature-a", "feature-b", "feature-c"], [], id="no requirements"),
    ],
)
def test_match_node(required: list[str], node_features: list[str], unsatisfied: list[str], variation: str) -> None:
    reqs = _ABC.map_sorted(required)
    if variation == "MatchNode":
        got = _ABC.match_node(reqs, {"status": {"declaredFeatures": node_features}})
    else:
        got = _ABC.match_node_feature_set(reqs, _ABC.map_sorted(node_features))
    assert got == unsatisfied  # empty: IsMatch


def test_match_node_nil_node() -> None:
    with pytest.raises(ValueError, match="node cannot be nil"):
        _ABC.match_node(_ABC.map_sorted(["feature-a"]), None)


# -- TestFeatureMapper ---------------------------------------------------------------------

_MAPPER = Framework(tuple(DeclaredFeature(n) for n in ("a", "b", "c", "d")))


@pytest.mark.parametrize(
    ("given", "error", "want"),
    [
        pytest.param([], False, set[str](), id="Empty input"),
        pytest.param(["a"], False, {"a"}, id="Single valid feature"),
        pytest.param(["a", "c"], False, {"a", "c"}, id="Multiple valid features"),
        pytest.param(["a", "b", "c", "d"], False, {"a", "b", "c", "d"}, id="All features"),
        pytest.param(["0", "a"], True, {"a"}, id="Unknown feature (start)"),
        pytest.param(["a", "ab", "b"], True, {"a", "b"}, id="Unknown feature (middle)"),
        pytest.param(["d", "e"], True, {"d"}, id="Unknown feature (end)"),
    ],
)
def test_feature_mapper(given: list[str], error: bool, want: set[str]) -> None:
    fs = _MAPPER.try_map(given)
    assert fs == want
    if error:
        with pytest.raises(ValueError, match="unknown feature"):
            _MAPPER.map_sorted(given)
    else:
        assert _MAPPER.map_sorted(given) == fs
        assert (_MAPPER.unmap(fs) or []) == given
    assert len(_MAPPER.unmap(fs) or []) == len(want)


# -- TestFeatureRequirementsConsistency ----------------------------------------------------

_RUNTIME_ALL = RuntimeFeatures(user_namespaces_host_network=True, mount_options=True)


@pytest.mark.parametrize("feature", [pytest.param(f, id=f.name) for f in ALL_FEATURES])
def test_feature_requirements_consistency(feature: DeclaredFeature) -> None:
    assert feature.gates, "each feature declares at least one gate"
    needed = RuntimeFeatures(**{r: True for r in feature.runtime})
    on = dict.fromkeys(feature.gates, True)
    assert feature.discover(_cfg(on, parse_version("1.36.0"), needed))
    off = {**on, feature.gates[0]: False}
    assert not feature.discover(_cfg(off, parse_version("1.36.0"), needed))


def test_registry_is_all_features() -> None:
    """features.AllFeatures: nine features, each feature's gate named after it (TestName,
    TestRequirements); none has a max version (TestMaxVersion)."""
    assert [f.name for f in ALL_FEATURES] == [
        "RestartAllContainersOnContainerExits",
        "InPlacePodLevelResourcesVerticalScaling",
        "ExtendWebSocketsToKubelet",
        "InPlacePodVerticalScalingInitContainers",
        "InPlacePodVerticalScalingMemoryBackedVolumes",
        "UserNamespacesHostNetworkSupport",
        "DRANodeAllocatableResources",
        "VolumeBindMountOptions",
        "DRAOptionalNodeOperations",
    ]
    for f in ALL_FEATURES:
        assert f.gates == (f.name,)
        assert f.max_version is None
    assert BY_NAME["UserNamespacesHostNetworkSupport"].runtime == ("user_namespaces_host_network",)
    assert BY_NAME["VolumeBindMountOptions"].runtime == ("mount_options",)
    assert DEFAULT_FRAMEWORK.names == tuple(sorted(BY_NAME))


# -- each feature's TestDiscover ----------------------------------------------------------

_GATE_ONLY = [
    "RestartAllContainersOnContainerExits",
    "InPlacePodLevelResourcesVerticalScaling",
    "ExtendWebSocketsToKubelet",
    "InPlacePodVerticalScalingInitContainers",
    "InPlacePodVerticalScalingMemoryBackedVolumes",
    "DRANodeAllocatableResources",
    "DRAOptionalNodeOperations",
]


@pytest.mark.parametrize("enabled", [pytest.param(True, id="gate enabled"), pytest.param(False, id="gate disabled")])
@pytest.mark.parametrize("name", _GATE_ONLY)
def test_feature_discover_by_gate(name: str, enabled: bool) -> None:
    assert BY_NAME[name].discover(_cfg({name: enabled})) is enabled


@pytest.mark.parametrize(
    ("gate", "runtime", "want"),
    [
        pytest.param(False, True, False, id="feature gate disabled"),
        pytest.param(True, False, False, id="feature gate enabled but no runtime support"),
        pytest.param(True, True, True, id="feature gate enabled and runtime supports it"),
        pytest.param(True, True, True, id="runtime support is on"),
        pytest.param(True, False, False, id="runtime support is off"),
    ],
)
def test_userns_host_network_discover(gate: bool, runtime: bool, want: bool) -> None:
    """usernamespaceshostnetwork TestDiscoverFeature."""
    cfg = _cfg({"UserNamespacesHostNetworkSupport": gate}, runtime=RuntimeFeatures(user_namespaces_host_network=runtime))
    assert BY_NAME["UserNamespacesHostNetworkSupport"].discover(cfg) is want


def test_volume_bind_mount_options_discover() -> None:
    """volumebindmountoptions Discover: the gate and the runtime's MountOptions."""
    f = BY_NAME["VolumeBindMountOptions"]
    assert f.discover(_cfg({"VolumeBindMountOptions": True}, runtime=RuntimeFeatures(mount_options=True)))
    assert not f.discover(_cfg({"VolumeBindMountOptions": True}))
    assert not f.discover(_cfg({}, runtime=RuntimeFeatures(mount_options=True)))


# -- TestInferForScheduling rows -----------------------------------------------------------

def _restart_all_container(name: str = "container") -> Obj:
    return {
        "name": name,
        "image": "image",
        "restartPolicy": "Never",
        "restartPolicyRules": [
            {"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [1]}}
        ],
    }


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        pytest.param(
            {"initContainers": [_restart_all_container()], "containers": [{"name": "name", "image": "image"}]}, True,
            id="init container with rules",
        ),
        pytest.param(
            {"initContainers": [{"name": "name", "image": "image"}], "containers": [_restart_all_container()]}, True,
            id="regular container with rules",
        ),
        pytest.param(
            {"initContainers": [{"name": "name", "image": "image"}], "containers": [{"name": "name2", "image": "image"}]},
            False,
            id="no rules",
        ),
    ],
)
def test_restart_all_containers_infer_for_scheduling(spec: Obj, want: bool) -> None:
    """restartallcontainers TestInferForScheduling (and TestInferForUpdate: never)."""
    f = BY_NAME["RestartAllContainersOnContainerExits"]
    assert f.for_scheduling({"spec": spec}) is want
    assert not f.for_update({"spec": {}}, {"spec": spec})


@pytest.mark.parametrize(
    ("host_network", "host_users", "want"),
    [
        pytest.param(True, False, True, id="HostNetwork true, HostUsers false"),
        pytest.param(True, None, False, id="HostNetwork true, HostUsers nil"),
        pytest.param(True, True, False, id="HostNetwork true, HostUsers true"),
        pytest.param(False, False, False, id="HostNetwork false, HostUsers false"),
    ],
)
def test_userns_host_network_infer_for_scheduling(host_network: bool, host_users: bool | None, want: bool) -> None:
    """usernamespaceshostnetwork TestInferForScheduling."""
    spec: Obj = {"hostNetwork": host_network}
    if host_users is not None:
        spec["hostUsers"] = host_users
    assert BY_NAME["UserNamespacesHostNetworkSupport"].for_scheduling({"spec": spec}) is want


@pytest.mark.parametrize("kind", ["containers", "initContainers", "ephemeralContainers"])
def test_volume_bind_mount_options_infer(kind: str) -> None:
    """volumebindmountoptions InferForScheduling: any container kind's mount."""
    mount = {"name": "v", "mountPath": "/v", "bindMountOptions": ["ro"]}
    f = BY_NAME["VolumeBindMountOptions"]
    assert f.for_scheduling({"spec": {kind: [{"name": "c", "volumeMounts": [mount]}]}})
    assert not f.for_scheduling({"spec": {kind: [{"name": "c", "volumeMounts": [{"name": "v"}]}]}})


@pytest.mark.parametrize("name", [n for n in BY_NAME if n not in {
    "RestartAllContainersOnContainerExits", "UserNamespacesHostNetworkSupport", "VolumeBindMountOptions"}])
def test_not_inferred_for_scheduling(name: str) -> None:
    """The resize, DRA and websocket features' InferForScheduling is always false."""
    pod: Obj = {"spec": {"resources": {"requests": {"cpu": "1"}}, "containers": [_restart_all_container()]}}
    assert not BY_NAME[name].for_scheduling(pod)


# -- inplacepodresize InferForUpdate rows -------------------------------------------------

_PLR_1: Obj = {"resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}}}
_PLR_2: Obj = {"resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}}


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(_PLR_1, _PLR_1, False, id="NoResourcesChanged"),
        pytest.param({}, _PLR_1, True, id="ResourcesAdded"),
        pytest.param(_PLR_1, {}, True, id="ResourcesRemoved"),
        pytest.param(_PLR_1, _PLR_2, True, id="ResourcesChanged"),
        pytest.param({}, {}, False, id="NilResources"),
    ],
)
def test_pod_level_resize_infer_for_update(old: Obj, new: Obj, want: bool) -> None:
    """TestPodLevelResourcesResizeFeatureInferForUpdate."""
    assert BY_NAME["InPlacePodLevelResourcesVerticalScaling"].for_update({"spec": old}, {"spec": new}) is want


def _init(name: str, res: Obj | None = None, sidecar: bool = False) -> Obj:
    c: Obj = {"name": name}
    if sidecar:
        c["restartPolicy"] = "Always"
    if res is not None:
        c["resources"] = {"requests": res}
    return c


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param([_init("init-1", {"cpu": "100m"})], [_init("init-1", {"cpu": "100m"})], False, id="NoChanges"),
        pytest.param(
            [_init("init-1", {"cpu": "100m"})], [_init("init-1", {"cpu": "200m"})], True, id="InitContainerResourceChanged"
        ),
        pytest.param(
            [_init("sidecar", {"cpu": "100m"}, True)], [_init("sidecar", {"cpu": "200m"}, True)], False,
            id="SidecarContainerResourceChanged_Ignored",
        ),
        pytest.param(
            [_init("sidecar", sidecar=True), _init("regular-init", {"memory": "128Mi"})],
            [_init("sidecar", sidecar=True), _init("regular-init", {"memory": "256Mi"})],
            True,
            id="MixedContainers_OnlyInitChanged",
        ),
        pytest.param(
            [_init("sidecar", {"cpu": "100m"}, True), _init("regular-init", {"cpu": "100m"})],
            [_init("sidecar", {"cpu": "200m"}, True), _init("regular-init", {"cpu": "100m"})],
            False,
            id="MixedContainers_OnlySidecarChanged_Ignored",
        ),
    ],
)
def test_init_container_resize_infer_for_update(old: list[Obj], new: list[Obj], want: bool) -> None:
    """TestNonSidecarInitContainerResizeFeatureInferForUpdate."""
    f = BY_NAME["InPlacePodVerticalScalingInitContainers"]
    assert f.for_update({"spec": {"initContainers": old}}, {"spec": {"initContainers": new}}) is want


def _mem_vol(name: str, limit: str | None, medium: str = "Memory") -> Obj:
    ed: Obj = {"medium": medium} if medium else {}
    if limit is not None:
        ed["sizeLimit"] = limit
    return {"name": name, "emptyDir": ed}


_HOST = {"name": "vol-1", "hostPath": {"path": "/tmp"}}


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param([_mem_vol("vol-1", "100Mi")], [_mem_vol("vol-1", "100Mi")], False, id="NoChanges"),
        pytest.param([_mem_vol("vol-1", "100Mi")], [_mem_vol("vol-1", "200Mi")], True, id="SizeLimitIncreased"),
        pytest.param([_mem_vol("vol-1", "200Mi")], [_mem_vol("vol-1", "100Mi")], True, id="SizeLimitDecreased"),
        pytest.param([_mem_vol("vol-1", "100Mi", "")], [_mem_vol("vol-1", "200Mi", "")], False, id="DefaultMedium_Ignored"),
        pytest.param([_HOST], [{"name": "vol-1", "hostPath": {"path": "/tmp2"}}], False, id="NonEmptyDirVolume_Ignored"),
        pytest.param(
            [_mem_vol("vol-1", "100Mi")], [_mem_vol("vol-1", "100Mi"), _mem_vol("vol-2", "100Mi")], False,
            id="VolumeCountMismatch_Ignored",
        ),
        pytest.param([_mem_vol("vol-1", "100Mi")], [_mem_vol("vol-2", "200Mi")], False, id="VolumeNameMismatch_Ignored"),
        pytest.param([_mem_vol("vol-1", None)], [_mem_vol("vol-1", "200Mi")], False, id="NilSizeLimit_Ignored"),
        pytest.param(
            [{"name": "vol-non-resizable", "hostPath": {"path": "/tmp"}}, _mem_vol("vol-resizable", "100Mi")],
            [{"name": "vol-non-resizable", "hostPath": {"path": "/tmp"}}, _mem_vol("vol-resizable", "200Mi")],
            True,
            id="MultipleVolumes_OneResizableMemoryBackedVolumeResized",
        ),
    ],
)
def test_memory_backed_resize_infer_for_update(old: list[Obj], new: list[Obj], want: bool) -> None:
    """TestMemoryBackedVolumesResizeFeatureInferForUpdate."""
    f = BY_NAME["InPlacePodVerticalScalingMemoryBackedVolumes"]
    assert f.for_update({"spec": {"volumes": old}}, {"spec": {"volumes": new}}) is want
