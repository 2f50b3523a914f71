"""Upstream ``pkg/controller/devicetainteviction/device_taint_eviction_test.go`` rows
(Kubernetes v1.37.2) on the reference device taint eviction controller.

``TestController`` rows assert what the reference can observe: the eviction time of a
claim (``allocatedClaims``) and of a pod (``deletePodAt``), whether the pod got deleted
with the DisruptionTarget condition, and each DeviceTaintRule's EvictionInProgress
condition at every step. Events run in the row's listed order (upstream runs every
permutation); work queue contents, metrics and Events are not modeled.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from dte_upstream_env import (
    CLAIM,
    DRIVER,
    GROUP,
    HOUR,
    KEY,
    NODE2,
    NS,
    PERIOD,
    POD,
    SLICE2,
    TAINT,
    TAINT_TIME,
    TAINTED,
    TOLERATE_HOUR,
    VALUE,
    Env,
    Obj,
    assert_evicted,
    assert_kept,
    at,
    claim,
    claim_eviction,
    completed,
    cond,
    none_msg,
    pending,
    pod,
    pod_group,
    rule,
    simple_slice,
    slice_,
)

# -- rows -------------------------------------------------------------------------------


def empty(e: Env) -> None:
    e.clock.settle()
    assert not e.ctrl._device_taints and not e.ctrl._pool_claims


def _tainted_devices(e: Env) -> set[tuple[str, str, str]]:
    return set(e.ctrl._device_taints)


def populate_pools(e: Env) -> None:
    e.apply(slice_())
    e.apply(SLICE2)
    assert _tainted_devices(e) == {("some-driver", "worker", "instance-no-execute"),
                                   ("some-driver", NODE2, "instance-no-execute")}


def update_pools(e: Env) -> None:
    e.apply(slice_())
    e.apply(SLICE2)
    untainted = slice_()
    for d in untainted["spec"]["devices"]:
        d.pop("taints", None)
    e.apply(untainted)
    e.remove(SLICE2)
    assert _tainted_devices(e) == set()


def evict_pod_resourceclaim_unrelated_changes(e: Env) -> None:
    e.apply(TAINTED, settle=False)
    e.apply(SLICE2, settle=False)
    p = e.apply(pod(), settle=False)
    c = e.apply(claim(p, reserved=(p,)), settle=False)
    assert e.eviction_at() == TAINT_TIME
    e.apply(slice_(first_taints=[TAINT], extra=True), settle=False)
    e.server.update(c)  # no real change
    e.server.update(e.server.get("v1", "Pod", POD, NS))
    assert e.eviction_at() == TAINT_TIME
    e.clock.settle()
    assert_evicted(e)


def untainted_claim(e: Env) -> None:
    e.apply(slice_())
    e.apply(SLICE2)
    e.apply(claim(None))
    assert claim_eviction(e) is None


def tainted_claim_through_slice(e: Env) -> None:
    e.apply(TAINTED)
    e.apply(SLICE2)
    e.apply(claim(None))
    assert claim_eviction(e) == TAINT_TIME


def rule_status(e: Env) -> None:
    e.apply(rule())
    assert e.condition("evict") == cond(False, "NotStarted", "")


def tainted_claim_through_rule(e: Env) -> None:
    e.apply(rule())
    e.apply(claim(None))
    assert claim_eviction(e) == TAINT_TIME
    assert e.condition("evict") == cond(False, "NotStarted", "")


def evict_pod_resourceclaim(e: Env) -> None:
    e.apply(TAINTED)
    e.apply(SLICE2)
    p = e.apply(pod())
    e.apply(claim(p, reserved=(p,)))
    assert e.eviction_at() == TAINT_TIME
    assert_evicted(e)


def evict_pod_resourceclaim_podgroup(e: Env) -> None:
    e.apply(TAINTED)
    e.apply(SLICE2)
    pg = e.apply(pod_group())
    e.apply(pod(group=GROUP))
    e.apply(claim(pg, reserved=(pg,)))
    assert e.eviction_at() == TAINT_TIME
    assert_evicted(e)


def no_evict_pod_in_podgroup_without_claim(e: Env) -> None:
    e.apply(TAINTED)
    e.apply(SLICE2)
    pg = e.apply(pod_group())
    e.apply(claim(pg, reserved=(pg,)))
    e.apply(pod(group=GROUP, claim=None))
    assert claim_eviction(e) == TAINT_TIME
    assert e.eviction_at() is None
    assert_kept(e)


def evict_pod_rule(e: Env) -> None:
    p = e.apply(pod())
    e.apply(claim(p, reserved=(p,)))
    e.apply(rule())
    assert e.eviction_at() == TAINT_TIME
    assert_evicted(e)
    assert e.condition("evict") == cond(True, "PodsPendingEviction", pending())
    e.advance(PERIOD)
    assert e.condition("evict") == cond(False, "Completed", completed(), PERIOD)


def evict_pod_rule_later(e: Env) -> None:
    p = e.apply(pod())
    e.apply(claim(p, reserved=(p,), tolerations=TOLERATE_HOUR))
    e.apply(rule())
    assert e.eviction_at() == at(HOUR)
    assert e.condition("evict") == cond(True, "PodsPendingEviction", pending())
    e.advance(PERIOD)
    assert_kept(e)
    e.advance(HOUR - PERIOD)
    assert_evicted(e)
    e.advance(PERIOD)
    assert e.condition("evict") == cond(False, "Completed", completed(), HOUR + PERIOD)


def evict_many_pods(other_ns: bool) -> Callable[[Env], None]:
    def run(e: Env) -> None:
        p = e.apply(pod())
        e.apply(claim(p, reserved=(p,)))
        name, ns = (POD, f"{NS}-other") if other_ns else (f"{POD}-other", NS)
        p2 = e.apply(pod(name, ns, claim=CLAIM if other_ns else f"{CLAIM}-other"))
        e.apply(claim(p2, name=CLAIM if other_ns else f"{CLAIM}-other", ns=ns,
                      devices=("instance-no-schedule", "instance-no-execute"), reserved=(p2,)))
        e.apply(rule())
        assert_evicted(e)
        assert_evicted(e, name, ns)
        assert e.condition("evict") == cond(True, "PodsPendingEviction", pending(2, 2 if other_ns else 1))
        e.advance(PERIOD)
        assert e.condition("evict") == cond(False, "Completed", completed(2), PERIOD)
    return run


def none_rule(other: str | None) -> Callable[[Env], None]:
    """none-pod-rule (slice, one pod) and none-many-pods-{many-namespaces,same-namespace}."""
    def run(e: Env) -> None:
        if other is None:
            e.apply(slice_())
        p = e.apply(pod())
        e.apply(claim(p, reserved=(p,)))
        if other is not None:
            name, ns = (POD, f"{NS}-other") if other == "ns" else (f"{POD}-other", NS)
            p2 = e.apply(pod(name, ns, claim=CLAIM if other == "ns" else f"{CLAIM}-other"))
            e.apply(claim(p2, name=CLAIM if other == "ns" else f"{CLAIM}-other", ns=ns,
                          devices=("instance-no-schedule", "instance-no-execute"), reserved=(p2,)))
        e.apply(rule(effect="None"))
        assert_kept(e)
        msg = none_msg(3, 1, 1, 1) if other is None else none_msg(0, 3, 2, 2 if other == "ns" else 1)
        assert e.condition("evict") == cond(False, "NoEffect", msg)
    return run


def none_podgroup_rule(e: Env) -> None:
    e.apply(slice_())
    pg = e.apply(pod_group())
    e.apply(claim(pg, reserved=(pg,)))
    e.apply(pod(group=GROUP))
    e.apply(rule(effect="None"))
    assert_kept(e)
    assert e.condition("evict") == cond(False, "NoEffect", none_msg(3, 1, 1, 1))


def _two_claims(e: Env) -> None:
    p = e.apply({**pod(), "spec": {**pod()["spec"], "resourceClaims": [
        {"name": "my-resource", "resourceClaimName": CLAIM},
        {"name": "my-resource-other", "resourceClaimName": f"{CLAIM}-other"}]}})
    owner = e.apply(pod(f"{POD}-other", claim=f"{CLAIM}-other", node=None))
    e.apply(claim(p, reserved=(p,)))
    e.apply(claim(owner, name=f"{CLAIM}-other", devices=("instance-no-schedule", "instance-no-execute"),
                  reserved=(p, owner)))


def multiple_claims_same_rule(e: Env) -> None:
    _two_claims(e)
    e.apply(rule())
    assert_evicted(e)
    assert e.condition("evict") == cond(True, "PodsPendingEviction", pending())
    e.advance(PERIOD)
    assert e.condition("evict") == cond(False, "Completed", completed(), PERIOD)


def multiple_claims_different_rules(order: int) -> Callable[[Env], None]:
    def run(e: Env) -> None:
        _two_claims(e)
        first = rule("evict-instance", device="instance")
        later = rule("evict-instance-no-execute", device="instance-no-execute", time_added=at(40))
        for r in (first, later) if order == 1 else (later, first):
            e.apply(r, settle=False)
        e.clock.settle()
        assert claim_eviction(e) == TAINT_TIME
        assert claim_eviction(e, f"{CLAIM}-other") == at(40)
        assert e.eviction_at() == TAINT_TIME
        assert_evicted(e)
        e.advance(PERIOD)
        for name in ("evict-instance", "evict-instance-no-execute"):
            assert e.condition(name) == cond(False, "Completed", completed(), PERIOD), name
    return run


def evict_pod_resourceclaim_again(e: Env) -> None:
    e.apply(SLICE2)
    p = e.apply(pod())
    e.apply(claim(p, reserved=(p,), tolerations=TOLERATE_HOUR))
    e.apply(TAINTED)
    assert e.eviction_at() == at(HOUR)
    e.remove(TAINTED)
    assert e.eviction_at() is None
    e.apply(TAINTED)
    assert e.eviction_at() == at(HOUR)
    e.advance(HOUR)
    assert_evicted(e)


def evict_pod_after_scheduling(e: Env) -> None:
    e.apply(TAINTED)
    e.apply(SLICE2)
    p = e.apply(pod(node=None))
    e.apply(claim(p, reserved=(p,)))
    assert e.eviction_at() is None
    assert_kept(e)
    e.server.bind(NS, POD, "worker")
    e.clock.settle()
    assert_evicted(e)


def evict_pod_resourceclaimtemplate(e: Env) -> None:
    e.apply(TAINTED)
    e.apply(SLICE2)
    p = e.apply(pod(claim="tmpl", template=True, status_claim=CLAIM))
    e.apply(claim(p, reserved=(p,)))
    assert e.eviction_at() == TAINT_TIME
    assert_evicted(e)


def evict_pod_extended_claim(status_update: bool) -> Callable[[Env], None]:
    def run(e: Env) -> None:
        e.apply(TAINTED)
        e.apply(SLICE2)
        p = e.apply(pod(claim=None, ext=True))
        e.apply(claim(p, reserved=(p,)))
        if not status_update:
            assert_kept(e)
        e.apply(pod(claim=None, ext_claim=CLAIM))
        assert_evicted(e)
    return run


def no_evict_wrong_owner(template: bool) -> Callable[[Env], None]:
    """no-evict-extended-resourceclaim-wrong-owner / no-evict-wrong-resourceclaim: the claim
    is owned by an older pod of the same name, so it is not this pod's."""
    def run(e: Env) -> None:
        e.apply(TAINTED)
        e.apply(SLICE2)
        old = e.apply(pod(claim=None, node=None))
        e.remove(old)
        p = e.apply(pod(claim="tmpl", template=True, status_claim=CLAIM) if template else pod(claim=None, ext=True))
        e.apply(claim(old, reserved=(p,)))
        if not template:
            e.apply(pod(claim=None, ext_claim=CLAIM))
        assert claim_eviction(e) == TAINT_TIME
        assert e.eviction_at() is None
        assert_kept(e)
    return run


