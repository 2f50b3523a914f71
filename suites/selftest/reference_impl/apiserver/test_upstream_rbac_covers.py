"""``rbac_reconcile.covers`` (the rule comparison the bootstrap reconcile uses) against
component-helpers v0.37.2 auth/rbac/validation policy_comparator_test.go: every
``TestCovers*`` function (one case each) and TestNonResourceURLCovers (one case per row).
Upstream compares the uncovered rules order-independently; the reference's come in
``BreakdownRule`` order, asserted exactly."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.rbac_reconcile import covers, non_resource_url_covers

Obj = dict[str, Any]


def r(groups: list[str] | None = None, verbs: list[str] | None = None, resources: list[str] | None = None,
      names: list[str] | None = None, urls: list[str] | None = None) -> Obj:
    """A PolicyRule in the wire shape (absent fields left out)."""
    out: Obj = {}
    for key, value in (("apiGroups", groups), ("verbs", verbs), ("resources", resources),
                       ("resourceNames", names), ("nonResourceURLs", urls)):
        if value is not None:
            out[key] = value
    return out


COVERS_ROWS = [
    pytest.param([r(["v1"], ["get"], ["builds"])], [r(["v1"], ["get"], ["builds"])], [], id="TestCoversExactMatch"),
    pytest.param([r(["v1"], ["get"], ["*/scale"])], [r(["v1"], ["get"], ["foo/scale"])], [],
                 id="TestCoversSubresourceWildcard"),
    pytest.param([r(["v1"], ["delete"], ["deployments"]), r(["v1"], ["delete"], ["builds"]),
                  r(["v1"], ["update"], ["builds", "deployments"])],
                 [r(["v1"], ["delete", "update"], ["builds", "deployments"])], [],
                 id="TestCoversMultipleRulesCoveringSingleRule"),
    pytest.param([r(["group1"], ["delete"], ["deployments"]), r(["group1"], ["delete"], ["builds"]),
                  r(["group1"], ["update"], ["builds", "deployments"]), r(["group2"], ["delete"], ["deployments"]),
                  r(["group2"], ["delete"], ["builds"]), r(["group2"], ["update"], ["builds", "deployments"])],
                 [r(["group1", "group2"], ["delete", "update"], ["builds", "deployments"])], [],
                 id="TestCoversMultipleAPIGroupsCoveringSingleRule"),
    pytest.param([r(["group1", "group2"], ["delete", "update"], ["builds", "deployments"])],
                 [r(["group1"], ["delete"], ["deployments"]), r(["group1"], ["delete"], ["builds"]),
                  r(["group1"], ["update"], ["builds", "deployments"]), r(["group2"], ["delete"], ["deployments"]),
                  r(["group2"], ["delete"], ["builds"]), r(["group2"], ["update"], ["builds", "deployments"])], [],
                 id="TestCoversSingleAPIGroupsCoveringMultiple"),
    pytest.param([r(["v1"], ["delete", "update"], ["builds", "deployments"]), r(["v1"], ["delete"], ["pods"])],
                 [r(["v1"], ["delete", "update"], ["builds", "deployments", "pods"])],
                 [r(["v1"], ["update"], ["pods"])], id="TestCoversMultipleRulesMissingSingleVerbResourceCombination"),
    pytest.param([r(["*"], ["get"], ["roles"])], [r(["group1", "group2"], ["get"], ["roles"])], [],
                 id="TestCoversAPIGroupStarCoveringMultiple"),
    pytest.param([r(["dummy-group"], ["get"], ["roles"])], [r(["*"], ["get"], ["roles"])],
                 [r(["*"], ["get"], ["roles"])], id="TestCoversEnumerationNotCoveringAPIGroupStar"),
    pytest.param([r(["*"], ["get"], ["roles"])], [r(["*"], ["get"], ["roles"])], [],
                 id="TestCoversAPIGroupStarCoveringStar"),
    pytest.param([r(["v1"], ["*"], ["roles"])], [r(["v1"], ["watch", "list"], ["roles"])], [],
                 id="TestCoversVerbStarCoveringMultiple"),
    pytest.param([r(["v1"], ["get", "list", "watch", "create", "update", "delete", "exec"], ["roles"])],
                 [r(["v1"], ["*"], ["roles"])], [r(["v1"], ["*"], ["roles"])],
                 id="TestCoversEnumerationNotCoveringVerbStar"),
    pytest.param([r(["v1"], ["*"], ["roles"])], [r(["v1"], ["*"], ["roles"])], [], id="TestCoversVerbStarCoveringStar"),
    pytest.param([r(["v1"], ["get"], ["*"])], [r(["v1"], ["get"], ["resourcegroup:deployments"])], [],
                 id="TestCoversResourceStarCoveringMultiple"),
    pytest.param([r(["v1"], ["get"], ["roles", "resourcegroup:deployments"])], [r(["v1"], ["get"], ["*"])],
                 [r(["v1"], ["get"], ["*"])], id="TestCoversEnumerationNotCoveringResourceStar"),
    pytest.param([r(["v1"], ["get"], ["*"])], [r(["v1"], ["get"], ["*"])], [], id="TestCoversResourceStarCoveringStar"),
    pytest.param([r(["v1"], ["get"], ["pods"], [])], [r(["v1"], ["get"], ["pods"], ["foo", "bar"])], [],
                 id="TestCoversResourceNameEmptyCoveringMultiple"),
    pytest.param([r(["v1"], ["get"], ["pods"], ["foo", "bar"])], [r(["v1"], ["get"], ["pods"], [])],
                 [r(["v1"], ["get"], ["pods"])], id="TestCoversEnumerationNotCoveringResourceNameEmpty"),
    pytest.param([r(verbs=["*"], urls=["/apis"])], [r(verbs=["*"], urls=["/apis"])], [], id="TestCoversNonResourceURLs"),
    pytest.param([r(verbs=["*"], urls=["*"])], [r(verbs=["*"], urls=["/apis", "/apis/v1", "/"])], [],
                 id="TestCoversNonResourceURLsStar"),
    pytest.param([r(verbs=["*"], urls=["/apis/*"])], [r(verbs=["get"], urls=["/apis", "/apis/v1"])],
                 [r(verbs=["get"], urls=["/apis"])], id="TestCoversNonResourceURLsStarAfterPrefixDoesntCover"),
    pytest.param([r(verbs=["*"], urls=["/apis/*"])], [r(verbs=["get"], urls=["/apis/v1/foo", "/apis/v1"])], [],
                 id="TestCoversNonResourceURLsStarAfterPrefix"),
    pytest.param([r(["v1"], ["get"], ["builds"], urls=["/apis"])], [r(["v1"], ["get"], ["builds"], urls=["/apis"])], [],
                 id="TestCoversNonResourceURLsWithOtherFields"),
    pytest.param([r(["v1"], ["get"], ["builds"])], [r(["v1"], ["get"], ["builds"], urls=["/apis"])],
                 [r(verbs=["get"], urls=["/apis"])], id="TestCoversNonResourceURLsWithOtherFieldsFailure"),
]  # fmt: skip


def _norm(rules: list[Obj]) -> list[Obj]:
    """Go's nil and empty slices alike."""
    return [{k: v for k, v in rule.items() if v} for rule in rules]


@pytest.mark.parametrize("owner,servant,uncovered", COVERS_ROWS)
def test_covers(owner: list[Obj], servant: list[Obj], uncovered: list[Obj]) -> None:
    got_covered, got_uncovered = covers(owner, servant)
    assert got_covered is (not uncovered)
    assert _norm(got_uncovered) == _norm(uncovered)


@pytest.mark.parametrize("owner,requested,want", [
    ("*", "", True), ("*", "/", True), ("*", "/api", True), ("/*", "", False), ("/*", "/", True),
    ("/*", "/foo", True), ("/api", "/api", True), ("/apis", "/api", False), ("/api/v1", "/api", False),
    ("/api/v1", "/api/v1", True), ("/api/*", "/api/v1", True), ("/api/*", "/api", False),
    ("/api/*/*", "/api/v1", False), ("/*/v1/*", "/api/v1", False),
])  # fmt: skip
def test_non_resource_url_covers(owner: str, requested: str, want: bool) -> None:
    """``TestNonResourceURLCovers``."""
    assert non_resource_url_covers(owner, requested) is want
