"""Per-kind defaulting and validation (the ``pkg/registry/<group>/<kind>/strategy.go`` role).

Importing this package registers every strategy with ``reference_impl.apiserver.registry``.
"""

from reference_impl.apiserver.strategies import apps, batch, core, meta

__all__ = ["apps", "batch", "core", "meta"]
