"""Upstream job_controller_test.go TestSyncJobWithJobPodFailurePolicy (k8s.io/kubernetes
v1.37.2): one Job sync with a pod failure policy, through ``job_sync_harness``.

Upstream runs each row with podReplacementPolicy Failed, which the apiserver defaults
whenever a pod failure policy is set. Its JobManagedBy on/off variants expect the same.
"""

from __future__ import annotations

from typing import Any

import pytest
from job_pfp_harness import PodRow, sync_once

Obj = dict[str, Any]
PFP = "PodFailurePolicy"
BACKOFF = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")


def _codes(action: str, op: str, values: list[int], container: str | None = None) -> Obj:
    req: Obj = {"operator": op, "values": values}
    if container is not None:
        req["containerName"] = container
    return {"action": action, "onExitCodes": req}


def _conds(action: str, ctype: str) -> Obj:
    return {"action": action, "onPodConditions": [{"type": ctype, "status": "True"}]}


ON_EXIT_CODE_RULES = [_codes("Ignore", "In", [1, 2, 3]), _codes("FailJob", "In", [5, 6, 7])]


def _spec(rules: list[Obj], n: int = 1, backoff: int = 6, indexed: bool = False) -> Obj:
    spec: Obj = {
        "parallelism": n,
        "completions": n,
        "backoffLimit": backoff,
        "podFailurePolicy": {"rules": rules},
    }
    if indexed:
        spec["completionMode"] = "Indexed"
    return spec


def _cs(code: int, name: str | None = "main-container", finished: bool = False) -> Obj:
    term: Obj = {"exitCode": code}
    if finished:
        term["finishedAt"] = "0001-01-01T00:00:01Z"  # testFinishedAt
    out: Obj = {"state": {"terminated": term}}
    if name is not None:
        out["name"] = name
    return out


def _failed(*containers: Obj, inits: list[Obj] | None = None, conds: list[str] | None = None) -> PodRow:
    st: Obj = {"phase": "Failed"}
    if containers:
        st["containerStatuses"] = list(containers)
    if inits:
        st["initContainerStatuses"] = inits
    if conds:
        st["conditions"] = [{"type": c, "status": "True"} for c in conds]
    return PodRow(st)


def _fail_job(msg: str, reason: str = PFP, terminal: bool = True) -> list[tuple[str, str, str]]:
    out = [("FailureTarget", reason, msg)]
    if terminal:
        out.append(("Failed", reason, msg))
    return out


def _msg(pod: str, code: int, index: int, container: str = "main-container") -> str:
    return (
        f"Container {container} for pod default/{pod} failed with exit code {code} "
        f"matching FailJob rule at index {index}"
    )


TARGET_STATUS = {
    "conditions": [
        {
            "type": "FailureTarget",
            "status": "True",
            "reason": PFP,
            "message": _msg("mypod-0", 5, 1),
            "lastProbeTime": "2026-09-01T00:00:00Z",
            "lastTransitionTime": "2026-09-01T00:00:00Z",
        }
    ]
}
DELETED_TARGET_STATUS = {
    "conditions": [{**TARGET_STATUS["conditions"][0], "message": _msg("already-deleted-pod", 5, 1)}]
}
MULTI = [PodRow({"phase": "Running"}), _failed(_cs(5))]
Row = tuple[Obj, list[PodRow], Obj | None, list[tuple[str, str, str]], int, int, int, int]

