"""``pkg/apis/admissionregistration/validation``: ``warnings_test.go``
``TestWarningsForWebhookRules`` (validating and mutating webhooks alike, against upstream's
two-entry test exclusion list) and ``static_suffix_test.go`` ``TestWarningsForStaticSuffix``."""

from __future__ import annotations

import pytest

from reference_impl.apiserver.warnings.admissionregistration import (
    static_suffix_warnings,
    webhook_rules_warnings,
)

EXCLUDED = (("authentication.k8s.io", "tokenreviews"), ("authorization.k8s.io", "subjectaccessreviews"))
NO_EFFECT = "is excluded from admission webhooks; this rule will have no effect"


def _rule(groups: list[str], versions: list[str], resources: list[str]) -> dict[str, object]:
    return {"operations": ["*"], "apiGroups": groups, "apiVersions": versions, "resources": resources}


RULE_ROWS = [
    ("no warnings for normal resources", _rule([""], ["v1"], ["pods", "configmaps"]), []),
    ("warning for explicit excluded resource", _rule(["authentication.k8s.io"], ["v1"], ["tokenreviews"]),
     [f"webhooks[0].rules[0]: tokenreviews.authentication.k8s.io {NO_EFFECT}"]),
    ("warning only for the excluded resource in a mixed rule",
     _rule(["authorization.k8s.io"], ["v1"], ["subjectaccessreviews", "somethingelse"]),
     [f"webhooks[0].rules[0]: subjectaccessreviews.authorization.k8s.io {NO_EFFECT}"]),
    ("no warning for all wildcards", _rule(["*"], ["*"], ["*"]), []),
    ("no warning for wildcard apiGroups", _rule(["*"], ["v1"], ["tokenreviews"]), []),
    ("warning for wildcard apiVersions naming an excluded resource",
     _rule(["authentication.k8s.io"], ["*"], ["tokenreviews"]),
     [f"webhooks[0].rules[0]: tokenreviews.authentication.k8s.io {NO_EFFECT}"]),
    ("no warning for wildcard resources", _rule(["authentication.k8s.io"], ["v1"], ["*"]), []),
    ("no warning for excluded resource in wrong group", _rule(["example.com"], ["v1"], ["tokenreviews"]), []),
]  # fmt: skip


@pytest.mark.parametrize(("rule", "want"), [pytest.param(r, w, id=n) for n, r, w in RULE_ROWS])
def test_warnings_for_webhook_rules(rule: dict[str, object], want: list[str]) -> None:
    assert webhook_rules_warnings([{"name": "w", "rules": [rule]}], EXCLUDED) == want


SUFFIX_ROWS = [
    ("valid name without suffix", "my-webhook", False),
    ("name with static suffix", "my-webhook.static.k8s.io", True),
    ("valid name with similar suffix", "my-webhook.k8s.io", False),
]


@pytest.mark.parametrize(("name", "warn"), [pytest.param(n, w, id=i) for i, n, w in SUFFIX_ROWS])
def test_warnings_for_static_suffix(name: str, warn: bool) -> None:
    assert bool(static_suffix_warnings(name)) == warn
