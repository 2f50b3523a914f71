"""Unit tests of the apiserver model: strict decoding, defaults, semantics, deletion."""

from __future__ import annotations

import copy

import pytest

from reference_impl.api import make_deployment, make_namespace, make_node, make_pod
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import AlreadyExists, BadRequest, Forbidden, Invalid, NotFound
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore


@pytest.fixture
def server() -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace("default").build())
    return s


def test_pod_defaults_match_the_apiserver(server: APIServer) -> None:
    pod = server.create(make_pod("p", "default").lim(cpu="1", memory="1Gi").build())
    spec = pod["spec"]
    assert spec["restartPolicy"] == "Always" and spec["schedulerName"] == "default-scheduler"
    assert spec["terminationGracePeriodSeconds"] == 30
    c = spec["containers"][0]
    assert c["resources"]["requests"] == {"cpu": "1", "memory": "1Gi"}
    assert c["imagePullPolicy"] == "IfNotPresent"
    assert pod["status"] == {"phase": "Pending", "qosClass": "Guaranteed"}


@pytest.mark.parametrize(
    ("manifest", "field", "detail"),
    [
        pytest.param(
            make_pod("p", "default").set("spec.bogus", 1).build(),
            "spec.bogus",
            'strict decoding error: unknown field "spec.bogus"',
            id="unknown field",
        ),
        pytest.param(
            make_pod("p", "default").set("spec.hostNetwork", "yes").build(),
            "spec.hostNetwork",
            "json: cannot unmarshal string into Go struct field PodSpec.spec.hostNetwork of type bool",
            id="wrong type",
        ),
    ],
)
def test_undecodable_writes_are_bad_requests_naming_the_field(
    server: APIServer, manifest: dict, field: str, detail: str
) -> None:
    # As the live v1.37.2 apiserver answers (checked): 400, the codec's message.
    rev = server.store.revision
    with pytest.raises(BadRequest) as err:
        server.create(manifest)
    assert err.value.message == f'Pod in version "v1" cannot be handled as a Pod: {detail}'
    assert err.value.fields == (field,)
    assert server.store.revision == rev


@pytest.mark.parametrize(
    ("manifest", "field"),
    [
        pytest.param(
            make_node("n").taint("k", "Never").build(),
            "metadata.taints[0].effect",
            id="bad taint effect",
        ),
        pytest.param(
            make_pod("p", "default").req(cpu="2").lim(cpu="1").build(),
            # upstream (checked live) names the requests map, not the resource
            "spec.containers[0].resources.requests",
            id="request above limit",
        ),
        pytest.param(
            make_deployment("d", "default")
            .set("spec.selector", {"matchLabels": {"app": "other"}})
            .build(),
            "spec.template.metadata.labels",
            id="selector mismatch",
        ),
    ],
)
def test_invalid_writes_name_the_field_and_store_nothing(
    server: APIServer, manifest: dict, field: str
) -> None:
    rev = server.store.revision
    with pytest.raises(Invalid) as err:
        server.create(manifest)
    assert field in err.value.fields, err.value.causes
    assert server.store.revision == rev


def test_a_bad_quantity_is_a_decode_error_and_stores_nothing(server: APIServer) -> None:
    # Quantity's UnmarshalJSON fails: upstream answers 400 before any validation.
    rev = server.store.revision
    with pytest.raises(BadRequest, match="quantities must match the regular expression"):
        server.create(make_pod("p", "default").req(cpu="lots").build())
    assert server.store.revision == rev


def test_unknown_and_gated_kinds_are_not_found(server: APIServer) -> None:
    with pytest.raises(NotFound, match="1.37 does not serve"):
        server.create(
            {
                "apiVersion": "resource.k8s.io/v1alpha1",
                "kind": "ResourceClaim",
                "metadata": {"name": "x"},
            }
        )
    with pytest.raises(NotFound, match="GenericWorkload"):
        server.create(
            {
                "apiVersion": "scheduling.k8s.io/v1beta1",
                "kind": "Workload",
                "metadata": {"name": "w", "namespace": "default"},
            }
        )
    gated = APIServer(MVCCStore(), SimClock(), Rng(0), FeatureGates({"GenericWorkload": True}))
    gated.create(make_namespace("default").build())
    wl = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": {"podGroupTemplates": [{"name": "g", "schedulingPolicy": {"basic": {}}}]},
    }
    assert gated.create(wl)["metadata"]["uid"]


