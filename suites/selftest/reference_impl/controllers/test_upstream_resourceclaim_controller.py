"""Upstream ``pkg/controller/resourceclaim/controller_test.go`` rows on the reference
resource claim controller (Kubernetes v1.37.2).

``TestSyncHandler``: one case per row, run for the feature combinations of the row (the
GenericWorkload/DRAWorkloadResourceClaims part; DRAAdminAccess and DRAPrioritizedList
are not gates of the reference). Generated names show as ``<generateName>*`` where the
fake client writes ``<generateName>-1``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from rc_upstream_env import (
    API,
    GROUP,
    NODE,
    NS,
    OTHER_NS,
    POD,
    REF,
    TEMPLATE,
    Env,
    expect,
)

from reference_impl.errors import Conflict

Obj = dict[str, Any]
Combo = tuple[bool, bool]  # (GenericWorkload, DRAWorkloadResourceClaims)
ALL: list[Combo] = [(False, False), (True, False), (True, True)]
WRC_ON: list[Combo] = [(True, True)]
GW_OFF: list[Combo] = [(False, False)]
GW_ON: list[Combo] = [(True, False), (True, True)]
WRC_OFF: list[Combo] = [(False, False), (True, False)]
WRC_OFF_GW_ON: list[Combo] = [(True, False)]
GEN = f"{POD}-{REF}-"  # generateName of the pod's claim
PG_GEN = f"{GROUP}-{REF}-"
TEMPLATED = f"{GEN}-1"  # templatedTestClaim.Name as a stored, pre-existing claim
PG_TEMPLATED = f"{PG_GEN}-1"
MISSING = (f'resource claim template "{TEMPLATE}": resourceclaimtemplate.resource.k8s.io '
           f'"{TEMPLATE}" not found')
CONFLICT = ('create ResourceClaim : Operation cannot be fulfilled on resourceclaims.resource.k8s.io '
            '"fake name": fake conflict')


@dataclass
class Want:
    """A row's key and expected outcome (error rows check only the error, as upstream)."""

    key: str
    claims: list[Obj] = field(default_factory=list)
    statuses: dict[str, list[Obj]] = field(default_factory=dict)
    group_statuses: dict[str, list[Obj]] = field(default_factory=dict)
    error: str = ""


Setup = Callable[[Env], Want]
PK, GK = f"pod:{NS}/{POD}", f"podgroup:{NS}/{GROUP}"
CK = f"claim:{NS}/{POD}-{REF}"


def _st(name: str) -> list[Obj]:
    return [{"name": REF, "resourceClaimName": name}]


def create(e: Env) -> Want:
    pod = e.pod()
    e.template()
    return Want(PK, [expect(GEN + "*", pod, pod_claim=REF)], {POD: _st(GEN + "*")})


def create_admin(e: Env) -> Want:
    pod = e.pod()
    e.template(admin=True)
    return Want(PK, [expect(GEN + "*", pod, pod_claim=REF)], {POD: _st(GEN + "*")})


def create_for_grouped_pod(e: Env) -> Want:
    pod = e.pod(group=GROUP)
    e.group(claims=False)
    e.template()
    return Want(PK, [expect(GEN + "*", pod, pod_claim=REF)], {POD: _st(GEN + "*")})


def podgroup_missing(e: Env) -> Want:
    e.pod(group=GROUP)
    e.template()
    return Want(PK, error=f'podgroup.scheduling.k8s.io "{GROUP}" not found')


def create_for_podgroup(e: Env) -> Want:
    pg = e.group()
    e.template()
    return Want(GK, [expect(PG_GEN + "*", pg, pod_claim=REF)], group_statuses={GROUP: _st(PG_GEN + "*")})


def skip_podgroup_claim_for_pod(e: Env) -> Want:
    e.pod(group=GROUP)
    e.group()
    e.template()
    return Want(PK)


