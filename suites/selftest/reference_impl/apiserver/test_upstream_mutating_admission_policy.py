"""The MutatingAdmissionPolicy plugin, after apiserver pkg/admission/plugin/policy/mutating:
patch/json_patch_test.go ``TestJSONPatch`` and patch/smd_test.go ``TestApplyConfiguration``
rows (objects as Go's JSON encoding of upstream's typed objects, minus zero values), and
the plugin through the reference apiserver (dispatcher_test.go scenarios as real
policies and bindings). Row ids are upstream's names."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.admission.mutating_admission_policy import _mutate_one
from reference_impl.apiserver.admission.policy_cel import Activation
from reference_impl.apiserver.admission.policy_mutation import JSONPatchError
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.errors import ApiError

Obj = dict[str, Any]
V1 = "admissionregistration.k8s.io/v1"


def _deploy(spec: Obj | None = None, labels: Obj | None = None) -> Obj:
    meta: Obj = {} if labels is None else {"labels": labels}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": spec or {}}


def _with(containers: list[Obj], init: list[Obj] | None = None) -> Obj:
    pod: Obj = {"containers": containers}
    if init is not None:
        pod["initContainers"] = init
    return _deploy({"template": {"spec": pod}})


def _named(*names: str) -> list[Obj]:
    return [{"name": n} for n in names]


# name -> (expression, object, expected object or error substring)
JSON_PATCH: dict[str, tuple[str, Obj, Obj | str]] = {
    "jsonPatch with false test operation": (
        '[JSONPatch{op: "test", path: "/spec/replicas", value: 100}, JSONPatch{op: "replace", path: "/spec/replicas", value: 3}]',
        _deploy({"replicas": 1}), _deploy({"replicas": 1}),
    ),
    "jsonPatch with true test operation": (
        '[JSONPatch{op: "test", path: "/spec/replicas", value: 1}, JSONPatch{op: "replace", path: "/spec/replicas", value: 3}]',
        _deploy({"replicas": 1}), _deploy({"replicas": 3}),
    ),
    "jsonPatch remove to unset field": (
        '[JSONPatch{op: "remove", path: "/spec/replicas"}]', _deploy({"replicas": 1}), _deploy({}),
    ),
    "jsonPatch remove map entry by key": (
        '[JSONPatch{op: "remove", path: "/metadata/labels/y"}]',
        _deploy(labels={"x": "1", "y": "1"}), _deploy(labels={"x": "1"}),
    ),
    "jsonPatch remove element in list": (
        '[JSONPatch{op: "remove", path: "/spec/template/spec/containers/1"}]',
        _with(_named("a", "b", "c")), _with(_named("a", "c")),
    ),
    "jsonPatch copy map entry by key": (
        '[JSONPatch{op: "copy", from: "/metadata/labels/x", path: "/metadata/labels/y"}]',
        _deploy(labels={"x": "1"}), _deploy(labels={"x": "1", "y": "1"}),
    ),
    "jsonPatch copy first element to end of list": (
        '[JSONPatch{op: "copy", from: "/spec/template/spec/containers/0", path: "/spec/template/spec/containers/-"}]',
        _with(_named("a", "b", "c")), _with(_named("a", "b", "c", "a")),
    ),
    "jsonPatch move map entry by key": (
        '[JSONPatch{op: "move", from: "/metadata/labels/x", path: "/metadata/labels/y"}]',
        _deploy(labels={"x": "1"}), _deploy(labels={"y": "1"}),
    ),
    "jsonPatch move first element to end of list": (
        '[JSONPatch{op: "move", from: "/spec/template/spec/containers/0", path: "/spec/template/spec/containers/-"}]',
        _with(_named("a", "b", "c")), _with(_named("b", "c", "a")),
    ),
    "jsonPatch add map entry by key and value": (
        '[JSONPatch{op: "add", path: "/metadata/labels/x", value: "2"}]',
        _deploy(labels={"y": "1"}), _deploy(labels={"y": "1", "x": "2"}),
    ),
    "jsonPatch add map value to field": (
        '[JSONPatch{op: "add", path: "/metadata/labels", value: {"y": "2"}}]',
        _deploy(), _deploy(labels={"y": "2"}),
    ),
    "jsonPatch add map to existing map": (
        '[JSONPatch{op: "add", path: "/metadata/labels", value: {"y": "2"}}]',
        _deploy(labels={"x": "1"}), _deploy(labels={"y": "2"}),
    ),
    "jsonPatch add to start of list": (
        '[JSONPatch{op: "add", path: "/spec/template/spec/containers/0", value: {"name": "x"}}]',
        _with(_named("a")), _with(_named("x", "a")),
    ),
    "jsonPatch add to end of list": (
        '[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: {"name": "x"}}]',
        _with(_named("a")), _with(_named("a", "x")),
    ),
    "jsonPatch replace key in map": (
        '[JSONPatch{op: "replace", path: "/metadata/labels/x", value: "2"}]',
        _deploy(labels={"y": "1"}), _deploy(labels={"y": "1", "x": "2"}),
    ),
    "jsonPatch replace map value of unset field": (
        '[JSONPatch{op: "replace", path: "/metadata/labels", value: {"y": "2"}}]',
        _deploy(), _deploy(labels={"y": "2"}),
    ),
    "jsonPatch replace map value of set field": (
        '[JSONPatch{op: "replace", path: "/metadata/labels", value: {"y": "2"}}]',
        _deploy(labels={"x": "1"}), _deploy(labels={"y": "2"}),
    ),
    "jsonPatch replace first element in list": (
        '[JSONPatch{op: "replace", path: "/spec/template/spec/containers/0", value: {"name": "x"}}]',
        _with(_named("a")), _with(_named("x")),
    ),
    "jsonPatch add map entry by key and value#01": (
        '[JSONPatch{op: "add", path: "/spec", value: Object.spec{selector: Object.spec.selector{}, replicas: 10}}]',
        _deploy(), _deploy({"selector": {}, "replicas": 10}),
    ),
    "JSONPatch patch type has field access": (
        '[JSONPatch{op: "add", path: "/metadata/labels", value: {"op": JSONPatch{op: "opValue"}.op, '
        '"path": JSONPatch{path: "pathValue"}.path, "from": JSONPatch{from: "fromValue"}.from, '
        '"value": string(JSONPatch{value: "valueValue"}.value)}}]',
        _deploy(labels={}),
        _deploy(labels={"op": "opValue", "path": "pathValue", "from": "fromValue", "value": "valueValue"}),
    ),
    "JSONPatch patch type has field testing": (
        '[JSONPatch{op: "add", path: "/metadata/labels", value: {"op": string(has(JSONPatch{op: "opValue"}.op)), '
        '"path-unset": string(has(JSONPatch{}.path)), "value": string(has(JSONPatch{value: "valueValue"}.value)), '
        '"value-unset": string(has(JSONPatch{}.value))}}]',
        _deploy(labels={}),
        _deploy(labels={"op": "true", "path-unset": "false", "value": "true", "value-unset": "false"}),
    ),
    "JSONPatch patch type equality": (
        '[JSONPatch{op: "add", path: "/metadata/labels", value: {"empty": string(JSONPatch{} == JSONPatch{}), '
        '"partial": string(JSONPatch{op: "add"} == JSONPatch{op: "add"}), '
        '"different-op": string(JSONPatch{op: "add"} == JSONPatch{op: "remove"}), '
        '"different-value": string(JSONPatch{op: "add", path: "path", from: "from", value: "1"} == JSONPatch{op: "add", path: "path", from: "from", value: 1})}}]',
        _deploy(labels={}),
        _deploy(labels={"empty": "true", "partial": "true", "different-op": "false", "different-value": "false"}),
    ),
    "JSONPatch key escaping": (
        '[JSONPatch{op: "add", path: "/metadata/labels", value: {}}, '
        'JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("k8s.io/x~y"), value: "true"}]',
        _deploy(labels={}), _deploy(labels={"k8s.io/x~y": "true"}),
    ),
    "jsonPatch with CEL initializer": (
        '[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{'
        'name: "x", ports: [Object.spec.template.spec.containers.ports{containerPort: 8080}]}}]',
        _with(_named("a")), _with([{"name": "a"}, {"name": "x", "ports": [{"containerPort": 8080}]}]),
    ),
    "jsonPatch invalid CEL initializer type": (
        '[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{'
        'name: "x", ports: [Object.spec.template.spec.containers.portsZ{containerPort: 8080}]}}]',
        _with(_named("a")),
        ' mismatch: unexpected type name "Object.spec.template.spec.containers.portsZ", expected '
        '"Object.spec.template.spec.containers.ports", which matches field name path from root Object type',
    ),
    "jsonPatch replace end of list with - not allowed": (
        '[JSONPatch{op: "replace", path: "/spec/template/spec/containers/-", value: {"name": "x"}}]',
        _with(_named("a")),
        "JSON Patch: replace operation does not apply: doc is missing key: /spec/template/spec/containers/-: missing value",
    ),
    "jsonPatch with complex struct as value": (
        '[JSONPatch{op: "add", path: "/spec/template/spec/containers/1", value: object.spec.template.spec.containers[0]}]',
        _with(_named("a")), _with(_named("a", "a")),
    ),
    "jsonPatch with slice of complex struct as value": (
        '[JSONPatch{op: "add", path: "/spec/template/spec/initContainers", value: object.spec.template.spec.containers}]',
        _with([{"name": "a", "image": "nginx"}]),
        _with([{"name": "a", "image": "nginx"}], [{"name": "a", "image": "nginx"}]),
    ),
    "jsonPatch with list concatenation operator": (
        '[JSONPatch{op: "add", path: "/spec/template/spec/containers", value: object.spec.template.spec.containers + [object.spec.template.spec.containers[0]]}]',
        _with(_named("a")), _with(_named("a", "a")),
    ),
    "jsonPatch with list concatenation using constant value": (
        '[JSONPatch{op: "add", path: "/spec/template/spec/containers/0/args", value: object.spec.template.spec.containers[0].command + ["--debug", "-v"]}]',
        _with([{"name": "c1", "command": ["server", "start"]}]),
        _with([{"name": "c1", "command": ["server", "start"], "args": ["server", "start", "--debug", "-v"]}]),
    ),
    "jsonPatch with list concatenation between two structured objects (structured + structured)": (
        '[JSONPatch{op: "add", path: "/spec/template/spec/initContainers", value: '
        '[Object.spec.template.spec.initContainers{name: "init-1", image: "alpine:3.18", command: ["echo", "init1"]}] + '
        '[Object.spec.template.spec.initContainers{name: "init-2", image: "alpine:3.18", command: ["echo", "init2"]}]}]',
        _with([{"name": "main-app", "image": "nginx:1.24"}]),
        _with([{"name": "main-app", "image": "nginx:1.24"}],
              [{"name": "init-1", "image": "alpine:3.18", "command": ["echo", "init1"]},
               {"name": "init-2", "image": "alpine:3.18", "command": ["echo", "init2"]}]),
    ),
    "jsonPatch with map of resource quantities as value": (
        '[JSONPatch{op: "add", path: "/spec/template/spec/containers/0/resources/limits", value: {"cpu": '
        'object.spec.template.spec.containers[0].resources.requests["cpu"], "memory": '
        'object.spec.template.spec.containers[0].resources.requests["memory"]}}]',
        _with([{"name": "c1", "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]),
        _with([{"name": "c1", "resources": {"requests": {"cpu": "100m", "memory": "128Mi"},
                                            "limits": {"cpu": "100m", "memory": "128Mi"}}}]),
    ),
    "jsonPatch with slice of scalars as value": (
        '[JSONPatch{op: "add", path: "/spec/template/spec/containers/0/args", value: object.spec.template.spec.containers[0].command}]',
        _with([{"name": "c1", "command": ["sh", "-c", "echo hello"]}]),
        _with([{"name": "c1", "command": ["sh", "-c", "echo hello"], "args": ["sh", "-c", "echo hello"]}]),
    ),
    "jsonPatch with map of scalars as value": (
        '[JSONPatch{op: "add", path: "/metadata/annotations", value: object.metadata.labels}]',
        _deploy(labels={"env": "prod", "tier": "frontend"}),
        {**_deploy(labels={"env": "prod", "tier": "frontend"}),
         "metadata": {"labels": {"env": "prod", "tier": "frontend"}, "annotations": {"env": "prod", "tier": "frontend"}}},
    ),
    "jsonPatch with map of struct as value": (
        '[JSONPatch{op: "add", path: "/spec/template/spec/containers/0/resources/limits", value: object.spec.template.spec.containers[0].resources.requests}]',
        _with([{"name": "c1", "resources": {"requests": {"cpu": "250m", "memory": "512Mi"}}}]),
        _with([{"name": "c1", "resources": {"requests": {"cpu": "250m", "memory": "512Mi"},
                                            "limits": {"cpu": "250m", "memory": "512Mi"}}}]),
    ),
    "jsonPatch with constant complex struct object as value": (
        '[JSONPatch{op: "add", path: "/spec/template/spec/containers/1", value: Object.spec.template.spec.containers{'
        'name: "sidecar", image: "busybox:1.36", command: ["sh", "-c", "sleep 3600"], '
        'resources: Object.spec.template.spec.containers.resources{limits: {"cpu": "200m", "memory": "256Mi"}}}}]',
        _with([{"name": "main-app", "image": "nginx:1.24"}]),
        _with([{"name": "main-app", "image": "nginx:1.24"},
               {"name": "sidecar", "image": "busybox:1.36", "command": ["sh", "-c", "sleep 3600"],
                "resources": {"limits": {"cpu": "200m", "memory": "256Mi"}}}]),
    ),
    "jsonPatch with constant complex list of struct objects as value": (
        '[JSONPatch{op: "add", path: "/spec/template/spec/initContainers", value: ['
        'Object.spec.template.spec.initContainers{name: "init-1", image: "alpine:3.18", command: ["echo", "init1"]}, '
        'Object.spec.template.spec.initContainers{name: "init-2", image: "alpine:3.18", command: ["echo", "init2"]}]}]',
        _with([{"name": "main-app", "image": "nginx:1.24"}]),
        _with([{"name": "main-app", "image": "nginx:1.24"}],
              [{"name": "init-1", "image": "alpine:3.18", "command": ["echo", "init1"]},
               {"name": "init-2", "image": "alpine:3.18", "command": ["echo", "init2"]}]),
    ),
    "jsonPatch with list concatenation reading from other fields": (
        '[JSONPatch{op: "replace", path: "/spec/template/spec/containers", value: object.spec.template.spec.initContainers + object.spec.template.spec.containers}]',
        _with([{"name": "main-app", "image": "nginx:1.24"}], [{"name": "init-setup", "image": "busybox:1.36"}]),
        _with([{"name": "init-setup", "image": "busybox:1.36"}, {"name": "main-app", "image": "nginx:1.24"}],
              [{"name": "init-setup", "image": "busybox:1.36"}]),
    ),
    "jsonPatch with list concatenation between typed type and unstructured object (typed + unstructured)": (
        '[JSONPatch{op: "add", path: "/spec/template/spec/initContainers", value: object.spec.template.spec.containers + [{"name": "unstructured-init", "image": "alpine:3.18"}]}]',
        _with([{"name": "main-app", "image": "nginx:1.24"}]),
        _with([{"name": "main-app", "image": "nginx:1.24"}],
              [{"name": "main-app", "image": "nginx:1.24"}, {"name": "unstructured-init", "image": "alpine:3.18"}]),
    ),
    "jsonPatch with list concatenation between structured object and typed type (structured + typed)": (
        '[JSONPatch{op: "add", path: "/spec/template/spec/initContainers", value: [Object.spec.template.spec.initContainers{'
        'name: "init-1", image: "alpine:3.18", command: ["echo", "init1"]}] + object.spec.template.spec.containers}]',
        _with([{"name": "main-app", "image": "nginx:1.24"}]),
        _with([{"name": "main-app", "image": "nginx:1.24"}],
              [{"name": "init-1", "image": "alpine:3.18", "command": ["echo", "init1"]}, {"name": "main-app", "image": "nginx:1.24"}]),
    ),
    "jsonPatch with map key comprehension all predicate": (
        '[JSONPatch{op: "add", path: "/metadata/labels/added", value: object.metadata.labels.all(k, k != "invalid") ? "true" : "false"}]',
        _deploy(labels={"env": "prod", "app": "demo"}),
        _deploy(labels={"env": "prod", "app": "demo", "added": "true"}),
    ),
    "jsonPatch with scalar int and bool as values": (
        '[JSONPatch{op: "add", path: "/spec/progressDeadlineSeconds", value: object.spec.replicas}, '
        'JSONPatch{op: "add", path: "/spec/template/spec/hostNetwork", value: object.spec.paused}]',
        _deploy({"replicas": 3, "paused": True, "template": {"spec": {}}}),
        _deploy({"replicas": 3, "paused": True, "progressDeadlineSeconds": 3, "template": {"spec": {"hostNetwork": True}}}),
    ),
}  # fmt: skip

APPLY: dict[str, tuple[str, Obj, Obj | None, Obj | str]] = {
    "apply configuration add to listType=map": (
        'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{'
        'volumes: [Object.spec.template.spec.volumes{name: "y"}]}}}}',
        _deploy({"template": {"spec": {"volumes": _named("x")}}}), None,
        _deploy({"template": {"spec": {"volumes": _named("x", "y")}}}),
    ),
    "apply configuration update listType=map entry": (
        'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{'
        'volumes: [Object.spec.template.spec.volumes{name: "y", hostPath: Object.spec.template.spec.volumes.hostPath{path: "a"}}]}}}}',
        _deploy({"template": {"spec": {"volumes": _named("x", "y")}}}), None,
        _deploy({"template": {"spec": {"volumes": [{"name": "x"}, {"name": "y", "hostPath": {"path": "a"}}]}}}),
    ),
    "apply configuration with conditionals": (
        "Object{spec: Object.spec{replicas: object.spec.replicas % 2 == 0?object.spec.replicas + 1:object.spec.replicas}}",
        _deploy({"replicas": 2}), None, _deploy({"replicas": 3}),
    ),
    "apply configuration with old object": (
        "Object{spec: Object.spec{replicas: oldObject.spec.replicas % 2 == 0?oldObject.spec.replicas + 1:oldObject.spec.replicas}}",
        _deploy({"replicas": 1}), _deploy({"replicas": 2}), _deploy({"replicas": 3}),
    ),
    "complex apply configuration initialization": (
        'Object{spec: Object.spec{replicas: 1, template: Object.spec.template{metadata: Object.spec.template.metadata{labels: {"app": "nginx"}}, '
        'spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "nginx", image: "nginx:1.14.2", '
        'ports: [Object.spec.template.spec.containers.ports{containerPort: 80}], '
        'resources: Object.spec.template.spec.containers.resources{limits: {"cpu": "128M"}}}]}}}}',
        _deploy(), None,
        _deploy({"replicas": 1, "template": {"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": [
            {"name": "nginx", "image": "nginx:1.14.2", "ports": [{"containerPort": 80}], "resources": {"limits": {"cpu": "128M"}}}]}}}),
    ),
    "apply configuration with duplicate env vars in original object": (
        "Object{spec: Object.spec{replicas: 3}}",
        _deploy({"replicas": 1, "template": {"spec": {"containers": [{"name": "nginx", "env": [
            {"name": "test", "value": "a"}, {"name": "test", "value": "b"}]}]}}}), None,
        _deploy({"replicas": 3, "template": {"spec": {"containers": [{"name": "nginx", "env": [
            {"name": "test", "value": "a"}, {"name": "test", "value": "b"}]}]}}}),
    ),
    "apply configuration modify existing env variable": (
        'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{'
        'containers: [Object.spec.template.spec.containers{name: "nginx", '
        'env: [Object.spec.template.spec.containers.env{name: "test", value: "c"}]}]}}}}',
        _deploy({"replicas": 1, "template": {"spec": {"containers": [{"name": "nginx", "env": [
            {"name": "test", "value": "a"}, {"name": "test", "value": "b"}, {"name": "foo", "value": "bar"}]}]}}}), None,
        _deploy({"replicas": 1, "template": {"spec": {"containers": [{"name": "nginx", "env": [
            {"name": "test", "value": "c"}, {"name": "foo", "value": "bar"}]}]}}}),
    ),
    "apply configuration with change to atomic": (
        'Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"l": "v"}}}}',
        _deploy({"replicas": 1}), None,
        "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector",
    ),
    "apply configuration with invalid type name": (
        "Object{spec: Object.specx{replicas: 1}}", _deploy({"replicas": 1}), None,
        'type mismatch: unexpected type name "Object.specx", expected "Object.spec", which matches field name path from root Object type',
    ),
    "apply configuration with invalid return type": (
        '"I\'m a teapot!"', _deploy({"replicas": 1}), None, "must evaluate to Object but got string",
    ),
    "apply configuration with invalid initializer return type": (
        "Object.spec.metadata{}", _deploy({"replicas": 1}), None,
        "must evaluate to Object but got Object.spec.metadata",
    ),
    "apply configuration with invalid field name": (
        "Object{spec: Object.spec{replicasx: 1}}", _deploy({"replicas": 1}), None,
        "error applying patch: failed to convert patch object to typed object: .spec.replicasx: field not declared in schema",
    ),
}  # fmt: skip

_REQUEST: Obj = {"operation": "CREATE"}


def _run(mutation: Obj, obj: Obj, old: Obj | None = None) -> Obj:
    return _mutate_one(mutation, obj, Activation(obj, old, _REQUEST, None, None))


@pytest.mark.parametrize("row", JSON_PATCH.values(), ids=JSON_PATCH.keys())
def test_json_patch(row: tuple[str, Obj, Obj | str]) -> None:
    expression, obj, want = row
    mutation = {"patchType": "JSONPatch", "jsonPatch": {"expression": expression}}
    if isinstance(want, str):
        with pytest.raises(JSONPatchError) as exc:
            _run(mutation, obj)
        assert want in str(exc.value)
        return
    assert _run(mutation, obj) == want


@pytest.mark.parametrize("row", APPLY.values(), ids=APPLY.keys())
def test_apply_configuration(row: tuple[str, Obj, Obj | None, Obj | str]) -> None:
    expression, obj, old, want = row
    mutation = {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": expression}}
    if isinstance(want, str):
        with pytest.raises(JSONPatchError) as exc:
            _run(mutation, obj, old)
        assert want in str(exc.value)
        return
    assert _run(mutation, obj, old) == want


CM_RULES = {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["*"], "resources": ["configmaps"]}]}  # fmt: skip


def _install(c: Cluster, name: str, mutations: list[Obj], **spec: Any) -> None:
    c.api.create({"apiVersion": V1, "kind": "MutatingAdmissionPolicy", "metadata": {"name": name},
                  "spec": {"matchConstraints": CM_RULES, "mutations": mutations, "reinvocationPolicy": "Never", **spec}})  # fmt: skip
    c.api.create({"apiVersion": V1, "kind": "MutatingAdmissionPolicyBinding", "metadata": {"name": name},
                  "spec": {"policyName": name}})  # fmt: skip


def _apply_cfg(expression: str) -> Obj:
    return {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": expression}}


def _cm(name: str, data: Obj | None = None) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"},
            "data": data or {}}  # fmt: skip


def test_simple_patch_through_apiserver() -> None:
    """After dispatcher_test.go "simple patch": the stored object carries the mutation."""
    c = Cluster(config=ClusterConfig(nodes=0))
    _install(c, "policy1", [_apply_cfg('Object{data: {"a": "b"}}')])
    c.api.create(_cm("cm", {"x": "1"}))
    assert c.api.get("v1", "ConfigMap", "cm", "default")["data"] == {"x": "1", "a": "b"}


def test_if_needed_policy_reinvoked() -> None:
    """dispatcher.go / reinvocationcontext.go: once a patcher ran, IfNeeded policies run
    again (once) and see the later policies' changes."""
    c = Cluster(config=ClusterConfig(nodes=0))
    js = "[JSONPatch{op: 'add', path: '/data/n', value: string(size(object.data))}]"
    _install(c, "policy1", [{"patchType": "JSONPatch", "jsonPatch": {"expression": js}}],
             reinvocationPolicy="IfNeeded")  # fmt: skip
    _install(c, "policy2", [_apply_cfg('Object{data: {"b": "2"}}')])
    c.api.create(_cm("cm", {"a": "1"}))
    # policy1 sees {a} -> n=1; policy2 adds b; policy1 again sees {a, n, b} -> n=3
    assert c.api.get("v1", "ConfigMap", "cm", "default")["data"] == {"a": "1", "b": "2", "n": "3"}


