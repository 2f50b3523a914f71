"""Pod Security admission (the PodSecurity plugin, on by default in kube-apiserver 1.37
with enforce ``privileged:latest`` and no exemptions): a namespace's
``pod-security.kubernetes.io/enforce[-version]`` labels choose the Pod Security Standard
its pods are held to; a pod that violates it is refused with every violated check named.

Pods carry a node selector no node matches: they stay API objects.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Target
from reference_impl.errors import Conflict, Forbidden, Invalid

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
IMAGE = "registry.k8s.io/pause:3.10"
PREFIX = "pod-security.kubernetes.io/"
RESTRICTED_CONTAINER = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
RESTRICTED_POD = {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}


def _label(target: Target, namespace: str, **labels: str) -> Obj:
    """Set the namespace's pod-security labels (``enforce_version`` for enforce-version),
    replacing the ones it had."""
    ns = target.get("v1", "Namespace", namespace)
    kept = {
        k: v for k, v in (ns["metadata"].get("labels") or {}).items() if not k.startswith(PREFIX)
    }
    ns["metadata"]["labels"] = {
        **kept,
        **{PREFIX + k.replace("_", "-"): v for k, v in labels.items()},
    }
    return target.apply(ns)


def _pod(
    name: str,
    namespace: str,
    container_sc: Obj | None = None,
    pod_sc: Obj | None = None,
    **spec: Any,
) -> Obj:
    c: Obj = {"name": "app", "image": IMAGE}
    if container_sc is not None:
        c["securityContext"] = json.loads(json.dumps(container_sc))
    body: Obj = {"containers": [c], "nodeSelector": {"garhwal.io/no-such-node": "x"}, **spec}
    if pod_sc is not None:
        body["securityContext"] = json.loads(json.dumps(pod_sc))
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace}, "spec": body}  # fmt: skip


def _restricted(name: str, namespace: str, pod_sc: Obj | None = None, **spec: Any) -> Obj:
    return _pod(name, namespace, RESTRICTED_CONTAINER, {**RESTRICTED_POD, **(pod_sc or {})}, **spec)


def _refusal(target: Target, pod: Obj) -> str:
    """The Forbidden message ``pod`` MUST get. The plugin reads namespace labels from the
    apiserver's informer, which may trail a label write by a moment: a pod admitted under
    the old labels is deleted and sent again, and one refused under the old labels (the
    message names another policy than the namespace's labels now say) is sent again."""
    name, ns = pod["metadata"]["name"], pod["metadata"]["namespace"]
    labels = target.get("v1", "Namespace", ns)["metadata"].get("labels") or {}
    policy = f'PodSecurity "{labels.get(PREFIX + "enforce")}:{labels.get(PREFIX + "enforce-version", "latest")}"'
    got: list[str] = []

    def attempt() -> bool:
        try:
            target.apply(json.loads(json.dumps(pod)))
        except Forbidden as e:
            if "PodSecurity" in e.message and policy not in e.message:
                return False  # still judged by the labels before the last write
            got.append(e.message)
            return True
        target.delete("v1", "Pod", name, ns)
        target.wait_until(lambda: not _exists(target, ns, name), timeout=30, what=f"{name} gone")
        return False

    target.wait_until(attempt, timeout=30, what=f"{name} refused")
    return got[0]


def _admitted(target: Target, pod: Obj) -> Obj:
    """Create ``pod``, which MUST be admitted once the label change is seen (above)."""
    out: list[Obj] = []

    def attempt() -> bool:
        try:
            out.append(target.apply(json.loads(json.dumps(pod))))
        except Forbidden:
            return False
        return True

    target.wait_until(attempt, timeout=30, what=f"{pod['metadata']['name']} admitted")
    return out[0]


def _exists(target: Target, namespace: str, name: str) -> bool:
    return any(p["metadata"]["name"] == name for p in target.list("v1", "Pod", namespace))


def _update(target: Target, namespace: str, name: str, change: Callable[[Obj], None]) -> Obj:
    """Read, change and write the pod; a Conflict with the scheduler's status write reads again."""
    out: list[Obj] = []

    def attempt() -> bool:
        pod = target.get("v1", "Pod", name, namespace)
        change(pod)
        try:
            out.append(target.apply(pod))
        except Conflict:
            return False
        return True

    target.wait_until(attempt, timeout=30, what=f"{name} written without a conflict")
    return out[0]


def test_restricted_admits_compliant_pods_and_names_every_violation(
    target: Target, namespace: str
) -> None:
    """Restricted enforcement.

    In a namespace labelled ``enforce=restricted``, a pod meeting the restricted standard
    MUST be admitted; a pod violating it MUST be Forbidden with upstream's message:
    ``violates PodSecurity "restricted:latest": `` and each violated check's reason and
    detail, baseline checks first, then restricted ones, each group by check ID.
    """
    _label(target, namespace, enforce="restricted")
    ok = _admitted(target, _restricted("compliant", namespace))
    assert ok["metadata"]["name"] == "compliant"
    assert _refusal(target, _pod("bare", namespace)) == (
        'pods "bare" is forbidden: violates PodSecurity "restricted:latest": '
        'allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), '
        'unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), '
        'runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), '
        'seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'
    )  # fmt: skip
    host = _pod("host", namespace, {"privileged": True, "capabilities": {"drop": ["ALL"], "add": ["SYS_ADMIN"]}},
                RESTRICTED_POD, hostPID=True, volumes=[{"name": "root", "hostPath": {"path": "/"}}])  # fmt: skip
    assert _refusal(target, host) == (
        'pods "host" is forbidden: violates PodSecurity "restricted:latest": '
        "host namespaces (hostPID=true), "
        'privileged (container "app" must not set securityContext.privileged=true), '
        'allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), '
        'unrestricted capabilities (container "app" must not include "SYS_ADMIN" in securityContext.capabilities.add), '
        'restricted volume types (volume "root" uses restricted volume type "hostPath")'
    )  # fmt: skip
    root = _restricted("root", namespace, {"runAsUser": 0, "runAsNonRoot": False})
    assert _refusal(target, root) == (
        'pods "root" is forbidden: violates PodSecurity "restricted:latest": '
        "runAsNonRoot != true (pod must not set securityContext.runAsNonRoot=false), "
        "runAsUser=0 (pod must not set runAsUser=0)"
    )


def test_baseline_refuses_only_baseline_violations(target: Target, namespace: str) -> None:
    """Baseline enforcement.

    In a namespace labelled ``enforce=baseline``, a pod that only misses the restricted
    settings MUST be admitted, and a pod sharing the host network with a privileged
    container MUST be Forbidden as ``violates PodSecurity "baseline:latest"`` naming both.
    """
    _label(target, namespace, enforce="baseline")
    _admitted(target, _pod("plain", namespace))
    bad = _pod("hostnet", namespace, {"privileged": True}, hostNetwork=True)
    assert _refusal(target, bad) == (
        'pods "hostnet" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true), '
        'privileged (container "app" must not set securityContext.privileged=true)'
    )


def test_an_enforce_version_pin_applies_the_checks_of_that_version(
    target: Target, namespace: str
) -> None:
    """Version pins.

    With ``enforce-version=v1.22`` the restricted standard MUST NOT yet refuse
    ``runAsUser: 0`` (that check starts at v1.23); at ``latest`` it MUST. With
    ``enforce=baseline`` pinned to v1.36 the sysctl ``net.ipv4.tcp_notsent_lowat`` (safe
    from v1.37) MUST be refused as ``"baseline:v1.36"``, and admitted at v1.37.
    """
    _label(target, namespace, enforce="restricted", enforce_version="v1.22")
    _admitted(target, _restricted("root-v122", namespace, {"runAsUser": 0}))
    _label(target, namespace, enforce="restricted", enforce_version="latest")
    assert _refusal(target, _restricted("root-latest", namespace, {"runAsUser": 0})) == (
        'pods "root-latest" is forbidden: violates PodSecurity "restricted:latest": '
        "runAsUser=0 (pod must not set runAsUser=0)"
    )
    sysctl = {"sysctls": [{"name": "net.ipv4.tcp_notsent_lowat", "value": "16384"}]}
    _label(target, namespace, enforce="baseline", enforce_version="v1.36")
    assert _refusal(target, _pod("lowat-v136", namespace, pod_sc=sysctl)) == (
        'pods "lowat-v136" is forbidden: violates PodSecurity "baseline:v1.36": '
        "forbidden sysctls (net.ipv4.tcp_notsent_lowat)"
    )
    _label(target, namespace, enforce="baseline", enforce_version="v1.37")
    _admitted(target, _pod("lowat-v137", namespace, pod_sc=sysctl))


def test_a_privileged_namespace_admits_everything(target: Target, namespace: str) -> None:
    """Privileged.

    In a namespace labelled ``enforce=privileged`` (whatever it warns about) a pod
    violating every standard MUST be admitted.
    """
    _label(target, namespace, enforce="privileged", warn="restricted", audit="restricted")
    anything = _pod("anything", namespace, {"privileged": True, "capabilities": {"add": ["SYS_ADMIN"]}},
                    {"runAsUser": 0}, hostNetwork=True, hostPID=True, hostIPC=True,
                    volumes=[{"name": "root", "hostPath": {"path": "/"}}])  # fmt: skip
    assert _admitted(target, anything)["metadata"]["name"] == "anything"


def test_existing_pods_are_checked_again_only_when_an_image_changes(
    target: Target, namespace: str
) -> None:
    """Pod updates.

    Labelling a namespace ``enforce=restricted`` MUST NOT refuse the label change for
    the pods already there; updating such a pod's labels MUST be admitted; changing its
    container image MUST be Forbidden.
    """
    target.apply(_pod("old", namespace))
    _label(target, namespace, enforce="restricted")
    _update(
        target, namespace, "old", lambda p: p["metadata"].setdefault("labels", {}).update(tier="x")
    )
    images = iter(["registry.k8s.io/pause:3.9", "registry.k8s.io/pause:3.8"] * 50)
    refused: list[str] = []

    def new_image() -> bool:
        # An update admitted under the old labels (the informer trailing) tries again.
        try:
            _update(target, namespace, "old", lambda p: p["spec"]["containers"][0].update(image=next(images)))
        except Forbidden as e:
            refused.append(e.message)
            return True
        return False

    target.wait_until(new_image, timeout=30, what="an image change refused")
    assert refused[0].startswith('pods "old" is forbidden: violates PodSecurity "restricted:latest": ')


def test_pod_security_labels_must_be_valid(target: Target, namespace: str) -> None:
    """Label validation.

    Setting ``pod-security.kubernetes.io/enforce`` to an unknown level MUST be Invalid at
    ``metadata.labels[pod-security.kubernetes.io/enforce]`` ("must be one of privileged,
    baseline, restricted"), and an ``enforce-version`` that is not ``latest`` or ``v1.x``
    MUST be Invalid ("must be \\"latest\\" or \\"v1.x\\"").
    """
    with pytest.raises(Invalid) as e:
        _label(target, namespace, enforce="unknown")
    assert [(c.field, c.message) for c in e.value.causes] == [
        (f"metadata.labels[{PREFIX}enforce]",
         'Invalid value: "unknown": must be one of privileged, baseline, restricted')]  # fmt: skip
    with pytest.raises(Invalid) as e:
        _label(target, namespace, enforce="baseline", enforce_version="1.30")
    assert [(c.field, c.message) for c in e.value.causes] == [
        (f"metadata.labels[{PREFIX}enforce-version]", 'Invalid value: "1.30": must be "latest" or "v1.x"')]  # fmt: skip
