"""Upstream ``pod_failure_policy_test.go`` TestMatchPodFailurePolicy, against the
reference's ``match_pod_failure_policy`` (k8s.io/kubernetes v1.37.2, pkg/controller/job)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.controllers.job.pod_failure_policy import match_pod_failure_policy

Obj = dict[str, Any]


def _term(code: int, name: str | None = None) -> Obj:
    cs: Obj = {"state": {"terminated": {"exitCode": code}}}
    if name is not None:
        cs["name"] = name
    return cs


def _pod(
    containers: list[Obj] | None = None,
    inits: list[Obj] | None = None,
    conditions: list[tuple[str, str]] | None = None,
) -> Obj:
    status: Obj = {"phase": "Failed"}
    if containers is not None:
        status["containerStatuses"] = containers
    if inits is not None:
        status["initContainerStatuses"] = inits
    if conditions is not None:
        status["conditions"] = [{"type": t, "status": s} for t, s in conditions]
    return {"metadata": {"namespace": "default", "name": "mypod"}, "status": status}


def _codes(action: str, op: str, values: list[int]) -> Obj:
    return {"action": action, "onExitCodes": {"operator": op, "values": values}}


def _conds(action: str, ctype: str, status: str = "True") -> Obj:
    return {"action": action, "onPodConditions": [{"type": ctype, "status": status}]}


def _policy(*rules: Obj) -> Obj:
    return {"rules": list(rules)}


DT = "DisruptionTarget"
MSG = "Container main-container for pod default/mypod failed with exit code {} matching FailJob rule at index {}"

ROWS = [
    pytest.param(
        _policy(_codes("UnknownAction", "In", [1, 2]), _codes("FailJob", "In", [2, 3])),
        _pod([_term(2, "main-container")]),
        MSG.format(2, 1),
        True,
        "FailJob",
        id="unknown action for rule matching by exit codes - skip rule with unknown action",
    ),
    pytest.param(
        _policy(_conds("UnkonwnAction", DT), _conds("Ignore", DT)),
        _pod(conditions=[(DT, "True")]),
        None,
        False,
        "Ignore",
        id="unknown action for rule matching by pod conditions - skip rule with unknown action",
    ),
    pytest.param(
        _policy(_codes("Ignore", "UnknownOperator", [1, 2]), _codes("FailJob", "In", [2, 3])),
        _pod([_term(2, "main-container")]),
        MSG.format(2, 1),
        True,
        "FailJob",
        id="unknown operator - rule with unknown action is skipped for onExitCodes",
    ),
    pytest.param(None, _pod([_term(2)]), None, True, None, id="no policy rules"),
    pytest.param(
        _policy(_codes("Ignore", "In", [1, 2, 3])),
        _pod([_term(2)]),
        None,
        False,
        "Ignore",
        id="ignore rule matched for exit codes",
    ),
    pytest.param(
        _policy(_codes("Ignore", "In", [-1073741676, -1073741510])),
        _pod([_term(-1073741510)]),
        None,
        False,
        "Ignore",
        id="ignore rule matched on negative exit codes - needed for Windows support",
    ),
    pytest.param(
        _policy(_codes("FailJob", "In", [1, 2, 3])),
        _pod([_term(2, "main-container")]),
        MSG.format(2, 0),
        True,
        "FailJob",
        id="FailJob rule matched for exit codes",
    ),
    pytest.param(
        _policy(_codes("FailJob", "NotIn", [111])),
        _pod(
            [_term(111, "main-container"), _term(0, "suppport-container")],
            inits=[_term(0, "init-container")],
        ),
        None,
        True,
        None,
        id="successful containers are skipped by the rules",
    ),
    pytest.param(
        _policy(_codes("FailIndex", "In", [1, 2, 3])),
        _pod([_term(2)]),
        None,
        True,
        "FailIndex",
        id="FailIndex rule matched for exit codes",
    ),
    pytest.param(
        _policy(_codes("FailJob", "NotIn", [0])),
        _pod([_term(1, "main-container"), _term(0, "suppport-container")]),
        MSG.format(1, 0),
        True,
        "FailJob",
        id="pod failure policy with NotIn operator and value 0",
    ),
    pytest.param(
        _policy(_codes("Count", "In", [1, 2, 3]), _codes("FailJob", "In", [4, 5, 6])),
        _pod([_term(6, "main-container")]),
        MSG.format(6, 1),
        True,
        "FailJob",
        id="second jobfail rule matched for exit codes",
    ),
    pytest.param(
        _policy(_codes("Count", "In", [1, 2, 3])),
        _pod([{"name": "foo", "state": {}}, _term(2, "bar")]),
        None,
        True,
        "Count",
        id="count rule matched for exit codes",
    ),
    pytest.param(
        _policy(_conds("FailIndex", DT)),
        _pod(conditions=[(DT, "True")]),
        None,
        True,
        "FailIndex",
        id="FailIndex rule matched for pod conditions",
    ),
    pytest.param(
        _policy(_conds("Ignore", DT)),
        _pod(conditions=[(DT, "True")]),
        None,
        False,
        "Ignore",
        id="ignore rule matched for pod conditions",
    ),
    pytest.param(
        _policy(_conds("Ignore", DT, "False")),
        _pod(conditions=[(DT, "False")]),
        None,
        False,
        "Ignore",
        id="ignore rule matches by the status=False",
    ),
    pytest.param(
        _policy(_conds("Ignore", DT, "Unknown")),
        _pod(conditions=[(DT, "Unknown")]),
        None,
        False,
        "Ignore",
        id="ignore rule matches by the status=Unknown",
    ),
    pytest.param(
        _policy(_conds("Ignore", DT, "False")),
        _pod(conditions=[(DT, "True")]),
        None,
        True,
        None,
        id="ignore rule does not match when status for pattern is False, but actual True",
    ),
    pytest.param(
        _policy(_conds("Ignore", DT)),
        _pod(conditions=[(DT, "False")]),
        None,
        True,
        None,
        id="ignore rule does not match when status for pattern is True, but actual False",
    ),
    pytest.param(
        _policy(_conds("Ignore", DT)),
        _pod(conditions=[(DT, "False")]),
        None,
        True,
        None,
        id="default - do not match condition with status=False",
    ),
    pytest.param(
        _policy(_conds("FailJob", DT)),
        _pod(conditions=[(DT, "True")]),
        "Pod default/mypod has condition DisruptionTarget matching FailJob rule at index 0",
        True,
        "FailJob",
        id="job fail rule matched for pod conditions",
    ),
    pytest.param(
        _policy(_conds("Count", DT)),
        _pod(conditions=[(DT, "True")]),
        None,
        True,
        "Count",
        id="count rule matched for pod conditions",
    ),
    pytest.param(
        _policy(
            _codes("Count", "NotIn", [8]),
            _codes("Ignore", "In", [1, 2, 3]),
            _codes("FailJob", "NotIn", [5, 6, 7]),
            _conds("Count", "ResourceLimitExceeded"),
            _conds("Ignore", DT),
        ),
        _pod([_term(32)]),
        None,
        True,
        "Count",
        id="no rule matched",
    ),
]


@pytest.mark.parametrize(("policy", "pod", "want_msg", "want_count", "want_action"), ROWS)
def test_match_pod_failure_policy(
    policy: Obj | None,
    pod: Obj,
    want_msg: str | None,
    want_count: bool,
    want_action: str | None,
) -> None:
    assert match_pod_failure_policy(policy, pod) == (want_msg, want_count, want_action)
