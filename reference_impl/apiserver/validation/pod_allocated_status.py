"""``validateContainerStatusAllocatedResourcesStatus`` of upstream v1.37.2's
``pkg/apis/core/validation``: the allocated-resource health a kubelet reports in a pod's
container statuses."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["allocated_resources_status_causes"]

Obj = dict[str, Any]
_CLAIM_PREFIX: Final = "claim:"
_HEALTH: Final = ("Healthy", "Unhealthy", "Unknown")
_MESSAGE_MAX: Final = 1024  # v1.ResourceHealthMessageMaxLength
_CLAIM_MSG: Final = (
    "must match one of the container's resource claims as 'claim:<claimName>/<requestName>' "
    "when container.resources.claims[*].request is set or 'claim:<claimName>' when it is empty"
)
_REQUEST_MSG: Final = "must match one of the container's resource requests"


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _status_name(claim: str, request: str) -> str:
    """``resourceStatusName``."""
    return f"{_CLAIM_PREFIX}{claim}/{request}" if request else f"{_CLAIM_PREFIX}{claim}"


def _parse_status_name(name: str) -> tuple[str, str] | None:
    """``parseResourceStatusName``: (claim, request) or None."""
    if not name.startswith(_CLAIM_PREFIX):
        return None
    claim, sep, request = name[len(_CLAIM_PREFIX) :].partition("/")
    if not claim or (sep and not request):
        return None
    return claim, request


def _nonzero(value: Any) -> bool:
    try:
        return parse_quantity(value) != 0
    except ValueError:
        return False


def _matches_extended(name: str, ctr: Obj, ercs: Obj) -> bool:
    """``matchesExtendedResourceClaimStatus``."""
    parsed = _parse_status_name(name)
    if not ercs or parsed is None or not parsed[1] or parsed[0] != ercs.get("resourceClaimName"):
        return False
    requests = _o(_o(ctr.get("resources")).get("requests"))
    for m in map(_o, _l(ercs.get("requestMappings"))):
        if m.get("containerName") != ctr.get("name") or m.get("requestName") != parsed[1]:
            continue
        resource = str(m.get("resourceName") or "")
        if resource in requests and _nonzero(requests[resource]):
            return True
    return False


def _name_cause(name: str, ctr: Obj, status: Obj, path: str) -> list[Cause]:
    resources = _o(ctr.get("resources"))
    if name.startswith(_CLAIM_PREFIX):
        claims = (_o(c) for c in _l(resources.get("claims")))
        names = {_status_name(str(c.get("name") or ""), str(c.get("request") or "")) for c in claims}
        ercs = _o(status.get("extendedResourceClaimStatus"))
        if name in names or _matches_extended(name, ctr, ercs):
            return []
        return [fe.invalid(path, name, _CLAIM_MSG)]
    if name in _o(resources.get("requests")):
        return []
    return [fe.invalid(path, name, _REQUEST_MSG)]


def _health_causes(resources: list[Any], path: str) -> list[Cause]:
    out: list[Cause] = []
    seen: set[str] = set()
    for k, r in enumerate(map(_o, resources)):
        p = f"{path}.resources[{k}]"
        health = r.get("health") or ""
        if health not in _HEALTH:
            out.append(fe.not_supported(f"{p}.health", health, _HEALTH))
        message = r.get("message")
        if message is not None:
            if len(str(message)) == 0:
                out.append(fe.required(f"{p}.message", "must be non-empty if specified"))
            elif len(str(message).encode()) > _MESSAGE_MAX:
                out.append(fe.too_long(f"{p}.message", _MESSAGE_MAX))
        rid = str(r.get("resourceID") or "")
        if rid in seen:
            out.append(fe.duplicate(f"{p}.resourceID", rid))
        seen.add(rid)
    return out


def allocated_resources_status_causes(statuses: list[Any], containers: list[Any], status: Obj, path: str) -> list[Cause]:
    """The allocated resources of each status in ``statuses`` (at ``path``) against the
    spec's ``containers``; a status naming no container has only its health checked."""
    out: list[Cause] = []
    by_name: dict[Any, Obj] = {}
    for c in map(_o, containers):
        by_name.setdefault(c.get("name"), c)  # upstream takes the first of a name
    for i, cs in enumerate(map(_o, statuses)):
        for j, ars in enumerate(map(_o, _l(cs.get("allocatedResourcesStatus")))):
            p = f"{path}[{i}].allocatedResourcesStatus[{j}]"
            ctr = by_name.get(cs.get("name"))
            if ctr is not None:
                out += _name_cause(str(ars.get("name") or ""), ctr, status, f"{p}.name")
            out += _health_causes(_l(ars.get("resources")), p)
    return out
