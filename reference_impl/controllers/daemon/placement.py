"""Which nodes run a daemon pod (``daemon_controller.go``): ``NodeShouldRunDaemonPod``,
``daemonPodTolerations``, ``predicates``, ``NewPod``, the pod order
``podByCreationTimestampAndPhase`` and ``getUnscheduledPodsWithoutNode``, plus the
failed-pod ``flowcontrol.Backoff``."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.api.node_affinity import NodeSelector, compile_terms
from reference_impl.api.taints import Taint, find_untolerated, parse_taints, parse_tolerations
from reference_impl.clock import Duration, Instant, parse_rfc3339, seconds
from reference_impl.controllers.daemon.util import add_or_update_daemon_pod_tolerations

__all__ = [
    "Backoff",
    "Placement",
    "daemon_pod_tolerations",
    "new_pod",
    "node_should_run_daemon_pod",
    "pod_order_key",
    "unscheduled_pods_without_node",
]

Obj = dict[str, Any]
_NO_SCHEDULE_OR_EXECUTE: Final = frozenset({"NoSchedule", "NoExecute"})
_NO_EXECUTE: Final = frozenset({"NoExecute"})
_ZERO_TIME: Final = -(2**62)


def daemon_pod_tolerations(ds: Mapping[str, Any]) -> list[Obj]:
    """``daemonPodTolerations``: the template's tolerations plus the daemon defaults."""
    spec = copy.deepcopy(((ds["spec"].get("template") or {}).get("spec")) or {})
    add_or_update_daemon_pod_tolerations(spec)
    out: list[Obj] = spec["tolerations"]
    return out


@dataclass(frozen=True, slots=True)
class Placement:
    """What ``nodeShouldRunDaemonPod`` needs of a DaemonSet, built once per sync."""

    node_name: str
    tolerations: tuple[Any, ...]
    affinity: NodeSelector

    @classmethod
    def of(cls, ds: Mapping[str, Any], compare: bool = False) -> Placement:
        """The pinned node name, the daemon tolerations and ``NewRequiredNodeAffinity``;
        ``compare`` is the TaintTolerationComparisonOperators gate."""
        spec = ((ds["spec"].get("template") or {}).get("spec")) or {}
        tolerations = parse_tolerations({"spec": {"tolerations": daemon_pod_tolerations(ds)}}, compare)
        required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        )
        labels = tuple(sorted((spec.get("nodeSelector") or {}).items()))
        terms = None if required is None else compile_terms(required.get("nodeSelectorTerms") or ())
        return cls(str(spec.get("nodeName") or ""), tolerations, NodeSelector(labels, terms))

    def should_run(self, node: Mapping[str, Any]) -> tuple[bool, bool]:
        """``nodeShouldRunDaemonPod``: (shouldRun, shouldContinueRunning). A pinned
        nodeName or unmet affinity rules the node out; an untolerated NoSchedule or
        NoExecute taint stops new pods, and only a NoExecute one evicts running pods."""
        name = str(node["metadata"]["name"])
        if self.node_name and self.node_name != name:
            return False, False
        labels = node["metadata"].get("labels") or {}
        if not self.affinity.matches(labels, name):
            return False, False
        taints: Sequence[Taint] = parse_taints(dict(node))
        if find_untolerated(taints, self.tolerations, _NO_SCHEDULE_OR_EXECUTE) is not None:
            return False, find_untolerated(taints, self.tolerations, _NO_EXECUTE) is None
        return True, True


def node_should_run_daemon_pod(
    node: Mapping[str, Any], ds: Mapping[str, Any], compare: bool = False
) -> tuple[bool, bool]:
    """``NodeShouldRunDaemonPod``: (shouldRun, shouldContinueRunning)."""
    return Placement.of(ds, compare).should_run(node)


def new_pod(ds: Mapping[str, Any], node_name: str) -> Obj:
    """``NewPod``: the template's pod on ``node_name`` with the daemon tolerations."""
    template = ds["spec"].get("template") or {}
    meta = copy.deepcopy(template.get("metadata") or {})
    meta["namespace"] = ds["metadata"].get("namespace")
    spec = copy.deepcopy(template.get("spec") or {})
    spec["nodeName"] = node_name
    add_or_update_daemon_pod_tolerations(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def _created(pod: Mapping[str, Any]) -> int:
    ts = pod["metadata"].get("creationTimestamp")
    return parse_rfc3339(str(ts)) if ts else _ZERO_TIME


def pod_order_key(pod: Mapping[str, Any]) -> tuple[int, int, str]:
    """``podByCreationTimestampAndPhase``: scheduled first, then oldest, then by name."""
    scheduled = 0 if (pod.get("spec") or {}).get("nodeName") else 1
    return (scheduled, _created(pod), str(pod["metadata"].get("name", "")))


def unscheduled_pods_without_node(
    node_names: Iterable[str], node_to_pods: Mapping[str, Sequence[Obj]]
) -> list[str]:
    """``getUnscheduledPodsWithoutNode``: unscheduled pods aimed at nodes that are gone."""
    running = set(node_names)
    return [
        str(pod["metadata"]["name"])
        for node, pods in node_to_pods.items()
        if node not in running
        for pod in pods
        if not (pod.get("spec") or {}).get("nodeName")
    ]


@dataclass(slots=True)
class _Entry:
    backoff: Duration
    last_update: Instant


@dataclass(slots=True)
class Backoff:
    """``flowcontrol.Backoff`` without jitter (kube-controller-manager's is 1 s to 15 min)."""

    initial: Duration = field(default_factory=lambda: seconds(1))
    maximum: Duration = field(default_factory=lambda: seconds(15 * 60))
    _items: dict[str, _Entry] = field(default_factory=dict)

    def _expired(self, now: Instant, last: Instant) -> bool:
        return now - last > 2 * self.maximum  # the default maxPersistence

    def get(self, key: str) -> Duration:
        """``Get``: the current delay, 0 without an entry."""
        entry = self._items.get(key)
        return entry.backoff if entry is not None else Duration(0)

    def next(self, key: str, now: Instant) -> None:
        """``Next``: start at ``initial`` (or after expiry), else double up to ``maximum``."""
        entry = self._items.get(key)
        if entry is None or self._expired(now, entry.last_update):
            self._items[key] = _Entry(self.initial, now)
            return
        entry.backoff = Duration(min(entry.backoff * 2, self.maximum))
        entry.last_update = now

    def in_backoff_since_update(self, key: str, now: Instant) -> bool:
        """``IsInBackOffSinceUpdate``: less than the delay passed since the last ``next``."""
        entry = self._items.get(key)
        if entry is None or self._expired(now, entry.last_update):
            return False
        return now - entry.last_update < entry.backoff

    def gc(self, now: Instant) -> None:
        """``GC``: drop entries not updated for twice the maximum."""
        for key in [k for k, e in self._items.items() if self._expired(now, e.last_update)]:
            del self._items[key]
