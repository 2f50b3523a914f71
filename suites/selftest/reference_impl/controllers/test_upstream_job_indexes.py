"""Upstream ``indexed_job_utils_test.go`` rows on completed indexes (v1.37.2):
``TestCalculateSucceededIndexes``, ``TestIntervalsHaveIndex``, ``TestFirstPendingIndexes``,
``TestAppendDuplicatedIndexPodsForRemoval`` and ``TestPodGenerateNameWithIndex``, against
the reference's ports in ``reference_impl/controllers/job/indexed_job_utils.py``."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.controllers.job.indexed_job_utils import (
    COMPLETION_INDEX,
    append_duplicated_index_pods_for_removal,
    calculate_succeeded_indexes,
    first_pending_indexes,
    format_intervals,
    has_index,
)
from reference_impl.controllers.job.pods import new_pod
from reference_impl.controllers.job.tracking import JOB_TRACKING_FINALIZER

Obj = dict[str, Any]
IV = list[tuple[int, int]]
NO_INDEX = "<none>"


def _hollow(descs: list[tuple[str, str]], finalizer: bool = False) -> list[Obj]:
    """``hollowPodsWithIndexPhase``; names and one creation time for ordering ties."""
    out = []
    for n, (ix, phase) in enumerate(descs):
        meta: Obj = {"name": f"p{n:02d}", "creationTimestamp": "2026-09-01T00:00:00Z"}
        if ix != NO_INDEX:
            meta["annotations"] = {COMPLETION_INDEX: ix}
        if finalizer:
            meta["finalizers"] = [JOB_TRACKING_FINALIZER]
        out.append({"metadata": meta, "spec": {}, "status": {"phase": phase}})
    return out


def _phases(pods: list[Obj]) -> list[tuple[str, str]]:
    """``toIndexPhases``."""
    return [
        ((p["metadata"].get("annotations") or {}).get(COMPLETION_INDEX, NO_INDEX), p["status"]["phase"])
        for p in pods
    ]


S, F, R, P = "Succeeded", "Failed", "Running", "Pending"

# name: (prevSucceeded, pods, completions, wantStatusIntervals, wantIntervals)
SUCCEEDED_ROWS: dict[str, tuple[str, list[tuple[str, str]], int, IV, IV]] = {
    "one index": ("", [("1", S)], 2, [], [(1, 1)]),
    "two separate": (
        "", [("2", F), ("5", S), ("5", S), ("10", F), ("10", S)], 11, [], [(5, 5), (10, 10)]
    ),
    "two intervals": (
        "", [("0", R), ("1", P), ("2", S), ("3", S), ("5", S), ("6", S), ("7", S)], 8, [],
        [(2, 3), (5, 7)],
    ),
    "one index and one interval": (
        "", [("0", S), ("1", F), ("2", S), ("3", S), ("4", S), ("5", S), (NO_INDEX, S), ("-2", S)],
        6, [], [(0, 0), (2, 5)],
    ),
    "out of range": (
        "", [("0", S), ("1", S), ("2", S), ("3", F), ("4", S), ("5", S), (NO_INDEX, S), ("-2", S)],
        5, [], [(0, 2), (4, 4)],
    ),
    "prev interval out of range": ("0-5,8-10", [], 8, [(0, 5)], [(0, 5)]),
    "prev interval partially out of range": ("0-5,8-10", [], 10, [(0, 5), (8, 9)], [(0, 5), (8, 9)]),
    "prev and new separate": (
        "0,4,5,10-12", [("2", S), ("7", S), ("8", S)], 13, [(0, 0), (4, 5), (10, 12)],
        [(0, 0), (2, 2), (4, 5), (7, 8), (10, 12)],
    ),
    "prev between new": ("3,4,6", [("2", S), ("7", S), ("8", S)], 9, [(3, 4), (6, 6)], [(2, 4), (6, 8)]),
    "new between prev": ("2,7,8", [("3", S), ("4", S), ("6", S)], 9, [(2, 2), (7, 8)], [(2, 4), (6, 8)]),
    "new within prev": (
        "2-7", [("0", S), ("3", S), ("5", S), ("9", S)], 10, [(2, 7)], [(0, 0), (2, 7), (9, 9)]
    ),
    "corrupted interval": ("0,1-foo,bar", [("3", S)], 4, [(0, 0)], [(0, 0), (3, 3)]),
}


@pytest.mark.parametrize(
    ("prev", "pods", "completions", "want_status", "want"),
    [pytest.param(*r, id=n) for n, r in SUCCEEDED_ROWS.items()],
)
def test_calculate_succeeded_indexes(
    prev: str, pods: list[tuple[str, str]], completions: int, want_status: IV, want: IV
) -> None:
    job = {"spec": {"completions": completions}, "status": {"completedIndexes": prev}}
    got_status, got = calculate_succeeded_indexes(job, _hollow(pods, finalizer=True))
    assert got_status == want_status
    assert got == want


HAS_ROWS: dict[str, tuple[IV, int, bool]] = {
    "empty": ([], 4, False),
    "before all": ([(2, 4), (5, 7)], 1, False),
    "after all": ([(2, 4), (6, 8)], 9, False),
    "in between": ([(2, 4), (6, 8)], 5, False),
    "in first": ([(2, 4), (6, 8)], 2, True),
    "in second": ([(2, 4), (6, 8)], 8, True),
}


@pytest.mark.parametrize(("intervals", "index", "want"), [pytest.param(*r, id=n) for n, r in HAS_ROWS.items()])
def test_intervals_have_index(intervals: IV, index: int, want: bool) -> None:
    assert has_index(intervals, index) is want


# name: (cnt, completions, activePods, succeededIndexes, failedIndexes, want)
PENDING_ROWS: dict[str, tuple[int, int, list[tuple[str, str]], IV, IV | None, list[int]]] = {
    "cnt greater than completions": (5, 3, [], [], None, [0, 1, 2]),
    "cnt less than completions": (2, 5, [], [], None, [0, 1]),
    "first pods active": (3, 10, [("0", R), ("1", P)], [], None, [2, 3, 4]),
    "last pods active or succeeded": (6, 6, [("6", P)], [(4, 5)], None, [0, 1, 2, 3]),
    "mixed": (
        5, 20, [("3", P), ("5", R), ("8", P), (NO_INDEX, R), ("-3", R)], [(2, 4), (9, 9)], None,
        [0, 1, 6, 7, 10],
    ),
    "with failed indexes": (
        5, 20, [("3", P), ("9", P)], [(1, 1), (5, 5), (9, 9)], [(2, 2), (6, 7)], [0, 4, 8, 10, 11]
    ),
}


@pytest.mark.parametrize(
    ("cnt", "completions", "active", "succeeded", "failed", "want"),
    [pytest.param(*r, id=n) for n, r in PENDING_ROWS.items()],
)
def test_first_pending_indexes(
    cnt: int, completions: int, active: list[tuple[str, str]], succeeded: IV, failed: IV | None, want: list[int]
) -> None:
    got = first_pending_indexes(succeeded, _hollow(active), cnt, completions, failed=failed)
    assert got == want


DUP_ROWS: dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]], list[tuple[str, str]], int]] = {
    "all unique": (
        [(NO_INDEX, P), ("2", P), ("5", R), ("6", R)],
        [(NO_INDEX, P), ("6", R)],
        [("2", P), ("5", R)],
        6,
    ),
    "all with index": (
        [("5", P), ("0", R), ("3", P), ("0", R), ("3", R), ("0", P), ("6", R), ("6", P)],
        [("0", P), ("0", R), ("3", P), ("6", R), ("6", P)],
        [("0", R), ("3", R), ("5", P)],
        6,
    ),
    "mixed": (
        [(NO_INDEX, P), ("invalid", R), ("-2", R), ("0", P), ("1", P), ("1", P), ("1", R)],
        [(NO_INDEX, P), ("invalid", R), ("-2", R), ("1", P), ("1", P)],
        [("0", P), ("1", R)],
        6,
    ),
}


@pytest.mark.parametrize(
    ("pods", "want_rm", "want_left", "completions"), [pytest.param(*r, id=n) for n, r in DUP_ROWS.items()]
)
def test_append_duplicated_index_pods_for_removal(
    pods: list[tuple[str, str]],
    want_rm: list[tuple[str, str]],
    want_left: list[tuple[str, str]],
    completions: int,
) -> None:
    rm, left = append_duplicated_index_pods_for_removal([], [], _hollow(pods), completions)
    assert _phases(rm) == want_rm
    assert _phases(left) == want_left


GEN_ROWS: dict[str, tuple[str, int, str]] = {
    "short job name": ("indexed-job", 1, "indexed-job-1-"),
    "job name exceeds MaxGeneneratedNameLength": (
        "hhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooo",
        1,
        "hhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhh-1-",
    ),
    "job name with index suffix exceeds MaxGeneratedNameLength": (
        "hhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhoo",
        1,
        "hhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhh-1-",
    ),
}


@pytest.mark.parametrize(("name", "index", "want"), [pytest.param(*r, id=n) for n, r in GEN_ROWS.items()])
def test_pod_generate_name_with_index(name: str, index: int, want: str) -> None:
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "default", "uid": "u"},
        "spec": {"template": {"spec": {"containers": [{"name": "c"}]}}},
    }
    assert new_pod(job, index)["metadata"]["generateName"] == want


@pytest.mark.parametrize(
    ("intervals", "want"),
    [
        pytest.param([], "", id="empty"),
        pytest.param([(0, 0)], "0", id="one"),
        pytest.param([(0, 1)], "0,1", id="pair"),
        pytest.param([(0, 2), (4, 5), (7, 7)], "0-2,4,5,7", id="mixed"),
    ],
)
def test_ordered_intervals_string(intervals: IV, want: str) -> None:
    """``orderedIntervals.String`` as the sync rows expect it ("0,1", "2,4,5,7-9")."""
    assert format_intervals(intervals) == want
