"""Models ``podGroupMemberPods`` of pkg/scheduler/backend/queue: pods held by PodGroup.

The scheduling queue's ``incompletePodGroupPods`` is one: member pods whose root
(Composite)PodGroup has not been observed wait here, in no sub-queue, until the root is
complete. Pods are kept per PodGroup (namespace, name), in arrival order per group.
"""

from __future__ import annotations

from typing import Any

from reference_impl.scheduler.framework.types import PodInfo, QueuedPodInfo
from reference_impl.scheduler.framework.workload_forest import (
    EntityKey,
    pod_group_key,
    pod_group_key_for_pod,
)

__all__ = ["PodGroupMemberPods"]

Obj = dict[str, Any]


def _member_group(pod: Obj) -> EntityKey:
    """The member's PodGroup key (an unnamed group holds the pods that name none)."""
    return pod_group_key_for_pod(pod) or pod_group_key(str(pod["metadata"].get("namespace", "default")), "")


class PodGroupMemberPods:
    """``podGroupMemberPods``: pod key -> QueuedPodInfo, grouped by the pod's PodGroup."""

    def __init__(self) -> None:
        self._by_group: dict[EntityKey, dict[str, QueuedPodInfo]] = {}
        self._group_of: dict[str, EntityKey] = {}

    def __len__(self) -> int:
        return len(self._group_of)

    def __contains__(self, key: object) -> bool:
        return key in self._group_of

    def add(self, pinfo: QueuedPodInfo) -> None:
        """``add``: hold ``pinfo`` under its PodGroup (replacing an earlier copy)."""
        self.delete(pinfo.key)
        group = _member_group(pinfo.pod)
        self._by_group.setdefault(group, {})[pinfo.key] = pinfo
        self._group_of[pinfo.key] = group

    def get(self, key: str) -> QueuedPodInfo | None:
        """``get``: the held pod with ``key``, or None."""
        group = self._group_of.get(key)
        return None if group is None else self._by_group[group][key]

    def pods_of(self, group: EntityKey) -> dict[str, QueuedPodInfo]:
        """The pods held under ``group`` (``podGroupToPodInfos[group]``; {} if none)."""
        return dict(self._by_group.get(group, {}))

    def update(self, pod: Obj) -> QueuedPodInfo | None:
        """``update``: carry the new pod object in its held entry; the entry, or None."""
        pinfo = self.get(f"{pod['metadata'].get('namespace', 'default')}/{pod['metadata']['name']}")
        if pinfo is None:
            return None
        pinfo.info = PodInfo(pod)
        return pinfo

    def delete(self, key: str) -> QueuedPodInfo | None:
        """``delete``: stop holding ``key``; the pod, or None if it was not held."""
        group = self._group_of.pop(key, None)
        if group is None:
            return None
        pods = self._by_group[group]
        pinfo = pods.pop(key)
        if not pods:
            del self._by_group[group]
        return pinfo

    def clear(self, group: EntityKey) -> list[QueuedPodInfo]:
        """``clear``: release every pod of the PodGroup, in arrival order."""
        pods = self._by_group.pop(group, {})
        for key in pods:
            del self._group_of[key]
        return list(pods.values())

    def infos(self) -> list[QueuedPodInfo]:
        """The held pods (by PodGroup, then arrival)."""
        groups = sorted(self._by_group, key=lambda k: (k.namespace, k.name))
        return [p for group in groups for p in self._by_group[group].values()]

    def list(self) -> list[Obj]:
        """``list``: the held pods' objects (by PodGroup, then arrival)."""
        groups = sorted(self._by_group, key=lambda k: (k.namespace, k.name))
        return [p.pod for group in groups for p in self._by_group[group].values()]