def evict_pod_later(e: Env) -> None:
    e.apply(TAINTED)
    e.apply(SLICE2)
    p = e.apply(pod())
    e.apply(claim(p, reserved=(p,), tolerations=TOLERATE_HOUR))
    assert e.eviction_at() == at(HOUR)
    e.advance(HOUR - 1)
    assert_kept(e)
    e.advance(1)
    assert_evicted(e)


def _tolerating(e: Env, slice_obj: Obj, tolerations: list[Obj]) -> None:
    e.apply(slice_obj, settle=False)
    e.apply(SLICE2, settle=False)
    p = e.apply(pod(), settle=False)
    e.apply(claim(p, reserved=(p,), tolerations=tolerations), settle=False)
    e.clock.settle()


def evict_pod_later_many(e: Env) -> None:
    _tolerating(e, TAINTED, [
        {"key": f"{KEY}-other", "operator": "Equal", "value": VALUE, "effect": "NoExecute", "tolerationSeconds": 20},
        {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60},
        {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}])
    assert e.eviction_at() == at(30)
    e.advance(29)
    assert_kept(e)
    e.advance(1)
    assert_evicted(e)


def evict_pod_toleration_mismatch(e: Env) -> None:
    _tolerating(e, TAINTED, [{"key": f"{KEY}-other", "operator": "Equal", "value": VALUE, "effect": "NoExecute",
                              "tolerationSeconds": 60}])
    assert e.eviction_at() == TAINT_TIME
    assert_evicted(e)


