"""Warnings of deletes, evictions and reads through the reference apiserver
(``APIServer.warnings`` / ``read_warnings``) and the reference cluster's capture of them:
a deprecated version warns on every route (``installer.go``), a v1 Job deleted without a
policy warns (``job/storage.go``), a Warn-bound ValidatingAdmissionPolicy on DELETE warns,
and an eviction is warned only what admission of its Eviction says."""

from __future__ import annotations

from typing import Any

from reference_impl.apiserver.warnings.delete import JOB_DELETE_OPTION_WARNING
from reference_impl.cluster import Cluster, ClusterConfig

Obj = dict[str, Any]
V1 = "admissionregistration.k8s.io/v1"
EP_WARNING = "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"


def _cluster() -> Cluster:
    return Cluster(config=ClusterConfig(nodes=0))


def _warn_on(c: Cluster, resources: list[str], operations: list[str], expression: str) -> None:
    rule = {"apiGroups": [""], "apiVersions": ["v1"], "operations": operations, "resources": resources}
    c.api.create({"apiVersion": V1, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "p"},
                  "spec": {"matchConstraints": {"resourceRules": [rule]},
                           "validations": [{"expression": expression, "message": "gone"}]}})  # fmt: skip
    c.api.create({"apiVersion": V1, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": "b"},
                  "spec": {"policyName": "p", "validationActions": ["Warn"]}})  # fmt: skip


VAP_WARNING = "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': gone"


def _cm(name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}}


def _endpoints(name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": name, "namespace": "default"}}


def test_a_warn_binding_warns_on_delete() -> None:
    c = _cluster()
    _warn_on(c, ["configmaps"], ["DELETE"], "object == null ? oldObject.metadata.name == 'cm' : false")
    c.api.create(_cm("cm"))
    c.api.create(_cm("other"))
    assert c.api.warnings == []  # the policy matches DELETE only
    assert c.api.delete("v1", "ConfigMap", "cm", "default") is None
    assert c.api.warnings == []  # the expression holds for "cm"
    c.delete("v1", "ConfigMap", "other", "default")
    assert c.api.try_get("v1", "ConfigMap", "other", "default") is None
    assert c.write_warnings == (VAP_WARNING,)


def test_a_deprecated_version_warns_on_create_read_and_delete() -> None:
    c = _cluster()
    c.create(_endpoints("ep"))
    assert c.write_warnings == (EP_WARNING,)
    c.get("v1", "Endpoints", "ep", "default")
    assert c.read_warnings == (EP_WARNING,)
    c.list("v1", "ConfigMap", "default")
    assert c.read_warnings == ()
    c.list("v1", "Endpoints", "default")
    assert c.read_warnings == (EP_WARNING,)
    c.list_page("v1", "ComponentStatus")
    assert c.read_warnings == ("v1 ComponentStatus is deprecated in v1.19+",)
    assert list(c.api.watch("v1", "Endpoints", namespace="default")) is not None
    assert c.api.read_warnings == [EP_WARNING]
    c.delete("v1", "Endpoints", "ep", "default")
    assert c.write_warnings == (EP_WARNING,)


def test_a_job_deleted_without_a_policy_is_warned() -> None:
    c = _cluster()
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "default"},
           "spec": {"template": {"spec": {"restartPolicy": "Never",
                                          "containers": [{"name": "c", "image": "i"}]}}}}  # fmt: skip
    c.create(job)
    c.api.delete("batch/v1", "Job", "j", "default", propagation_policy="Background")
    assert c.api.warnings == []
    c.create(job)
    c.api.delete("batch/v1", "Job", "j", "default")
    assert c.api.warnings == [JOB_DELETE_OPTION_WARNING]


def test_an_eviction_is_warned_what_admission_of_the_eviction_says() -> None:
    """EvictionREST deletes through the store: a Warn binding on the pod's DELETE does not
    see it, one on pods/eviction CREATE does."""
    c = _cluster()
    _warn_on(c, ["pods/eviction"], ["CREATE"], "false")
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "i"}]}}  # fmt: skip
    c.create(pod)
    c.evict("p", "default")
    assert c.api.try_get("v1", "Pod", "p", "default") is None
    assert c.write_warnings == (VAP_WARNING,)
