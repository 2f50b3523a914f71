"""ServiceAccount admission (``plugin/pkg/admission/serviceaccount``), after upstream's
``admission_test.go``: the plugin on its own over a fake account lookup, then through a
Cluster (the serviceaccounts controller and the root CA publisher included)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.api.resources import ResourceInfo, lookup
from reference_impl.apiserver.admission.service_account import (
    DEFAULT_API_TOKEN_MOUNT_PATH,
    ServiceAccountAdmission,
    pod_secret_names,
    token_volume_source,
)
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.cluster import Cluster
from reference_impl.errors import Forbidden
from reference_impl.features import FeatureGates

Obj = dict[str, Any]
NS = "myns"
GENERATED = "kube-api-access-abcde"
ENFORCE = {"kubernetes.io/enforce-mountable-secrets": "true"}


def _info(kind: str = "Pod") -> ResourceInfo:
    info = lookup("v1", kind)
    assert info is not None
    return info


def _sa(name: str = "default", annotations: Obj | None = None, **fields: Any) -> Obj:
    meta: Obj = {"name": name, "namespace": NS}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta, **fields}


def _ctx(*accounts: Obj, subresource: str = "") -> Context:
    by_name = {(a["metadata"]["namespace"], a["metadata"]["name"]): a for a in accounts}

    def get(api_version: str, kind: str, name: str, ns: str | None) -> Obj | None:
        return copy.deepcopy(by_name.get((ns or "", name))) if kind == "ServiceAccount" else None

    return Context(FeatureGates(), get, lambda *a: [], subresource)


def _pod(spec: Obj | None = None, annotations: Obj | None = None) -> Obj:
    meta: Obj = {"name": "myname", "namespace": NS}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec or {}}


def _plugin() -> ServiceAccountAdmission:
    return ServiceAccountAdmission(lambda base: GENERATED)


def _admit(pod: Obj, ctx: Context, op: Operation = Operation.CREATE, kind: str = "Pod") -> Obj:
    """Admit then validate, as the apiserver runs them."""
    plugin = _plugin()
    plugin.admit(op, _info(kind), pod, None, ctx)
    assert plugin.validate(op, _info(kind), pod, None, ctx) == []
    return pod


def _forbidden(pod: Obj, ctx: Context, op: Operation = Operation.CREATE) -> str:
    with pytest.raises(Forbidden) as exc:
        _admit(pod, ctx, op)
    return exc.value.message


def test_ignores_non_create() -> None:
    """TestIgnoresNonCreate: an update is neither mutated nor checked."""
    pod = _pod({"containers": [{"name": "c"}]})
    assert _admit(copy.deepcopy(pod), _ctx(), Operation.UPDATE) == pod


def test_ignores_non_pod_resource() -> None:
    """TestIgnoresNonPodResource."""
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": NS}}
    assert _admit(copy.deepcopy(cm), _ctx(), kind="ConfigMap") == cm


def test_ignores_other_subresources() -> None:
    """``shouldIgnore``: a pod write through a subresource other than
    ``ephemeralcontainers`` (pods/resize here) is left alone."""
    pod = _pod({"containers": [{"name": "c"}]})
    assert _admit(copy.deepcopy(pod), _ctx(subresource="resize")) == pod


def test_ignores_mirror_pod() -> None:
    """TestIgnoresMirrorPod: no account is assigned to a mirror pod, nothing mounted."""
    pod = _pod({"containers": [{"name": "c", "volumeMounts": []}], "volumes": [{"name": "v", "hostPath": {"path": "/x"}}]},
               {"kubernetes.io/config.mirror": "mirror"})  # fmt: skip
    assert _admit(copy.deepcopy(pod), _ctx()) == pod


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"serviceAccountName": "default"}, "a mirror pod may not reference service accounts"),
        ({"volumes": [{"name": "s", "secret": {"secretName": "foo"}}]}, "a mirror pod may not reference secrets"),
        ({"containers": [{"name": "c", "env": [{"name": "E", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]}]},
         "a mirror pod may not reference secrets"),
        ({"volumes": [{"name": "t", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}}]},
         "a mirror pod may not use ServiceAccountToken volume projections"),
    ],
    ids=["service-account", "secret-volume", "secret-env", "token-projection"],
)  # fmt: skip
def test_rejects_mirror_pod_references(spec: Obj, message: str) -> None:
    """TestRejectsMirrorPodWithServiceAccount, ...WithSecretVolumes,
    ...WithServiceAccountTokenVolumeProjections."""
    pod = _pod(spec, {"kubernetes.io/config.mirror": "mirror"})
    assert _forbidden(pod, _ctx(_sa())) == f'pods "myname" is forbidden: {message}'


def test_assigns_default_service_account_and_bound_token() -> None:
    """TestAssignsDefaultServiceAccountAndBoundTokenWithNoSecretTokens."""
    pod = _admit(_pod({"containers": [{"name": "c"}]}), _ctx(_sa()))
    spec = pod["spec"]
    assert spec["serviceAccountName"] == "default" and spec["serviceAccount"] == "default"
    assert spec["volumes"] == [{"name": GENERATED, "projected": token_volume_source()}]
    assert spec["containers"][0]["volumeMounts"] == [
        {"name": GENERATED, "readOnly": True, "mountPath": DEFAULT_API_TOKEN_MOUNT_PATH}
    ]
    assert "imagePullSecrets" not in spec


def test_the_token_volume_source_is_upstreams() -> None:
    """TokenVolumeSource: a 3607 s token, kube-root-ca.crt's ca.crt and the namespace,
    defaultMode 0644."""
    assert token_volume_source() == {
        "defaultMode": 420,
        "sources": [
            {"serviceAccountToken": {"path": "token", "expirationSeconds": 3607}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
        ],
    }  # fmt: skip


def test_denies_invalid_service_account() -> None:
    """TestDeniesInvalidServiceAccount, with upstream's words."""
    msg = _forbidden(_pod({"containers": [{"name": "c"}]}), _ctx())
    assert msg == (
        'pods "myname" is forbidden: error looking up service account myns/default: '
        'serviceaccount "default" not found'
    )
    msg = _forbidden(_pod({"serviceAccountName": "robot", "containers": [{"name": "c"}]}), _ctx(_sa()))
    assert msg.endswith('error looking up service account myns/robot: serviceaccount "robot" not found')


