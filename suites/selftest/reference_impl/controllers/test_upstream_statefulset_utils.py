"""``pkg/controller/statefulset/stateful_set_utils_test.go`` (v1.37.2), row by row, against
the reference's ``reference_impl.controllers.statefulset`` helpers."""

from __future__ import annotations

import copy
import itertools
import random
from typing import Any

import pytest
from statefulset_upstream_env import new_pod, new_pvc, new_stateful_set

from reference_impl.controllers.controller_utils import controller_ref
from reference_impl.controllers.history import equal_revision
from reference_impl.controllers.statefulset.claims import (
    POD_GVK,
    SET_GVK,
    add_controller_ref,
    has_non_controller_owner,
    has_owner_ref,
    has_stale_owner_ref,
    has_unexpected_controller,
    is_claim_owner_up_to_date,
    matches_ref,
    retention_policy,
    update_claim_owner_refs,
)
from reference_impl.controllers.statefulset.identity import (
    POD_NAME_LABEL,
    get_ordinal,
    get_parent_name_and_ordinal,
    get_persistent_volume_claims,
    identity_matches,
    is_member_of,
    is_running_and_ready,
    storage_matches,
    update_identity,
    update_storage,
)
from reference_impl.controllers.statefulset.pod_control import SyncError
from reference_impl.controllers.statefulset.revisions import (
    apply_revision,
    complete_update,
    get_max_unavailable,
    new_revision,
)

Obj = dict[str, Any]


def _obj(name: str = "", uid: str = "", refs: list[Obj] | None = None, **spec: Any) -> Obj:
    meta: Obj = {"name": name, "uid": uid}
    if refs is not None:
        meta["ownerReferences"] = refs
    return {"metadata": meta, "spec": dict(spec)}


def _ref(api_version: str, kind: str, name: str, uid: str = "", controller: bool | None = None) -> Obj:
    ref: Obj = {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid}
    if controller is not None:
        ref["controller"] = controller
    return ref


def _owner_refs_changed(original: list[Obj], new: list[Obj]) -> bool:
    """The test file's ``ownerRefsChanged``: compare by apiVersion-kind-name, as a set."""
    if len(original) != len(new):
        return True
    seen = {f"{r['apiVersion']}-{r['kind']}-{r['name']}": True for r in original}
    for r in new:
        k = f"{r['apiVersion']}-{r['kind']}-{r['name']}"
        if not seen.get(k):
            return True
        seen[k] = False
    return False


@pytest.mark.parametrize(
    ("orig", "new", "changed"),
    [
        pytest.param(["v1/pod/foo"], [], True, id="dropped"),
        pytest.param(["v1/pod/foo"], ["v1/pod/foo"], False, id="same"),
        pytest.param(["v1/pod/foo"], ["v1/pod/bar"], True, id="renamed"),
        pytest.param(["v1/pod/foo", "v1/set/bob"], ["v1/pod/foo", "v1/set/alice"], True, id="one-renamed"),
        pytest.param(["v1/pod/foo", "v1/set/bob"], ["v1/pod/foo", "v1/set/bob"], False, id="same-two"),
        pytest.param(["v1/pod/foo", "v1/set/bob"], ["v1/pod/foo", "v1/set/bob", "v1/set/bob"], True,
                     id="duplicate"),  # fmt: skip
        pytest.param(["v1/pod/foo", "v1/set/bob"], ["v1/set/bob", "v1/pod/foo"], False, id="reordered"),
    ],
)
def test_owner_refs_changed(orig: list[str], new: list[str], changed: bool) -> None:
    """TestOwnerRefsChanged (the test file's own helper, used by TestUpdateClaimControllerRef)."""

    def refs(strs: list[str]) -> list[Obj]:
        out = []
        for s in strs:
            api_version, kind, name = s.split("/")
            out.append(_ref(api_version, kind, name))
        return out

    assert _owner_refs_changed(refs(orig), refs(new)) is changed


