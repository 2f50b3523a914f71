"""API machinery conformance: the ``Warning: 299`` texts a write, a delete or a read is
answered with.

The expected texts are upstream's, spelled out here: ``pkg/api/pod/warnings.go``
(warningsForPodSpecAndMeta), ``pkg/api/node/util.go`` (deprecatedNodeLabels,
GetWarningsForNodeSelectorTerm), ``pkg/api/service/warnings.go``,
``pkg/api/persistentvolume/util.go``, ``pkg/api/storage/util.go``, the apps strategies'
WarningsOnUpdate, ``k8s.io/apiserver/pkg/endpoints/deprecation`` (WarningMessage, which
``installer.go`` adds to every route of a deprecated version, reads and deletes included)
and the validating admission policy dispatcher's Warn text, on DELETE too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Final

import pytest

from fixtures import Target
from fixtures.helpers.eventually import eventually
from fixtures.targets.extensions import WriteWarnings, read_warnings_of, write_warnings_of
from reference_impl.errors import NotFound

pytestmark = pytest.mark.conformance

Manifest = dict[str, Any]

_PAUSE: Final = [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]
_REVISION: Final = "deployment.kubernetes.io/revision"
_AFFINITY: Final = "spec.affinity.nodeAffinity"
_LABEL_VALUE: Final = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
_NEGATIVE_GRACE: Final = (
    "spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative values are "
    "invalid and will be treated as 1"
)


@pytest.fixture
def warned(target: Target) -> WriteWarnings:
    """The target's read-out of its writes' warnings."""
    reader = write_warnings_of(target)
    if reader is None:
        pytest.skip(f"target {target.name!r} does not read its writes' Warning headers")
    return reader


def _expr(key: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": "In", "values": list(values)}


def test_deprecated_node_labels_in_a_pod_warn(
    target: Target, namespace: str, warned: WriteWarnings
) -> None:
    """API warnings, deprecated node labels in a Pod.

    Creating a Pod whose nodeSelector, required and preferred node affinity use
    beta.kubernetes.io/arch, failure-domain.beta.kubernetes.io/zone and beta.kubernetes.io/os
    MUST be answered with one warning per use, naming the field and the replacement label,
    and a preferred term's value that is no valid label value MUST warn too, in that order.
    """
    pod = {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "old-labels", "namespace": namespace},
        "spec": {
            "containers": _PAUSE, "nodeSelector": {"beta.kubernetes.io/arch": "amd64"},
            "affinity": {"nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [_expr("failure-domain.beta.kubernetes.io/zone", "z1")]},
                ]},
                "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {
                    "matchExpressions": [_expr("beta.kubernetes.io/os", "linux", "-bad-")],
                }}],
            }},
        },
    }  # fmt: skip
    target.apply(pod)
    required = f"{_AFFINITY}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
    preferred = f"{_AFFINITY}.preferredDuringSchedulingIgnoredDuringExecution[0].preference"
    assert warned.last_write_warnings() == (
        "spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "
        '"kubernetes.io/arch" instead',
        f"{required}.matchExpressions[0].key: failure-domain.beta.kubernetes.io/zone is "
        'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
        f"{preferred}.matchExpressions[0].key: beta.kubernetes.io/os is deprecated since v1.14; "
        'use "kubernetes.io/os" instead',
        f"{preferred}.matchExpressions[0].values[1]: -bad- is invalid, {_LABEL_VALUE}",
    )


def test_a_deployment_template_warns_on_create_and_on_generation_changes(
    target: Target, namespace: str, warned: WriteWarnings
) -> None:
    """API warnings, a Deployment's pod template.

    A Deployment whose template has a negative terminationGracePeriodSeconds MUST be
    created with the warning that it will be treated as 1; an update that changes only its
    labels (no new generation) MUST carry no warning; one that changes the spec (a new
    generation) MUST carry the template's warning again. A ConfigMap write after it MUST
    carry none.
    """
    dep: Manifest = {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "grace", "namespace": namespace},
        "spec": {
            "replicas": 0, "selector": {"matchLabels": {"app": "grace"}},
            "template": {"metadata": {"labels": {"app": "grace"}},
                         "spec": {"containers": _PAUSE, "terminationGracePeriodSeconds": -1}},
        },
    }  # fmt: skip
    target.apply(dep)
    assert warned.last_write_warnings() == (_NEGATIVE_GRACE,)

    def annotations() -> dict[str, str]:
        got = target.get("apps/v1", "Deployment", "grace", namespace)["metadata"]
        return dict(got.get("annotations") or {})

    # The controller annotates the revision; the update carries that annotation as it is
    # (a changed annotation would bump the generation too).
    target.wait_until(lambda: _REVISION in annotations(), timeout=60, what="the revision")
    relabelled = json.loads(json.dumps(dep))
    relabelled["metadata"] |= {"labels": {"tier": "web"}, "annotations": annotations()}
    target.apply(relabelled)
    assert warned.last_write_warnings() == ()

    respecced = json.loads(json.dumps(relabelled))
    respecced["spec"]["minReadySeconds"] = 5
    target.apply(respecced)
    assert warned.last_write_warnings() == (_NEGATIVE_GRACE,)

    target.apply(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "quiet", "namespace": namespace},
            "data": {"k": "v"},
        }
    )
    assert warned.last_write_warnings() == ()


def test_service_external_ips_warn(target: Target, namespace: str, warned: WriteWarnings) -> None:
    """API warnings, Service externalIPs.

    A ClusterIP Service with externalIPs, one an IPv6 address not in RFC 5952 form, MUST
    warn of that address with its canonical form, then that externalIPs is deprecated.
    """
    svc = {
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "ext", "namespace": namespace},
        "spec": {"selector": {"app": "ext"}, "ports": [{"port": 80}],
                 "externalIPs": ["2001:db8:0::1", "192.0.2.10"]},
    }  # fmt: skip
    target.apply(svc)
    assert warned.last_write_warnings() == (
        'spec.externalIPs[0]: IPv6 address "2001:db8:0::1" should be in RFC 5952 canonical '
        'format ("2001:db8::1")',
        "spec.externalIPs is deprecated and may no longer be implemented in some clusters",
    )


@pytest.fixture
def cluster_scoped(target: Target) -> Iterator[list[tuple[str, str, str]]]:
    """Cluster-scoped objects a test made (apiVersion, kind, name), deleted after it."""
    made: list[tuple[str, str, str]] = []
    yield made
    for api_version, kind, name in made:
        try:
            target.delete(api_version, kind, name)
        except NotFound:
            pass


def test_persistent_volume_and_storage_class_warn(
    target: Target,
    namespace: str,
    warned: WriteWarnings,
    cluster_scoped: list[tuple[str, str, str]],
) -> None:
    """API warnings, PersistentVolume and StorageClass.

    A hostPath PersistentVolume with the Recycle reclaim policy and a required node affinity
    on failure-domain.beta.kubernetes.io/zone MUST warn that Recycle is deprecated, then of
    the deprecated label; a StorageClass whose allowedTopologies use
    failure-domain.beta.kubernetes.io/region MUST warn of that label.
    """
    pv_name, sc_name = f"{namespace}-recycle", f"{namespace}-old-topology"
    cluster_scoped += [("v1", "PersistentVolume", pv_name),
                       ("storage.k8s.io/v1", "StorageClass", sc_name)]  # fmt: skip
    target.apply({
        "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": pv_name},
        "spec": {
            "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
            "hostPath": {"path": f"/tmp/{pv_name}"}, "persistentVolumeReclaimPolicy": "Recycle",
            "nodeAffinity": {"required": {"nodeSelectorTerms": [
                {"matchExpressions": [_expr("failure-domain.beta.kubernetes.io/zone", "z1")]},
            ]}},
        },
    })  # fmt: skip
    assert warned.last_write_warnings() == (
        "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. "
        "Instead, the recommended approach is to use dynamic provisioning.",
        "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key: "
        "failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "
        '"topology.kubernetes.io/zone" instead',
    )
    target.apply({
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": sc_name},
        "provisioner": "example.com/none",
        "allowedTopologies": [{"matchLabelExpressions": [
            {"key": "failure-domain.beta.kubernetes.io/region", "values": ["r1"]},
        ]}],
    })  # fmt: skip
    assert warned.last_write_warnings() == (
        "allowedTopologies[0].matchLabelExpressions[0].key: deprecated since v1.17; use "
        '"topology.kubernetes.io/region" instead',
    )


@pytest.mark.runtime_config("resource.k8s.io/v1beta2=true")
def test_a_deprecated_api_version_warns(
    target: Target,
    namespace: str,
    warned: WriteWarnings,
    cluster_scoped: list[tuple[str, str, str]],
) -> None:
    """API warnings, deprecated group/versions.

    Creating a DeviceClass through resource.k8s.io/v1beta2 (deprecated in 1.36, removed in
    1.39, no replacement named) MUST warn with the version's deprecation text.
    """
    name = f"{namespace}-beta2"
    cluster_scoped.append(("resource.k8s.io/v1", "DeviceClass", name))
    target.apply({"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceClass",
                  "metadata": {"name": name}, "spec": {}})  # fmt: skip
    assert warned.last_write_warnings() == (
        "resource.k8s.io/v1beta2 DeviceClass is deprecated in v1.36+, unavailable in v1.39+",
    )


_ENDPOINTS_DEPRECATED: Final = (
    "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"
)


def test_the_deprecated_v1_endpoints_warns_on_every_request(
    target: Target, namespace: str, warned: WriteWarnings
) -> None:
    """API warnings, a deprecated version served by default.

    v1 Endpoints (deprecated in 1.33 for discovery.k8s.io/v1 EndpointSlice, served by
    default in 1.37) MUST be warned with ``v1 Endpoints is deprecated in v1.33+; use
    discovery.k8s.io/v1 EndpointSlice`` on a create, a get, a list and a delete.
    """
    reads = read_warnings_of(target)
    if reads is None:
        pytest.skip(f"target {target.name!r} does not read its reads' Warning headers")
    name = "old-style"
    target.apply({"apiVersion": "v1", "kind": "Endpoints",
                  "metadata": {"name": name, "namespace": namespace}})  # fmt: skip
    assert warned.last_write_warnings() == (_ENDPOINTS_DEPRECATED,)
    target.get("v1", "Endpoints", name, namespace)
    assert reads.last_read_warnings() == (_ENDPOINTS_DEPRECATED,)
    target.list("v1", "ConfigMap", namespace)
    assert reads.last_read_warnings() == ()
    target.list("v1", "Endpoints", namespace)
    assert reads.last_read_warnings() == (_ENDPOINTS_DEPRECATED,)
    target.delete("v1", "Endpoints", name, namespace)
    assert warned.last_write_warnings() == (_ENDPOINTS_DEPRECATED,)


_V1: Final = "admissionregistration.k8s.io/v1"
_ON_DELETE: Final = "garhwal-warn-on-delete"


@pytest.fixture
def warn_on_delete(
    target: Target, namespace: str, cluster_scoped: list[tuple[str, str, str]]
) -> str:
    """A policy with a Warn binding on DELETE of this namespace's labelled ConfigMaps,
    failing on every one: ``object`` is null on DELETE, the deleted object ``oldObject``."""
    name = f"{_ON_DELETE}-{namespace}"
    match = {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
        "objectSelector": {"matchExpressions": [{"key": _ON_DELETE, "operator": "Exists"}]},
        "resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["DELETE"],
                           "resources": ["configmaps"]}],
    }  # fmt: skip
    cluster_scoped += [(_V1, "ValidatingAdmissionPolicyBinding", name),
                       (_V1, "ValidatingAdmissionPolicy", name)]  # fmt: skip
    target.apply({"apiVersion": _V1, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name},
                  "spec": {"failurePolicy": "Fail", "matchConstraints": match, "validations": [
                      {"expression": "object != null",
                       "messageExpression": "'deleting ' + oldObject.metadata.name"}]}})  # fmt: skip
    target.apply({"apiVersion": _V1, "kind": "ValidatingAdmissionPolicyBinding",
                  "metadata": {"name": name},
                  "spec": {"policyName": name, "validationActions": ["Warn"]}})  # fmt: skip
    return name


def test_a_warn_binding_warns_on_delete(
    target: Target, namespace: str, warned: WriteWarnings, warn_on_delete: str
) -> None:
    """API warnings, a ValidatingAdmissionPolicy Warn binding on DELETE.

    Deleting a ConfigMap that a DELETE-matching policy with a Warn binding fails (object is
    null on DELETE; oldObject is the object deleted) MUST succeed with the warning
    ``Validation failed for ValidatingAdmissionPolicy '<p>' with binding '<b>': <message>``;
    the create before it, which the policy does not match, MUST carry none. A new binding
    applies once the apiserver's informer has it, so fresh ConfigMaps are deleted until
    one is warned.
    """
    tries: list[int] = []

    def check() -> str:
        name = f"doomed-{len(tries)}"
        tries.append(0)
        target.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": name, "namespace": namespace, "labels": {_ON_DELETE: "yes"}}})  # fmt: skip
        if warned.last_write_warnings() != ():
            return f"create warned {warned.last_write_warnings()}"
        target.delete("v1", "ConfigMap", name, namespace)
        got = warned.last_write_warnings()
        want = (f"Validation failed for ValidatingAdmissionPolicy '{warn_on_delete}' with "
                f"binding '{warn_on_delete}': deleting {name}",)  # fmt: skip
        return "" if got == want else f"delete warned {got}, not {want}"

    eventually(target, check, 30, "the DELETE Warn binding's warning")