def test_create_rules(server: APIServer) -> None:
    server.create(make_pod("p", "default").build())
    with pytest.raises(AlreadyExists):
        server.create(make_pod("p", "default").build())
    with pytest.raises(NotFound, match="namespaces"):
        server.create(make_pod("p", "nowhere").build())
    with_rv = make_pod("q", "default").build()
    with_rv["metadata"]["resourceVersion"] = "5"
    with pytest.raises(BadRequest):
        server.create(with_rv)
    gen = make_pod("", "default").build()
    gen["metadata"] = {"generateName": "web-", "namespace": "default"}
    assert server.create(gen)["metadata"]["name"].startswith("web-")


def test_a_taken_generated_name_is_drawn_again_as_the_registry_retries(
    server: APIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # store.go's createWithGenerateNameRetry: up to 8 attempts, each with a new suffix.
    draws = iter(["taken", "taken", "free1", *["taken"] * 8])
    monkeypatch.setattr(server._rng, "suffix", lambda n=5: next(draws))  # noqa: SLF001
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"generateName": "n-"}}
    assert server.create(copy.deepcopy(node))["metadata"]["name"] == "n-taken"
    assert server.create(copy.deepcopy(node))["metadata"]["name"] == "n-free1"
    with pytest.raises(AlreadyExists, match='"n-taken" already exists'):
        server.create(copy.deepcopy(node))  # eight taken draws: the registry gives up


def test_status_is_only_written_through_the_subresource(server: APIServer) -> None:
    pod = server.create(make_pod("p", "default").build())
    pod["status"]["phase"] = "Running"
    assert server.update(pod)["status"]["phase"] == "Pending"
    stored = server.get("v1", "Pod", "p", "default")
    stored["status"]["phase"] = "Running"
    stored = server.update_status(stored)
    assert stored["status"]["phase"] == "Running"
    # The phase is not validated upstream (cases_pod_spec: podspec/status-phase-bad); the
    # QoS class is immutable.
    stored["status"]["qosClass"] = "Guaranteed"
    with pytest.raises(Invalid):
        server.update_status(stored)


def test_pod_spec_is_mostly_immutable(server: APIServer) -> None:
    server.create(make_pod("p", "default").build())
    pod = server.get("v1", "Pod", "p", "default")
    pod["spec"]["containers"][0]["image"] = "registry.k8s.io/pause:3.11"
    server.update(pod)
    pod = server.get("v1", "Pod", "p", "default")
    pod["spec"]["restartPolicy"] = "Never"
    with pytest.raises(Invalid, match="pod updates may not change"):
        server.update(pod)


def test_bound_pods_delete_gracefully_and_unbound_pods_at_once(server: APIServer) -> None:
    server.create(make_pod("free", "default").build())
    server.create(make_pod("bound", "default").node("n1").build())
    assert server.delete("v1", "Pod", "free", "default") is None
    marked = server.delete("v1", "Pod", "bound", "default")
    assert marked is not None and marked["metadata"]["deletionGracePeriodSeconds"] == 30
    assert server.delete("v1", "Pod", "bound", "default", grace_period_seconds=0) is None
    with pytest.raises(NotFound):
        server.get("v1", "Pod", "bound", "default")


def test_terminating_namespace_refuses_new_content(server: APIServer) -> None:
    server.create(make_namespace("doomed").build())
    server.delete("v1", "Namespace", "doomed")
    assert server.get("v1", "Namespace", "doomed")["status"]["phase"] == "Terminating"
    with pytest.raises(Forbidden) as named:
        server.create(make_pod("p", "doomed").build())
    # NamespaceLifecycle's NewForbidden names the object the request names (checked live).
    why = "is forbidden: unable to create new content in namespace doomed because it is being terminated"
    assert str(named.value) == f'pods "p" {why}'
    generated = make_pod("", "doomed").build()
    generated["metadata"]["generateName"] = "p-"
    with pytest.raises(Forbidden) as unnamed:
        server.create(generated)
    assert str(unnamed.value) == f"pods {why}"
    assert server.finalize_namespace("doomed") is None


def test_binding_sets_node_once(server: APIServer) -> None:
    server.create(make_pod("p", "default").build())
    # As upstream's BindingREST: the reply is a success Status, not the pod.
    assert server.bind("default", "p", "n1")["status"] == "Success"
    bound = server.get("v1", "Pod", "p", "default")
    assert bound["spec"]["nodeName"] == "n1"
    assert bound["status"]["conditions"][0]["type"] == "PodScheduled"
