"""The apiserver model: CRUD, status, binding, watch, validation and admission.

Models ``k8s.io/apiserver/pkg/registry/generic/registry/store.go``: every write is
decoded strictly against the 1.37 schema, defaulted, admitted, validated and only then
stored, so an invalid write leaves storage untouched. Objects are keyed by group and
resource, not version, so versions with identical shapes read each other's objects.
"""

from __future__ import annotations

import builtins
import copy
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from reference_impl.api import resources
from reference_impl.api.meta import parse_selector
from reference_impl.api.resources import ResourceInfo
from reference_impl.api.watch import WatchEvent, WatchEventType
from reference_impl.apiserver import schema, strategies
from reference_impl.apiserver.registry import (
    AdmissionPlugin,
    Context,
    Operation,
    strategy_for,
)
from reference_impl.apiserver.strategies.core import pod_qos_class, resize_policy_causes
from reference_impl.apiserver.strategies.meta import meta_causes
from reference_impl.clock import SimClock, rfc3339
from reference_impl.errors import (
    AlreadyExists,
    BadRequest,
    Cause,
    Conflict,
    Forbidden,
    Invalid,
    MethodNotAllowed,
    NotFound,
)
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import EventType, KeyValue, MVCCStore, StoreEvent, Watcher

__all__ = ["APIServer", "ObjectEvent"]

_ = strategies  # imported for its registrations

Obj = dict[str, Any]
_PREFIX: Final = "/registry/"


@dataclass(frozen=True, slots=True)
class ObjectEvent:
    """A committed change as in-process informers see it; ``obj`` is read-only."""

    type: WatchEventType
    info: ResourceInfo
    obj: Obj
    old: Obj | None


def _qos(containers: dict[str, Obj]) -> str:
    return pod_qos_class({"containers": list(containers.values())})


def _non_resizable(old: Obj | None, new: Obj | None) -> bool:
    """Whether a resize changes a resource other than cpu and memory."""
    if new is None:
        return False
    for part in ("requests", "limits"):
        a, b = (old or {}).get(part) or {}, new.get(part) or {}
        if any(a.get(k) != b.get(k) for k in set(a) | set(b) if k not in ("cpu", "memory")):
            return True
    return False


def _annotations_bump(info: ResourceInfo, obj: Obj, old: Obj) -> bool:
    # Upstream's Deployment strategy also bumps generation when annotations change.
    if info.kind != "Deployment":
        return False
    return bool(obj["metadata"].get("annotations") != old["metadata"].get("annotations"))


def _content(obj: Obj) -> Obj:
    # What a write changes: everything but the version it was read at and the apiVersion.
    meta = {k: v for k, v in obj["metadata"].items() if k != "resourceVersion"}
    return {**obj, "apiVersion": "", "metadata": meta}


def _spec_part(obj: Obj) -> Obj:
    return {k: v for k, v in obj.items() if k not in ("metadata", "status")}


