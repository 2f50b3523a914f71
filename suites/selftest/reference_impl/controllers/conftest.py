"""Fixtures for controller selftests; the harness itself is in ``controller_harness``."""

from __future__ import annotations

import pytest
from controller_harness import Harness, build_harness


@pytest.fixture
def h() -> Harness:
    """A fresh control plane per test."""
    return build_harness()
