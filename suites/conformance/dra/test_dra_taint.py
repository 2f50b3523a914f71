"""DRA-TAINT: device taints (slices and DeviceTaintRules), tolerations and eviction."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import DraEnv, Target, pause
from reference_impl.api import DRA_API, condition, make_device_taint_rule, timestamp_seconds

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-5055")]
Obj = dict[str, Any]
DRIVER = "taint.garhwal.dev"


class Env(DraEnv):
    """A private node with one driver pool, a GPU class and the rules a test creates."""

    def setup(self, gpus: int = 2, taints: tuple[Obj, ...] = ()) -> None:
        self.node()
        self.fake.install_class(self.name)
        self.fake.publish([self.name], gpus=gpus, taints=taints)

    def rule(self, suffix: str, key: str, effect: str, **selector: str | None) -> Obj:
        b = make_device_taint_rule(self.named(suffix), key, effect)
        if selector.pop("_missing", None) is None:
            b.selector(**selector)
        return self.keep(b.build())

    def claim_pod(self, name: str, *, device: str | None = None, tolerations: tuple[Obj, ...] = ()) -> None:
        sel = (f'device.attributes["{DRIVER}"].index == {device[-1]}',) if device else ()
        self.run_class(name, self.name, selectors=sel, tolerations=tolerations)

    def rule_condition(self, name: str) -> Obj | None:
        return condition(self.target.get(DRA_API, "DeviceTaintRule", name), "EvictionInProgress")


@pytest.fixture
def env(target: Target, namespace: str) -> Iterator[Env]:
    """A private tainted node with a driver pool; everything it made is removed afterwards."""
    with Env(target, namespace, "dra-taint", DRIVER) as e:
        yield e


def _disruption(target: Target, ns: str, name: str, since: str) -> Obj | None:
    for ev in target.watch("v1", "Pod", since, namespace=ns, timeout=5):
        if ev.object["metadata"]["name"] == name:
            cond = condition(ev.object, "DisruptionTarget")
            if cond is not None:
                return cond
    return None


NO_EXEC = {"key": "dra-taint/broken", "operator": "Exists", "effect": "NoExecute"}


def test_no_schedule_taint_blocks_allocation_without_toleration(target: Target, env: Env) -> None:
    """DRA-TAINT, NoSchedule.

    A device whose slice carries a NoSchedule taint MUST NOT be allocated to a request that
    does not tolerate it: the pod stays Pending with PodScheduled=False and its claim
    unallocated.
    """
    env.setup(gpus=1, taints=({"key": "dra-taint/maintenance", "effect": "NoSchedule"},))
    env.claim_pod("p")

    def rejected() -> bool:
        cond = condition(env.pod("p") or {}, "PodScheduled")
        return cond is not None and cond.get("status") == "False"

    target.wait_until(rejected, timeout=60, what="pod reported unschedulable")
    assert not env.bound("p")
    assert not (env.claim("p").get("status") or {}).get("allocation")


def test_toleration_allows_allocation_and_is_copied_into_results(target: Target, env: Env) -> None:
    """DRA-TAINT, tolerations copied.

    A request tolerating a NoSchedule device taint MUST be allocated that device, and the
    allocation result MUST carry a copy of the request's tolerations in results[].tolerations.
    """
    env.setup(gpus=1, taints=({"key": "dra-taint/maintenance", "value": "yes", "effect": "NoSchedule"},))
    tol = {"key": "dra-taint/maintenance", "operator": "Equal", "value": "yes", "effect": "NoSchedule"}
    env.claim_pod("p", tolerations=(tol,))
    target.wait_until(lambda: env.bound("p"), timeout=60, what="tolerating pod bound")
    (result,) = env.claim("p")["status"]["allocation"]["devices"]["results"]
    assert result["device"] == "gpu-0"
    assert result["tolerations"] == [tol]


def test_no_execute_rule_evicts_only_pods_on_the_tainted_device(target: Target, env: Env) -> None:
    """DRA-TAINT, NoExecute eviction.

    A NoExecute DeviceTaintRule selecting one device by driver, pool and device MUST get the
    pod using that device deleted with DisruptionTarget (reason DeletionByDeviceTaintManager),
    its claim MUST be deallocated once the pod is gone, and a pod using another device of the
    same node MUST stay bound with its claim allocated.
    """
    env.setup(gpus=2)
    env.claim_pod("hit", device="gpu-0")
    env.claim_pod("spared", device="gpu-1")
    target.wait_until(lambda: env.bound("hit") and env.bound("spared"), timeout=60, what="both pods bound")
    since = env.pod("hit")["metadata"]["resourceVersion"]  # type: ignore[index]
    env.rule("gpu0", "dra-taint/broken", "NoExecute", driver=DRIVER, pool=env.name, device="gpu-0")
    target.wait_until(lambda: env.pod("hit") is None, timeout=90, what="pod on tainted device deleted")
    cond = _disruption(target, env.ns, "hit", since)
    assert cond is not None and cond["status"] == "True"
    assert cond["reason"] == "DeletionByDeviceTaintManager"
    target.wait_until(lambda: not (env.claim("hit").get("status") or {}).get("allocation"),
                      timeout=60, what="claim of evicted pod deallocated")
    spared = env.pod("spared")
    assert spared is not None and not spared["metadata"].get("deletionTimestamp")
    assert env.claim("spared")["status"]["allocation"]["devices"]["results"][0]["device"] == "gpu-1"


def test_toleration_seconds_delay_eviction_exactly(target: Target, env: Env) -> None:
    """DRA-TAINT, tolerationSeconds (exact).

    With a NoExecute toleration of tolerationSeconds 30, the pod MUST NOT be evicted before
    the taint's timeAdded + 30 s and MUST be evicted at that instant: its DisruptionTarget
    condition is stamped 30 s after timeAdded, or 31 s (timestamps have whole seconds).
    """
    env.setup(gpus=1)
    env.claim_pod("p", tolerations=({**NO_EXEC, "tolerationSeconds": 30},))
    target.wait_until(lambda: env.bound("p"), timeout=60, what="pod bound")
    since = env.pod("p")["metadata"]["resourceVersion"]  # type: ignore[index]
    rule = env.rule("slow", "dra-taint/broken", "NoExecute", driver=DRIVER)
    added = timestamp_seconds(rule["spec"]["taint"]["timeAdded"])
    # The window is counted from now, a little after timeAdded (whole seconds, and the
    # rule's write): the condition's stamp below pins the instant itself.
    with pytest.raises(Exception, match="timed out"):
        target.wait_until(lambda: env.gone("p"), timeout=25, what="no early eviction")
    target.wait_until(lambda: env.pod("p") is None, timeout=35, what="pod evicted")
    cond = _disruption(target, env.ns, "p", since)
    assert cond is not None
    assert timestamp_seconds(cond["lastTransitionTime"]) - added in (30, 31)


def test_toleration_seconds_delay_eviction(target: Target, env: Env) -> None:
    """DRA-TAINT, tolerationSeconds.

    With a NoExecute toleration of tolerationSeconds 8, the pod MUST still be running right
    after the taint appears, and MUST be evicted no earlier than about 8 s after timeAdded.
    """
    env.setup(gpus=1)
    env.claim_pod("p", tolerations=({**NO_EXEC, "tolerationSeconds": 8},))
    target.wait_until(lambda: env.bound("p"), timeout=60, what="pod bound")
    since = env.pod("p")["metadata"]["resourceVersion"]  # type: ignore[index]
    rule = env.rule("delay", "dra-taint/broken", "NoExecute", driver=DRIVER, pool=env.name)
    added = timestamp_seconds(rule["spec"]["taint"]["timeAdded"])
    assert not env.gone("p")
    target.wait_until(lambda: env.pod("p") is None, timeout=60, what="pod evicted")
    cond = _disruption(target, env.ns, "p", since)
    assert cond is not None
    assert timestamp_seconds(cond["lastTransitionTime"]) - added >= 7


def test_no_execute_rule_reports_pods_pending_eviction(target: Target, env: Env) -> None:
    """DRA-TAINT, EvictionInProgress.

    While a pod tolerates a NoExecute rule for an hour, the rule's EvictionInProgress
    condition MUST be True (reason PodsPendingEviction) and count 1 pod in 1 namespace.
    """
    env.setup(gpus=1)
    env.claim_pod("p", tolerations=({**NO_EXEC, "tolerationSeconds": 3600},))
    target.wait_until(lambda: env.bound("p"), timeout=60, what="pod bound")
    name = env.rule("pending", "dra-taint/broken", "NoExecute", driver=DRIVER, pool=env.name)["metadata"]["name"]
    target.wait_until(lambda: (env.rule_condition(name) or {}).get("status") == "True",
                      timeout=60, what="EvictionInProgress=True")
    cond = env.rule_condition(name)
    assert cond is not None
    assert cond["reason"] == "PodsPendingEviction"
    assert cond["message"] == "1 pod needs to be evicted in 1 namespace."
    assert not env.gone("p")


def test_none_effect_rule_reports_a_dry_run(target: Target, env: Env) -> None:
    """DRA-TAINT, None dry run.

    A DeviceTaintRule with effect None MUST NOT evict anything, and its EvictionInProgress
    condition MUST be False and report what NoExecute would do: the selected published and
    allocated devices and the pods that would be evicted.
    """
    env.setup(gpus=2)
    env.claim_pod("p", device="gpu-0")
    target.wait_until(lambda: env.bound("p"), timeout=60, what="pod bound")
    name = env.rule("dry", "dra-taint/probe", "None", driver=DRIVER, pool=env.name)["metadata"]["name"]
    target.wait_until(lambda: env.rule_condition(name) is not None, timeout=60, what="dry-run status")
    cond = env.rule_condition(name)
    assert cond is not None and cond["status"] == "False"
    assert cond["message"].startswith(
        "2 published devices selected. 1 allocated device selected. "
        "1 pod would be evicted in 1 namespace if the effect was NoExecute.")
    assert not env.gone("p")


def test_empty_selector_matches_every_device_and_missing_selector_none(target: Target, env: Env) -> None:
    """DRA-TAINT, selector semantics.

    A rule with an empty deviceSelector MUST select every published device (here at least
    this test's two), and a rule without a deviceSelector MUST select none: its NoExecute
    taint evicts nothing and its dry run counts zero devices.
    """
    env.setup(gpus=2)
    env.claim_pod("p")
    target.wait_until(lambda: env.bound("p"), timeout=60, what="pod bound")
    empty = env.rule("empty", "dra-taint/probe", "None")["metadata"]["name"]
    missing = env.rule("missing", "dra-taint/probe", "None", _missing="1")["metadata"]["name"]
    evict = env.rule("missing-exec", "dra-taint/broken", "NoExecute", _missing="1")["metadata"]["name"]
    target.wait_until(lambda: all(env.rule_condition(n) for n in (empty, missing, evict)),
                      timeout=60, what="rule status")
    everything = env.rule_condition(empty)["message"]  # type: ignore[index]
    counts = re.match(r"(\d+) published devices? selected\. (\d+) allocated devices? selected\.", everything)
    assert counts is not None, everything
    # Other tests' devices count too on a shared cluster: at least this test's own.
    assert int(counts[1]) >= 2 and int(counts[2]) >= 1, everything
    assert env.rule_condition(missing)["message"].startswith(  # type: ignore[index]
        "0 published devices selected. 0 allocated devices selected. 0 pods would be evicted")
    cond = env.rule_condition(evict)
    assert cond is not None and cond["status"] == "False"
    assert not env.gone("p")


def _edit_rule(target: Target, rule: Obj, **taint: str) -> Obj:
    # The controller keeps writing the rule's status: replace the spec without a
    # resourceVersion precondition (the target retries on the fresh one).
    fresh = target.get(DRA_API, "DeviceTaintRule", rule["metadata"]["name"])
    fresh["metadata"].pop("resourceVersion", None)
    fresh["spec"]["taint"].update(taint)
    return target.apply(fresh)


def test_rule_time_added_resets_only_when_the_effect_changes(target: Target, env: Env) -> None:
    """DRA-TAINT, DeviceTaintRule timeAdded.

    A rule's taint MUST get timeAdded when the rule is created (its creation second). A
    changed key with the same effect MUST keep it; a changed effect with the stored time
    left in place MUST reset it to the time of that update.
    """
    rule = env.rule("time", "dra-taint/a", "None", driver=DRIVER)
    created = timestamp_seconds(rule["metadata"]["creationTimestamp"])
    first = timestamp_seconds(rule["spec"]["taint"]["timeAdded"])
    assert 0 <= first - created <= 1
    pause(target, 3)
    rule = _edit_rule(target, rule, key="dra-taint/b")
    assert timestamp_seconds(rule["spec"]["taint"]["timeAdded"]) == first
    rule = _edit_rule(target, rule, effect="NoSchedule")
    assert timestamp_seconds(rule["spec"]["taint"]["timeAdded"]) - first >= 3


def test_slice_taint_time_added_is_the_time_of_the_write(target: Target, env: Env) -> None:
    """DRA-TAINT, ResourceSlice taint timeAdded.

    A device taint published without timeAdded MUST get the time of the write that
    carried it: on create the slice's creation second, and on a later update (a driver
    re-publishing without the field) the time of that update, not the creation time. A
    re-published taint that carries its stored timeAdded MUST keep it.
    """
    taint = {"key": "dra-taint/flaky", "effect": "NoSchedule"}
    env.setup(gpus=1, taints=(taint,))
    first = env.fake.publish([env.name], gpus=1, taints=(taint,))[0]
    t0 = timestamp_seconds(first["spec"]["devices"][0]["taints"][0]["timeAdded"])
    assert t0 - timestamp_seconds(first["metadata"]["creationTimestamp"]) <= 1
    pause(target, 3)
    kept = env.fake.publish([env.name], gpus=1, taints=(first["spec"]["devices"][0]["taints"][0],))[0]
    assert timestamp_seconds(kept["spec"]["devices"][0]["taints"][0]["timeAdded"]) == t0
    again = env.fake.publish([env.name], gpus=1, taints=(taint,))[0]
    assert timestamp_seconds(again["spec"]["devices"][0]["taints"][0]["timeAdded"]) - t0 >= 3


def test_toleration_seconds_count_from_the_effect_change(target: Target, env: Env) -> None:
    """DRA-TAINT, tolerationSeconds after an effect change.

    When a rule's effect changes from None to NoExecute, tolerationSeconds MUST count from
    that change (the reset timeAdded), not from the rule's creation: with 20 s tolerated
    and the change 15 s after creation, the pod MUST still run 10 s after the change and
    MUST be evicted later.
    """
    env.setup(gpus=1)
    env.claim_pod("p", tolerations=({**NO_EXEC, "tolerationSeconds": 20},))
    target.wait_until(lambda: env.bound("p"), timeout=60, what="pod bound")
    rule = env.rule("later", "dra-taint/broken", "None", driver=DRIVER)
    pause(target, 15)
    _edit_rule(target, rule, effect="NoExecute")
    pause(target, 10)
    assert not env.gone("p")
    target.wait_until(lambda: env.gone("p"), timeout=40, what="pod evicted")
