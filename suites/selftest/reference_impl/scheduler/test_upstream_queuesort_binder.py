"""Upstream's queuesort and defaultbinder tables against the reference plugins.

Ported: ``TestLess`` (pkg/scheduler/framework/plugins/queuesort/priority_sort_test.go) and
``TestDefaultBinder`` (plugins/defaultbinder/default_binder_test.go; the async-API variant
has no counterpart, the reference binds synchronously, so each row runs once).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from reference_impl.api import make_pod
from reference_impl.clock import Instant
from reference_impl.errors import ApiError
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import Code
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.types import PodInfo, QueuedPodInfo
from reference_impl.scheduler.plugins import default_binder, queue_sort

Obj = dict[str, Any]
LOW, HIGH = 10, 100
T0, T1, T2 = Instant(0), Instant(1_000), Instant(2_000)


def _qpi(priority: int, ts: Instant = T0) -> QueuedPodInfo:
    pod = make_pod("p").build()
    pod["spec"]["priority"] = priority
    return QueuedPodInfo(PodInfo(pod), ts)


@pytest.mark.parametrize(
    ("p1", "p2", "want"),
    [
        pytest.param(_qpi(LOW), _qpi(HIGH), False, id="p1.priority less than p2.priority"),
        pytest.param(_qpi(HIGH), _qpi(LOW), True, id="p1.priority greater than p2.priority"),
        pytest.param(_qpi(HIGH, T1), _qpi(HIGH, T2), True,
                     id="equal priority. p1 is added to schedulingQ earlier than p2"),
        pytest.param(_qpi(HIGH, T2), _qpi(HIGH, T1), False,
                     id="equal priority. p2 is added to schedulingQ earlier than p1"),
    ],
)
def test_less(p1: QueuedPodInfo, p2: QueuedPodInfo, want: bool) -> None:
    plugin = queue_sort.new(None, None, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(plugin, queue_sort.PrioritySort)
    assert plugin.less(p1, p2) is want


@dataclass
class _Server:
    """Stands in for the fake clientset with its "create pods/binding" reactor."""

    inject: ApiError | None = None
    bindings: list[tuple[str, str, str]] = field(default_factory=list)

    def bind(self, namespace: str, name: str, node_name: str) -> Obj:
        if self.inject is not None:
            raise self.inject
        self.bindings.append((namespace, name, node_name))
        return {"kind": "Status", "status": "Success"}


@dataclass
class _Ctx:
    server: _Server


@dataclass
class _Handle:
    ctx: _Ctx


NODE = "foohost.kubernetes.mydomain.com"


@pytest.mark.parametrize(
    ("inject", "want_binding"),
    [
        pytest.param(None, [("ns", "foo", NODE)], id="successful"),
        pytest.param(ApiError("binding error"), [], id="binding error"),
    ],
)
def test_default_binder(inject: ApiError | None, want_binding: list[tuple[str, str, str]]) -> None:
    server = _Server(inject)
    plugin = default_binder.new(None, _Handle(_Ctx(server)), SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(plugin, default_binder.DefaultBinder)
    pod = make_pod("foo").build()
    pod["metadata"]["namespace"] = "ns"
    status = plugin.bind(CycleState(), pod, NODE)
    if inject is None:
        assert status.is_success()
    else:
        assert status.code is Code.ERROR and status.reasons == ("binding error",)
    assert server.bindings == want_binding
