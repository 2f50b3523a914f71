"""The whole admission chain on custom-resource and subresource writes, through the
reference apiserver: upstream's handlers (apiserver pkg/endpoints/handlers create.go,
update.go) build every write's attributes with its kind, resource and subresource, and
each plugin keeps its own guard. ValidatingAdmissionPolicy rows match on
``resources: ["pods/status"]``, ``"*/scale"``, ``"*/*"`` and on a custom resource's GVR;
ResourceQuota charges a custom resource ``count/<plural>.<group>`` (objectCountEvaluator)
and ignores subresources; PodSecurity evaluates ``pods/ephemeralcontainers`` and exempts
the other pod subresources (``ignoredPodSubresources``)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.cluster import Cluster
from reference_impl.errors import Forbidden, Invalid

Obj = dict[str, Any]
V1 = "admissionregistration.k8s.io/v1"
GROUP = "example.com"
AV = f"{GROUP}/v1"
POLICY = "p"


def _crd(c: Cluster) -> None:
    schema = {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
        "status": {"type": "object", "properties": {"ready": {"type": "integer"}}}}}  # fmt: skip
    c.apply({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
             "metadata": {"name": f"gizmos.{GROUP}"},
             "spec": {"group": GROUP, "scope": "Namespaced",
                      "names": {"plural": "gizmos", "kind": "Gizmo"},
                      "versions": [{"name": "v1", "served": True, "storage": True,
                                    "schema": {"openAPIV3Schema": schema},
                                    "subresources": {"status": {}, "scale": {
                                        "specReplicasPath": ".spec.size",
                                        "statusReplicasPath": ".status.ready"}}}]}})  # fmt: skip
    c.settle()


def _gizmo(name: str, size: int = 1) -> Obj:
    return {"apiVersion": AV, "kind": "Gizmo", "metadata": {"name": name, "namespace": "default"},
            "spec": {"size": size}}  # fmt: skip


def _deny(c: Cluster, groups: list[str], resources: list[str], expression: str,
          operations: tuple[str, ...] = ("*",)) -> None:  # fmt: skip
    """A Deny-bound policy refusing the matched writes where ``expression`` is false."""
    rule = {"apiGroups": groups, "apiVersions": ["*"], "operations": list(operations),
            "resources": resources}  # fmt: skip
    c.apply({"apiVersion": V1, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": POLICY},
             "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": [rule]},
                      "validations": [{"expression": expression, "message": "no",
                                       "reason": "Forbidden"}]}})  # fmt: skip
    c.apply({"apiVersion": V1, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": POLICY},
             "spec": {"policyName": POLICY, "validationActions": ["Deny"]}})  # fmt: skip


def _denied(resource: str, name: str) -> str:
    return f'{resource} "{name}" is forbidden: ValidatingAdmissionPolicy \'{POLICY}\' with binding \'{POLICY}\' denied request: no'  # fmt: skip


def _pod(name: str = "p") -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}  # fmt: skip


# -- ValidatingAdmissionPolicy: resource rules on subresources and custom resources -------


def test_vap_custom_resource_create_and_update() -> None:
    """A rule naming the CR's group and plural matches its creates and updates."""
    c = Cluster()
    _crd(c)
    _deny(c, [GROUP], ["gizmos"], "object.spec.size <= 3")
    with pytest.raises(Forbidden) as e:
        c.apply(_gizmo("big", 5))
    assert str(e.value) == _denied(f"gizmos.{GROUP}", "big")
    assert c.api.try_get(AV, "Gizmo", "big", "default") is None
    g = c.apply(_gizmo("small", 1))
    g["spec"]["size"] = 4
    with pytest.raises(Forbidden):
        c.apply(g)
    g["spec"]["size"] = 3
    assert c.apply(g)["spec"]["size"] == 3


def test_vap_custom_resource_request_attributes() -> None:
    """The CEL ``request`` names the custom resource's GVK and GVR."""
    c = Cluster()
    _crd(c)
    _deny(c, [GROUP], ["gizmos"],
          "request.kind.kind == 'Gizmo' && request.resource.resource == 'gizmos' && "
          "request.resource.group == 'example.com' && request.subResource == '' && false")  # fmt: skip
    with pytest.raises(Forbidden):
        c.apply(_gizmo("g"))


