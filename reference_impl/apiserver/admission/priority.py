"""Models plugin/pkg/admission/priority/admission.go: the Priority admission plugin.

On create, a Pod, PodGroup or CompositePodGroup gets ``spec.priority`` (and
``spec.preemptionPolicy``) from its ``priorityClassName``, or from the ``globalDefault``
class, or 0. A user-supplied value that disagrees, or an unknown class, is Forbidden, as
upstream. PriorityClass writes may not create a second global default. The built-in
system-cluster-critical / system-node-critical classes are created at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.apiserver.strategies.scheduling import SYSTEM_PRIORITY_CLASSES
from reference_impl.errors import Cause, Forbidden

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["PriorityAdmission", "install_priority"]

Obj = dict[str, Any]
_PC: Final = ("scheduling.k8s.io/v1", "PriorityClass")
_GROUP_KINDS: Final = ("PodGroup", "CompositePodGroup")
DEFAULT_POLICY: Final = "PreemptLowerPriority"


class PriorityAdmission:
    """``Priority``: resolve priority class names into integer priorities."""

    name = "Priority"

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """Fill priority/preemptionPolicy on create; reject unknown classes and mismatches."""
        if op is not Operation.CREATE or info.kind not in ("Pod", *_GROUP_KINDS) or ctx.subresource:
            return  # upstream: "Ignore all calls to subresources" (pods/binding too)
        spec = obj.setdefault("spec", {})
        pc_name = spec.get("priorityClassName") or ""
        if pc_name:
            pc = ctx.lister_get(*_PC, pc_name, None)
            if pc is None:
                raise self._forbidden(info, obj, f"no PriorityClass with name {pc_name} was found")
            value, policy = int(pc.get("value") or 0), pc.get("preemptionPolicy") or DEFAULT_POLICY
        else:
            default = _global_default(ctx)
            value = int(default.get("value") or 0) if default else 0
            policy = (default or {}).get("preemptionPolicy") or DEFAULT_POLICY
            if default is not None:
                spec["priorityClassName"] = default["metadata"]["name"]
        what = {"Pod": "pod", "CompositePodGroup": "composite pod group"}.get(
            info.kind, "pod group"
        )
        if spec.get("priority") is not None and int(spec["priority"]) != value:
            raise self._forbidden(
                info,
                obj,
                (
                    f"the integer value of priority ({spec['priority']}) must not be provided in {what} "
                    f"spec; priority admission controller computed {value} from the given PriorityClass name"
                ),
            )
        # Groups get a preemptionPolicy only with PodGroupPreemptionPolicy on (upstream's gate).
        group_policy = info.kind == "Pod" or ctx.gates.enabled("PodGroupPreemptionPolicy")
        if (
            group_policy
            and spec.get("preemptionPolicy") is not None
            and spec["preemptionPolicy"] != policy
        ):
            raise self._forbidden(
                info,
                obj,
                (
                    f"the string value of PreemptionPolicy ({spec['preemptionPolicy']}) must not be "
                    f"provided in {what} spec; priority admission controller computed {policy} from the "
                    "given PriorityClass name"
                ),
            )
        spec["priority"] = value
        if group_policy:
            spec["preemptionPolicy"] = policy

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """Only one PriorityClass may be the global default."""
        if info.kind != "PriorityClass" or not obj.get("globalDefault") or ctx.subresource:
            return []
        other = _global_default(ctx)
        if other is not None and other["metadata"]["name"] != obj["metadata"].get("name"):
            raise self._forbidden(
                info,
                obj,
                (
                    f"PriorityClass {other['metadata']['name']} is already marked as default. "
                    "Only one default can exist"
                ),
            )
        return []

    @staticmethod
    def _forbidden(info: ResourceInfo, obj: Obj, why: str) -> Forbidden:
        name = obj.get("metadata", {}).get("name", "")
        return Forbidden(f'{info.group_resource} "{name}" is forbidden: {why}')


def _global_default(ctx: Context) -> Obj | None:
    """The default class; with several (possible only by racing), the lowest value, as upstream."""
    defaults = [pc for pc in ctx.lister_list(*_PC, None) if pc.get("globalDefault")]
    return min(
        defaults, key=lambda pc: (int(pc.get("value") or 0), pc["metadata"]["name"]), default=None
    )


def install_priority(server: APIServer) -> None:
    """Enable the plugin on ``server`` and create the two built-in system classes."""
    server.admission.append(PriorityAdmission())
    for name, value in sorted(SYSTEM_PRIORITY_CLASSES.items()):
        if server.try_get(*_PC, name, None) is None:
            server.create(
                {
                    "apiVersion": _PC[0],
                    "kind": _PC[1],
                    "metadata": {"name": name},
                    "value": value,
                    "description": "Used for system critical pods that must run in the cluster.",
                }
            )
