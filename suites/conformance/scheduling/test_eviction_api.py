"""The pods/eviction subresource (pkg/registry/core/pod/storage/eviction.go): a policy/v1
Eviction deletes a pod only as far as its PodDisruptionBudget allows (what kubectl drain
and node termination handlers rely on)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import make_deployment, make_pdb, make_pool_pod
from reference_impl.errors import NotFound, TooManyRequests

pytestmark = [pytest.mark.conformance]
Obj = dict[str, Any]
POLICY = "policy/v1"


def _live_pods(target: Target, namespace: str, app: str) -> list[Obj]:
    return sorted(
        (p for p in target.list("v1", "Pod", namespace)
         if (p["metadata"].get("labels") or {}).get("app") == app
         and not p["metadata"].get("deletionTimestamp")),
        key=lambda p: str(p["metadata"]["name"]),
    )  # fmt: skip


def _ready(pod: Obj) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or ())  # fmt: skip


def _budget(target: Target, namespace: str, name: str, allowed: int, healthy: int) -> Obj:
    def settled() -> bool:
        pdb = target.get(POLICY, "PodDisruptionBudget", name, namespace)
        st = pdb.get("status") or {}
        return (st.get("observedGeneration") == pdb["metadata"]["generation"]
                and st.get("disruptionsAllowed") == allowed and st.get("currentHealthy") == healthy)  # fmt: skip

    target.wait_until(settled, timeout=90, what=f"PDB {name}: {allowed} allowed, {healthy} healthy")
    return target.get(POLICY, "PodDisruptionBudget", name, namespace)


def _gone_or_terminating(target: Target, namespace: str, name: str) -> bool:
    try:
        return bool(target.get("v1", "Pod", name, namespace)["metadata"].get("deletionTimestamp"))
    except NotFound:
        return True


def test_an_eviction_takes_the_one_disruption_a_budget_allows_and_the_next_is_429(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """Eviction honours PodDisruptionBudgets.

    Over 3 ready pods a PDB with minAvailable 2 allows 1 disruption. The first Eviction
    MUST succeed: the pod is deleted (terminating or gone) and the budget records it in
    status.disruptedPods with disruptionsAllowed 0. A second Eviction of another ready pod
    MUST fail with 429 TooManyRequests, "Cannot evict pod as it would violate the pod's
    disruption budget.", with a DisruptionBudget cause, and that pod MUST stay.
    """
    pool(cpu="4")
    target.apply(make_deployment("web", namespace, 3, make_pool_pod("w", namespace, "100m")).build())
    target.wait_until(lambda: len(pods := _live_pods(target, namespace, "web")) == 3 and all(map(_ready, pods)),
                      timeout=120, what="3 ready pods of web")  # fmt: skip
    target.apply(make_pdb("guard", namespace, {"app": "web"}, min_available=2))
    _budget(target, namespace, "guard", allowed=1, healthy=3)
    first, second = (p["metadata"]["name"] for p in _live_pods(target, namespace, "web")[:2])
    target.evict(first, namespace)
    assert _gone_or_terminating(target, namespace, first)
    pdb = target.get(POLICY, "PodDisruptionBudget", "guard", namespace)
    st = pdb.get("status") or {}
    # The eviction itself wrote the budget; the controller may have confirmed it since.
    assert st.get("disruptionsAllowed") == 0, st
    with pytest.raises(TooManyRequests) as err:
        target.evict(second, namespace)
    assert "Cannot evict pod as it would violate the pod's disruption budget." in str(err.value)
    assert [c.reason for c in err.value.causes] == ["DisruptionBudget"], err.value.causes
    assert not target.get("v1", "Pod", second, namespace)["metadata"].get("deletionTimestamp")


def test_a_pod_without_a_budget_is_evicted_and_a_missing_pod_is_not_found(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """Eviction without a budget.

    A pod no PDB selects MUST be evicted (deleted) at once; evicting a pod that does not
    exist MUST fail with NotFound.
    """
    pool(cpu="4")
    target.apply(make_deployment("solo", namespace, 1, make_pool_pod("w", namespace, "100m")).build())
    target.wait_until(lambda: len(_live_pods(target, namespace, "solo")) == 1, timeout=120,
                      what="the pod of solo")  # fmt: skip
    name = _live_pods(target, namespace, "solo")[0]["metadata"]["name"]
    target.evict(name, namespace)
    assert _gone_or_terminating(target, namespace, name)
    with pytest.raises(NotFound):
        target.evict("no-such-pod", namespace)