def test_match_condition_set_by_first_policy() -> None:
    """After dispatcher_test.go "1st policy sets match condition that 2nd policy matches"."""
    c = Cluster(config=ClusterConfig(nodes=0))
    _install(c, "policy1", [_apply_cfg('Object{data: {"set": "yes"}}')])
    _install(c, "policy2", [_apply_cfg('Object{data: {"second": "ran"}}')],
             matchConditions=[{"name": "c", "expression": "has(object.data.set)"}])  # fmt: skip
    c.api.create(_cm("cm"))
    assert c.api.get("v1", "ConfigMap", "cm", "default")["data"] == {"set": "yes", "second": "ran"}


def test_mutation_error_refuses_with_policy_error() -> None:
    """generic ``Dispatch``: Fail policies refuse with ``PolicyError``'s text (403, reason
    Invalid); Ignore policies' errors are dropped."""
    c = Cluster(config=ClusterConfig(nodes=0))
    bad = [{"patchType": "JSONPatch", "jsonPatch": {"expression": "[JSONPatch{op: 'remove', path: '/data/missing'}]"}}]  # fmt: skip
    _install(c, "ignored", bad, failurePolicy="Ignore")
    c.api.create(_cm("ok"))
    _install(c, "policy1", bad)
    with pytest.raises(ApiError) as exc:
        c.api.create(_cm("cm"))
    want = ("policy 'policy1' with binding 'policy1' denied request: "
            "JSON Patch: error in remove for path: '/data/missing': Unable to remove nonexistent key: missing: missing value")  # fmt: skip
    assert (exc.value.code, exc.value.reason, exc.value.message) == (403, "Invalid", want)
    assert [x.message for x in exc.value.causes] == [want]


