"""Models plugin/pkg/admission/defaulttolerationseconds: DefaultTolerationSeconds.

On Pod create and update, a pod that does not already tolerate ``node.kubernetes.io/not-ready`` or
``node.kubernetes.io/unreachable`` with effect NoExecute (an empty key or effect counts as
tolerating) gets an ``Exists`` toleration for each with ``tolerationSeconds: 300``
(``--default-not-ready-toleration-seconds`` / ``--default-unreachable-toleration-seconds``).
That is why a pod on a lost node is evicted five minutes after its node is tainted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.resources import ResourceInfo
from reference_impl.api.well_known_taints import TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.errors import Cause

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["DEFAULT_TOLERATION_SECONDS", "install"]

Obj = dict[str, Any]
DEFAULT_TOLERATION_SECONDS: Final = 300


def _tolerates(tolerations: list[Obj], key: str) -> bool:
    return any(
        (t.get("key") or "") in ("", key) and (t.get("effect") or "") in ("", "NoExecute")
        for t in tolerations
    )


class DefaultTolerationSeconds:
    """Add the 300 s not-ready/unreachable NoExecute tolerations a pod lacks."""

    name = "DefaultTolerationSeconds"

    def __init__(
        self,
        not_ready_seconds: int = DEFAULT_TOLERATION_SECONDS,
        unreachable_seconds: int = DEFAULT_TOLERATION_SECONDS,
    ) -> None:
        self._seconds = {TAINT_NODE_NOT_READY: not_ready_seconds, TAINT_NODE_UNREACHABLE: unreachable_seconds}

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """Pod creates and updates (``NewHandler(Create, Update)``); no subresource."""
        if op not in (Operation.CREATE, Operation.UPDATE) or info.kind != "Pod" or ctx.subresource:
            return
        spec = obj.setdefault("spec", {})
        tolerations: list[Obj] = list(spec.get("tolerations") or [])
        added = [
            {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": secs}
            for key, secs in self._seconds.items()
            if not _tolerates(tolerations, key)
        ]
        if added:
            spec["tolerations"] = tolerations + added

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """Mutating only."""
        return []


def install(server: APIServer) -> None:
    """Enable the plugin (it is on by default in kube-apiserver)."""
    server.admission.append(DefaultTolerationSeconds())
