"""More of ``validateService`` (1.37.2) found by ``garhwal fuzz``: the internal traffic
policy, traffic distribution (PreferSameTrafficDistribution is GA and locked on),
loadBalancerClass (``validateLoadBalancerClassField``, create and update), session
affinity and its ClientIP timeout, headless NodePort/LoadBalancer Services, duplicate
node ports and each port's appProtocol."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import label_key_errors
from reference_impl.apiserver.registry import Context, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__: list[str] = []

Obj = dict[str, Any]
_ITP: Final = ("Cluster", "Local")
_DISTRIBUTIONS: Final = ("PreferClose", "PreferSameZone", "PreferSameNode")
_AFFINITIES: Final = ("ClientIP", "None")
_MAX_AFFINITY_SECONDS: Final = 86400  # core.MaxClientIPServiceAffinitySeconds


def _spec(svc: Obj | None) -> Obj:
    spec = (svc or {}).get("spec")
    return spec if isinstance(spec, dict) else {}


def _traffic_causes(spec: Obj, kind: str) -> list[Cause]:
    """``validateServiceInternalTrafficFieldsValue`` and ``validateServiceTrafficDistribution``."""
    causes: list[Cause] = []
    itp = spec.get("internalTrafficPolicy")
    if itp is None and kind in ("NodePort", "LoadBalancer", "ClusterIP"):
        causes.append(fe.required("spec.internalTrafficPolicy"))
    if itp is not None and itp not in _ITP:
        causes.append(fe.not_supported("spec.internalTrafficPolicy", itp, _ITP))
    dist = spec.get("trafficDistribution")
    if dist is not None and dist not in _DISTRIBUTIONS:
        causes.append(fe.not_supported("spec.trafficDistribution", dist, _DISTRIBUTIONS))
    return causes


def _affinity_causes(spec: Obj) -> list[Cause]:
    """Session affinity, and ``validateClientIPAffinityConfig`` for ClientIP."""
    path = "spec.sessionAffinityConfig"
    affinity = spec.get("sessionAffinity") or ""
    if not affinity:
        return [fe.required("spec.sessionAffinity")]
    if affinity not in _AFFINITIES:
        return [fe.not_supported("spec.sessionAffinity", affinity, _AFFINITIES)]
    config = spec.get("sessionAffinityConfig")
    if affinity == "None":
        return (
            [fe.forbidden(path, "must not be set when session affinity is None")]
            if config is not None
            else []
        )
    client = (config or {}).get("clientIP")
    timeout = (client or {}).get("timeoutSeconds")
    if config is None or client is None or timeout is None:
        missing = (
            path
            if config is None
            else f"{path}.clientIP"
            if client is None
            else f"{path}.clientIP.timeoutSeconds"
        )
        return [fe.required(missing, "when session affinity type is ClientIP")]
    if not 0 < timeout <= _MAX_AFFINITY_SECONDS:
        return [
            fe.invalid(
                f"{path}.clientIP.timeoutSeconds",
                timeout,
                f"must be greater than 0 and less than {_MAX_AFFINITY_SECONDS}",
            )
        ]
    return []


def _lb_class_causes(spec: Obj, ospec: Obj | None) -> list[Cause]:
    """``validateLoadBalancerClassField``."""
    cls = spec.get("loadBalancerClass")
    lb = spec.get("type") == "LoadBalancer"
    causes: list[Cause] = []
    if (
        ospec is not None
        and lb
        and ospec.get("type") == "LoadBalancer"
        and ospec.get("loadBalancerClass") != cls
    ):
        causes.append(fe.invalid("spec.loadBalancerClass", cls, "may not change once set"))
    if cls is not None and lb:
        causes += [fe.invalid("spec.loadBalancerClass", cls, e) for e in label_key_errors(str(cls))]
    elif cls is not None:
        causes.append(
            fe.forbidden("spec.loadBalancerClass", "may only be used when `type` is 'LoadBalancer'")
        )
    return causes


def _port_causes(spec: Obj, kind: str) -> list[Cause]:
    """Headless NodePort/LoadBalancer, duplicate (protocol, nodePort), appProtocol."""
    causes: list[Cause] = []
    ips = spec.get("clusterIPs") or []
    if kind in ("NodePort", "LoadBalancer") and len(ips) == 1 and ips[0] == "None":
        causes.append(
            fe.invalid(
                "spec.clusterIPs[0]", "None", f"may not be set to 'None' for {kind} services"
            )
        )
    seen: set[tuple[Any, Any]] = set()
    for i, sp in enumerate(spec.get("ports") or []):
        if not isinstance(sp, dict):
            continue
        app = sp.get("appProtocol")
        if app is not None:
            causes += [
                fe.invalid(f"spec.ports[{i}].appProtocol", app, e)
                for e in label_key_errors(str(app))
            ]
        node_port = sp.get("nodePort") or 0
        if not node_port:
            continue
        key = (sp.get("protocol"), node_port)
        if key in seen:
            causes.append(fe.duplicate(f"spec.ports[{i}].nodePort", node_port))
        seen.add(key)
    return causes


@validator("Service")
def validate_service_traffic(svc: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """The rules above, on create and update."""
    spec = _spec(svc)
    kind = spec.get("type") or "ClusterIP"
    return (
        _traffic_causes(spec, kind)
        + _affinity_causes(spec)
        + _lb_class_causes(spec, _spec(old) if old is not None else None)
        + _port_causes(spec, kind)
    )
