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
from reference_impl.apiserver import dry_run as dryrun
from reference_impl.apiserver import keys
from reference_impl.apiserver.admission.delete_validation import validate_delete
from reference_impl.apiserver.customresource import crd_etcd
from reference_impl.apiserver.customresource.info import CustomResourceInfo
from reference_impl.clock import rfc3339
from reference_impl.errors import Conflict, MethodNotAllowed, NotFound

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = [
    "awaits_kubelet",
    "check_graceful_delete",
    "default_garbage_collection_policy",
    "delete",
    "finalize_namespace",
    "grace_for",
    "goes_now",
]

Obj = dict[str, Any]


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


def grace_for(info: ResourceInfo, obj: Obj, requested: int | None) -> int | None:
    """The grace period a delete records: only bound, unfinished pods get one."""
    if info.kind != "Pod":
        return None
    if not obj["spec"].get("nodeName"):
        return None  # an unscheduled pod has no kubelet to wait for
    phase = (obj.get("status") or {}).get("phase")
    if phase in ("Succeeded", "Failed"):
        return None
    if requested is not None and requested < 0:
        requested = 1  # rest.BeforeDelete: a negative request counts as 1s
    period = check_graceful_delete(obj, requested)
    if requested is not None:
        return period  # an explicit 0 is recorded, as upstream does
    return period or None


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
) -> Obj | None:
    """``APIServer.delete``: the object as it now is (marked), or None when gone. Without a
    propagation policy the kind's default applies (``deletionFinalizersForGarbageCollection``).
    ``warn`` takes validating admission's warnings; ``request_name``: admission's name
    where the request names another (a deletecollection's items: "")."""
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
    if uid is not None and meta.get("uid") != uid:
        raise Conflict(
            f"Precondition failed: UID in precondition: {uid}, UID in object meta: {meta.get('uid')}"
        )
    validate_delete(srv, info, obj, warn, name=request_name)
    if crd_etcd.is_crd(info.group, info.kind) and not meta.get("deletionTimestamp"):
        crd_etcd.mark_for_deletion(obj, rfc3339(srv.clock.now()))
        return _commit(srv, key, obj, api_version, kv.mod_revision)
    finalizers: list[str] = list(meta.get("finalizers") or [])
    default = default_garbage_collection_policy(api_version, info.kind)
    if default == "Unsupported":
        propagation_policy = None  # the strategy takes no garbage-collection finalizer
    elif propagation_policy is None:
        propagation_policy = default
    if propagation_policy == "Foreground" and "foregroundDeletion" not in finalizers:
        finalizers.append("foregroundDeletion")
    elif propagation_policy == "Orphan" and "orphan" not in finalizers:
        finalizers.append("orphan")
    grace = grace_for(info, obj, grace_period_seconds)
    if not (
        finalizers or grace or (info.kind == "Namespace" and obj.get("spec", {}).get("finalizers"))
    ):
        if srv._dry:  # dryrun.go's Delete: the stored object, read back, stays
            return srv._out(kv, api_version)
        srv.store.delete(key)
        srv.writes += 1
        return None
    if meta.get("deletionTimestamp") and finalizers == list(meta.get("finalizers") or []):
        current_grace = meta.get("deletionGracePeriodSeconds")
        if grace is None or (current_grace is not None and grace >= current_grace):
            return srv._out(kv, api_version)
    meta["finalizers"] = finalizers
    if not finalizers:
        meta.pop("finalizers")
    meta.setdefault("deletionTimestamp", rfc3339(srv.clock.now()))
    if grace is not None:
        meta["deletionGracePeriodSeconds"] = grace
    if info.kind == "Namespace":
        obj.setdefault("status", {})["phase"] = "Terminating"
    return _commit(srv, key, obj, api_version, kv.mod_revision)


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
