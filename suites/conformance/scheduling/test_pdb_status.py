"""PodDisruptionBudget status (pkg/controller/disruption), which preemption reads (KEP-5710).

The disruption controller fills ``status`` from the pods a PDB selects and, for
percentages and ``maxUnavailable``, from the scale of the pods' controllers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Target
from fixtures.helpers.retry import retry_on_conflict
from reference_impl.api import make_deployment, make_job, make_pdb, make_pool_pod
from reference_impl.errors import Invalid

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-5710")]
Obj = dict[str, Any]
POLICY = "policy/v1"


def _pdb(target: Target, namespace: str, name: str) -> Obj:
    return target.get(POLICY, "PodDisruptionBudget", name, namespace)


def _numbers(pdb: Obj) -> tuple[int, int, int, int]:
    st = pdb.get("status") or {}
    return (
        int(st.get("currentHealthy", -1)),
        int(st.get("desiredHealthy", -1)),
        int(st.get("expectedPods", -1)),
        int(st.get("disruptionsAllowed", -1)),
    )


def _allowed_condition(pdb: Obj) -> tuple[str, str]:
    for c in (pdb.get("status") or {}).get("conditions") or ():
        if c.get("type") == "DisruptionAllowed":
            return str(c.get("status")), str(c.get("reason"))
    return "", ""


def _wait_numbers(
    target: Target, namespace: str, name: str, want: tuple[int, int, int, int]
) -> Obj:
    target.wait_until(
        lambda: (
            _numbers(_pdb(target, namespace, name)) == want
            and (_pdb(target, namespace, name).get("status") or {}).get("observedGeneration")
            == _pdb(target, namespace, name)["metadata"]["generation"]
        ),
        timeout=90,
        what=f"PDB {name} status (healthy, desired, expected, allowed) == {want}",
    )
    return _pdb(target, namespace, name)


def _ready(target: Target, namespace: str, app: str, n: int) -> None:
    def ready() -> bool:
        pods = [
            p
            for p in target.list("v1", "Pod", namespace)
            if (p["metadata"].get("labels") or {}).get("app") == app
            and not p["metadata"].get("deletionTimestamp")
        ]
        return len(pods) == n and all(
            any(
                c.get("type") == "Ready" and c.get("status") == "True"
                for c in (p.get("status") or {}).get("conditions") or ()
            )
            for p in pods
        )

    target.wait_until(ready, timeout=120, what=f"{n} ready pods of {app}")


def test_pdb_status_counts_healthy_pods_against_min_available_and_max_unavailable(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """Status numbers for integers and percentages.

    Over a Deployment of 3 ready pods, a PDB with minAvailable 2 MUST report currentHealthy
    3, desiredHealthy 2, expectedPods 3, disruptionsAllowed 1 and DisruptionAllowed
    True/SufficientPods; maxUnavailable "34%" MUST round up (desiredHealthy 1, 2 allowed);
    minAvailable "50%" MUST round up (desiredHealthy 2, 1 allowed); observedGeneration MUST
    equal the PDB's generation.
    """
    pool(cpu="4")
    target.apply(
        make_deployment("web", namespace, 3, make_pool_pod("w", namespace, "100m")).build()
    )
    _ready(target, namespace, "web", 3)
    target.apply(make_pdb("min-int", namespace, {"app": "web"}, min_available=2))
    target.apply(make_pdb("max-pct", namespace, {"app": "web"}, max_unavailable="34%"))
    target.apply(make_pdb("min-pct", namespace, {"app": "web"}, min_available="50%"))
    pdb = _wait_numbers(target, namespace, "min-int", (3, 2, 3, 1))
    assert _allowed_condition(pdb) == ("True", "SufficientPods")
    _wait_numbers(target, namespace, "max-pct", (3, 1, 3, 2))
    _wait_numbers(target, namespace, "min-pct", (3, 2, 3, 1))


def test_raising_min_available_moves_the_generation_and_closes_the_budget(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """Spec changes are observed.

    Raising minAvailable from 1 to 2 over 2 ready pods MUST bump metadata.generation to 2;
    the status MUST follow with observedGeneration 2, disruptionsAllowed 0 and
    DisruptionAllowed False/InsufficientPods.
    """
    pool(cpu="4")
    target.apply(
        make_deployment("api", namespace, 2, make_pool_pod("w", namespace, "100m")).build()
    )
    _ready(target, namespace, "api", 2)
    target.apply(make_pdb("guard", namespace, {"app": "api"}, min_available=1))
    _wait_numbers(target, namespace, "guard", (2, 1, 2, 1))

    def raise_min() -> Obj:  # again when the controller wrote status meanwhile
        pdb = _pdb(target, namespace, "guard")
        pdb["spec"]["minAvailable"] = 2
        return target.apply(pdb)

    stored = retry_on_conflict(raise_min, "PDB guard")
    assert stored["metadata"]["generation"] == 2
    pdb = _wait_numbers(target, namespace, "guard", (2, 2, 2, 0))
    assert pdb["status"]["observedGeneration"] == 2
    assert _allowed_condition(pdb) == ("False", "InsufficientPods")


def test_unmanaged_pods_count_for_integers_but_not_for_percentages(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """Pods without a controller.

    Over 2 ready bare pods, minAvailable 1 MUST give expectedPods 2 and 1 disruption
    allowed; minAvailable "50%" MUST give expectedPods 0 (no controller, no scale) and
    therefore 0 disruptions allowed; a PDB selecting no pod MUST report expectedPods 0 and
    0 allowed.
    """
    pool(cpu="4")
    for i in range(2):
        target.apply(make_pool_pod(f"bare-{i}", namespace, "100m").label("app", "bare").build())
    _ready(target, namespace, "bare", 2)
    target.apply(make_pdb("int", namespace, {"app": "bare"}, min_available=1))
    target.apply(make_pdb("pct", namespace, {"app": "bare"}, min_available="50%"))
    target.apply(make_pdb("none", namespace, {"app": "nobody"}, min_available=1))
    _wait_numbers(target, namespace, "int", (2, 1, 2, 1))
    _wait_numbers(target, namespace, "pct", (2, 0, 0, 0))
    _wait_numbers(target, namespace, "none", (0, 1, 0, 0))


def test_a_percentage_over_job_pods_fails_safe(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """A controller without a scale subresource.

    A PDB with maxUnavailable "50%" over the pods of a Job MUST report disruptionsAllowed 0
    and DisruptionAllowed False with reason SyncFailed, naming jobs.batch in the message.
    """
    pool(cpu="4")
    job = make_job(
        "batch", namespace, completions=2, parallelism=2, pod=make_pool_pod("w", namespace, "100m")
    )
    target.apply(job.build())
    target.apply(make_pdb("jobs", namespace, {"app": "batch"}, max_unavailable="50%"))

    def failed() -> bool:
        pdb = _pdb(target, namespace, "jobs")
        return _allowed_condition(pdb) == ("False", "SyncFailed")

    target.wait_until(failed, timeout=90, what="DisruptionAllowed False/SyncFailed")
    pdb = _pdb(target, namespace, "jobs")
    assert pdb["status"]["disruptionsAllowed"] == 0
    (cond,) = [c for c in pdb["status"]["conditions"] if c["type"] == "DisruptionAllowed"]
    assert "jobs.batch does not implement the scale subresource" in cond["message"]


def test_pdb_create_resets_status_and_validates_the_budget(target: Target, namespace: str) -> None:
    """PDB writes.

    A status sent with a create MUST be replaced by the zero status; minAvailable and
    maxUnavailable together MUST be rejected on spec; "150%" MUST be rejected on
    spec.minAvailable and "half" on spec.maxUnavailable.
    """
    body = make_pdb("fresh", namespace, {"app": "x"}, min_available=1)
    body["status"] = {
        "currentHealthy": 9,
        "desiredHealthy": 9,
        "expectedPods": 9,
        "disruptionsAllowed": 9,
    }
    created = target.apply(body)
    assert created["status"]["disruptionsAllowed"] == 0
    assert created["status"]["currentHealthy"] == 0
    cases = [
        (make_pdb("both", namespace, {"app": "x"}, min_available=1, max_unavailable=1), "spec"),
        (make_pdb("big", namespace, {"app": "x"}, min_available="150%"), "spec.minAvailable"),
        (make_pdb("word", namespace, {"app": "x"}, max_unavailable="half"), "spec.maxUnavailable"),
    ]
    for manifest, path in cases:
        with pytest.raises(Invalid) as e:
            target.apply(manifest)
        assert path in {c.field for c in e.value.causes}