ROWS = [
    pytest.param(
        _spec([_codes("Ignore", "In", [1, 2, 3], "main-container"), _codes("FailJob", "In", [5, 6, 7], "main-container")]),
        [_failed(_cs(5, "monitoring-container"), _cs(42, finished=True))],
        None, [], 1, 0, 1, 0,
        id="default handling for pod failure if the container matching the exit codes does not match the containerName restriction",
    ),
    pytest.param(
        _spec(ON_EXIT_CODE_RULES),
        [PodRow({"phase": "Running", "containerStatuses": [_cs(5)]})],
        None, [], 1, 0, 0, 0,
        id="running pod should not result in job fail based on OnExitCodes",
    ),
    pytest.param(
        _spec(ON_EXIT_CODE_RULES),
        [_failed(_cs(5))],
        None, _fail_job(_msg("mypod-0", 5, 1)), 0, 0, 1, 0,
        id="fail job based on OnExitCodes",
    ),
    pytest.param(
        _spec(ON_EXIT_CODE_RULES),
        [_failed(_cs(5))],
        TARGET_STATUS, _fail_job(_msg("mypod-0", 5, 1)), 0, 0, 1, 0,
        id="job marked already as failure target with failed pod",
    ),
    pytest.param(
        _spec(ON_EXIT_CODE_RULES),
        [_failed(_cs(5))],
        DELETED_TARGET_STATUS, _fail_job(_msg("already-deleted-pod", 5, 1)), 0, 0, 1, 0,
        id="job marked already as failure target with failed pod, message based on already deleted pod",
    ),
    pytest.param(
        _spec(ON_EXIT_CODE_RULES, n=2),
        MULTI,
        None, _fail_job(_msg("mypod-1", 5, 1), terminal=False), 0, 0, 2, 1,
        id="fail job with multiple pods",
    ),
    pytest.param(
        _spec(ON_EXIT_CODE_RULES, n=2),
        MULTI,
        None, _fail_job(_msg("mypod-1", 5, 1), terminal=False), 0, 0, 2, 1,
        id="fail job with multiple pods; JobManagedBy enabled delays setting terminal condition",
    ),
    pytest.param(
        _spec(ON_EXIT_CODE_RULES, indexed=True),
        [_failed(_cs(5))],
        None, _fail_job(_msg("mypod-0", 5, 1)), 0, 0, 1, 0,
        id="fail indexed job based on OnExitCodes",
    ),
    pytest.param(
        _spec([_codes("FailJob", "NotIn", [5, 6, 7])]),
        [_failed(_cs(42))],
        None, _fail_job(_msg("mypod-0", 42, 0)), 0, 0, 1, 0,
        id="fail job based on OnExitCodes with NotIn operator",
    ),
    pytest.param(
        _spec([_codes("FailJob", "NotIn", [5, 6, 7])]),
        [_failed(_cs(5, finished=True))],
        None, [], 1, 0, 1, 0,
        id="default handling job based on OnExitCodes with NotIn operator",
    ),
    pytest.param(
        _spec(ON_EXIT_CODE_RULES),
        [_failed(_cs(143), inits=[_cs(5, "init-container")])],
        None, _fail_job(_msg("mypod-0", 5, 1, "init-container")), 0, 0, 1, 0,
        id="fail job based on OnExitCodes for InitContainer",
    ),
    pytest.param(
        _spec(ON_EXIT_CODE_RULES, backoff=0),
        [_failed(_cs(2, "container1"), _cs(6, "container2"))],
        None, [], 1, 0, 0, 0,
        id="ignore pod failure; both rules are matching, the first is executed only",
    ),
    pytest.param(
        _spec(ON_EXIT_CODE_RULES, backoff=0),
        [_failed(_cs(1, None))],
        None, [], 1, 0, 0, 0,
        id="ignore pod failure based on OnExitCodes",
    ),
    pytest.param(
        _spec(ON_EXIT_CODE_RULES, backoff=0),
        [_failed(_cs(10, None))],
        None, _fail_job(BACKOFF[1], BACKOFF[0]), 0, 0, 1, 0,
        id="default job based on OnExitCodes",
    ),
    pytest.param(
        _spec(ON_EXIT_CODE_RULES, backoff=0),
        [_failed(_cs(10, None))],
        None, _fail_job(BACKOFF[1], BACKOFF[0]), 0, 0, 1, 0,
        id="default job based on OnExitCodes; JobManagedBy enabled triggers adding interim condition",
    ),
    pytest.param(
        _spec([_codes("Count", "In", [1, 2]), _codes("Ignore", "In", [2, 3])]),
        [_failed(_cs(2, None, finished=True))],
        None, [], 1, 0, 1, 0,
        id="count pod failure based on OnExitCodes; both rules are matching, the first is executed only",
    ),
    pytest.param(
        _spec([_conds("Count", "ResourceLimitExceeded"), _conds("Ignore", "DisruptionTarget")]),
        [_failed(_cs(0, None, finished=True), conds=["ResourceLimitExceeded", "DisruptionTarget"])],
        None, [], 1, 0, 1, 0,
        id="count pod failure based on OnPodConditions; both rules are matching, the first is executed only",
    ),
    pytest.param(
        _spec([_conds("Ignore", "DisruptionTarget")], backoff=0),
        [_failed(conds=["DisruptionTarget"])],
        None, [], 1, 0, 0, 0,
        id="ignore pod failure based on OnPodConditions",
    ),
    pytest.param(
        _spec([_conds("Ignore", "DisruptionTarget")], backoff=0),
        [PodRow({"phase": "Failed", "conditions": [{"type": "DisruptionTarget", "status": "True"}]}, deleted=True)],
        None, [], 0, 0, 0, 0,
        id="ignore pod failure based on OnPodConditions, ignored failures delays pod recreation",
    ),
    pytest.param(
        _spec([_conds("FailJob", "DisruptionTarget")]),
        [_failed(conds=["DisruptionTarget"])],
        None,
        _fail_job("Pod default/mypod-0 has condition DisruptionTarget matching FailJob rule at index 0"),
        0, 0, 1, 0,
        id="fail job based on OnPodConditions",
    ),
    pytest.param(
        {"parallelism": 1, "backoffLimit": 0, "podFailurePolicy": {"rules": [_conds("Count", "DisruptionTarget")]}},
        [PodRow(deleted=True)],
        None, [], 0, 0, 0, 1,
        id="terminating Pod not considered failed when JobPodFailurePolicy is used",
    ),
]


@pytest.mark.parametrize(
    ("spec", "pods", "status", "want_conds", "active", "succeeded", "failed", "terminating"),
    ROWS,
)
def test_sync_job_with_pod_failure_policy(
    spec: Obj,
    pods: list[PodRow],
    status: Obj | None,
    want_conds: list[tuple[str, str, str]],
    active: int,
    succeeded: int,
    failed: int,
    terminating: int,
) -> None:
    got = sync_once(spec, pods, status).status
    conds = [(c["type"], c["reason"], c["message"]) for c in got.get("conditions") or []]
    assert all(c["status"] == "True" for c in got.get("conditions") or [])
    assert conds == want_conds
    counters = (got.get("active", 0), got.get("succeeded", 0), got.get("failed", 0))
    assert counters == (active, succeeded, failed)
    assert got.get("terminating", 0) == terminating
