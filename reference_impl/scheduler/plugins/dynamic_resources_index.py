"""DynamicResources' requeue index (DRA-REQUEUE), alongside ``dynamicresources.go``'s hints.

Upstream's queueing hints run per pod for every claim/slice/class event. This index lets
the queue skip that scan: a pod the plugin rejected is filed under ``pod:<uid>``,
``claim:<ns>/<name>`` for each claim it references and ``class:<name>`` for each
DeviceClass its claims request. An event names the keys it may help:

- a ResourceClaim event: the claim, its owning pod, and, when it frees an allocation, the
  classes whose selectors match the freed devices or a device consuming the same shared
  counters (upstream queues every pod on a deallocation: ``preQueueingHint``);
- a ResourceSlice event, or a Node add: the classes whose selectors match a device that is
  now usable in the slice's pool (the whole pool when the slice declares shared counters
  or has no node name), or from the node;
- a DeviceClass event: the class.

Anything else (e.g. a DeviceTaintRule change) names no keys, and every pod the plugin
rejected is examined, as upstream. Class selectors (not request selectors) are used, so
the keys are a superset of the pods the event can help.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from typing import Any

from reference_impl.dra.cel import CELError, compile_selector
from reference_impl.dra.pools import DeviceID, DeviceInfo
from reference_impl.dra.tracker import ClaimTracker
from reference_impl.scheduler.framework.interface import ClusterEvent, EventResource

__all__ = ["ClaimEventIndex", "missing_device_class"]

Obj = dict[str, Any]


def _class_names(claim: Obj) -> list[str]:
    out = []
    for req in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
        if "exactly" in req:
            out.append(str(req["exactly"].get("deviceClassName", "")))
        out += [str(s.get("deviceClassName", "")) for s in req.get("firstAvailable") or ()]
    return out


def _request_classes(claim: Obj) -> list[tuple[str, str]]:
    # (request name, class): ``exactly`` by its name, subrequests as "<request>/<sub>".
    out = []
    for req in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
        if "exactly" in req:
            out.append((str(req.get("name", "")), str(req["exactly"].get("deviceClassName", ""))))
        out += [(f"{req.get('name', '')}/{s.get('name', '')}", str(s.get("deviceClassName", "")))
                for s in req.get("firstAvailable") or ()]
    return out


def missing_device_class(claims: Sequence[Obj], classes: Container[str]) -> str:
    """``validateDeviceClass``'s message for the first request of an unallocated claim
    whose class does not exist in ``classes`` (names), or "" (the pod then waits for a
    DeviceClass event)."""
    for c in claims:
        if (c.get("status") or {}).get("allocation"):
            continue
        for request, name in _request_classes(c):
            if name not in classes:
                return f"request {request}: device class {name} does not exist"
    return ""


class ClaimEventIndex:
    """Computes the index keys of pods and events from the plugin's ClaimTracker."""

    def __init__(self, tracker: ClaimTracker) -> None:
        self._t = tracker

    # -- pods -------------------------------------------------------------------------

    def pod_keys(self, pod: Obj) -> list[str] | None:
        """The keys of a rejected pod; None when it has no claims (not indexable)."""
        refs = pod["spec"].get("resourceClaims") or ()
        if not refs:
            return None
        ns = pod["metadata"].get("namespace", "default")
        keys = [f"pod:{pod['metadata'].get('uid', '')}"]
        for ref in refs:
            name = self._t.claim_name(pod, ref)
            if not name:
                if self._t.group_of(pod, ref) is not None:  # KEP-5729: the group claim to come
                    keys.append(f"group:{ns}/{pod['spec']['schedulingGroup']['podGroupName']}")
                continue
            keys.append(f"claim:{ns}/{name}")
            claim = self._t.claims.get(f"{ns}/{name}")
            if claim is not None:
                keys += [f"class:{c}" for c in _class_names(claim)]
        return keys

    # -- events -----------------------------------------------------------------------

    def event_keys(self, event: ClusterEvent, old: Obj | None, new: Obj | None) -> list[str] | None:
        """The keys ``event`` may help; None = every pod the plugin rejected."""
        obj = new or old
        if obj is None:
            return None
        kind = obj.get("kind", "")
        if event.resource is EventResource.RESOURCE_CLAIM:
            return self._claim_keys(old, new)
        if event.resource is EventResource.RESOURCE_SLICE and kind == "ResourceSlice":
            return self._classes_matching(self._pool_devices(obj))
        if event.resource is EventResource.DEVICE_CLASS:
            return [f"class:{obj['metadata']['name']}"]
        if event.resource is EventResource.NODE and new is not None:
            return self._node_keys(new["metadata"]["name"])
        return None

    def _claim_keys(self, old: Obj | None, new: Obj | None) -> list[str]:
        obj = new or old
        assert obj is not None
        meta = obj["metadata"]
        keys = [f"claim:{meta.get('namespace', 'default')}/{meta['name']}"]
        keys += [
            f"pod:{r['uid']}" for r in meta.get("ownerReferences") or () if r.get("kind") == "Pod"
        ]
        keys += [
            f"group:{meta.get('namespace', 'default')}/{r['name']}"
            for r in meta.get("ownerReferences") or () if r.get("kind") == "PodGroup"
        ]
        freed = ((old or {}).get("status") or {}).get("allocation")
        if freed and not ((new or {}).get("status") or {}).get("allocation"):
            ids: list[DeviceID] = [
                (r["driver"], r["pool"], r["device"])
                for r in (freed.get("devices") or {}).get("results") or ()
            ]
            devices = [d for d in map(self._t.device, ids) if d is not None]
            keys += self._classes_matching(self._counter_sharers(devices))
        return keys

    def _node_keys(self, node: str) -> list[str]:
        # Usually a node registers before its driver publishes: skip the pool rebuild then.
        if not any(
            (sl.get("spec") or {}).get("nodeName") in (node, None)
            for sl in self._t.slices.cache.values()
        ):
            return []
        return self._classes_matching(self._t.devices_for(node))

    def _pool_devices(self, slice_: Obj) -> list[DeviceInfo]:
        # The whole pool: the slice that completes a pool makes its siblings' devices usable.
        spec = slice_.get("spec") or {}
        driver, pool = str(spec.get("driver", "")), str((spec.get("pool") or {}).get("name", ""))
        node = spec.get("nodeName")
        if not node or spec.get("sharedCounters"):
            # Counters are consumed by devices anywhere in the pool, and devices with their
            # own node selection (perDeviceNodeSelection) are not under the slice's node.
            return self._t.pool_devices(driver, pool)
        devices = self._t.devices_for(str(node))
        return [d for d in devices if d.id[0] == driver and d.id[1] == pool]

    def _counter_sharers(self, freed: list[DeviceInfo]) -> list[DeviceInfo]:
        """``freed`` and the devices of their pools consuming the same counter sets: freed
        counters (DRAPartitionableDevices) may let a device of another class fit."""
        sets = {(d.id[0], d.id[1], str(u.get("counterSet", ""))) for d in freed for u in d.counters}
        if not sets:
            return freed
        out, seen = list(freed), {d.id for d in freed}
        for driver, pool in sorted({(a, b) for a, b, _ in sets}):
            for d in self._t.pool_devices(driver, pool):
                if d.id not in seen and any(
                    (driver, pool, str(u.get("counterSet", ""))) in sets for u in d.counters
                ):
                    out.append(d)
                    seen.add(d.id)
        return out

    def _classes_matching(self, devices: Sequence[DeviceInfo]) -> list[str]:
        if not devices:
            return []
        out = []
        for cls in self._t.classes.items():
            exprs = [
                s["cel"]["expression"]
                for s in (cls.get("spec") or {}).get("selectors") or ()
                if "cel" in s
            ]
            lists = self._t.features.list_type_attributes
            if any(_matches(d, exprs, lists) for d in devices):
                out.append(f"class:{cls['metadata']['name']}")
        return out


def _matches(d: DeviceInfo, exprs: Sequence[str], lists: bool) -> bool:
    # ``lists``: DRAListTypeAttributes, as the allocator compiles (same selector cache).
    for e in exprs:
        hit = d.selector_cache.get(e)
        if hit is None:
            try:
                hit = d.selector_cache[e] = d.matches(compile_selector(e, lists))
            except CELError:
                return True  # the allocator reports the error; let the pod retry and see it
        if not hit:
            return False
    return True