def test_the_deprecated_alias_names_the_account() -> None:
    """SetDefaults_PodSpec: ``serviceAccount`` alone names the account."""
    pod = _admit(_pod({"serviceAccount": "robot", "containers": [{"name": "c"}]}), _ctx(_sa("robot")))
    assert pod["spec"]["serviceAccountName"] == "robot"


def test_automounts_api_token_in_containers_and_init_containers() -> None:
    """TestAutomountsAPIToken."""
    mount = {"name": GENERATED, "readOnly": True, "mountPath": DEFAULT_API_TOKEN_MOUNT_PATH}
    pod = _admit(_pod({"initContainers": [{"name": "i"}], "containers": [{"name": "a"}, {"name": "b"}]}),
                 _ctx(_sa()))  # fmt: skip
    spec = pod["spec"]
    assert len(spec["volumes"]) == 1
    assert [c["volumeMounts"] for c in spec["initContainers"] + spec["containers"]] == [[mount]] * 3


def test_ephemeral_containers_get_no_mount() -> None:
    """mountServiceAccountToken mounts init containers and containers only."""
    pod = _admit(_pod({"containers": [{"name": "a"}], "ephemeralContainers": [{"name": "e"}]}), _ctx(_sa()))
    assert "volumeMounts" not in pod["spec"]["ephemeralContainers"][0]


def test_respects_existing_mount() -> None:
    """TestRespectsExistingMount: a container mounting the token path keeps its mount, and
    no volume is added when no container needs it."""
    mine = {"name": "my-custom-mount", "readOnly": False, "mountPath": DEFAULT_API_TOKEN_MOUNT_PATH}
    for part in ("containers", "initContainers"):
        pod = _admit(_pod({part: [{"name": "c", "volumeMounts": [dict(mine)]}]}), _ctx(_sa()))
        assert pod["spec"][part][0]["volumeMounts"] == [mine]
        assert "volumes" not in pod["spec"]