def no_evict_toleration_forever(many: bool) -> Callable[[Env], None]:
    def run(e: Env) -> None:
        tols: list[Obj] = [{"operator": "Exists", "effect": "NoExecute"}]
        if many:
            tols.insert(0, {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60})
        _tolerating(e, TAINTED, tols)
        assert claim_eviction(e) is None
        e.advance(2 * HOUR)
        assert_kept(e)
    return run


TWICE = slice_(first_taints=[{"key": KEY, "effect": "NoExecute", "timeAdded": TAINT_TIME},
                             {"key": f"{KEY}-other", "effect": "NoExecute", "timeAdded": TAINT_TIME}])


def evict_pod_partial_toleration(e: Env) -> None:
    _tolerating(e, TWICE, [{"operator": "Exists", "key": KEY, "effect": "NoExecute"}])
    assert e.eviction_at() == TAINT_TIME
    assert_evicted(e)


def evict_pod_many_taints(e: Env) -> None:
    e.apply(rule(), settle=False)
    e.apply(rule("evict-other", device="instance", driver=False), settle=False)
    _tolerating(e, TWICE, [
        {"operator": "Exists", "key": KEY, "effect": "NoExecute", "tolerationSeconds": 60},
        {"operator": "Exists", "key": f"{KEY}-other", "effect": "NoExecute", "tolerationSeconds": 30}])
    assert e.eviction_at() == at(30)
    for r in ("evict", "evict-other"):
        assert e.condition(r) == cond(True, "PodsPendingEviction", pending()), r
    e.advance(PERIOD)
    # Upstream's rows expect the unchanged condition rewritten at +10s: TestController feeds
    # the rule lister only from the row's events, so maybeUpdateRuleStatus never sees its
    # own write. With informers it finds the condition unchanged and does not write.
    for r in ("evict", "evict-other"):
        assert e.condition(r) == cond(True, "PodsPendingEviction", pending()), r
    e.advance(20)
    assert_evicted(e)
    for r in ("evict", "evict-other"):  # not updated yet
        assert e.condition(r) == cond(True, "PodsPendingEviction", pending()), r
    e.advance(PERIOD)
    for r in ("evict", "evict-other"):
        assert e.condition(r) == cond(False, "Completed", completed(), 30 + PERIOD), r