def update_pod_status_with_podgroup_claim(e: Env) -> Want:
    e.pod(group=GROUP)
    pg = e.group()
    e.template()
    e.claim(PG_TEMPLATED, pg, pod_claim=REF, generate=PG_GEN)
    return Want(PK, [expect(PG_TEMPLATED, pg, pod_claim=REF)], {POD: _st(PG_TEMPLATED)})


def podgroup_claim_gw_off(e: Env) -> Want:
    e.pod(group=GROUP)
    e.group()
    e.template()
    return Want(PK, error="GenericWorkload feature is disabled")


def podgroup_claim_wrc_off(e: Env) -> Want:
    e.pod(group=GROUP)
    e.group()
    e.template()
    return Want(PK, error="DRAWorkloadResourceClaims feature is disabled")


def nop(e: Env) -> Want:
    pod = e.pod(statuses={REF: TEMPLATED})
    e.template()
    e.claim(TEMPLATED, pod, pod_claim=REF, generate=GEN)
    return Want(PK, [expect(TEMPLATED, pod, pod_claim=REF)], {POD: _st(TEMPLATED)})


def nop_podgroup(e: Env) -> Want:
    pg = e.group(statuses={REF: PG_TEMPLATED})
    e.template()
    e.claim(PG_TEMPLATED, pg, pod_claim=REF, generate=PG_GEN)
    return Want(GK, [expect(PG_TEMPLATED, pg, pod_claim=REF)], group_statuses={GROUP: _st(PG_TEMPLATED)})


def recreate(e: Env) -> Want:
    pod = e.pod(statuses={REF: TEMPLATED})
    e.template()
    return Want(PK, [expect(GEN + "*", pod, pod_claim=REF)], {POD: _st(GEN + "*")})


def recreate_podgroup(e: Env) -> Want:
    pg = e.group(statuses={REF: PG_TEMPLATED})
    e.template()
    return Want(GK, [expect(PG_GEN + "*", pg, pod_claim=REF)], group_statuses={GROUP: _st(PG_GEN + "*")})


def missing_template(e: Env) -> Want:
    e.pod()
    return Want(PK, error=MISSING)


def missing_template_podgroup(e: Env) -> Want:
    e.group()
    return Want(GK, error=MISSING)


def find_existing(e: Env) -> Want:
    pod = e.pod()
    e.claim(TEMPLATED, pod, pod_claim=REF, generate=GEN)
    return Want(PK, [expect(TEMPLATED, pod, pod_claim=REF)], {POD: _st(TEMPLATED)})


def find_existing_podgroup(e: Env) -> Want:
    pg = e.group()
    e.claim(PG_TEMPLATED, pg, pod_claim=REF, generate=PG_GEN)
    return Want(GK, [expect(PG_TEMPLATED, pg, pod_claim=REF)], group_statuses={GROUP: _st(PG_TEMPLATED)})


def recreate_wrong_owner(e: Env) -> Want:
    pod = e.pod(statuses={REF: f"{POD}-{REF}"})
    e.template()
    e.claim(f"{POD}-{REF}")
    return Want(PK, [expect(f"{POD}-{REF}"), expect(GEN + "*", pod, pod_claim=REF)], {POD: _st(GEN + "*")})


def recreate_wrong_owner_podgroup(e: Env) -> Want:
    pg = e.group(statuses={REF: f"{GROUP}-{REF}"})
    e.template()
    e.claim(f"{GROUP}-{REF}")
    return Want(GK, [expect(f"{GROUP}-{REF}"), expect(PG_GEN + "*", pg, pod_claim=REF)],
                group_statuses={GROUP: _st(PG_GEN + "*")})


def no_such_pod(e: Env) -> Want:
    return Want(PK)


def no_such_podgroup(e: Env) -> Want:
    return Want(GK)


def pod_deleted(e: Env) -> Want:
    e.pod(deleting=True)
    return Want(PK)


def podgroup_deleted(e: Env) -> Want:
    e.group(deleting=True)
    return Want(GK)


def no_volumes(e: Env) -> Want:
    e.pod(claims=())
    return Want(PK)


