"""Upstream ``TestEventHandlers`` rows (``pkg/controller/resourceclaim/controller_test.go``,
v1.37.2) on the reference resource claim controller: the work queue keys an informer
event adds, and the pods indexed by template. The ``numResourceClaims`` metrics of the
rows are not modeled. Objects that upstream creates with a status are created, then
given their status (the apiserver ignores status on create), so both events count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from rc_upstream_env import API, GROUP, NS, OTHER_NS, PG_API, POD, REF, TEMPLATE, Env

from reference_impl.api.dra_builders import make_claim_template

Obj = dict[str, Any]
Combo = tuple[bool, bool]
ALL: list[Combo] = [(False, False), (True, False), (True, True)]
WRC_ON: list[Combo] = [(True, True)]
WRC_OFF: list[Combo] = [(False, False), (True, False)]
CLAIM = f"{POD}-{REF}"
TEMPLATED = f"{CLAIM}--1"
EXT = f"{POD}-extended-resources--1"
EXT_ANN = {"resource.kubernetes.io/extended-resource-claim": "true"}
GEN = f"{POD}-{REF}-"


@dataclass
class Row:
    """Initial objects, then the events; the keys they queue and the indexed templates."""

    initial: Callable[[Env], None]
    events: Callable[[Env], None]
    keys: list[str]
    templates: list[str] = field(default_factory=list)
    combos: list[Combo] = field(default_factory=lambda: list(ALL))


def _none(e: Env) -> None:
    pass


def _ghost() -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": POD, "namespace": NS, "uid": "uidpod1"}}


def _alloc(e: Env, name: str, on: bool) -> None:
    c = e.server.get(API, "ResourceClaim", name, NS)
    status = {"allocation": {"devices": {"results": [
        {"request": "req-0", "driver": "driver.example.com", "pool": "pool", "device": "dev-0"}]}}} if on else {}
    e.server.update_status({**c, "status": status})


def _label(e: Env, name: str) -> None:
    c = e.server.get(API, "ResourceClaim", name, NS)
    e.server.update({**c, "metadata": {**c["metadata"], "labels": {"foo": "bar"}}})


def _claim(name: str, *, allocated: bool = False, admin: bool = False, templated: bool = False,
           ext: bool = False) -> Callable[[Env], None]:
    def make(e: Env) -> None:
        e.claim(name, _ghost(), allocated=allocated, admin=admin,
                pod_claim=REF if templated else None, generate=GEN if templated else None,
                annotations=EXT_ANN if ext else None)
    return make


def _seq(*steps: Callable[[Env], None]) -> Callable[[Env], None]:
    def run(e: Env) -> None:
        for s in steps:
            s(e)
    return run


def _delete(name: str) -> Callable[[Env], None]:
    def run(e: Env) -> None:
        e.server.delete(API, "ResourceClaim", name, NS)
    return run


def _pod(name: str = POD, ns: str = NS, **kw: Any) -> Callable[[Env], None]:
    def make(e: Env) -> None:
        m: Obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
                  "spec": {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}]}}
        claims = kw.get("claims", ((REF, TEMPLATE),))
        if claims:
            m["spec"]["resourceClaims"] = [{"name": r, "resourceClaimTemplateName": t} for r, t in claims]
        if kw.get("ext"):  # the extended resource the status maps
            m["spec"]["containers"][0]["resources"] = {"requests": {"example.com/gpu": "1"},
                                                       "limits": {"example.com/gpu": "1"}}
        if kw.get("group"):
            m["spec"]["schedulingGroup"] = {"podGroupName": kw["group"]}
        pod = e.server.create(m)
        status: Obj = {}
        if kw.get("phase"):
            status["phase"] = kw["phase"]
        if kw.get("ext"):
            status["extendedResourceClaimStatus"] = {"resourceClaimName": "test-extended-claim", "requestMappings": [
                {"containerName": "main", "resourceName": "example.com/gpu", "requestName": "container-0-request-0"}]}
        if status:
            e.server.update_status({**pod, "status": status})
    return make


def _template(ns: str = NS) -> Callable[[Env], None]:
    def run(e: Env) -> None:
        e.server.create(make_claim_template(TEMPLATE, ns).build())
    return run


def _group(status: bool) -> Callable[[Env], None]:
    def run(e: Env) -> None:
        e.group(statuses={REF: CLAIM} if status else None)
    return run


def _group_status(e: Env) -> None:
    pg = e.server.get(PG_API, "PodGroup", GROUP, NS)
    st = [{"name": REF, "resourceClaimName": CLAIM}]
    e.server.update_status({**pg, "status": {**(pg.get("status") or {}), "resourceClaimStatuses": st}})


def _group_claim(e: Env) -> None:
    pg = e.server.get(PG_API, "PodGroup", GROUP, NS)
    e.claim(CLAIM, pg)


def _pod_delete(e: Env) -> None:
    e.server.delete("v1", "Pod", POD, NS, grace_period_seconds=0)


CK, PK, GK = f"claim:{NS}/{CLAIM}", f"pod:{NS}/{POD}", f"podgroup:{NS}/{GROUP}"
EXT_KEY = f"claim:{NS}/test-extended-claim"
_STATUS_ON_CREATE = ("the apiserver does not store a status on create: the PodGroup's ADDED event has no "
                     "resourceClaimStatuses, so it is queued where upstream's status-carrying create is not")
_NO_SOURCE = "a pod claim with neither resourceClaimName nor resourceClaimTemplateName does not pass validation"
_members = _seq(_group(False),
                _pod(f"{POD}-1", group=GROUP), _pod(f"{POD}-2", group=GROUP),
                _pod(f"{POD}-3", group=f"{GROUP}-2"), _pod(f"{POD}-4", group=GROUP, claims=()))

ROWS: dict[str, Row | str] = {
    "nothing": Row(_none, _none, []),
    "new-claim": Row(_none, _claim(CLAIM), [CK]),
    "update-claim": Row(_claim(CLAIM), lambda e: _label(e, CLAIM), [CK]),
    "allocate-claim": Row(_claim(CLAIM), lambda e: _alloc(e, CLAIM, True), [CK]),
    "allocate-another-claim": Row(_claim(CLAIM, allocated=True), _claim(CLAIM + "2", allocated=True), [CK + "2"]),
    "deallocate-claim": Row(_seq(_claim(CLAIM, allocated=True), _claim(CLAIM + "2", allocated=True)),
                            lambda e: _alloc(e, CLAIM, False), [CK]),
    "delete-deallocated-claim": Row(_seq(_claim(CLAIM), _claim(CLAIM + "2", allocated=True)), _delete(CLAIM), []),
    "delete-allocated-claim": Row(_claim(CLAIM + "2", allocated=True), _delete(CLAIM + "2"), []),
    "new-claim-admin-access": Row(_none, _claim(TEMPLATED, admin=True, templated=True), [f"claim:{NS}/{TEMPLATED}"]),
    "update-claim-admin-access": Row(_claim(TEMPLATED, admin=True, templated=True), lambda e: _label(e, TEMPLATED),
                                     [f"claim:{NS}/{TEMPLATED}"]),
    "allocate-claim-admin-access": Row(_claim(TEMPLATED, admin=True, templated=True),
                                       lambda e: _alloc(e, TEMPLATED, True), [f"claim:{NS}/{TEMPLATED}"]),
    "allocate-another-claim-admin-access": Row(_claim(TEMPLATED, admin=True, templated=True, allocated=True),
                                               _claim(TEMPLATED + "2", admin=True, templated=True, allocated=True),
                                               [f"claim:{NS}/{TEMPLATED}2"]),
    "deallocate-claim-admin-access": Row(
        _seq(_claim(TEMPLATED, admin=True, templated=True, allocated=True),
             _claim(TEMPLATED + "2", admin=True, templated=True, allocated=True)),
        lambda e: _alloc(e, TEMPLATED, False), [f"claim:{NS}/{TEMPLATED}"]),
    "delete-deallocated-claim-admin-access": Row(
        _seq(_claim(TEMPLATED, admin=True, templated=True),
             _claim(TEMPLATED + "2", admin=True, templated=True, allocated=True)), _delete(TEMPLATED), []),
    "delete-allocated-claim-admin-access": Row(_claim(TEMPLATED + "2", admin=True, templated=True, allocated=True),
                                               _delete(TEMPLATED + "2"), []),
    "new-claim-extended-resources": Row(_none, _claim(EXT, ext=True), [f"claim:{NS}/{EXT}"]),
    "allocate-claim-extended-resources": Row(_claim(EXT, ext=True), lambda e: _alloc(e, EXT, True),
                                             [f"claim:{NS}/{EXT}"]),
    "deallocate-claim-extended-resources": Row(_claim(EXT, ext=True, allocated=True),
                                               lambda e: _alloc(e, EXT, False), [f"claim:{NS}/{EXT}"]),
    "delete-claim-extended-resources": Row(_claim(EXT, ext=True, allocated=True), _delete(EXT), []),
    "new-pods": Row(_none, _seq(_pod(), _pod("fake-1", OTHER_NS)), [PK, f"pod:{OTHER_NS}/fake-1"],
                    [f"{NS}/{TEMPLATE}", f"{OTHER_NS}/{TEMPLATE}"]),
    "new-template-for-pod": Row(_seq(_pod(), _pod("fake-1", OTHER_NS)), _template(), [PK],
                                [f"{NS}/{TEMPLATE}", f"{OTHER_NS}/{TEMPLATE}"]),
    "new-template-for-pod-other-namespace": Row(_seq(_pod(), _pod("fake-1", OTHER_NS), _template()),
                                                _template(OTHER_NS), [f"pod:{OTHER_NS}/fake-1"],
                                                [f"{NS}/{TEMPLATE}", f"{OTHER_NS}/{TEMPLATE}"]),
    "pod-without-resource-claims": Row(_none, _pod(claims=()), []),
    "running-pod-with-extended-resource-claim": Row(_none, _pod(claims=(), phase="Running", ext=True), []),
    "completed-pod-with-extended-resource-claim": Row(_none, _pod(claims=(), phase="Succeeded", ext=True), [EXT_KEY]),
    "faled-pod-with-extended-resource-claim": Row(_none, _pod(claims=(), phase="Failed", ext=True), [EXT_KEY]),
    "delete-pod-with-extended-resource-claim": Row(_pod(claims=(), phase="Running", ext=True), _pod_delete,
                                                   [EXT_KEY]),
    "completed-pod-with-regular-and-extended-resource-claim": _NO_SOURCE,
    "new-podgroup-feature-disabled": Row(_none, _group(True), [], combos=WRC_OFF),
    "new-podgroup": Row(_none, _group(True), [GK], combos=WRC_ON),
    "new-podgroup-templated-claim-already-exists": _STATUS_ON_CREATE,
    "new-templated-claim-for-podgroup": Row(_group(True), _group_claim, [CK], combos=WRC_ON),
    "new-template-for-podgroup": Row(_group(False), _template(), [GK], combos=WRC_ON),
    "podgroup-claim-status-update": Row(_members, _group_status, [GK, f"{PK}-1", f"{PK}-2"], [f"{NS}/{TEMPLATE}"],
                                        combos=WRC_ON),
    "podgroup-claim-status-update-feature-disabled": Row(_members, _group_status, [], [f"{NS}/{TEMPLATE}"],
                                                         combos=WRC_OFF),
}


def _param(name: str, row: Row | str) -> Any:
    if isinstance(row, str):
        return pytest.param(None, id=name, marks=pytest.mark.skip(reason=row))
    return pytest.param(row, id=name)


@pytest.mark.parametrize("row", [_param(n, r) for n, r in ROWS.items()])
def test_event_handlers(row: Row) -> None:
    for generic, group_claims in row.combos:
        e = Env(generic, group_claims)
        row.initial(e)
        added: list[str] = []
        real_add = e.ctrl.queue.add
        e.ctrl.queue.add = added.append  # type: ignore[method-assign, assignment]
        e.ctrl.start()
        added.clear()  # not checking what the initial objects queue, as upstream
        row.events(e)
        e.ctrl.queue.add = real_add  # type: ignore[method-assign]
        assert sorted(set(added)) == sorted(row.keys), (generic, group_claims)
        assert e.ctrl.pods_by_template.values() == sorted(row.templates), (generic, group_claims)
