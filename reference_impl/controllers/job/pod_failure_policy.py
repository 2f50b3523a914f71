"""The Job pod failure policy (``pkg/controller/job/pod_failure_policy.go``).

A failed pod is matched against ``spec.podFailurePolicy.rules`` in order; the first rule
whose ``onExitCodes`` or ``onPodConditions`` requirement holds decides: FailJob fails the
whole Job (reason PodFailurePolicy), FailIndex fails the pod's index (with
backoffLimitPerIndex), Ignore keeps the failure out of the backoff counters, Count counts
it as usual. A rule with an unknown action or operator is skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from reference_impl.controllers.job.tracking import is_pod_failed

__all__ = [
    "POD_FAILURE_POLICY",
    "FAIL_INDEX",
    "FAIL_JOB",
    "IGNORE",
    "COUNT",
    "counts_failure",
    "fail_job_message",
    "match_pod_failure_policy",
]

Obj = dict[str, Any]
IGNORE: Final = "Ignore"
FAIL_JOB: Final = "FailJob"
FAIL_INDEX: Final = "FailIndex"
COUNT: Final = "Count"
_ACTIONS: Final = (IGNORE, FAIL_JOB, FAIL_INDEX, COUNT)
POD_FAILURE_POLICY: Final = "PodFailurePolicy"  # JobReasonPodFailurePolicy


def match_pod_failure_policy(
    policy: Mapping[str, Any] | None, pod: Mapping[str, Any]
) -> tuple[str | None, bool, str | None]:
    """``matchPodFailurePolicy``: (the FailJob message, whether the failure counts toward
    the backoff limits, the matched action) for a failed pod."""
    if policy is None:
        return None, True, None
    status: Mapping[str, Any] = pod.get("status") or {}
    meta = pod.get("metadata") or {}
    who = f"{meta.get('namespace', '')}/{meta.get('name', '')}"
    for index, rule in enumerate(policy.get("rules") or []):
        action = rule.get("action")
        if rule.get("onExitCodes") is not None:
            cs = _match_on_exit_codes(status, rule["onExitCodes"])
            if cs is None or action not in _ACTIONS:
                continue
            code = cs["state"]["terminated"].get("exitCode", 0)
            msg = (
                f"Container {cs.get('name', '')} for pod {who} failed with exit code {code} "
                f"matching {action} rule at index {index}"
            )
        elif rule.get("onPodConditions") is not None:
            cond = _match_on_pod_conditions(status, rule["onPodConditions"])
            if cond is None or action not in _ACTIONS:
                continue
            msg = (
                f"Pod {who} has condition {cond.get('type', '')} matching {action} rule "
                f"at index {index}"
            )
        else:
            continue
        if action == FAIL_JOB:
            return msg, True, FAIL_JOB
        return None, action != IGNORE, str(action)
    return None, True, None


def _match_on_exit_codes(status: Mapping[str, Any], req: Mapping[str, Any]) -> Obj | None:
    """``matchOnExitCodes``: regular containers first, then init containers."""
    for key in ("containerStatuses", "initContainerStatuses"):
        found = _matching_container(status.get(key) or [], req)
        if found is not None:
            return found
    return None


def _matching_container(statuses: Iterable[Obj], req: Mapping[str, Any]) -> Obj | None:
    """``getMatchingContainerFromList``: the first terminated, non-zero exit that matches."""
    name = req.get("containerName")
    for cs in statuses:
        term = (cs.get("state") or {}).get("terminated")
        if term is None:
            continue  # still running or terminating: no exit code yet
        if name is not None and name != cs.get("name"):
            continue
        code = int(term.get("exitCode", 0))
        if code != 0 and _operator_matches(code, req):
            return cs
    return None


def _operator_matches(code: int, req: Mapping[str, Any]) -> bool:
    """``isOnExitCodesOperatorMatching``; an unknown operator never matches."""
    values = req.get("values") or []
    op = req.get("operator")
    if op == "In":
        return code in values
    if op == "NotIn":
        return code not in values
    return False


def _match_on_pod_conditions(
    status: Mapping[str, Any], patterns: Iterable[Mapping[str, Any]]
) -> Obj | None:
    """``matchOnPodConditions``: the first pod condition equal to a pattern's type and status."""
    pats = list(patterns)
    for cond in status.get("conditions") or []:
        for pat in pats:
            if cond.get("type") == pat.get("type") and cond.get("status") == pat.get("status"):
                out: Obj = cond
                return out
    return None


def counts_failure(job: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
    """Whether a failed pod counts toward backoffLimit (``nonIgnoredFailedPodsCount``)."""
    return match_pod_failure_policy(job["spec"].get("podFailurePolicy"), pod)[1]


def fail_job_message(job: Mapping[str, Any], pods: Iterable[Mapping[str, Any]]) -> str | None:
    """``getFailJobMessage``: the message of the first terminal pod matching a FailJob rule."""
    policy = job["spec"].get("podFailurePolicy")
    if policy is None:
        return None
    for p in pods:
        if is_pod_failed(p, job):
            msg = match_pod_failure_policy(policy, p)[0]
            if msg is not None:
                return msg
    return None
