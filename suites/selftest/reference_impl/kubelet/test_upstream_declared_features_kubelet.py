"""Node declared features, the kubelet's side (reference_impl/kubelet/declared_features.py)
against upstream v1.37.2: pkg/kubelet lifecycle/handlers_test.go
(TestDeclaredFeaturesAdmitHandler), kubelet_node_declared_features_test.go
(TestDeclaredFeatureDiscovery, TestExtendWebSocketsToKubeletFeatureDiscovery),
kubelet_node_status_test.go (TestSetNodeStatusDeclaredFeatures) and kubelet_test.go
(TestSyncPodNodeDeclaredFeaturesUpdate), plus the fake kubelet publishing, admitting and
warning as a real one does.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from kubelet_harness import KubeletHarness, make_harness

from reference_impl.api import make_node, make_pod
from reference_impl.api.node_declared_features import (
    ALL_FEATURES,
    DeclaredFeature,
    Framework,
    NodeConfiguration,
    RuntimeFeatures,
    Version,
    infer_for_scheduling,
    parse_version,
)
from reference_impl.kubelet import KubeletConfig
from reference_impl.kubelet.admission import AdmitResult
from reference_impl.kubelet.admit_handlers import AdmitState, run_admit_handlers
from reference_impl.kubelet.declared_features import (
    DEFAULT_DECLARED,
    FAILED_CHECK,
    POD_FEATURE_UNSUPPORTED,
    declared_features_admit,
    discover_node_declared_features,
    update_check_message,
)
from reference_impl.kubelet.node_status import initialized_status

Obj = dict[str, Any]
BY_NAME = {f.name: f for f in ALL_FEATURES}


def _gates(on: dict[str, bool]) -> Callable[[str], bool]:
    return lambda g: on.get(g, False)


_NO_RUNTIME = RuntimeFeatures()


def _cfg(on: dict[str, bool], version: Version | None = None, runtime: RuntimeFeatures = _NO_RUNTIME) -> NodeConfiguration:
    return NodeConfiguration(_gates(on), version, runtime)



def _restart_all_container(name: str = "container") -> Obj:
    return {
        "name": name,
        "image": "image",
        "restartPolicy": "Never",
        "restartPolicyRules": [
            {"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [1]}}
        ],
    }


# -- kubelet: TestDeclaredFeatureDiscovery, TestExtendWebSocketsToKubeletFeatureDiscovery ---

_KMAX = parse_version("v1.36.0")


@pytest.mark.parametrize(
    ("enabled", "version", "discovered"),
    [
        pytest.param(True, Version(1, 35, 0), True, id="feature gate enabled, feature discovered"),
        pytest.param(
            True, _KMAX.add_minor(1), False,
            id="feature gate enabled, feature not discovered as kubelet version higher than max version",
        ),
        pytest.param(False, Version(1, 35, 0), False, id="feature disabled and not discovered"),
    ],
)
def test_declared_feature_discovery(enabled: bool, version: Version, discovered: bool) -> None:
    name = "InPlacePodLevelResourcesVerticalScaling"
    fw = Framework((DeclaredFeature(name, (name,), max_version=_KMAX),))
    got = fw.discover_node_features(_cfg({name: enabled}, version))
    assert (name in got) is discovered


@pytest.mark.parametrize(
    ("enabled", "expect"),
    [
        pytest.param(True, True, id="ExtendWebSocketsToKubelet feature enabled"),
        pytest.param(False, False, id="ExtendWebSocketsToKubelet feature disabled"),
    ],
)
def test_extend_websockets_discovery(enabled: bool, expect: bool) -> None:
    got = discover_node_declared_features({"ExtendWebSocketsToKubelet": enabled}, KubeletConfig())
    assert ("ExtendWebSocketsToKubelet" in got) is expect


def test_default_kubelet_declares() -> None:
    """A v1.37.2 kubelet at default gates (runtime reporting neither userns host network
    nor mount options) declares the beta/GA-on features, sorted."""
    assert DEFAULT_DECLARED == (
        "ExtendWebSocketsToKubelet",
        "InPlacePodLevelResourcesVerticalScaling",
        "InPlacePodVerticalScalingInitContainers",
        "RestartAllContainersOnContainerExits",
    )
    cfg = KubeletConfig(runtime_mount_options=True, runtime_user_namespaces_host_network=True)
    got = discover_node_declared_features(
        {"VolumeBindMountOptions": True, "UserNamespacesHostNetworkSupport": True, "DRAOptionalNodeOperations": True}, cfg
    )
    assert got == (
        "DRAOptionalNodeOperations",
        "ExtendWebSocketsToKubelet",
        "InPlacePodLevelResourcesVerticalScaling",
        "InPlacePodVerticalScalingInitContainers",
        "RestartAllContainersOnContainerExits",
        "UserNamespacesHostNetworkSupport",
        "VolumeBindMountOptions",
    )


# -- TestDeclaredFeaturesAdmitHandler -----------------------------------------------------

def _always(_pod: Obj) -> bool:
    return True


@pytest.mark.parametrize(
    ("declared", "version", "max_version", "want"),
    [
        pytest.param(("FeatureA",), "1.30.0", None, AdmitResult(True), id="Admit: no requirements"),
        pytest.param(("FeatureA",), "1.30.0", None, AdmitResult(True), id="Admit: requirements met"),
        pytest.param(
            (), "1.30.0", None,
            AdmitResult(False, POD_FEATURE_UNSUPPORTED, "Pod requires node features that are not available: FeatureA"),
            id="Reject: requirements not met",
        ),
        pytest.param((), "1.35.0", "1.34.0", AdmitResult(True), id="Admit without feature declared - feature generally available"),
    ],
)
def test_declared_features_admit_handler(
    declared: tuple[str, ...], version: str, max_version: str | None, want: AdmitResult
) -> None:
    mv = parse_version(max_version) if max_version else None
    fw = Framework((DeclaredFeature("FeatureA", for_scheduling=_always, max_version=mv),))
    pod: Obj = {"metadata": {"name": "test-pod"}, "spec": {}}
    assert declared_features_admit(pod, declared, fw, parse_version(version)) == want


def test_admit_handler_position() -> None:
    """NewMainKubelet: the declared features handler after pod features, before the
    shutdown manager."""
    pod: Obj = {"spec": {"containers": [_restart_all_container()]}, "status": {"phase": "Pending"}}
    state = AdmitState(shutting_down=True, declared_features=())
    got = run_admit_handlers(pod, state, lambda: AdmitResult(True))
    assert got == AdmitResult(
        False, POD_FEATURE_UNSUPPORTED,
        "Pod requires node features that are not available: RestartAllContainersOnContainerExits",
    )
    state.declared_features = DEFAULT_DECLARED
    assert run_admit_handlers(pod, state, lambda: AdmitResult(True)).reason == "NodeShutdown"
    assert infer_for_scheduling(pod) == {"RestartAllContainersOnContainerExits"}


# -- TestSetNodeStatusDeclaredFeatures ----------------------------------------------------

@pytest.mark.parametrize(
    ("discovered", "want"),
    [
        pytest.param(("feature1", "feature2"), ["feature1", "feature2"], id="Feature gate enabled, features discovered"),
        pytest.param((), None, id="Feature gate enabled, no features discovered"),
        pytest.param(
            (), None, marks=pytest.mark.skip(reason="NodeDeclaredFeatures is GA and locked on in 1.37"),
            id="Feature gate disabled",
        ),
    ],
)
def test_set_node_status_declared_features(discovered: tuple[str, ...], want: list[str] | None) -> None:
    node = make_node("n1").build()
    status = initialized_status(node, "10.0.0.1", KubeletConfig(), "2026-01-01T00:00:00Z", declared=discovered)
    assert status.get("declaredFeatures") == want


def test_fake_kubelet_publishes_declared_features(k: KubeletHarness) -> None:
    k.create(make_node("n1").build())
    node = k.server.get("v1", "Node", "n1")
    assert node["status"]["declaredFeatures"] == list(DEFAULT_DECLARED)


def test_fake_kubelet_declares_per_gates() -> None:
    """The cluster's gates (a gate it does not know keeps upstream's default) and the
    runtime's features decide what the kubelet declares."""
    k = make_harness(KubeletConfig(runtime_mount_options=True))
    assert k.kubelet.declared_features == DEFAULT_DECLARED  # VolumeBindMountOptions gate off
    assert discover_node_declared_features({"InPlacePodLevelResourcesVerticalScaling": False}, KubeletConfig()) == (
        "ExtendWebSocketsToKubelet",
        "InPlacePodVerticalScalingInitContainers",
        "RestartAllContainersOnContainerExits",
    )