def _no_evict(slice_obj: Obj, pod_obj: Obj, tainted: bool = True) -> Callable[[Env], None]:
    def run(e: Env) -> None:
        e.apply(slice_obj)
        e.apply(SLICE2)
        p = e.apply(pod_obj)
        e.apply(claim(p, reserved=(p,)))
        assert claim_eviction(e) == (TAINT_TIME if tainted else None)
        assert e.eviction_at() is None
        assert_kept(e)
    return run


def no_evict_no_taint_update(e: Env) -> None:
    e.apply(simple_slice())
    p = e.apply(pod())
    e.apply(claim(p, reserved=(p,)))
    e.apply(simple_slice())
    assert claim_eviction(e) is None
    assert_kept(e)


def no_evict_wrong_pod(e: Env) -> None:
    """The claim is reserved for another pod (UID) of the same name."""
    e.apply(TAINTED)
    e.apply(SLICE2)
    old = e.apply(pod(node=None))
    e.remove(old)
    p = e.apply(pod())
    e.apply(claim(p, reserved=(old,)))
    assert claim_eviction(e) == TAINT_TIME
    assert e.eviction_at() is None
    assert_kept(e)


def evict_wrong_pod_replaced(e: Env) -> None:
    e.apply(TAINTED)
    e.apply(SLICE2)
    other = e.apply(pod("placeholder", node=None, claim=None))
    e.apply(claim(other, reserved=(other,)))
    e.remove(other)
    p = e.apply(pod())
    e.apply(claim(p, reserved=(p,)))
    assert e.eviction_at() == TAINT_TIME
    assert_evicted(e)


