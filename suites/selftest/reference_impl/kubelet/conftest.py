"""Fixtures for kubelet selftests; the harness itself is in ``kubelet_harness``."""

from __future__ import annotations

import pytest
from kubelet_harness import KubeletHarness, make_harness


@pytest.fixture
def k() -> KubeletHarness:
    """A fresh kubelet harness."""
    return make_harness()
