"""``stateful_set_compatibility_test.go`` (v1.37.2) with its testdata (sets and revisions
written by 1.33 and 1.34): an unchanged set keeps its latest revision, whether the stored
bytes equal today's encoding (1.34) or only mean the same (1.33, which wrote
``creationTimestamp: null``; StatefulSetSemanticRevisionComparison)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from statefulset_upstream_env import setup_controller

from reference_impl.controllers.statefulset.revisions import new_revision

Obj = dict[str, Any]
DATA = Path(__file__).parent / "statefulset_testdata"


def _load(name: str) -> Obj:
    out: Obj = json.loads((DATA / name).read_text())
    return out


SET_133, SET_134 = _load("compatibility_set_1.33.0.json"), _load("compatibility_set_1.34.0.json")
REV_133, REV_134 = _load("compatibility_revision_1.33.0.json"), _load("compatibility_revision_1.34.0.json")


@pytest.mark.parametrize(
    ("ss", "revisions"),
    [
        pytest.param(SET_133, [REV_133], id="1.33 set, 1.33 rev"),
        pytest.param(SET_134, [REV_134], id="1.34 set, 1.34 rev"),
        pytest.param(SET_134, [REV_133, REV_134], id="1.34 set, 1.33+1.34 rev"),
    ],
)
def test_stateful_set_compatibility(ss: Obj, revisions: list[Obj]) -> None:
    """TestStatefulSetCompatibility: current and update are the latest revision, unchanged."""
    env = setup_controller()
    revisions = copy.deepcopy(revisions)
    for rev in revisions:
        env.history.revisions[f"default/{rev['metadata']['name']}"] = copy.deepcopy(rev)
    latest = revisions[-1]
    current, update, _ = env.ssc.get_stateful_set_revisions(copy.deepcopy(ss), revisions)
    assert current == latest and update == latest
    assert len(env.history.revisions) == len(revisions)


def test_revision_name_is_upstreams_hash() -> None:
    """The 1.34 set's revision is named as 1.34 named it: the patch is encoded as Go
    encodes it and hashed by ``HashControllerRevision``."""
    assert new_revision(SET_134, 1, 0)["metadata"]["name"] == REV_134["metadata"]["name"]
    assert new_revision(SET_134, 1, 0)["data"] == REV_134["data"]