def test_get_parent_name_and_ordinal() -> None:
    """TestGetParentNameAndOrdinal."""
    ss = new_stateful_set(3)
    pod = new_pod(ss, 1)
    assert get_parent_name_and_ordinal(pod) == ("foo", 1)
    pod["metadata"]["name"] = "1-bar"
    assert get_parent_name_and_ordinal(pod) == ("", -1)


def _claim_pod_name(set_name: str, claim_name: str) -> str:
    """The test file's ``getClaimPodName``."""
    import re

    m = re.fullmatch(rf".*-({re.escape(set_name)}-[0-9]+)", claim_name)
    return m.group(1) if m else ""


@pytest.mark.parametrize(
    ("claim", "pod"),
    [
        pytest.param("volume-my-set-2", "my-set-2", id="volume-my-set-2"),
        pytest.param("long-volume-my-set-20", "my-set-20", id="long-volume-my-set-20"),
        pytest.param("volume-2-my-set", "", id="volume-2-my-set"),
        pytest.param("volume-pod-2", "", id="volume-pod-2"),
    ],
)
def test_get_claim_pod_name(claim: str, pod: str) -> None:
    """TestGetClaimPodName (the test file's helper: claim names end ``-<set>-<ordinal>``)."""
    assert _claim_pod_name("my-set", claim) == pod


def test_is_member_of() -> None:
    """TestIsMemberOf."""
    ss, ss2 = new_stateful_set(3), new_stateful_set(3)
    ss2["metadata"]["name"] = "foo2"
    pod = new_pod(ss, 1)
    assert is_member_of(ss, pod)
    assert not is_member_of(ss2, pod)


def test_identity_matches() -> None:
    """TestIdentityMatches."""
    ss = new_stateful_set(3)
    pod = new_pod(ss, 1)
    assert identity_matches(ss, pod)
    pod["metadata"]["name"] = "foo"
    assert not identity_matches(ss, pod)
    pod = new_pod(ss, 1)
    pod["metadata"]["namespace"] = ""
    assert not identity_matches(ss, pod)
    pod = new_pod(ss, 1)
    del pod["metadata"]["labels"][POD_NAME_LABEL]
    assert not identity_matches(ss, pod)


def _break_claims(pod: Obj, how: str) -> None:
    if how == "no-volumes":
        pod["spec"]["volumes"] = None
    for v in pod["spec"].get("volumes") or []:
        if how == "no-claim":
            v.pop("persistentVolumeClaim", None)
        elif how == "wrong-claim" and "persistentVolumeClaim" in v:
            v["persistentVolumeClaim"]["claimName"] = "foo"


def test_storage_matches() -> None:
    """TestStorageMatches."""
    ss = new_stateful_set(3)
    assert storage_matches(ss, new_pod(ss, 1))
    for how in ("no-volumes", "no-claim", "wrong-claim"):
        pod = new_pod(ss, 1)
        _break_claims(pod, how)
        assert not storage_matches(ss, pod), how
    pod = new_pod(ss, 1)
    pod["metadata"]["name"] = "bar"
    assert not storage_matches(ss, pod)


def test_update_identity() -> None:
    """TestUpdateIdentity."""
    ss = new_stateful_set(3)
    pod = new_pod(ss, 1)
    assert identity_matches(ss, pod)
    pod["metadata"]["namespace"] = ""
    assert not identity_matches(ss, pod)
    update_identity(ss, pod)
    assert identity_matches(ss, pod)
    del pod["metadata"]["labels"][POD_NAME_LABEL]
    update_identity(ss, pod)
    assert identity_matches(ss, pod)


def test_update_storage() -> None:
    """TestUpdateStorage."""
    ss = new_stateful_set(3)
    assert storage_matches(ss, new_pod(ss, 1))
    for how in ("no-volumes", "no-claim", "wrong-claim"):
        pod = new_pod(ss, 1)
        _break_claims(pod, how)
        assert not storage_matches(ss, pod), how
        update_storage(ss, pod)
        assert storage_matches(ss, pod), how


