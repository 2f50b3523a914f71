"""Node ``spec.podPreemptionPolicy`` (KEP-5836): upstream's ``dropDisabledFields`` for it in
pkg/registry/core/node and the declarative rules of ``NodePodPreemptionPolicy``.

The field is dropped on a write unless InPlacePodVerticalScalingSchedulerPreemption is on
or the stored node already has it. ``disableResizePreemption`` holds at most 20 owners,
each a label key, without duplicates; an update that leaves the list unchanged is not
revalidated (declarative validation's ratcheting).
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.formats import label_key_errors
from reference_impl.apiserver.registry import Context, preparer, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["drop_pod_preemption_policy", "validate_pod_preemption_policy"]

Obj = dict[str, Any]
GATE: Final = "InPlacePodVerticalScalingSchedulerPreemption"
PATH: Final = "spec.podPreemptionPolicy.disableResizePreemption"
MAX_OWNERS: Final = 20


def _policy(node: Obj | None) -> Obj | None:
    p = ((node or {}).get("spec") or {}).get("podPreemptionPolicy")
    return p if isinstance(p, dict) else None


@preparer("Node")
def drop_pod_preemption_policy(node: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """Without the gate, a node that did not use the field cannot start to."""
    spec = node.get("spec")
    if ctx.gates.get(GATE, False) or _policy(old) is not None or not isinstance(spec, dict):
        return
    spec.pop("podPreemptionPolicy", None)


@validator("Node")
def validate_pod_preemption_policy(node: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """maxItems 20, then each owner a label key and the set unique."""
    policy = _policy(node)
    if policy is None:
        return []
    owners = policy.get("disableResizePreemption") or []
    old_policy = _policy(old)
    if old_policy is not None and owners == (old_policy.get("disableResizePreemption") or []):
        return []
    if not isinstance(owners, list):
        return []
    if len(owners) > MAX_OWNERS:
        return [fe.too_many(PATH, len(owners), MAX_OWNERS)]
    causes: list[Cause] = []
    for i, owner in enumerate(owners):
        causes += [fe.invalid(f"{PATH}[{i}]", owner, m) for m in label_key_errors(str(owner))]
    seen: set[str] = set()
    for i, owner in enumerate(owners):
        if owner in seen:
            causes.append(fe.duplicate(f"{PATH}[{i}]", owner))
        seen.add(str(owner))
    return causes
