"""``stateful_pod_control_test.go`` and ``stateful_set_status_updater_test.go`` (v1.37.2)
against the reference's ``StatefulPodControl`` and ``RealStatusUpdater``. Fake-clientset
reactors are hooks on the fake object manager; listers are its dicts."""

from __future__ import annotations

import copy
from typing import Any, cast

import pytest
from statefulset_upstream_env import FakeObjectManager, Recorder, new_pod, new_stateful_set

from reference_impl.controllers.statefulset.claims import SET_GVK, add_controller_ref, has_owner_ref
from reference_impl.controllers.statefulset.controller import RealStatusUpdater
from reference_impl.controllers.statefulset.identity import (
    POD_NAME_LABEL,
    get_persistent_volume_claims,
    identity_matches,
    storage_matches,
)
from reference_impl.controllers.statefulset.pod_control import StatefulPodControl
from reference_impl.errors import AlreadyExists, ApiError, Conflict, NotFound

Obj = dict[str, Any]


def _raise(err: ApiError) -> Any:
    def hook(_: Obj) -> None:
        raise err

    return hook


def _down() -> ApiError:
    return ApiError("Internal error occurred: API server down")


def _control(om: FakeObjectManager) -> tuple[StatefulPodControl, Recorder]:
    recorder = Recorder()
    return StatefulPodControl(om, recorder), recorder


def _types(recorder: Recorder) -> list[str]:
    return [e.split(" ", 1)[0] for e in recorder.events]


def _claims_of(ss: Obj, pod: Obj, **meta: Any) -> dict[str, Obj]:
    out = {}
    for claim in get_persistent_volume_claims(ss, pod).values():
        claim["metadata"].update(meta)
        out[f"default/{claim['metadata']['name']}"] = claim
    return out


def test_creates_pods() -> None:
    """TestStatefulPodControlCreatesPods: a claim and the pod; two Normal events."""
    ss = new_stateful_set(3)
    om = FakeObjectManager()
    spc, rec = _control(om)
    spc.create_stateful_pod(ss, new_pod(ss, 0))
    assert _types(rec) == ["Normal", "Normal"]
    assert sorted(om.claims) == ["default/datadir-foo-0"] and sorted(om.pods) == ["default/foo-0"]


def test_create_pod_exists() -> None:
    """TestStatefulPodControlCreatePodExists: AlreadyExists is returned, no events."""
    ss = new_stateful_set(3)
    pod = new_pod(ss, 0)
    om = FakeObjectManager(claims=_claims_of(ss, pod),
                           hooks={"create-pod": _raise(AlreadyExists('pods "foo-0" already exists'))})  # fmt: skip
    spc, rec = _control(om)
    with pytest.raises(AlreadyExists):
        spc.create_stateful_pod(ss, pod)
    assert rec.events == []


def test_create_pod_pvc_create_failure() -> None:
    """TestStatefulPodControlCreatePodPvcCreateFailure: two Warning events."""
    ss = new_stateful_set(3)
    om = FakeObjectManager(hooks={"create-claim": _raise(_down())})
    spc, rec = _control(om)
    with pytest.raises(ApiError):
        spc.create_stateful_pod(ss, new_pod(ss, 0))
    assert _types(rec) == ["Warning", "Warning"]


def test_create_pod_pvc_deleting() -> None:
    """TestStatefulPodControlCreatePodPVCDeleting: an error and one Warning event."""
    ss = new_stateful_set(3)
    pod = new_pod(ss, 0)
    om = FakeObjectManager(claims=_claims_of(ss, pod, deletionTimestamp="2019-01-01T00:00:00Z"))
    spc, rec = _control(om)
    with pytest.raises(ApiError, match="pvc datadir-foo-0 is being deleted"):
        spc.create_stateful_pod(ss, pod)
    assert _types(rec) == ["Warning"]


def test_create_pod_pvc_get_failure() -> None:
    """TestStatefulPodControlCreatePodPvcGetFailure: two Warning events."""
    ss = new_stateful_set(3)
    om = FakeObjectManager(hooks={"get-claim": _raise(_down())})
    spc, rec = _control(om)
    with pytest.raises(ApiError, match="failed to retrieve PVC datadir-foo-0"):
        spc.create_stateful_pod(ss, new_pod(ss, 0))
    assert _types(rec) == ["Warning", "Warning"]


def test_create_pod_failed() -> None:
    """TestStatefulPodControlCreatePodFailed: Normal (claim), then Warning (pod)."""
    ss = new_stateful_set(3)
    om = FakeObjectManager(hooks={"create-pod": _raise(_down())})
    spc, rec = _control(om)
    with pytest.raises(ApiError):
        spc.create_stateful_pod(ss, new_pod(ss, 0))
    assert _types(rec) == ["Normal", "Warning"]