def test_get_persistent_volume_claim_retention_policy() -> None:
    """TestGetPersistentVolumeClaimRetentionPolicy (as (whenDeleted, whenScaled))."""
    ss: Obj = {"spec": {"persistentVolumeClaimRetentionPolicy": {"whenScaled": "Retain", "whenDeleted": "Retain"}}}
    assert retention_policy(ss) == ("Retain", "Retain")
    ss["spec"]["persistentVolumeClaimRetentionPolicy"] = {"whenScaled": "Delete", "whenDeleted": "Retain"}
    assert retention_policy(ss) == ("Retain", "Delete")


@pytest.mark.parametrize(
    ("ref", "name", "uid", "match"),
    [
        pytest.param(_ref("v1", "Pod", "fred", "abc"), "fred", "abc", True, id="full match"),
        pytest.param(_ref("v1", "Pod", "fred", "abc"), "fred", "not-matching", True, id="match without UID"),
        pytest.param(_ref("v1", "Pod", "fred", "abc"), "joan", "abc", False, id="mismatch name"),
        pytest.param(_ref("beta2", "Pod", "fred", "abc"), "fred", "abc", False, id="wrong schema"),
    ],
)
def test_matches_ref(ref: Obj, name: str, uid: str, match: bool) -> None:
    """TestMatchesRef."""
    assert matches_ref(ref, _obj(name, uid), POD_GVK) is match


def _policy_set(name: str, uid: str, scaled: str, deleted: str, replicas: int) -> Obj:
    return _obj(name, uid, persistentVolumeClaimRetentionPolicy={"whenScaled": scaled, "whenDeleted": deleted},
                replicas=replicas)  # fmt: skip


_UP_TO_DATE_ROWS = [
    ("retain", "Retain", "Retain", False, False, 0, 0),
    ("on SS delete", "Retain", "Delete", False, True, 0, 0),
    ("on scaledown only, condemned", "Delete", "Retain", True, False, 2, 2),
    ("on scaledown only, remains", "Delete", "Retain", False, False, 2, 1),
    ("on both, condemned", "Delete", "Delete", True, False, 2, 2),
    ("on both, remains", "Delete", "Delete", False, True, 2, 1),
]


@pytest.mark.parametrize(
    ("scaled", "deleted", "needs_pod", "needs_set", "replicas", "ordinal"),
    [pytest.param(*row[1:], id=row[0]) for row in _UP_TO_DATE_ROWS],
)
def test_is_claim_owner_up_to_date(scaled: str, deleted: str, needs_pod: bool, needs_set: bool,
                                   replicas: int, ordinal: int) -> None:  # fmt: skip
    """TestIsClaimOwnerUpToDate: every combination of pod ref, set ref and other refs."""
    for others, pod_ref, set_ref in itertools.product((False, True), repeat=3):
        pod = _obj(f"pod-{ordinal}", "pod-123")
        ss = _policy_set("stateful-set", "ss-456", scaled, deleted, replicas)
        refs: list[Obj] = []
        if pod_ref:
            refs = add_controller_ref(refs, pod, POD_GVK)
        if set_ref:
            refs = add_controller_ref(refs, ss, SET_GVK)
        if others:
            refs += [_ref("v1", "Pod", "rand1", "rand1-uid"), _ref("v1", "Pod", "rand2", "rand2-uid")]
        claim = _obj("target-claim", refs=refs)
        want = pod_ref == needs_pod and set_ref == needs_set
        assert is_claim_owner_up_to_date(claim, ss, pod) is want, (pod_ref, set_ref, others)


_DD = ("Delete", "Delete")
_RD = ("Retain", "Delete")  # (whenScaled, whenDeleted)


