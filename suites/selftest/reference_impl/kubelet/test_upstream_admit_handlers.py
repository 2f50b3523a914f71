"""The kubelet's other admit handlers (upstream v1.37.2): AppArmor
(pkg/security/apparmor helpers_test.go TestGetProfile, validate_test.go
TestValidateBadHost / TestValidateValidHost, and lifecycle's appArmorAdmitHandler), pod
features (isPodLevelResourcesSupported), the node shutdown manager's Admit, and the
handler order of NewMainKubelet in the fake kubelet."""

from __future__ import annotations

from typing import Any

import pytest
from kubelet_harness import KubeletHarness, make_harness

from reference_impl.api import make_node, make_pod
from reference_impl.kubelet import KubeletConfig
from reference_impl.kubelet.admission import AdmitResult
from reference_impl.kubelet.admit_handlers import (
    AdmitState,
    apparmor_admit,
    apparmor_profile,
    pod_features_admit,
    run_admit_handlers,
    shutdown_admit,
    validate_apparmor,
)

Obj = dict[str, Any]
PREFIX = "container.apparmor.security.beta.kubernetes.io/"
RUNTIME_DEFAULT: Obj = {"type": "RuntimeDefault"}
UNCONFINED: Obj = {"type": "Unconfined"}
LOCALHOST: Obj = {"type": "Localhost", "localhostProfile": "test"}


# -- TestGetProfile -----------------------------------------------------------------------

@pytest.mark.parametrize(
    ("annotation", "container", "pod_profile", "want"),
    [
        pytest.param("", None, None, None, id="no appArmor"),
        pytest.param("", None, RUNTIME_DEFAULT, RUNTIME_DEFAULT, id="pod profile"),
        pytest.param("", UNCONFINED, None, UNCONFINED, id="container profile"),
        pytest.param("localhost/test", None, None, LOCALHOST, id="annotation profile"),
        pytest.param("invalid", None, None, None, id="invalid annotation"),
        pytest.param("invalid", None, RUNTIME_DEFAULT, RUNTIME_DEFAULT, id="invalid annotation with pod field"),
        pytest.param("unconfined", RUNTIME_DEFAULT, None, RUNTIME_DEFAULT, id="container field before annotation"),
        pytest.param("", RUNTIME_DEFAULT, UNCONFINED, RUNTIME_DEFAULT, id="container field before pod field"),
        pytest.param("unconfined", None, RUNTIME_DEFAULT, UNCONFINED, id="annotation before pod field"),
        pytest.param("runtime/default", LOCALHOST, UNCONFINED, LOCALHOST, id="all profiles"),
    ],
)
def test_get_profile(annotation: str, container: Obj | None, pod_profile: Obj | None, want: Obj | None) -> None:
    c: Obj = {"name": "foo"}
    if container is not None:
        c["securityContext"] = {"appArmorProfile": dict(container)}
    ann = {"unrelated": "baz", PREFIX + "other": "runtime/default"}
    if annotation:
        ann[PREFIX + "foo"] = annotation
    pod: Obj = {"metadata": {"name": "bar", "annotations": ann}, "spec": {"containers": [c]}}
    if pod_profile is not None:
        pod["spec"]["securityContext"] = {"appArmorProfile": dict(pod_profile)}
    assert apparmor_profile(pod, c) == want


# -- TestValidateBadHost / TestValidateValidHost ---------------------------------------------

def _with_profile(profile: str) -> Obj:
    """getPodWithProfile."""
    ann = {PREFIX + "test": profile} if profile else {"foo": "bar"}
    return {"metadata": {"annotations": ann}, "spec": {"containers": [{"name": "test"}]}}


@pytest.mark.parametrize(
    ("profile", "valid"),
    [
        pytest.param("", True, id="no profile"),
        pytest.param("runtime/default", False, id="runtime/default"),
        pytest.param("localhost/docker-default", False, id="localhost/docker-default"),
    ],
)
def test_validate_bad_host(profile: str, valid: bool) -> None:
    err = validate_apparmor(_with_profile(profile), host_enabled=False)
    assert err == (None if valid else "AppArmor is not enabled on the host")


@pytest.mark.parametrize(
    ("profile", "valid"),
    [
        pytest.param("", True, id="no profile"),
        pytest.param("runtime/default", True, id="runtime/default"),
        pytest.param("localhost/docker-default", True, id="localhost/docker-default"),
        pytest.param("localhost/foo-container", True, id="localhost/foo-container"),
        pytest.param("localhost//usr/sbin/ntpd", True, id="localhost//usr/sbin/ntpd"),
        pytest.param("localhost/", False, id="empty profile explicitly forbidden"),
        pytest.param("localhost/ ", False, id="blank profile"),
    ],
)
def test_validate_valid_host(profile: str, valid: bool) -> None:
    err = validate_apparmor(_with_profile(profile))
    if valid:
        assert err is None
    else:
        name = profile.removeprefix("localhost/")
        assert err == (
            'invalid empty AppArmor profile name: "&AppArmorProfile{Type:Localhost,'
            f'LocalhostProfile:*{name},}}"'
        )


