"""Defaulting of ``spec.preemptionPolicy`` on PodGroup and CompositePodGroup
(pkg/apis/scheduling/v1beta1 and v1alpha3 ``SetDefaults_PodGroup`` /
``SetDefaults_CompositePodGroup``, gate PodGroupPreemptionPolicy).

Defaulting runs before admission, so the Priority plugin then sees PreemptLowerPriority
as if the user had written it: a group naming a PriorityClass whose preemptionPolicy is
Never is Forbidden unless it spells out ``preemptionPolicy: Never`` itself. Checked on a
live 1.37.2 cluster.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, defaulter

__all__ = ["default_group_preemption_policy"]

Obj = dict[str, Any]
GATE: Final = "PodGroupPreemptionPolicy"


@defaulter("PodGroup", "CompositePodGroup")
def default_group_preemption_policy(obj: Obj, ctx: Context) -> None:
    """preemptionPolicy: PreemptLowerPriority when unset and the gate is on."""
    if not ctx.gates.enabled(GATE):
        return
    spec = obj.get("spec")
    if isinstance(spec, dict) and spec.get("preemptionPolicy") is None:
        spec["preemptionPolicy"] = "PreemptLowerPriority"