@pytest.mark.parametrize(
    ("refs", "policy", "match"),
    [
        pytest.param([_ref("v1", "Pod", "pod-1", "pod-123", True)], _DD, True, id="normal controller, pod"),
        pytest.param([_ref("v1", "Pod", "pod-1", "pod-123")], _DD, False,
                     id="non-controller causes policy mismatch, pod"),  # fmt: skip
        pytest.param([_ref("v1", "Pod", "pod-1", "pod-stale", True)], _DD, True,
                     id="stale controller does not affect policy, pod"),  # fmt: skip
        pytest.param([_ref("v1", "Pod", "pod-1", "pod-123", True), _ref("v1", "Pod", "Random", "random", True)],
                     _DD, False, id="unexpected controller causes policy mismatch, pod"),  # fmt: skip
        pytest.param([_ref("apps/v1", "StatefulSet", "stateful-set", "ss-456", True)], _RD, True,
                     id="normal controller, set"),  # fmt: skip
        pytest.param([_ref("appsv1", "StatefulSet", "stateful-set", "ss-456")], _RD, False,
                     id="non-controller causes policy mismatch, set"),  # fmt: skip
        pytest.param([_ref("apps/v1", "StatefulSet", "stateful-set", "set-stale", True)], _RD, True,
                     id="stale controller ignored, set"),  # fmt: skip
        pytest.param([_ref("apps/v1", "StatefulSet", "stateful-set", "ss-456", True),
                      _ref("apps/v1", "StatefulSet", "Random", "random", True)], _RD, False,
                     id="unexpected controller causes policy mismatch, set"),  # fmt: skip
    ],
)
def test_claim_owner_up_to_date_edge_cases(refs: list[Obj], policy: tuple[str, str], match: bool) -> None:
    """TestClaimOwnerUpToDateEdgeCases."""
    pod = _obj("pod-1", "pod-123")
    ss = _policy_set("stateful-set", "ss-456", policy[0], policy[1], 1)
    claim = _obj("target-claim", refs=refs)
    assert is_claim_owner_up_to_date(claim, ss, pod) is match


@pytest.mark.parametrize(
    ("scaled", "deleted", "condemned", "needs_pod", "needs_set", "unexpected"),
    [
        pytest.param("Retain", "Retain", False, False, False, False, id="retain"),
        pytest.param("Retain", "Delete", False, False, True, False, id="delete with set"),
        pytest.param("Delete", "Retain", False, False, False, False, id="delete with scaledown, not condemned"),
        pytest.param("Delete", "Retain", True, True, False, False, id="delete on scaledown, condemned"),
        pytest.param("Delete", "Delete", False, False, True, False, id="delete on both, not condemned"),
        pytest.param("Delete", "Delete", True, True, False, False, id="delete on both, condemned"),
        pytest.param("Delete", "Delete", True, False, False, True, id="unexpected controller"),
    ],
)
def test_update_claim_owner_ref_for_set_and_pod(scaled: str, deleted: str, condemned: bool, needs_pod: bool,
                                                needs_set: bool, unexpected: bool) -> None:  # fmt: skip
    """TestUpdateClaimOwnerRefForSetAndPod: afterwards exactly the policy's owner controls."""
    for variation in range(8):
        has_pod, has_set, extra = bool(variation & 1), bool(variation & 2), bool(variation & 3)
        ss = _policy_set("ss", "ss-123", scaled, deleted, 5)
        pod = _obj("pod-8" if condemned else "pod-1", "pod-456")
        refs: list[Obj] = []
        if has_pod:
            refs = add_controller_ref(refs, pod, POD_GVK)
        if has_set:
            refs = add_controller_ref(refs, ss, SET_GVK)
        if extra:
            refs.append(_ref("custom/v1", "random", "random", "abc"))
        if unexpected:
            refs.append(_ref("custom/v1", "Unknown", "unknown", "xyz", True))
        claim = _obj("", refs=refs)
        update_claim_owner_refs(claim, ss, pod)

        assert _controls(claim, pod) is needs_pod, variation
        assert _controls(claim, ss) is needs_set, variation