@pytest.mark.parametrize(
    ("resources", "denied"),
    [(["gizmos"], False), (["gizmos/status"], True), (["*/status"], True), (["*/*"], True),
     (["*"], False), (["gizmos/*"], True), (["gizmos/scale"], False)],
)  # fmt: skip
def test_vap_custom_resource_status(resources: list[str], denied: bool) -> None:
    """rules.go ``resource()``: ``<plural>/status``, ``*/status``, ``*/*``, ``<plural>/*``
    match a /status write; ``*`` and the plural alone do not."""
    c = Cluster()
    _crd(c)
    c.apply(_gizmo("g"))
    _deny(c, [GROUP], resources, "!has(object.status) || object.status.ready < 2",
          ("UPDATE",))  # fmt: skip
    g = c.get(AV, "Gizmo", "g", "default")
    g["status"] = {"ready": 5}
    if denied:
        with pytest.raises(Forbidden) as e:
            c.api.update_status(g)
        assert str(e.value) == _denied(f"gizmos.{GROUP}", "g")
        assert "status" not in c.get(AV, "Gizmo", "g", "default")
    else:
        assert c.api.update_status(g)["status"] == {"ready": 5}


@pytest.mark.parametrize(
    ("resources", "denied"),
    [(["pods"], False), (["pods/status"], True), (["*/status"], True), (["*/*"], True),
     (["*"], False), (["pods/*"], True), (["pods/binding"], False)],
)  # fmt: skip
def test_vap_pods_status(resources: list[str], denied: bool) -> None:
    """A policy on ``pods/status`` sees the status write (the object is the Pod)."""
    c = Cluster()
    c.apply(_pod())
    _deny(c, [""], resources, "object.kind != 'Pod' || !has(object.status.message)", ("UPDATE",))
    p = c.get("v1", "Pod", "p", "default")
    p["status"]["message"] = "hello"
    if denied:
        with pytest.raises(Forbidden) as e:
            c.api.update_status(p)
        assert str(e.value) == _denied("pods", "p")
    else:
        assert c.api.update_status(p)["status"]["message"] == "hello"


@pytest.mark.parametrize(
    ("resources", "denied"),
    [(["deployments"], False), (["deployments/scale"], True), (["*/scale"], True),
     (["*/*"], True), (["*"], False), (["deployments/status"], False)],
)  # fmt: skip
def test_vap_deployments_scale(resources: list[str], denied: bool) -> None:
    """A Scale update's attributes: resource apps/v1 deployments, subresource scale, kind
    autoscaling/v1 Scale; the object is the Scale. The Deployment's own update is not it."""
    c = Cluster()
    c.apply({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "default"},
             "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "d"}},
                      "template": {"metadata": {"labels": {"app": "d"}}, "spec": _pod()["spec"]}}})  # fmt: skip
    c.settle()
    expr = ("request.subResource != 'scale' || (request.kind.kind == 'Scale' && "
            "request.kind.group == 'autoscaling' && object.kind == 'Scale' && "
            "request.resource.resource == 'deployments' && object.spec.replicas <= 1)")  # fmt: skip
    _deny(c, ["apps"], resources, expr, ("UPDATE",))
    body = {"apiVersion": "autoscaling/v1", "kind": "Scale",
            "metadata": {"name": "d", "namespace": "default"}, "spec": {"replicas": 3}}  # fmt: skip
    if denied:
        with pytest.raises(Forbidden) as e:
            c.api.update_scale("apps/v1", "Deployment", body)
        assert str(e.value) == _denied("deployments.apps", "d")
        assert c.get("apps/v1", "Deployment", "d", "default")["spec"]["replicas"] == 0
        # One passing the policy is admitted.
        body["spec"]["replicas"] = 1
    assert (
        c.api.update_scale("apps/v1", "Deployment", body)["spec"]["replicas"]
        == body["spec"]["replicas"]
    )
    d = c.get("apps/v1", "Deployment", "d", "default")
    d["spec"]["replicas"] = 5  # the main resource: the scale expression lets it pass
    assert c.apply(d)["spec"]["replicas"] == 5


def test_vap_custom_resource_scale() -> None:
    """``*/scale`` matches a custom resource's Scale update (its kind autoscaling/v1
    Scale); the CR's own spec update with the same size passes."""
    c = Cluster()
    _crd(c)
    c.apply(_gizmo("g"))
    _deny(c, [GROUP], ["*/scale"], "object.spec.replicas <= 2", ("UPDATE",))
    body = {"apiVersion": "autoscaling/v1", "kind": "Scale",
            "metadata": {"name": "g", "namespace": "default"}, "spec": {"replicas": 3}}  # fmt: skip
    with pytest.raises(Forbidden) as e:
        c.api.update_scale(AV, "Gizmo", body)
    assert str(e.value) == _denied(f"gizmos.{GROUP}", "g")
    assert c.get(AV, "Gizmo", "g", "default")["spec"]["size"] == 1
    body["spec"]["replicas"] = 2
    assert c.api.update_scale(AV, "Gizmo", body)["spec"]["replicas"] == 2
    g = c.get(AV, "Gizmo", "g", "default")
    g["spec"]["size"] = 3
    assert c.apply(g)["spec"]["size"] == 3