def _scheduled_for_later(e: Env, slice_obj: Obj = TAINTED) -> Obj:
    """initialState with a pending eviction an hour away (tolerated for an hour)."""
    e.apply(slice_obj)
    e.apply(SLICE2)
    p = e.apply(pod(claim="tmpl", template=True, status_claim=CLAIM))
    e.apply(claim(p, reserved=(p,), tolerations=TOLERATE_HOUR))
    assert e.eviction_at() == at(HOUR)
    return p


def cancel_eviction(change: Callable[[Env], None]) -> Callable[[Env], None]:
    def run(e: Env) -> None:
        _scheduled_for_later(e)
        change(e)
        assert claim_eviction(e) is None
        assert e.eviction_at() is None
        e.advance(2 * HOUR)
        assert_kept(e)
    return run


def ignore_effect(effect: str) -> Callable[[Env], None]:
    def run(e: Env) -> None:
        e.apply(slice_(first_taints=[TAINT], effect=effect))
        e.apply(SLICE2)
        p = e.apply(pod(claim="tmpl", template=True, status_claim=CLAIM))
        e.apply(claim(p, reserved=(p,)))
        assert claim_eviction(e) is None
        assert_kept(e)
    return run


def eviction_change_taint(e: Env) -> None:
    _scheduled_for_later(e)
    e.apply(slice_(first_taints=[{**TAINT, "value": f"{VALUE}-other"}]))
    assert claim_eviction(e) == TAINT_TIME
    assert_evicted(e)


def cancel_eviction_pod_deletion(e: Env) -> None:
    e.apply(TAINTED)
    e.apply(SLICE2)
    p = e.apply(pod())
    e.apply(claim(p, reserved=(p,), tolerations=[{"operator": "Exists", "effect": "NoExecute",
                                                  "tolerationSeconds": 60}]))
    assert e.eviction_at() == at(60)
    e.remove(p)
    assert claim_eviction(e) == at(60)
    e.advance(120)  # nothing left to evict, nothing failing
    assert e.pod() is None


def evict_wrong_resourceclaim_replaced(e: Env) -> None:
    e.apply(TAINTED)
    e.apply(SLICE2)
    old = e.apply(pod("placeholder", node=None, claim=None))
    p = e.apply(pod(claim="tmpl", template=True, status_claim=CLAIM))
    e.apply(claim(old, reserved=(p,)))
    assert_kept(e)
    c = e.server.get("resource.k8s.io/v1", "ResourceClaim", CLAIM, NS)
    owner = {"apiVersion": "v1", "kind": "Pod", "name": POD, "uid": p["metadata"]["uid"], "controller": True}
    e.server.update({**c, "metadata": {**c["metadata"], "ownerReferences": [owner]}})
    e.clock.settle()
    assert_evicted(e)


