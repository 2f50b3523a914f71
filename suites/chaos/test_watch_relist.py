"""A watcher behind an etcd compaction gets 410 Gone and relists (the informer's contract).

kube-apiserver's watch cache keeps serving resourceVersions etcd has compacted away (a
watch from an old RV still resumes after ``etcdctl compact``), so on the local cluster the
watch cache must be rebuilt for a compaction to show: etcd is compacted while the
apiserver is down (kill -9), and the restarted apiserver's cache starts at the compacted
revision. On the reference, which serves watches from its MVCC store, the compaction
alone does it. Either way a resume from the old resourceVersion MUST be refused with 410
("too old resource version" / Expired), and the relist-then-watch that a reflector does
MUST end with exactly the stored objects and then see new writes.
"""

from __future__ import annotations

import pytest

from fixtures import Capability, Target
from fixtures.chaos import Scope
from fixtures.chaos.faults import ProcessKill, inject
from fixtures.helpers.chaos_probes import Follower, ledger_value
from fixtures.helpers.etcd import etcd_control
from fixtures.targets.extensions import process_control_of
from reference_impl.api import make_configmap
from reference_impl.errors import Gone

pytestmark = [pytest.mark.disruptive, pytest.mark.requires(Capability.ETCD_CONTROL)]

CM = ("v1", "ConfigMap")


def _stored(target: Target, namespace: str) -> dict[str, str]:
    return {i["metadata"]["name"]: v for i in target.list(*CM, namespace)
            if (v := ledger_value(i)) is not None}  # fmt: skip


def test_a_watch_from_a_compacted_revision_is_410_and_the_relist_converges(
    target: Target, namespace: str
) -> None:
    """Watch after compaction.

    A watcher that last saw resourceVersion R, after 30 creates, 5 updates and 5 deletes
    and an etcd compaction past R (on a live cluster with the apiserver restarted over
    the compaction), MUST get 410 Gone when it resumes from R; after relisting, its view
    MUST equal the stored ConfigMaps, and once it has seen a newer write, a later one MUST
    arrive by resuming (no further 410).
    """
    first = target.apply(make_configmap("w-000", namespace, v="0").build())
    follower = Follower(target, namespace, str(first["metadata"]["resourceVersion"]), {"w-000": "0"})
    for i in range(1, 31):
        target.apply(make_configmap(f"w-{i:03d}", namespace, v=str(i)).build())
    for i in range(1, 6):
        cm = target.get(*CM, f"w-{i:03d}", namespace)
        cm["data"]["v"] = f"{i}-updated"
        target.apply(cm)
        target.delete(*CM, f"w-{i + 10:03d}", namespace)
    etcd = etcd_control(target)
    procs = process_control_of(target)
    if procs is not None and "kube-apiserver" in procs.components:
        # The watch cache would answer from memory: rebuild it over the compaction.
        with inject(target, ProcessKill(), Scope(params={"component": "kube-apiserver"})):
            revision = etcd.compact()
    else:
        revision = etcd.compact()
    assert revision > int(follower.rv)
    with pytest.raises(Gone, match=r"too old resource version|compacted|Expired"):
        for _ in target.watch(*CM, follower.rv, namespace=namespace, timeout=2):
            pass
    follower.step()  # what a reflector does: the resume fails, it relists
    assert follower.gone == 1 and follower.view == _stored(target, namespace)
    assert len(follower.view) == 26 and follower.view["w-001"] == "1-updated"
    # The Follower resumes from its newest item (Target.list carries no collection
    # resourceVersion), which after deletes may itself be compacted: it relists again until
    # a newer write exists. Once it holds one, a later write MUST arrive by resuming.
    target.apply(make_configmap("w-after", namespace, v="after").build())
    target.wait_until(lambda: (follower.step(), follower.view.get("w-after") == "after")[1],
                      timeout=30, what="the relisted watcher sees a new write")  # fmt: skip
    relists = follower.gone
    target.apply(make_configmap("w-later", namespace, v="later").build())
    target.wait_until(lambda: (follower.step(), follower.view.get("w-later") == "later")[1],
                      timeout=30, what="the watcher resumes and sees a later write")  # fmt: skip
    assert follower.gone == relists and follower.view == _stored(target, namespace)
