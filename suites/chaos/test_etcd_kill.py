"""etcd kill -9 and restart on the same data dir, with a write ledger.

On the local cluster the real etcd process is killed by PID; on the reference, the
model. At least 1,000 ConfigMap writes are made before, during and after the outage and
every outcome recorded: acknowledged, failed (with the apiserver's error) or unknown
(the client gave up). Upstream's promises checked after the restart: no acknowledged
write is lost; a failed or unknown create is all there or not at all; writes during the
outage fail with kube-apiserver's 504 "context deadline exceeded" (never a 4xx); a
watcher resumes from its resourceVersion or gets 410 Gone and relists, ending with the
store's state; the apiserver's watch cache receives etcd's events again (its own
metrics on live); the apiserver's memory stays under a stated bound.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest

from fixtures import Capability, Target
from fixtures.chaos import Scope
from fixtures.chaos.faults import EtcdKill
from fixtures.helpers.apiserver_metrics import apiserver_metrics
from reference_impl import errors
from reference_impl.api import make_configmap
from suites.chaos.conftest import fault

pytestmark = [pytest.mark.disruptive, pytest.mark.requires(Capability.ETCD_CONTROL)]

CM = ("v1", "ConfigMap")
BEFORE, DURING, AFTER = 500, 8, 500
OUTAGE_S = 40.0  # live: longer than the apiserver's request deadline, so writes fail
RSS_BOUND = 1536 * 2**20  # the apiserver's resident set stays under 1.5 GiB ...
RSS_GROWTH = 256 * 2**20  # ... and grows by at most 256 MiB across the fault
Outcome = tuple[str, str]  # ("acked", rv) | ("failed", "Code: message") | ("unknown", why)


def _v(obj: dict[str, Any]) -> str | None:
    """The ledger value of a ConfigMap (None for others, e.g. kube-root-ca.crt)."""
    v = (obj.get("data") or {}).get("v")
    return None if v is None else str(v)


class Ledger:
    """Every write and its outcome."""

    def __init__(self, target: Target, namespace: str) -> None:
        self.target, self.namespace = target, namespace
        self.writes: dict[str, Outcome] = {}
        self._lock = threading.Lock()

    def write(self, i: int) -> None:
        name = f"l-{i:05d}"
        try:
            out = self.target.apply(make_configmap(name, self.namespace, v=str(i)).build())
            res: Outcome = ("acked", str(out["metadata"]["resourceVersion"]))
        except errors.ApiError as exc:
            res = ("failed", f"{exc.code}: {exc}")
        except Exception as exc:  # transport: the client cannot tell what happened
            res = ("unknown", type(exc).__name__)
        with self._lock:
            self.writes[name] = res

    def run(self, ids: range, parallel: bool) -> None:
        if not parallel:
            for i in ids:
                self.write(i)
            return
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(self.write, ids))


class Follower:
    """A watcher of the namespace: resumes from its last resourceVersion, relists on 410."""

    def __init__(self, target: Target, namespace: str, since: str) -> None:
        self.target, self.namespace, self.rv = target, namespace, since
        self.view: dict[str, str] = {}
        self.gone = self.resumes = self.errors = 0
        self.stop = threading.Event()

    def _relist(self) -> None:
        items = self.target.list(*CM, self.namespace)
        self.view = {i["metadata"]["name"]: v for i in items if (v := _v(i)) is not None}
        self.rv = max((i["metadata"]["resourceVersion"] for i in items), key=int, default=self.rv)

    def step(self) -> None:
        try:
            for ev in self.target.watch(*CM, self.rv, namespace=self.namespace, timeout=2):
                meta = ev.object["metadata"]
                if ev.type == "DELETED":
                    self.view.pop(meta["name"], None)
                elif ev.type in ("ADDED", "MODIFIED") and _v(ev.object) is not None:
                    self.view[meta["name"]] = str(_v(ev.object))
                self.rv = str(meta["resourceVersion"])
            self.resumes += 1
        except errors.Gone:
            self.gone += 1
            self._relist()
        except Exception:  # the apiserver could not reach etcd: watch again
            self.errors += 1

    def follow(self) -> None:
        while not self.stop.is_set():
            self.step()


def _rss(target: Target) -> float:
    return apiserver_metrics(target).value("process_resident_memory_bytes")


def _received(target: Target) -> float:
    return apiserver_metrics(target).value(
        "apiserver_watch_cache_events_received_total", group="", resource="configmaps"
    )


def _pause(target: Target, seconds: float) -> None:
    with pytest.raises(errors.Timeout):
        target.wait_until(lambda: False, timeout=seconds, what=f"{seconds:g}s of outage")


def test_etcd_kill_loses_no_acknowledged_write_and_watchers_resume_or_relist(
    target: Target, namespace: str
) -> None:
    """etcd kill -9 with a write ledger.

    Across an etcd kill -9 and restart on the same data dir, with 500 writes before, 8
    during and 500 after, every acknowledged write MUST read back with its value; every
    failed or unknown write MUST be wholly present or absent; every failed write MUST be
    kube-apiserver's 504 Timeout ("context deadline exceeded") or a 503; a watcher MUST
    end with exactly the store's ConfigMaps, by resuming or by relisting after 410 Gone;
    the apiserver's configmaps watch cache MUST receive the writes made after the
    restart; and, where the apiserver reports it, its resident memory MUST stay under
    1.5 GiB and grow by at most 256 MiB.
    """
    live = Capability.VIRTUAL_TIME not in target.capabilities
    ledger = Ledger(target, namespace)
    since = str(target.apply(make_configmap("marker", namespace, v="m").build())["metadata"]["resourceVersion"])
    follower = Follower(target, namespace, since)
    follower.view["marker"] = "m"  # written at ``since``: the watch starts after it
    watcher = threading.Thread(target=follower.follow, daemon=True) if live else None
    if watcher is not None:
        watcher.start()
    rss0 = _rss(target)
    received0 = _received(target)
    t0 = time.perf_counter()
    ledger.run(range(BEFORE), parallel=live)
    t_before = time.perf_counter() - t0
    during: list[Future[None]] = []
    pool = ThreadPoolExecutor(DURING)
    with fault(target, EtcdKill(), Scope()):
        killed = time.perf_counter()
        if live:  # they hang until the apiserver's request deadline (~34 s here) ends them
            during = [pool.submit(ledger.write, BEFORE + i) for i in range(DURING)]
            _pause(target, OUTAGE_S)
        else:
            for i in range(DURING):
                ledger.write(BEFORE + i)
    restarted = time.perf_counter()
    target.wait_until(_writable(target, namespace), timeout=90, what="writes accepted again")
    outage = time.perf_counter() - killed
    t1 = time.perf_counter()
    ledger.run(range(BEFORE + DURING, BEFORE + DURING + AFTER), parallel=live)
    t_after = time.perf_counter() - t1
    for f in during:
        f.result(timeout=120)
    pool.shutdown()
    stored = {i["metadata"]["name"]: v for i in target.list(*CM, namespace) if (v := _v(i)) is not None}
    counts = {k: sum(1 for o in ledger.writes.values() if o[0] == k) for k in ("acked", "failed", "unknown")}
    print(f"ledger {len(ledger.writes)} writes {counts}; before {t_before:.1f}s, after "
          f"{t_after:.1f}s; etcd down {restarted - killed:.1f}s, writes refused for {outage:.1f}s")  # fmt: skip
    assert len(ledger.writes) >= 1000
    for name, (kind, detail) in sorted(ledger.writes.items()):
        want = str(int(name[2:]))
        if kind == "acked":
            assert stored.get(name) == want, f"acknowledged write {name} lost"
        else:
            assert stored.get(name) in (None, want), f"{name} half-applied"
        if kind == "failed":
            assert detail.startswith(("504", "503")), f"{name}: {detail}"
    failed = [d for k, d in ledger.writes.values() if k == "failed"]
    assert failed, "no write failed while etcd was down"
    assert all("context deadline exceeded" in d or d.startswith("503") for d in failed)
    if watcher is not None:
        target.wait_until(lambda: follower.view == stored, timeout=30, what="the watcher caught up")
        follower.stop.set()
        watcher.join(timeout=10)
    else:
        while follower.view != stored and follower.gone + follower.resumes < 5:
            follower.step()
    print(f"watcher: {follower.resumes} resumed streams, {follower.gone} relists after 410, "
          f"{follower.errors} refused watches")  # fmt: skip
    assert follower.view == stored
    received = _received(target) - received0
    if received0 or received:
        assert received >= AFTER
    rss = _rss(target)
    if rss:
        print(f"apiserver RSS {rss0 / 2**20:.0f} -> {rss / 2**20:.0f} MiB")
        assert rss <= RSS_BOUND and rss - rss0 <= RSS_GROWTH


def _writable(target: Target, namespace: str) -> Callable[[], bool]:
    def probe() -> bool:
        try:
            target.apply(make_configmap("probe", namespace, v="p").build())
            return True
        except errors.ApiError:
            return False
        except Exception:
            return False

    return probe


