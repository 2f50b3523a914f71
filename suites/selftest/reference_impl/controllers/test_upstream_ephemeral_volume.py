"""pkg/controller/volume/ephemeral/controller_test.go (v1.37.2) TestSyncHandler row by
row, and component-helpers storage/ephemeral ephemeral_test.go TestVolumeIsForPod,
against ``reference_impl/controllers/ephemeral_volume.py``.

A row's objects are stored on a real APIServer without admission plugins (upstream's
fake clientset), the controller is built on its informers and ``sync_handler`` runs once
on the row's key, as upstream calls ``syncHandler``. Differences forced by the real
server: the UIDs are the server's (upstream's ``uidpod1``), and the claim template spec
is a valid one (upstream's is empty, which the fake clientset does not validate); the
expected claims are built from the stored pod, as upstream's from ``testPodWithEphemeral``.
Upstream's metrics columns are not modelled. ``create-conflict``'s reactor is a patched
``server.create`` raising Conflict for claims.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import pytest
from protection_upstream_env import Env, build_env, drain, store

from reference_impl.controllers.ephemeral_volume import (
    EphemeralSyncError,
    EphemeralVolumeController,
    volume_claim_name,
    volume_is_for_pod,
)
from reference_impl.errors import Conflict

Obj = dict[str, Any]
NS: Final = "my-namespace"
OTHER_NS: Final = "not-my-namespace"
POD: Final = "test-pod"
VOLUME: Final = "ephemeral-volume"
CLAIM: Final = f"{POD}-{VOLUME}"
SPEC: Final[Obj] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}


def make_pod(ephemeral: bool = True, deleted: bool = False) -> Obj:
    """``makePod`` (with ``makeEphemeralVolume``): ``testPod`` or ``testPodWithEphemeral``."""
    vols = [{"name": VOLUME, "ephemeral": {"volumeClaimTemplate": {"spec": dict(SPEC)}}}] if ephemeral else []
    meta: Obj = {"name": POD, "namespace": NS}
    if deleted:  # keeps the pod stored once marked
        meta["finalizers"] = ["example.com/keep"]
    return {
        "apiVersion": "v1", "kind": "Pod", "metadata": meta,
        "spec": {"containers": [{"name": "c", "image": "busybox"}], "volumes": vols},
    }  # fmt: skip


def make_pvc(ns: str = NS, owner: Obj | None = None) -> Obj:
    """``makePVC``: ``conflictingClaim``/``otherNamespaceClaim`` (no owner)."""
    meta: Obj = {"name": CLAIM, "namespace": ns}
    if owner is not None:
        meta["ownerReferences"] = [owner]
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": dict(SPEC)}


def owner_ref(pod: Obj) -> Obj:
    """``makeOwnerReference(pod, true)``."""
    return {"apiVersion": "v1", "kind": "Pod", "name": pod["metadata"]["name"],
            "uid": pod["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}  # fmt: skip


def _summary(pvc: Obj) -> tuple[str, str, list[Obj], Obj]:
    meta = pvc["metadata"]
    return meta["namespace"], meta["name"], meta.get("ownerReferences") or [], pvc["spec"]


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Env:
    return build_env(monkeypatch, namespaces=(NS, OTHER_NS))


# Each row: stored pod (None: no-such-pod), stored claims (given the stored pod),
# whether creates conflict, whether the sync fails.
PodFn = Callable[[], Obj | None]
PvcsFn = Callable[[Obj | None], list[Obj]]
ROWS: Final[list[Any]] = [
    pytest.param(lambda: make_pod(), lambda p: [], False, None, id="create"),
    pytest.param(lambda: None, lambda p: [], False, None, id="no-such-pod"),
    pytest.param(lambda: make_pod(deleted=True), lambda p: [], False, None, id="pod-deleted"),
    pytest.param(lambda: make_pod(ephemeral=False), lambda p: [], False, None, id="no-volumes"),
    pytest.param(lambda: make_pod(), lambda p: [make_pvc(OTHER_NS)], False, None, id="create-with-other-PVC"),
    pytest.param(
        lambda: make_pod(), lambda p: [make_pvc()], False,
        f"pod {NS}/{POD}, ephemeral volume {VOLUME}: PVC {NS}/{CLAIM} was not created for pod "
        f"{NS}/{POD} (pod is not owner)",
        id="wrong-PVC-owner",
    ),  # fmt: skip
    pytest.param(
        lambda: make_pod(), lambda p: [], True,
        f"pod {NS}/{POD}, ephemeral volume {VOLUME}: create PVC {CLAIM}: Operation cannot be "
        'fulfilled on persistentvolumeclaims "fake name": fake conflict',
        id="create-conflict",
    ),  # fmt: skip
]


@pytest.mark.parametrize(("make", "pvcs", "conflict", "error"), ROWS)
def test_sync_handler(
    env: Env, monkeypatch: pytest.MonkeyPatch, make: PodFn, pvcs: PvcsFn, conflict: bool, error: str | None
) -> None:
    """``TestSyncHandler``: the claims stored after one sync of the pod's key."""
    manifest = make()
    pod = store(env, manifest, deleted=bool(manifest["metadata"].get("finalizers"))) if manifest else None
    before = [store(env, c) for c in pvcs(pod)]
    if conflict:
        real_create = env.server.create

        def create(m: Obj) -> Obj:
            if m["kind"] == "PersistentVolumeClaim":
                raise Conflict('Operation cannot be fulfilled on persistentvolumeclaims "fake name": fake conflict')
            return real_create(m)

        monkeypatch.setattr(env.server, "create", create)
    ctrl = EphemeralVolumeController(env.ctx)
    ctrl.start()
    key = f"{NS}/{POD}"
    if error is None:
        ctrl.sync_handler(key)
    else:
        with pytest.raises(EphemeralSyncError) as got:
            ctrl.sync_handler(key)
        assert got.value.message == error
        event = f"Warning ephemeral volume {VOLUME}: {error.split(f'{VOLUME}: ', 1)[1]}"
        assert [(r.component, r.event, r.object, r.detail) for r in env.ctx.trace.records] == [
            ("ephemeral-volume-controller", "FailedBinding", key, event)
        ]
    expected = [_summary(c) for c in before]
    if pod is not None and not pod["metadata"].get("deletionTimestamp") and error is None:
        vols = pod["spec"].get("volumes") or []  # an empty list is not stored
        if vols:  # testPodEphemeralClaim, with the template's (defaulted) spec
            want = make_pvc(owner=owner_ref(pod))
            want["spec"] = vols[0]["ephemeral"]["volumeClaimTemplate"]["spec"]
            expected.append(_summary(want))
    stored = env.server.list("v1", "PersistentVolumeClaim")
    got_pvcs = sorted((_summary(c) for c in stored), key=lambda s: (s[0], s[1]))
    assert got_pvcs == sorted(expected, key=lambda s: (s[0], s[1]))


