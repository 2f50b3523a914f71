"""The CRD finalizer (apiextensions-apiserver ``pkg/controller/finalizer/crd_finalizer.go``
``CRDFinalizer``): a deleting CRD that holds the ``customresourcecleanup`` finalizer gets
Terminating "InstanceDeletionInProgress", then its instances are deleted (only when it was
Established; none for one that overlaps a built-in resource's storage), and once none is
left the finalizer is removed with Terminating False, so the CRD goes.

``deleteInstances`` polls every 5s for up to a minute for the instances to be gone; the
reference re-lists on the clock instead of blocking, and at the minute writes
"InstanceDeletionCheck" and starts over, as the rate-limited requeue does."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.meta import set_condition
from reference_impl.apiserver.customresource.crd_etcd import CLEANUP_FINALIZER, TERMINATING
from reference_impl.apiserver.informers import SharedInformer, WorkQueue
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.clock import Duration, Instant, rfc3339, seconds
from reference_impl.errors import Conflict, NotFound, Timeout

if TYPE_CHECKING:
    from reference_impl.apiserver.component import ComponentContext
    from reference_impl.apiserver.server import ObjectEvent

__all__ = ["CRDFinalizer", "OVERLAPPING_BUILT_IN_RESOURCES"]

Obj = dict[str, Any]
_CRD: Final = ("apiextensions.k8s.io/v1", "CustomResourceDefinition")
OVERLAPPING_BUILT_IN_RESOURCES: Final = frozenset(
    {
        ("apiregistration.k8s.io", "apiservices"),
        ("apiextensions.k8s.io", "customresourcedefinitions"),
    }
)
_POLL: Final[Duration] = seconds(5)
_POLL_TIMEOUT: Final[Duration] = seconds(60)


def _cond(status: str, reason: str, message: str) -> Obj:
    return {"type": TERMINATING, "status": status, "reason": reason, "message": message}


def _is_true(crd: Obj, kind: str) -> bool:
    return any(
        isinstance(c, dict) and c.get("type") == kind and c.get("status") == "True"
        for c in (crd.get("status") or {}).get("conditions") or ()
    )


def _wants_cleanup(crd: Obj) -> bool:
    meta = crd.get("metadata") or {}
    return bool(meta.get("deletionTimestamp")) and CLEANUP_FINALIZER in (
        meta.get("finalizers") or ()
    )


def _served_version(crd: Obj) -> str | None:
    """The version the instances are listed and deleted through: the storage version when
    served, else the first served one (the reference serves nothing else)."""
    versions = [v for v in (crd.get("spec") or {}).get("versions") or () if isinstance(v, dict)]
    served = [v for v in versions if v.get("served")]
    for v in served:
        if v.get("storage"):
            return str(v["name"])
    return str(served[0]["name"]) if served else None


class CRDFinalizer:
    """``CRDFinalizer``: queue CRDs that are deleting and hold the cleanup finalizer."""

    name: Final = "crd_finalizer"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(
            ctx.clock,
            self._sync,
            name="crd_finalizer",
            rate_limiter=default_controller_rate_limiter(ctx.clock.now),
        )
        self._crds: SharedInformer | None = None
        self._polling: dict[str, Instant] = {}  # CRD name -> when deleteInstances' poll ends

    def start(self) -> None:
        """Watch CRDs (``addCustomResourceDefinition``/``updateCustomResourceDefinition``)."""
        self._crds = self._ctx.informers.informer(*_CRD)
        self._crds.add_handler(self._on_crd)
        for crd in self._crds.items():
            if _wants_cleanup(crd):
                self._queue.add(crd["metadata"]["name"])

    def _on_crd(self, ev: ObjectEvent) -> None:
        if ev.type != "DELETED" and _wants_cleanup(ev.obj):
            self._queue.add(ev.obj["metadata"]["name"])

    def _write(self, crd: Obj, cond: Obj, *, drop_finalizer: bool = False) -> Obj | None:
        """``UpdateStatus`` with ``cond`` set; None when the CRD is gone or changed."""
        out = copy.deepcopy(crd)
        set_condition(out.setdefault("status", {}), cond, rfc3339(self._ctx.clock.now()))
        if drop_finalizer:  # CRDRemoveFinalizer
            meta = out["metadata"]
            meta["finalizers"] = [f for f in meta.get("finalizers") or () if f != CLEANUP_FINALIZER]
        try:
            return self._ctx.server.update_status(out)
        except (NotFound, Conflict):
            return None

    def _remaining(self, crd: Obj, version: str) -> int:
        kind = str(((crd.get("status") or {}).get("acceptedNames") or {}).get("kind") or "")
        return len(self._ctx.server.list(f"{crd['spec']['group']}/{version}", kind))

    def _sync(self, name: str) -> None:
        assert self._crds is not None
        cached = self._crds.get(name)
        if cached is None or not _wants_cleanup(cached):
            self._polling.pop(name, None)
            return
        if name in self._polling:  # deleteInstances' poll, already under way
            self._poll(name, cached)
            return
        crd = self._write(
            cached,
            _cond("True", "InstanceDeletionInProgress", "CustomResource deletion is in progress"),
        )
        if crd is None:
            return
        spec = crd.get("spec") or {}
        names = spec.get("names") or {}
        if (spec.get("group"), names.get("plural")) in OVERLAPPING_BUILT_IN_RESOURCES:
            cond = _cond("False", "OverlappingBuiltInResource",
                         "instances overlap with built-in resources in storage")  # fmt: skip
        elif _is_true(crd, "Established"):
            if not self._delete_instances(crd):
                return  # the poll carries on
            cond = _cond("False", "InstanceDeletionCompleted", "removed all instances")
        else:
            cond = _cond("False", "NeverEstablished", "resource was never established")
        self._write(crd, cond, drop_finalizer=True)

    def _delete_instances(self, crd: Obj) -> bool:
        """``deleteInstances``' DeleteCollection of every instance; True once none is left,
        else the poll starts (checking now, then every 5s)."""
        version = _served_version(crd)
        if version is None:
            return True  # nothing is served, so nothing is listed
        srv = self._ctx.server
        kind = str(((crd.get("status") or {}).get("acceptedNames") or {}).get("kind") or "")
        api_version = f"{crd['spec']['group']}/{version}"
        for item in srv.list(api_version, kind):
            meta = item["metadata"]
            try:
                srv.delete(api_version, kind, meta["name"], meta.get("namespace"))
            except NotFound:
                pass
        if not self._remaining(crd, version):
            return True
        name = crd["metadata"]["name"]
        self._polling[name] = Instant(self._ctx.clock.now() + _POLL_TIMEOUT)
        self._queue.add_after(name, _POLL)
        return False

    def _poll(self, name: str, crd: Obj) -> None:
        """One tick of the poll: at the minute the context's deadline wins, else re-list."""
        if self._ctx.clock.now() >= self._polling[name]:
            del self._polling[name]  # timed out: the error condition, then a rate-limited retry
            msg = "could not confirm zero CustomResources remaining: context deadline exceeded"
            self._write(crd, _cond("True", "InstanceDeletionCheck", msg))
            raise Timeout(msg)
        version = _served_version(crd)
        if version is not None and self._remaining(crd, version):
            self._queue.add_after(name, _POLL)
            return
        del self._polling[name]
        self._write(crd, _cond("False", "InstanceDeletionCompleted", "removed all instances"),
                    drop_finalizer=True)  # fmt: skip
