"""Node spec.podPreemptionPolicy (KEP-5836): what the apiserver accepts for
disableResizePreemption, the owners that opt a node out of resize preemption."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Target
from fixtures.helpers.nodes import set_resize_preemption_policy
from reference_impl.errors import Invalid

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("KEP-5836"),
    pytest.mark.feature_gates(InPlacePodVerticalScalingSchedulerPreemption=True),
]

Obj = dict[str, Any]
PATH = "spec.podPreemptionPolicy.disableResizePreemption"


def _owners(node: Obj) -> list[str] | None:
    policy = (node.get("spec") or {}).get("podPreemptionPolicy")
    return None if policy is None else list(policy.get("disableResizePreemption") or [])


def test_owners_are_stored_and_can_be_cleared(target: Target, pool: Callable[..., str]) -> None:
    """Valid owners.

    Up to 20 distinct label keys (with or without a DNS prefix) MUST be stored as written,
    and writing the node without the policy MUST remove it.
    """
    node = pool()
    owners = ["cluster-autoscaler", "example.com/vpa", *[f"op-{i}" for i in range(18)]]
    assert _owners(set_resize_preemption_policy(target, node, owners)) == owners
    assert _owners(target.get("v1", "Node", node)) == owners
    assert _owners(set_resize_preemption_policy(target, node, None)) is None


@pytest.mark.parametrize(
    ("owners", "field", "message"),
    [
        (["a", "a"], f"{PATH}[1]", 'Duplicate value: "a"'),
        (["Not A Key!"], f"{PATH}[0]",
         "name part must consist of alphanumeric characters, '-', '_' or '.', and must start "
         "and end with an alphanumeric character"),
        ([f"o{i}" for i in range(21)], PATH, "Too many: 21: must have at most 20 items"),
        (["-bad.example.com/x"], f"{PATH}[0]", "prefix part a lowercase RFC 1123 subdomain"),
    ],
    ids=["duplicate", "not a label key", "more than 20", "bad prefix"],
)
def test_invalid_owners_are_rejected(
    target: Target, pool: Callable[..., str], owners: list[str], field: str, message: str
) -> None:
    """Invalid owners.

    disableResizePreemption MUST hold at most 20 items, each a label key, without
    duplicates; a write breaking that MUST be Invalid at the offending field with
    upstream's message, and the stored node MUST keep no policy.
    """
    node = pool()
    with pytest.raises(Invalid) as err:
        set_resize_preemption_policy(target, node, owners)
    causes = {c.field: c.message for c in err.value.causes}
    assert field in causes, causes
    assert message in causes[field]
    assert _owners(target.get("v1", "Node", node)) is None
