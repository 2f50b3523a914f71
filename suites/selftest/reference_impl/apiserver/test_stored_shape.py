"""Empty lists and maps read back from storage as protobuf gives them back (stored_shape)."""

from __future__ import annotations

import copy
from typing import Any

from reference_impl import Cluster
from reference_impl.api.builders import make_pod
from reference_impl.apiserver.stored_shape import drop_empty_collections
from reference_impl.storage import codec

Obj = dict[str, Any]


def _dropped(obj: Obj) -> tuple[bool, Obj]:
    out = copy.deepcopy(obj)
    return drop_empty_collections(out, codec.dumps(out)), out


def _service(**spec: Any) -> Obj:
    return {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "svc", "namespace": "default", "labels": {}},
        "spec": {"ports": [{"port": 80, "protocol": "TCP"}], **spec},
    }  # fmt: skip


def test_omitempty_lists_and_maps_are_dropped_at_any_depth() -> None:
    pod = make_pod("p", "default").build()
    pod["metadata"]["labels"] = {}
    pod["spec"]["tolerations"] = []
    pod["spec"]["containers"][0]["args"] = []
    pod["spec"]["securityContext"] = {}  # a struct: kept
    pod["spec"]["containers"][0]["resources"] = {}  # a struct: kept
    changed, out = _dropped(pod)
    assert changed
    assert "labels" not in out["metadata"] and "tolerations" not in out["spec"]
    assert "args" not in out["spec"]["containers"][0]
    assert out["spec"]["securityContext"] == {} and out["spec"]["containers"][0]["resources"] == {}


def test_fields_without_omitempty_and_custom_resources_keep_their_empty_values() -> None:
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "r", "namespace": "default"}, "rules": []}  # fmt: skip
    assert _dropped(role) == (False, role)  # PolicyRule list: `json:"rules"`, no omitempty
    custom = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
              "spec": {"items": [], "labels": {}}}  # fmt: skip
    assert _dropped(custom) == (False, custom)


def test_a_name_omitted_elsewhere_is_kept_where_its_field_is_a_struct() -> None:
    # `resources` is an omitempty list in ResourceStatus but a struct in a Container.
    pod = make_pod("p", "default").build()
    pod["spec"]["containers"][0]["resources"] = {}
    assert _dropped(pod) == (False, pod)


def test_service_with_an_empty_selector_is_stored_without_one_and_selects_nothing() -> None:
    c = Cluster(seed=1)
    pod = make_pod("web", "default").label("app", "web").build()
    c.api.create(pod)
    created = c.api.create(_service(selector={}))
    assert "selector" not in created["spec"] and "labels" not in created["metadata"]
    assert "selector" not in c.api.get("v1", "Service", "svc", "default")["spec"]
    c.settle()
    # A selector Service would get controller-managed Endpoints and EndpointSlices (the
    # apiserver's own default/kubernetes ones are there from the start).
    eps = c.api.list("v1", "Endpoints", "default")
    assert [e["metadata"]["name"] for e in eps] == ["kubernetes"]
    slices = c.api.list("discovery.k8s.io/v1", "EndpointSlice", "default")
    assert [s["metadata"]["name"] for s in slices] == ["kubernetes"]


def test_resending_empty_collections_writes_no_new_revision() -> None:
    c = Cluster(seed=1)
    first = c.api.create(_service(selector={"app": "x"}))
    body = copy.deepcopy(first)
    body["metadata"]["labels"] = {}
    body["metadata"]["finalizers"] = []
    second = c.api.update(body)
    assert second["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    assert second == first
