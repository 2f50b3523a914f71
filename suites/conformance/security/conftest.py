"""Security suites get ``cluster_roles``: names of ClusterRoles a test creates, deleted after it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fixtures import Target
from reference_impl.errors import NotFound


@pytest.fixture
def cluster_roles(target: Target) -> Iterator[list[str]]:
    """Names of ClusterRoles the test created; deleted afterwards."""
    names: list[str] = []
    yield names
    for n in reversed(names):
        try:
            target.delete("rbac.authorization.k8s.io/v1", "ClusterRole", n)
        except NotFound:
            pass