def test_vap_pods_binding_and_eviction() -> None:
    """pods/binding and pods/eviction are CREATEs of a Binding and an Eviction."""
    c = Cluster()
    pod = _pod()
    pod["spec"]["schedulerName"] = "nobody"  # left unbound
    c.apply(pod)
    _deny(c, [""], ["pods/binding", "pods/eviction"],
          "object.kind == 'Pod'", ("CREATE",))  # fmt: skip
    with pytest.raises(Forbidden) as e:
        c.api.bind("default", "p", "no-such-node")
    assert str(e.value) == _denied("pods", "p")
    assert not c.get("v1", "Pod", "p", "default")["spec"].get("nodeName")
    with pytest.raises(Forbidden):
        c.api.evict("default", "p", {"apiVersion": "policy/v1", "kind": "Eviction",
                                     "metadata": {"name": "p", "namespace": "default"}})  # fmt: skip
    assert c.api.try_get("v1", "Pod", "p", "default") is not None


def test_vap_namespaces_finalize() -> None:
    """namespaces/finalize is an UPDATE with subresource finalize."""
    c = Cluster()
    c.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns1"}})
    _deny(c, [""], ["namespaces/finalize"], "has(object.spec.finalizers)", ("UPDATE",))
    ns = c.get("v1", "Namespace", "ns1")
    ns["spec"] = {}
    with pytest.raises(Forbidden) as e:
        c.api.update_finalize(ns)
    assert str(e.value) == _denied("namespaces", "ns1")
    assert c.get("v1", "Namespace", "ns1")["spec"]["finalizers"] == ["kubernetes"]


# -- ResourceQuota: custom resources by object count, subresources never charged -------


def test_quota_custom_resource_object_count() -> None:
    """``count/gizmos.example.com``: the controller counts the CRs, admission charges a
    create and refuses one past the hard limit; a /status write is not charged."""
    c = Cluster()
    _crd(c)
    c.apply(_gizmo("a"))
    c.apply({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "default"},
             "spec": {"hard": {f"count/gizmos.{GROUP}": "2"}}})  # fmt: skip
    c.settle()

    def used() -> Obj:
        return dict(c.get("v1", "ResourceQuota", "q", "default")["status"]["used"])

    assert used() == {f"count/gizmos.{GROUP}": "1"}
    c.apply(_gizmo("b"))
    assert used() == {f"count/gizmos.{GROUP}": "2"}
    with pytest.raises(Forbidden) as e:
        c.apply(_gizmo("c"))
    assert str(e.value) == (
        f'gizmos.{GROUP} "c" is forbidden: exceeded quota: q, requested: count/gizmos.{GROUP}=1, '
        f"used: count/gizmos.{GROUP}=2, limited: count/gizmos.{GROUP}=2"
    )
    g = c.get(AV, "Gizmo", "b", "default")
    g["status"] = {"ready": 1}
    assert c.api.update_status(g)["status"] == {"ready": 1}
    g = c.get(AV, "Gizmo", "b", "default")
    g["spec"]["size"] = 2
    assert c.apply(g)["spec"]["size"] == 2  # an update is not counted again
    c.settle()
    assert used() == {f"count/gizmos.{GROUP}": "2"}


def test_quota_ignores_pod_status() -> None:
    """TestAdmissionIgnoresSubresources through the apiserver: a quota already at its limit
    refuses a pod create but not a pods/status write."""
    c = Cluster()
    c.apply(_pod("a"))
    c.apply({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "default"},
             "spec": {"hard": {"pods": "1"}}})  # fmt: skip
    c.settle()
    with pytest.raises(Forbidden):
        c.apply(_pod("b"))
    p = c.get("v1", "Pod", "a", "default")
    p["status"]["message"] = "m"
    assert c.api.update_status(p)["status"]["message"] == "m"


# -- PodSecurity: pods/ephemeralcontainers evaluated, other subresources exempt ---------


def _restricted_cluster() -> Cluster:
    c = Cluster()
    c.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ps", "labels": {
        "pod-security.kubernetes.io/enforce": "baseline"}}})  # fmt: skip
    pod = _pod()
    pod["metadata"]["namespace"] = "ps"
    c.apply(pod)
    return c


def test_pod_security_ephemeral_containers() -> None:
    """A privileged ephemeral container in a baseline namespace is refused."""
    c = _restricted_cluster()
    p = c.get("v1", "Pod", "p", "ps")
    p["spec"]["ephemeralContainers"] = [{"name": "debug", "image": "busybox",
                                         "securityContext": {"privileged": True}}]  # fmt: skip
    with pytest.raises(Forbidden) as e:
        c.api.update_ephemeralcontainers(p)
    assert str(e.value).startswith('pods "p" is forbidden: violates PodSecurity "baseline:latest"')
    p["spec"]["ephemeralContainers"] = [{"name": "debug", "image": "busybox"}]
    out = c.api.update_ephemeralcontainers(p)
    assert [x["name"] for x in out["spec"]["ephemeralContainers"]] == ["debug"]


