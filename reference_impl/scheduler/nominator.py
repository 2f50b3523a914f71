"""Models the nominator of pkg/scheduler/backend/queue and
``RunFilterPluginsWithNominatedPods`` (pkg/scheduler/framework/runtime).

Preemption sets a preemptor's ``status.nominatedNodeName``; until the pod binds (binding
clears the field) or goes away, the node's room is *reserved* for it: any pod of equal or
lower priority that is filtered against that node sees the nominated pods (other than
itself) of at least its own priority as if they were already running there, and must fit
with them. So a lower-priority pod cannot take the room the victims freed. Like upstream,
the filters must pass both with and without those pods; the "without" pass is the normal
one, so this adds only the "with" pass, and only on nodes that have nominations.
Nominations come from the pods' status, so they survive anything that rewrites it.
``add_nominated_pod`` is upstream's queue-side API (ModeOverride nominates ahead of the
status write); the informer path does not keep such an override across a later update.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from reference_impl.apiserver.server import ObjectEvent
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.diagnosis import Diagnosis
from reference_impl.scheduler.framework.interface import FilterPlugin, Status
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo, pod_key

if TYPE_CHECKING:
    from reference_impl.apiserver.component import ComponentContext
    from reference_impl.apiserver.informers import SharedInformer
    from reference_impl.scheduler.framework.runtime import Framework

__all__ = ["Nominator"]

Obj = dict[str, Any]


class Nominator:
    """Which unbound pods are nominated to which node."""

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._by_node: dict[str, dict[str, PodInfo]] = {}
        self._node_of: dict[str, str] = {}
        self._pods: SharedInformer | None = None  # upstream's podLister

    def start(self) -> None:
        """Follow pods: a nomination lives while the pod is unbound, alive and nominated."""
        pods = self._pods = self._ctx.informers.informer("v1", "Pod")
        pods.add_handler(self._on_pod)
        for pod in pods.items():
            self._track(pod, deleted=False)

    def _on_pod(self, ev: ObjectEvent) -> None:
        self._track(ev.obj, deleted=ev.type == "DELETED")

    def _track(self, pod: Obj, *, deleted: bool) -> None:
        key = pod_key(pod)
        node = _nominated(pod)
        if (
            deleted
            or not node
            or pod["spec"].get("nodeName")
            or pod["metadata"].get("deletionTimestamp")
        ):
            self._drop(key)
            return
        self._drop(key)
        self._by_node.setdefault(node, {})[key] = PodInfo(pod)
        self._node_of[key] = node

    def _drop(self, key: str) -> None:
        node = self._node_of.pop(key, None)
        if node is not None:
            pods = self._by_node.get(node, {})
            pods.pop(key, None)
            if not pods:  # ``deleteUnlocked`` forgets a node without nominations
                self._by_node.pop(node, None)

    def add_nominated_pod(self, info: PodInfo, node: str | None = None) -> None:
        """``addNominatedPodUnlocked``: ``node`` None is ModeNoop (the pod's own status),
        else ModeOverride (preemption's pick before its status write lands); "" only
        clears. A pod the informer no longer has, or has bound, is not nominated."""
        key = info.key
        self._drop(key)
        target = _nominated(info.pod) if node is None else node
        if not target:  # never keyed by "" (upstream #138267)
            return
        if self._pods is not None:
            live = self._pods.get(key)
            if live is None or live["spec"].get("nodeName"):
                return
        self._by_node.setdefault(target, {})[key] = info
        self._node_of[key] = target

    def delete_nominated_pod_if_exists(self, pod: Obj) -> None:
        """``DeleteNominatedPodIfExists``."""
        self._drop(pod_key(pod))

    def nominated_pods_for_node(self, node: str) -> list[PodInfo]:
        """``NominatedPodsForNode``: copies, in nomination order."""
        return [PodInfo(copy.deepcopy(i.pod)) for i in self._by_node.get(node, {}).values()]

    def nominated_node(self, pod: Obj) -> str:
        """The node ``pod`` is nominated to, or ""."""
        return self._node_of.get(pod_key(pod), "")

    def reserved_for_others(self, pod: Obj, node: str) -> list[PodInfo]:
        """Pods nominated to ``node`` that ``pod`` must leave room for (priority >= its)."""
        mine, prio = pod_key(pod), int(pod["spec"].get("priority") or 0)
        return sorted(
            (i for k, i in self._by_node.get(node, {}).items() if k != mine and i.priority >= prio),
            key=lambda i: i.key,
        )

    def run_filters_with_nominated(
        self,
        fw: Framework,
        state: CycleState,
        pod: Obj,
        ni: NodeInfo,
        filters: Sequence[FilterPlugin],
    ) -> Status:
        """The filters on ``ni`` with the nominated pods added (the "with" pass only)."""
        extra = [i for i in self.reserved_for_others(pod, ni.name) if i.key not in ni.pods]
        if not extra:
            return fw.run_filter_plugins(state, pod, ni, filters)
        for info in extra:
            ni.add_pod(info.on_node(ni.name))
        try:
            return fw.run_filter_plugins(fw.refreshed(state, pod), pod, ni, filters)
        finally:
            for info in extra:
                ni.remove_pod(info.key)

    def recheck(
        self,
        fw: Framework,
        state: CycleState,
        pod: Obj,
        feasible: list[NodeInfo],
        diagnosis: Diagnosis,
    ) -> list[NodeInfo]:
        """Drop the feasible nodes that no longer fit once their nominated pods count."""
        if not self._node_of:
            return feasible
        filters = fw.active_filters(state)
        out: list[NodeInfo] = []
        for ni in feasible:
            if not self.reserved_for_others(pod, ni.name):
                out.append(ni)
                continue
            s = self.run_filters_with_nominated(fw, state, pod, ni, filters)
            if s.is_success():
                out.append(ni)
            elif s.is_rejected():
                diagnosis.node_to_status.set(ni.name, s)
                diagnosis.add_plugin_status(s)
        return out


def _nominated(pod: Obj) -> str:
    return str((pod.get("status") or {}).get("nominatedNodeName") or "")
