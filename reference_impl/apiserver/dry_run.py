"""``dryRun=All`` writes, after apiserver ``pkg/registry/generic/registry/dryrun.go``
(``DryRunnableStorage``) under ``store.go``: decoding, defaulting, admission and validation
run as for a real write, the storage is read (an existing name, a missing object and
preconditions fail as ever) but nothing is written, so no resourceVersion moves and no
watch event is sent.

What a dry run answers: a create its object with uid and creationTimestamp but no
resourceVersion (``Create`` copies the object it would store); an update the object it
would store at the stored resourceVersion (``GuaranteedUpdate`` copies the updated
object), or the stored object where the update would delete it
(``deleteWithoutFinalizers``); a delete the object marked for deletion where it would
only be marked, else the stored object (``Delete`` reads it back). The Service REST's
allocators hand out without holding (``Context.dry_run``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reference_impl.apiserver import conversion
from reference_impl.apiserver.customresource import schema as cr_schema
from reference_impl.apiserver.decode import Decoded, content
from reference_impl.storage import codec

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["finish_update", "reply"]

Obj = dict[str, Any]


def reply(srv: APIServer, obj: Obj, api_version: str, resource_version: str | None) -> Obj:
    """``obj`` (storage version) as a dry run answers it: in the stored shape (what a real
    write's reply would hold), converted to ``api_version``, at ``resource_version`` (None:
    none, a create's)."""
    obj["metadata"].pop("resourceVersion", None)
    out: Obj = codec.loads(srv._stored_bytes(obj))
    out = conversion.convert(out, api_version)
    if s := srv._cr_schemas.get((api_version, out.get("kind", ""))):
        cr_schema.apply_defaults(out, s)
    if resource_version is not None:
        out["metadata"]["resourceVersion"] = resource_version
    return out


def finish_update(srv: APIServer, key: str, d: Decoded, old: Obj, *, goes: bool) -> Obj:
    """``APIServer._finish_update`` under dryRun: nothing stored or deleted (``goes``: the
    update would delete the object, its last finalizer gone)."""
    kv = srv.store.get(key)
    assert kv is not None  # the update read it just now
    if goes or content(d.obj) == content(old):
        return srv._out(kv, d.api_version)
    return reply(srv, d.obj, d.api_version, str(kv.mod_revision))
