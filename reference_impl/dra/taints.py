"""Device taints and tolerations, after ``k8s.io/dynamic-resource-allocation/resourceclaim``.

A device's taints are those its slice publishes plus those of every DeviceTaintRule whose
selector matches it. A rule's selector has only ``driver``, ``pool`` and ``device``: all set
fields must match, an empty selector matches every device, a missing one matches none.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from reference_impl.dra.pools import DeviceID

__all__ = ["BLOCKING", "rule_matches", "taints_for", "tolerates", "untolerated"]

Obj = dict[str, Any]
BLOCKING: Final = frozenset({"NoSchedule", "NoExecute"})


def rule_matches(rule: Obj, device: DeviceID) -> bool:
    """Whether a DeviceTaintRule's ``spec.deviceSelector`` selects ``device``."""
    sel = (rule.get("spec") or {}).get("deviceSelector")
    if sel is None:
        return False
    driver, pool, name = device
    return all(
        sel.get(f) in (None, "", want)
        for f, want in (("driver", driver), ("pool", pool), ("device", name))
    )


def taints_for(device: DeviceID, slice_taints: Sequence[Obj], rules: Iterable[Obj]) -> list[Obj]:
    """Slice taints plus the taints of matching rules."""
    out = list(slice_taints)
    out += [r["spec"]["taint"] for r in rules if rule_matches(r, device)]
    return out


def tolerates(tol: Obj, taint: Obj) -> bool:
    """``DeviceToleration.ToleratesTaint``."""
    if tol.get("effect") and tol["effect"] != taint.get("effect"):
        return False
    if tol.get("key") and tol["key"] != taint.get("key"):
        return False
    if tol.get("operator", "Equal") == "Exists":
        return True
    return bool(tol.get("value", "") == taint.get("value", ""))


def untolerated(
    taints: Sequence[Obj], tolerations: Sequence[Obj], effects: frozenset[str] = BLOCKING
) -> list[Obj]:
    """Taints with an effect in ``effects`` that no toleration tolerates."""
    return [
        t for t in taints
        if t.get("effect") in effects and not any(tolerates(tol, t) for tol in tolerations)
    ]
