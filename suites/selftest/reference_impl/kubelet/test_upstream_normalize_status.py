"""The status manager's ``normalizeStatus`` (upstream v1.37.2 pkg/kubelet/status) beyond
the two status_manager_test.go rows ported in test_upstream_status_manager.py:
TestSortInitContainerStatuses (pkg/kubelet/types, through normalizeStatus), the
per-container byte budget cut on bytes, name-sorted container and ephemeral statuses,
UTC stamps, and the fake kubelet writing only normalized statuses."""

from __future__ import annotations

from typing import Any

import pytest
from kubelet_harness import KubeletHarness

from reference_impl.api import make_node, make_pod
from reference_impl.kubelet.status_manager import normalize_status

Obj = dict[str, Any]
SPEC4 = ["first", "second", "third", "fourth"]


def _names(statuses: list[Obj]) -> list[str]:
    return [s["name"] for s in statuses]


@pytest.mark.parametrize(
    ("statuses", "want"),
    [
        pytest.param(SPEC4, SPEC4, id="already in spec order"),
        pytest.param(["second", "first", "fourth", "third"], SPEC4, id="pairs swapped"),
        pytest.param(["fourth", "first"], ["first", "fourth"], id="two of four, reversed"),
        pytest.param(["first", "third"], ["first", "third"], id="two of four, in order"),
    ],
)
def test_sort_init_container_statuses(statuses: list[str], want: list[str]) -> None:
    """TestSortInitContainerStatuses: init statuses follow the spec's order."""
    pod = {"spec": {"initContainers": [{"name": n} for n in SPEC4]}}
    status: Obj = {"initContainerStatuses": [{"name": n} for n in statuses]}
    assert _names(normalize_status(pod, status)["initContainerStatuses"]) == want


def test_init_statuses_not_in_the_spec_stay_after() -> None:
    """SortInitContainerStatuses swaps each found one forward: [z y a b] becomes
    [b y a z] for b, then [b a y z] for a; the others end where the swaps left them."""
    pod = {"spec": {"initContainers": [{"name": "b"}, {"name": "a"}]}}
    status: Obj = {"initContainerStatuses": [{"name": "z"}, {"name": "y"}, {"name": "a"}, {"name": "b"}]}
    assert _names(normalize_status(pod, status)["initContainerStatuses"]) == ["b", "a", "y", "z"]


def test_container_and_ephemeral_statuses_are_sorted_by_name() -> None:
    """sort.Sort(SortedContainerStatuses) on containerStatuses and
    ephemeralContainerStatuses, whatever the spec order."""
    pod = {"spec": {"containers": [{"name": "web"}, {"name": "app"}, {"name": "db"}]}}
    status: Obj = {
        "containerStatuses": [{"name": "web"}, {"name": "app"}, {"name": "db"}],
        "ephemeralContainerStatuses": [{"name": "debug-2"}, {"name": "debug-1"}],
    }
    out = normalize_status(pod, status)
    assert _names(out["containerStatuses"]) == ["app", "db", "web"]
    assert _names(out["ephemeralContainerStatuses"]) == ["debug-1", "debug-2"]


@pytest.mark.parametrize(
    ("n_containers", "n_init", "n_ephemeral", "limit"),
    [
        pytest.param(0, 0, 0, 12288, id="no containers: the whole 12 KiB"),
        pytest.param(1, 0, 0, 12288, id="one container"),
        pytest.param(2, 1, 0, 4096, id="init containers count"),
        pytest.param(2, 1, 2, 2457, id="ephemeral containers count (12288/5)"),
    ],
)
def test_termination_message_budget(n_containers: int, n_init: int, n_ephemeral: int, limit: int) -> None:
    """MaxPodTerminationMessageLogLength split evenly over every container in the spec;
    state and lastState both cut."""
    spec: Obj = {
        "containers": [{"name": f"c{i}"} for i in range(n_containers)],
        "initContainers": [{"name": f"i{i}"} for i in range(n_init)],
        "ephemeralContainers": [{"name": f"e{i}"} for i in range(n_ephemeral)],
    }
    long = "x" * 20000
    status: Obj = {"containerStatuses": [{
        "name": "c0",
        "state": {"terminated": {"message": long}},
        "lastState": {"terminated": {"message": long}},
    }]}  # fmt: skip
    cs = normalize_status({"spec": spec}, status)["containerStatuses"][0]
    assert len(cs["state"]["terminated"]["message"]) == limit
    assert len(cs["lastState"]["terminated"]["message"]) == limit


def test_termination_message_is_cut_on_bytes() -> None:
    """``Message[:n]`` cuts bytes: a character split in two leaves invalid bytes, each
    written as U+FFFD by the JSON encoder."""
    pod = {"spec": {"containers": [{"name": f"c{i}"} for i in range(4)]}}  # 3072 bytes each
    msg = "a" * 3070 + "€€"  # € is 3 bytes: the cut keeps 2 bytes of the first
    status: Obj = {"containerStatuses": [{"name": "c0", "state": {"terminated": {"message": msg}}}]}
    out = normalize_status(pod, status)["containerStatuses"][0]["state"]["terminated"]["message"]
    assert out == "a" * 3070 + "\ufffd\ufffd"


def test_a_short_message_and_a_running_state_are_kept() -> None:
    pod = {"spec": {"containers": [{"name": "c"}]}}
    status: Obj = {"containerStatuses": [{
        "name": "c",
        "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}},
        "lastState": {"terminated": {"message": "bye", "exitCode": 1}},
    }]}  # fmt: skip
    before = {**status}
    assert normalize_status(pod, status) == before


def test_stamps_with_an_offset_are_written_in_utc() -> None:
    """Rfc3339Copy keeps the instant; a metav1.Time is marshalled in UTC."""
    status: Obj = {"startTime": "2026-01-01T02:00:00.75+02:00"}
    assert normalize_status({"spec": {}}, status)["startTime"] == "2026-01-01T00:00:00Z"


# -- the fake kubelet ----------------------------------------------------------------------

def test_kubelet_writes_container_statuses_sorted_by_name(k: KubeletHarness) -> None:
    """The status manager normalizes before it writes: the API shows the container
    statuses by name, not in spec order."""
    k.create(make_node("n1").build())
    pod = make_pod("multi", "default").node("n1").build()
    base = pod["spec"]["containers"][0]
    pod["spec"]["containers"] = [{**base, "name": "zeta"}, {**base, "name": "alpha"}, {**base, "name": "mid"}]
    k.create(pod)

    def running() -> bool:
        p = k.pod("multi")
        return p is not None and (p.get("status") or {}).get("phase") == "Running"

    k.wait(running)
    got = k.pod("multi")
    assert got is not None
    assert _names(got["status"]["containerStatuses"]) == ["alpha", "mid", "zeta"]