def create_with_other_claim(e: Env) -> Want:
    pod = e.pod()
    e.template()
    e.claim(f"{POD}-{REF}", ns=OTHER_NS)
    return Want(PK, [expect(GEN + "*", pod, pod_claim=REF), expect(f"{POD}-{REF}", ns=OTHER_NS)],
                {POD: _st(GEN + "*")})


def create_with_other_claim_podgroup(e: Env) -> Want:
    pg = e.group()
    e.template()
    e.claim(f"{POD}-{REF}", ns=OTHER_NS)
    return Want(GK, [expect(PG_GEN + "*", pg, pod_claim=REF), expect(f"{POD}-{REF}", ns=OTHER_NS)],
                group_statuses={GROUP: _st(PG_GEN + "*")})


def wrong_claim_owner(e: Env) -> Want:
    e.pod()
    e.claim(f"{POD}-{REF}")
    return Want(PK, [expect(f"{POD}-{REF}")], error=MISSING)


def wrong_claim_owner_podgroup(e: Env) -> Want:
    e.group()
    e.claim(f"{GROUP}-{REF}")
    return Want(GK, [expect(f"{GROUP}-{REF}")], error=MISSING)


def _conflicting_creates(e: Env) -> None:
    real = e.server.create

    def create(m: Obj) -> Obj:
        if m.get("kind") == "ResourceClaim":
            raise Conflict('Operation cannot be fulfilled on resourceclaims.resource.k8s.io "fake name": fake conflict')
        return real(m)

    e.server.create = create  # type: ignore[method-assign, assignment]


def create_conflict(e: Env) -> Want:
    e.pod()
    e.template()
    _conflicting_creates(e)
    return Want(PK, error=CONFLICT)


def create_conflict_admin(e: Env) -> Want:
    e.pod()
    e.template(admin=True)
    _conflicting_creates(e)
    return Want(PK, error=CONFLICT)


def create_conflict_podgroup(e: Env) -> Want:
    e.group()
    e.template()
    _conflicting_creates(e)
    return Want(GK, error=CONFLICT)


def stay_reserved(e: Env) -> Want:
    pod = e.pod()
    e.claim(f"{POD}-{REF}", pod, allocated=True, reserved=(pod,))
    return Want(CK, [expect(f"{POD}-{REF}", pod, allocated=True, reserved=(pod,))])


