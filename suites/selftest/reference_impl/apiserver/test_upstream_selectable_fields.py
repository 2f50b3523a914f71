"""Selectable fields and field label conversions beyond pods and nodes (v1.37.2).

Ported: TestSelectableFieldLabelConversions of pkg/registry/core/{event, secret,
namespace, persistentvolume, persistentvolumeclaim, replicationcontroller}/strategy_test.go
and batch/job's TestJobToSelectiableFields (all through
pkg/api/testing/conversion.go TestSelectableFieldLabelConversionsOfKind); core/event
TestGetAttrs; resource/resourceslice TestMatch. The pod and node rows are in
test_upstream_strategy_pod.py.

The last tests are the reference's own (no upstream row): the conversion tables of
pkg/apis/{certificates,resource,events}/v1*/conversion.go and the
``DefaultMetaV1FieldSelectorConversion`` fallback, with the error text each returns.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver import field_selectors
from reference_impl.errors import BadRequest

Obj = dict[str, Any]

_BAD_FIELD_LABELS = ("name", ".name", "bad", "metadata", "foo.bar")


def _conversions_of_kind(
    api_version: str, kind: str, fields: dict[str, str], label_map: dict[str, str]
) -> None:
    """``apitesting.TestSelectableFieldLabelConversionsOfKind``."""
    assert fields
    for label in fields:
        if label == "name":
            continue  # upstream's FIXME: deprecated, selectable but not convertible
        want = label_map.get(label, label)
        got = field_selectors.convert_field_label(kind, label, "value", api_version=api_version)
        assert got == (want, "value"), label
    for label in _BAD_FIELD_LABELS:
        with pytest.raises(BadRequest):
            field_selectors.convert_field_label(kind, label, "value", api_version=api_version)


_NAME = {"name": "metadata.name"}


@pytest.mark.parametrize(
    ("api_version", "kind", "label_map"),
    [
        pytest.param("v1", "Event", {}, id="core/event TestSelectableFieldLabelConversions"),
        pytest.param("v1", "Secret", {}, id="core/secret TestSelectableFieldLabelConversions"),
        pytest.param("v1", "Namespace", _NAME,
                     id="core/namespace TestSelectableFieldLabelConversions"),
        pytest.param("v1", "PersistentVolume", _NAME,
                     id="core/persistentvolume TestSelectableFieldLabelConversions"),
        pytest.param("v1", "PersistentVolumeClaim", _NAME,
                     id="core/persistentvolumeclaim TestSelectableFieldLabelConversions"),
        pytest.param("v1", "ReplicationController", {},
                     id="core/replicationcontroller TestSelectableFieldLabelConversions"),
        pytest.param("batch/v1", "Job", {}, id="batch/job TestJobToSelectiableFields"),
    ],
)  # fmt: skip
def test_selectable_field_label_conversions(
    api_version: str, kind: str, label_map: dict[str, str]
) -> None:
    fields = field_selectors.to_selectable_fields(kind, {}, api_version=api_version)
    _conversions_of_kind(api_version, kind, fields, label_map)


def _event(**extra: Any) -> Obj:
    return {
        "metadata": {"name": "f0118", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "foo", "namespace": "baz",
                           "uid": "long uid string", "apiVersion": "v1",
                           "resourceVersion": "0", "fieldPath": ""},
        "reason": "ForTesting", "type": "Normal", **extra,
    }  # fmt: skip


def _event_fields(reporting: str, source: str) -> dict[str, str]:
    return {
        "metadata.name": "f0118", "metadata.namespace": "default",
        "involvedObject.kind": "Pod", "involvedObject.name": "foo",
        "involvedObject.namespace": "baz", "involvedObject.uid": "long uid string",
        "involvedObject.apiVersion": "v1", "involvedObject.resourceVersion": "0",
        "involvedObject.fieldPath": "", "reason": "ForTesting",
        "reportingComponent": reporting, "source": source, "type": "Normal",
    }  # fmt: skip


# core/event TestGetAttrs: eventA (source.component) and eventB (reportingController).
@pytest.mark.parametrize(
    ("event", "want"),
    [
        pytest.param(_event(source={"component": "test"}), _event_fields("", "test"), id="eventA"),
        pytest.param(_event(reportingController="test"), _event_fields("test", "test"),
                     id="eventB"),
    ],
)  # fmt: skip
def test_event_get_attrs(event: Obj, want: dict[str, str]) -> None:
    assert field_selectors.to_selectable_fields("Event", event) == want


def _slice(**spec: Any) -> Obj:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": spec.pop("metadata", {}), "spec": spec}  # fmt: skip


# resourceslice TestMatch: the registry's Match (no label conversion in between).
@pytest.mark.parametrize(
    ("obj", "selector", "want"),
    [
        pytest.param(_slice(metadata={"name": "foo"}), "metadata.name=foo", True,
                     id="match-metadata-name"),
        pytest.param(_slice(metadata={"name": "foo"}), "metadata.name=bar", False,
                     id="not-match-metadata-name"),
        pytest.param(_slice(driver="foo"), "spec.driver=foo", True, id="match-spec-driver"),
        pytest.param(_slice(driver="foo"), "spec.driver=bar", False, id="not-match-spec-driver"),
        pytest.param(_slice(nodeName="foo"), "spec.nodeName=foo", True,
                     id="match-spec-node-name"),
        pytest.param(_slice(nodeName="foo"), "spec.nodeName=bar", False,
                     id="not-match-spec-node-name"),
        pytest.param(_slice(pool={"name": "foo"}), "spec.pool.name=foo", True,
                     id="match-spec-pool-name"),
        pytest.param(_slice(pool={"name": "foo"}), "spec.pool.name=bar", False,
                     id="not-match-spec-pool-name"),
        pytest.param(_slice(pool={"generation": 1}), "spec.pool.generation=1", False,
                     id="not-match-spec-pool-generation"),
    ],
)  # fmt: skip
def test_resource_slice_match(obj: Obj, selector: str, want: bool) -> None:
    fields = field_selectors.to_selectable_fields(
        "ResourceSlice", obj, api_version="resource.k8s.io/v1", namespaced=False
    )
    assert field_selectors.matches(field_selectors.parse_selector(selector), fields) is want


# -- the reference's own checks of the conversion tables (no upstream row) -------------


@pytest.mark.parametrize(
    ("api_version", "kind", "label", "want"),
    [
        ("v1", "Pod", "spec.host", "spec.nodeName"),
        ("events.k8s.io/v1", "Event", "regarding.name", "involvedObject.name"),
        ("events.k8s.io/v1", "Event", "reportingController", "reportingComponent"),
        ("certificates.k8s.io/v1", "CertificateSigningRequest", "spec.signerName",
         "spec.signerName"),
        ("certificates.k8s.io/v1beta1", "ClusterTrustBundle", "spec.signerName",
         "spec.signerName"),
        ("certificates.k8s.io/v1", "PodCertificateRequest", "spec.nodeName", "spec.nodeName"),
        ("resource.k8s.io/v1", "ResourceSlice", "spec.pool.name", "spec.pool.name"),
        ("resource.k8s.io/v1beta1", "ResourceSlice", "spec.nodeName", "spec.nodeName"),
        ("v1", "ConfigMap", "metadata.namespace", "metadata.namespace"),
    ],
)  # fmt: skip
def test_label_converts(api_version: str, kind: str, label: str, want: str) -> None:
    got = field_selectors.convert_field_label(kind, label, "v", api_version=api_version)
    assert got == (want, "v")


@pytest.mark.parametrize(
    ("api_version", "kind", "label", "message"),
    [
        ("v1", "Node", "metadata.namespace", "field label not supported: metadata.namespace"),
        ("events.k8s.io/v1", "Event", "involvedObject.name",
         "field label not supported: involvedObject.name"),
        ("batch/v1", "Job", "spec.x", 'field label "spec.x" not supported for Job'),
        ("resource.k8s.io/v1", "ResourceSlice", "spec.pool.generation",
         "field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: "
         "spec.pool.generation"),
        # apps/v1 registers no conversion: the registry's status.replicas is refused.
        ("apps/v1", "ReplicaSet", "status.replicas",
         '"status.replicas" is not a known field selector: only "metadata.name", '
         '"metadata.namespace"'),
        ("coordination.k8s.io/v1beta1", "LeaseCandidate", "spec.leaseName",
         '"spec.leaseName" is not a known field selector: only "metadata.name", '
         '"metadata.namespace"'),
    ],
)  # fmt: skip
def test_label_refused(api_version: str, kind: str, label: str, message: str) -> None:
    with pytest.raises(BadRequest) as err:
        field_selectors.convert_field_label(kind, label, "v", api_version=api_version)
    assert str(err.value) == message


def test_events_k8s_io_event_selects_on_regarding() -> None:
    """An events.k8s.io/v1 Event selected by its own names (converted to core's)."""
    ev = {"apiVersion": "events.k8s.io/v1", "kind": "Event",
          "metadata": {"name": "e", "namespace": "ns"}, "regarding": {"kind": "Pod", "name": "p"},
          "reportingController": "kubelet", "deprecatedSource": {"component": ""}}  # fmt: skip
    pred = field_selectors.field_predicate(
        "Event", "regarding.name=p,reportingController=kubelet", api_version="events.k8s.io/v1"
    )
    assert pred is not None and pred(ev)
    other = field_selectors.field_predicate(
        "Event", "regarding.name=q", api_version="events.k8s.io/v1"
    )
    assert other is not None and not other(ev)


def test_default_attrs_by_scope() -> None:
    """A store without AttrFunc: DefaultNamespaceScopedAttr / DefaultClusterScopedAttr."""
    obj = {"metadata": {"name": "a", "namespace": "ns"}}
    ns_scoped = field_selectors.to_selectable_fields("ConfigMap", obj)
    assert ns_scoped == {"metadata.name": "a", "metadata.namespace": "ns"}
    cluster = field_selectors.to_selectable_fields(
        "StorageClass", obj, api_version="storage.k8s.io/v1", namespaced=False
    )
    assert cluster == {"metadata.name": "a"}
