"""Pod readiness gates (the kubelet's Ready condition, pkg/kubelet/status/generate.go).

A serving pod can hold back its readiness until an outside controller (a load balancer,
a model-warmup watcher) says so: ``spec.readinessGates`` names extra condition types the
kubelet MUST also require True before it reports the pod Ready. The gate condition is
written by someone else through pods/status; the kubelet keeps it and re-evaluates Ready.

KWOK does not model readiness gates, so this needs KUBELET (a real node agent).
"""

from __future__ import annotations

from typing import Any, Final

import pytest

from fixtures import Capability, Target, eventually
from fixtures.helpers.pod_conditions import set_pod_condition
from reference_impl.api import make_pod

pytestmark = [pytest.mark.conformance, pytest.mark.requires(Capability.KUBELET)]

GATE: Final = "example.com/model-warm"
WAIT_S: Final = 120


def _condition(pod: dict[str, Any], ctype: str) -> dict[str, Any] | None:
    conds = (pod.get("status") or {}).get("conditions") or []
    return next((c for c in conds if c.get("type") == ctype), None)


def test_a_readiness_gate_holds_ready_until_its_condition_is_true(
    target: Target, namespace: str
) -> None:
    """Readiness gate.

    A pod with a readiness gate whose condition is absent MUST run with ContainersReady
    True but Ready False, reason ``ReadinessGatesNotReady``; once the gate's condition is
    set True through pods/status the pod MUST become Ready (the condition kept), and once
    it is set False the pod MUST turn not Ready again with reason
    ``ReadinessGatesNotReady``.
    """
    pod = make_pod("gated", namespace).req(cpu="10m").build()
    pod["spec"]["readinessGates"] = [{"conditionType": GATE}]
    target.apply(pod)

    def state() -> tuple[str, dict[str, Any] | None, dict[str, Any] | None]:
        p = target.get("v1", "Pod", "gated", namespace)
        return (str((p.get("status") or {}).get("phase")), _condition(p, "ContainersReady"),
                _condition(p, "Ready"))  # fmt: skip

    def gated(why: str) -> str:
        phase, containers, ready = state()
        if phase != "Running" or (containers or {}).get("status") != "True":
            return f"phase {phase}, ContainersReady {containers}"
        if (ready or {}).get("status") != "False" or (ready or {}).get("reason") != "ReadinessGatesNotReady":
            return f"Ready {ready}"
        if why not in str((ready or {}).get("message", "")):
            return f"Ready message {ready}"
        return ""

    eventually(target, lambda: gated("does not exist"), WAIT_S, "a running pod held not Ready by its gate")

    set_pod_condition(target, "gated", namespace, GATE, "True")

    def ready() -> str:
        p = target.get("v1", "Pod", "gated", namespace)
        r = _condition(p, "Ready")
        if (r or {}).get("status") != "True":
            return f"Ready {r}"
        if (_condition(p, GATE) or {}).get("status") != "True":
            return f"gate condition {_condition(p, GATE)}"
        return ""

    eventually(target, ready, WAIT_S, "the pod Ready once its gate is True")

    set_pod_condition(target, "gated", namespace, GATE, "False")
    eventually(target, lambda: gated('is not "True", but False'), WAIT_S, "the pod not Ready once its gate is False")
