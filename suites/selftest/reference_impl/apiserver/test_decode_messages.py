"""A body that does not decode gets upstream's 400 word for word. Every message below was
answered by a live v1.37.2 kube-apiserver (``fieldValidation=Strict``) to the same body.

Go names the innermost struct before the field path and the Go type after it. A named
type (types.UID, v1.PodPhase, v1.ResourceList) is not in the OpenAPI schema: the
reference reads it from ``go_types.json``, which ``tools/gotypes/extract.py`` writes from
the v1.37.2 Go declarations.
"""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver import schema
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import BadRequest
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]

_POD: Obj = {
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
    "spec": {"containers": [{"name": "c", "image": "i"}]},
}  # fmt: skip
_CLAIM: Obj = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
    "metadata": {"name": "p", "namespace": "default"},
    "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "x"}}]}},
}  # fmt: skip
_SECRET: Obj = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "p", "namespace": "default"}}
_NAMESPACE: Obj = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}}
_DEPLOYMENT: Obj = {
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "p", "namespace": "default"},
    "spec": {
        "selector": {"matchLabels": {"a": "b"}},
        "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
    },
}  # fmt: skip


def _with(base: Obj, *edits: tuple[tuple[str, ...], Any]) -> Obj:
    out = copy.deepcopy(base)
    for path, value in edits:
        obj = out
        for step in path[:-1]:
            obj = obj[step]
        obj[path[-1]] = value
    return out


def _c(**extra: Any) -> list[Obj]:
    return [{"name": "c", "image": "i", **extra}]