def test_never_policy_not_reinvoked() -> None:
    """reinvocationPolicy Never: a policy runs once even when a later one changed the object."""
    c = Cluster(config=ClusterConfig(nodes=0))
    js = "[JSONPatch{op: 'add', path: '/data/n', value: string(size(object.data))}]"
    _install(c, "policy1", [{"patchType": "JSONPatch", "jsonPatch": {"expression": js}}])
    _install(c, "policy2", [_apply_cfg('Object{data: {"b": "2"}}')])
    c.api.create(_cm("cm", {"a": "1"}))
    assert c.api.get("v1", "ConfigMap", "cm", "default")["data"] == {"a": "1", "b": "2", "n": "1"}


def test_deployment_defaulted_after_patch() -> None:
    """dispatchOne defaults the patched object (the strategy's defaults fill what a patch
    added)."""
    c = Cluster(config=ClusterConfig(nodes=0))
    rules = {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["*"], "resources": ["deployments"]}]}  # fmt: skip
    _install(c, "policy1", [_apply_cfg("Object{spec: Object.spec{replicas: object.spec.replicas + 100}}")],
             matchConstraints=rules)  # fmt: skip
    labels = {"app": "x"}
    d = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d1", "namespace": "default"},
         "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                  "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}  # fmt: skip
    c.api.create(d)
    got = c.api.get("apps/v1", "Deployment", "d1", "default")
    assert got["spec"]["replicas"] == 101
    assert got["spec"]["strategy"]["type"] == "RollingUpdate"


