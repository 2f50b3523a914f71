"""Upstream's ``TestEventHandlers_DeferredResize`` (pkg/scheduler/eventhandlers_test.go)
against reference_impl/scheduler/eventhandlers.py: with InPlacePodVerticalScalingScheduler-
Preemption a bound pod is in the queue exactly while its resize is deferred, and in the
cache throughout."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from reference_impl.scheduler.framework.registry import SchedulerFeatures
from suites.selftest.reference_impl.scheduler.test_upstream_eventhandlers import (
    KEY,
    _bp,
    _ev,
    _handlers,
    _queued,
)

Obj = dict[str, Any]
DEFERRED = {"type": "PodResizePending", "status": "True", "reason": "Deferred"}


def _pod(deferred: bool = False, cpu: str = "", rv: str = "") -> Obj:
    pod = _bp(node="node1", rv=rv)
    if cpu:
        pod["spec"]["containers"][0].setdefault("resources", {})["requests"] = {"cpu": cpu}
    if deferred:
        pod["status"] = {"conditions": [dict(DEFERRED)]}
    return pod


@pytest.mark.parametrize(
    ("gate", "initial", "updated", "in_queue"),
    [
        pytest.param(True, _pod(deferred=True), None, True,
                     id="add: feature gate enabled, assigned pod with deferred resize"),
        pytest.param(False, _pod(deferred=True), None, False,
                     id="add: feature gate disabled, assigned pod with deferred resize"),
        pytest.param(True, _pod(), _pod(deferred=True, rv="2"), True,
                     id="update: feature gate enabled, assigned pod transitions to deferred resize"),
        pytest.param(True, _pod(deferred=True), _pod(rv="2"), False,
                     id="update: feature gate enabled, assigned pod transitions out of deferred "
                        "resize"),
        pytest.param(True, _pod(deferred=True), _pod(deferred=True, cpu="2", rv="2"), True,
                     id="update: feature gate enabled, assigned pod requests change while "
                        "remaining deferred"),
        pytest.param(False, _pod(), _pod(deferred=True, rv="2"), False,
                     id="update: feature gate disabled, assigned pod transitions to deferred "
                        "resize"),
        pytest.param(False, _pod(deferred=True), _pod(deferred=True, cpu="2", rv="2"), False,
                     id="update: feature gate disabled, assigned pod requests change while "
                        "remaining deferred"),
    ],
)
def test_event_handlers_deferred_resize(gate: bool, initial: Obj, updated: Obj | None,
                                        in_queue: bool) -> None:
    h, s = _handlers({})
    s.features = dataclasses.replace(
        SchedulerFeatures(), enable_in_place_pod_vertical_scaling_scheduler_preemption=gate)
    h.on_pod(_ev("ADDED", initial))
    target = initial
    if updated is not None:
        h.on_pod(_ev("MODIFIED", updated, initial))
        target = updated
    queued = _queued(s)
    assert (queued is not None) is in_queue
    if queued is not None:
        assert queued is target or queued == target  # the latest version is queued
    assert s.cache.get_pod(KEY) == target  # Cache.GetPod