def _ghost_pod(name: str = POD, uid: str = "uidpod1") -> Obj:
    """A pod that is not stored (``pods: []``), for owner and consumer references."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NS, "uid": uid}}


def _ghost_group() -> Obj:
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": GROUP, "namespace": NS, "uid": "uidpodgroup1"}}


def clear_reserved_structured(e: Env) -> Want:
    pod = _ghost_pod()
    e.claim(f"{POD}-{REF}", pod, allocated=True, reserved=(pod,), finalizer=True)
    return Want(CK, [expect(f"{POD}-{REF}", pod)])


def clear_reserved_podgroup(e: Env) -> Want:
    pod, pg = _ghost_pod(), _ghost_group()
    e.claim(f"{POD}-{REF}", pod, allocated=True, reserved=(pg,), finalizer=True)
    return Want(CK, [expect(f"{POD}-{REF}", pod)])


def dont_clear_reserved_podgroup(e: Env) -> Want:
    pod, pg = _ghost_pod(), _ghost_group()
    e.claim(f"{POD}-{REF}", pod, allocated=True, reserved=(pg,), finalizer=True)
    return Want(CK, [expect(f"{POD}-{REF}", pod, allocated=True, reserved=(pg,), finalizer=True)])


def dont_clear_reserved_structured(e: Env) -> Want:
    pod, other = e.pod(), _ghost_pod(f"{POD}-II", "uidpod1-II")
    e.claim(f"{POD}-{REF}", pod, allocated=True, reserved=(pod, other), finalizer=True)
    return Want(CK, [expect(f"{POD}-{REF}", pod, allocated=True, reserved=(pod,), finalizer=True)])


def _last_write(e: Env, name: str) -> Obj:
    """The claim as last modified: a fake clientset keeps a deleted object whose finalizers
    are gone, the apiserver removes it (its DELETED event carries the state before)."""
    last = [ev for ev in e.events if ev.type == "MODIFIED" and ev.obj["metadata"]["name"] == name][-1]
    return last.obj


def clear_reserved_structured_deleted(e: Env) -> Want:
    pod = _ghost_pod()
    e.claim(f"{POD}-{REF}", pod, allocated=True, reserved=(pod,), finalizer=True, deleting=True)
    return Want(CK, [])


def structured_deleted(e: Env) -> Want:
    pod = _ghost_pod()
    e.claim(f"{POD}-{REF}", pod, allocated=True, finalizer=True, deleting=True)
    return Want(CK, [])


def clear_reserved_when_done(e: Env) -> Want:
    pod = e.pod(phase="Succeeded")
    e.claim(f"{POD}-{REF}", allocated=True, reserved=(pod,))
    return Want(CK, [expect(f"{POD}-{REF}", allocated=True)])


def remove_reserved(e: Env) -> Want:
    pod, other = e.pod(claims=()), _ghost_pod(f"{POD}-II", "uidpod1-II")
    e.claim(f"{POD}-{REF}", pod, allocated=True, reserved=(pod, other))
    return Want(CK, [expect(f"{POD}-{REF}", pod, allocated=True, reserved=(pod,))])


def delete_claim_when_done(e: Env) -> Want:
    pod = e.pod(phase="Succeeded")
    e.claim(f"{POD}-{REF}", pod, allocated=True, reserved=(pod,))
    return Want(CK, [])


def add_reserved(e: Env) -> Want:
    pod = e.pod(node=NODE, statuses={REF: TEMPLATED})
    e.template()
    e.claim(TEMPLATED, pod, pod_claim=REF, generate=GEN, allocated=True)
    return Want(PK, [expect(TEMPLATED, pod, pod_claim=REF, allocated=True, reserved=(pod,))], {POD: _st(TEMPLATED)})


def add_reserved_podgroup(e: Env) -> Want:
    pod = e.pod(node=NODE, group=GROUP, statuses={REF: TEMPLATED})
    pg = e.group()
    e.template()
    e.claim(TEMPLATED, pod, pod_claim=REF, generate=GEN, allocated=True)
    return Want(PK, [expect(TEMPLATED, pod, pod_claim=REF, allocated=True, reserved=(pg,))], {POD: _st(TEMPLATED)})


def skip_add_reserved_podgroup_gw_off(e: Env) -> Want:
    e.pod(node=NODE, group=GROUP, statuses={REF: TEMPLATED})
    e.group()
    e.template()
    e.claim(TEMPLATED, _ghost_pod(), pod_claim=REF, generate=GEN, allocated=True)
    return Want(PK, error="GenericWorkload feature is disabled")


def skip_add_reserved_podgroup_wrc_off(e: Env) -> Want:
    pod = e.pod(node=NODE, group=GROUP, statuses={REF: TEMPLATED})
    e.group()
    e.template()
    e.claim(TEMPLATED, pod, pod_claim=REF, generate=GEN, allocated=True)
    return Want(PK, [expect(TEMPLATED, pod, pod_claim=REF, allocated=True)], {POD: _st(TEMPLATED)})


def remove_pod_reservation_keep_other(e: Env) -> Want:
    pod = e.pod(phase="Succeeded")
    foo = {"apiGroup": "foo.com", "resource": "foo", "name": "foo", "uid": "123"}
    e.claim(f"{POD}-{REF}", pod, allocated=True, reserved=(pod,), extra=(foo,))
    return Want(CK, [expect(f"{POD}-{REF}", pod, allocated=True, extra=(foo,))])


def flapping_statuses(e: Env) -> Want:
    pod = e.pod(claims=(("claim-a", TEMPLATE), ("claim-b", TEMPLATE)), statuses={"claim-a": "claim-a-object"})
    e.template()
    e.claim("claim-a-object", pod)
    return Want(PK, [expect("claim-a-object", pod), expect(f"{POD}-claim-b-*", pod, pod_claim="claim-b")],
                {POD: [{"name": "claim-a", "resourceClaimName": "claim-a-object"},
                       {"name": "claim-b", "resourceClaimName": f"{POD}-claim-b-*"}]})


_MUTATION_CACHE = "a claim only in the controller's mutation cache (claimCache.Mutation) is not modeled"
_ADMIN_GATE = "DRAAdminAccess is not a gate of the reference (always on): the feature-off path cannot be taken"


def _p(setup: Setup, combos: list[Combo], row: str, skip: str = "") -> Any:
    marks = [pytest.mark.skip(reason=skip)] if skip else []
    return pytest.param(setup, combos, id=row, marks=marks)


def _skip_row(e: Env) -> Want:
    return Want(PK)


ROWS = [
    _p(create, ALL, "create"),
    _p(_skip_row, ALL, "create-adminaccess-feature-disabled", _ADMIN_GATE),
    _p(create_admin, ALL, "create-adminaccess-feature-enabled"),
    _p(create_for_grouped_pod, WRC_ON, "create-for-grouped-pod"),
    _p(podgroup_missing, GW_ON, "skip-create-for-pod-podgroup-does-not-exist"),
    _p(create_for_podgroup, WRC_ON, "create-for-podgroup"),
    _p(skip_podgroup_claim_for_pod, WRC_ON, "skip-create-podgroup-claim-for-pod"),
    _p(update_pod_status_with_podgroup_claim, WRC_ON, "update-pod-status-with-podgroup-claim"),
    _p(podgroup_claim_gw_off, GW_OFF, "skip-create-for-pod-with-podgroup-claim-genericworkload-disabled"),
    _p(podgroup_claim_wrc_off, WRC_OFF_GW_ON,
       "skip-create-for-pod-with-podgroup-claim-workloadresourceclaims-disabled"),
    _p(create_for_grouped_pod, WRC_OFF_GW_ON, "create-for-grouped-pod-with-claim-workloadresourceclaims-disabled"),
    _p(nop, ALL, "nop"),
    _p(nop_podgroup, WRC_ON, "nop-podgroup"),
    _p(_skip_row, ALL, "nop-claim-in-mutation-cache-only", _MUTATION_CACHE),
    _p(_skip_row, WRC_ON, "nop-claim-in-mutation-cache-only-for-podgroup", _MUTATION_CACHE),
    _p(nop, ALL, "nop-claim-in-apiserver-only"),
    _p(nop_podgroup, WRC_ON, "nop-claim-in-apiserver-only-for-podgroup"),
    _p(recreate, ALL, "recreate"),
    _p(recreate_podgroup, WRC_ON, "recreate-for-podgroup"),
    _p(missing_template, ALL, "missing-template"),
    _p(missing_template_podgroup, WRC_ON, "missing-template-podgroup"),
    _p(find_existing, ALL, "find-existing-claim-by-label"),
    _p(find_existing_podgroup, WRC_ON, "find-existing-claim-by-label-podgroup"),
    _p(_skip_row, ALL, "find-created-claim-in-cache", _MUTATION_CACHE),
    _p(_skip_row, WRC_ON, "find-created-claim-in-cache-podgroup", _MUTATION_CACHE),
    _p(recreate_wrong_owner, ALL, "recreate-wrong-owner"),
    _p(recreate_wrong_owner_podgroup, WRC_ON, "recreate-wrong-owner-podgroup"),
    _p(no_such_pod, ALL, "no-such-pod"),
    _p(no_such_podgroup, WRC_ON, "no-such-podgroup"),
    _p(pod_deleted, ALL, "pod-deleted"),
    _p(podgroup_deleted, WRC_ON, "podgroup-deleted"),
    _p(no_volumes, ALL, "no-volumes"),
    _p(create_with_other_claim, ALL, "create-with-other-claim"),
    _p(create_with_other_claim_podgroup, WRC_ON, "create-with-other-claim-podgroup"),
    _p(wrong_claim_owner, ALL, "wrong-claim-owner"),
    _p(wrong_claim_owner_podgroup, WRC_ON, "wrong-claim-owner-podgroup"),
    _p(create_conflict, ALL, "create-conflict"),
    _p(create_conflict_admin, ALL, "create-conflict-admin-access"),
    _p(create_conflict_podgroup, WRC_ON, "create-conflict-podgroup"),
    _p(stay_reserved, ALL, "stay-reserved-seen"),
    _p(stay_reserved, ALL, "stay-reserved-not-seen"),
    _p(clear_reserved_structured, ALL, "clear-reserved-structured"),
    _p(clear_reserved_podgroup, WRC_ON, "clear-reserved-podgroup"),
    _p(dont_clear_reserved_podgroup, WRC_OFF, "dont-clear-reserved-podgroup-feature-disabled"),
    _p(dont_clear_reserved_structured, ALL, "dont-clear-reserved-structured"),
    _p(clear_reserved_structured_deleted, ALL, "clear-reserved-structured-deleted"),
    _p(structured_deleted, ALL, "structured-deleted"),
    _p(clear_reserved_when_done, ALL, "clear-reserved-when-done"),
    _p(remove_reserved, ALL, "remove-reserved"),
    _p(delete_claim_when_done, ALL, "delete-claim-when-done"),
    _p(add_reserved, ALL, "add-reserved"),
    _p(add_reserved_podgroup, WRC_ON, "add-reserved-podgroup"),
    _p(skip_add_reserved_podgroup_gw_off, GW_OFF, "skip-add-reserved-podgroup-genericworkload-disabled"),
    _p(skip_add_reserved_podgroup_wrc_off, WRC_OFF_GW_ON, "skip-add-reserved-podgroup-workloadresourceclaims-disabled"),
    _p(remove_pod_reservation_keep_other, ALL, "remove-pod-reservation-with-non-pod-reservation-present"),
    _p(flapping_statuses, ALL, "flapping-resourceclaim-statuses"),
]


@pytest.mark.parametrize(("setup", "combos"), ROWS)
def test_sync_handler(setup: Setup, combos: list[Combo]) -> None:
    for generic, group_claims in combos:
        e = Env(generic, group_claims)
        want = setup(e)
        writes = len(e.events)
        err = e.sync(want.key)
        if want.error:
            assert err is not None and want.error in err, (generic, group_claims, err)
            continue
        assert err is None, (generic, group_claims, err)
        assert e.claims() == sorted(want.claims, key=lambda c: (c["namespace"], c["name"])), (generic, group_claims)
        assert e.statuses() == want.statuses, (generic, group_claims)
        assert e.group_statuses() == want.group_statuses, (generic, group_claims)
        if want.key == PK and want.statuses:
            # flapping-resourceclaim-statuses: the status is written once, with all names.
            pod_writes = [ev for ev in e.events[writes:] if ev.info.kind == "Pod"]
            assert len(pod_writes) <= 1


@pytest.mark.parametrize("setup", [clear_reserved_structured_deleted, structured_deleted],
                         ids=["clear-reserved-structured-deleted", "structured-deleted"])
def test_deleted_claim_is_finalized(setup: Setup) -> None:
    """The two ``*-deleted`` rows: the claim as last written is deallocated and
    unreserved, then its builtin finalizer removed, so the apiserver removed it."""
    e = Env(False, False)
    setup(e)
    assert e.sync(CK) is None
    last = _last_write(e, f"{POD}-{REF}")
    assert last["metadata"].get("deletionTimestamp")
    assert not (last.get("status") or {}).get("allocation")
    assert not (last.get("status") or {}).get("reservedFor")
    # Only removing the builtin finalizer lets the apiserver finish the deletion.
    assert e.server.try_get(API, "ResourceClaim", f"{POD}-{REF}", NS) is None