def test_an_existing_token_volume_is_reused() -> None:
    """A pod that already has a ``kube-api-access-*`` volume (a copy of a stored pod) keeps
    it and mounts it; no second volume is added."""
    vol = {"name": "kube-api-access-zzzzz", "projected": token_volume_source()}
    pod = _admit(_pod({"containers": [{"name": "c"}], "volumes": [vol]}), _ctx(_sa()))
    assert pod["spec"]["volumes"] == [vol]
    assert pod["spec"]["containers"][0]["volumeMounts"][0]["name"] == "kube-api-access-zzzzz"


@pytest.mark.parametrize(
    ("pod_says", "sa_says", "mounted"),
    [(None, None, True), (False, None, False), (None, False, False), (True, False, True),
     (False, True, False), (True, None, True)],
)  # fmt: skip
def test_automount_preference(pod_says: bool | None, sa_says: bool | None, mounted: bool) -> None:
    """``shouldAutomount``: the pod's preference wins, then the account's, then true."""
    spec: Obj = {"containers": [{"name": "c"}]}
    if pod_says is not None:
        spec["automountServiceAccountToken"] = pod_says
    sa = _sa() if sa_says is None else _sa(automountServiceAccountToken=sa_says)
    pod = _admit(_pod(spec), _ctx(sa))
    assert ("volumes" in pod["spec"]) is mounted
    assert ("volumeMounts" in pod["spec"]["containers"][0]) is mounted


def _secret_pod(**spec: Any) -> Obj:
    return _pod({"containers": [{"name": "container-1"}], **spec})


def _env(secret: str) -> Obj:
    return {"name": "env-1", "valueFrom": {"secretKeyRef": {"name": secret, "key": "k"}}}


@pytest.mark.parametrize(
    "spec",
    [
        {"volumes": [{"name": "v", "secret": {"secretName": "foo"}}]},
        {"containers": [{"name": "container-1", "env": [_env("foo")]}]},
        {"containers": [{"name": "container-1", "envFrom": [{"secretRef": {"name": "foo"}}]}]},
        {"initContainers": [{"name": "container-1", "env": [_env("foo")]}], "containers": [{"name": "c"}]},
        {"initContainers": [{"name": "container-1", "envFrom": [{"secretRef": {"name": "foo"}}]}], "containers": [{"name": "c"}]},
    ],
    ids=["volume", "env", "envFrom", "init-env", "init-envFrom"],
)  # fmt: skip
def test_allows_referenced_secret(spec: Obj) -> None:
    """TestAllowsReferencedSecret."""
    sa = _sa(annotations=ENFORCE, secrets=[{"name": "foo"}])
    _admit(_pod({"automountServiceAccountToken": False, **spec}), _ctx(sa))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"volumes": [{"name": "v", "secret": {"secretName": "foo"}}], "containers": [{"name": "c"}]},
         'volume with secret.secretName="foo" is not allowed because service account default does not reference that secret'),
        ({"containers": [{"name": "container-1", "env": [_env("foo")]}]},
         'container container-1 with envVar env-1 referencing secret.secretName="foo" is not allowed because service account default does not reference that secret'),
        ({"containers": [{"name": "container-1", "envFrom": [{"secretRef": {"name": "foo"}}]}]},
         'container container-1 with envFrom referencing secret.secretName="foo" is not allowed because service account default does not reference that secret'),
        ({"initContainers": [{"name": "container-1", "env": [_env("foo")]}], "containers": [{"name": "c"}]},
         'init container container-1 with envVar env-1 referencing secret.secretName="foo" is not allowed because service account default does not reference that secret'),
        ({"initContainers": [{"name": "container-1", "envFrom": [{"secretRef": {"name": "foo"}}]}], "containers": [{"name": "c"}]},
         'init container container-1 with envFrom referencing secret.secretName="foo" is not allowed because service account default does not reference that secret'),
    ],
    ids=["volume", "env", "envFrom", "init-env", "init-envFrom"],
)  # fmt: skip
def test_rejects_unreferenced_secrets(spec: Obj, message: str) -> None:
    """TestRejectsUnreferencedSecretVolumes, for an account that enforces mountable secrets."""
    assert _forbidden(_pod(spec), _ctx(_sa(annotations=ENFORCE))) == f'pods "myname" is forbidden: {message}'


