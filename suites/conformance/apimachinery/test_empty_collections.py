"""API machinery: what storage gives back of an empty list or map.

Built-in kinds are stored as protobuf, which writes no entry for an empty repeated or map
field, so such a field reads back as nil and an ``omitempty`` one is absent from every
reply. A Service sent with ``selector: {}`` therefore has no selector (and the endpoints
controllers manage nothing for it), and re-sending the empty values over the stored
object changes nothing, so no new resourceVersion is written.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target

pytestmark = pytest.mark.conformance


def _service(namespace: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "empty", "namespace": namespace, "labels": {}, "annotations": {}},
        "spec": {"ports": [{"port": 80, "protocol": "TCP"}], **spec},
    }  # fmt: skip


def test_empty_selector_and_labels_are_not_stored(target: Target, namespace: str) -> None:
    """API machinery, storage round trip.

    A Service created with ``selector: {}``, ``labels: {}`` and ``annotations: {}`` MUST
    come back, from the create and from a get, without a selector, labels or annotations,
    while its non-empty fields are kept.
    """
    created = target.apply(_service(namespace, selector={}))
    got = target.get("v1", "Service", "empty", namespace)
    for obj in (created, got):
        assert "selector" not in obj["spec"], obj["spec"]
        assert "labels" not in obj["metadata"] and "annotations" not in obj["metadata"]
        assert obj["spec"]["ports"][0]["port"] == 80


def test_resending_empty_collections_is_a_no_op(target: Target, namespace: str) -> None:
    """API machinery, no-op updates.

    Replacing a stored Service with the same object plus an empty ``selector`` and empty
    ``labels`` MUST NOT write a new resourceVersion: stored, the two are the same object.
    """
    first = target.apply(_service(namespace, selector={"app": "x"}))
    body = {**first, "spec": {**first["spec"], "selector": {"app": "x"}}}
    body["metadata"] = {**first["metadata"], "labels": {}}
    second = target.apply(body)
    assert second["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    assert "labels" not in second["metadata"]
