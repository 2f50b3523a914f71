"""Fixtures for the quota evaluator selftests: an ``Env`` over an in-memory object list."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from reference_impl.apiserver.quota.types import Env
from reference_impl.apiserver.registry import Context
from reference_impl.clock import Instant
from reference_impl.features import FeatureGates

Obj = dict[str, Any]
MakeEnv = Callable[..., Env]


def _env(
    objs: list[Obj] | None = None, now: int = 0, gates: Mapping[str, bool] | None = None
) -> Env:
    """An Env whose ``ctx`` reads ``objs`` (each with apiVersion and kind) as storage."""
    store = list(objs or [])

    def lst(api_version: str, kind: str, namespace: str | None) -> list[Obj]:
        return [
            o for o in store
            if o.get("apiVersion") == api_version and o.get("kind") == kind
            and (namespace is None or (o.get("metadata") or {}).get("namespace") == namespace)
        ]  # fmt: skip

    def get(api_version: str, kind: str, name: str, namespace: str | None) -> Obj | None:
        hits = [o for o in lst(api_version, kind, namespace) if o["metadata"].get("name") == name]
        return hits[0] if hits else None

    return Env(Context(FeatureGates(gates), get, lst), Instant(now))


@pytest.fixture
def make_env() -> MakeEnv:
    """``make_env(objs=None, now=0, gates=None)``."""
    return _env
