"""Helpers of the chaos selftests."""

from __future__ import annotations

from typing import Any

from fixtures.targets.reference import ReferenceTarget


def node_state(target: ReferenceTarget) -> dict[str, Any]:
    """What chaos may change on nodes: labels, taints, unschedulable, per node."""
    out = {}
    for n in target.list("v1", "Node"):
        spec = n.get("spec") or {}
        out[n["metadata"]["name"]] = (
            dict(n["metadata"].get("labels") or {}), spec.get("taints"), spec.get("unschedulable"),
        )
    return out