def test_create_copies_template_labels_and_annotations(env: Env) -> None:
    """``handleVolume``: the claim carries the template's labels and annotations."""
    manifest = make_pod()
    tmpl = manifest["spec"]["volumes"][0]["ephemeral"]["volumeClaimTemplate"]
    tmpl["metadata"] = {"labels": {"app": "x"}, "annotations": {"note": "y"}}
    store(env, manifest)
    ctrl = EphemeralVolumeController(env.ctx)
    ctrl.start()
    ctrl.sync_handler(f"{NS}/{POD}")
    pvc = env.server.get("v1", "PersistentVolumeClaim", CLAIM, NS)
    assert pvc["metadata"]["labels"] == {"app": "x"}
    assert pvc["metadata"]["annotations"] == {"note": "y"}


def _meta(name: str, ns: str, uid: str, owner_uid: str | None = None) -> Obj:
    meta: Obj = {"name": name, "namespace": ns, "uid": uid}
    if owner_uid is not None:
        meta["ownerReferences"] = [{"uid": owner_uid, "controller": True}]
    return {"metadata": meta}


POD_NOT_OWNER: Final = _meta("podNotOwner", "kube-system", "1")
POD_OWNER: Final = _meta("podOwner", "kube-system", "2")
PVC_NO_OWNER: Final = _meta("pvcNoOwner", "kube-system", "3")
PVC_WITH_OWNER: Final = _meta("pvcNoOwner", "kube-system", "4", owner_uid="2")
USER_PVC_WITH_OWNER: Final = _meta("userPVCWithOwner", "user-namespace", "5", owner_uid="2")


@pytest.mark.parametrize(
    ("pod", "pvc", "expected"),
    [
        pytest.param(POD_OWNER, PVC_WITH_OWNER, None, id="owned"),
        pytest.param(POD_NOT_OWNER, PVC_WITH_OWNER,
                     "PVC kube-system/pvcNoOwner was not created for pod kube-system/podNotOwner (pod is not owner)",
                     id="other-pod"),
        pytest.param(POD_OWNER, PVC_NO_OWNER,
                     "PVC kube-system/pvcNoOwner was not created for pod kube-system/podOwner (pod is not owner)",
                     id="no-owner"),
        pytest.param(POD_OWNER, USER_PVC_WITH_OWNER,
                     "PVC user-namespace/userPVCWithOwner was not created for pod kube-system/podOwner "
                     "(pod is not owner)",
                     id="different-namespace"),
    ],
)  # fmt: skip
def test_volume_is_for_pod(pod: Obj, pvc: Obj, expected: str | None) -> None:
    """component-helpers ``TestVolumeIsForPod``."""
    assert volume_is_for_pod(pod, pvc) == expected


def test_volume_claim_name() -> None:
    """``VolumeClaimName`` (no upstream table): ``<pod>-<volume>``."""
    assert volume_claim_name({"metadata": {"name": "p"}}, {"name": "v"}) == "p-v"


def test_added_pod_and_deleted_claim_are_queued(env: Env) -> None:
    """``enqueuePod`` on a pod add and ``onPVCDelete``: a deleted claim the pod still
    names is created again."""
    ctrl = EphemeralVolumeController(env.ctx)
    ctrl.start()
    pod = env.server.create(make_pod())
    drain(env)
    first = env.server.get("v1", "PersistentVolumeClaim", CLAIM, NS)
    assert first["metadata"]["ownerReferences"] == [owner_ref(pod)]
    env.server.delete("v1", "PersistentVolumeClaim", CLAIM, NS)
    drain(env)
    again = env.server.get("v1", "PersistentVolumeClaim", CLAIM, NS)
    assert again["metadata"]["uid"] != first["metadata"]["uid"]
    assert again["metadata"]["ownerReferences"] == [owner_ref(pod)]