class APIServer:
    """One apiserver over one store, with the 1.37 kinds switched by feature gates."""

    def __init__(self, store: MVCCStore, clock: SimClock, rng: Rng, gates: FeatureGates) -> None:
        self.store = store
        self.clock = clock
        self.gates = gates
        self._rng = rng
        self.admission: list[AdmissionPlugin] = []
        self._handlers: list[Callable[[ObjectEvent], None]] = []
        self._by_prefix: dict[str, ResourceInfo] = {}
        self.writes = 0
        store.add_listener(self._on_store_event)

    # -- resolution -------------------------------------------------------------------

    def resource(self, api_version: str, kind: str) -> ResourceInfo:
        """The served resource, or NotFound naming why (unknown, or gated off)."""
        info = resources.lookup(api_version, kind)
        if info is None:
            group_known = any(v == api_version for v in resources.served_versions())
            why = "" if group_known else f' (1.37 does not serve "{api_version}")'
            raise NotFound(f'no matches for kind "{kind}" in version "{api_version}"{why}')
        off = [g for g in info.gates if not self.gates.enabled(g)]
        if off:
            raise NotFound(
                f'no matches for kind "{kind}" in version "{api_version}": the resource is not '
                f"served while feature gate {', '.join(off)} is disabled; enable it with "
                f"--feature-gates={off[0]}=true"
            )
        self._by_prefix.setdefault(f"{_PREFIX}{info.group_resource}/", info)
        return info

    def _key(self, info: ResourceInfo, name: str, namespace: str | None) -> str:
        if info.namespaced:
            return f"{_PREFIX}{info.group_resource}/{namespace}/{name}"
        return f"{_PREFIX}{info.group_resource}/{name}"

    def _prefix(self, info: ResourceInfo, namespace: str | None) -> str:
        if info.namespaced and namespace:
            return f"{_PREFIX}{info.group_resource}/{namespace}/"
        return f"{_PREFIX}{info.group_resource}/"

    def _ns(self, info: ResourceInfo, namespace: str | None) -> str | None:
        if not info.namespaced:
            return None
        return namespace or "default"

    # -- reads ------------------------------------------------------------------------

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Obj:
        """The stored object, converted to ``api_version``; NotFound when absent."""
        info = self.resource(api_version, kind)
        kv = self.store.get(self._key(info, name, self._ns(info, namespace)))
        if kv is None:
            raise NotFound(f'{info.group_resource} "{name}" not found')
        return self._out(kv, api_version)

    def try_get(
        self, api_version: str, kind: str, name: str, namespace: str | None = None
    ) -> Obj | None:
        """Like ``get`` but None when absent."""
        try:
            return self.get(api_version, kind, name, namespace)
        except NotFound:
            return None

    def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: Callable[[Obj], bool] | None = None,
    ) -> builtins.list[Obj]:
        """Objects in key order (namespace, then name), filtered by a label selector."""
        info = self.resource(api_version, kind)
        try:
            sel = parse_selector(label_selector)
        except ValueError as e:
            raise BadRequest(str(e)) from None
        out = []
        for kv in self.store.range(self._prefix(info, namespace)).kvs:
            obj = self._out(kv, api_version)
            if sel.matches(obj["metadata"].get("labels")) and (
                field_selector is None or field_selector(obj)
            ):
                out.append(obj)
        return out

    def _out(self, kv: KeyValue, api_version: str) -> Obj:
        obj = kv.decode()
        obj["apiVersion"] = api_version
        obj["metadata"]["resourceVersion"] = str(kv.mod_revision)
        return obj

    def _context(self, subresource: str = "") -> Context:
        return Context(self.gates, self.try_get, self._list_any, subresource)

    def _list_any(self, api_version: str, kind: str, namespace: str | None) -> builtins.list[Obj]:
        return self.list(api_version, kind, namespace)

    # -- writes -----------------------------------------------------------------------

    def create(self, manifest: Obj) -> Obj:
        """Create; AlreadyExists when the name is taken."""
        info, obj = self._decode(manifest)
        meta = obj["metadata"]
        if meta.get("resourceVersion"):
            raise BadRequest("resourceVersion should not be set on objects to be created")
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = f"{meta['generateName']}{self._rng.suffix()}"
        if not meta.get("name"):
            raise Invalid(
                obj["kind"],
                "",
                [Cause("metadata.name", "FieldValueRequired", "name or generateName is required")],
            )
        ns = self._ns(info, meta.get("namespace"))
        if ns is not None:
            meta["namespace"] = ns
            self._check_namespace(ns, info)
        else:
            meta.pop("namespace", None)
        key = self._key(info, meta["name"], ns)
        if self.store.get(key) is not None:
            raise AlreadyExists(f'{info.group_resource} "{meta["name"]}" already exists')
        for k in (
            "uid",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "generation",
        ):
            meta.pop(k, None)
        meta["uid"] = self._uid()
        meta["creationTimestamp"] = rfc3339(self.clock.now())
        meta["generation"] = 1
        self._prepare(info, obj, None)
        return self._commit(key, info, obj)

    def update(self, manifest: Obj) -> Obj:
        """Replace the object (status kept for kinds with a status subresource)."""
        info, obj = self._decode(manifest)
        meta = obj["metadata"]
        ns = self._ns(info, meta.get("namespace"))
        key, old = self._current(info, meta)
        if ns is not None:
            meta["namespace"] = ns
        self._carry_meta(old, obj)
        if info.status and "status" in old:
            obj["status"] = old["status"]
        elif info.status:
            obj.pop("status", None)
        if old["metadata"].get("deletionTimestamp") and len(
            obj["metadata"].get("finalizers") or []
        ) > len(old["metadata"].get("finalizers") or []):
            raise Forbidden(
                f'no new finalizers can be added if the object is being deleted: {info.group_resource} "{meta["name"]}"'
            )
        self._prepare(info, obj, old)
        if _spec_part(obj) != _spec_part(old) or _annotations_bump(info, obj, old):
            meta["generation"] = int(old["metadata"].get("generation", 1)) + 1
        return self._finish_update(key, info, obj, old)

    def apply(self, manifest: Obj) -> Obj:
        """Create, or update when the object exists (a whole-object apply)."""
        info = self.resource(str(manifest.get("apiVersion")), str(manifest.get("kind")))
        raw = manifest.get("metadata")
        meta: Obj = raw if isinstance(raw, dict) else {}
        name = meta.get("name")
        if isinstance(name, str) and name:
            kv = self.store.get(self._key(info, name, self._ns(info, meta.get("namespace"))))
            if kv is not None:
                return self.update(manifest)
        body = copy.deepcopy(manifest)
        if isinstance(body.get("metadata"), dict):
            body["metadata"].pop("resourceVersion", None)
        return self.create(body)

    def update_status(self, manifest: Obj) -> Obj:
        """Replace only ``status`` through the /status subresource."""
        info, obj = self._decode(manifest, status=True)
        if not info.status:
            raise MethodNotAllowed(f"{info.group_resource} has no status subresource")
        meta = obj["metadata"]
        key, old = self._current(info, meta)
        new = copy.deepcopy(old)
        new["apiVersion"] = obj["apiVersion"]
        if "status" in obj:
            new["status"] = obj["status"]
        else:
            new.pop("status", None)
        ctx = self._context("status")
        causes: builtins.list[Cause] = self._schema_causes(new)
        for v in strategy_for(info.kind).status_validators:
            causes += v(new, old, ctx)
        if causes:
            raise Invalid(info.kind, meta.get("name", ""), causes)
        return self._finish_update(key, info, new, old)

    def resize(self, manifest: Obj) -> Obj:
        """The pods/resize subresource: only container resources and resizePolicy may change."""
        info, obj = self._decode(manifest)
        if info.kind != "Pod":
            raise MethodNotAllowed(f"{info.group_resource} has no resize subresource")
        meta = obj["metadata"]
        key, old = self._current(info, meta)
        new = copy.deepcopy(old)
        causes: list[Cause] = []
        new_cs = {c["name"]: c for c in new["spec"].get("containers") or []}
        for i, c in enumerate((obj.get("spec") or {}).get("containers") or []):
            target = new_cs.get(c.get("name", ""))
            if target is None:
                causes.append(
                    Cause(f"spec.containers[{i}].name", "FieldValueNotFound", "container not found")
                )
                continue
            if _non_resizable(target.get("resources"), c.get("resources")):
                causes.append(
                    Cause(
                        "spec", "FieldValueForbidden", "only cpu and memory resources are mutable"
                    )
                )
            for f in ("resources", "resizePolicy"):
                if f in c:
                    target[f] = c[f]
        qos = (old.get("status") or {}).get("qosClass")
        if qos not in (None, _qos(new_cs)):
            msg = f'Invalid value: "{qos}": Pod QOS Class may not change as a result of resizing'
            causes.append(Cause("spec", "FieldValueInvalid", msg))
        new["spec"]["containers"] = [new_cs[c["name"]] for c in old["spec"]["containers"]]
        for i, c in enumerate(new["spec"]["containers"]):
            causes += resize_policy_causes(c, f"spec.containers[{i}]")
        causes += self._schema_causes(new)
        if causes:
            raise Invalid("Pod", meta.get("name", ""), causes)
        if new["spec"] == old["spec"]:
            return old  # nothing resizable changed: upstream writes nothing
        new["metadata"]["generation"] = int(old["metadata"].get("generation", 1)) + 1
        return self._commit(key, info, new, old=old)

    def bind(self, namespace: str, name: str, node_name: str) -> Obj:
        """The pods/binding subresource: set spec.nodeName once, as the scheduler does."""
        kv = self.store.get(self._key(self.resource("v1", "Pod"), name, namespace))
        if kv is None:
            raise NotFound(f'pods "{name}" not found')
        pod = kv.decode()
        if pod["spec"].get("nodeName"):
            raise Conflict(f'pod {name} is already assigned to node "{pod["spec"]["nodeName"]}"')
        if pod["metadata"].get("deletionTimestamp"):
            raise Conflict(f"pod {name} is being deleted, cannot be assigned to a host")
        pod["spec"]["nodeName"] = node_name
        status = pod.setdefault("status", {})
        conds = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
        conds.append(
            {
                "type": "PodScheduled",
                "status": "True",
                "lastTransitionTime": rfc3339(self.clock.now()),
            }
        )
        status["conditions"] = conds
        info = self.resource("v1", "Pod")
        return self._commit(kv.key, info, pod, old=kv.decode())

    def delete(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str | None = None,
        *,
        grace_period_seconds: int | None = None,
        propagation_policy: str = "Background",
        uid: str | None = None,
    ) -> Obj | None:
        """Delete; with finalizers or a graceful pod, only mark deletionTimestamp.

        Returns the object as it now is (marked), or None when it is gone.
        """
        info = self.resource(api_version, kind)
        if info.virtual:
            raise MethodNotAllowed(f"{info.kind} cannot be deleted")
        key = self._key(info, name, self._ns(info, namespace))
        kv = self.store.get(key)
        if kv is None:
            raise NotFound(f'{info.group_resource} "{name}" not found')
        obj = kv.decode()
        meta = obj["metadata"]
        if uid is not None and meta.get("uid") != uid:
            raise Conflict(
                f"Precondition failed: UID in precondition: {uid}, UID in object meta: {meta.get('uid')}"
            )
        finalizers: list[str] = list(meta.get("finalizers") or [])
        if propagation_policy == "Foreground" and "foregroundDeletion" not in finalizers:
            finalizers.append("foregroundDeletion")
        elif propagation_policy == "Orphan" and "orphan" not in finalizers:
            finalizers.append("orphan")
        grace = self._grace(info, obj, grace_period_seconds)
        if (
            finalizers
            or grace
            or (info.kind == "Namespace" and obj.get("spec", {}).get("finalizers"))
        ):
            if meta.get("deletionTimestamp") and finalizers == list(meta.get("finalizers") or []):
                current_grace = meta.get("deletionGracePeriodSeconds")
                if grace is None or (current_grace is not None and grace >= current_grace):
                    return self._out(kv, api_version)
            old = kv.decode()
            meta["finalizers"] = finalizers
            if not finalizers:
                meta.pop("finalizers")
            meta.setdefault("deletionTimestamp", rfc3339(self.clock.now()))
            if grace is not None:
                meta["deletionGracePeriodSeconds"] = grace
            if info.kind == "Namespace":
                obj.setdefault("status", {})["phase"] = "Terminating"
            return self._commit(key, info, obj, old=old)
        self.store.delete(key)
        self.writes += 1
        return None

    def finalize_namespace(self, name: str) -> Obj | None:
        """The namespaces/finalize subresource: clear spec.finalizers and complete deletion."""
        info = self.resource("v1", "Namespace")
        key = self._key(info, name, None)
        kv = self.store.get(key)
        if kv is None:
            return None
        obj = kv.decode()
        obj.setdefault("spec", {})["finalizers"] = []
        if obj["metadata"].get("deletionTimestamp") and not obj["metadata"].get("finalizers"):
            self.store.delete(key)
            return None
        return self._commit(key, info, obj, old=kv.decode())

    # -- watch ------------------------------------------------------------------------

    def watch(
        self, api_version: str, kind: str, since: str | None = None, namespace: str | None = None
    ) -> Iterator[WatchEvent]:
        """A watch from ``since`` (a resourceVersion), or from now after a synthetic list.

        The iterator yields what has happened so far and stops; iterate again after more
        simulated time to get more. Compacted revisions raise Gone, as with a real apiserver.
        """
        info = self.resource(api_version, kind)
        prefix = self._prefix(info, self._ns(info, namespace) if namespace else None)
        initial: list[WatchEvent] = []
        if since is None:
            snap = self.store.range(prefix)
            initial = [WatchEvent("ADDED", self._out(kv, api_version)) for kv in snap.kvs]
            watcher = self.store.watch(prefix, snap.revision + 1)
        else:
            try:
                start = int(since)
            except ValueError:
                raise BadRequest(f"invalid resource version {since!r}") from None
            watcher = self.store.watch(prefix, start + 1)
        return _WatchIterator(initial, watcher, api_version, self._out)

    def add_event_handler(self, fn: Callable[[ObjectEvent], None]) -> None:
        """Call ``fn`` synchronously after every committed object write, in commit order."""
        self._handlers.append(fn)

    # -- internals --------------------------------------------------------------------

    def _decode(self, manifest: Obj, status: bool = False) -> tuple[ResourceInfo, Obj]:
        if not isinstance(manifest, dict):
            raise BadRequest(f"the object must be a mapping, got {type(manifest).__name__}")
        api_version, kind = manifest.get("apiVersion"), manifest.get("kind")
        missing = [
            Cause(f, "FieldValueRequired", "Required value")
            for f, v in (("apiVersion", api_version), ("kind", kind))
            if not v
        ]
        if missing:
            raise Invalid(str(kind or "Object"), "", missing)
        info = self.resource(str(api_version), str(kind))
        if info.virtual:
            raise MethodNotAllowed(
                f"{kind} is a request body, not a stored object; use its subresource"
            )
        obj = json.loads(json.dumps(manifest))  # a private copy the caller cannot alias
        name = (
            (obj.get("metadata") or {}).get("name", "")
            if isinstance(obj.get("metadata"), dict)
            else ""
        )
        causes = self._schema_causes(obj)
        if causes:
            raise Invalid(info.kind, str(name), causes)
        if not isinstance(obj.get("metadata"), dict):
            obj["metadata"] = {}
        return info, obj

    def _schema_causes(self, obj: Obj) -> builtins.list[Cause]:
        return schema.schema_errors(obj) or []

    def _prepare(self, info: ResourceInfo, obj: Obj, old: Obj | None) -> None:
        ctx = self._context()
        strat = strategy_for(info.kind)
        for d in strat.defaulters:
            d(obj, ctx)
        op = Operation.UPDATE if old else Operation.CREATE
        for plugin in self.admission:
            plugin.admit(op, info, obj, old, ctx)
        causes = meta_causes(info, obj, old)
        for v in strat.validators:
            causes += v(obj, old, ctx)
        for plugin in self.admission:
            causes += plugin.validate(op, info, obj, old, ctx)
        if causes:
            raise Invalid(info.kind, obj["metadata"].get("name", ""), causes)

    def _check_namespace(self, ns: str, info: ResourceInfo) -> None:
        kv = self.store.get(f"{_PREFIX}namespaces/{ns}")
        if kv is None:
            raise NotFound(f'namespaces "{ns}" not found')
        if kv.decode()["metadata"].get("deletionTimestamp"):
            raise Forbidden(
                f"{info.group_resource} is forbidden: unable to create new content in namespace {ns} "
                "because it is being terminated"
            )

    def _current(self, info: ResourceInfo, meta: Obj) -> tuple[str, Obj]:
        """The storage key and stored object a write replaces; NotFound, or Conflict on a
        stale resourceVersion."""
        key = self._key(info, meta.get("name", ""), self._ns(info, meta.get("namespace")))
        kv = self.store.get(key)
        if kv is None:
            raise NotFound(f'{info.group_resource} "{meta.get("name")}" not found')
        self._check_rv(info, meta, kv)
        return key, kv.decode()

    def _check_rv(self, info: ResourceInfo, meta: Obj, kv: KeyValue) -> None:
        rv = meta.get("resourceVersion")
        if rv and rv != str(kv.mod_revision):
            raise Conflict(
                f'Operation cannot be fulfilled on {info.group_resource} "{meta.get("name")}": the '
                "object has been modified; please apply your changes to the latest version and try again"
            )

    def _carry_meta(self, old: Obj, obj: Obj) -> None:
        om, nm = old["metadata"], obj["metadata"]
        for k in (
            "uid",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "generation",
        ):
            if k in om:
                nm[k] = om[k]
            else:
                nm.pop(k, None)

    def _finish_update(self, key: str, info: ResourceInfo, obj: Obj, old: Obj) -> Obj:
        meta = obj["metadata"]
        if (
            meta.get("deletionTimestamp")
            and not meta.get("finalizers")
            and not self._awaits_kubelet(info, obj)
        ):
            if info.kind != "Namespace" or not (obj.get("spec") or {}).get("finalizers"):
                self.store.delete(key)
                self.writes += 1
                out = copy.deepcopy(obj)
                out["metadata"].pop("resourceVersion", None)
                return out
        if _content(obj) == _content(old):
            kv = self.store.get(key)
            assert kv is not None
            return self._out(kv, obj["apiVersion"])  # a no-op write does not bump the revision
        return self._commit(key, info, obj, old=old)

    def _awaits_kubelet(self, info: ResourceInfo, obj: Obj) -> bool:
        # A bound pod marked for graceful deletion stays until its kubelet confirms with grace 0.
        return (
            info.kind == "Pod"
            and bool(obj["spec"].get("nodeName"))
            and bool(obj["metadata"].get("deletionGracePeriodSeconds"))
        )

    def _grace(self, info: ResourceInfo, obj: Obj, requested: int | None) -> int | None:
        if info.kind != "Pod":
            return None
        if not obj["spec"].get("nodeName"):
            return None  # an unscheduled pod has no kubelet to wait for
        phase = (obj.get("status") or {}).get("phase")
        if phase in ("Succeeded", "Failed"):
            return None
        if requested is not None:
            return int(requested)  # an explicit 0 is recorded, as upstream does
        grace = obj["spec"].get("terminationGracePeriodSeconds", 30)
        return int(grace) if grace else None

    def _commit(self, key: str, info: ResourceInfo, obj: Obj, old: Obj | None = None) -> Obj:
        obj["metadata"].pop("resourceVersion", None)
        kv = self.store.put(key, obj)
        self.writes += 1
        return self._out(kv, obj["apiVersion"])

    def _uid(self) -> str:
        return self._rng.uuid4()

    def _on_store_event(self, ev: StoreEvent) -> None:
        if not self._handlers:
            return
        info = self._info_for_key(ev.kv.key)
        if info is None:
            return
        if ev.type is EventType.DELETE:
            assert ev.prev is not None
            obj = ev.prev.decode()
            obj["metadata"]["resourceVersion"] = str(ev.kv.mod_revision)
            event = ObjectEvent("DELETED", info, obj, None)
        else:
            obj = ev.kv.decode()
            obj["metadata"]["resourceVersion"] = str(ev.kv.mod_revision)
            old = ev.prev.decode() if ev.prev else None
            event = ObjectEvent("MODIFIED" if old else "ADDED", info, obj, old)
        for fn in list(self._handlers):
            fn(event)

    def _info_for_key(self, key: str) -> ResourceInfo | None:
        gr = key[len(_PREFIX) :].split("/", 1)[0]
        return self._by_prefix.get(f"{_PREFIX}{gr}/")


class _WatchIterator:
    """Yields queued events; each ``__iter__`` pass drains what has arrived since."""

    def __init__(
        self,
        initial: list[WatchEvent],
        watcher: Watcher,
        api_version: str,
        out: Callable[[KeyValue, str], Obj],
    ) -> None:
        self._pending = list(initial)
        self._watcher = watcher
        self._api_version = api_version
        self._out = out

    def __iter__(self) -> Iterator[WatchEvent]:
        return self

    def has_pending(self) -> bool:
        """Whether an event is ready to be yielded."""
        return bool(self._pending or self._watcher.events)

    def stop(self) -> None:
        """Stop watching."""
        self._watcher.cancel()

    def __next__(self) -> WatchEvent:
        if self._pending:
            return self._pending.pop(0)
        if not self._watcher.events:
            raise StopIteration
        ev = self._watcher.events.popleft()
        if ev.type is EventType.DELETE:
            assert ev.prev is not None
            obj = self._out(ev.prev, self._api_version)
            obj["metadata"]["resourceVersion"] = str(ev.kv.mod_revision)
            return WatchEvent("DELETED", obj)
        return WatchEvent("MODIFIED" if ev.prev else "ADDED", self._out(ev.kv, self._api_version))
