"""e2e.log in the shape the cncf/k8s-conformance reviewers and bot read.

Models the Ginkgo output of the upstream conformance image: an ``e2e test version`` line,
the apiserver version, one line per spec, and a last line
``SUCCESS! -- N Passed | 0 Failed | 0 Pending | M Skipped`` (or ``FAIL! -- ...``). While a
run is still going the last line says ``IN PROGRESS``, so a crashed run is never mistaken
for a finished one.
"""

from __future__ import annotations

from reports.model import Results, TestEntry

__all__ = ["render_e2e_log", "summary_line"]

_TAG = {"passed": "PASSED", "failed": "FAILED", "error": "FAILED", "skipped": "SKIPPED"}


def _spec_line(t: TestEntry) -> str:
    head = f"• [{_TAG[t.outcome]}] [{t.feature or 'no feature'}] {t.nodeid} [{t.duration_s:.3f} seconds]"
    if t.outcome == "skipped":
        return f"{head}\n  skipped: {t.skip_reason or ''}"
    if t.outcome in ("failed", "error"):
        message = str(t.evidence.get("message", "")).strip().splitlines()
        return f"{head}\n  " + "\n  ".join(message[-5:] or ["(no message)"])
    return head


def summary_line(results: Results) -> str:
    """The last line, as Ginkgo ends a suite: SUCCESS!/FAIL!, ``FAIL! - Interrupted by User``
    for a stopped run, IN PROGRESS while it runs (or after a crash)."""
    c = results.counts()
    failed = c["failed"] + c["error"]
    counts = f"{c['passed']} Passed | {failed} Failed | 0 Pending | {c['skipped']} Skipped"
    run = results.run
    if run.interrupted:
        return f"FAIL! - Interrupted by User -- {counts}"
    if run.finished_at is None:
        return f"IN PROGRESS -- {counts} (the run has not finished)"
    ok = run.complete and failed == 0 and run.exit_status in (0, None)
    return f"{'SUCCESS!' if ok else 'FAIL!'} -- {counts}"


def _ran_line(results: Results) -> str:
    run, ran = results.run, len(results.tests)
    of = f" of {run.collected}" if run.collected is not None else ""
    line = f"Ran {ran}{of} Specs" + (f" (finished {run.finished_at})" if run.finished_at else "")
    not_run = results.not_run()
    if not_run:
        why = "interrupted" if run.interrupted else "stopped early"
        line += f"\n{not_run} of {run.collected} collected specs did not run ({why})"
    return line


def render_e2e_log(results: Results) -> str:
    """The whole e2e.log text."""
    run = results.run
    lines = [
        f"I {run.started_at} garhwal conformance run {run.run_id} (target {run.target})",
        f"e2e test version: {run.e2e_test_version}",
        f"kube-apiserver version: {run.cluster_version}",
        "Running Suite: garhwal Kubernetes 1.37 conformance suites",
        f"Random Seed: {run.seed}",
        "",
        *(_spec_line(t) for t in results.tests),
        "",
        _ran_line(results),
        summary_line(results),
    ]
    return "\n".join(lines) + "\n"
