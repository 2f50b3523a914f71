"""Graceful deletion and finalizers, after the generic registry's ``BeforeDelete``.

An object with finalizers (or a propagation policy that adds one), a bound running pod,
or a namespace with spec finalizers is only marked with ``deletionTimestamp``; it goes
once the last finalizer is removed, its kubelet confirms with grace 0, or the namespace
controller finalizes it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver import delete_options as opts
from reference_impl.apiserver import dry_run as dryrun
from reference_impl.apiserver import keys
from reference_impl.apiserver.admission.delete_validation import validate_delete
from reference_impl.apiserver.customresource import crd_etcd
from reference_impl.apiserver.customresource.info import CustomResourceInfo
from reference_impl.clock import Instant, parse_rfc3339, rfc3339
from reference_impl.errors import MethodNotAllowed, NotFound

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer
    from reference_impl.storage.mvcc import KeyValue

__all__ = [
    "awaits_kubelet",
    "before_delete",
    "check_graceful_delete",
    "default_garbage_collection_policy",
    "delete",
    "finalize_namespace",
    "goes_now",
]

Obj = dict[str, Any]
_NS: Final = 1_000_000_000  # nanoseconds in a second (clock instants)


def awaits_kubelet(info: ResourceInfo, obj: Obj) -> bool:
    """A bound pod marked for graceful deletion stays until its kubelet confirms."""
    return (
        info.kind == "Pod"
        and bool(obj["spec"].get("nodeName"))
        and bool(obj["metadata"].get("deletionGracePeriodSeconds"))
    )


def goes_now(info: ResourceInfo, obj: Obj) -> bool:
    """Whether a marked object being written has nothing left to wait for."""
    meta = obj["metadata"]
    if not meta.get("deletionTimestamp") or meta.get("finalizers") or awaits_kubelet(info, obj):
        return False
    return info.kind != "Namespace" or not (obj.get("spec") or {}).get("finalizers")


def check_graceful_delete(pod: Obj, requested: int | None) -> int:
    """The pod strategy's ``CheckGracefulDelete``: the grace period a delete of ``pod``
    gets, from the request or else the spec; 0 (at once) for an unscheduled or finished
    pod, and 1 for a negative period."""
    spec = pod.get("spec") or {}
    if requested is not None:
        period = int(requested)
    else:
        grace = spec.get("terminationGracePeriodSeconds")
        period = int(grace) if grace is not None else 0
    if not spec.get("nodeName"):
        period = 0  # no kubelet to wait for
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        period = 0
    return 1 if period < 0 else period


# Strategies whose DefaultGarbageCollectionPolicy is not DeleteDependents, by the
# group/version of the request: the v1 Job and ReplicationController orphan their
# dependents "for back compatibility"; Events take no garbage-collection finalizers.
_ORPHAN_BY_DEFAULT: Final = frozenset({("batch/v1", "Job"), ("v1", "ReplicationController")})
_GC_UNSUPPORTED: Final = frozenset({"Event"})


def default_garbage_collection_policy(api_version: str, kind: str) -> str:
    """``DefaultGarbageCollectionPolicy`` of the kind's strategy for a request at
    ``api_version``: "Orphan", "Background" (DeleteDependents) or "Unsupported"."""
    if kind in _GC_UNSUPPORTED:
        return "Unsupported"
    return "Orphan" if (api_version, kind) in _ORPHAN_BY_DEFAULT else "Background"


def delete(
    srv: APIServer,
    api_version: str,
    kind: str,
    name: str,
    namespace: str | None,
    grace_period_seconds: int | None,
    propagation_policy: str | None,
    uid: str | None,
    warn: Callable[[str], None] | None = None,
    *,
    request_name: str | None = None,
    resource_version: str | None = None,
    admit: bool = True,
) -> Obj | None:
    """``APIServer.delete``, after store.go ``Store.Delete``: the object as it now is
    (marked), or None when gone. ``uid`` / ``resource_version``: the preconditions.
    ``warn`` takes validating admission's warnings; ``request_name``: admission's name
    where the request names another (a deletecollection's items: ""); ``admit=False``:
    no validating admission (``rest.ValidateAllObjectFunc``, the eviction REST's delete)."""
    info = srv.resource(api_version, kind)
    if info.virtual:
        raise MethodNotAllowed(f"{info.kind} cannot be deleted")
    if warn is not None and isinstance(info, CustomResourceInfo):
        for text in info.deprecation_warnings:  # a deprecated CRD version's, as on every verb
            warn(text)
    key = keys.key(info, name, keys.namespace_for(info, namespace))
    kv = srv.store.get(key)
    if kv is None:
        raise NotFound(f'{info.group_resource} "{name}" not found')
    obj = kv.decode()
    meta = obj["metadata"]
    meta["resourceVersion"] = str(kv.mod_revision)
    if info.kind == "Namespace" and info.group == "":
        answered, out = _namespace_rest(srv, key, kv, obj, propagation_policy, uid,
                                        resource_version, warn, request_name)  # fmt: skip
        if answered:
            return out
    if crd_etcd.is_crd(info.group, info.kind):  # its REST checks them, in its own words
        lead = "precondition failed"
        gr = info.group_resource
        if err := opts.storage_precondition_error(gr, obj, uid, resource_version, lead):
            raise err
    else:
        opts.check_preconditions(info.kind, info.group, obj, uid, resource_version)
    if admit:
        validate_delete(srv, info, obj, warn, name=request_name)
    if crd_etcd.is_crd(info.group, info.kind) and not meta.get("deletionTimestamp"):
        crd_etcd.mark_for_deletion(obj, rfc3339(srv.clock.now()))
        return _commit(srv, key, obj, api_version, kv.mod_revision)
    before = list(meta.get("finalizers") or [])
    graceful, pending, grace = before_delete(srv, info, obj, grace_period_seconds)
    if pending:  # finalizers cannot change while a graceful deletion is pending
        return srv._out(kv, api_version)
    default = default_garbage_collection_policy(api_version, info.kind)
    changed, finalizers = opts.deletion_finalizers(default, before, propagation_policy)
    if graceful or before or changed:  # updateForGracefulDeletionAndFinalizers
        if changed:
            meta["finalizers"] = finalizers
            if not finalizers:
                meta.pop("finalizers")
        if not graceful and finalizers:
            _mark_as_deleting(srv, meta)
        if finalizers or (graceful and grace):
            return _update(srv, key, kv, obj, api_version)
    if srv._dry:  # dryrun.go's Delete: the stored object, read back, stays
        return srv._out(kv, api_version)
    if graceful:
        # Grace 0: the deletion is two writes, as in store.go (BeforeDelete's "two phases"):
        # GuaranteedUpdate stores the mark, then the delete removes the marked object.
        _update(srv, key, kv, obj, api_version)
    srv.store.delete(key)
    srv.writes += 1
    return None


def before_delete(
    srv: APIServer, info: ResourceInfo, obj: Obj, requested: int | None
) -> tuple[bool, bool, int | None]:
    """``rest.BeforeDelete`` after its checks, updating ``obj``: (graceful, pending, the
    options' grace period as it leaves them). Only the pod strategy is a
    ``RESTGracefulDeleteStrategy``."""
    if requested is not None and requested < 0:
        requested = 1  # a negative request counts as 1s
    meta = obj["metadata"]
    current = meta.get("deletionGracePeriodSeconds")
    if current is not None and current < 0:
        meta["deletionGracePeriodSeconds"] = current = 1
    if info.kind != "Pod" or info.group != "":
        return False, False, requested
    now = srv.clock.now()
    if meta.get("deletionTimestamp"):
        if not current:  # graced 0 or never: delete (or finalize) at once
            return False, False, requested
        if requested is None:
            return False, True, int(current)
        if requested >= current:
            return False, True, requested  # only a shorter period may be asked for
        moved = parse_rfc3339(meta["deletionTimestamp"]) + (requested - current) * _NS
        period = requested
        if moved < now:
            moved = now
            if period != 0:
                period = 1  # still graceful: the kubelet makes the final delete
        meta["deletionTimestamp"] = rfc3339(Instant(moved))
        meta["deletionGracePeriodSeconds"] = period
        return True, False, requested
    period = check_graceful_delete(obj, requested)
    meta["deletionTimestamp"] = rfc3339(Instant(now + period * _NS))
    meta["deletionGracePeriodSeconds"] = period
    if (meta.get("generation") or 0) > 0:
        meta["generation"] += 1
    return True, False, period


def _mark_as_deleting(srv: APIServer, meta: Obj) -> None:
    """store.go ``markAsDeleting``: deletionTimestamp now (unless set, and not later),
    grace period 0; the first mark bumps a set generation."""
    now = srv.clock.now()
    stamp = meta.get("deletionTimestamp")
    if not stamp and (meta.get("generation") or 0) > 0:
        meta["generation"] += 1
    if not stamp or parse_rfc3339(stamp) > now:
        meta["deletionTimestamp"] = rfc3339(now)
    meta["deletionGracePeriodSeconds"] = 0


def _update(srv: APIServer, key: str, kv: KeyValue, obj: Obj, api_version: str) -> Obj:
    """GuaranteedUpdate's write: none where nothing changed (the stored object back)."""
    if obj == _with_rv(kv.decode(), kv.mod_revision):
        return srv._out(kv, api_version)
    return _commit(srv, key, obj, api_version, kv.mod_revision)


def _with_rv(obj: Obj, revision: int) -> Obj:
    obj["metadata"]["resourceVersion"] = str(revision)
    return obj


def _namespace_rest(
    srv: APIServer, key: str, kv: KeyValue, obj: Obj, policy: str | None, uid: str | None,
    resource_version: str | None, warn: Callable[[str], None] | None, request_name: str | None,
) -> tuple[bool, Obj | None]:  # fmt: skip
    """pkg/registry/core/namespace/storage ``REST.Delete``: the first delete only marks the
    namespace Terminating (its controller empties it); a later one, once spec.finalizers
    is empty, is the store's Delete (not answered here: (False, None)). Its preconditions
    speak storage's wording."""
    info = srv.resource("v1", "Namespace")
    err = opts.storage_precondition_error("namespaces", obj, uid, resource_version)
    if err is not None:
        raise err
    meta = obj["metadata"]
    if not meta.get("deletionTimestamp"):
        validate_delete(srv, info, obj, warn, name=request_name)
        meta["deletionTimestamp"] = rfc3339(srv.clock.now())
        obj.setdefault("status", {})["phase"] = "Terminating"
        have = list(meta.get("finalizers") or [])
        want = {
            opts.FINALIZER_ORPHAN_DEPENDENTS: policy == "Orphan",
            opts.FINALIZER_DELETE_DEPENDENTS: policy == "Foreground",
        }
        if policy is not None:  # no policy keeps what the namespace has
            new = [f for f in have if f not in want] + [f for f, on in want.items() if on]
            if set(new) != set(have):
                meta["finalizers"] = new
                if not new:
                    meta.pop("finalizers")
        return True, _commit(srv, key, obj, "v1", kv.mod_revision)
    if (obj.get("spec") or {}).get("finalizers"):
        return True, srv._out(kv, "v1")
    return False, None


def _commit(srv: APIServer, key: str, obj: Obj, api_version: str, revision: int) -> Obj:
    """Store the marked object; under dryRun only answer it (at the stored revision)."""
    if srv._dry:
        return dryrun.reply(srv, obj, api_version, str(revision))
    return srv._commit(key, obj, api_version)


def finalize_namespace(
    srv: APIServer, name: str, finalizers: list[str] | None = None
) -> Obj | None:
    """``APIServer.finalize_namespace``: set spec.finalizers (default: none) and, once
    none is left, complete deletion."""
    info = srv.resource("v1", "Namespace")
    key = keys.key(info, name, None)
    kv = srv.store.get(key)
    if kv is None:
        return None
    obj = kv.decode()
    obj.setdefault("spec", {})["finalizers"] = list(finalizers or [])
    done = not finalizers and not obj["metadata"].get("finalizers")
    if obj["metadata"].get("deletionTimestamp") and done:
        srv.store.delete(key)
        return None
    return srv._commit(key, obj, "v1")
