"""API machinery conformance: watch from a resourceVersion."""

from __future__ import annotations

import pytest

from fixtures import Target
from reference_impl.api import make_configmap

pytestmark = pytest.mark.conformance


def test_watch_from_a_resource_version_sees_every_change_in_order(
    target: Target, namespace: str
) -> None:
    """API machinery, watch.

    A watch started from the resourceVersion of an earlier write MUST deliver the later
    create, update and delete of an object as ADDED, MODIFIED and DELETED, in that order,
    with increasing resourceVersions.
    """
    mark = target.apply(make_configmap("mark", namespace).build())["metadata"]["resourceVersion"]
    target.apply(make_configmap("w", namespace, n="1").build())
    target.apply(make_configmap("w", namespace, n="2").build())
    target.delete("v1", "ConfigMap", "w", namespace)
    seen: list[tuple[str, str]] = []
    rvs: list[int] = []
    for ev in target.watch("v1", "ConfigMap", since=mark, namespace=namespace, timeout=10):
        if ev.object["metadata"]["name"] != "w":
            continue
        seen.append((ev.type, (ev.object.get("data") or {}).get("n", "")))
        rvs.append(int(ev.resource_version))
        if ev.type == "DELETED":
            break
    assert [t for t, _ in seen] == ["ADDED", "MODIFIED", "DELETED"]
    assert seen[1][1] == "2"
    assert rvs == sorted(rvs)


def test_watch_without_a_version_starts_with_the_current_objects(
    target: Target, namespace: str
) -> None:
    """API machinery, watch initial state.

    A watch with no resourceVersion MUST first deliver every existing object as ADDED.
    """
    for name in ("a", "b"):
        target.apply(make_configmap(name, namespace).build())
    names = set()
    for ev in target.watch("v1", "ConfigMap", namespace=namespace, timeout=5):
        assert ev.type == "ADDED"
        names.add(ev.object["metadata"]["name"])
        if {"a", "b"} <= names:
            break
    assert {"a", "b"} <= names
