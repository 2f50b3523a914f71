"""Upstream's (Composite)PodGroup handler tables against reference_impl/scheduler/eventhandlers.py.

Ported (pkg/scheduler/eventhandlers_test.go): ``TestAddPodGroup``, ``TestUpdatePodGroup``,
``TestDeletePodGroup``, ``TestAddCompositePodGroup``, ``TestUpdateCompositePodGroup`` and
``TestDeleteCompositePodGroup``, against a real SchedulingQueue and SchedulerCache. The
reference has no CompositePodGroup event resource: a CompositePodGroup add or update reaches
the queue as a PodGroup update and a delete as a PodGroup delete, so the "triggers queueing
hint" rows register the fake hint on those and check its arguments. Informers deliver
dicts, so the "invalid type" rows cannot arise; tombstones do not occur in the simulator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import pytest

from reference_impl.api import make_composite_pod_group, make_pod, make_pod_group
from reference_impl.apiserver.watch import ObjectEvent
from reference_impl.scheduler.cache import SchedulerCache
from reference_impl.scheduler.eventhandlers import EventHandlers
from reference_impl.scheduler.framework.interface import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from suites.selftest.reference_impl.scheduler.test_upstream_eventhandlers import _handlers, _Sched

if TYPE_CHECKING:
    from reference_impl.api.resources import ResourceInfo
    from reference_impl.api.watch import WatchEventType

Obj = dict[str, Any]
_NO_TYPES = pytest.mark.skip(reason="informers deliver dicts: no object of another type")
_TOMBSTONE = pytest.mark.skip(reason="no DeletedFinalStateUnknown tombstones in the simulator")


def _ev(kind: str, obj: Obj, old: Obj | None = None) -> ObjectEvent:
    return ObjectEvent(cast("WatchEventType", kind), cast("ResourceInfo", None), obj, old)


def _rv(obj: Obj, rv: str) -> Obj:
    return {**obj, "metadata": {**obj["metadata"], "resourceVersion": rv}}


def _pg(min_count: int | None = None) -> Obj:
    return make_pod_group("pg1", "ns1", min_count=min_count)


def _cpg(min_group_count: int | None = None) -> Obj:
    return make_composite_pod_group("cpg1", "ns1", min_group_count=min_group_count)


def _sched(gw: bool, cpg: bool, event: ClusterEvent | None = None
           ) -> tuple[EventHandlers, _Sched, list[tuple[Obj | None, Obj | None]]]:
    """Handlers over a queue whose fake plugin hints on ``event`` (recording its old and
    new objects) and rejected pod p; the cache with the gates given."""
    calls: list[tuple[Obj | None, Obj | None]] = []

    def hint(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        calls.append((old, new))
        return QueueingHint.QUEUE_SKIP

    events = {"fake-plugin": [ClusterEventWithHint(event, hint)]} if event is not None else {}
    h, s = _handlers(events)
    s.cache = SchedulerCache(generic_workload=gw, composite_pod_group=cpg)
    if event is not None:
        pod = make_pod("p", "ns1").build()
        pod["metadata"]["uid"] = "pns"
        s.queue.add(pod)
        pinfo = s.queue.pop()
        assert pinfo is not None
        pinfo.unschedulable_plugins = {"fake-plugin"}
        s.queue.add_unschedulable_if_not_present(pinfo, error=False)
    return h, s, calls


# -- PodGroup -------------------------------------------------------------------------------

def test_add_pod_group() -> None:
    """add valid pod group"""
    h, s, _ = _sched(True, False)
    h.on_pod_group(_ev("ADDED", _pg()))
    assert s.cache.pod_groups_get("ns1", "pg1") == (_pg(), "")


OLD_PG, NEW_PG = _rv(_pg(1), "1"), _rv(_pg(2), "2")


@pytest.mark.parametrize(("old", "new", "want"), [
    pytest.param(OLD_PG, NEW_PG, NEW_PG, id="update valid pod group"),
    pytest.param(OLD_PG, OLD_PG, OLD_PG,
                 id="update pod group with same resource version should be no-op"),
])
def test_update_pod_group(old: Obj, new: Obj, want: Obj) -> None:
    h, s, _ = _sched(True, False)
    s.cache.add_pod_group(old)
    h.on_pod_group(_ev("MODIFIED", new, old))
    assert s.cache.pod_groups_get("ns1", "pg1") == (want, "")


@pytest.mark.parametrize("tombstone", [
    pytest.param(False, id="delete pod group"),
    pytest.param(True, id="delete DeletedFinalStateUnknown tombstone with pod group",
                 marks=_TOMBSTONE),
])
def test_delete_pod_group(tombstone: bool) -> None:
    h, s, _ = _sched(True, False)
    s.cache.add_pod_group(_pg())
    h.on_pod_group(_ev("DELETED", _pg()))
    got, err = s.cache.pod_groups_get("ns1", "pg1")
    assert got is None and err


# -- CompositePodGroup ----------------------------------------------------------------------

CPG = _cpg()
AS_UPDATE = ClusterEvent(EventResource.POD_GROUP, ActionType.UPDATE)
AS_DELETE = ClusterEvent(EventResource.POD_GROUP, ActionType.DELETE)


@pytest.mark.parametrize(("cpg_on", "in_cache", "hint"), [
    pytest.param(True, True, False, id="add valid composite pod group with feature enabled"),
    pytest.param(False, False, False, id="add valid composite pod group with feature disabled"),
    pytest.param(True, False, False, id="add invalid composite pod group type with feature enabled",
                 marks=_NO_TYPES),
    pytest.param(True, True, True,
                 id="add valid composite pod group triggers queueing hint with correct arguments"),
])
def test_add_composite_pod_group(cpg_on: bool, in_cache: bool, hint: bool) -> None:
    h, s, calls = _sched(True, cpg_on, AS_UPDATE if hint else None)
    h.on_composite_pod_group(_ev("ADDED", CPG))
    got, err = s.cache.composite_pod_groups_get("ns1", "cpg1")
    assert (got == CPG and not err) if in_cache else (got is None and err)
    if hint:
        assert calls == [(None, CPG)]


OLD_CPG, NEW_CPG = _rv(_cpg(1), "1"), _rv(_cpg(2), "2")


@pytest.mark.parametrize(("old", "new", "want", "cpg_on", "hint"), [
    pytest.param(OLD_CPG, NEW_CPG, NEW_CPG, True, False,
                 id="update valid composite pod group with feature enabled"),
    pytest.param(OLD_CPG, OLD_CPG, OLD_CPG, True, False,
                 id="update composite pod group with same resource version should be no-op"),
    pytest.param(OLD_CPG, NEW_CPG, None, False, False,
                 id="update composite pod group with feature disabled"),
    pytest.param(OLD_CPG, NEW_CPG, OLD_CPG, True, False,
                 id="update invalid old composite pod group type with feature enabled",
                 marks=_NO_TYPES),
    pytest.param(OLD_CPG, NEW_CPG, OLD_CPG, True, False,
                 id="update invalid new composite pod group type with feature enabled",
                 marks=_NO_TYPES),
    pytest.param(OLD_CPG, NEW_CPG, NEW_CPG, True, True,
                 id="update valid composite pod group triggers queueing hint with correct "
                    "arguments"),
])
def test_update_composite_pod_group(old: Obj, new: Obj, want: Obj | None, cpg_on: bool,
                                    hint: bool) -> None:
    h, s, calls = _sched(True, cpg_on, AS_UPDATE if hint else None)
    s.cache.add_composite_pod_group(old)  # a no-op with the gate off
    h.on_composite_pod_group(_ev("MODIFIED", new, old))
    got, err = s.cache.composite_pod_groups_get("ns1", "cpg1")
    assert got == want
    assert bool(err) is (want is None)
    if hint:
        assert calls == [(old, new)]


@pytest.mark.parametrize(("cpg_on", "still_exists", "hint"), [
    pytest.param(True, False, True, id="delete composite pod group"),
    pytest.param(True, False, True,
                 id="delete DeletedFinalStateUnknown tombstone with composite pod group",
                 marks=_TOMBSTONE),
    pytest.param(False, False, False, id="delete composite pod group with feature disabled"),
    pytest.param(True, True, False, id="delete composite pod group with invalid type",
                 marks=_NO_TYPES),
])
def test_delete_composite_pod_group(cpg_on: bool, still_exists: bool, hint: bool) -> None:
    h, s, calls = _sched(True, cpg_on, AS_DELETE if hint else None)
    s.cache.add_composite_pod_group(CPG)
    h.on_composite_pod_group(_ev("DELETED", CPG))
    if hint:
        assert calls == [(CPG, None)]
    got, err = s.cache.composite_pod_groups_get("ns1", "cpg1")
    assert (got == CPG) if still_exists else (got is None and err)
