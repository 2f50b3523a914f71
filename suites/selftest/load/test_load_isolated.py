"""The load fixture's live path: Locust's master in the (unpatched) pytest process, the
Users in gevent-patched worker processes (``fixtures.load.isolated``), on loopback."""

from __future__ import annotations

import time
from pathlib import Path

import pytest


def _runner() -> object:
    import fixtures.plugin.load_fixture as lf

    return lf._import_runner()


def test_this_pytest_process_is_not_patched_so_live_runs_go_to_workers() -> None:
    _runner()
    from fixtures.load import isolated

    assert isolated.needs_worker_process("live")
    assert not isolated.needs_worker_process("reference")


def test_two_worker_processes_report_into_the_masters_locust_stats() -> None:
    runner = _runner()
    from fixtures.load import isolated
    from fixtures.targets.reference import ReferenceTarget

    spec = runner.RunSpec.of("api-churn", "reference", 4, 4, 3)  # type: ignore[attr-defined]
    result = isolated.run_in_workers(spec, ReferenceTarget(), kubeconfig=None, context=None, workers=2)
    assert result.workers == 2 and result.stop_reason == "run-time"
    pods = result.stats.get("pods", "apply")
    # Each worker has its own reference cluster; the master holds the sum of both.
    assert pods.num_requests >= 4 and result.stats.total.num_failures == 0, result.stats.total
    assert result.passed


def test_a_worker_that_dies_is_one_line_at_once_not_a_minute_of_waiting(tmp_path: Path) -> None:
    runner = _runner()
    from fixtures.load import isolated
    from fixtures.targets.reference import ReferenceTarget

    spec = runner.RunSpec.of("api-churn", "live", 1, 1, 3)  # type: ignore[attr-defined]
    started = time.monotonic()
    with pytest.raises(runner.LoadError, match=r"load worker exited with status 2: .*does not exist"):  # type: ignore[attr-defined]
        isolated.run_in_workers(spec, ReferenceTarget(), kubeconfig=str(tmp_path / "nope"), context=None)
    assert time.monotonic() - started < 30
