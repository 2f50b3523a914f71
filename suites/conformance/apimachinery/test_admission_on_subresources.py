"""API machinery conformance: admission runs on every write, custom resources' and
subresources' too.

Upstream's handlers (k8s.io/apiserver pkg/endpoints/handlers create.go, update.go) build
the admission attributes of every write with its resource and subresource, so a
ValidatingAdmissionPolicy whose resourceRules name a custom resource (its group and plural)
refuses that resource's writes, one naming ``<plural>/status`` refuses only /status writes,
and one naming ``deployments/scale`` refuses a Scale update (the policy sees the
autoscaling/v1 Scale) while the Deployment's own update passes it. The refusal reads
``<resource>.<group> "<name>" is forbidden: ValidatingAdmissionPolicy '<p>' with binding
'<b>' denied request: <message>`` (dispatcher.go, admission.NewForbidden: the parent's
resource, never the subresource).

Policies and bindings are cluster-scoped: their names carry the test's namespace and they
match only that namespace. A new binding applies once the policy informer has it, so the
first refusal is polled for on a probe object; the object under test then meets one write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final

import pytest

from fixtures import Target
from fixtures.helpers.eventually import eventually
from fixtures.helpers.retry import retry_on_conflict
from fixtures.targets.extensions import ScaleSubresource, scale_subresource_of
from reference_impl.api import make_deployment, make_pod
from reference_impl.errors import Forbidden, NotFound

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
V1: Final = "admissionregistration.k8s.io/v1"
CRD: Final = ("apiextensions.k8s.io/v1", "CustomResourceDefinition")
_INT: Obj = {"type": "integer"}
SCHEMA: Obj = {"type": "object", "properties": {
    "spec": {"type": "object", "properties": {"size": _INT}},
    "status": {"type": "object", "properties": {"ready": _INT}},
}}  # fmt: skip


def _rule(group: str, resource: str) -> Obj:
    return {"apiGroups": [group], "apiVersions": ["*"], "operations": ["CREATE", "UPDATE"],
            "resources": [resource]}  # fmt: skip


def _policy_and_binding(
    name: str, namespace: str, rule: Obj, expression: str, message: str
) -> list[Obj]:
    match = {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
        "resourceRules": [rule],
    }
    policy = {"apiVersion": V1, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name},
              "spec": {"failurePolicy": "Fail", "matchConstraints": match,
                       "validations": [{"expression": expression, "message": message,
                                        "reason": "Forbidden"}]}}  # fmt: skip
    binding = {"apiVersion": V1, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name},
               "spec": {"policyName": name, "validationActions": ["Deny"]}}  # fmt: skip
    return [policy, binding]


@pytest.fixture
def cleanup(target: Target) -> Iterator[list[tuple[str, str, str]]]:
    """(apiVersion, kind, name) of cluster-scoped objects to delete after the test."""
    made: list[tuple[str, str, str]] = []
    yield made
    for av, kind, name in reversed(made):
        try:
            target.delete(av, kind, name)
        except NotFound:
            pass


def _install(target: Target, objs: list[Obj], cleanup: list[tuple[str, str, str]]) -> None:
    for obj in objs:
        target.apply(obj)
        cleanup.append((obj["apiVersion"], obj["kind"], obj["metadata"]["name"]))


def _await_refusal(target: Target, probe: Callable[[], object], what: str) -> None:
    """Poll ``probe`` (a write to a throwaway object) until the binding refuses it: a new
    binding applies once the policy informer has it."""

    def check() -> str:
        try:
            probe()
        except Forbidden:
            return ""
        return "admitted"

    eventually(target, check, 30, f"refusal of {what}")


def _refusal(write: Callable[[], object]) -> Forbidden:
    """The Forbidden ``write`` meets, its one attempt."""
    with pytest.raises(Forbidden) as refused:
        write()
    return refused.value


def _replace_replicas(target: Target, name: str, namespace: str, replicas: int) -> Obj:
    """Read the Deployment and write it back with ``replicas``, again on a Conflict (its
    controller writes status between the two)."""

    def write() -> Obj:
        dep = target.get("apps/v1", "Deployment", name, namespace)
        dep["spec"]["replicas"] = replicas
        return target.apply(dep)

    return retry_on_conflict(write, f"Deployment {name}")


def _denied(resource: str, name: str, policy: str, message: str) -> str:
    return (
        f"{resource} \"{name}\" is forbidden: ValidatingAdmissionPolicy '{policy}' with binding "
        f"'{policy}' denied request: {message}"
    )


def test_policies_match_custom_resources_and_their_status(
    target: Target, namespace: str, cleanup: list[tuple[str, str, str]]
) -> None:
    """ValidatingAdmissionPolicy on a custom resource and its /status.

    A policy whose resourceRules name a custom resource (its CRD's group and plural) MUST
    refuse a create of that resource failing its validation, 403 Forbidden with
    ``<plural>.<group> "<name>" is forbidden: ValidatingAdmissionPolicy ...``, and admit one
    passing it. A policy naming ``<plural>/status`` MUST refuse a /status write failing its
    validation, while the same object's main-resource writes are not matched by it.
    """
    group = f"{namespace}.adm.garhwal.dev"
    crd, av = f"gizmos.{group}", f"{group}/v1"
    _install(target, [{"apiVersion": CRD[0], "kind": CRD[1], "metadata": {"name": crd},
                       "spec": {"group": group, "scope": "Namespaced",
                                "names": {"plural": "gizmos", "kind": "Gizmo"},
                                "versions": [{"name": "v1", "served": True, "storage": True,
                                              "schema": {"openAPIV3Schema": SCHEMA},
                                              "subresources": {"status": {}}}]}}], cleanup)  # fmt: skip

    def served() -> bool:  # Established, and discovery has caught up
        try:
            target.list(av, "Gizmo", namespace)
        except NotFound:
            return False
        return True

    target.wait_until(served, timeout=60, what=f"{av} Gizmo served")
    size, ready = f"garhwal-adm-size-{namespace}", f"garhwal-adm-ready-{namespace}"
    _install(target, _policy_and_binding(size, namespace, _rule(group, "gizmos"),
                                         "object.spec.size <= 3", "size at most 3"), cleanup)  # fmt: skip
    _install(target, _policy_and_binding(ready, namespace, _rule(group, "gizmos/status"),
                                         "!has(object.status) || !has(object.status.ready) || object.status.ready <= 1",
                                         "ready at most 1"), cleanup)  # fmt: skip

    def gizmo(name: str, n: int) -> Obj:
        return {"apiVersion": av, "kind": "Gizmo", "metadata": {"name": name, "namespace": namespace},
                "spec": {"size": n}}  # fmt: skip

    _await_refusal(target, lambda: target.apply(gizmo("probe", 5)), "a Gizmo of size 5")
    err = _refusal(lambda: target.apply(gizmo("big", 5)))
    assert err.code == 403
    assert err.message == _denied(f"gizmos.{group}", "big", size, "size at most 3")
    with pytest.raises(NotFound):
        target.get(av, "Gizmo", "big", namespace)

    target.apply(gizmo("small", 1))

    target.apply(gizmo("probe-status", 1))

    def write_status(name: str) -> object:
        current = target.get(av, "Gizmo", name, namespace)
        current["status"] = {"ready": 5}
        return target.patch_status(current)

    _await_refusal(target, lambda: write_status("probe-status"), "a Gizmo status of ready 5")
    err = _refusal(lambda: write_status("small"))
    assert err.message == _denied(f"gizmos.{group}", "small", ready, "ready at most 1")
    assert "status" not in target.get(av, "Gizmo", "small", namespace)
    # The status policy does not match the main resource: its update is admitted.
    current = target.get(av, "Gizmo", "small", namespace)
    current["spec"]["size"] = 2
    assert target.apply(current)["spec"]["size"] == 2
    current = target.get(av, "Gizmo", "small", namespace)
    current["status"] = {"ready": 1}
    assert target.patch_status(current)["status"] == {"ready": 1}


@pytest.fixture
def scales(target: Target) -> ScaleSubresource:
    """The target's client for ``/scale``."""
    client = scale_subresource_of(target)
    if client is None:
        pytest.skip(f"target {target.name!r} does not reach the scale subresource")
    return client


def test_a_policy_on_deployments_scale_refuses_scale_updates_only(
    target: Target, namespace: str, scales: ScaleSubresource, cleanup: list[tuple[str, str, str]]
) -> None:
    """ValidatingAdmissionPolicy on ``deployments/scale``.

    A policy whose resourceRules name ``deployments/scale`` MUST see the Scale
    (``object.spec.replicas``) of a Scale update and refuse one failing its validation,
    403 Forbidden with ``deployments.apps "<name>" is forbidden: ...``, leaving the
    Deployment's replicas as they were; it MUST NOT match the Deployment's own update, which
    sets the same replicas.
    """
    pod = make_pod("x").req(cpu="10m", memory="16Mi")
    target.apply(make_deployment("scaled", namespace, replicas=0, pod=pod).build())
    target.apply(make_deployment("probe", namespace, replicas=0, pod=pod).build())
    policy = f"garhwal-adm-scale-{namespace}"
    _install(target, _policy_and_binding(policy, namespace, _rule("apps", "deployments/scale"),
                                         "object.spec.replicas <= 1", "at most 1 replica"), cleanup)  # fmt: skip

    _await_refusal(
        target, lambda: scales.update_scale("apps/v1", "Deployment", "probe", namespace, 3),
        "a Scale update to 3 replicas",
    )  # fmt: skip
    err = _refusal(lambda: scales.update_scale("apps/v1", "Deployment", "scaled", namespace, 3))
    assert err.code == 403
    assert err.message == _denied("deployments.apps", "scaled", policy, "at most 1 replica")
    assert target.get("apps/v1", "Deployment", "scaled", namespace)["spec"]["replicas"] == 0
    assert (
        scales.update_scale("apps/v1", "Deployment", "scaled", namespace, 1)["spec"]["replicas"]
        == 1
    )

    assert _replace_replicas(target, "scaled", namespace, 3)["spec"]["replicas"] == 3


def test_a_policy_on_pod_deletes_does_not_refuse_an_eviction(
    target: Target, namespace: str, cleanup: list[tuple[str, str, str]]
) -> None:
    """Evictions delete without delete admission.

    With a ValidatingAdmissionPolicy that refuses every DELETE of pods, a pod's DELETE
    MUST be refused (403 Forbidden) while an Eviction of a pod MUST still succeed and the
    pod MUST go: the eviction REST (pkg/registry/core/pod/storage/eviction.go) deletes
    through the store with ``rest.ValidateAllObjectFunc``, so delete admission never sees
    it (the Eviction's own CREATE is what admission sees).
    """
    nowhere = {"garhwal.dev/no-such-node": namespace}  # unscheduled: deleted at once

    def pod(name: str) -> Obj:
        return make_pod(name, namespace).req(cpu="10m").node_selector(**nowhere).build()

    def delete_probe() -> None:
        try:
            target.get("v1", "Pod", "probe", namespace)
        except NotFound:
            target.apply(pod("probe"))
        target.delete("v1", "Pod", "probe", namespace)

    target.apply(pod("evicted"))
    policy = f"garhwal-adm-del-{namespace}"
    rule = {"apiGroups": [""], "apiVersions": ["*"], "operations": ["DELETE"], "resources": ["pods"]}
    _install(target, _policy_and_binding(policy, namespace, rule, "false", "no pod deletes"), cleanup)
    _await_refusal(target, delete_probe, "a pod DELETE")
    err = _refusal(lambda: target.delete("v1", "Pod", "probe", namespace))
    assert err.message == _denied("pods", "probe", policy, "no pod deletes")

    target.evict("evicted", namespace)

    def gone() -> bool:
        try:
            target.get("v1", "Pod", "evicted", namespace)
        except NotFound:
            return True
        return False

    target.wait_until(gone, timeout=60, what="the evicted pod gone")
    assert target.get("v1", "Pod", "probe", namespace)["metadata"]["name"] == "probe"
