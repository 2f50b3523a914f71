"""PodSecurity admission (``pod-security-admission/admission/admission_test.go`` key
cases) through a bare APIServer: namespace label validation, enforcement on pod create,
significant pod updates only, ignored subresources, version pins and exemptions."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.admission import pod_security
from reference_impl.apiserver.admission.pod_security import PodSecurity, significant_pod_update
from reference_impl.apiserver.admission.pod_security.levels import (
    LATEST,
    Level,
    LevelVersion,
    Policy,
)
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import Forbidden, Invalid
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
IMAGE = "registry.k8s.io/pause:3.10"
ENFORCE = "pod-security.kubernetes.io/enforce"
ENFORCE_VERSION = "pod-security.kubernetes.io/enforce-version"
RESTRICTED_SC = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
POD_SC = {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}


def _server(plugin: PodSecurity | None = None) -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates({}))
    s.create(make_namespace("default").build())
    if plugin is None:
        pod_security.install(s)
    else:
        s.admission.append(plugin)
    return s


def _ns(s: APIServer, name: str, **labels: str) -> Obj:
    ns = make_namespace(name).build()
    ns["metadata"]["labels"] = {
        f"pod-security.kubernetes.io/{k.replace('_', '-')}": v for k, v in labels.items()
    }
    return s.create(ns)


def _pod(
    name: str, ns: str, *, sc: Obj | None = None, pod_sc: Obj | None = None, **spec: Any
) -> Obj:
    c: Obj = {"name": "app", "image": IMAGE}
    if sc is not None:
        c["securityContext"] = sc
    body: Obj = {"containers": [c], **spec}
    if pod_sc is not None:
        body["securityContext"] = pod_sc
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns},
        "spec": body,
    }


def _restricted(name: str, ns: str, **spec: Any) -> Obj:
    return _pod(name, ns, sc=copy.deepcopy(RESTRICTED_SC), pod_sc=copy.deepcopy(POD_SC), **spec)


BARE_RESTRICTED = (
    'pods "p" is forbidden: violates PodSecurity "restricted:latest": '
    'allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), '
    'unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), '
    'runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), '
    'seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'
)  # fmt: skip


def test_an_unlabelled_namespace_admits_everything() -> None:
    s = _server()
    s.create(_pod("p", "default", sc={"privileged": True}, hostNetwork=True))


def test_restricted_refuses_a_bare_pod_with_every_reason_in_order() -> None:
    s = _server()
    _ns(s, "r", enforce="restricted")
    with pytest.raises(Forbidden) as e:
        s.create(_pod("p", "r"))
    assert e.value.message == BARE_RESTRICTED
    assert s.create(_restricted("ok", "r"))["metadata"]["name"] == "ok"


def test_baseline_then_restricted_reasons() -> None:
    s = _server()
    _ns(s, "r", enforce="restricted")
    pod = _restricted("p", "r", hostPID=True, volumes=[{"name": "h", "hostPath": {"path": "/"}}])
    pod["spec"]["containers"][0]["securityContext"] = {
        "privileged": True,
        "capabilities": {"drop": ["ALL"]},
    }
    pod["spec"]["containers"][0]["volumeMounts"] = [{"name": "h", "mountPath": "/h"}]
    with pytest.raises(Forbidden) as e:
        s.create(pod)
    assert e.value.message == (
        'pods "p" is forbidden: violates PodSecurity "restricted:latest": host namespaces (hostPID=true), '
        'privileged (container "app" must not set securityContext.privileged=true), '
        'allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), '
        'restricted volume types (volume "h" uses restricted volume type "hostPath")'
    )


def test_baseline_admits_what_only_restricted_refuses() -> None:
    s = _server()
    _ns(s, "b", enforce="baseline")
    s.create(_pod("plain", "b"))
    with pytest.raises(Forbidden, match=r'^pods "p" is forbidden: violates PodSecurity "baseline:latest": '
                       r'non-default capabilities \(container "app" must not include "SYS_ADMIN" in '
                       r"securityContext.capabilities.add\)$"):  # fmt: skip
        s.create(_pod("p", "b", sc={"capabilities": {"add": ["SYS_ADMIN"]}}))


def test_an_enforce_version_pin_selects_the_checks_of_that_version() -> None:
    s = _server()
    _ns(s, "v22", enforce="restricted", enforce_version="v1.22")
    _ns(s, "latest", enforce="restricted", enforce_version="latest")
    root = lambda ns: _pod("root", ns, sc=RESTRICTED_SC, pod_sc={**POD_SC, "runAsUser": 0})  # noqa: E731
    s.create(root("v22"))  # runAsUser=0 is refused from v1.23 only
    with pytest.raises(Forbidden) as e:
        s.create(root("latest"))
    assert e.value.message == (
        'pods "root" is forbidden: violates PodSecurity "restricted:latest": runAsUser=0 (pod must not set runAsUser=0)'
    )
    _ns(s, "v36", enforce="baseline", enforce_version="v1.36")
    sysctl = {"sysctls": [{"name": "net.ipv4.tcp_notsent_lowat", "value": "1"}]}
    _ns(s, "v37", enforce="baseline", enforce_version="v1.37")
    s.create(_pod("s", "v37", pod_sc=sysctl))
    with pytest.raises(
        Forbidden, match=r'"baseline:v1.36": forbidden sysctls \(net.ipv4.tcp_notsent_lowat\)$'
    ):
        s.create(_pod("s", "v36", pod_sc=sysctl))
    _ns(s, "future", enforce="baseline", enforce_version="v1.99")
    s.create(_pod("s", "future", pod_sc=sysctl))  # evaluated as the newest (v1.37)


def test_namespace_labels_must_parse_on_create() -> None:
    s = _server()
    with pytest.raises(Invalid) as e:
        _ns(s, "bad", enforce="unknown")
    assert e.value.message == (
        'Namespace "bad" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: FieldValueInvalid: '
        'Invalid value: "unknown": must be one of privileged, baseline, restricted'
    )
    with pytest.raises(Invalid, match=r'Invalid value: "v1": must be "latest" or "v1.x"$'):
        _ns(s, "bad", enforce="privileged", enforce_version="v1")
    with pytest.raises(Invalid):
        _ns(s, "bad", warn="nope")


def test_namespace_updates_may_keep_but_not_introduce_label_errors() -> None:
    bare = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates({}))
    _ns(bare, "keep", enforce="unknown")  # made before the plugin was on
    pod_security.install(bare)
    ns = bare.get("v1", "Namespace", "keep")
    ns["metadata"]["labels"]["team"] = "x"
    bare.update(ns)  # the same errors as before: allowed
    ns = bare.get("v1", "Namespace", "keep")
    ns["metadata"]["labels"][ENFORCE] = "other"  # a different error
    with pytest.raises(Invalid):
        bare.update(ns)
    _ns(bare, "good", enforce="baseline")
    ns = bare.get("v1", "Namespace", "good")
    ns["metadata"]["labels"][ENFORCE_VERSION] = "1.2"
    with pytest.raises(Invalid, match=r"enforce-version\]"):
        bare.update(ns)
    # A bad enforce level fails closed: pods there are held to restricted.
    with pytest.raises(Forbidden, match=r'violates PodSecurity "restricted:latest"'):
        bare.create(_pod("p", "keep"))


def test_only_significant_pod_updates_are_evaluated() -> None:
    s = _server()
    _ns(s, "late")
    s.create(_pod("p", "late"))
    ns = s.get("v1", "Namespace", "late")
    ns["metadata"]["labels"] = {ENFORCE: "restricted"}
    s.update(ns)  # existing pods only get warnings upstream
    pod = s.get("v1", "Pod", "p", "late")
    pod["metadata"]["labels"] = {"app": "x"}
    pod = s.update(pod)
    pod["spec"]["containers"][0]["image"] = "registry.k8s.io/pause:3.9"
    with pytest.raises(
        Forbidden, match=r'^pods "p" is forbidden: violates PodSecurity "restricted:latest"'
    ):
        s.update(pod)
    s.bind("late", "p", "n1")  # pods/binding is never evaluated


def test_significant_pod_update() -> None:
    old = {"spec": {"containers": [{"name": "a", "image": "x"}], "initContainers": [{"name": "i", "image": "y"}],
                    "ephemeralContainers": [{"name": "e", "image": "z"}]}}  # fmt: skip
    new = copy.deepcopy(old)
    new["spec"]["containers"][0]["securityContext"] = {"privileged": True}  # immutable in practice
    assert not significant_pod_update(new, old)
    for part, change in (("containers", {"image": "x2"}), ("initContainers", {"image": "y2"}),
                         ("ephemeralContainers", {"image": "z2"}), ("ephemeralContainers", {"name": "e2"})):  # fmt: skip
        new = copy.deepcopy(old)
        new["spec"][part][0].update(change)
        assert significant_pod_update(new, old), (part, change)
    new = copy.deepcopy(old)
    new["spec"]["containers"].append({"name": "b", "image": "x"})
    assert significant_pod_update(new, old)


def test_a_generated_name_is_the_one_refused() -> None:
    s = _server()
    _ns(s, "r", enforce="restricted")
    pod = _pod("", "r")
    pod["metadata"] = {"generateName": "gen-", "namespace": "r"}
    with pytest.raises(
        Forbidden, match=r'^pods "gen-[a-z0-9]{5}" is forbidden: violates PodSecurity'
    ):
        s.create(pod)


def test_exemptions_and_privileged_defaults() -> None:
    s = _server(PodSecurity(exempt_namespaces=["free"], exempt_runtime_classes=["kata"]))
    _ns(s, "free", enforce="restricted")
    s.create(_pod("p", "free"))
    _ns(s, "r", enforce="restricted")
    s.create(
        {
            "apiVersion": "node.k8s.io/v1",
            "kind": "RuntimeClass",
            "metadata": {"name": "kata"},
            "handler": "kata",
        }
    )
    s.create(_pod("k", "r", runtimeClassName="kata"))
    with pytest.raises(Forbidden):
        s.create(_pod("p", "r"))
    _ns(s, "priv", enforce="privileged", warn="restricted")
    s.create(_pod("p", "priv", sc={"privileged": True}))


def test_a_restricted_default_policy_applies_to_unlabelled_namespaces() -> None:
    restricted = LevelVersion(Level.RESTRICTED, LATEST)
    priv = LevelVersion(Level.PRIVILEGED, LATEST)
    s = _server(PodSecurity(Policy(restricted, priv, priv)))
    with pytest.raises(Forbidden) as e:
        s.create(_pod("p", "default"))
    assert e.value.message == BARE_RESTRICTED
