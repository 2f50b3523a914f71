"""The EndpointSlice reconciler: k8s.io/endpointslice@v0.37.2 reconciler.go (``Reconcile``,
``reconcileByAddressType``, ``reconcileByPortMapping``, ``finalize``) and trafficdist.

Upstream walks Go maps (random order); the reference keeps pods in the order given and
slices in listing order, so its choices are one of upstream's and always the same.
Topology-aware hints (the ``topology-mode: Auto`` annotation) need the topology cache's
CPU-per-zone estimate, which the reference does not model: such Services get no hints, as
upstream gives when the cache has too little node information.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, Final

from reference_impl.apiserver.component import Trace
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, rfc3339
from reference_impl.controllers.endpointslice.utils import (
    CONTROLLER_NAME,
    LAST_CHANGE_TRIGGER_TIME,
    MAX_ENDPOINTS_PER_SLICE,
    EndpointKey,
    PortMapKey,
    endpoint_key,
    endpoints_equal_beyond_hash,
    get_address_types_for_service,
    get_endpoint_ports,
    get_slice_to_fill,
    hints_enabled,
    new_endpoint_slice,
    owned_by,
    pod_to_endpoint,
    port_map_key,
    set_endpoint_slice_labels,
    should_pod_be_in_endpoints,
)
from reference_impl.controllers.serviceaccounts import terminating
from reference_impl.errors import ApiError, Forbidden

__all__ = ["Reconciler", "SyncError", "reconcile_hints", "unchanged_slices"]

Obj = dict[str, Any]
API: Final = "discovery.k8s.io/v1"
_CLOSE: Final = ("PreferClose", "PreferSameZone", "PreferSameNode")


class SyncError(ApiError):
    """A sync that must be retried (upstream's aggregated reconcile errors)."""


def _name(s: Obj) -> str:
    return str(s["metadata"].get("name") or "")


def unchanged_slices(existing: list[Obj], to_update: list[Obj], to_delete: list[Obj]) -> list[Obj]:
    """``unchangedSlices``: existing slices named in neither list."""
    changed = {_name(s) for s in to_update} | {_name(s) for s in to_delete}
    return [s for s in existing if _name(s) not in changed]


def _ready(ep: Obj) -> bool:
    return bool((ep.get("conditions") or {}).get("ready"))


def _close_needs_update(slice_: Obj, node_hints: bool) -> bool:
    """``preferCloseHeuristic.needsUpdate``."""
    for ep in slice_.get("endpoints") or []:
        if not _ready(ep):
            continue
        hints = ep.get("hints") or {}
        zones, nodes = hints.get("forZones") or [], hints.get("forNodes") or []
        if ep.get("zone") is not None:
            if not hints or len(zones) != 1 or zones[0].get("name") != ep["zone"]:
                return True
        elif zones:
            return True
        if ep.get("nodeName") is not None and node_hints:
            if not hints or len(nodes) != 1 or nodes[0].get("name") != ep["nodeName"]:
                return True
        elif nodes:
            return True
    return False


def _close_update(slice_: Obj, node_hints: bool) -> None:
    """``preferCloseHeuristic.update``: ready endpoints get their zone (and node) as hints."""
    for ep in slice_.get("endpoints") or []:
        if not _ready(ep):
            continue
        hints: Obj = {}
        if ep.get("zone") is not None:
            hints["forZones"] = [{"name": ep["zone"]}]
        if ep.get("nodeName") is not None and node_hints:
            hints["forNodes"] = [{"name": ep["nodeName"]}]
        if hints:
            ep["hints"] = hints
        else:
            ep.pop("hints", None)


def reconcile_hints(
    traffic_distribution: str | None,
    to_create: list[Obj],
    to_update: list[Obj],
    unchanged: list[Obj],
) -> tuple[list[Obj], list[Obj], list[Obj]]:
    """``trafficdist.ReconcileHints``: unchanged slices whose hints disagree move to the
    updates (copied); created and updated slices get the heuristic's hints."""
    close = traffic_distribution in _CLOSE
    node_hints = traffic_distribution == "PreferSameNode"
    to_update = list(to_update)
    kept: list[Obj] = []
    for s in unchanged:
        if close:
            needs = _close_needs_update(s, node_hints)
        else:
            needs = any(ep.get("hints") is not None for ep in s.get("endpoints") or [])
        if needs:
            to_update.append(copy.deepcopy(s))
        else:
            kept.append(s)
    for s in (*to_create, *to_update):
        if close:
            _close_update(s, node_hints)
        else:
            for ep in s.get("endpoints") or []:
                ep.pop("hints", None)
    return to_create, to_update, kept


def _remove_hints(
    to_create: list[Obj], to_update: list[Obj], unchanged: list[Obj]
) -> tuple[list[Obj], list[Obj]]:
    """``topologycache.RemoveHintsFromSlices``."""
    for s in (*to_create, *to_update):
        for ep in s.get("endpoints") or []:
            ep.pop("hints", None)
    to_update = list(to_update)
    for s in unchanged:
        if any(ep.get("hints") is not None for ep in s.get("endpoints") or []):
            c = copy.deepcopy(s)
            for ep in c.get("endpoints") or []:
                ep.pop("hints", None)
            to_update.append(c)
    return to_create, to_update


def _placeholder_equal(existing: Obj, placeholder: Obj) -> bool:
    """``placeholderSliceCompare``: metadata compares namespace and labels only; no
    endpoints, no ports, the same address type."""
    em, pm = existing["metadata"], placeholder["metadata"]
    return (
        (em.get("namespace") or "") == (pm.get("namespace") or "")
        and (em.get("labels") or {}) == (pm.get("labels") or {})
        and existing.get("addressType") == placeholder.get("addressType")
        and not existing.get("endpoints")
        and not existing.get("ports")
    )


def _set_trigger_time(slice_: Obj, trigger: Instant | None) -> None:
    """``addTriggerTimeAnnotation``: set it, or clear it when there is no trigger time."""
    meta = slice_["metadata"]
    ann = meta.setdefault("annotations", {})
    if trigger is not None:
        ann[LAST_CHANGE_TRIGGER_TIME] = rfc3339(trigger)
    else:
        ann.pop(LAST_CHANGE_TRIGGER_TIME, None)
    if not ann:  # an empty map is omitted on the wire
        del meta["annotations"]


class Reconciler:
    """Computes and writes a Service's EndpointSlices (``Reconciler``)."""

    def __init__(
        self,
        server: APIServer,
        get_node: Callable[[str], Obj | None],
        max_endpoints_per_slice: int = MAX_ENDPOINTS_PER_SLICE,
        controller_name: str = CONTROLLER_NAME,
        trace: Trace | None = None,
        on_write: Callable[[Obj], None] | None = None,
        on_delete: Callable[[Obj], None] | None = None,
    ) -> None:
        self._server = server
        self._get_node = get_node
        self.max_endpoints = max_endpoints_per_slice
        self.controller_name = controller_name
        self._trace = trace
        self._on_write = on_write  # the EndpointSliceTracker's Update
        self._on_delete = on_delete  # and its ExpectDeletion

    def _record(self, event: str, svc: Obj, detail: str) -> None:
        if self._trace is not None:
            meta = svc["metadata"]
            self._trace.record("endpointslice-controller", event,
                               f"Service/{meta.get('namespace')}/{meta['name']}", detail)  # fmt: skip

    def reconcile(
        self, svc: Obj, pods: list[Obj], existing: list[Obj], trigger: Instant | None
    ) -> None:
        """``Reconcile``: slices of address types the Service no longer has are deleted;
        each remaining type is reconciled on its own. Raises SyncError with every error."""
        errs: list[str] = []
        types = get_address_types_for_service(svc)
        stale: list[Obj] = []
        by_type: dict[str, list[Obj]] = {}
        for s in existing:
            if s.get("addressType") not in types:
                stale.append(s)
            else:
                by_type.setdefault(str(s["addressType"]), []).append(s)
        for t in types:
            try:
                self._reconcile_by_address_type(svc, pods, by_type.get(t, []), trigger, t)
            except SyncError as exc:
                errs.append(exc.message)
        ns, name = svc["metadata"].get("namespace") or "", svc["metadata"]["name"]
        for s in stale:
            try:
                self._delete(svc, s)
            except ApiError as exc:
                errs.append(f"error deleting {_name(s)} EndpointSlice for Service {ns}/{name}: "
                            f"{exc.message}")  # fmt: skip
        if errs:
            raise SyncError("[" + ", ".join(errs) + "]" if len(errs) > 1 else errs[0])

    def _delete(self, svc: Obj, s: Obj) -> None:
        self._server.delete(API, "EndpointSlice", _name(s), s["metadata"].get("namespace"))
        if self._on_delete is not None:
            self._on_delete(s)
        self._record("delete-slice", svc, _name(s))

    def _reconcile_by_address_type(
        self, svc: Obj, pods: list[Obj], existing: list[Obj], trigger: Instant | None,
        address_type: str,
    ) -> None:  # fmt: skip
        """``reconcileByAddressType``."""
        errs: list[str] = []
        to_create: list[Obj] = []
        to_update: list[Obj] = []
        to_delete: list[Obj] = []
        existing_by_pm: dict[PortMapKey, list[Obj]] = {}
        for s in existing:
            if owned_by(s, svc):
                existing_by_pm.setdefault(port_map_key(s.get("ports")), []).append(s)
            else:
                to_delete.append(s)
        spec = svc.get("spec") or {}
        meta = svc["metadata"]
        desired_ports: dict[PortMapKey, list[Obj]] = {}
        desired: dict[PortMapKey, dict[EndpointKey, Obj]] = {}
        for pod in pods:
            if not should_pod_be_in_endpoints(pod, True):
                continue
            ports = get_endpoint_ports(svc, pod)
            pm = port_map_key(ports)
            desired.setdefault(pm, {})
            desired_ports.setdefault(pm, ports)
            node_name = str((pod.get("spec") or {}).get("nodeName") or "")
            node = self._get_node(node_name)
            if node is None and not spec.get("publishNotReadyAddresses"):
                errs.append(f"skipping Pod {pod['metadata']['name']} for Service "
                            f"{meta.get('namespace')}/{meta['name']}: Node {node_name} Not Found")  # fmt: skip
                continue
            ep = pod_to_endpoint(pod, node, svc, address_type)
            if ep["addresses"]:
                desired[pm][endpoint_key(ep)] = ep
        for pm, eps in desired.items():
            c, u, d = self._reconcile_by_port_mapping(
                svc, existing_by_pm.get(pm, []), eps, desired_ports[pm], address_type
            )
            to_create += c
            to_update += u
            to_delete += d
        for pm, slices in existing_by_pm.items():
            if pm not in desired:
                to_delete += slices
        if len(existing) == len(to_delete) and not to_create:
            placeholder = new_endpoint_slice(svc, [], address_type, self.controller_name)
            if len(to_delete) == 1 and _placeholder_equal(to_delete[0], placeholder):
                to_delete = []
            else:
                to_create.append(placeholder)
        td = spec.get("trafficDistribution")
        # PreferSameTrafficDistribution is GA and locked on in v1.37.
        can_use_td = td in _CLOSE and not hints_enabled(meta.get("annotations"))
        if not can_use_td:
            to_create, to_update = _remove_hints(
                to_create, to_update, unchanged_slices(existing, to_update, to_delete)
            )
        else:
            to_create, to_update, _ = reconcile_hints(
                td, to_create, to_update, unchanged_slices(existing, to_update, to_delete)
            )
        try:
            self._finalize(svc, to_create, to_update, to_delete, trigger)
        except SyncError as exc:
            errs.append(exc.message)
        if errs:
            raise SyncError("[" + ", ".join(errs) + "]" if len(errs) > 1 else errs[0])

    def _finalize(
        self, svc: Obj, to_create: list[Obj], to_update: list[Obj], to_delete: list[Obj],
        trigger: Instant | None,
    ) -> None:  # fmt: skip
        """``finalize``: a slice to delete is recycled (renamed, updated) for a slice to
        create of its address type; then creates (not while the Service is being deleted),
        updates and deletes."""
        to_create, to_update, to_delete = list(to_create), list(to_update), list(to_delete)
        i = 0
        while i < len(to_delete) and to_create:
            old, new = to_delete[i], to_create[-1]
            if old.get("addressType") == new.get("addressType") and owned_by(old, svc):
                new["metadata"]["name"] = _name(old)
                to_create.pop()
                to_update.append(new)
                to_delete.pop(i)
            else:
                i += 1
        meta = svc["metadata"]
        where = f"Service {meta.get('namespace')}/{meta['name']}"
        if not meta.get("deletionTimestamp"):
            for s in to_create:
                _set_trigger_time(s, trigger)
                try:
                    created = self._server.create(s)
                except Forbidden as exc:
                    if terminating(exc):
                        return
                    raise SyncError(f"failed to create EndpointSlice for {where}: {exc.message}") from exc
                except ApiError as exc:
                    raise SyncError(f"failed to create EndpointSlice for {where}: {exc.message}") from exc
                if self._on_write is not None:
                    self._on_write(created)
                self._record("create-slice", svc, _name(created))
        for s in to_update:
            _set_trigger_time(s, trigger)
            try:
                updated = self._server.update(s)
            except ApiError as exc:
                raise SyncError(f"failed to update {_name(s)} EndpointSlice for {where}: "
                                f"{exc.message}") from exc  # fmt: skip
            if self._on_write is not None:
                self._on_write(updated)
            self._record("update-slice", svc, _name(updated))
        for s in to_delete:
            try:
                self._delete(svc, s)
            except ApiError as exc:
                raise SyncError(f"failed to delete {_name(s)} EndpointSlice for {where}: "
                                f"{exc.message}") from exc  # fmt: skip

    def _reconcile_by_port_mapping(
        self, svc: Obj, existing: list[Obj], desired: dict[EndpointKey, Obj], ports: list[Obj],
        address_type: str,
    ) -> tuple[list[Obj], list[Obj], list[Obj]]:  # fmt: skip
        """``reconcileByPortMapping``: keep the desired endpoints where they are, drop the
        others (a slice left empty is deleted), top up the slices being updated (fullest
        first), then fill the unchanged slice that fits best, then new slices."""
        by_name: dict[str, Obj] = {}
        unchanged: list[str] = []
        to_update: list[str] = []
        to_delete: list[str] = []
        for s in existing:
            name = _name(s)
            by_name[name] = s
            kept: list[Obj] = []
            changed = False
            eps = s.get("endpoints") or []
            for ep in eps:
                key = endpoint_key(ep)
                got = desired.pop(key, None)
                if got is not None:
                    kept.append(got)
                    if not endpoints_equal_beyond_hash(got, ep):
                        changed = True
            labels, labels_changed = set_endpoint_slice_labels(s, svc, self.controller_name)
            if changed or len(eps) != len(kept):
                if not kept:
                    to_delete.append(name)
                else:
                    c = copy.deepcopy(s)
                    c["endpoints"] = kept
                    c["metadata"]["labels"] = labels
                    by_name[name] = c
                    to_update.append(name)
            elif labels_changed:
                c = copy.deepcopy(s)
                c["metadata"]["labels"] = labels
                by_name[name] = c
                to_update.append(name)
            else:
                unchanged.append(name)
        queue = list(desired.values())
        if queue and to_update:
            # sort.Sort by endpoint count, fullest first.
            slices = sorted((by_name[n] for n in to_update),
                            key=lambda s: -len(s.get("endpoints") or []))  # fmt: skip
            for s in slices:
                if s.get("endpoints") is None:
                    s["endpoints"] = []
                while queue and len(s["endpoints"]) < self.max_endpoints:
                    s["endpoints"].append(queue.pop(0))
        to_create: list[Obj] = []
        while queue:
            fill: Obj | None = None
            if len(queue) < self.max_endpoints and unchanged:
                fill = get_slice_to_fill([by_name[n] for n in unchanged], len(queue),
                                         self.max_endpoints)  # fmt: skip
            if fill is None:
                fill = new_endpoint_slice(svc, ports, address_type, self.controller_name)
            else:
                fill = copy.deepcopy(fill)
                by_name[_name(fill)] = fill
            if fill.get("endpoints") is None:
                fill["endpoints"] = []
            while queue and len(fill["endpoints"]) < self.max_endpoints:
                fill["endpoints"].append(queue.pop(0))
            if _name(fill):
                if _name(fill) not in to_update:
                    to_update.append(_name(fill))
                if _name(fill) in unchanged:
                    unchanged.remove(_name(fill))
            else:
                to_create.append(fill)
        return to_create, [by_name[n] for n in to_update], [by_name[n] for n in to_delete]
