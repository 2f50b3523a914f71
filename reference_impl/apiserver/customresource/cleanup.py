"""A deleted CRD takes its custom resources with it (``pkg/controller/finalizer``
``CRDFinalizer``, which deletes every CR before the CRD goes). The reference deletes them
as soon as the CRD is gone, not while it is Terminating."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reference_impl.apiserver import keys

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer, ObjectEvent

__all__ = ["start_cleanup"]


def start_cleanup(srv: APIServer) -> None:
    """Watch CRD deletions; remove the CRs stored under each."""

    def on_event(ev: ObjectEvent) -> None:
        if ev.type != "DELETED" or ev.obj.get("kind") != "CustomResourceDefinition":
            return
        spec = ev.obj.get("spec") or {}
        prefix = f"{keys.PREFIX}{(spec.get('names') or {}).get('plural')}.{spec.get('group')}/"
        for kv in srv.store.range(prefix).kvs:
            srv.store.delete(kv.key)

    srv.add_event_handler(on_event)