def test_no_op_update() -> None:
    """TestStatefulPodControlNoOpUpdate: no writes, no events."""
    ss = new_stateful_set(3)
    pod = new_pod(ss, 0)
    om = FakeObjectManager(claims=_claims_of(ss, pod))
    spc, rec = _control(om)
    spc.update_stateful_pod(ss, pod)
    assert [c for c in om.calls if not c.startswith("get-")] == [] and rec.events == []


def test_updates_identity() -> None:
    """TestStatefulPodControlUpdatesIdentity: one Normal event; the written pod matches."""
    ss = new_stateful_set(3)
    pod = new_pod(ss, 0)
    om = FakeObjectManager()
    spc, rec = _control(om)
    pod["metadata"]["name"] = "goo-0"
    spc.update_stateful_pod(ss, pod)
    assert _types(rec) == ["Normal"]
    assert identity_matches(ss, om.pods["default/foo-0"])


def test_update_identity_failure() -> None:
    """TestStatefulPodControlUpdateIdentityFailure: an error, one Warning event, and the
    caller's pod (renamed back by the reactor) does not match."""
    ss = new_stateful_set(3)
    pod = new_pod(ss, 0)
    goo = new_pod(ss, 0)
    goo["metadata"]["name"] = "goo-0"

    def reactor(obj: Obj) -> None:
        obj["metadata"]["name"] = "goo-0"
        raise _down()

    om = FakeObjectManager(pods={"default/goo-0": goo}, hooks={"update-pod": reactor})
    spc, rec = _control(om)
    pod["metadata"]["name"] = "goo-0"
    with pytest.raises(ApiError):
        spc.update_stateful_pod(ss, pod)
    assert _types(rec) == ["Warning"]
    assert not identity_matches(ss, pod)


def _without_claim_volumes(ss: Obj, pod: Obj) -> None:
    claims = get_persistent_volume_claims(ss, pod)
    pod["spec"]["volumes"] = [v for v in pod["spec"]["volumes"] if v["name"] not in claims]


def test_updates_pod_storage() -> None:
    """TestStatefulPodControlUpdatesPodStorage: claim created and pod updated, two Normal
    events; the written pod's storage matches."""
    ss = new_stateful_set(3)
    pod = new_pod(ss, 0)
    _without_claim_volumes(ss, pod)
    om = FakeObjectManager()
    spc, rec = _control(om)
    spc.update_stateful_pod(ss, pod)
    assert _types(rec) == ["Normal", "Normal"]
    assert storage_matches(ss, om.pods["default/foo-0"])


def test_update_pod_storage_failure() -> None:
    """TestStatefulPodControlUpdatePodStorageFailure: two Warning events."""
    ss = new_stateful_set(3)
    pod = new_pod(ss, 0)
    _without_claim_volumes(ss, pod)
    om = FakeObjectManager(hooks={"create-claim": _raise(_down())})
    spc, rec = _control(om)
    with pytest.raises(ApiError):
        spc.update_stateful_pod(ss, pod)
    assert _types(rec) == ["Warning", "Warning"]


def test_update_pod_conflict_success() -> None:
    """TestStatefulPodControlUpdatePodConflictSuccess: a conflict, a retry on the cached
    pod, one Normal event."""
    ss = new_stateful_set(3)
    pod = new_pod(ss, 0)
    goo = new_pod(ss, 0)
    goo["metadata"]["labels"][POD_NAME_LABEL] = "goo-starts"
    conflicted: list[bool] = []

    def reactor(obj: Obj) -> None:
        if not conflicted:
            conflicted.append(True)
            raise Conflict('Operation cannot be fulfilled on pods "foo-0": conflict')

    om = FakeObjectManager(pods={"default/foo-0": goo}, hooks={"update-pod": reactor})
    spc, rec = _control(om)
    pod["metadata"]["labels"][POD_NAME_LABEL] = "goo-0"
    spc.update_stateful_pod(ss, pod)
    assert _types(rec) == ["Normal"]
    assert identity_matches(ss, pod)


@pytest.mark.parametrize(
    ("err", "want_err", "event"),
    [
        pytest.param(None, False, "Normal", id="success"),
        pytest.param(NotFound('pods "foo-0" not found'), False, "Normal", id="not found"),
        pytest.param(_down(), True, "Warning", id="failure"),
    ],
)
def test_delete_stateful_pod(err: ApiError | None, want_err: bool, event: str) -> None:
    """TestStatefulPodControlDeleteStatefulPod."""
    ss = new_stateful_set(3)
    om = FakeObjectManager(hooks={"delete-pod": _raise(err)} if err else {})
    spc, rec = _control(om)
    if want_err:
        with pytest.raises(ApiError):
            spc.delete_stateful_pod(ss, new_pod(ss, 0))
    else:
        spc.delete_stateful_pod(ss, new_pod(ss, 0))
    assert _types(rec) == [event]