def test_pod_security_exempts_pod_status() -> None:
    """pods/status is in ``ignoredPodSubresources``: a status write on a pod that the
    namespace's level would now refuse is admitted."""
    c = Cluster()
    c.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ps"}})
    pod = _pod()
    pod["metadata"]["namespace"] = "ps"
    pod["spec"]["containers"][0]["securityContext"] = {"privileged": True}
    c.apply(pod)
    ns = c.get("v1", "Namespace", "ps")
    ns["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] = "baseline"
    c.apply(ns)
    p = c.get("v1", "Pod", "p", "ps")
    p["status"]["message"] = "m"
    assert c.api.update_status(p)["status"]["message"] == "m"
    p = c.get("v1", "Pod", "p", "ps")
    p["metadata"].setdefault("labels", {})["x"] = "y"  # a main-resource update, insignificant
    assert c.apply(p)["metadata"]["labels"]["x"] == "y"


def test_invalid_status_is_refused_before_validating_admission() -> None:
    """Validating admission runs only on an object that passed validation (store.go)."""
    c = Cluster()
    _crd(c)
    c.apply(_gizmo("g"))
    _deny(c, [GROUP], ["gizmos/status"], "false", ("UPDATE",))
    g = c.get(AV, "Gizmo", "g", "default")
    g["status"] = {"ready": "many"}
    with pytest.raises(Invalid):
        c.api.update_status(g)


def test_namespace_lifecycle_custom_resource_in_terminating_namespace() -> None:
    """NamespaceLifecycle refuses a custom resource's create in a terminating namespace."""
    c = Cluster()
    _crd(c)
    c.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gone"}})
    c.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "gone",
             "finalizers": ["example.com/hold"]}})  # fmt: skip
    c.delete("v1", "Namespace", "gone")
    gizmo = _gizmo("g")
    gizmo["metadata"]["namespace"] = "gone"
    with pytest.raises(Forbidden) as e:
        c.apply(gizmo)
    assert str(e.value) == (
        'gizmos.example.com "g" is forbidden: unable to create new content in namespace gone '
        "because it is being terminated"
    )


# -- MutatingAdmissionPolicy: the same attributes on the mutating side -----------------


def _mutate(c: Cluster, groups: list[str], resources: list[str], patch: str) -> None:
    rule = {"apiGroups": groups, "apiVersions": ["*"], "operations": ["*"], "resources": resources}
    c.apply({"apiVersion": V1, "kind": "MutatingAdmissionPolicy", "metadata": {"name": "m"},
             "spec": {"matchConstraints": {"resourceRules": [rule]}, "reinvocationPolicy": "Never",
                      "mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": patch}}]}})  # fmt: skip
    c.apply({"apiVersion": V1, "kind": "MutatingAdmissionPolicyBinding", "metadata": {"name": "m"},
             "spec": {"policyName": "m"}})  # fmt: skip


def test_map_deployments_scale_mutates_the_scale() -> None:
    """A MutatingAdmissionPolicy on ``deployments/scale`` patches the Scale body, whose
    replicas then reach the Deployment; the Deployment's own update is not matched."""
    c = Cluster()
    c.apply({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "default"},
             "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "d"}},
                      "template": {"metadata": {"labels": {"app": "d"}}, "spec": _pod()["spec"]}}})  # fmt: skip
    _mutate(c, ["apps"], ["deployments/scale"],
            "[JSONPatch{op: 'replace', path: '/spec/replicas', value: 1}]")  # fmt: skip
    body = {"apiVersion": "autoscaling/v1", "kind": "Scale",
            "metadata": {"name": "d", "namespace": "default"}, "spec": {"replicas": 4}}  # fmt: skip
    assert c.api.update_scale("apps/v1", "Deployment", body)["spec"]["replicas"] == 1
    d = c.get("apps/v1", "Deployment", "d", "default")
    assert d["spec"]["replicas"] == 1
    d["spec"]["replicas"] = 4
    assert c.apply(d)["spec"]["replicas"] == 4


def test_map_custom_resource_create() -> None:
    """A MutatingAdmissionPolicy on a custom resource patches its create."""
    c = Cluster()
    _crd(c)
    _mutate(c, [GROUP], ["gizmos"], "[JSONPatch{op: 'replace', path: '/spec/size', value: 7}]")
    assert c.apply(_gizmo("g", 1))["spec"]["size"] == 7
    assert c.get(AV, "Gizmo", "g", "default")["spec"]["size"] == 7