def _controls(claim: Obj, owner: Obj) -> bool:
    """The row's ``check``: the first ref with the owner's UID is a controller ref."""
    for ref in claim["metadata"].get("ownerReferences") or []:
        if ref["uid"] == owner["metadata"]["uid"]:
            return bool(ref.get("controller"))
    return False


_STS = _ref("apps/v1", "StatefulSet", "sts", "123", True)


@pytest.mark.parametrize(
    ("original", "expected"),
    [
        pytest.param([_STS, _ref("someone", "Else", "foo")], [_STS, _ref("someone", "Else", "foo")],
                     id="set correctly"),  # fmt: skip
        pytest.param([_ref("apps/v1", "StatefulSet", "sts", "123")], [_STS], id="missing controller"),
        pytest.param([_ref("someone", "else", "sts", "456")], [_ref("someone", "else", "sts", "456"), _STS],
                     id="matching name but missing"),  # fmt: skip
        pytest.param([], [_STS], id="not present"),
        pytest.param([_ref("apps/v1", "StatefulSet", "sts", "", True)], [], id="controller, but no UID"),
        pytest.param([_ref("apps/v1", "StatefulSet", "sts")], [], id="neither controller nor UID"),
    ],
)
def test_update_claim_controller_ref(original: list[Obj], expected: list[Obj]) -> None:
    """TestUpdateClaimControllerRef."""
    ss = _policy_set("sts", "123", "Delete", "Delete", 1)
    pod = _obj("pod-0", "456")
    claim = _obj("", refs=copy.deepcopy(original))
    update_claim_owner_refs(claim, ss, pod)
    got = claim["metadata"].get("ownerReferences") or []
    assert not _owner_refs_changed(expected, got), got


@pytest.mark.parametrize(
    ("uid", "has"),
    [pytest.param("123", True, id="123"), pytest.param("456", True, id="456"),
     pytest.param("789", True, id="789"), pytest.param("012", False, id="012")],  # fmt: skip
)
def test_has_owner_ref(uid: str, has: bool) -> None:
    """TestHasOwnerRef."""
    target = _obj(refs=[{"uid": "123", "controller": True}, {"uid": "456", "controller": False}, {"uid": "789"}])
    assert has_owner_ref(target, _obj(uid=uid)) is has


@pytest.mark.parametrize(
    ("refs", "unexpected"),
    [
        pytest.param([_ref("chipmunks/v1", "CustomController", "simon", "other-uid", True)], True,
                     id="custom controller"),  # fmt: skip
        pytest.param([_ref("chipmunks/v1", "CustomController", "simon", "other-uid", False)], False,
                     id="custom non-controller"),  # fmt: skip
        pytest.param([_ref("chipmunks/v1", "CustomController", "simon", "other-uid")], False,
                     id="custom unspecified controller"),  # fmt: skip
        pytest.param([_ref("v1", "Pod", "simon", "other-uid", True)], True, id="other pod controller"),
        pytest.param([_ref("apps/v1", "Set", "simon", "other-uid", True)], True, id="other set controller"),
        pytest.param([_ref("apps/v1", "StatefulSet", "set", "set-uid", True)], False, id="own set controller"),
        pytest.param([_ref("apps/v1", "StatefulSet", "set", "stale-uid", True)], True,
                     id="own set controller, stale uid"),  # fmt: skip
        pytest.param([_ref("v1", "Pod", "pod", "pod-uid", True)], False, id="own pod controller"),
        pytest.param([_ref("v1", "Pod", "pod", "stale-uid", True)], True, id="own pod controller, stale uid"),
        pytest.param([_ref("v1", "Pod", "pod", "pod-uid", True),
                      _ref("chipmunks/v1", "CustomController", "simon", "other-uid", True)], True,
                     id="own controller and another"),  # fmt: skip
        pytest.param([_ref("v1", "Pod", "pod", "pod-uid", True),
                      _ref("chipmunks/v1", "CustomController", "simon", "other-uid", False)], False,
                     id="own controller and a non-controller"),  # fmt: skip
    ],
)
def test_has_unexpected_controller(refs: list[Obj], unexpected: bool) -> None:
    """TestHasUnexpectedController: never under no policy (Retain), else per row."""
    target = _obj(refs=refs)
    ss, pod = _obj("set", "set-uid"), _obj("pod", "pod-uid")
    assert not has_unexpected_controller(target, ss, pod)
    for deleted, scaled in (("Retain", "Delete"), ("Delete", "Retain"), ("Delete", "Delete")):
        ss["spec"]["persistentVolumeClaimRetentionPolicy"] = {"whenDeleted": deleted, "whenScaled": scaled}
        assert has_unexpected_controller(target, ss, pod) is unexpected, (deleted, scaled)


