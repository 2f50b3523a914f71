"""Gateway API traffic management for inference services (AI conformance ``ai_inference``, a MUST).

The requirement: a Gateway API implementation that does weighted traffic splitting and
header-based routing (for OpenAI protocol headers). kOps's validator checks both; here
they are judged by real traffic, not by accepted objects alone.

The implementation is the one the target declares (GATEWAY: on a garhwal local cluster,
upstream Traefik's ``kubernetesGateway`` provider). The backends are stub inference servers
(the workload image's ``inference`` mode) on a real node, each naming its pod in the
``X-Garhwal-Pod`` header of its answer; the requests are OpenAI-style completions sent to
the Gateway's listener. Every test has its own GatewayClass, Gateway and hostname, so tests
sharing the implementation's one HTTP port do not see each other's routes.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

import pytest

from fixtures import Capability, Target, eventually
from fixtures.targets.extensions import GatewayAccess, gateway_of
from reference_impl.api import make_pod
from reference_impl.errors import NotFound

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.requires(Capability.KUBELET, Capability.GATEWAY),
]

GW: Final = "gateway.networking.k8s.io/v1"
IMAGE: Final = "garhwal.dev/inference-stub:v1"  # fixtures/localcluster/node_image.py
PORT: Final = 8000
# The header a body-based router (the Gateway API Inference Extension's) sets from an
# OpenAI request's "model"; clients may also send it themselves.
MODEL_HEADER: Final = "x-gateway-model-name"
RUNNING_S: Final = 90
PROGRAMMED_S: Final = 60


@dataclass(frozen=True, slots=True)
class Listener:
    """A test's Gateway, the implementation serving it, and the hostname its routes share."""

    gateway: str
    impl: GatewayAccess
    hostname: str


def _impl(target: Target) -> GatewayAccess:
    impl = gateway_of(target)
    assert impl is not None, "GATEWAY declared without a gateway extension"
    return impl


def _condition(obj: Mapping[str, Any], kind: str) -> dict[str, Any]:
    return next((c for c in obj.get("conditions") or [] if c.get("type") == kind), {})



def _conditions_true(obj: Mapping[str, Any], *kinds: str) -> str:
    """"" when every condition kind is True, else the ones that are not and why."""
    bad = [
        f"{k}={c.get('status', 'absent')} ({c.get('reason', '')}: {c.get('message', '')})"
        for k in kinds
        if (c := _condition(obj, k)).get("status") != "True"
    ]
    return "; ".join(bad)


@pytest.fixture
def listener(target: Target, namespace: str) -> Iterator[Listener]:
    """A GatewayClass naming the implementation's controller (Accepted) and a Gateway with
    one HTTP listener on its port (Accepted, Programmed, with an address); the class is
    deleted afterwards (the namespace takes the rest)."""
    impl = _impl(target)
    cls, gw, host = f"garhwal-{namespace}", "inference", f"{namespace}.inference.garhwal.test"
    target.apply({
        "apiVersion": GW, "kind": "GatewayClass", "metadata": {"name": cls},
        "spec": {"controllerName": impl.controller_name},
    })  # fmt: skip
    try:
        eventually(
            target, lambda: _conditions_true(target.get(GW, "GatewayClass", cls).get("status", {}), "Accepted"),
            PROGRAMMED_S, f"GatewayClass {cls} Accepted",
        )  # fmt: skip
        listeners = [{"name": "http", "protocol": "HTTP", "port": impl.http_port, "hostname": host}]
        target.apply({
            "apiVersion": GW, "kind": "Gateway", "metadata": {"name": gw, "namespace": namespace},
            "spec": {"gatewayClassName": cls, "listeners": listeners},
        })  # fmt: skip

        def programmed() -> str:
            status = target.get(GW, "Gateway", gw, namespace).get("status", {})
            if why := _conditions_true(status, "Accepted", "Programmed"):
                return why
            addresses = [a.get("value") for a in status.get("addresses") or []]
            return "" if impl.address in addresses else f"status.addresses = {addresses}"

        eventually(target, programmed, PROGRAMMED_S, f"Gateway {gw} Accepted and Programmed")
        yield Listener(gw, impl, host)
    finally:
        try:
            target.delete(GW, "GatewayClass", cls)
        except NotFound:
            pass


