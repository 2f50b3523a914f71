"""An AI operator with a CRD installs and reconciles reliably (AI conformance ``robust_controller``).

garhwal's sample operator (``fixtures.operator``: a TrainingRun CRD with a structural
schema, a default and a CEL rule, and a controller that keeps a plan ConfigMap and the
run's status in step with its spec) is installed on the cluster and then stressed: API
churn, kill -9 of the controller mid-work, and writers that race it on the same objects.
What is judged is the cluster's side: the CRD Established and served, invalid objects
refused with their field paths, watches delivering, optimistic concurrency, owner-based
garbage collection, so that an operator converges whatever happens to it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import Capability, Target
from fixtures.helpers.retry import retry_on_conflict
from fixtures.targets.extensions import OperatorControl, operator_of
from reference_impl.errors import Conflict, Invalid, NotFound

pytestmark = [pytest.mark.conformance, pytest.mark.requires(Capability.OPERATOR)]

RUN = ("garhwal.dev/v1", "TrainingRun")
_bumps = itertools.count(1)


@pytest.fixture
def operator(target: Target) -> Iterator[OperatorControl]:
    """The operator installed (CRD Established, controller running), removed afterwards."""
    op = operator_of(target)
    assert op is not None, "OPERATOR declared without an operator extension"
    op.install()
    try:
        yield op
    finally:
        op.uninstall()


def _run(name: str, namespace: str, replicas: int = 4, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": RUN[0], "kind": RUN[1], "metadata": {"name": name, "namespace": namespace},
            "spec": {"image": "trainer:1", "replicas": replicas, **spec}}  # fmt: skip


def _converged(target: Target, namespace: str, name: str) -> bool:
    """The run's status is Ready for its current generation and its plan matches its spec."""
    try:
        run = target.get(*RUN, name, namespace)
        plan = target.get("v1", "ConfigMap", f"{name}-plan", namespace)
    except NotFound:
        return False
    status, spec, gen = run.get("status") or {}, run["spec"], run["metadata"]["generation"]
    ready = {c["type"]: c for c in status.get("conditions") or []}.get("Ready") or {}
    owners = [o for o in plan["metadata"].get("ownerReferences") or [] if o.get("controller")]
    return (
        status.get("observedGeneration") == gen
        and ready.get("status") == "True"
        and ready.get("observedGeneration") == gen
        and (plan.get("data") or {}).get("generation") == str(gen)
        and (plan.get("data") or {}).get("replicas") == str(spec["replicas"])
        and (plan.get("data") or {}).get("image") == spec["image"]
        and [o["uid"] for o in owners] == [run["metadata"]["uid"]]
    )


def _all_converged(target: Target, namespace: str, names: list[str]) -> bool:
    return all(_converged(target, namespace, n) for n in names)


def _bump(target: Target, namespace: str, name: str) -> None:
    """A spec change (a new generation), retried on conflict as a client must."""

    def write() -> Any:
        run = target.get(*RUN, name, namespace)
        run["spec"]["image"] = f"trainer:bump-{next(_bumps)}"  # never the initial trainer:1
        return target.apply(run)

    retry_on_conflict(write, name)


def test_the_crd_is_established_validates_and_a_valid_run_is_reconciled(
    target: Target, namespace: str, operator: OperatorControl
) -> None:
    """Operator install, validation and reconcile.

    With the operator installed, a valid TrainingRun MUST be stored with its schema default
    (``gpusPerReplica: 1``) and reconciled: ``status`` Ready for generation 1, and a plan
    ConfigMap owned by the run (controller reference). A run breaking the schema's bounds,
    lacking a required field, or breaking the CEL rule MUST be refused, naming the field.
    """
    stored = target.apply(_run("llama", namespace, replicas=4, gangSize=2))
    assert stored["spec"]["gpusPerReplica"] == 1
    target.wait_until(lambda: _converged(target, namespace, "llama"), timeout=60, what="llama reconciled")
    plan = target.get("v1", "ConfigMap", "llama-plan", namespace)
    assert plan["data"] == {"image": "trainer:1", "replicas": "4", "gangSize": "2",
                            "gpusPerReplica": "1", "generation": "1"}  # fmt: skip
    assert target.get(*RUN, "llama", namespace)["status"]["phase"] == "Ready"

    bad = [
        (_run("zero", namespace, replicas=0), "spec.replicas"),
        ({**_run("noimage", namespace), "spec": {"replicas": 2}}, "spec.image"),
        (_run("uneven", namespace, replicas=3, gangSize=2), "spec.replicas"),
        (_run("greedy", namespace, gpusPerReplica=9), "spec.gpusPerReplica"),
    ]
    for manifest, field in bad:
        with pytest.raises(Invalid) as err:
            target.apply(manifest)
        assert field in err.value.fields, (manifest["metadata"]["name"], err.value.fields)
    assert [r["metadata"]["name"] for r in target.list(*RUN, namespace)] == ["llama"]


