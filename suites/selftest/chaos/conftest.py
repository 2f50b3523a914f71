"""Shared pieces of the chaos engine selftests: a seeded reference with private nodes, an
opt-in ConfigMap maker, and a state dir of the test's own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fixtures.targets.reference import ReferenceTarget
from reference_impl.api import make_namespace, make_pool_node

POOL = "chaos-pool"


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point ``$XDG_STATE_HOME`` at the test's own directory."""
    path = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(path))
    return path


@pytest.fixture
def ref() -> ReferenceTarget:
    """A reference target with three pool nodes (two labelled chaos-allowed) and a namespace."""
    target = ReferenceTarget(seed=7)
    for i, allowed in enumerate((True, True, False)):
        node = make_pool_node(f"n{i}", POOL).build()
        if allowed:
            node["metadata"]["labels"]["garhwal.dev/chaos"] = "allowed"
        target.apply(node)
    target.apply(make_namespace("shop").build())
    return target


@pytest.fixture
def opt_in(ref: ReferenceTarget) -> Callable[..., dict[str, Any]]:
    """``opt_in(**data)``: create kube-system/garhwal-chaos with sane defaults overridden."""

    def make(**data: str) -> dict[str, Any]:
        base = {
            "allowedNamespaces": "shop",
            "nodeSelector": "garhwal.dev/chaos=allowed",
            "maxNodeShare": "0.34",
            "maxDeviceShare": "0.25",
            "expires": "2999-01-01T00:00:00Z",
        }
        base.update(data)
        base = {k: v for k, v in base.items() if v != ""}
        cm = {
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "garhwal-chaos", "namespace": "kube-system"}, "data": base,
        }
        return ref.apply(cm)

    return make