def _deallocate(e: Env) -> None:
    c = e.server.get("resource.k8s.io/v1", "ResourceClaim", CLAIM, NS)
    e.server.update_status({**c, "status": {}})
    e.clock.settle()


def _delete_claim(e: Env) -> None:
    e.server.delete("resource.k8s.io/v1", "ResourceClaim", CLAIM, NS)
    e.clock.settle()


def no_evict_claim_gone(change: Callable[[Env], None]) -> Callable[[Env], None]:
    def run(e: Env) -> None:
        _scheduled_for_later(e)
        change(e)
        assert e.eviction_at() is None
        e.advance(2 * HOUR)
        assert_kept(e)
    return run


def _untaint(e: Env) -> None:
    e.apply(slice_())


def _reduce_taint(e: Env) -> None:
    e.apply(slice_(first_taints=[TAINT], effect="NoSchedule"))


def _remove_slice(e: Env) -> None:
    e.remove(TAINTED)


def _replace_slice(e: Env) -> None:
    e.remove(TAINTED)
    e.apply(slice_(f"{TAINTED['metadata']['name']}-updated", generation=2))


Row = Callable[[Env], None]
ROWS: list[object] = [
    pytest.param(empty, False, id="empty"),
    pytest.param(populate_pools, False, id="populate-pools"),
    pytest.param(update_pools, False, id="update-pools"),
    pytest.param(untainted_claim, False, id="untainted-claim"),
    pytest.param(tainted_claim_through_slice, False, id="tainted-claim-through-resourceslice"),
    pytest.param(rule_status, False, id="rule-status"),
    pytest.param(tainted_claim_through_rule, False, id="tainted-claim-through-rule"),
    pytest.param(evict_pod_resourceclaim, False, id="evict-pod-resourceclaim"),
    pytest.param(evict_pod_resourceclaim_podgroup, True, id="evict-pod-resourceclaim-podgroup"),
    pytest.param(no_evict_pod_in_podgroup_without_claim, True, id="no-evict-pod-in-podgroup-without-claim"),
    pytest.param(evict_pod_rule, False, id="evict-pod-rule"),
    pytest.param(evict_pod_rule_later, False, id="evict-pod-rule-later"),
    pytest.param(evict_many_pods(True), False, id="evict-many-pods-many-namespaces"),
    pytest.param(evict_many_pods(False), False, id="evict-many-pods-same-namespace"),
    pytest.param(none_rule(None), False, id="none-pod-rule"),
    pytest.param(none_rule("ns"), False, id="none-many-pods-many-namespaces"),
    pytest.param(none_rule("name"), False, id="none-many-pods-same-namespace"),
    pytest.param(none_podgroup_rule, True, id="none-podgroup-rule"),
    pytest.param(multiple_claims_same_rule, False, id="multiple-claims-same-rule"),
    pytest.param(multiple_claims_different_rules(1), False, id="multiple-claims-different-rules-order-1"),
    pytest.param(multiple_claims_different_rules(2), False, id="multiple-claims-different-rules-order-2"),
    pytest.param(evict_pod_resourceclaim_again, False, id="evict-pod-resourceclaim-again"),
    pytest.param(evict_pod_after_scheduling, False, id="evict-pod-after-scheduling"),
    pytest.param(evict_pod_resourceclaim_unrelated_changes, False, id="evict-pod-resourceclaim-unrelated-changes"),
    pytest.param(evict_pod_resourceclaimtemplate, False, id="evict-pod-resourceclaimtemplate"),
    pytest.param(evict_pod_extended_claim(False), False, id="evict-pod-extended-resourceclaim"),
    pytest.param(evict_pod_extended_claim(True), False, id="evict-pod-extended-resourceclaim-status-update"),
    pytest.param(no_evict_wrong_owner(False), False, id="no-evict-extended-resourceclaim-wrong-owner"),
    pytest.param(evict_pod_later, False, id="evict-pod-later"),
    pytest.param(evict_pod_later_many, False, id="evict-pod-later-many"),
    pytest.param(evict_pod_toleration_mismatch, False, id="evict-pod-toleration-mismatch"),
    pytest.param(no_evict_toleration_forever(False), False, id="no-evict-pod-toleration-forever"),
    pytest.param(no_evict_toleration_forever(True), False, id="no-evict-pod-toleration-forever-many"),
    pytest.param(evict_pod_partial_toleration, False, id="evict-pod-partial-toleration"),
    pytest.param(evict_pod_many_taints, False, id="evict-pod-many-taints"),
    pytest.param(_no_evict(TAINTED, pod(node=None)), False, id="no-evict-pod-not-scheduled"),
    pytest.param(_no_evict(simple_slice(), pod(), tainted=False), False, id="no-evict-no-taint"),
    pytest.param(no_evict_no_taint_update, False, id="no-evict-no-taint-update"),
    pytest.param(_no_evict(TAINTED, pod(claim="tmpl", template=True, status_claim="")), False,
                 id="no-evict-pod-resourceclaimtemplate-no-status"),
    pytest.param(_no_evict(TAINTED, pod(claim="tmpl", template=True, status_claim=None)), False,
                 id="no-evict-pod-resourceclaimtemplate-no-claim"),
    pytest.param(_no_evict(slice_(first_taints=[TAINT], suffix="-other"), pod(claim="tmpl", template=True,
                                                                              status_claim=CLAIM), tainted=False),
                 False, id="no-evict-other-device"),
    pytest.param(no_evict_wrong_pod, False, id="no-evict-wrong-pod"),
    pytest.param(evict_wrong_pod_replaced, False, id="evict-wrong-pod-replaced"),
    pytest.param(cancel_eviction(_untaint), False, id="cancel-eviction-remove-taint"),
    pytest.param(cancel_eviction(_reduce_taint), False, id="cancel-eviction-reduce-taint"),
    pytest.param(ignore_effect("None"), False, id="ignore-none-effect"),
    pytest.param(ignore_effect("unknown-effect"), False, id="ignore-unknown-effect", marks=pytest.mark.skip(
        reason="the apiserver rejects an unknown taint effect (the fake clientset stores it unvalidated)")),
    pytest.param(eviction_change_taint, False, id="eviction-change-taint"),
    pytest.param(cancel_eviction(_replace_slice), False, id="cancel-eviction-remove-taint-in-new-slice"),
    pytest.param(cancel_eviction(_remove_slice), False, id="cancel-eviction-remove-slice"),
    pytest.param(cancel_eviction_pod_deletion, False, id="cancel-eviction-pod-deletion"),
    pytest.param(no_evict_wrong_owner(True), False, id="no-evict-wrong-resourceclaim"),
    pytest.param(evict_wrong_resourceclaim_replaced, False, id="evict-wrong-resourceclaim-replaced"),
    pytest.param(no_evict_claim_gone(_deallocate), False, id="no-evict-resourceclaim-deallocated"),
    pytest.param(no_evict_claim_gone(_delete_claim), False, id="no-evict-resourceclaim-deleted"),
]


@pytest.mark.parametrize(("row", "group_claims"), ROWS)
def test_controller(row: Row, group_claims: bool) -> None:
    row(Env(group_claims))


def test_none_rule_counts_only_the_newest_pool_generation() -> None:
    """``countTaintedDevices`` (not a table row): slices of an older pool generation are
    not published devices any more."""
    e = Env()
    e.apply(slice_(generation=1))
    e.apply(slice_(f"worker-{DRIVER}-new", generation=2, suffix="-new"))
    e.apply(rule(effect="None"))
    assert e.condition("evict") == cond(False, "NoEffect", none_msg(3, 0, 0, 0))
