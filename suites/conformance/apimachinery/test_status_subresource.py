"""API machinery conformance: what a /status write does to metadata.

Most status strategies replace only the spec with the stored one, so labels and annotations
written through /status are kept and validated; a Deployment keeps its stored labels
(``deploymentStatusStrategy``); ResourceClaim's status strategy resets all metadata
(``metav1.ResetObjectMetaForStatus``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Target
from fixtures.helpers.retry import retry_on_conflict
from reference_impl.api import make_deployment, make_pod
from reference_impl.errors import Invalid

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]


def _with_label(obj: Obj, key: str, value: str) -> Obj:
    meta = {**obj["metadata"], "labels": {**(obj["metadata"].get("labels") or {}), key: value}}
    return {**obj, "metadata": meta}


def _write_status(target: Target, ref: tuple[str, str, str, str], edit: Callable[[Obj], Obj]) -> None:
    """Read, edit and write through /status, again on a Conflict (controllers write too)."""
    retry_on_conflict(lambda: target.patch_status(edit(target.get(*ref))), str(ref))


def test_a_pod_status_write_keeps_and_validates_its_labels(target: Target, namespace: str) -> None:
    """pods/status and metadata.

    A label added in a pods/status write MUST be stored with the status; an invalid label
    key in such a write MUST be refused as Invalid at ``metadata.labels``.
    """
    target.apply(make_pod("p", namespace).node_selector(**{"garhwal.dev/none": "x"}).build())
    ref = ("v1", "Pod", "p", namespace)
    _write_status(target, ref, lambda pod: _with_label(pod, "example.com/seen", "yes"))
    assert target.get(*ref)["metadata"]["labels"]["example.com/seen"] == "yes"
    with pytest.raises(Invalid) as err:
        _write_status(target, ref, lambda pod: _with_label(pod, "bad key!", "x"))
    assert "metadata.labels" in str(err.value)


def test_a_deployment_status_write_keeps_the_stored_labels(target: Target, namespace: str) -> None:
    """deployments/status and labels.

    A label added in a deployments/status write MUST NOT be stored (the Deployment keeps
    its stored labels), while an annotation added in the same write MUST be.
    """
    target.apply(make_deployment("d", namespace, replicas=0).build())
    ref = ("apps/v1", "Deployment", "d", namespace)

    def edit(current: Obj) -> Obj:
        body = _with_label(current, "example.com/seen", "yes")
        body["metadata"]["annotations"] = {**(current["metadata"].get("annotations") or {}), "example.com/note": "n"}
        return body

    _write_status(target, ref, edit)
    meta = target.get(*ref)["metadata"]
    assert "example.com/seen" not in (meta.get("labels") or {})
    assert meta["annotations"]["example.com/note"] == "n"
