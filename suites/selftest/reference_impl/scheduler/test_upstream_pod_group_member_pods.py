"""Upstream's podGroupMemberPods tables against the reference PodGroupMemberPods.

Ported (pkg/scheduler/backend/queue/pod_group_member_pods_test.go):
``TestPodGroupMemberPods_Add``, ``_Get``, ``_Has``, ``_Update``, ``_Delete``, ``_Clear`` and
``_Len``. Upstream looks pods up by object; the reference by "namespace/name" key.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_pod
from reference_impl.clock import Instant
from reference_impl.scheduler.framework.pod_group_member_pods import PodGroupMemberPods
from reference_impl.scheduler.framework.types import PodInfo, QueuedPodInfo, pod_key
from reference_impl.scheduler.framework.workload_forest import pod_group_key

Obj = dict[str, Any]


def _pod(name: str, group: str, **labels: str) -> Obj:
    pod = make_pod(name, "ns1").build()
    pod["metadata"]["labels"] = dict(labels)
    pod["spec"]["schedulingGroup"] = {"podGroupName": group}
    return pod


POD1, POD2, POD3 = _pod("pod1", "pg1"), _pod("pod2", "pg1"), _pod("pod3", "pg2")
POD3_PG1 = _pod("pod3", "pg1")


def _held(*pods: Obj) -> tuple[PodGroupMemberPods, dict[str, QueuedPodInfo]]:
    ppm, infos = PodGroupMemberPods(), {}
    for pod in pods:
        infos[pod["metadata"]["name"]] = pinfo = QueuedPodInfo(PodInfo(pod), Instant(0))
        ppm.add(pinfo)
    return ppm, infos


@pytest.mark.parametrize(("pods", "want"), [
    pytest.param([POD1, POD2], {"pg1": ["pod1", "pod2"]}, id="pod group with multiple pods"),
    pytest.param([POD1, POD3], {"pg1": ["pod1"], "pg2": ["pod3"]}, id="two pod groups"),
])
def test_add(pods: list[Obj], want: dict[str, list[str]]) -> None:
    """``TestPodGroupMemberPods_Add``: pods are held by PodGroup, and each can be got."""
    ppm, infos = _held(*pods)
    for group, names in want.items():
        got = ppm.pods_of(pod_group_key("ns1", group))
        assert got == {f"ns1/{n}": infos[n] for n in names}
    for name, pinfo in infos.items():
        assert ppm.get(f"ns1/{name}") is pinfo


GET_ROWS = [
    pytest.param([POD1, POD2], "pod1", True, id="get existing pod in pod group"),
    pytest.param([POD1], "pod2", False, id="get non-existent pod in existing pod group"),
    pytest.param([], "pod3", False, id="get non-existent pod in non-existing pod group"),
]


@pytest.mark.parametrize(("pods", "target", "found"), GET_ROWS)
def test_get(pods: list[Obj], target: str, found: bool) -> None:
    """``TestPodGroupMemberPods_Get``."""
    ppm, infos = _held(*pods)
    assert ppm.get(f"ns1/{target}") is (infos[target] if found else None)


@pytest.mark.parametrize(("pods", "target", "want"), [
    pytest.param([POD1, POD2], "pod1", True, id="has existing pod in pod group"),
    pytest.param([POD1], "pod2", False, id="doesn't have non-existent pod in existing pod group"),
    pytest.param([], "pod2", False, id="doesn't have non-existent pod in non-existing pod group"),
])
def test_has(pods: list[Obj], target: str, want: bool) -> None:
    """``TestPodGroupMemberPods_Has``."""
    ppm, _ = _held(*pods)
    assert (f"ns1/{target}" in ppm) is want


UPDATED_POD1 = _pod("pod1", "pg1", updated="true")


@pytest.mark.parametrize(("pods", "new", "updated"), [
    pytest.param([POD1], UPDATED_POD1, True, id="update existing pod"),
    pytest.param([POD1], POD2, False, id="update non-existent pod"),
])
def test_update(pods: list[Obj], new: Obj, updated: bool) -> None:
    """``TestPodGroupMemberPods_Update``: the held entry carries the new pod."""
    ppm, infos = _held(*pods)
    got = ppm.update(new)
    if not updated:
        assert got is None
        assert pod_key(new) not in ppm
        return
    assert got is infos[new["metadata"]["name"]] and got.pod == new
    held = ppm.get(pod_key(new))
    assert held is not None and held.pod == new


@pytest.mark.parametrize(("pods", "deleted", "was_held", "remaining"), [
    pytest.param([POD1], POD3_PG1, False, ["pod1"], id="delete non-existent pod from existing pod group"),
    pytest.param([], POD3_PG1, False, [], id="delete pod from non-existent pod group"),
    pytest.param([POD1, POD2], POD1, True, ["pod2"], id="delete one pod from group with multiple pods"),
    pytest.param([POD1], POD1, True, [], id="delete last pod in group cleans up group key"),
])
def test_delete(pods: list[Obj], deleted: Obj, was_held: bool, remaining: list[str]) -> None:
    """``TestPodGroupMemberPods_Delete``: what is left under the deleted pod's PodGroup."""
    ppm, infos = _held(*pods)
    got = ppm.delete(pod_key(deleted))
    assert got is (infos[deleted["metadata"]["name"]] if was_held else None)
    assert list(ppm.pods_of(pod_group_key("ns1", "pg1"))) == [f"ns1/{n}" for n in remaining]
    assert len(ppm) == len(remaining)


@pytest.mark.parametrize(("pods", "group", "cleared", "left"), [
    pytest.param([POD1, POD2, POD3], "pg1", ["pod1", "pod2"], {"pg2": ["pod3"]}, id="clear existing pod group"),
    pytest.param([POD1], "pg3", [], {"pg1": ["pod1"]}, id="clear non-existent pod group"),
])
def test_clear(pods: list[Obj], group: str, cleared: list[str], left: dict[str, list[str]]) -> None:
    """``TestPodGroupMemberPods_Clear``."""
    ppm, infos = _held(*pods)
    got = ppm.clear(pod_group_key("ns1", group))
    assert {id(p) for p in got} == {id(infos[n]) for n in cleared}
    assert not ppm.pods_of(pod_group_key("ns1", group))
    for g, names in left.items():
        assert list(ppm.pods_of(pod_group_key("ns1", g))) == [f"ns1/{n}" for n in names]
    assert len(ppm) == sum(len(v) for v in left.values())


@pytest.mark.parametrize(("pods", "want"), [
    pytest.param([], 0, id="empty map"),
    pytest.param([POD1, POD2], 2, id="multiple pods"),
])
def test_len(pods: list[Obj], want: int) -> None:
    """``TestPodGroupMemberPods_Len``."""
    ppm, _ = _held(*pods)
    assert len(ppm) == want
