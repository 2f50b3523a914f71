"""The Job success policy (``pkg/controller/job/success_policy.go``).

An Indexed Job whose ``spec.successPolicy`` has a rule met by its succeeded indexes gets
SuccessCriteriaMet (reason SuccessPolicy, "Matched rules at index N"), its remaining
pods are terminated, and it becomes Complete once none is left.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from reference_impl.controllers.job.indexed_job_utils import parse_intervals, total

__all__ = ["SUCCESS_POLICY", "match_success_policy", "match_succeeded_indexes_rule"]

SUCCESS_POLICY: Final = "SuccessPolicy"  # batch.JobReasonSuccessPolicy
_MATCHED: Final = "Matched rules at index"


def match_success_policy(
    policy: Mapping[str, Any] | None,
    completions: int,
    succeeded: Sequence[tuple[int, int]],
) -> tuple[str, bool]:
    """``matchSuccessPolicy``: the message of the first rule met, and whether one was."""
    if policy is None or not succeeded:
        return "", False
    for n, rule in enumerate(policy.get("rules") or []):
        count = rule.get("succeededCount")
        if rule.get("succeededIndexes") is not None:
            required = parse_intervals(str(rule["succeededIndexes"]), completions)
            if not required:
                continue  # unparsable or empty: the rule can never match
            if match_succeeded_indexes_rule(required, succeeded, count):
                return f"{_MATCHED} {n}", True
        elif count is not None and total(succeeded) >= int(count):
            return f"{_MATCHED} {n}", True
    return "", False


def match_succeeded_indexes_rule(
    rule: Sequence[tuple[int, int]],
    succeeded: Sequence[tuple[int, int]],
    count: int | None,
) -> bool:
    """``matchSucceededIndexesRule``: every rule index succeeded, or at least ``count``
    of them did."""
    contains = r = s = 0
    while r < len(rule) and s < len(succeeded):
        overlap = min(rule[r][1], succeeded[s][1]) - max(rule[r][0], succeeded[s][0]) + 1
        if overlap > 0:
            contains += overlap
        if succeeded[s][1] < rule[r][1]:
            s += 1
        elif succeeded[s][1] > rule[r][1]:
            r += 1
        else:
            s += 1
            r += 1
    return contains == total(rule) or (count is not None and contains >= int(count))
