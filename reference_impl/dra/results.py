"""Turning the devices picked for one claim into its ``status.allocation``.

One result per device, in pick order, with the request's adminAccess and tolerations,
the shareID and consumed capacity of a shared device, the slice's skipNodeOperations
(DRAOptionalNodeOperations), and (DRADeviceBindingConditions)
the device's binding and binding-failure conditions. Class config comes first, once per
request it applies to, then the claim's config. The node selector pins the allocation to
the node when any device is node-local or ``bindsToNode``; otherwise it is the devices'
own selector, or unset (usable everywhere).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from reference_impl.dra.consumption import consumed_strings
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
    # Copied by the experimental allocator only (gate off: it takes no such device).
    if features.optional_node_operations and p.device.skip_node_operations:
        r["skipNodeOperations"] = list(p.device.skip_node_operations)
    if features.binding_conditions:
        for f in ("bindingConditions", "bindingFailureConditions"):
            if p.device.raw.get(f):
                r[f] = list(p.device.raw[f])
    if p.shared:
        r["shareID"] = share_id()
        amounts = consumed_strings(p.spec, p.device, features.fractional_capacity_range)
        if amounts:  # none consumed: the field stays unset (omitempty), as upstream's nil map
            r["consumedCapacity"] = {
                c.rpartition("/")[2] if c.startswith(driver + "/") else c: v for c, v in sorted(amounts.items())
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
    pin = False
    selectors: list[Obj] = []
    chosen: list[Picked] = []  # the first pick of each request, in request order
    for p in picks:
        results.append(_result(p, features, share_id))
        binds = features.binding_conditions and bool(p.device.raw.get("bindsToNode"))
        pin = pin or p.device.node_name is not None or binds
        if p.device.node_selector is not None:
            selectors.append(p.device.node_selector)
        if not chosen or chosen[-1].request != p.request:
            chosen.append(p)
    config = _config(claim, chosen, classes)
    out: Obj = {"devices": {"results": results}}
    if config:
        out["devices"]["config"] = config
    if pin and node is not None:
        term = {"key": "metadata.name", "operator": "In", "values": [node["metadata"]["name"]]}
        out["nodeSelector"] = {"nodeSelectorTerms": [{"matchFields": [term]}]}
    elif selectors:
        out["nodeSelector"] = _union(selectors)
    return out


def _config(claim: Obj, chosen: list[Picked], classes: Mapping[str, Obj]) -> list[Obj]:
    """The allocation's config, as upstream's allocator builds it: each class's configs once,
    naming every request that uses the class; the claim's configs that are unscoped or name
    an allocated request (or chosen subrequest); and no ``requests`` on a config that covers
    every request of the claim ("empty means all")."""
    claim_configs = ((claim.get("spec") or {}).get("devices") or {}).get("config") or ()
    if not claim_configs and not any(
        (classes[p.spec["deviceClassName"]].get("spec") or {}).get("config") for p in chosen
    ):
        return []  # the common case: nothing configured anywhere
    config: list[Obj] = []
    by_class: dict[str, list[Obj]] = {}
    for p in chosen:
        name = p.spec["deviceClassName"]
        entries = by_class.get(name)
        if entries is not None:
            for e in entries:
                e["requests"].append(p.request)
            continue
        entries = by_class[name] = [{"source": "FromClass", "requests": [p.request], **cfg}
                                    for cfg in (classes[name].get("spec") or {}).get("config") or ()]
        config.extend(entries)
    names = {p.request for p in chosen} | {p.request.partition("/")[0] for p in chosen}
    for cfg in claim_configs:
        scope = cfg.get("requests") or []
        if not scope or any(r in names for r in scope):
            config.append({"source": "FromClaim", **cfg})
    top = [r["name"] for r in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ()]
    picked = {p.request.partition("/")[0]: p.request for p in chosen}
    for e in config:
        scope = e.get("requests") or []
        if scope and all(r in scope or picked.get(r) in scope for r in top):
            del e["requests"]
    return config


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