@pytest.mark.parametrize(
    ("refs", "non_controller"),
    [
        pytest.param([_ref("v1", "Pod", "pod", "pod", True), _ref("apps/v1", "Set", "set", "set", True)], False,
                     id="set and pod controller"),  # fmt: skip
        pytest.param([_ref("v1", "Pod", "pod", "pod"), _ref("apps/v1", "Set", "set", "set", True)], True,
                     id="set controller, pod noncontroller"),  # fmt: skip
        pytest.param([_ref("v1", "Pod", "pod", "pod", True), _ref("apps/v1", "Set", "set", "set")], True,
                     id="set noncontroller, pod controller"),  # fmt: skip
        pytest.param([_ref("apps/v1", "Set", "set", "set", True)], False, id="set controller"),
        pytest.param([_ref("v1", "Pod", "pod", "pod", True)], False, id="pod controller"),
        pytest.param([], False, id="nothing"),
        pytest.param([_ref("apps/v1", "Set", "set", "set")], True, id="set noncontroller"),
        pytest.param([_ref("apps/v1", "Set", "set", "set", False)], True, id="set noncontroller with ptr"),
        pytest.param([_ref("v1", "pod", "pod", "pod")], True, id="pod noncontroller"),
        pytest.param([_ref("v1", "pod", "pod", "not-matching")], False, id="other noncontroller"),
    ],
)
def test_non_controller(refs: list[Obj], non_controller: bool) -> None:
    """TestNonController."""
    claim = _obj(refs=refs)
    assert has_non_controller_owner(claim, _obj("set", "set"), _obj("pod", "pod")) is non_controller


def test_has_stale_owner_ref() -> None:
    """TestHasStaleOwnerRef."""
    target = _obj(refs=[_ref("v1", "Pod", "bob", "123"), _ref("v1", "Pod", "shirley", "456")])
    assert not has_stale_owner_ref(target, _obj("bob", "123"), POD_GVK)
    assert has_stale_owner_ref(target, _obj("shirley", "789"), POD_GVK)
    assert not has_stale_owner_ref(target, _obj("yvonne", "345"), POD_GVK)