def test_runs_converge_through_churn_and_kill_9_restarts(
    target: Target, namespace: str, operator: OperatorControl
) -> None:
    """Operator under churn and restarts.

    Ten runs are reconciled, then the controller is killed with SIGKILL; while it is down
    ten more runs are created, half of all runs get a new spec and four reconciled runs are
    deleted, and it is started again. Every remaining run MUST converge to its latest
    generation, and the plans of the deleted runs MUST be garbage-collected through their
    owner references.
    """
    names = [f"run-{i:02d}" for i in range(20)]
    for i, name in enumerate(names[:10]):
        target.apply(_run(name, namespace, replicas=1 + i % 8))
    target.wait_until(lambda: _all_converged(target, namespace, names[:10]), timeout=60, what="ten runs reconciled")
    operator.kill()
    assert not operator.alive()
    for i, name in enumerate(names[10:]):
        target.apply(_run(name, namespace, replicas=1 + i % 8))
    for name in names[::2]:
        _bump(target, namespace, name)
    gone = names[6:10]
    kept = [n for n in names if n not in gone]
    for name in gone:
        target.get("v1", "ConfigMap", f"{name}-plan", namespace)  # it had a plan
        target.delete(*RUN, name, namespace)
    operator.start()
    target.wait_until(lambda: _all_converged(target, namespace, kept), timeout=120, what="every run reconciled")

    def collected() -> bool:
        plans = {c["metadata"]["name"] for c in target.list("v1", "ConfigMap", namespace)}
        return not plans & {f"{n}-plan" for n in gone}

    target.wait_until(collected, timeout=120, what="the deleted runs' plans garbage-collected")
    # A second restart with nothing to do changes nothing: converged stays converged.
    before = {n: target.get(*RUN, n, namespace)["metadata"]["resourceVersion"] for n in kept}
    operator.kill()
    operator.start()
    target.wait_until(lambda: _all_converged(target, namespace, kept), timeout=60, what="still reconciled")
    after = {n: target.get(*RUN, n, namespace)["metadata"]["resourceVersion"] for n in kept}
    assert after == before, "an idle restart rewrote runs it had already reconciled"


def test_racing_writers_neither_wedge_the_controller_nor_have_the_last_word(
    target: Target, namespace: str, operator: OperatorControl
) -> None:
    """Operator under write conflicts.

    While other writers race the controller on the same objects (new specs, a stale status
    written through ``/status``, a tampered plan, a deleted plan), every write of theirs or
    its carrying an old resourceVersion MUST be refused with Conflict, and once they stop
    every run MUST converge again, its plan restored from the spec; a plan tampered with
    or deleted while no run changes MUST be restored too.
    """
    names = [f"race-{i}" for i in range(6)]
    for name in names:
        target.apply(_run(name, namespace))
    target.wait_until(lambda: _all_converged(target, namespace, names), timeout=60, what="runs reconciled")

    stale = target.get(*RUN, names[0], namespace)
    _bump(target, namespace, names[0])
    with pytest.raises(Conflict):  # optimistic concurrency: a write from an old read loses
        target.apply({**stale, "spec": {**stale["spec"], "replicas": 7}})

    for round_ in range(5):
        for name in names:
            _bump(target, namespace, name)
            run = target.get(*RUN, name, namespace)
            run["status"] = {"phase": "Stale", "observedGeneration": 0}
            try:
                target.patch_status(run)
            except Conflict:
                pass  # the controller wrote in between: the race this test is about
            plan = f"{name}-plan"
            try:
                if round_ % 2:
                    target.delete("v1", "ConfigMap", plan, namespace)
                else:
                    cm = target.get("v1", "ConfigMap", plan, namespace)
                    cm["data"] = {**cm.get("data", {}), "replicas": "999"}
                    target.apply(cm)
            except (Conflict, NotFound):
                pass
    target.wait_until(lambda: _all_converged(target, namespace, names), timeout=120, what="runs reconciled again")
    for name in names:
        assert target.get("v1", "ConfigMap", f"{name}-plan", namespace)["data"]["replicas"] == "4"
    # Drift in the children alone, with no write to any run: the controller must see it too.
    for i, name in enumerate(names):
        plan = f"{name}-plan"
        if i % 2:
            target.delete("v1", "ConfigMap", plan, namespace)
        else:
            cm = target.get("v1", "ConfigMap", plan, namespace)
            target.apply({**cm, "data": {**cm["data"], "image": "tampered"}})
    target.wait_until(lambda: _all_converged(target, namespace, names), timeout=60, what="plans restored")
