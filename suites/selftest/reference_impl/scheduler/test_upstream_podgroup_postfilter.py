"""The PodGroupPostFilter extension point in the reference Framework.

Ported (pkg/scheduler/framework/runtime/framework_test.go): ``TestPodGroupPostFilterPlugins``
(which plugins the framework lists for the point) and ``TestRunPodGroupPostFilterPlugins``
(the runner's status handling and result), plus the two PodGroupPostFilter rows of
``TestRecordingMetrics`` (skipped: the reference records no metrics). Rows that enable a
plugin at one extension point only are skipped: a reference profile is multi-point only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import pytest
from upstream_core_fakes import cache_of

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import Code, Plugin, Status
from reference_impl.scheduler.framework.pod_group_post_filter import (
    GATE_DISABLED,
    PodGroupPostFilterInfo,
    PodGroupPostFilterResult,
    PodGroupScheduling,
)
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.runtime import Framework
from reference_impl.scheduler.plugins import default_binder, default_preemption, names, queue_sort
from reference_impl.scheduler.profile import PluginConfig, Profile

S, ERR, UN, UAU, SKIP = (Code.SUCCESS, Code.ERROR, Code.UNSCHEDULABLE,
                         Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.SKIP)
INJECT = "injected status"
PER_POINT = pytest.mark.skip(reason="per-extension-point sets: a reference profile is multi-point only")


@dataclass
class TestPlugin:
    """``TestPlugin``: PodGroupPostFilter answers its injected code and result."""

    __test__ = False
    plugin_name: str
    code: Code = S
    result: PodGroupPostFilterResult | None = None

    def name(self) -> str:
        return self.plugin_name

    def pod_group_post_filter(
        self, state: CycleState | None, info: PodGroupPostFilterInfo, schedule: PodGroupScheduling
    ) -> tuple[PodGroupPostFilterResult | None, Status]:
        return self.result, Status(self.code, (INJECT,))


def _framework(plugins: list[Plugin], *, generic_workload: bool = True) -> Framework:
    """PrioritySort, DefaultBinder and ``plugins``, each at every point it implements."""
    registry: dict[str, Any] = {queue_sort.NAME: queue_sort.new, names.DEFAULT_BINDER: default_binder.new}
    configs = [PluginConfig(queue_sort.NAME), PluginConfig(names.DEFAULT_BINDER)]
    for pl in plugins:
        registry[pl.name()] = (lambda p: lambda *_: p)(pl)
        configs.append(PluginConfig(pl.name()))
    features = SchedulerFeatures(enable_generic_workload=generic_workload)
    return Framework(Profile(plugins=tuple(configs)), registry, cast(Any, None), cache_of([]), features)


# -- TestPodGroupPostFilterPlugins ------------------------------------------------------


class _Preemption:
    """``mockDefaultPreemptionPlugin``: named DefaultPreemption, PodGroupPostFilter only."""

    def name(self) -> str:
        return names.DEFAULT_PREEMPTION

    def pod_group_post_filter(
        self, state: CycleState | None, info: PodGroupPostFilterInfo, schedule: PodGroupScheduling
    ) -> tuple[PodGroupPostFilterResult | None, Status]:
        return None, Status()


@pytest.mark.parametrize(
    "want",
    [
        pytest.param(1, id="should fill pod group post filter when explicitly configured with "
                           "default preemption"),
        pytest.param(0, id="should not fill pod group post filter when not configured", marks=PER_POINT),
        pytest.param(0, id="should fail framework initialization when configured plugin does not "
                           "implement PodGroupPostFilterPlugin interface", marks=PER_POINT),
    ],
)
def test_pod_group_post_filter_plugins(want: int) -> None:
    fw = _framework([_Preemption()])
    assert [p.name() for p in fw.pod_group_post_filter] == [names.DEFAULT_PREEMPTION] * want


def test_real_default_preemption_implements_the_point() -> None:
    """The real DefaultPreemption (and not the binder or queue sort) is listed."""
    registry: dict[str, Any] = {queue_sort.NAME: queue_sort.new, names.DEFAULT_BINDER: default_binder.new,
                                names.DEFAULT_PREEMPTION: default_preemption.new}
    configs = tuple(PluginConfig(n) for n in registry)
    fw = Framework(Profile(plugins=configs), registry, cast(Any, None), cache_of([]), SchedulerFeatures())
    assert [p.name() for p in fw.pod_group_post_filter] == [names.DEFAULT_PREEMPTION]


# -- TestRunPodGroupPostFilterPlugins ---------------------------------------------------

NODE1 = PodGroupPostFilterResult({"default/p1": "node1"})
NODE2 = PodGroupPostFilterResult({"default/p1": "node2"})


def _err(plugin: str) -> tuple[Code, str, str]:
    return ERR, f'error in "{plugin}" PodGroupPostFilter plugins: {INJECT}', plugin


@pytest.mark.parametrize(
    ("plugins", "gate", "want", "want_result"),
    [
        pytest.param([], True, (UN, "", ""), None, id="no registered plugins"),
        pytest.param([], False, (UN, GATE_DISABLED, ""), None, id="generic workload feature is disabled"),
        pytest.param([TestPlugin("plugin1", ERR)], True, _err("plugin1"), None,
                     id="first plugin returns error"),
        pytest.param([TestPlugin("plugin1", SKIP)], True, _err("plugin1"), None,
                     id="first plugin returns non supported status: Skip"),
        pytest.param([TestPlugin("plugin1", S, NODE1), TestPlugin("plugin2", UN)], True,
                     (S, INJECT, ""), NODE1, id="first plugin returns success"),
        pytest.param([TestPlugin("plugin1", UAU), TestPlugin("plugin2", S)], True,
                     (UAU, INJECT, "plugin1"), None, id="first plugin returns UnschedulableAndUnresolvable"),
        pytest.param([TestPlugin("plugin1", UN), TestPlugin("plugin2", S, NODE2)], True,
                     (S, INJECT, ""), NODE2, id="first plugin returns Unschedulable, second returns success"),
        pytest.param([TestPlugin("plugin1", UN), TestPlugin("plugin2", UN)], True,
                     (UN, f"{INJECT}, {INJECT}", "plugin1"), None,
                     id="all plugins return Unschedulable, aggregate reasons"),
    ],
)
def test_run_pod_group_post_filter_plugins(
    plugins: list[TestPlugin], gate: bool, want: tuple[Code, str, str],
    want_result: PodGroupPostFilterResult | None,
) -> None:
    fw = _framework(list(plugins), generic_workload=gate)
    info = PodGroupPostFilterInfo({"metadata": {"namespace": "default", "name": "pg1"}}, [])
    res, st = fw.run_pod_group_post_filter_plugins(CycleState(), info, PodGroupScheduling())
    assert (st.code, st.message(), st.plugin) == want
    assert res == want_result


# -- TestRecordingMetrics ---------------------------------------------------------------


@pytest.mark.parametrize("code", [
    pytest.param(S, id="PodGroupPostFilter - Success"),
    pytest.param(ERR, id="PodGroupPostFilter - Error"),
])
@pytest.mark.skip(reason="the reference records no framework extension-point metrics")
def test_recording_metrics(code: Code) -> None:
    raise AssertionError("not modelled")
