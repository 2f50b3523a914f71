"""``AdoptPod`` (``pkg/controller/controller_ref_manager.go``): a failed ``CanAdopt`` is
returned as "can't adopt <Kind> ns/name (uid): <err>" for each orphan it blocks."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.controllers.controller_utils import claim_objects
from reference_impl.errors import Conflict

Obj = dict[str, Any]


def _owner() -> Obj:
    return {
        "kind": "ReplicaSet",
        "metadata": {"name": "rs", "namespace": "ns", "uid": "rs-uid"},
        "spec": {"selector": {"matchLabels": {"app": "a"}}},
    }


def _orphan(name: str) -> Obj:
    return {
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "ns", "uid": f"{name}-uid", "labels": {"app": "a"}},
    }


def test_failed_can_adopt_is_wrapped() -> None:
    adopted: list[Obj] = []

    def adopt(o: Obj) -> Obj:
        adopted.append(o)
        return o

    def can_adopt() -> None:
        raise Conflict("ns/rs has just been deleted at 2026-01-01T00:00:00Z")

    with pytest.raises(Conflict) as info:
        claim_objects(
            _owner(), [_orphan("p1"), _orphan("p2")], adopt, lambda o: o, can_adopt=can_adopt
        )
    want = "can't adopt Pod ns/p1 (p1-uid): ns/rs has just been deleted at 2026-01-01T00:00:00Z"
    assert str(info.value) == want
    assert info.value.message == want
    assert adopted == []
