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

from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Capability, Target, pause
from fixtures.chaos import Scope
from fixtures.chaos.faults import EtcdKill, inject
from fixtures.helpers.apiserver_metrics import apiserver_metrics
from fixtures.helpers.chaos_probes import (
    Background,
    Follower,
    Ledger,
    Stopwatch,
    during_outage,
    ledger_value,
)
from reference_impl.api import make_configmap
from reference_impl.errors import ApiError

pytestmark = [pytest.mark.disruptive, pytest.mark.requires(Capability.ETCD_CONTROL)]

CM = ("v1", "ConfigMap")
BEFORE, DURING, AFTER = 500, 8, 500
OUTAGE_S = 40.0  # live: longer than the apiserver's request deadline, so writes fail
RSS_BOUND = 1536 * 2**20  # the apiserver's resident set stays under 1.5 GiB ...
RSS_GROWTH = 256 * 2**20  # ... and grows by at most 256 MiB across the fault


def _rss(target: Target) -> float:
    return apiserver_metrics(target).value("process_resident_memory_bytes")


def _received(target: Target) -> float:
    return apiserver_metrics(target).value(
        "apiserver_watch_cache_events_received_total", group="", resource="configmaps"
    )


def test_etcd_kill_loses_no_acknowledged_write_and_watchers_resume_or_relist(
    target: Target, namespace: str
) -> None:
    """etcd kill -9 with a write ledger.

    Across an etcd kill -9 and restart on the same data dir, with 500 writes before, 8
    during and 500 after, every acknowledged write MUST read back with its value; every
    failed or unknown write MUST be wholly present or absent; every failed write MUST be
    one of kube-apiserver's answers to a lost etcd (504 "context deadline exceeded", 500
    with the etcd client's gRPC Unavailable, or 503), and at least one MUST fail; a watcher MUST
    end with exactly the store's ConfigMaps, by resuming or by relisting after 410 Gone;
    the apiserver's configmaps watch cache MUST receive the writes made after the
    restart; and, where the apiserver reports it, its resident memory MUST stay under
    1.5 GiB and grow by at most 256 MiB.
    """
    live = Capability.VIRTUAL_TIME not in target.capabilities
    ledger = Ledger(target, namespace)
    marker = target.apply(make_configmap("marker", namespace, v="m").build())
    # The watch starts after the marker's resourceVersion, so it begins knowing it.
    follower = Follower(target, namespace, str(marker["metadata"]["resourceVersion"]), {"marker": "m"})
    watcher = Background(target, follower.loop, follower.stop)
    rss0, received0 = _rss(target), _received(target)
    clock = Stopwatch()
    ledger.run(range(BEFORE), parallel=live)
    t_before = clock()
    during: list[Any] = []
    with inject(target, EtcdKill(), Scope()):
        killed = clock()
        if live:  # they hang until the apiserver's request deadline (~34 s here) ends them
            during = during_outage(target, ledger.write, range(BEFORE, BEFORE + DURING))
            pause(target, OUTAGE_S)
        else:
            for i in range(DURING):
                ledger.write(BEFORE + i)
    restarted = clock()
    target.wait_until(_writable(target, namespace), timeout=90, what="writes accepted again")
    outage = clock() - killed
    t1 = clock()
    ledger.run(range(BEFORE + DURING, BEFORE + DURING + AFTER), parallel=live)
    t_after = clock() - t1
    for f in during:
        f.result(timeout=120)
    stored = {i["metadata"]["name"]: v for i in target.list(*CM, namespace)
              if (v := ledger_value(i)) is not None}  # fmt: skip
    print(f"ledger {len(ledger.writes)} writes {ledger.counts()}; before {t_before:.1f}s, after "
          f"{t_after:.1f}s; etcd down {restarted - killed:.1f}s, writes refused for {outage:.1f}s")  # fmt: skip
    assert len(ledger.writes) >= 1000
    for name, (kind, detail) in sorted(ledger.writes.items()):
        want = str(int(name[2:]))
        if kind == "acked":
            assert stored.get(name) == want, f"acknowledged write {name} lost"
        else:
            assert stored.get(name) in (None, want), f"{name} half-applied"
        if kind == "failed":
            assert _upstream_etcd_error(detail), f"{name}: {detail}"
    assert ledger.counts()["failed"], "no write failed while etcd was down"
    if watcher.running:
        target.wait_until(lambda: follower.view == stored, timeout=30, what="the watcher caught up")
    else:
        while follower.view != stored and follower.gone + follower.resumes < 5:
            follower.step()
    watcher.close()
    print(f"watcher: {follower.resumes} resumed streams, {follower.gone} relists after 410, "
          f"{follower.errors} refused watches")  # fmt: skip
    assert follower.view == stored
    received = _received(target) - received0
    if received0 or received:  # the watch cache's own counter (live)
        assert received >= AFTER
    rss = _rss(target)
    if rss:
        print(f"apiserver RSS {rss0 / 2**20:.0f} -> {rss / 2**20:.0f} MiB")
        assert rss <= RSS_BOUND and rss - rss0 <= RSS_GROWTH


def _upstream_etcd_error(detail: str) -> bool:
    """kube-apiserver's answers while etcd is gone: 504 when the request deadline passes
    ("context deadline exceeded"), 500 InternalError carrying the etcd client's gRPC
    Unavailable for a request in flight when etcd died, 503 while it is unavailable."""
    code, _, message = detail.partition(": ")
    return (
        (code == "504" and "context deadline exceeded" in message)
        or (code == "500" and "code = Unavailable" in message)
        or code == "503"
    )


def _writable(target: Target, namespace: str) -> Callable[[], bool]:
    def probe() -> bool:
        try:
            target.apply(make_configmap("probe", namespace, v="p").build())
            return True
        except ApiError:
            return False
        except Exception:  # the apiserver itself cannot be reached yet
            return False

    return probe