def test_validating_policy_on_delete() -> None:
    """ValidatingAdmissionPolicy on DELETE (store.go ``Delete``'s deleteValidation): object
    is null, oldObject the stored object; a denial keeps the object."""
    c = Cluster(config=ClusterConfig(nodes=0))
    rules = {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["DELETE"], "resources": ["configmaps"]}]}  # fmt: skip
    rule = {"expression": "object == null && oldObject.metadata.name != 'keep' && request.operation == 'DELETE'",
            "message": "kept"}  # fmt: skip
    c.api.create({"apiVersion": V1, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "p"},
                  "spec": {"matchConstraints": rules, "validations": [rule]}})  # fmt: skip
    c.api.create({"apiVersion": V1, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": "b"},
                  "spec": {"policyName": "p", "validationActions": ["Deny"]}})  # fmt: skip
    c.api.create(_cm("keep"))
    c.api.create(_cm("gone"))
    with pytest.raises(ApiError) as exc:
        c.api.delete("v1", "ConfigMap", "keep", "default")
    assert [x.message for x in exc.value.causes] == [
        "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: kept"
    ]
    assert c.api.get("v1", "ConfigMap", "keep", "default")["metadata"]["name"] == "keep"
    assert c.api.delete("v1", "ConfigMap", "gone", "default") is None


