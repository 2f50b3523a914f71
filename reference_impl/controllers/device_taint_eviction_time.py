"""When a device taint evicts a claim's pods (``claimEvictionTime`` upstream).

An untolerated ``NoExecute`` taint evicts at its ``timeAdded``. A ``NoExecute`` toleration
with ``tolerationSeconds`` delays that to ``timeAdded + seconds`` (the smallest of several,
negative counting as 0); one without seconds tolerates the taint forever. The apiserver
sets ``timeAdded`` (see ``apiserver/strategies/resource_time.py``), so the delay counts
from when the taint, or a rule's current effect, appeared.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reference_impl.clock import Instant, parse_rfc3339, seconds
from reference_impl.dra.taints import tolerates

__all__ = [
    "Eviction", "claim_names", "earliest", "finished", "pool_of", "results", "taint_eviction",
]

Obj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Eviction:
    """When pods of a claim must go, and the rules (by uid) among the reasons."""

    when: Instant
    rules: frozenset[str]


def earliest(a: Eviction | None, b: Eviction | None) -> Eviction | None:
    """The earlier eviction, with the reasons of both."""
    if a is None or b is None:
        return a or b
    return Eviction(min(a.when, b.when), a.rules | b.rules)


def _time(taint: Obj) -> Instant:
    added = taint.get("timeAdded")
    return parse_rfc3339(added) if added else Instant(0)


def taint_eviction(taint: Obj, tolerations: list[Obj]) -> Instant | None:
    """``claimEvictionTime`` for one taint: None when tolerated forever."""
    secs: int | None = None
    for tol in tolerations:
        # Only an explicit NoExecute toleration counts here, as upstream.
        if tol.get("effect") == "NoExecute" and tolerates(tol, taint):
            if tol.get("tolerationSeconds") is None:
                return None
            s = max(int(tol["tolerationSeconds"]), 0)
            secs = s if secs is None else min(secs, s)
    return Instant(_time(taint) + seconds(secs or 0))


def pool_of(slice_: Obj) -> tuple[str, str]:
    """(driver, pool) of a ResourceSlice."""
    spec = slice_.get("spec") or {}
    return spec.get("driver", ""), (spec.get("pool") or {}).get("name", "")


def results(claim: Obj) -> list[Obj]:
    """The allocated device results of a claim (empty when not allocated)."""
    alloc = (claim.get("status") or {}).get("allocation") or {}
    return list((alloc.get("devices") or {}).get("results") or ())


def claim_names(pod: Obj) -> list[tuple[str, bool]]:
    """``resourceclaim.PodClaims``: (claim name, must check the owner) of the pod's known
    claims; generated and extended-resource claims must be owned by the pod."""
    generated = {s.get("name"): s.get("resourceClaimName")
                 for s in (pod.get("status") or {}).get("resourceClaimStatuses") or ()}
    out: list[tuple[str, bool]] = []
    for ref in pod["spec"].get("resourceClaims") or ():
        if ref.get("resourceClaimName"):
            out.append((str(ref["resourceClaimName"]), False))
        elif ref.get("resourceClaimTemplateName") and generated.get(ref["name"]):
            out.append((str(generated[ref["name"]]), True))
    ext = ((pod.get("status") or {}).get("extendedResourceClaimStatus") or {}).get("resourceClaimName")
    if ext:
        out.append((str(ext), True))
    return out


def finished(pod: Obj) -> bool:
    """Whether the pod has terminated (it is never evicted then)."""
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")
