"""Turning the devices picked for one claim into its ``status.allocation``.

One result per device, in pick order, with the request's adminAccess and tolerations,
the shareID and consumed capacity of a shared device, and (DRADeviceBindingConditions)
the device's binding and binding-failure conditions. Class config comes first, once per
request it applies to, then the claim's config. The node selector pins the allocation to
the node when any device is node-local or ``bindsToNode``; otherwise it is the devices'
own selector, or unset (usable everywhere).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from reference_impl.dra.consumption import consumption, format_quantity
from reference_impl.dra.features import Features
from reference_impl.dra.pools import DeviceInfo

__all__ = ["Picked", "allocation_result"]

Obj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Picked:
    """One device picked for a request of the claim."""

    request: str  # "<request>" or "<request>/<subrequest>"
    spec: Obj  # the exactly / firstAvailable entry
    device: DeviceInfo
    shared: bool  # a share of a multi-allocatable device


def _result(p: Picked, features: Features, share_id: Callable[[], str]) -> Obj:
    driver, pool, dev = p.device.id
    r: Obj = {"request": p.request, "driver": driver, "pool": pool, "device": dev}
    if p.spec.get("adminAccess"):
        r["adminAccess"] = True
    if p.spec.get("tolerations"):
        r["tolerations"] = list(p.spec["tolerations"])
    if features.binding_conditions:
        for f in ("bindingConditions", "bindingFailureConditions"):
            if p.device.raw.get(f):
                r[f] = list(p.device.raw[f])
    if p.shared:
        r["shareID"] = share_id()
        amounts: dict[str, Decimal] = consumption(p.spec, p.device)
        if amounts:  # none consumed: the field stays unset (omitempty), as upstream's nil map
            r["consumedCapacity"] = {
                c.rpartition("/")[2] if c.startswith(driver + "/") else c: format_quantity(v)
                for c, v in sorted(amounts.items())
            }
    return r


def allocation_result(
    claim: Obj,
    picks: Iterable[Picked],
    classes: Mapping[str, Obj],
    node: Obj | None,
    features: Features,
    share_id: Callable[[], str],
) -> Obj:
    """The ``status.allocation`` of ``claim`` for ``picks`` on ``node``."""
    results: list[Obj] = []
    config: list[Obj] = []
    pin = False
    selectors: list[Obj] = []
    for p in picks:
        results.append(_result(p, features, share_id))
        binds = features.binding_conditions and bool(p.device.raw.get("bindsToNode"))
        pin = pin or p.device.node_name is not None or binds
        if p.device.node_selector is not None:
            selectors.append(p.device.node_selector)
        for cfg in (classes[p.spec["deviceClassName"]].get("spec") or {}).get("config") or ():
            config.append({"source": "FromClass", "requests": [p.request], **cfg})
    for cfg in ((claim.get("spec") or {}).get("devices") or {}).get("config") or ():
        config.append({"source": "FromClaim", **cfg})
    out: Obj = {"devices": {"results": results}}
    if config:
        out["devices"]["config"] = config
    if pin and node is not None:
        term = {"key": "metadata.name", "operator": "In", "values": [node["metadata"]["name"]]}
        out["nodeSelector"] = {"nodeSelectorTerms": [{"matchFields": [term]}]}
    elif selectors:
        out["nodeSelector"] = _union(selectors)
    return out


def _union(selectors: list[Obj]) -> Obj:
    """createNodeSelector: one term with every requirement of the devices' one-term
    selectors (each once). A selector of several terms (validation forbids it) is kept
    as it is when it is the only one."""
    term: dict[str, list[Obj]] = {"matchFields": [], "matchExpressions": []}
    for sel in selectors:
        terms = sel.get("nodeSelectorTerms") or []
        if len(terms) != 1:
            if len(selectors) == 1:
                return sel
            continue
        for k, reqs in term.items():
            reqs.extend(r for r in terms[0].get(k) or () if r not in reqs)
    return {"nodeSelectorTerms": [{k: v for k, v in term.items() if v}]}