def test_fake_kubelet_admits_declared_feature(k: KubeletHarness) -> None:
    """A pod needing a feature the node declares is admitted and runs."""
    k.create(make_node("n1").build())
    pod = make_pod("p", "default").node("n1").build()
    pod["spec"]["restartPolicy"] = "Never"
    pod["spec"]["containers"][0]["restartPolicy"] = "Never"
    pod["spec"]["containers"][0]["restartPolicyRules"] = [
        {"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [1]}}
    ]
    k.create(pod)
    k.wait(lambda: ((k.pod("p") or {}).get("status") or {}).get("phase") == "Running")


# -- TestSyncPodNodeDeclaredFeaturesUpdate ------------------------------------------------

_OLD: Obj = {
    "metadata": {"uid": "1111", "name": "pod1", "namespace": "ns1"},
    "spec": {"containers": [{"name": "c1", "image": "i1", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]},
}
_NEW: Obj = {
    **_OLD,
    "spec": {"containers": [{"name": "c1", "image": "i1", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}]},
}


def _upd(infer: bool) -> Callable[[Obj, Obj], bool]:
    return lambda _o, _n: infer


@pytest.mark.parametrize(
    ("features", "declared", "old", "want"),
    [
        pytest.param((), (), _OLD, None, marks=pytest.mark.skip(reason="NodeDeclaredFeatures is GA and locked on"),
                     id="Feature gate disabled"),
        pytest.param((("FeatureA", False, None),), ("FeatureA",), _OLD, None, id="Feature gate enabled, no requirements from update"),
        pytest.param((("FeatureA", True, None),), ("FeatureA",), _OLD, None, id="Feature gate enabled, requirements met"),
        pytest.param(
            (("FeatureA", True, None), ("FeatureB", False, None)), ("FeatureB",), _OLD,
            "Pod requires node features that are not available: FeatureA",
            id="Feature gate enabled, requirements not met",
        ),
        pytest.param((("FeatureA", True, "1.34.0"),), (), _OLD, None, id="feature generally available - not declared"),
        pytest.param(
            (("FeatureA", True, None), ("FeatureB", False, None)), ("FeatureB",), None, None,
            id="Feature gate enabled, old pod state missing, node declared feature check skipped",
        ),
    ],
)
def test_sync_pod_node_declared_features_update(
    features: tuple[tuple[str, bool, str | None], ...], declared: tuple[str, ...], old: Obj | None, want: str | None
) -> None:
    fw = Framework(tuple(
        DeclaredFeature(n, for_update=_upd(infer), max_version=parse_version(mv) if mv else None)
        for n, infer, mv in features
    ))
    # HandlePodUpdates runs the check only with the old pod at hand.
    got = None if old is None else update_check_message(old, _NEW, declared, fw, parse_version("1.35.0"))
    assert got == want


def test_fake_kubelet_warns_on_undeclared_resize() -> None:
    """A pod-level resize on a node without InPlacePodLevelResourcesVerticalScaling
    declared: a FailedNodeDeclaredFeaturesCheck Warning event, the update goes on."""
    k = make_harness()
    k.kubelet.declared_features = ("ExtendWebSocketsToKubelet",)
    k.create(make_node("n1").build())
    pod = make_pod("p", "default").req(cpu="500m").lim(cpu="500m").node("n1").build()
    pod["spec"]["resources"] = {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}}
    k.create(pod)
    k.wait(lambda: ((k.pod("p") or {}).get("status") or {}).get("phase") == "Running")
    assert not [r for r in k.trace.records if r.event == FAILED_CHECK]
    resized = copy.deepcopy(k.pod("p"))
    assert resized is not None
    resized["spec"]["resources"] = {"requests": {"cpu": "2"}, "limits": {"cpu": "2"}}
    k.server.resize(resized)
    k.clock.settle()
    events = [r for r in k.trace.records if r.event == FAILED_CHECK]
    msg = "Pod requires node features that are not available: InPlacePodLevelResourcesVerticalScaling"
    assert [(e.object, e.detail) for e in events] == [("default/p", msg)]


def test_fake_kubelet_rejects_undeclared_feature(k: KubeletHarness) -> None:
    """A node that does not declare what the pod needs: the admit handler rejects it."""
    k.kubelet.admission.declared_features = ()
    k.create(make_node("n1").build())
    pod = make_pod("p", "default").node("n1").build()
    pod["spec"]["restartPolicy"] = "Never"
    pod["spec"]["containers"][0]["restartPolicy"] = "Never"
    pod["spec"]["containers"][0]["restartPolicyRules"] = [
        {"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [1]}}
    ]
    k.create(pod)
    status = (k.pod("p") or {}).get("status") or {}
    assert status.get("phase") == "Failed"
    assert status.get("reason") == POD_FEATURE_UNSUPPORTED
    assert status.get("message") == (
        "Pod was rejected: Pod requires node features that are not available: RestartAllContainersOnContainerExits"
    )