def test_claims_match_deletion_policy() -> None:
    """TestStatefulPodControlClaimsMatchDeletionPolcy."""
    ss = new_stateful_set(3)
    pod = new_pod(ss, 0)
    spc, _ = _control(FakeObjectManager(claims=_claims_of(ss, pod)))
    ss["spec"]["persistentVolumeClaimRetentionPolicy"] = {"whenDeleted": "Retain", "whenScaled": "Retain"}
    assert spc.claims_match_retention_policy(ss, pod)
    ss["spec"]["persistentVolumeClaimRetentionPolicy"] = {"whenDeleted": "Delete", "whenScaled": "Retain"}
    assert not spc.claims_match_retention_policy(ss, pod)


@pytest.mark.parametrize(
    ("refs", "expect_ref"),
    [
        pytest.param(None, True, id="bare PVC"),
        pytest.param([{"controller": True, "name": "foobar"}], False, id="PVC already controller"),
    ],
)
def test_update_pod_claim_for_retention_policy(refs: list[Obj] | None, expect_ref: bool) -> None:
    """TestStatefulPodControlUpdatePodClaimForRetentionPolicy."""
    ss = new_stateful_set(3)
    ss["metadata"]["uid"] = "set-123"
    pod = new_pod(ss, 0)
    claims = _claims_of(ss, pod)
    if refs is not None:
        for claim in claims.values():
            claim["metadata"]["ownerReferences"] = copy.deepcopy(refs)
    om = FakeObjectManager(claims=claims)
    spc, _ = _control(om)
    ss["spec"]["persistentVolumeClaimRetentionPolicy"] = {"whenDeleted": "Delete", "whenScaled": "Retain"}
    spc.update_pod_claim_for_retention_policy(ss, pod)
    for key in claims:
        assert has_owner_ref(om.claims[key], ss) is expect_ref


@pytest.mark.parametrize(
    ("states", "expected", "skip_uid"),
    [
        pytest.param(["missing", "missing"], False, False, id="all missing"),
        pytest.param([], False, False, id="no claims"),
        pytest.param(["missing", "exists"], False, False, id="exists"),
        pytest.param(["with-ref", "with-ref"], False, False, id="all refs"),
        pytest.param(["stale", "exists"], True, False, id="stale & exists"),
        pytest.param(["stale", "missing"], True, False, id="stale & missing"),
        pytest.param(["with-ref", "stale"], True, False, id="withRef & stale"),
        pytest.param(["with-ref"], True, True, id="withRef, no UID"),
    ],
)
def test_pod_claim_is_stale(states: list[str], expected: bool, skip_uid: bool) -> None:
    """TestPodClaimIsStale."""
    ss: Obj = {"metadata": {"name": "set", "namespace": "default"},
               "spec": {"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Delete"},
                        "selector": {"matchLabels": {"key": "value"}}, "volumeClaimTemplates": []}}  # fmt: skip
    claims: dict[str, Obj] = {}
    for i, state in enumerate(states):
        ss["spec"]["volumeClaimTemplates"].append({"metadata": {"name": f"claim-{i}"}})
        claim: Obj = {"metadata": {"name": f"claim-{i}-set-3", "namespace": "default"}}
        uid = {"stale": "stale", "with-ref": "123"}.get(state)
        if uid is not None:
            claim["metadata"]["ownerReferences"] = [{"name": "set-3", "uid": uid, "apiVersion": "v1", "kind": "Pod"}]
        if state != "missing":
            claims[f"default/{claim['metadata']['name']}"] = claim
    pod: Obj = {"metadata": {"name": "set-3"}}
    if not skip_uid:
        pod["metadata"]["uid"] = "123"
    spc, _ = _control(FakeObjectManager(claims=claims))
    assert spc.pod_claim_is_stale(ss, pod) is expected


def test_retain_deletion_policy_update() -> None:
    """TestStatefulPodControlRetainDeletionPolicyUpdate: the set's ref is removed; one event."""
    ss = new_stateful_set(1)
    pod = new_pod(ss, 0)
    claims = _claims_of(ss, pod)
    for claim in claims.values():
        claim["metadata"]["ownerReferences"] = add_controller_ref([], ss, SET_GVK)
    om = FakeObjectManager(pods={"default/foo-0": copy.deepcopy(pod)}, claims=claims)
    spc, rec = _control(om)
    spc.update_stateful_pod(ss, pod)
    for key in claims:
        assert not has_owner_ref(om.claims[key], ss)
    assert len(rec.events) == 1