def test_is_running_and_ready() -> None:
    """TestIsRunningAndReady."""
    ss = new_stateful_set(3)
    pod = new_pod(ss, 1)
    assert not is_running_and_ready(pod)
    pod["status"] = {"phase": "Running"}
    assert not is_running_and_ready(pod)
    pod["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
    assert is_running_and_ready(pod)


def test_ascending_ordinal() -> None:
    """TestAscendingOrdinal: sorting by ``get_ordinal`` orders pods by ordinal."""
    ss = new_stateful_set(10)
    perm = list(range(10))
    random.Random(1).shuffle(perm)
    pods = sorted((new_pod(ss, v) for v in perm), key=get_ordinal)
    assert [get_ordinal(p) for p in pods] == list(range(10))


@pytest.mark.skip(reason="overlappingStatefulSets orders sets in the listers' GetPodStatefulSets; the "
                  "reference orders matching sets by namespace/name and has no such sort")  # fmt: skip
def test_overlapping_stateful_sets() -> None:
    """TestOverlappingStatefulSets."""


def test_new_pod_controller_ref() -> None:
    """TestNewPodControllerRef."""
    ss = new_stateful_set(1)
    ref = controller_ref(new_pod(ss, 0))
    assert ref is not None
    assert (ref["apiVersion"], ref["kind"], ref["name"], ref["uid"], ref["controller"]) == (
        "apps/v1", "StatefulSet", ss["metadata"]["name"], ss["metadata"]["uid"], True,
    )  # fmt: skip


def _changed_set() -> Obj:
    changed = new_stateful_set(1)
    container = changed["spec"]["template"]["spec"]["containers"][0]
    container["image"] = "nginx:latest"
    container["env"] = [{"name": "foo", "value": "bar"}]
    return changed


def _status_set() -> Obj:
    s = new_stateful_set(1)
    s["status"] = {"collisionCount": 1, "observedGeneration": 5}
    return s


def _encoded(mutate: str) -> Obj:
    """A whole encoded set as revision data (``json.NewEncoder(buf).Encode(copy)``)."""
    c = new_stateful_set(1)
    if mutate == "metadata":
        c["metadata"].update(namespace="non-default-namespace", uid="non-default-uid",
                             annotations={"injected": "true"})  # fmt: skip
    elif mutate == "status":
        c["status"] = {"collisionCount": 99, "observedGeneration": 100}
    elif mutate == "typemeta":
        c.update(kind="NotAStatefulSet", apiVersion="v0fake")
    return {"data": c}


@pytest.mark.parametrize(
    ("sts", "revision", "expect"),
    [
        pytest.param(new_stateful_set(1), new_revision(new_stateful_set(1), 1, 0), new_stateful_set(1),
                     id="clean revision"),  # fmt: skip
        pytest.param(new_stateful_set(1), {}, new_stateful_set(1), id="empty revision"),
        pytest.param(new_stateful_set(1), {"data": []}, None, id="malformed revision data"),
        pytest.param(new_stateful_set(1), new_revision(_changed_set(), 1, 0), _changed_set(),
                     id="spec change is applied"),  # fmt: skip
        pytest.param(new_stateful_set(1), _encoded("metadata"), new_stateful_set(1),
                     id="metadata changes are ignored"),  # fmt: skip
        pytest.param(_status_set(), _encoded("status"), _status_set(), id="status changes are ignored"),
        pytest.param(new_stateful_set(1), _encoded("typemeta"), new_stateful_set(1),
                     id="typemeta changes are ignored"),  # fmt: skip
    ],
)
def test_apply_revision(sts: Obj, revision: Obj, expect: Obj | None) -> None:
    """TestApplyRevision."""
    if expect is None:
        with pytest.raises(SyncError):
            apply_revision(sts, revision)
        return
    restored = apply_revision(sts, revision)
    for obj in (restored, expect):  # Semantic.DeepEqual: the template's empty metadata
        obj["spec"]["template"].setdefault("metadata", {})
    assert restored == expect


def test_create_apply_revision() -> None:
    """TestCreateApplyRevision: restoring a revision restores its template, and the
    annotations of the set carry over."""
    ss = new_stateful_set(1)
    ss["status"] = {"collisionCount": 0}
    revision = new_revision(ss, 1, 0)
    ss["spec"]["template"]["spec"]["containers"][0]["name"] = "foo"
    ss["metadata"]["annotations"] = {"foo": "bar"}
    restored = apply_revision(ss, revision)
    restored_revision = new_revision(restored, 2, restored["status"]["collisionCount"])
    assert equal_revision(revision, restored_revision)
    assert restored_revision["metadata"]["annotations"]["foo"] == "bar"


def test_get_persistent_volume_claims() -> None:
    """TestGetPersistentVolumeClaims: the claim's labels are the selector's over the
    template's own."""
    pod: Obj = {"metadata": {"name": "foo-0", "namespace": "default"},
                "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}}  # fmt: skip
    ss = new_stateful_set(1)

    def want(labels: dict[str, str] | None) -> dict[str, Obj]:
        pvc = new_pvc("datadir-foo-0")
        if labels is not None:
            pvc["metadata"]["labels"] = labels
        pvc.update(apiVersion="v1", kind="PersistentVolumeClaim")
        return {"datadir": pvc}

    ss["spec"]["selector"]["matchLabels"] = None
    assert get_persistent_volume_claims(ss, pod) == want(None)
    ss["spec"]["selector"]["matchLabels"] = {"test": "test"}
    assert get_persistent_volume_claims(ss, pod) == want({"test": "test"})
    ss["spec"]["selector"]["matchLabels"] = {"name": "foo"}
    ss["spec"]["volumeClaimTemplates"][0]["metadata"]["labels"] = {"test": "test"}
    assert get_persistent_volume_claims(ss, pod) == want({"test": "test", "name": "foo"})
    ss["spec"]["selector"]["matchLabels"] = {"test": "foo"}
    ss["spec"]["volumeClaimTemplates"][0]["metadata"]["labels"] = {"test": "test"}
    assert get_persistent_volume_claims(ss, pod) == want({"test": "foo"})


@pytest.mark.parametrize(
    ("value", "replicas", "want"),
    [
        pytest.param(None, 10, 1, id="case 0"),
        pytest.param(3, 10, 3, id="case 1"),
        pytest.param(3, 0, 3, id="case 2"),
        pytest.param(0, 0, 1, id="case 3"),
        pytest.param("10%", 25, 2, id="case 4"),
        pytest.param("100%", 5, 5, id="case 5"),
        pytest.param("50%", 5, 2, id="case 6"),
        pytest.param("10%", 5, 1, id="case 7"),
        pytest.param("1%", 0, 1, id="case 8"),
        pytest.param("0%", 0, 1, id="case 9"),
    ],
)
def test_get_stateful_set_max_unavailable(value: int | str | None, replicas: int, want: int) -> None:
    """TestGetStatefulSetMaxUnavailable."""
    assert get_max_unavailable(value, replicas) == want


@pytest.mark.parametrize(
    ("strategy", "replicas", "ready", "updated", "total", "promoted"),
    [
        pytest.param("RollingUpdate", 3, 3, 3, 3, True, id="RollingUpdate: all replicas updated and ready"),
        pytest.param("OnDelete", 3, 3, 3, 3, True, id="OnDelete: all replicas updated and ready"),
        pytest.param("OnDelete", 3, 3, 1, 3, False, id="OnDelete: partial update"),
        pytest.param("RollingUpdate", 3, 2, 3, 3, False, id="RollingUpdate: not all ready"),
        pytest.param("RollingUpdate", 3, 2, 2, 2, False, id="not all replicas created"),
    ],
)
def test_complete_update(strategy: str, replicas: int, ready: int, updated: int, total: int, promoted: bool) -> None:
    """TestCompleteUpdate."""
    ss = new_stateful_set(replicas)
    ss["spec"]["updateStrategy"]["type"] = strategy
    status: Obj = {"replicas": total, "readyReplicas": ready, "updatedReplicas": updated,
                   "currentRevision": "rev-1", "updateRevision": "rev-2"}  # fmt: skip
    complete_update(ss, status, False, "")
    if promoted:
        assert (status["currentRevision"], status["currentReplicas"]) == ("rev-2", updated)
    else:
        assert status["currentRevision"] == "rev-1"
