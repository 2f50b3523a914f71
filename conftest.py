"""Loads the garhwal plugin for in-repo runs.

When garhwal is pip-installed, its ``pytest11`` entry point has registered the plugin
already, and ``pytest_plugins = ["fixtures.plugin"]`` would register the same module a
second time, which pluggy refuses. So register it here only when nobody has.
"""

from __future__ import annotations

import pytest


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Register ``fixtures.plugin`` as "garhwal" unless it is registered or blocked."""
    import fixtures.plugin

    if not pluginmanager.is_registered(fixtures.plugin) and not pluginmanager.is_blocked("garhwal"):
        pluginmanager.register(fixtures.plugin, "garhwal")


def pytest_configure(config: pytest.Config) -> None:
    """In-repo runs also walk every protobuf body the reference's components write, failing
    where a Go client could not have sent it (``verify_protobuf_bodies``)."""
    from reference_impl.apiserver.decode import verify_protobuf_bodies

    verify_protobuf_bodies(True)
