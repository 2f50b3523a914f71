"""The HPA's way to its target's /scale (``reference_impl/controllers/hpa/scale_client.py``):
``RESTMappings`` by group and kind (the reference's version is ignored, the preferred
served version wins), ``scaleForResourceMappings`` and the rescale's ``RetryOnConflict``
refreshing a stale Scale."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.controllers.hpa.scale_client import MappingError, scale_for_target, update_scale
from reference_impl.errors import Conflict
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NS = "default"


def _server() -> APIServer:
    srv = APIServer(MVCCStore(), SimClock(), Rng(1).child("apiserver"), FeatureGates())
    srv.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    free: Obj = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    scale = {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}
    versions = [
        {"name": v, "served": True, "storage": v == "v1beta1", "subresources": {"scale": scale},
         "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": free, "status": free}}}}
        for v in ("v1beta1", "v1")
    ]  # fmt: skip
    crd = srv.create({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "noxus.mygroup.example.com"},
        "spec": {"group": "mygroup.example.com", "scope": "Namespaced",
                 "names": {"plural": "noxus", "singular": "noxu", "kind": "Noxu"},
                 "versions": versions},
    })  # fmt: skip
    crd["status"] = {"acceptedNames": crd["spec"]["names"], "conditions": [
        {"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
         "message": "the initial names have been accepted",
         "lastTransitionTime": "2026-01-01T00:00:00Z"}]}  # fmt: skip
    srv.update_status(crd)
    srv.create({"apiVersion": "mygroup.example.com/v1beta1", "kind": "Noxu",
                "metadata": {"name": "foo", "namespace": NS}, "spec": {"replicas": 2}})  # fmt: skip
    return srv


@pytest.mark.parametrize("api_version", ["mygroup.example.com/v1beta1", "mygroup.example.com/v1",
                                         "mygroup.example.com/v9"])  # fmt: skip
def test_custom_resource_target_any_version(api_version: str) -> None:
    """The mapping is by group and kind: every reference reads the preferred (v1) Scale."""
    srv = _server()
    st = scale_for_target(srv, {"apiVersion": api_version, "kind": "Noxu", "name": "foo"}, NS)
    assert (st.api_version, st.scale["spec"]) == ("mygroup.example.com/v1", {"replicas": 2})


def test_unknown_group_kind() -> None:
    srv = _server()
    with pytest.raises(
        MappingError, match=r'^no matches for kind "Noxu" in group "other.example.com"$'
    ):
        scale_for_target(
            srv, {"apiVersion": "other.example.com/v1", "kind": "Noxu", "name": "foo"}, NS
        )


def test_update_retries_a_stale_scale() -> None:
    """A Scale read before another writer moved the object conflicts once; the retry
    reads the latest Scale and succeeds."""
    srv = _server()
    st = scale_for_target(
        srv, {"apiVersion": "mygroup.example.com/v1", "kind": "Noxu", "name": "foo"}, NS
    )
    cr = srv.get("mygroup.example.com/v1", "Noxu", "foo", NS)
    srv.update({**cr, "metadata": {**cr["metadata"], "labels": {"moved": "yes"}}})
    with pytest.raises(Conflict):  # the stale Scale alone conflicts
        srv.update_scale(st.api_version, st.kind, {**st.scale, "spec": {"replicas": 5}})
    out = update_scale(srv, st, 5)
    assert out.scale["spec"] == {"replicas": 5}
    assert srv.get("mygroup.example.com/v1", "Noxu", "foo", NS)["spec"]["replicas"] == 5
