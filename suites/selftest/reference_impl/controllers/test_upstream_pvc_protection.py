"""pkg/controller/volume/pvcprotection/pvc_protection_controller_test.go (v1.37.2),
TestPVCProtectionController row by row, against ``reference_impl/controllers/
pvc_protection.py`` and ``pvc_unused.py``.

A row's initial objects are stored before the controller starts (its start queues what
upstream's informer add events would); its PVC events (``updatedPVCs``) and its updated
pod are real writes after the start, in row order (a "deleted" claim is created with the
finalizer, then deleted); then the queue runs, retries included. A ``deletedPod`` is in
no informer upstream, so it is never stored here: the start's queueing stands in for
the delete handler. Rows run with PersistentVolumeClaimUnusedSinceTime set as upstream's
``enablePVCUnusedSinceTime``. The expected actions are upstream's update and
update-status actions in order, failed attempts included; its live pod ``list`` actions
have no counterpart (the reference's informers are fed at commit, so the cache is never
behind the API and "informersAreLate" rows check the same outcome).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import pytest
from protection_upstream_env import Env, build_env, drain, store

from reference_impl.apiserver.admission.storage_object_in_use_protection import PVC_PROTECTION
from reference_impl.clock import SimClock, rfc3339
from reference_impl.controllers.pvc_protection import PVCProtectionController, pod_uses_pvc
from reference_impl.controllers.pvc_unused import UNUSED_GATE

Obj = dict[str, Any]
NS: Final = "default"
NS2: Final = "namespace-2"
NS3: Final = "namespace-3"
NOW: Final = rfc3339(SimClock().now())  # unusedSinceNowFunc: the clock does not move here
T100: Final = "2026-01-01T00:01:40Z"  # an older lastTransitionTime (upstream's Unix(100))


def pvc(
    name: str = "pvc1",
    ns: str = NS,
    *,
    finalizer: bool = False,
    deleted: bool = False,
    bound: bool = False,
    unused: str | None = None,
) -> Obj:
    """``pvc()``/``pvcWithConfig``, ``withProtectionFinalizer``, ``deleted``, ``bound`` and
    ``withUnusedCondition(unused, Unix(100))``."""
    meta: Obj = {"name": name, "namespace": ns}
    if finalizer:
        meta["finalizers"] = [PVC_PROTECTION]
    out: Obj = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": meta,
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    status: Obj = {}
    if bound:
        status["phase"] = "Bound"
    if unused is not None:
        reason = "NoPodsUsingPVC" if unused == "True" else "PodUsingPVC"
        status["conditions"] = [{"type": "Unused", "status": unused, "lastTransitionTime": T100,
                                 "reason": reason, "message": "x"}]  # fmt: skip
    if status:
        out["status"] = status
    if deleted:
        out["x-deleted"] = True
    return out


def pod(
    name: str = "pod1",
    ns: str = NS,
    *,
    claims: tuple[str, ...] = (),
    empty_dir: bool = False,
    phase: str = "Pending",
    node: str = "node1",
) -> Obj:
    """``pod()``/``podWithConfig`` with ``withPVC``, ``withEmptyDir``, ``withStatus`` and
    ``unscheduled`` (``node=""``)."""
    vols: list[Obj] = [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims]
    if empty_dir:
        vols.append({"name": "empty-dir", "emptyDir": {}})  # "emptyDir" is no DNS label
    spec: Obj = {"containers": [{"name": "c", "image": "i"}], "volumes": vols}
    if node:
        spec["nodeName"] = node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns},
        "spec": spec,
        "status": {"phase": phase},
    }


def upd(name: str = "pvc1", ns: str = NS, *, finalizer: bool, deleted: bool = False) -> str:
    """An expected ``NewUpdateAction`` on a claim (its finalizers after the update)."""
    fins = PVC_PROTECTION if finalizer else ""
    return f"update PersistentVolumeClaim {ns}/{name}{' deleted' if deleted else ''} finalizers=[{fins}]"


def cond(status: str, name: str = "pvc1") -> str:
    """An expected ``NewUpdateSubresourceAction(status)`` setting Unused at NOW."""
    reason = "NoPodsUsingPVC" if status == "True" else "PodUsingPVC"
    return f"update_status PersistentVolumeClaim {NS}/{name} [Unused={status}/{reason}@{NOW}]"


ADD1: Final = upd(finalizer=True)
REMOVE1: Final = upd(deleted=True, finalizer=False)


def removed(name: str, ns: str = NS) -> str:
    return upd(name, ns, deleted=True, finalizer=False)


@dataclass
class Row:
    pvcs: list[Obj] = field(default_factory=list)  # updatedPVCs
    initial: list[Obj] = field(default_factory=list)  # initialObjects
    pod: Obj | None = None  # updatedPod (a deletedPod is never stored)
    fail: int = 0
    expected: list[str] = field(default_factory=list)
    unused: bool = False  # enablePVCUnusedSinceTime


_LIVE_LIST = (
    "a failing live pod list: the reference reads pods from its informer only (fed at "
    "commit), so it never lists pods from the API"
)

# fmt: off
ROWS = [
    # -- PVC events
    pytest.param(Row(pvcs=[pvc(), pvc("pvc2", NS2)],
                     expected=[ADD1, upd("pvc2", NS2, finalizer=True)]),
                 id="PVC without finalizer -> finalizer is added"),
    pytest.param(Row(pvcs=[pvc(finalizer=True), pvc("pvc2", NS2, finalizer=True)]),
                 id="PVC with finalizer -> no action"),
    pytest.param(Row(pvcs=[pvc()], fail=2, expected=[ADD1, ADD1, ADD1]),
                 id="saving PVC finalizer fails -> controller retries"),
    pytest.param(Row(pvcs=[pvc(finalizer=True, deleted=True),
                           pvc("pvc2", NS2, finalizer=True, deleted=True)],
                     expected=[REMOVE1, removed("pvc2", NS2)]),
                 id="deleted PVC with finalizers across different namespaces -> finalizer is removed"),
    pytest.param(Row(pvcs=[pvc(finalizer=True, deleted=True),
                           pvc("pvc2", finalizer=True, deleted=True)],
                     expected=[REMOVE1, removed("pvc2")]),
                 id="multiple PVCs with finalizer for the same namespace; no alive pods -> finalizer is removed"),
    pytest.param(Row(pvcs=[pvc(finalizer=True, deleted=True)], fail=2,
                     expected=[REMOVE1, REMOVE1, REMOVE1]),
                 id="finalizer removal fails -> controller retries"),
    pytest.param(Row(), marks=pytest.mark.skip(reason=_LIVE_LIST),
                 id="delete multiple PVCs of the same namespace; pod list fails for one PVC -> add failing PVC back to queue and continue to the next PVC"),
    pytest.param(Row(initial=[pod(claims=("pvc1",))], pvcs=[pvc(finalizer=True, deleted=True)]),
                 id="deleted PVC with finalizer + pod with the PVC exists -> finalizer is not removed"),
    pytest.param(Row(initial=[pod(claims=("unrelatedpvc",), empty_dir=True)],
                     pvcs=[pvc(finalizer=True, deleted=True)], expected=[REMOVE1]),
                 id="deleted PVC with finalizer + pod with unrelated PVC and EmptyDir exists -> finalizer is removed"),
    pytest.param(Row(initial=[pod(claims=("unrelatedpvc",), empty_dir=True)],
                     pvcs=[pvc(finalizer=True, deleted=True), pvc("pvc2", finalizer=True, deleted=True),
                           pvc("pvc3", finalizer=True, deleted=True)],
                     expected=[REMOVE1, removed("pvc2"), removed("pvc3")]),
                 id="deleted multiple PVCs with finalizer (same namespace) + pod with unrelated PVC and EmptyDir exists"),
    pytest.param(Row(initial=[pod(claims=("pvc1",), phase="Failed")],
                     pvcs=[pvc(finalizer=True, deleted=True)]),
                 id="deleted PVC with finalizer + pod with the PVC finished but is not deleted -> finalizer is not removed"),
    pytest.param(Row(initial=[pod(claims=("pvc1",))], pvcs=[pvc(finalizer=True, deleted=True)]),
                 id="deleted PVC with finalizer + pod with the PVC exists but is not in the Informer's cache yet -> finalizer is not removed"),
    pytest.param(Row(initial=[pod(claims=("pvc1",)), pod("pod2", NS3, claims=("pvc3",))],
                     pvcs=[pvc(finalizer=True, deleted=True), pvc("pvc2", finalizer=True, deleted=True),
                           pvc("pvc3", NS3, finalizer=True, deleted=True)],
                     expected=[removed("pvc2")]),
                 id="mix of deleted PVCs with some used by a pod and some unused -> finalizer is removed only for unused PVCs"),
    # -- the PersistentVolumeClaimUnusedSinceTime rows
    pytest.param(Row(unused=True, pvcs=[pvc(finalizer=True, bound=True)], expected=[cond("True")]),
                 id="feature enabled: unused bound PVC with no pods -> Unused=True condition set"),
    pytest.param(Row(unused=True, pvcs=[pvc(finalizer=True)]),
                 id="feature enabled: pending PVC -> no Unused condition"),
    pytest.param(Row(unused=True, pvcs=[pvc(finalizer=True, bound=True, unused="True")]),
                 id="feature enabled: bound PVC already has Unused=True and is still unused -> no update"),
    pytest.param(Row(unused=True, initial=[pvc(finalizer=True, bound=True, unused="True")],
                     pod=pod(claims=("pvc1",), phase="Running"), expected=[cond("False")]),
                 id="feature enabled: running pod references bound PVC with Unused=True -> condition set to False"),
    pytest.param(Row(unused=True, initial=[pod(claims=("pvc1",), phase="Running")],
                     pvcs=[pvc(finalizer=True, bound=True)], expected=[cond("False")]),
                 id="feature enabled: bound PVC in use by running pod without condition -> Unused=False set proactively"),
    pytest.param(Row(unused=True, pvcs=[pvc(finalizer=True, deleted=True)], expected=[REMOVE1]),
                 id="feature enabled: deleting PVC -> condition not updated, finalizer removed"),
    pytest.param(Row(pvcs=[pvc(finalizer=True)]),
                 id="feature disabled: unused PVC with no pods -> no condition action"),
    pytest.param(Row(unused=True, initial=[pod(claims=("pvc1",), node="")],
                     pvcs=[pvc(finalizer=True, bound=True)], expected=[cond("False")]),
                 id="feature enabled: unscheduled pending pod references bound PVC -> Unused=False set proactively"),
    pytest.param(Row(unused=True, initial=[pod(claims=("pvc1",), phase="Succeeded")],
                     pvcs=[pvc(finalizer=True, bound=True)], expected=[cond("True")]),
                 id="feature enabled: terminated (Succeeded) pod does not count as using bound PVC -> Unused=True set"),
    pytest.param(Row(unused=True, initial=[pod(claims=("pvc1",), phase="Failed")],
                     pvcs=[pvc(finalizer=True, bound=True)], expected=[cond("True")]),
                 id="feature enabled: terminated (Failed) pod does not count as using bound PVC -> Unused=True set"),
    pytest.param(Row(unused=True, pvcs=[pvc(finalizer=True, bound=True)], fail=2,
                     expected=[cond("True")] * 3),
                 id="feature enabled: status update fails -> controller retries"),
    pytest.param(Row(unused=True, initial=[pod(claims=("pvc1",))],
                     pvcs=[pvc(finalizer=True, bound=True)], expected=[cond("False")]),
                 id="feature enabled: pod not in informer cache but exists in API -> Unused=False set proactively"),
    pytest.param(Row(unused=True, initial=[pod(claims=("pvc1",)), pvc(finalizer=True, bound=True)],
                     expected=[cond("False")]),
                 id="feature enabled: one of two pods deleted, remaining pod keeps bound PVC in use -> Unused=False set proactively"),
    pytest.param(Row(unused=True, pvcs=[pvc(finalizer=True, deleted=True, unused="True")],
                     expected=[REMOVE1]),
                 id="feature enabled: deleting PVC that already has Unused=True condition -> condition preserved when removing finalizer"),
    pytest.param(Row(unused=True, initial=[pvc(finalizer=True, bound=True)], expected=[cond("True")]),
                 id="feature enabled: pod deleted, bound PVC becomes unused -> Unused=True condition set"),
    pytest.param(Row(unused=True, initial=[pod(claims=("pvc1",))], pvcs=[pvc(bound=True)],
                     expected=[cond("False"), ADD1]),
                 id="feature enabled: used bound PVC without finalizer -> Unused=False set then finalizer added"),
    pytest.param(Row(unused=True, initial=[pod(claims=("pvc1",))], pvcs=[pvc(finalizer=True, deleted=True)]),
                 id="feature enabled: deleted PVC with finalizer and pod using it -> finalizer kept (existing behavior)"),
    # -- Pod events
    pytest.param(Row(initial=[pvc(finalizer=True, deleted=True)], pod=pod(claims=("pvc1",), phase="Running")),
                 id="updated running Pod -> no action"),
    pytest.param(Row(initial=[pvc(finalizer=True, deleted=True)], pod=pod(claims=("pvc1",), phase="Succeeded")),
                 id="updated finished Pod -> finalizer is not removed"),
    pytest.param(Row(initial=[pvc(finalizer=True, deleted=True)], pod=pod(claims=("pvc1",), node=""),
                     expected=[REMOVE1]),
                 id="updated unscheduled Pod -> finalizer is removed"),
    pytest.param(Row(initial=[pvc(finalizer=True, deleted=True)], expected=[REMOVE1]),
                 id="deleted running Pod -> finalizer is removed"),
    pytest.param(Row(initial=[pvc(finalizer=True, deleted=True)], pod=pod(), expected=[REMOVE1]),
                 id="pod delete and create with same namespaced name seen as an update, old pod used deleted PVC -> finalizer is removed"),
    pytest.param(Row(initial=[pvc(finalizer=True)], pod=pod()),
                 id="pod delete and create with same namespaced name seen as an update, old pod used non-deleted PVC -> finalizer is not removed"),
    pytest.param(Row(initial=[pvc(finalizer=True, deleted=True)], pod=pod(claims=("pvc1",))),
                 id="pod delete and create with same namespaced name seen as an update, both pods reference deleted PVC -> finalizer is not removed"),
    pytest.param(Row(initial=[pvc(finalizer=True, deleted=True)], pod=pod(claims=("pvc1",))),
                 id="pod update from unscheduled to scheduled, deleted PVC is referenced -> finalizer is not removed"),
]
# fmt: on


def _store(env: Env, obj: Obj) -> None:
    body = {k: v for k, v in obj.items() if k != "x-deleted"}
    store(env, body, deleted=bool(obj.get("x-deleted")))


@pytest.mark.parametrize("row", ROWS)
def test_pvc_protection_controller(row: Row, monkeypatch: pytest.MonkeyPatch) -> None:
    env = build_env(monkeypatch, (NS, NS2, NS3), {UNUSED_GATE: row.unused})
    for obj in row.initial:
        _store(env, obj)
    PVCProtectionController(env.ctx).start()
    for obj in row.pvcs:
        _store(env, obj)
    if row.pod is not None:
        _store(env, row.pod)
    env.fail = row.fail
    drain(env)
    assert env.updates == row.expected
    left = {
        f"{c['metadata']['namespace']}/{c['metadata']['name']}"
        for c in env.server.list("v1", "PersistentVolumeClaim")
        if c["metadata"].get("deletionTimestamp")
    }
    assert left == {
        f"{c['metadata']['namespace']}/{c['metadata']['name']}"
        for c in (*row.pvcs, *row.initial)
        if c.get("x-deleted") and removed(c["metadata"]["name"], c["metadata"]["namespace"]) not in row.expected
    }


# -- podUsesPVCForDeletion on generic ephemeral volumes (no upstream table row) --------


def _ephemeral_pod(*, deleting: bool = False) -> Obj:
    meta: Obj = {"name": "pod1", "namespace": NS, "uid": "pod-uid"}
    if deleting:
        meta |= {"deletionTimestamp": "2026-01-01T00:00:00Z", "deletionGracePeriodSeconds": 0}
    return {
        "metadata": meta,
        "spec": {"nodeName": "node1", "volumes": [{"name": "data", "ephemeral": {}}]},
        "status": {"phase": "Failed"},
    }


def _ephemeral_claim(owner_uid: str | None) -> Obj:
    meta: Obj = {"name": "pod1-data", "namespace": NS}
    if owner_uid is not None:
        meta["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "Pod", "name": "pod1", "uid": owner_uid, "controller": True}
        ]
    return {"metadata": meta}


@pytest.mark.parametrize(
    ("pod_obj", "claim", "want"),
    [
        pytest.param(_ephemeral_pod(), _ephemeral_claim("pod-uid"), True, id="owned claim of a terminal pod is in use"),
        pytest.param(_ephemeral_pod(), _ephemeral_claim("other"), False, id="claim controlled by another pod"),
        pytest.param(_ephemeral_pod(), _ephemeral_claim(None), False, id="claim with the generated name but no owner"),
        pytest.param(_ephemeral_pod(deleting=True), _ephemeral_claim("pod-uid"), False, id="shut-down pod"),
    ],
)
def test_pod_uses_pvc_for_deletion_ephemeral(pod_obj: Obj, claim: Obj, want: bool) -> None:
    """``podUsesPVCForDeletion``: ``podIsShutDown`` and ``ephemeral.VolumeIsForPod``."""
    assert pod_uses_pvc(pod_obj, claim) is want
