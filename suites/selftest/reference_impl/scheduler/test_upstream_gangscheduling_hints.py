"""Upstream's GangScheduling queueing-hint tables, row by row.

Ported from plugins/gangscheduling/gangscheduling_test.go:
``Test_isSchedulableAfterPodAdded``,
``Test_isSchedulableAfterPodGroupAdded``, ``Test_isSchedulableAfterPodGroupUpdated`` and
``Test_isSchedulableAfterCompositePodGroupAdded``. Upstream's tests answer hierarchy
lookups from a mock manager (``mockPodGroupManager``: groups by name, a group it does not
hold is its own root) holding the row's groups plus the event's new object; so do these
(``_MockManager``, set as the plugin's ``pod_group_manager`` as upstream's test does). Upstream's objects have an empty
namespace where a row names none; the reference reads a missing namespace as "default".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from reference_impl.api import make_pod
from reference_impl.scheduler.cache_podgroups import PodGroupCache
from reference_impl.scheduler.framework.interface import QueueingHint
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.workload_forest import (
    COMPOSITE_POD_GROUP_KEY_TYPE,
    POD_GROUP_KEY_TYPE,
    EntityKey,
    composite_pod_group_key,
)
from reference_impl.scheduler.plugins.gang_scheduling import GangScheduling

Obj = dict[str, Any]
Q, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


def _pod(name: str = "", pg: str | None = None, ns: str | None = None,
         node: str | None = None) -> Obj:
    pod = make_pod(name or "unnamed").build()
    if ns is not None:
        pod["metadata"]["namespace"] = ns
    if pg is not None:
        pod["spec"]["schedulingGroup"] = {"podGroupName": pg}
    if node is not None:
        pod["spec"]["nodeName"] = node
    return pod


def _pg(name: str, parent: str | None = None, ns: str | None = None,
        min_count: int | None = None, kind: str = "PodGroup") -> Obj:
    spec: Obj = {"schedulingPolicy": {"gang": {"minCount": min_count}} if min_count is not None
                 else {"basic": {}}}
    if parent is not None:
        spec["parentCompositePodGroupName"] = parent
    meta: Obj = {"name": name, "namespace": ns or "default"}
    return {"kind": kind, "metadata": meta, "spec": spec}


def _cpg(name: str, parent: str | None = None, ns: str | None = None) -> Obj:
    out = _pg(name, parent, ns, kind="CompositePodGroup")
    del out["spec"]["schedulingPolicy"]
    return out


class _Informer:
    def __init__(self, objs: list[Obj]) -> None:
        self._objs = {f"{o['metadata']['namespace']}/{o['metadata']['name']}": o for o in objs}

    def get(self, key: str) -> Obj | None:
        return self._objs.get(key)

    def items(self) -> list[Obj]:
        return []

    def add_handler(self, handler: object) -> None:
        pass


class _Informers:
    def __init__(self, objs: list[Obj]) -> None:
        self._by_kind = {
            kind: _Informer([o for o in objs if o["kind"] == kind])
            for kind in ("PodGroup", "CompositePodGroup", "Pod")
        }

    def informer(self, api_version: str, kind: str) -> _Informer:
        return self._by_kind[kind]


@dataclass
class _Ctx:
    informers: _Informers


@dataclass
class _Handle:
    ctx: _Ctx

    def snapshot_shared_lister(self) -> None:
        return None


class _MockManager(PodGroupCache):
    """``mockPodGroupManager.GetRootKeyForGroup``."""

    def __init__(self, objs: list[Obj], cpg: bool) -> None:
        super().__init__(True, cpg)
        self._by_kind = {(o["kind"], o["metadata"]["name"]): o for o in objs}

    def get_root_key_for_group(self, key: EntityKey) -> tuple[EntityKey | None, bool]:
        current = key
        while True:
            if current.type == POD_GROUP_KEY_TYPE:
                obj = self._by_kind.get(("PodGroup", current.name))
            elif current.type == COMPOSITE_POD_GROUP_KEY_TYPE:
                obj = self._by_kind.get(("CompositePodGroup", current.name))
            else:
                return current, True
            parent = ((obj or {}).get("spec") or {}).get("parentCompositePodGroupName")
            if obj is None or not parent or not self.composite_pod_group_enabled:
                return current, True
            current = composite_pod_group_key(current.namespace, parent)


def _plugin(objs: list[Obj], cpg: bool) -> GangScheduling:
    features = SchedulerFeatures(enable_generic_workload=True,
                                 enable_topology_aware_workload_scheduling=True,
                                 enable_composite_pod_group=cpg)
    plugin = GangScheduling(_Handle(_Ctx(_Informers(objs))), features)  # type: ignore[arg-type]
    plugin.pod_group_manager = _MockManager(objs, cpg)
    return plugin


def _both(name: str, *rest: Any, on: QueueingHint, off: QueueingHint) -> list[Any]:
    """A row run with CompositePodGroup on, then off (upstream's "(CPG=false)" twin)."""
    return [pytest.param(*rest, True, on, id=name),
            pytest.param(*rest, False, off, id=f"{name} (CPG=false)")]


_ROOT_PGS = [_pg("pg1", "cpg-root"), _pg("pg2", "cpg-root"), _cpg("cpg-root")]
_TWO_ROOTS = [_pg("pg1", "cpg-root1"), _pg("pg2", "cpg-root2"), _cpg("cpg-root1"),
              _cpg("cpg-root2")]
_POD_ADDED = [
    *_both("add a newPod which matches the pod's scheduling group", _pod("p", "pg"),
           _pod(pg="pg"), [], on=Q, off=Q),
    *_both("add a newPod with NodeName set which matches the pod's scheduling group",
           _pod("p", "pg"), _pod(pg="pg", node="node1"), [], on=Q, off=Q),
    *_both("add a newPod which doesn't match the pod's namespace", _pod("p", "pg"),
           _pod(pg="pg", ns="foo"), [_pg("pg"), _pg("pg", ns="foo")], on=SKIP, off=SKIP),
    *_both("add a newPod which doesn't match the pod's pod group name", _pod("p", "pg1"),
           _pod(pg="pg2"), [_pg("pg1"), _pg("pg2")], on=SKIP, off=SKIP),
    *_both("add a newPod which belongs to a different scheduling group but matches the root CPG",
           _pod("p1", "pg1"), _pod("p2", "pg2"), _ROOT_PGS, on=Q, off=SKIP),
    *_both("add a newPod which belongs to a different scheduling group and does not match the "
           "root CPG", _pod("p1", "pg1"), _pod("p2", "pg2"), _TWO_ROOTS, on=SKIP, off=SKIP),
]


@pytest.mark.parametrize(("pod", "new", "objs", "cpg", "want"), _POD_ADDED)
def test_is_schedulable_after_pod_added(
    pod: Obj, new: Obj, objs: list[Obj], cpg: bool, want: QueueingHint
) -> None:
    assert _plugin(objs, cpg).after_pod_added(pod, None, new) is want


_PG_ADDED = [
    *_both("add a pod group which matches the pod's pod group name", _pod("p", "pg"),
           _pg("pg", min_count=1), [], on=Q, off=Q),
    *_both("add a pod group which doesn't match the pod's scheduling group name",
           _pod("p", "pg1"), _pg("pg2", min_count=1), [_pg("pg1")], on=SKIP, off=SKIP),
    *_both("add a pod group which doesn't match the pod's scheduling group namespace",
           _pod("p", "pg", ns="ns1"), _pg("pg", ns="ns2", min_count=1), [_pg("pg", ns="ns1")],
           on=SKIP, off=SKIP),
    *_both("add a pod group which doesn't match the pod's scheduling group but matches the root "
           "CPG", _pod("p", "pg1"), _pg("pg2", "cpg-root", min_count=1),
           [_pg("pg1", "cpg-root"), _cpg("cpg-root")], on=Q, off=SKIP),
    *_both("add a pod group which doesn't match the pod's scheduling group and doesn't match the "
           "root CPG", _pod("p", "pg1"), _pg("pg2", "cpg-root2", min_count=1),
           [_pg("pg1", "cpg-root1"), _cpg("cpg-root1"), _cpg("cpg-root2")], on=SKIP, off=SKIP),
]


@pytest.mark.parametrize(("pod", "new", "objs", "cpg", "want"), _PG_ADDED)
def test_is_schedulable_after_pod_group_added(
    pod: Obj, new: Obj, objs: list[Obj], cpg: bool, want: QueueingHint
) -> None:
    # The mock manager upstream holds the added group as well.
    assert _plugin([*objs, new], cpg).after_pod_group_added(pod, None, new) is want


_P = _pod("p", "pg", ns="ns1")
_PG_UPDATED = [
    *_both("minCount decreased matches target pod", _P, _pg("pg", ns="ns1", min_count=4),
           _pg("pg", ns="ns1", min_count=3), on=Q, off=Q),
    *_both("update Basic policy", _P, _pg("pg", ns="ns1"), _pg("pg", ns="ns1"), on=SKIP,
           off=SKIP),
    *_both("minCount increased matches target pod", _P, _pg("pg", ns="ns1", min_count=3),
           _pg("pg", ns="ns1", min_count=4), on=SKIP, off=SKIP),
    *_both("minCount unchanged matches target pod", _P, _pg("pg", ns="ns1", min_count=3),
           _pg("pg", ns="ns1", min_count=3), on=SKIP, off=SKIP),
    *_both("minCount decreased but pod group name doesn't match target pod",
           _pod("p", "pg-other", ns="ns1"), _pg("pg", ns="ns1", min_count=4),
           _pg("pg", ns="ns1", min_count=3), on=SKIP, off=SKIP),
    *_both("minCount decreased but pod group namespace doesn't match target pod",
           _pod("p", "pg", ns="ns-other"), _pg("pg", ns="ns1", min_count=4),
           _pg("pg", ns="ns1", min_count=3), on=SKIP, off=SKIP),
    *_both("pod without a scheduling group is skipped", _pod("p", ns="ns1"),
           _pg("pg", ns="ns1", min_count=4), _pg("pg", ns="ns1", min_count=3), on=SKIP,
           off=SKIP),
]


@pytest.mark.parametrize(("pod", "old", "new", "cpg", "want"), _PG_UPDATED)
def test_is_schedulable_after_pod_group_updated(
    pod: Obj, old: Obj, new: Obj, cpg: bool, want: QueueingHint
) -> None:
    assert _plugin([new], cpg).after_pod_group_updated(pod, old, new) is want


_PD = _pod("p", "pg")
_CPG_ADDED = [
    pytest.param(_PD, _cpg("cpg-root"), [_pg("pg", "cpg-root")], True, Q,
                 id="add a CPG which matches the pod's root CPG"),
    pytest.param(_PD, _cpg("cpg-root"), [_pg("pg", "cpg-root")], False, SKIP,
                 id="add a CPG which matches the pod's root CPG (CPG=false)"),
    pytest.param(_PD, _cpg("cpg-root"), [_pg("pg", "cpg-root")], False, SKIP,
                 id="add a CPG which matches the pod's root CPG (second, CPG off)"),
    pytest.param(_PD, _cpg("cpg-sub", "cpg-root"), [_pg("pg", "cpg-sub"), _cpg("cpg-root")],
                 True, Q, id="add a CPG which matches the pod's intermediate CPG but implies the "
                             "same root"),
    pytest.param(_PD, _cpg("cpg-sub", "cpg-root"), [_pg("pg", "cpg-sub"), _cpg("cpg-root")],
                 False, SKIP, id="add a CPG which matches the pod's intermediate CPG but implies "
                                 "the same root (CPG=false)"),
    pytest.param(_PD, _cpg("cpg-sub", "cpg-root"), [_pg("pg", "cpg-sub"), _cpg("cpg-root")],
                 False, SKIP, id="add a CPG which matches the pod's intermediate CPG but implies "
                                 "the same root (second, CPG off)"),
    pytest.param(_PD, _cpg("cpg-2"), [_pg("pg", "cpg-1"), _cpg("cpg-1")], True, SKIP,
                 id="add a CPG which does not match the pod's CPG hierarchy"),
    pytest.param(_PD, _cpg("cpg-2"), [_pg("pg", "cpg-1"), _cpg("cpg-1")], False, SKIP,
                 id="add a CPG which does not match the pod's CPG hierarchy (CPG=false)"),
    pytest.param(_PD, _cpg("cpg-2"), [_pg("pg", "cpg-1"), _cpg("cpg-1")], False, SKIP,
                 id="add a CPG which does not match the pod's CPG hierarchy (second, CPG off)"),
]


@pytest.mark.parametrize(("pod", "new", "objs", "cpg", "want"), _CPG_ADDED)
def test_is_schedulable_after_composite_pod_group_added(
    pod: Obj, new: Obj, objs: list[Obj], cpg: bool, want: QueueingHint
) -> None:
    plugin = _plugin([*objs, new], cpg)
    assert plugin.after_composite_pod_group_added(pod, None, new) is want
    # The reference delivers a CompositePodGroup added as a PodGroup update without old.
    assert plugin.after_pod_group_updated(pod, None, new) is want