def test_allows_unreferenced_secrets_for_permissive_accounts() -> None:
    """TestAllowUnreferencedSecretVolumesForPermissiveSAs (and a non-true annotation)."""
    spec = {"volumes": [{"name": "v", "secret": {"secretName": "foo"}}], "containers": [{"name": "c"}]}
    _admit(_pod(copy.deepcopy(spec)), _ctx(_sa()))
    _admit(_pod(copy.deepcopy(spec)), _ctx(_sa(annotations={"kubernetes.io/enforce-mountable-secrets": "no"})))


def test_image_pull_secrets_against_an_enforcing_account() -> None:
    """TestAllowsReferencedImagePullSecrets and TestRejectsUnreferencedImagePullSecrets."""
    sa = _sa(annotations=ENFORCE, imagePullSecrets=[{"name": "foo"}])
    _admit(_secret_pod(imagePullSecrets=[{"name": "foo"}]), _ctx(sa))
    msg = _forbidden(_secret_pod(imagePullSecrets=[{"name": "foo"}]), _ctx(_sa(annotations=ENFORCE)))
    assert msg == (
        'pods "myname" is forbidden: imagePullSecrets[0].name="foo" is not allowed because '
        "service account default does not reference that imagePullSecret"
    )


def test_image_pull_secrets_come_from_the_account_unless_the_pod_has_some() -> None:
    """TestAddImagePullSecrets and TestDoNotAddImagePullSecrets."""
    sa = _sa(imagePullSecrets=[{"name": "foo"}, {"name": "bar"}])
    pod = _admit(_secret_pod(), _ctx(sa))
    assert pod["spec"]["imagePullSecrets"] == [{"name": "foo"}, {"name": "bar"}]
    pod = _admit(_secret_pod(imagePullSecrets=[{"name": "foo"}]), _ctx(sa))
    assert pod["spec"]["imagePullSecrets"] == [{"name": "foo"}]


def test_ephemeral_container_secrets_are_checked_on_that_subresource() -> None:
    """``limitEphemeralContainerSecretReferences`` on pods/ephemeralcontainers updates."""
    ctx = _ctx(_sa(annotations=ENFORCE, secrets=[{"name": "ok"}]), subresource="ephemeralcontainers")
    spec: Obj = {"serviceAccountName": "default", "containers": [{"name": "c"}],
            "ephemeralContainers": [{"name": "debug", "env": [_env("ok")]}]}  # fmt: skip
    _admit(_pod(copy.deepcopy(spec)), ctx, Operation.UPDATE)
    spec["ephemeralContainers"][0]["envFrom"] = [{"secretRef": {"name": "nope"}}]
    assert _forbidden(_pod(spec), ctx, Operation.UPDATE) == (
        'pods "myname" is forbidden: ephemeral container debug with envFrom referencing '
        'secret.secretName="nope" is not allowed because service account default does not '
        "reference that secret"
    )


def test_pod_secret_names_visits_as_upstream() -> None:
    """VisitPodSecretNames: pull secrets, container env, then volume sources; empty names skipped."""
    pod = _pod({
        "imagePullSecrets": [{"name": "pull"}, {"name": ""}],
        "containers": [{"name": "c", "envFrom": [{"secretRef": {"name": "from"}}], "env": [_env("env")]}],
        "volumes": [{"name": "a", "secret": {"secretName": "vol"}},
                    {"name": "b", "projected": {"sources": [{"secret": {"name": "proj"}}, {"configMap": {"name": "cm"}}]}},
                    {"name": "c", "csi": {"driver": "d", "nodePublishSecretRef": {"name": "csi"}}},
                    {"name": "d", "azureFile": {"secretName": "az", "shareName": "s"}},
                    {"name": "e", "rbd": {"secretRef": {"name": "rbd"}}}],
    })  # fmt: skip
    assert list(pod_secret_names(pod)) == ["pull", "from", "env", "vol", "proj", "csi", "az", "rbd"]


