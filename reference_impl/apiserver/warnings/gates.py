"""A gate as the warnings read it: the reference's value, or upstream's 1.37 default where
the reference lists no such gate (one locked at its default)."""

from __future__ import annotations

from reference_impl.apiserver.registry import Context

__all__ = ["gate"]


def gate(ctx: Context | None, name: str, default: bool) -> bool:
    """Whether ``name`` is on (``default`` without a context or without the gate)."""
    if ctx is None or name not in ctx.gates:
        return default
    return ctx.gates.enabled(name)
