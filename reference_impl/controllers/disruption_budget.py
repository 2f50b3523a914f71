"""The arithmetic of pkg/controller/disruption: what a PDB's status should say.

Kept apart from the control loop (``disruption.py``) so that it is pure: given the PDB,
its pods, a way to look up a controller's scale, and the time, it returns the status.
``minAvailable`` as an integer needs no controllers (expectedPods = matching pods);
a percentage, or ``maxUnavailable``, sums the scale of each pod's controller
(Deployment, ReplicaSet, StatefulSet, ReplicationController), rounding percentages up.
A pod without a controller is "unmanaged" and ignored in that sum; a controller without
a scale (a Job, say) is an error, which the controller turns into the fail-safe status.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.clock import Instant, parse_rfc3339, seconds
from reference_impl.controllers.controller_utils import controller_ref, is_pod_ready
from reference_impl.controllers.disruption_finders import SyncError

__all__ = [
    "DELETION_TIMEOUT",
    "Budget",
    "ScaleLookup",
    "SyncError",
    "compute",
    "scaled",
]

Obj = dict[str, Any]
# A pod an eviction approved must be gone within this long, or it counts again.
DELETION_TIMEOUT: Final = seconds(120)
# (controllerRef, namespace) -> (uid, replicas) of the controller, or None if not found
ScaleLookup = Callable[[Mapping[str, Any], str], "tuple[str, int] | None"]


@dataclass(slots=True)
class Budget:
    """The computed status numbers of one PDB."""

    current_healthy: int
    desired_healthy: int
    expected_pods: int
    disrupted_pods: dict[str, str] = field(default_factory=dict)
    unmanaged: list[str] = field(default_factory=list)
    recheck_at: Instant | None = None
    overdue: list[str] = field(default_factory=list)  # listed pods never deleted (NotDeleted)

    @property
    def disruptions_allowed(self) -> int:
        """currentHealthy - desiredHealthy, never negative, 0 while no pod is expected."""
        if self.expected_pods <= 0:
            return 0
        return max(0, self.current_healthy - self.desired_healthy)


def scaled(value: int | str, total: int) -> int:
    """``intstr.GetScaledValueFromIntOrPercent(value, total, roundUp=true)``."""
    if isinstance(value, str) and value.endswith("%"):
        return math.ceil(int(value[:-1]) * total / 100)
    return int(value)


def _expected_scale(pods: Sequence[Obj], scale_of: ScaleLookup) -> tuple[int, list[str]]:
    """The sum of the scales of the pods' controllers, and the unmanaged pods."""
    scales: dict[str, int] = {}
    unmanaged: list[str] = []
    for pod in pods:
        ref = controller_ref(pod)
        if ref is None:
            unmanaged.append(pod["metadata"]["name"])
            continue
        if ref.get("uid") in scales:
            continue
        found = scale_of(ref, pod["metadata"].get("namespace", "default"))
        if found is None:
            raise SyncError(f'found no controllers for pod "{pod["metadata"]["name"]}"')
        scales[found[0]] = found[1]
    return sum(scales.values()), unmanaged


def _disrupted(
    pdb: Obj, pods: Sequence[Obj], now: Instant, overdue: list[str] | None = None
) -> tuple[dict[str, str], Instant | None]:
    """``buildDisruptedPodMap``: keep entries of live pods that are not yet overdue."""
    listed = (pdb.get("status") or {}).get("disruptedPods") or {}
    kept: dict[str, str] = {}
    recheck: Instant | None = None
    for pod in pods:
        name = pod["metadata"]["name"]
        if pod["metadata"].get("deletionTimestamp") or name not in listed:
            continue
        due = Instant(parse_rfc3339(str(listed[name])) + DELETION_TIMEOUT)
        if due <= now:
            # Overdue (upstream: strictly before now; at the very instant it is due the
            # simulated clock would requeue forever, so that instant counts as overdue).
            if overdue is not None:
                overdue.append(name)
            continue
        kept[name] = str(listed[name])
        recheck = due if recheck is None or due < recheck else recheck
    return kept, recheck


def _healthy(pods: Sequence[Obj], disrupted: Mapping[str, str], now: Instant) -> int:
    """``countHealthyPods``: Ready, not being deleted, not about to be deleted."""
    count = 0
    for pod in pods:
        name = pod["metadata"]["name"]
        if pod["metadata"].get("deletionTimestamp"):
            continue
        if name in disrupted and parse_rfc3339(disrupted[name]) + DELETION_TIMEOUT > now:
            continue
        count += is_pod_ready(pod)
    return count


def compute(pdb: Obj, pods: Sequence[Obj], scale_of: ScaleLookup, now: Instant) -> Budget:
    """The status numbers of ``pdb`` over ``pods`` (those its selector matches)."""
    spec = pdb.get("spec") or {}
    unmanaged: list[str] = []
    if spec.get("maxUnavailable") is not None:
        expected, unmanaged = _expected_scale(pods, scale_of)
        desired = max(0, expected - scaled(spec["maxUnavailable"], expected))
    elif isinstance(spec.get("minAvailable"), int):
        desired, expected = int(spec["minAvailable"]), len(pods)
    elif spec.get("minAvailable") is not None:
        expected, unmanaged = _expected_scale(pods, scale_of)
        desired = scaled(spec["minAvailable"], expected)
    else:
        desired, expected = 0, 0  # neither set: upstream leaves both at zero
    overdue: list[str] = []
    disrupted, recheck = _disrupted(pdb, pods, now, overdue)
    healthy = _healthy(pods, disrupted, now)
    return Budget(healthy, desired, expected, disrupted, unmanaged, recheck, overdue)