def _backends(target: Target, namespace: str, *names: str) -> None:
    """A stub inference server pod and a Service of the same name for each, all Running."""
    for name in names:
        target.apply(make_pod(name, namespace).image(IMAGE).label("app", name).build())
        target.apply({
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": namespace},
            "spec": {"selector": {"app": name}, "ports": [{"name": "http", "port": PORT, "targetPort": PORT}]},
        })  # fmt: skip
    for name in names:
        target.wait_until(
            lambda n=name: target.get("v1", "Pod", n, namespace).get("status", {}).get("phase") == "Running",  # type: ignore[misc]
            timeout=RUNNING_S, what=f"pod {name} Running",
        )  # fmt: skip


def _ref(name: str, weight: int | None = None) -> dict[str, Any]:
    ref: dict[str, Any] = {"name": name, "port": PORT}
    if weight is not None:
        ref["weight"] = weight
    return ref


def _route(lis: Listener, namespace: str, rules: list[dict[str, Any]], name: str = "completions") -> dict[str, Any]:
    return {
        "apiVersion": GW, "kind": "HTTPRoute", "metadata": {"name": name, "namespace": namespace},
        "spec": {"parentRefs": [{"name": lis.gateway}], "hostnames": [lis.hostname], "rules": rules},
    }  # fmt: skip


def _route_status(target: Target, namespace: str, name: str, *kinds: str) -> str:
    """"" when the route's one parent status (from the implementation's controller) has
    every condition kind True."""
    parents = target.get(GW, "HTTPRoute", name, namespace).get("status", {}).get("parents") or []
    if len(parents) != 1:
        return f"status.parents = {parents}"
    return _conditions_true(parents[0], *kinds)


def _complete(lis: Listener, model: str, headers: Mapping[str, str]) -> tuple[int, str]:
    """POST an OpenAI-style completion to the Gateway: the status (0: no answer) and the
    answering pod."""
    status, got = lis.impl.post(lis.hostname, "/v1/completions", {"model": model, "prompt": "route me"}, headers)
    return status, got.get("x-garhwal-pod", "")


def _served(lis: Listener, n: int, model: str, headers: Mapping[str, str] | None = None) -> Counter[str]:
    """How many of ``n`` completions each pod answered (others count by status)."""
    got: Counter[str] = Counter()
    for _ in range(n):
        status, pod = _complete(lis, model, headers or {})
        got[pod if status == 200 else f"HTTP {status}" if status else "no answer"] += 1
    return got


def _routed(target: Target, lis: Listener, check: Callable[[Counter[str]], bool], what: str, n: int = 20) -> None:
    """Wait until a batch of ``n`` completions is served as ``check`` wants: the
    implementation programs a route edit asynchronously."""
    eventually(target, lambda: "" if check(got := _served(lis, n, "garhwal-small")) else str(dict(got)), PROGRAMMED_S, what)


def test_an_httproute_splits_inference_traffic_by_backend_weight(
    target: Target, namespace: str, listener: Listener, request: pytest.FixtureRequest
) -> None:
    """An HTTPRoute with backends weighted 80/20 MUST be Accepted with its refs resolved,
    attach to the Gateway, and send each backend its share of 400 completions (within
    4 standard deviations of a binomial split), and nothing elsewhere."""
    request.node.user_properties.append(("ai_requirement", "ai_inference"))
    _backends(target, namespace, "stub-a", "stub-b")
    target.apply(_route(listener, namespace, [{"backendRefs": [_ref("stub-a", 80), _ref("stub-b", 20)]}]))
    eventually(
        target, lambda: _route_status(target, namespace, "completions", "Accepted", "ResolvedRefs"),
        PROGRAMMED_S, "HTTPRoute completions Accepted with ResolvedRefs",
    )  # fmt: skip

    def attached() -> str:  # the Gateway's status is written after the route's
        listeners = target.get(GW, "Gateway", listener.gateway, namespace).get("status", {}).get("listeners") or []
        counts = [x.get("attachedRoutes") for x in listeners]
        return "" if counts == [1] else f"status.listeners[*].attachedRoutes = {counts}"

    eventually(target, attached, PROGRAMMED_S, "the route attached to the Gateway's listener")
    _routed(target, listener, lambda got: set(got) == {"stub-a", "stub-b"}, "both weighted backends answering")

    total = 400
    got = _served(listener, total, "garhwal-small")
    assert set(got) == {"stub-a", "stub-b"}, f"answers by pod (or failed status): {dict(got)}"
    sigma = math.sqrt(total * 0.8 * 0.2)
    assert abs(got["stub-a"] - 0.8 * total) <= 4 * sigma, f"an 80/20 split gave {dict(got)}"


