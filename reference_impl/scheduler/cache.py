"""Models pkg/scheduler/backend/cache/cache.go and snapshot.go.

The cache keeps one NodeInfo per node, fed by the Node and Pod informers, plus the pods
the scheduler has *assumed* onto a node at Reserve but whose binding has not yet come back
through the informer. NodeInfos are updated incrementally (add or remove one pod's
requests), never rebuilt.

Deliberate deviation: upstream copies changed NodeInfos into a snapshot at the start of
each cycle because binding runs concurrently. Here a cycle runs to completion inside one
clock event, so the snapshot *is* the cache's NodeInfos and costs nothing to take. Its node
list follows the node tree (zone-interleaved, node_tree.py) and, as upstream's
``updateNodeInfoSnapshotList``, is rebuilt only when a node is added or removed.
Pod-group states (``cache_podgroups.py``) follow each pod operation as upstream's do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reference_impl.scheduler.cache_podgroups import PodGroupCache
from reference_impl.scheduler.framework.node_memo import NodeList
from reference_impl.scheduler.framework.registry import SharedLister
from reference_impl.scheduler.framework.types import NodeIndex, NodeInfo, PodInfo, pod_key
from reference_impl.scheduler.node_tree import NodeTree

__all__ = ["SchedulerCache"]

Obj = dict[str, Any]


class SchedulerCache(PodGroupCache):
    """NodeInfos by name with assumed pods; ``node_infos()`` is the snapshot's node list."""

    def __init__(
        self, node_allocatable: bool = False, generic_workload: bool = False,
        composite_pod_group: bool = False,
    ) -> None:
        super().__init__(generic_workload, composite_pod_group)
        # DRANodeAllocatableResources: a pod's recorded node-allocatable claim amounts
        # count in its node's requested resources (``CalculateResource``).
        self.node_allocatable = node_allocatable
        self._nodes: dict[str, NodeInfo] = {}
        self.tree = NodeTree()  # the nodes whose Node object exists
        self._ordered: NodeList | None = None
        self._pods: dict[str, PodInfo] = {}  # key -> the version accounted on its node
        self._assumed: set[str] = set()
        self.index = NodeIndex()  # nodes with affinity pods, image existence

    # -- SharedLister -----------------------------------------------------------------

    def node_infos(self) -> Sequence[NodeInfo]:
        """Nodes (with a Node object) in the node tree's order as of the last node add or
        remove (``updateNodeInfoSnapshotList``: a zone change alone keeps the old order)."""
        if self._ordered is None:
            names, _ = self.tree.list()
            self._ordered = NodeList((self._nodes[n] for n in names), self.index)
        return self._ordered

    def get(self, node_name: str) -> NodeInfo | None:
        """The NodeInfo of an existing node, or None."""
        ni = self._nodes.get(node_name)
        return ni if ni is not None and ni.node is not None else None

    def num_nodes(self) -> int:
        """How many nodes the snapshot has."""
        return self.tree.num_nodes

    # -- nodes --------------------------------------------------------------------------

    def add_node(self, node: Obj) -> None:
        """``AddNode``: a node was added (its tree entry goes last in its zone)."""
        ni = self._node_info(node)
        if ni.node is None:
            self._ordered = None
        self.tree.add_node(node)
        ni.set_node(node)

    def update_node(self, node: Obj) -> None:
        """``UpdateNode``: a node changed; a changed zone moves it in the tree."""
        ni = self._node_info(node)
        if ni.node is None:
            self._ordered = None
            self.tree.add_node(node)
        else:
            self.tree.update_node(ni.node, node)
        ni.set_node(node)

    def _node_info(self, node: Obj) -> NodeInfo:
        name = node["metadata"]["name"]
        ni = self._nodes.get(name)
        if ni is None:
            ni = self._nodes[name] = self._new_info(name)
        return ni

    def remove_node(self, node: Obj) -> str:
        """A node was deleted; its pods stay accounted until their own deletes arrive.
        ``RemoveNode``'s errors: an unknown node, or a ghost (its node tree entry is gone)."""
        name = node["metadata"]["name"]
        ni = self._nodes.get(name)
        if ni is None:
            return f"node {name} is not found"
        if ni.node is None:  # a ghost: its tree entry is gone
            return self.tree.remove_node(node)
        self.tree.remove_node(ni.node)  # the entry as last added or updated
        self._ordered = None
        self.index.tainted.discard(name)
        self.index.cordoned.discard(name)
        ni.set_images({})
        if ni.pods:
            ni.node = None  # a ghost, as upstream keeps until the pods are gone
        else:
            self._drop(name)
        return ""

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
        return f"pod {self._uid(self._pods[key])}({key}) is in the cache, so can't be assumed"

    def get_pod(self, key: str) -> Obj | None:
        """``GetPod``: the accounted manifest (assumed or bound), or None."""
        info = self._pods.get(key)
        return info.pod if info is not None else None

    def assume_pod(self, info: PodInfo, node_name: str) -> str:
        """Account for a pod on ``node_name`` before its binding is confirmed; the error of
        ``AssumePod`` (and no change) when the cache already holds the pod."""
        why = self.unassumable(info.key)
        if why:
            return why
        assumed = info.on_node(node_name)
        self._place(assumed)
        self._assumed.add(info.key)
        self.assume_pod_group_member(assumed.pod)
        return ""

    def forget_pod(self, key: str, node_name: str | None = None) -> str:
        """Drop an assumed pod (its binding failed). ``ForgetPod`` (``validateAssumedPod``):
        a pod gone from the cache is no error; one bound, or accounted on another node than
        ``node_name``, is refused. Its pod group sees it unscheduled again."""
        return self._drop_assumed(key, node_name, remove=False)

    def remove_assumed_pod(self, key: str, node_name: str | None = None) -> str:
        """``RemoveAssumedPod``: as ``forget_pod`` for a pod deleted from the cluster,
        which also leaves its pod group's state."""
        return self._drop_assumed(key, node_name, remove=True)

    def _drop_assumed(self, key: str, node_name: str | None, *, remove: bool) -> str:
        info = self._pods.get(key)
        if info is None:
            return ""
        if node_name is not None and info.node_name != node_name:
            return (f"pod {self._uid(info)}({key}) was assumed on {node_name} "
                    f"but assigned to {info.node_name}")
        if key not in self._assumed:
            return f"pod {self._uid(info)}({key}) is not assumed, so it cannot be removed or forgotten"
        self._assumed.discard(key)
        self._unplace(key)
        if remove:
            self.remove_pod_group_member(info.pod)
        else:
            self.forget_pod_group_member(info.pod)
        return ""

    def add_pod(self, pod: Obj) -> str:
        """``AddPod``: a bound pod arrived. It confirms an assumption (wherever it landed),
        or is accounted anew; a pod already added is refused (upstream's error string)."""
        key = pod_key(pod)
        node_name = pod["spec"]["nodeName"]
        old = self._pods.get(key)
        if old is not None and key in self._assumed:
            # ``updatePod``: the assumed copy leaves its group's state, the pod re-enters.
            self.remove_pod_group_member(old.pod)
            self.add_pod_group_member(pod)
        elif old is None:
            self.add_pod_group_member(pod)
        if key in self._assumed and old is not None and old.node_name == node_name:
            self._assumed.discard(key)
            if self._counts_claims(pod):  # PreBind recorded amounts the assumed copy lacks
                self._place(PodInfo(pod, True))
                return ""
            # The binding came back: same requests, so only the manifest is swapped.
            old.pod = pod
            return ""
        if old is not None and key not in self._assumed:
            return f"pod {self._uid(old)}({key}) was already in added state"
        self._assumed.discard(key)
        self._place(PodInfo(pod, self._counts_claims(pod)))
        return ""

    def update_pod(self, pod: Obj) -> str:
        """``UpdatePod``: a bound pod changed (labels, in-place resize). An unknown or
        still-assumed pod is refused, as upstream (an assumed pod is confirmed by Add)."""
        key = pod_key(pod)
        old = self._pods.get(key)
        uid = pod["metadata"].get("uid", "")
        if old is None:
            return f"pod {uid}({key}) is not added to scheduler cache, so cannot be updated"
        if key in self._assumed:
            return f"assumed pod {uid}({key}) should not be updated"
        self.remove_pod_group_member(old.pod)
        self.add_pod_group_member(pod)
        self._place(PodInfo(pod, self._counts_claims(pod)))
        return ""

    def _counts_claims(self, pod: Obj) -> bool:
        return self.node_allocatable and bool(
            (pod.get("status") or {}).get("nodeAllocatableResourceClaimStatuses"))

    def remove_pod(self, pod: Obj) -> str:
        """``RemovePod``: a bound pod was deleted or finished; it leaves the node it is
        accounted on."""
        key = pod_key(pod)
        if key not in self._pods:
            uid = pod["metadata"].get("uid", "")
            return f"pod {uid}({key}) is not found in scheduler cache, so cannot be removed from it"
        self._assumed.discard(key)
        self.remove_pod_group_member(self._pods[key].pod)
        self._unplace(key)
        return ""

    @staticmethod
    def _uid(info: PodInfo) -> str:
        uid: str = info.pod["metadata"].get("uid", "")
        return uid

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
