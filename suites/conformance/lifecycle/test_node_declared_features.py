"""Node declared features (KEP-5328, NodeDeclaredFeatures GA in 1.37): the kubelet
publishes ``status.declaredFeatures`` from component-helpers' registry when it sets the
node status (``setNodeStatus``), sorted by name.

Only a real kubelet declares anything (KWOK nodes declare nothing): this needs KUBELET.
``InPlacePodVerticalScalingInitContainers`` is GA and locked on in 1.37 and needs no
runtime support, so every 1.37 kubelet declares it.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Capability, Target

pytestmark = [pytest.mark.conformance, pytest.mark.requires(Capability.KUBELET)]

Obj = dict[str, Any]
ALWAYS_DECLARED = "InPlacePodVerticalScalingInitContainers"


def _kubelet_nodes(target: Target) -> list[Obj]:
    """Ready nodes run by a 1.37 kubelet (a container runtime, not KWOK's version)."""
    out = []
    for node in target.list("v1", "Node"):
        status = node.get("status") or {}
        info = status.get("nodeInfo") or {}
        ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or ())
        version = str(info.get("kubeletVersion", ""))
        if ready and info.get("containerRuntimeVersion") and version.startswith("v1.37."):
            out.append(node)
    return out


def test_a_kubelet_declares_its_node_features_sorted(target: Target) -> None:
    """Declared features published.

    Every Ready node a 1.37 kubelet runs MUST list ``InPlacePodVerticalScalingInitContainers``
    in ``status.declaredFeatures``, and the list MUST be sorted with no duplicates.
    """
    nodes = _kubelet_nodes(target)
    if not nodes:
        pytest.skip("no Ready node runs a v1.37 kubelet")
    for node in nodes:
        declared = list((node.get("status") or {}).get("declaredFeatures") or ())
        name = node["metadata"]["name"]
        assert ALWAYS_DECLARED in declared, f"{name}: {declared}"
        assert declared == sorted(set(declared)), f"{name}: {declared}"