def test_header_matches_route_a_model_to_its_backend_and_a_route_edit_moves_traffic(
    target: Target, namespace: str, listener: Listener, request: pytest.FixtureRequest
) -> None:
    """A rule matching the model header MUST send every such completion to its backend
    and none without the header; editing the default rule's weights (stub-a to 0) MUST
    move all unmatched traffic to stub-b."""
    request.node.user_properties.append(("ai_requirement", "ai_inference"))
    _backends(target, namespace, "stub-a", "stub-b", "stub-large")

    def rules(a: int, b: int) -> list[dict[str, Any]]:
        by_model = {"matches": [{"headers": [{"name": MODEL_HEADER, "value": "garhwal-large"}]}]}
        return [
            {**by_model, "backendRefs": [_ref("stub-large")]},
            {"backendRefs": [_ref("stub-a", a), _ref("stub-b", b)]},
        ]

    target.apply(_route(listener, namespace, rules(1, 1)))
    eventually(
        target, lambda: _route_status(target, namespace, "completions", "Accepted", "ResolvedRefs"),
        PROGRAMMED_S, "HTTPRoute completions Accepted with ResolvedRefs",
    )  # fmt: skip
    _routed(target, listener, lambda got: set(got) == {"stub-a", "stub-b"}, "the unmatched rule's two backends")

    large = _served(listener, 40, "garhwal-large", {MODEL_HEADER: "garhwal-large"})
    assert large == Counter({"stub-large": 40}), f"completions with {MODEL_HEADER}: garhwal-large: {dict(large)}"
    other = _served(listener, 40, "garhwal-large", {MODEL_HEADER: "garhwal-small"})
    assert set(other) == {"stub-a", "stub-b"}, f"a non-matching header value reached: {dict(other)}"

    route = target.get(GW, "HTTPRoute", "completions", namespace)
    route["spec"]["rules"] = rules(0, 1)
    target.apply(route)
    _routed(target, listener, lambda got: got == Counter({"stub-b": 20}), "the edited weights (stub-a 0, stub-b 1)")
    assert _served(listener, 40, "garhwal-small") == Counter({"stub-b": 40})
    again = _served(listener, 20, "garhwal-large", {MODEL_HEADER: "garhwal-large"})
    assert again == Counter({"stub-large": 20}), f"the header rule after the edit: {dict(again)}"


def test_a_route_to_a_missing_service_reports_it_and_fails_only_its_share(
    target: Target, namespace: str, listener: Listener, request: pytest.FixtureRequest
) -> None:
    """A backendRef naming no Service MUST give ResolvedRefs False (BackendNotFound), and
    the requests that backend's weight would get MUST be answered 500, while the resolved
    backend keeps serving its share; once the Service exists, ResolvedRefs becomes True
    and no request fails."""
    request.node.user_properties.append(("ai_requirement", "ai_inference"))
    _backends(target, namespace, "stub-a")
    target.apply(_route(listener, namespace, [{"backendRefs": [_ref("stub-a", 1), _ref("stub-absent", 1)]}]))

    def unresolved() -> str:
        parents = target.get(GW, "HTTPRoute", "completions", namespace).get("status", {}).get("parents") or []
        refs = _condition(parents[0], "ResolvedRefs") if len(parents) == 1 else {}
        return "" if (refs.get("status"), refs.get("reason")) == ("False", "BackendNotFound") else f"ResolvedRefs = {refs}"

    eventually(target, unresolved, PROGRAMMED_S, "ResolvedRefs False with BackendNotFound")
    _routed(target, listener, lambda got: "stub-a" in got, "the resolved backend answering")
    got = _served(listener, 100, "garhwal-small")
    assert set(got) == {"stub-a", "HTTP 500"}, f"a half-resolved route answered: {dict(got)}"
    assert 30 <= got["HTTP 500"] <= 70, f"the missing backend's share (weight 1 of 2): {dict(got)}"

    _backends(target, namespace, "stub-absent")
    eventually(
        target, lambda: _route_status(target, namespace, "completions", "Accepted", "ResolvedRefs"),
        PROGRAMMED_S, "ResolvedRefs True once the Service exists",
    )  # fmt: skip
    _routed(target, listener, lambda got: set(got) == {"stub-a", "stub-absent"}, "both backends once resolved")