def test_retention_policy_update() -> None:
    """TestStatefulPodControlRetentionPolicyUpdate: whenDeleted=Delete adds the set's ref."""
    ss = new_stateful_set(1)
    ss["spec"]["persistentVolumeClaimRetentionPolicy"] = {"whenDeleted": "Delete", "whenScaled": "Retain"}
    pod = new_pod(ss, 0)
    claims = _claims_of(ss, pod)
    assert len(claims) == 1
    om = FakeObjectManager(pods={"default/foo-0": copy.deepcopy(pod)}, claims=claims)
    spc, rec = _control(om)
    spc.update_stateful_pod(ss, pod)
    assert has_owner_ref(om.claims["default/datadir-foo-0"], ss)
    assert len(rec.events) == 1


def test_retention_policy_update_missing_claims() -> None:
    """TestStatefulPodControlRetentionPolicyUpdateMissingClaims: nothing to do while the
    claim is missing; once it exists, its ref is added with one SuccessfulUpdate event."""
    ss = new_stateful_set(1)
    ss["spec"]["persistentVolumeClaimRetentionPolicy"] = {"whenDeleted": "Delete", "whenScaled": "Retain"}
    pod = new_pod(ss, 0)
    om = FakeObjectManager(pods={"default/foo-0": copy.deepcopy(pod)})
    spc, rec = _control(om)
    spc.update_stateful_pod(ss, pod)
    om.claims.update(_claims_of(ss, pod))
    spc.update_stateful_pod(ss, pod)
    assert has_owner_ref(om.claims["default/datadir-foo-0"], ss)
    assert len(rec.events) == 1 and "SuccessfulUpdate" in rec.events[0]


@pytest.mark.skip(reason="the consistency store (StaleControllerConsistencyStatefulSet) is not modelled: "
                  "the reference's informers see every write before the next sync")  # fmt: skip
def test_pod_control_consistency_store() -> None:
    """TestStatefulPodControlConsistencyStore."""


# -- stateful_set_status_updater_test.go ------------------------------------------------


class _Server:
    """A fake client whose ``update_status`` runs ``reactor``."""

    def __init__(self, reactor: Any) -> None:
        self.reactor = reactor
        self.calls = 0

    def update_status(self, obj: Obj) -> Obj:
        self.calls += 1
        self.reactor(obj)
        return obj


class _Lister:
    def __init__(self, *objs: Obj) -> None:
        self.objs = {f"{o['metadata']['namespace']}/{o['metadata']['name']}": o for o in objs}

    def get(self, key: str) -> Obj | None:
        return self.objs.get(key)


@pytest.mark.parametrize(
    ("status", "err", "want_err"),
    [
        pytest.param({"observedGeneration": 1, "replicas": 2}, None, False, id="updates status"),
        pytest.param({"observedGeneration": 3, "replicas": 2}, None, False, id="updates observed generation"),
        pytest.param({"observedGeneration": 1, "replicas": 2, "availableReplicas": 3}, None, False,
                     id="updates available replicas"),  # fmt: skip
        pytest.param({"observedGeneration": 3, "replicas": 2}, _down(), True, id="update replicas server failure"),
        pytest.param({"observedGeneration": 3, "replicas": 2},
                     Conflict('Operation cannot be fulfilled on statefulset.apps "foo": object already exists'),
                     True, id="update replicas conflict persists"),  # fmt: skip
    ],
)
def test_status_updater(status: Obj, err: ApiError | None, want_err: bool) -> None:
    """TestStatefulSetStatusUpdater: the status is written unchanged; errors surface."""
    ss = new_stateful_set(3)
    sent: list[Obj] = []

    def reactor(obj: Obj) -> None:
        sent.append(copy.deepcopy(obj["status"]))
        if err is not None:
            raise err

    updater = RealStatusUpdater(cast(Any, _Server(reactor)), _Lister(ss))
    given = dict(status)
    if want_err:
        with pytest.raises(ApiError):
            updater.update_stateful_set_status(ss, given)
    else:
        updater.update_stateful_set_status(ss, given)
    assert given == status and sent[0] == status


def test_status_updater_update_replicas_conflict() -> None:
    """TestStatefulSetStatusUpdaterUpdateReplicasConflict: one conflict, then success."""
    ss = new_stateful_set(3)
    conflicted: list[bool] = []

    def reactor(obj: Obj) -> None:
        if not conflicted:
            conflicted.append(True)
            raise Conflict('Operation cannot be fulfilled on statefulsets.apps "foo": object already exists')

    server = _Server(reactor)
    RealStatusUpdater(cast(Any, server), _Lister(ss)).update_stateful_set_status(
        ss, {"observedGeneration": 3, "replicas": 2}
    )
    assert server.calls == 2 and ss["status"]["replicas"] == 2


@pytest.mark.skip(reason="the consistency store (StaleControllerConsistencyStatefulSet) is not modelled: "
                  "the reference's informers see every write before the next sync")  # fmt: skip
def test_status_updater_consistency_store() -> None:
    """TestStatefulSetStatusUpdaterConsistencyStore."""
