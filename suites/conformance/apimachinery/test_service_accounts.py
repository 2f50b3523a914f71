"""Service accounts as a 1.37 cluster makes them: kube-controller-manager's serviceaccount
controller and root-ca-cert-publisher fill every namespace, and the ServiceAccount
admission plugin (on by default) names, checks and mounts each pod's account.

Pods carry a node selector no node matches: they stay API objects. The controllers act
shortly after a namespace appears, so tests wait for what they make.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from fixtures import Target
from reference_impl.errors import Forbidden, NotFound

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
IMAGE = "registry.k8s.io/pause:3.10"
MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
ROOT_CA = "kube-root-ca.crt"
DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal "
    "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "
    "guaranteed across distributions of Kubernetes clusters."
)
TOKEN_SOURCES = [
    {"serviceAccountToken": {"path": "token", "expirationSeconds": 3607}},
    {"configMap": {"name": ROOT_CA, "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
    {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
]  # fmt: skip


def _pod(name: str, namespace: str, **spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace},
            "spec": {"containers": [{"name": "app", "image": IMAGE}],
                     "nodeSelector": {"garhwal.io/no-such-node": "x"}, **spec}}  # fmt: skip


def _account(name: str, namespace: str, **fields: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name, "namespace": namespace}, **fields}  # fmt: skip


def _find(target: Target, kind: str, name: str, namespace: str) -> Obj | None:
    try:
        return target.get("v1", kind, name, namespace)
    except NotFound:
        return None


def _wait_for(target: Target, kind: str, name: str, namespace: str) -> Obj:
    target.wait_until(lambda: _find(target, kind, name, namespace) is not None,
                      timeout=30, what=f"{kind} {namespace}/{name}")  # fmt: skip
    found = _find(target, kind, name, namespace)
    assert found is not None
    return found


def test_a_new_namespace_gets_its_default_account_and_root_ca(target: Target, namespace: str) -> None:
    """Namespace contents.

    A new namespace MUST get the ServiceAccount ``default`` and the ConfigMap
    ``kube-root-ca.crt`` holding only ``ca.crt`` (a PEM certificate), annotated
    ``kubernetes.io/description`` with upstream's text.
    """
    _wait_for(target, "ServiceAccount", "default", namespace)
    cm = _wait_for(target, "ConfigMap", ROOT_CA, namespace)
    assert set(cm["data"]) == {"ca.crt"}
    assert cm["data"]["ca.crt"].startswith("-----BEGIN CERTIFICATE-----\n")
    assert cm["metadata"]["annotations"]["kubernetes.io/description"] == DESCRIPTION


def test_a_pod_gets_the_default_account_and_its_token_volume(target: Target, namespace: str) -> None:
    """Token volume.

    A pod created without a service account MUST be stored with ``serviceAccountName``
    (and the deprecated ``serviceAccount``) ``default``, one projected volume
    ``kube-api-access-<5 characters>`` of a 3607 s token, ``kube-root-ca.crt``'s ``ca.crt``
    and the namespace (defaultMode 420), mounted read-only at
    ``/var/run/secrets/kubernetes.io/serviceaccount`` in every container and init
    container; a container with its own mount at that path MUST keep it.
    """
    _wait_for(target, "ServiceAccount", "default", namespace)
    own = {"name": "mine", "mountPath": MOUNT_PATH}
    pod = target.apply(_pod("p", namespace,
                            initContainers=[{"name": "init", "image": IMAGE}],
                            containers=[{"name": "app", "image": IMAGE},
                                        {"name": "own", "image": IMAGE, "volumeMounts": [own]}],
                            volumes=[{"name": "mine", "emptyDir": {}}]))  # fmt: skip
    spec = pod["spec"]
    assert spec["serviceAccountName"] == "default"
    assert spec["serviceAccount"] == "default"
    assert [v["name"] for v in spec["volumes"]][0] == "mine"
    token = spec["volumes"][1]
    assert len(spec["volumes"]) == 2
    assert re.fullmatch(r"kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}", token["name"])
    assert token["projected"] == {"defaultMode": 420, "sources": TOKEN_SOURCES}
    mount = {"name": token["name"], "readOnly": True, "mountPath": MOUNT_PATH}
    assert spec["initContainers"][0]["volumeMounts"] == [mount]
    assert spec["containers"][0]["volumeMounts"] == [mount]
    assert spec["containers"][1]["volumeMounts"] == [own]


def test_a_pod_naming_a_missing_account_is_forbidden(target: Target, namespace: str) -> None:
    """Missing account.

    A pod naming a service account that does not exist MUST be refused as Forbidden:
    ``error looking up service account NS/NAME: serviceaccount "NAME" not found``.
    """
    with pytest.raises(Forbidden) as exc:
        target.apply(_pod("p", namespace, serviceAccountName="nobody"))
    assert exc.value.message == (
        f'pods "p" is forbidden: error looking up service account {namespace}/nobody: '
        'serviceaccount "nobody" not found'
    )


def test_automount_false_on_the_pod_or_the_account_means_no_volume(target: Target, namespace: str) -> None:
    """Automount.

    ``automountServiceAccountToken: false`` on the pod, or on its account when the pod
    says nothing, MUST leave the pod without a token volume or mount; the pod's ``true``
    MUST win over the account's ``false``. The account's ``imagePullSecrets`` MUST be
    copied to a pod that has none.
    """
    _wait_for(target, "ServiceAccount", "default", namespace)
    target.apply(_account("quiet", namespace, automountServiceAccountToken=False,
                          imagePullSecrets=[{"name": "regcred"}]))  # fmt: skip
    off = target.apply(_pod("pod-off", namespace, automountServiceAccountToken=False))
    assert "volumes" not in off["spec"]
    assert "volumeMounts" not in off["spec"]["containers"][0]
    quiet = target.apply(_pod("sa-off", namespace, serviceAccountName="quiet"))
    assert quiet["spec"]["serviceAccountName"] == "quiet"
    assert "volumes" not in quiet["spec"]
    assert quiet["spec"]["imagePullSecrets"] == [{"name": "regcred"}]
    on = target.apply(_pod("pod-on", namespace, serviceAccountName="quiet", automountServiceAccountToken=True))
    assert [v["name"][:16] for v in on["spec"]["volumes"]] == ["kube-api-access-"]


def test_a_deleted_default_account_and_root_ca_come_back(target: Target, namespace: str) -> None:
    """Restored.

    The ``default`` ServiceAccount and the ``kube-root-ca.crt`` ConfigMap MUST be made
    again after they are deleted, and the ConfigMap's data MUST be put back after it is
    changed.
    """
    first = _wait_for(target, "ServiceAccount", "default", namespace)
    cm = _wait_for(target, "ConfigMap", ROOT_CA, namespace)
    target.delete("v1", "ServiceAccount", "default", namespace)
    target.wait_until(
        lambda: (_find(target, "ServiceAccount", "default", namespace) or first)["metadata"]["uid"]
        != first["metadata"]["uid"],
        timeout=30,
        what="a new default ServiceAccount",
    )
    target.delete("v1", "ConfigMap", ROOT_CA, namespace)
    again = _wait_for(target, "ConfigMap", ROOT_CA, namespace)
    assert again["data"] == cm["data"]
    target.apply({**again, "data": {"ca.crt": "tampered"}})
    target.wait_until(
        lambda: (_find(target, "ConfigMap", ROOT_CA, namespace) or {}).get("data") == cm["data"],
        timeout=30,
        what="kube-root-ca.crt restored",
    )
