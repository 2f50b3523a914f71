"""The autoscaler's own fit predicate (models cluster-autoscaler's simulator/ package, which
runs scheduler Filter plugins against real and template nodes).

It checks what matters for picking a node group, without importing the scheduler:
allocatable minus requests (cpu, memory, extended resources), the pod count, nodeSelector,
NoSchedule/NoExecute taints, and (gate VolumeLimitScaling, KEP-5030) CSI attach limits:
the unique CSI volumes per driver on the node plus the pod's new ones must not exceed
``CSINode.spec.drivers[].allocatable.count``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from reference_impl.api.meta import parse_quantity

__all__ = ["PodDemand", "SimNode", "fit_failures", "pod_requests"]

Obj = dict[str, Any]


def pod_requests(pod: Obj) -> dict[str, Decimal]:
    """``resource.PodRequests``: the containers' sum, at least every init container's."""
    spec = pod.get("spec") or {}
    total: dict[str, Decimal] = {}
    for c in spec.get("containers") or ():
        for name, q in ((c.get("resources") or {}).get("requests") or {}).items():
            total[name] = total.get(name, Decimal(0)) + parse_quantity(q)
    for c in spec.get("initContainers") or ():
        for name, q in ((c.get("resources") or {}).get("requests") or {}).items():
            total[name] = max(total.get(name, Decimal(0)), parse_quantity(q))
    return total


@dataclass(slots=True)
class PodDemand:
    """What a pending pod needs from a node."""

    key: str
    requests: dict[str, Decimal]
    node_selector: Mapping[str, str]
    tolerations: tuple[Obj, ...]
    # CSI driver -> the persistent volume names the pod uses.
    volumes: dict[str, set[str]] = field(default_factory=dict)


@dataclass(slots=True)
class SimNode:
    """A real or template node as the simulation sees it; ``place`` mutates it."""

    name: str
    labels: Mapping[str, str]
    taints: tuple[Obj, ...]
    allocatable: dict[str, Decimal]
    requested: dict[str, Decimal] = field(default_factory=dict)
    pods: int = 0
    # CSI driver -> allocatable.count (None: unlimited); a driver absent is unlimited.
    attach_limits: dict[str, int | None] = field(default_factory=dict)
    attached: dict[str, set[str]] = field(default_factory=dict)
    group: str = ""

    def place(self, demand: PodDemand) -> None:
        """Account for ``demand`` on this node."""
        self.pods += 1
        for name, q in demand.requests.items():
            self.requested[name] = self.requested.get(name, Decimal(0)) + q
        for driver, vols in demand.volumes.items():
            self.attached.setdefault(driver, set()).update(vols)


def _tolerates(taint: Obj, tolerations: tuple[Obj, ...]) -> bool:
    for t in tolerations:
        if t.get("effect") and t["effect"] != taint.get("effect"):
            continue
        if not t.get("key") and t.get("operator") == "Exists":
            return True
        if t.get("key") != taint.get("key"):
            continue
        if t.get("operator") == "Exists" or t.get("value", "") == taint.get("value", ""):
            return True
    return False


def _attach_failures(demand: PodDemand, node: SimNode) -> list[str]:
    out: list[str] = []
    for driver in sorted(demand.volumes):
        limit = node.attach_limits.get(driver)
        if limit is None:
            continue
        have = node.attached.get(driver, set())
        if len(have | demand.volumes[driver]) > limit:
            out.append(f"node(s) exceed max volume count for {driver}")
    return out


def fit_failures(demand: PodDemand, node: SimNode, attach_limits: bool) -> list[str]:
    """Why ``demand`` does not fit ``node`` (empty: it fits)."""
    out: list[str] = []
    if any(node.labels.get(k) != v for k, v in demand.node_selector.items()):
        out.append("node(s) didn't match Pod's node affinity/selector")
    for taint in node.taints:
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not _tolerates(
            taint, demand.tolerations
        ):
            out.append("node(s) had untolerated taint")
            break
    if node.pods + 1 > node.allocatable.get("pods", Decimal(110)):
        out.append("Too many pods")
    for name in sorted(demand.requests):
        want = demand.requests[name]
        if want > node.allocatable.get(name, Decimal(0)) - node.requested.get(name, Decimal(0)):
            out.append(f"Insufficient {name}")
    if attach_limits:
        out.extend(_attach_failures(demand, node))
    return out
