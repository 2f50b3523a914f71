"""A small harness for upstream's volume protection tables (pkg/controller/volume/
pvcprotection and pvprotection ``*_controller_test.go``).

A real APIServer without admission plugins (as upstream's fake clientset) holds the
rows' objects; a controller started on it syncs them through its informers while the
simulated clock settles. Every update the controller sends is logged (upstream's
``client.Actions()`` of verb update), failed ones included, and the first ``fail``
updates are refused with Forbidden as ``generateUpdateErrorFunc`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock, seconds
from reference_impl.errors import Forbidden
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NS: Final = "default"


@dataclass(slots=True)
class Env:
    """The server, the controller's context and the update log."""

    clock: SimClock
    server: APIServer
    ctx: ComponentContext
    updates: list[str] = field(default_factory=list)
    fail: int = 0
    quiet: bool = False  # the test's own writes: neither logged nor refused


def build_env(
    monkeypatch: pytest.MonkeyPatch,
    namespaces: tuple[str, ...] = (NS,),
    gates: dict[str, bool] | None = None,
) -> Env:
    """An APIServer with ``namespaces``; its ``update`` and ``update_status`` are logged
    (and maybe refused: upstream's reactors match both, as verb ``update``)."""
    clock, rng = SimClock(), Rng(1)
    features = FeatureGates(gates)
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), features)
    for ns in namespaces:
        server.create(make_namespace(ns).build())
    ctx = ComponentContext(server, InformerFactory(server), clock, rng, features, Trace(clock))
    env = Env(clock, server, ctx)
    real_update, real_status = server.update, server.update_status

    def log(manifest: Obj, line: str) -> None:
        env.updates.append(line)
        if env.fail > 0:
            env.fail -= 1
            raise Forbidden(f"{manifest['kind']} {manifest['metadata']['name']} is forbidden: Mock error")

    def update(manifest: Obj) -> Obj:
        if not env.quiet:
            meta = manifest["metadata"]
            fins = ",".join(meta.get("finalizers") or ())
            deleted = " deleted" if meta.get("deletionTimestamp") else ""
            log(manifest, f"update {manifest['kind']} {_where(manifest)}{deleted} finalizers=[{fins}]")
        return real_update(manifest)

    def update_status(manifest: Obj) -> Obj:
        if not env.quiet:
            conds = " ".join(
                f"{c['type']}={c['status']}/{c.get('reason', '')}@{c.get('lastTransitionTime', '')}"
                for c in (manifest.get("status") or {}).get("conditions") or ()
            )
            log(manifest, f"update_status {manifest['kind']} {_where(manifest)} [{conds}]")
        return real_status(manifest)

    monkeypatch.setattr(server, "update", update)
    monkeypatch.setattr(server, "update_status", update_status)
    return env


def _where(manifest: Obj) -> str:
    meta = manifest["metadata"]
    return f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else str(meta["name"])


def store(env: Env, obj: Obj, *, deleted: bool = False) -> Obj:
    """Create ``obj`` and write its status (neither logged), then mark it deleted (a
    stored object with finalizers keeps a deletionTimestamp)."""
    quiet, env.quiet = env.quiet, True
    try:
        return _store(env, obj, deleted)
    finally:
        env.quiet = quiet


def _store(env: Env, obj: Obj, deleted: bool) -> Obj:
    status = obj.get("status")
    out = env.server.create(obj)
    if status and obj["kind"] == "Pod":
        out = env.server.update_status({**out, "status": {**out["status"], **status}})
    elif status:
        out = env.server.update_status({**out, "status": status})
    if deleted:
        meta = out["metadata"]
        marked = env.server.delete(obj["apiVersion"], obj["kind"], meta["name"], meta.get("namespace"))
        assert marked is not None, "a deleted row object needs a finalizer to stay stored"
        out = marked
    return out


def drain(env: Env) -> None:
    """Run the controller's queue, its backoff retries included (10 simulated seconds)."""
    env.clock.run_until(Instant(env.clock.now() + seconds(10)))