HPA_V1_RULES = {
    "matchPolicy": "Equivalent",
    "resourceRules": [{"apiGroups": ["autoscaling"], "apiVersions": ["v1"], "operations": ["CREATE"],
                       "resources": ["horizontalpodautoscalers"]}],
}  # fmt: skip


def _hpa_v2(cpu: int) -> Obj:
    metric = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": cpu}}}  # fmt: skip
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "h", "namespace": "default"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
                     "minReplicas": 1, "maxReplicas": 3, "metrics": [metric]}}  # fmt: skip


def test_equivalent_match_sees_matched_version() -> None:
    """matchPolicy Equivalent: a v1 policy sees a v2 request's object converted to v1
    (``VersionedAttributes`` at the matched kind), and a mutation made at v1 is converted
    back."""
    c = Cluster(config=ClusterConfig(nodes=0))
    c.api.create({"apiVersion": V1, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "v"},
                  "spec": {"matchConstraints": HPA_V1_RULES, "validations": [
                      {"expression": "object.apiVersion == 'autoscaling/v1' && object.spec.targetCPUUtilizationPercentage == 70"}]}})  # fmt: skip
    c.api.create({"apiVersion": V1, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": "v"},
                  "spec": {"policyName": "v", "validationActions": ["Deny"]}})  # fmt: skip
    with pytest.raises(ApiError) as exc:
        c.api.create(_hpa_v2(50))
    assert (
        "ValidatingAdmissionPolicy 'v' with binding 'v' denied request"
        in exc.value.causes[0].message
    )
    _install(c, "m", [_apply_cfg("Object{spec: Object.spec{targetCPUUtilizationPercentage: 70}}")],
             matchConstraints=HPA_V1_RULES)  # fmt: skip
    c.api.create(_hpa_v2(50))
    got = c.api.get("autoscaling/v2", "HorizontalPodAutoscaler", "h", "default")
    assert got["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] == 70


def test_with_param() -> None:
    """After dispatcher_test.go "with param": the binding's paramRef ConfigMap is ``params``."""
    c = Cluster(config=ClusterConfig(nodes=0))
    c.api.create(_cm("cm1", {"key": "10"}))
    rules = {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["*"], "resources": ["deployments"]}]}  # fmt: skip
    expr = "Object{spec: Object.spec{replicas: object.spec.replicas + int(params.data['key'])}}"
    c.api.create({"apiVersion": V1, "kind": "MutatingAdmissionPolicy", "metadata": {"name": "policy1"},
                  "spec": {"matchConstraints": rules, "mutations": [_apply_cfg(expr)], "reinvocationPolicy": "Never",
                           "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}}})  # fmt: skip
    c.api.create({"apiVersion": V1, "kind": "MutatingAdmissionPolicyBinding", "metadata": {"name": "binding"},
                  "spec": {"policyName": "policy1", "paramRef": {"name": "cm1", "namespace": "default",
                                                                 "parameterNotFoundAction": "Deny"}}})  # fmt: skip
    labels = {"app": "x"}
    d = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d1", "namespace": "default"},
         "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                  "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}  # fmt: skip
    c.api.create(d)
    assert c.api.get("apps/v1", "Deployment", "d1", "default")["spec"]["replicas"] == 11