_PREFIX = "Pod in version \"v1\" cannot be handled as a Pod: "
_TYPE = "json: cannot unmarshal "
CASES = [
    (_with(_POD, (("spec", "hostNetwork"), "x")),
     _TYPE + "string into Go struct field PodSpec.spec.hostNetwork of type bool"),
    (_with(_POD, (("spec", "containers"), [{"name": 5, "image": "i"}])),
     _TYPE + "number into Go struct field Container.spec.containers.name of type string"),
    (_with(_POD, (("metadata", "labels"), {"a": 1})),
     _TYPE + "number into Go struct field ObjectMeta.metadata.labels of type string"),
    (_with(_POD, (("metadata", "labels"), "x")),
     _TYPE + "string into Go struct field ObjectMeta.metadata.labels of type map[string]string"),
    (_with(_POD, (("spec", "containers"), _c(ports=[{"containerPort": 2**31}]))),
     _TYPE + "number 2147483648 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32"),
    (_with(_POD, (("spec", "containers"), _c(ports={"a": 1}))),
     _TYPE + "object into Go struct field Container.spec.containers.ports of type []v1.ContainerPort"),
    (_with(_POD, (("spec", "containers"), {"a": 1})),
     _TYPE + "object into Go struct field PodSpec.spec.containers of type []v1.Container"),
    (_with(_POD, (("spec",), [])),
     _TYPE + "array into Go struct field Pod.spec of type v1.PodSpec"),
    (_with(_POD, (("metadata",), "x")),
     _TYPE + "string into Go struct field Pod.metadata of type v1.ObjectMeta"),
    (_with(_POD, (("spec", "priority"), 1.5)),
     _TYPE + "number 1.5 into Go struct field PodSpec.spec.priority of type int32"),
    (_with(_POD, (("spec", "terminationGracePeriodSeconds"), 2**64)),
     _TYPE + "number 18446744073709551616 into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64"),
    (_with(_POD, (("spec", "affinity"), {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": 1}]}]}}})),
     _TYPE + "number into Go struct field NodeSelectorRequirement.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.matchExpressions.key of type string"),
    (_with(_POD, (("spec", "containers"), _c(env=["a"]))),
     _TYPE + "string into Go struct field Container.spec.containers.env of type v1.EnvVar"),
    (_with(_POD, (("metadata", "creationTimestamp"), 5)),
     _TYPE + "number into Go struct field ObjectMeta.metadata.creationTimestamp of type string"),
    # Fields promoted from an embedded struct: the embedded name is in the path.
    (_with(_POD, (("spec", "volumes"), [{"name": "v", "hostPath": 5}])),
     _TYPE + "number into Go struct field Volume.spec.volumes.VolumeSource.hostPath of type v1.HostPathVolumeSource"),
    (_with(_POD, (("spec", "volumes"), [{"name": "v", "hostPath": {"path": 5}}])),
     _TYPE + "number into Go struct field HostPathVolumeSource.spec.volumes.VolumeSource.hostPath.path of type string"),
    (_with(_POD, (("spec", "containers"), _c(livenessProbe={"tcpSocket": {"port": True}}))),
     _TYPE + "bool into Go struct field TCPSocketAction.spec.containers.livenessProbe.ProbeHandler.tcpSocket.port of type int32"),
    (_with(_POD, (("spec", "containers"), _c(livenessProbe={"httpGet": {"port": 1.5}}))),
     _TYPE + "number 1.5 into Go struct field HTTPGetAction.spec.containers.livenessProbe.ProbeHandler.httpGet.port of type int32"),
    (_with(_POD, (("spec", "containers"), _c(livenessProbe={"exec": 5}))),
     _TYPE + "number into Go struct field Probe.spec.containers.livenessProbe.ProbeHandler.exec of type v1.ExecAction"),
    # Strict decoding: every unknown field, in document order, with list indices.
    (_with(_POD, (("spec", "bogus"), 1), (("metadata", "bogus"), 1)),
     'strict decoding error: unknown field "metadata.bogus", unknown field "spec.bogus"'),
    (_with(_POD, (("spec", "containers"), _c(bogus=1, ports=[{"containerPort": 80, "bog": 2}]))),
     'strict decoding error: unknown field "spec.containers[0].bogus", '
     'unknown field "spec.containers[0].ports[0].bog"'),
    # A type error wins over unknown fields.
    (_with(_POD, (("spec", "bogus"), 1), (("spec", "hostNetwork"), "x")),
     _TYPE + "string into Go struct field PodSpec.spec.hostNetwork of type bool"),
]  # fmt: skip
OTHER_KINDS = [
    (_with(_CLAIM, (("spec", "devices", "requests"), [{"name": "r", "exactly": {"deviceClassName": "x", "count": "x"}}])),
     _TYPE + "string into Go struct field ExactDeviceRequest.spec.devices.requests.exactly.count of type int64"),
    (_with(_CLAIM, (("spec", "devices", "requests"), [{"name": "r", "exactly": {"deviceClassName": "x", "bogus": 1}}])),
     'strict decoding error: unknown field "spec.devices.requests[0].exactly.bogus"'),
    (_with(_SECRET, (("data",), {"k": 5})),
     _TYPE + "number into Go struct field Secret.data of type []uint8"),
    (_with(_SECRET, (("data",), {"k": [1, 2, 300]})),
     _TYPE + "number 300 into Go struct field Secret.data of type uint8"),
    (_with(_SECRET, (("data",), "x")),
     _TYPE + "string into Go struct field Secret.data of type map[string][]uint8"),
    (_with(_DEPLOYMENT, (("spec", "replicas"), "x")),
     _TYPE + "string into Go struct field DeploymentSpec.spec.replicas of type int32"),
    (_with(_DEPLOYMENT, (("spec", "strategy"), {"rollingUpdate": {"maxSurge": True}})),
     _TYPE + "bool into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type int32"),
]  # fmt: skip
NAMED_TYPES = [
    (_with(_POD, (("metadata", "ownerReferences"), [{"apiVersion": "v1", "kind": "X", "name": "n", "uid": 5}])),
     _TYPE + "number into Go struct field OwnerReference.metadata.ownerReferences.uid of type types.UID"),
    (_with(_POD, (("spec", "containers"), _c(resources={"requests": "x"}))),
     _TYPE + "string into Go struct field ResourceRequirements.spec.containers.resources.requests of type v1.ResourceList"),
    (_with(_POD, (("status",), {"phase": 5})),
     _TYPE + "number into Go struct field PodStatus.status.phase of type v1.PodPhase"),
    (_with(_POD, (("spec", "containers"), _c(ports=[{"containerPort": 80, "protocol": 7}]))),
     _TYPE + "number into Go struct field ContainerPort.spec.containers.ports.protocol of type v1.Protocol"),
    (_with(_SECRET, (("type",), 5)),  # a field of the kind's own struct
     _TYPE + "number into Go struct field Secret.type of type v1.SecretType"),
    (_with(_NAMESPACE, (("spec",), {"finalizers": [5]})),  # an element of []v1.FinalizerName
     _TYPE + "number into Go struct field NamespaceSpec.spec.finalizers of type v1.FinalizerName"),
    (_with(_NAMESPACE, (("spec",), {"finalizers": "x"})),
     _TYPE + "string into Go struct field NamespaceSpec.spec.finalizers of type []v1.FinalizerName"),
]  # fmt: skip


def _server() -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(1), FeatureGates())
    s.create(make_namespace("default").build())
    return s


def _rejection(body: Obj) -> BadRequest:
    s = _server()
    rev = s.store.revision
    with pytest.raises(BadRequest) as err:
        s.create(copy.deepcopy(body))
    assert s.store.revision == rev  # nothing stored
    return err.value


@pytest.mark.parametrize(("body", "detail"), CASES + OTHER_KINDS + NAMED_TYPES)
def test_an_undecodable_create_gets_upstreams_message(body: Obj, detail: str) -> None:
    kind, version = body["kind"], body["apiVersion"].rpartition("/")[2]
    err = _rejection(body)
    assert err.code == 400
    assert err.message == f'{kind} in version "{version}" cannot be handled as a {kind}: {detail}'


def test_status_and_update_writes_get_the_same_words() -> None:
    s = _server()
    pod = s.create(copy.deepcopy(_POD))
    body = _with(pod, (("spec", "bogus"), 1))  # status writes decode the whole body too
    with pytest.raises(BadRequest) as err:
        s.update_status(body)
    assert err.value.message == _PREFIX + 'strict decoding error: unknown field "spec.bogus"'
    with pytest.raises(BadRequest) as err:
        s.update(_with(pod, (("metadata", "labels"), {"a": 1})))
    assert err.value.message == _PREFIX + CASES[2][1]
    assert err.value.fields == ("metadata.labels",)


def test_every_noted_go_type_names_a_field_the_schema_has() -> None:
    # go_types.json is generated from Go sources: each entry must still meet the schema.
    table = json.loads(
        resources.files("reference_impl.apiserver").joinpath("go_types.json").read_text("utf-8")
    )
    defs = schema.definitions()
    assert len(table) > 100
    for definition, fields in table.items():
        props = defs[definition]["properties"]
        for key in fields:
            assert key.removesuffix("[]").removesuffix("{}") in props, (definition, key)
