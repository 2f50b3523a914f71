"""Models pkg/scheduler/backend/cache/cache.go and snapshot.go.

The cache keeps one NodeInfo per node, fed by the Node and Pod informers, plus the pods
the scheduler has *assumed* onto a node at Reserve but whose binding has not yet come back
through the informer. NodeInfos are updated incrementally (add or remove one pod's
requests), never rebuilt.

Deliberate deviation: upstream copies changed NodeInfos into a snapshot at the start of
each cycle because binding runs concurrently. Here a cycle runs to completion inside one
clock event, so the snapshot *is* the cache's NodeInfos and costs nothing to take.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from reference_impl.scheduler.framework.node_memo import NodeList
from reference_impl.scheduler.framework.registry import SharedLister
from reference_impl.scheduler.framework.types import NodeIndex, NodeInfo, PodInfo, pod_key

__all__ = ["SchedulerCache"]

Obj = dict[str, Any]


class SchedulerCache:
    """NodeInfos by name with assumed pods; ``node_infos()`` is the sorted snapshot."""

    def __init__(self) -> None:
        self._nodes: dict[str, NodeInfo] = {}
        self._names: list[str] = []  # sorted names of nodes whose Node object exists
        self._ordered: NodeList | None = None
        self._pods: dict[str, PodInfo] = {}  # key -> the version accounted on its node
        self._assumed: set[str] = set()
        self.index = NodeIndex()  # nodes with affinity pods, image existence

    # -- SharedLister -----------------------------------------------------------------

    def node_infos(self) -> Sequence[NodeInfo]:
        """Nodes (with a Node object) sorted by name."""
        if self._ordered is None:
            self._ordered = NodeList((self._nodes[n] for n in self._names), self.index)
        return self._ordered

    def get(self, node_name: str) -> NodeInfo | None:
        """The NodeInfo of an existing node, or None."""
        ni = self._nodes.get(node_name)
        return ni if ni is not None and ni.node is not None else None

    def num_nodes(self) -> int:
        """How many nodes the snapshot has."""
        return len(self._names)

    # -- nodes --------------------------------------------------------------------------

    def add_node(self, node: Obj) -> None:
        """A node was added or changed."""
        name = node["metadata"]["name"]
        ni = self._nodes.get(name)
        if ni is None:
            ni = self._nodes[name] = self._new_info(name)
        if ni.node is None:
            bisect.insort(self._names, name)
            self._ordered = None
        ni.set_node(node)

    update_node = add_node

    def remove_node(self, node: Obj) -> None:
        """A node was deleted; its pods stay accounted until their own deletes arrive."""
        name = node["metadata"]["name"]
        ni = self._nodes.get(name)
        if ni is None or ni.node is None:
            return
        i = bisect.bisect_left(self._names, name)
        del self._names[i]
        self._ordered = None
        self.index.tainted.discard(name)
        self.index.cordoned.discard(name)
        ni.set_images({})
        if ni.pods:
            ni.node = None  # a ghost, as upstream keeps until the pods are gone
        else:
            self._drop(name)

    # -- pods -----------------------------------------------------------------------

    def is_assumed(self, key: str) -> bool:
        """Whether a pod is assumed but not yet confirmed by the informer."""
        return key in self._assumed

    def assumed_node(self, key: str) -> str:
        """The node an assumed pod is accounted on, or "" when it is not assumed."""
        info = self._pods.get(key) if key in self._assumed else None
        return info.node_name if info is not None else ""

    def unassumable(self, key: str) -> str:
        """Why ``AssumePod`` would refuse ``key`` (the cache already holds it), or ""."""
        if key not in self._pods:
            return ""
        info = self._pods[key]
        uid = info.pod["metadata"].get("uid", "")
        return f"pod {uid}({key}) is in the cache, so can't be assumed"

    def assume_pod(self, info: PodInfo, node_name: str) -> None:
        """Account for a pod on ``node_name`` before its binding is confirmed."""
        self._place(info.on_node(node_name))
        self._assumed.add(info.key)

    def forget_pod(self, key: str) -> None:
        """Drop an assumed pod (its binding failed)."""
        if key in self._assumed:
            self._assumed.discard(key)
            self._unplace(key)

    def add_pod(self, pod: Obj) -> None:
        """A bound pod arrived: confirm an assumption, or account for it."""
        key = pod_key(pod)
        node_name = pod["spec"]["nodeName"]
        old = self._pods.get(key)
        if key in self._assumed and old is not None and old.node_name == node_name:
            # The binding came back: same requests, so only the manifest is swapped.
            self._assumed.discard(key)
            old.pod = pod
            return
        self._assumed.discard(key)
        self._place(PodInfo(pod))

    def update_pod(self, pod: Obj) -> None:
        """A bound pod changed (labels, in-place resize)."""
        self.add_pod(pod)

    def remove_pod(self, pod: Obj) -> None:
        """A bound pod was deleted or finished."""
        key = pod_key(pod)
        self._assumed.discard(key)
        self._unplace(key)

    def pod_count(self) -> int:
        """Pods accounted on nodes (assumed ones included)."""
        return len(self._pods)

    def _place(self, info: PodInfo) -> None:
        node_name = info.node_name
        old = self._pods.get(info.key)
        if old is not None and old.node_name != node_name:
            self._unplace(info.key)
        ni = self._nodes.get(node_name)
        if ni is None:
            ni = self._nodes[node_name] = self._new_info(node_name)  # pod before its node
        ni.add_pod(info)
        self._pods[info.key] = info

    def _unplace(self, key: str) -> None:
        info = self._pods.pop(key, None)
        if info is None:
            return
        ni = self._nodes.get(info.node_name)
        if ni is None:
            return
        ni.remove_pod(key)
        if ni.node is None and not ni.pods:
            self._drop(info.node_name)

    def _new_info(self, name: str) -> NodeInfo:
        ni = NodeInfo(name)
        ni.index = self.index
        return ni

    def _drop(self, name: str) -> None:
        del self._nodes[name]
        self.index.affinity.pop(name, None)
        self.index.anti_affinity.pop(name, None)


_: type[SharedLister] = SchedulerCache
