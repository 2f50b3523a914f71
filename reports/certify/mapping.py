"""Which garhwal tests are the evidence for each AI-conformance v1.37 requirement.

A requirement's evidence is every test of the modules listed for it, plus any test that
declared it with ``record_property("ai_requirement", "<id>[,<id>]")``. It is Implemented
only when at least one such test ran and every one of them passed in that run; a failed
or skipped one leaves it unproven, and the notes say which. docs/ai-conformance.md says
what each mapping proves and what it does not. Requirements with no tests here are left
for manual attestation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from reports.model import Results, TestEntry

__all__ = ["REQUIREMENT_TESTS", "Evidence", "declared_requirements", "evidence_for", "evidence_ref"]

_SCHED, _AUTO = "suites/conformance/scheduling/", "suites/conformance/autoscaling/"
REQUIREMENT_TESTS: Final[dict[str, tuple[str, ...]]] = {
    # Native Workload/PodGroup gangs, Job gangs and composite gangs: all-or-nothing.
    "gang_scheduling": (
        _SCHED + "test_gang.py", _SCHED + "test_gang_job.py", _SCHED + "test_gang_composite.py",
    ),
    # HPA on a per-pod custom metric of GPU pods, and on external metrics to and from zero.
    "pod_autoscaling": (_AUTO + "test_hpa_accelerator_pods_metric.py", _AUTO + "test_hpa_scale_to_zero.py"),
    # karpenter (KWOK provider on the local cluster) grows a GPU NodePool for pending
    # nvidia.com/gpu pods within its limit and removes idle nodes; garhwal's own autoscaler
    # model (suites/model/autoscaling) is never evidence.
    "cluster_autoscaling": (_AUTO + "test_cluster_autoscaling.py",),
    # garhwal's sample operator (TrainingRun CRD and controller) through churn, kill -9
    # restarts and racing writers.
    "robust_controller": ("suites/conformance/operator/test_robust_controller.py",),
    # A stub inference server's counter, histogram and gauge, scraped by the local
    # cluster's Prometheus through the annotation scrape template and read back by PromQL.
    "ai_service_metrics": ("suites/conformance/observability/test_ai_service_metrics.py",),
    # Weighted splits, model-header matches, a route edit and an unresolved backend, judged
    # by completions sent through the cluster's Gateway API implementation (traefik).
    "ai_inference": ("suites/conformance/networking/test_ai_inference.py",),
    # Every GPU a DRA kubelet plugin publishes has utilisation and memory series in the
    # cluster's Prometheus, from the exporter DaemonSet on the real nodes.
    "accelerator_metrics": ("suites/conformance/observability/test_accelerator_metrics.py",),
    # Declared by the tests that prove them (device isolation, driver and runtime versions).
    "secure_accelerator_access": (),
    "driver_runtime_management": (),
}  # fmt: skip
JUNIT_NAME: Final = "junit.xml"


@dataclass(frozen=True, slots=True)
class Evidence:
    """The tests behind one requirement in one run, and whether they prove it."""

    tests: tuple[TestEntry, ...]

    @property
    def proven(self) -> bool:
        """At least one test, and every one passed."""
        return bool(self.tests) and all(t.outcome == "passed" for t in self.tests)

    @property
    def unproven(self) -> list[str]:
        """``nodeid (outcome)`` of each test that did not pass."""
        return [f"{t.nodeid} ({t.outcome})" for t in self.tests if t.outcome != "passed"]


def _declared(t: TestEntry) -> set[str]:
    raw = str(t.evidence.get("properties", {}).get("ai_requirement", ""))
    return {p.strip() for p in raw.split(",") if p.strip()}


def declared_requirements(results: Results) -> dict[str, list[str]]:
    """Requirement id -> the tests that declared it."""
    out: dict[str, list[str]] = {}
    for t in results.tests:
        for rid in _declared(t):
            out.setdefault(rid, []).append(t.nodeid)
    return out


def evidence_for(results: Results, requirement: str) -> Evidence:
    """The tests of this run that are evidence for ``requirement``; a ``model`` test (of
    garhwal's own components) never is, even in a mapped module."""
    modules = REQUIREMENT_TESTS.get(requirement, ())
    return Evidence(
        tuple(
            t
            for t in results.tests
            if not t.model
            and (t.nodeid.split("::", 1)[0] in modules or requirement in _declared(t))
        )
    )


def evidence_ref(version: str, product_dir: str, test: TestEntry) -> str:
    """``file://vX.Y/<dir>/junit.xml#<testcase name>``, as the CNCF validator resolves it."""
    return f"file://{version}/{product_dir}/{JUNIT_NAME}#{test.name}"