# -- through a Cluster ------------------------------------------------------------------


def _cluster_pod(name: str, ns: str = "default", **spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}], **spec}}  # fmt: skip


def test_a_cluster_pod_gets_the_account_and_a_seeded_volume_name() -> None:
    """The plugin is installed after LimitRanger; generated names come from the seed, so
    two clusters with one seed agree and two pods differ."""
    names = []
    for _ in range(2):
        c = Cluster(seed=7)
        a = c.create(_cluster_pod("a"))
        b = c.create(_cluster_pod("b"))
        names.append((a["spec"]["volumes"][0]["name"], b["spec"]["volumes"][0]["name"]))
        assert a["spec"]["serviceAccountName"] == "default"
    assert names[0] == names[1] and names[0][0] != names[0][1]
    assert all(n.startswith("kube-api-access-") and len(n) == len("kube-api-access-") + 5 for n in names[0])
    c = Cluster(seed=7)
    plugins = [p.name for p in c.api.admission]
    assert plugins.index("ServiceAccount") == plugins.index("LimitRanger") + 1


def test_a_cluster_refuses_a_missing_account_and_runs_pods_with_the_volume() -> None:
    """A pod naming a missing account is Forbidden; one with the token volume starts,
    and the kubelet projects kube-root-ca.crt's ca.crt and the namespace."""
    c = Cluster()
    with pytest.raises(Forbidden) as exc:
        c.create(_cluster_pod("p", serviceAccountName="robot"))
    assert exc.value.message == (
        'pods "p" is forbidden: error looking up service account default/robot: '
        'serviceaccount "robot" not found'
    )
    c.create(_cluster_pod("p"))
    assert c.run_until(lambda: c.get("v1", "Pod", "p", "default")["status"].get("phase") == "Running", 60)
    pod = c.get("v1", "Pod", "p", "default")
    files = c.kubelet.volumes.files(pod)[pod["spec"]["volumes"][0]["name"]]
    ca = c.get("v1", "ConfigMap", "kube-root-ca.crt", "default")["data"]["ca.crt"]
    assert files == {"ca.crt": ca, "namespace": "default"}


def test_a_pod_waits_for_its_account_and_config_map_before_it_starts() -> None:
    """The kubelet mounts a serviceAccountToken source once the account exists (there is
    no TokenRequest in the reference) and a configMap source once the ConfigMap holds the
    key: a pod whose account went away before the kubelet saw it waits for both."""
    c = Cluster()
    robot = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot", "namespace": "default"}}
    c.create(robot)
    c.api.create(_cluster_pod("p", nodeName="kwok-node-0", serviceAccountName="robot",
                              volumes=[{"name": "extra", "projected": {"sources": [
                                  {"configMap": {"name": "extra", "items": [{"key": "k", "path": "k"}]}}]}}]))  # fmt: skip
    c.delete("v1", "ServiceAccount", "robot", "default")  # before the kubelet's first sync
    c.advance(30)
    assert c.get("v1", "Pod", "p", "default")["status"].get("phase") == "Pending"
    c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "extra", "namespace": "default"},
              "data": {"k": "v", "other": "x"}})  # fmt: skip
    c.advance(30)
    assert c.get("v1", "Pod", "p", "default")["status"].get("phase") == "Pending"
    c.create(robot)
    assert c.run_until(lambda: c.get("v1", "Pod", "p", "default")["status"].get("phase") == "Running", 60)
    pod = c.get("v1", "Pod", "p", "default")
    assert c.kubelet.volumes.files(pod)["extra"] == {"k": "v"}