def test_validate_valid_host_multi_container() -> None:
    pod = {
        "metadata": {"annotations": {
            PREFIX + "init": "localhost/foo-container",
            PREFIX + "test1": "runtime/default",
            PREFIX + "test2": "localhost/docker-default",
        }},
        "spec": {"initContainers": [{"name": "init"}],
                 "containers": [{"name": "test1"}, {"name": "test2"}, {"name": "no-profile"}]},
    }  # fmt: skip
    assert validate_apparmor(pod) is None


def test_apparmor_admit_checks_pending_pods_only() -> None:
    """appArmorAdmitHandler.Admit: a pod past Pending is not rechecked."""
    pod = {**_with_profile("runtime/default"), "status": {"phase": "Pending"}}
    assert apparmor_admit(pod, host_enabled=False) == AdmitResult(
        False, "AppArmor", "Cannot enforce AppArmor: AppArmor is not enabled on the host"
    )
    assert apparmor_admit({**pod, "status": {"phase": "Running"}}, host_enabled=False).admit


# -- pod features, node shutdown ------------------------------------------------------------

@pytest.mark.parametrize(
    ("resources", "gate", "want"),
    [
        pytest.param(None, False, True, id="no pod-level resources"),
        pytest.param({"requests": {"cpu": "1"}}, False, False, id="pod-level cpu with the gate off"),
        pytest.param({"limits": {"hugepages-2Mi": "2Mi"}}, False, False, id="pod-level hugepages with the gate off"),
        pytest.param({"requests": {"example.com/gpu": "1"}}, False, True, id="an unsupported pod-level resource"),
        pytest.param({"requests": {"cpu": "1"}}, True, True, id="pod-level cpu with the gate on"),
    ],
)
def test_pod_features_admit(resources: Obj | None, gate: bool, want: bool) -> None:
    pod: Obj = {"spec": {"containers": [{"name": "c"}]}}
    if resources is not None:
        pod["spec"]["resources"] = resources
    result = pod_features_admit(pod, gate)
    assert result == (AdmitResult(True) if want else AdmitResult(
        False, "PodLevelResourcesNotSupported", "PodLevelResources feature gate is disabled"
    ))  # fmt: skip


def test_shutdown_admit() -> None:
    assert shutdown_admit(False) == AdmitResult(True)
    assert shutdown_admit(True) == AdmitResult(
        False, "NodeShutdown", "Pod was rejected as the node is shutting down."
    )


def test_handler_order() -> None:
    """canAdmitPod: eviction, sysctl, predicate, AppArmor, pod features, shutdown; the
    first rejection wins."""
    pod: Obj = {
        "metadata": {"annotations": {PREFIX + "c": "runtime/default"}},
        "spec": {"containers": [{"name": "c"}], "securityContext": {"sysctls": [{"name": "kernel.msgmax"}]}},
        "status": {"phase": "Pending"},
    }
    state = AdmitState(shutting_down=True, apparmor_enabled=False)
    state.pressure = ["DiskPressure"]
    predicate = {"result": AdmitResult(False, "OutOfcpu", "no room")}
    reasons = []
    for _ in range(5):
        result = run_admit_handlers(pod, state, lambda: predicate["result"])
        reasons.append(result.reason)
        if result.reason == "Evicted":
            state.pressure = []
        elif result.reason == "SysctlForbidden":
            pod["spec"]["securityContext"] = {}
        elif result.reason == "OutOfcpu":
            predicate["result"] = AdmitResult(True)
        elif result.reason == "AppArmor":
            state.apparmor_enabled = True
    assert reasons == ["Evicted", "SysctlForbidden", "OutOfcpu", "AppArmor", "NodeShutdown"]
    state.shutting_down = False
    assert run_admit_handlers(pod, state, lambda: predicate["result"]).admit


# -- the fake kubelet ----------------------------------------------------------------------

def _status(k: KubeletHarness, name: str) -> Obj:
    p = k.pod(name)
    assert p is not None
    return dict(p.get("status") or {})


def test_kubelet_rejects_while_shutting_down(k: KubeletHarness) -> None:
    k.create(make_node("n1").build())
    k.kubelet.set_shutting_down("n1")
    k.create(make_pod("late", "default").node("n1").build())
    st = _status(k, "late")
    assert (st["phase"], st["reason"], st["message"]) == (
        "Failed", "NodeShutdown", "Pod was rejected: Pod was rejected as the node is shutting down.",
    )  # fmt: skip
    k.kubelet.set_shutting_down("n1", False)
    k.create(make_pod("after", "default").node("n1").build())
    k.wait(lambda: _status(k, "after").get("phase") == "Running")


def test_kubelet_without_apparmor_rejects_a_confined_pod() -> None:
    k = make_harness(KubeletConfig(apparmor_enabled=False))
    k.create(make_node("n1").build())
    pod = make_pod("confined", "default").node("n1").build()
    pod["spec"]["securityContext"] = {"appArmorProfile": {"type": "RuntimeDefault"}}
    k.create(pod, make_pod("plain", "default").node("n1").build())
    st = _status(k, "confined")
    assert (st["reason"], st["message"]) == (
        "AppArmor", "Pod was rejected: Cannot enforce AppArmor: AppArmor is not enabled on the host",
    )  # fmt: skip
    k.wait(lambda: _status(k, "plain").get("phase") == "Running")
