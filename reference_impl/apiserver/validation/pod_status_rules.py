"""More of upstream v1.37.2's ``ValidatePodStatusUpdate``: container state transitions
(``ValidateContainerStateTransition`` and its init and ephemeral kin), the claim statuses
(``validatePodResourceClaimStatuses``, ``validatePodExtendedResourceClaimStatus``) and
the linux ids a container status reports (``validateContainerStatusUsers``)."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import dns1123_label_errors, dns1123_subdomain_errors
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = [
    "container_user_causes",
    "extended_claim_status_causes",
    "resource_claim_status_causes",
    "state_transition_causes",
]

Obj = dict[str, Any]
_MAX_UID: Final = 2**32 - 1
_MAX_GID: Final = 2**31 - 1
_ERCS: Final = "status.extendedResourceClaimStatus"
_NOT_BACK: Final = "may not be transitioned to non-terminated state"


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def resource_claim_status_causes(statuses: list[Any], spec: Obj) -> list[Cause]:
    """``validatePodResourceClaimStatuses``: names from ``spec.resourceClaims``, each once,
    and a claim name that is a DNS subdomain."""
    claims = {_o(c).get("name") for c in _l(spec.get("resourceClaims"))}
    out: list[Cause] = []
    seen: set[Any] = set()
    for i, rcs in enumerate(statuses):
        rcs, p = _o(rcs), f"status.resourceClaimStatuses[{i}]"
        name = rcs.get("name")
        if name not in claims:
            out.append(fe.invalid(f"{p}.name", name, "must match the name of an entry in `spec.resourceClaims`"))
        if name in seen:
            out.append(fe.duplicate(f"{p}.name", name))
        seen.add(name)
        claim = rcs.get("resourceClaimName")
        if isinstance(claim, str):
            out += [fe.invalid(f"{p}.resourceClaimName", claim, e) for e in dns1123_subdomain_errors(claim)]
    return out


def _containers(spec: Obj) -> dict[str, Obj]:
    # Init containers first: a regular container of the same name wins, as upstream's map.
    named = [_o(c) for key in ("initContainers", "containers") for c in _l(spec.get(key))]
    return {str(c.get("name") or ""): c for c in named}


def _mapping_causes(i: int, rm: Obj, containers: dict[str, Obj]) -> list[Cause]:
    p = f"{_ERCS}.requestMappings[{i}]"
    cname, rname = str(rm.get("containerName") or ""), str(rm.get("resourceName") or "")
    out: list[Cause] = []
    if cname in containers:
        if rname not in _o(_o(containers[cname].get("resources")).get("requests")):
            out.append(fe.invalid(f"{p}.resourceName", rname, "must match the extended resource name of an entry in spec.initContainers.resources.requests or spec.containers.resources.requests"))
    else:
        out.append(fe.invalid(f"{p}.containerName", cname, "must match the name of an entry in spec.initContainers.name or spec.containers.name"))
    req = str(rm.get("requestName") or "")
    # Upstream names the mapping list's field here, not the entry's.
    return out + [fe.invalid(f"{_ERCS}.requestName", req, e) for e in dns1123_label_errors(req)]


def extended_claim_status_causes(status: Obj, spec: Obj) -> list[Cause]:
    """``validatePodExtendedResourceClaimStatus``: mappings to a container's extended
    resource request, none twice, and a claim name."""
    ercs = status.get("extendedResourceClaimStatus")
    if not isinstance(ercs, dict):
        return []
    containers = _containers(spec)
    mappings = [_o(m) for m in _l(ercs.get("requestMappings"))]
    out = [] if mappings else [fe.required(f"{_ERCS}.requestMappings", "at least one request mapping is required")]
    seen: set[tuple[str, str, str]] = set()
    for i, rm in enumerate(mappings):
        out += _mapping_causes(i, rm, containers)
        key = (str(rm.get("containerName") or ""), str(rm.get("resourceName") or ""), str(rm.get("requestName") or ""))
        if key in seen:
            p = f"{_ERCS}.requestMappings[{i}]"
            out += [fe.duplicate(f"{p}.{f}", v) for f, v in zip(("containerName", "resourceName", "requestName"), key, strict=True)]
        seen.add(key)
    claim = str(ercs.get("resourceClaimName") or "")
    if not claim:
        return [*out, fe.required(f"{_ERCS}.resourceClaimName")]
    return out + [fe.invalid(f"{_ERCS}.resourceClaimName", claim, e) for e in dns1123_subdomain_errors(claim)]


def _id_causes(path: str, value: Any, maximum: int) -> list[Cause]:
    if isinstance(value, int) and not 0 <= value <= maximum:
        return [fe.invalid(path, value, f"must be between 0 and {maximum}, inclusive")]
    return []


def container_user_causes(user: Any, path: str, os_name: str) -> list[Cause]:
    """``validateContainerStatusUsers`` of one status's ``user`` at ``path``."""
    linux = _o(user).get("linux")
    if not isinstance(linux, dict):
        return []
    if os_name == "windows":
        return [fe.forbidden(f"{path}.linux", "cannot be set for a windows pod")]
    if os_name != "linux":
        return []
    p = f"{path}.linux"
    out = _id_causes(f"{p}.uid", linux.get("uid", 0), _MAX_UID) + _id_causes(f"{p}.gid", linux.get("gid", 0), _MAX_GID)
    for g, gid in enumerate(_l(linux.get("supplementalGroups"))):
        out += _id_causes(f"{p}.supplementalGroups[{g}]", gid, _MAX_GID)
    return out


def _rule_matches(rule: Obj, code: int) -> bool:
    """``FindMatchingContainerRestartRule``'s test of one rule."""
    codes = rule.get("exitCodes")
    if not isinstance(codes, dict):
        return False
    hit = code in _l(codes.get("values"))
    return (codes.get("operator") == "In" and hit) or (codes.get("operator") == "NotIn" and not hit)


def _should_restart(c: Obj, pod_policy: Any, code: int, restart_all_gate: bool = True) -> bool:
    """``ContainerShouldRestart`` (a RestartAllContainers rule restarts only with the
    RestartAllContainersOnContainerExits gate, which it reads itself)."""
    policy = c.get("restartPolicy")
    if policy is not None:
        rule = next((_o(r) for r in _l(c.get("restartPolicyRules")) if _rule_matches(_o(r), code)), None)
        actions = ("Restart", "RestartAllContainers") if restart_all_gate else ("Restart",)
        if rule is not None and rule.get("action") in actions:
            return True
        if policy in ("Always", "OnFailure", "Never"):
            return policy == "Always" or (policy == "OnFailure" and code != 0)
    return pod_policy not in ("OnFailure", "Never") or (pod_policy == "OnFailure" and code != 0)


def _terminated(cs: Obj) -> Obj | None:
    t = _o(cs.get("state")).get("terminated")
    return t if isinstance(t, dict) else None


def _legacy_transitions(new: list[Obj], old: list[Obj], path: str, init: list[Any] | None, policy: Any) -> list[Cause]:
    """Without AllowContainerRestartPolicyRules: the pod's restart policy decides (and a
    restartable init container, ``init``, may always restart)."""
    if policy == "Always":
        return []
    sidecars = {_o(c).get("name") for c in init or () if _o(c).get("restartPolicy") == "Always"}
    out: list[Cause] = []
    for i, o in enumerate(old):
        term = _terminated(o)
        if term is None or (term.get("exitCode", 0) != 0 and policy == "OnFailure") or o.get("name") in sidecars:  # noqa: E501
            continue
        out += [fe.forbidden(f"{path}[{i}].state", _NOT_BACK) for n in new if n.get("name") == o.get("name") and _terminated(n) is None]  # noqa: E501
    return out


def _list_transitions(
    new: list[Obj], old: list[Obj], path: str, containers: list[Any] | None, policy: Any, gate: bool = True
) -> list[Cause]:
    # containers None: ephemeral ones, which never leave the terminated state.
    out: list[Cause] = []
    for i, o in enumerate(old):
        term = _terminated(o)
        if term is None:
            continue
        backs = [n for n in new if n.get("name") == o.get("name") and _terminated(n) is None]
        if containers is None:  # upstream reports each ephemeral status that goes back
            out += [fe.forbidden(f"{path}[{i}].state", _NOT_BACK) for _ in backs]
            continue
        if not backs:
            continue
        spec_c = next((_o(c) for c in containers if _o(c).get("name") == o.get("name")), None)
        code = term.get("exitCode", 0)
        if spec_c is None or not _should_restart(spec_c, policy, code if isinstance(code, int) else 0, gate):
            out.append(fe.forbidden(f"{path}[{i}].state", _NOT_BACK))
    return out


def _restarts_all(spec: Obj) -> bool:
    """``AllContainersCouldRestart``."""
    every = [*_l(spec.get("initContainers")), *_l(spec.get("containers"))]
    return any(_o(r).get("action") == "RestartAllContainers" for c in every for r in _l(_o(c).get("restartPolicyRules")))


def state_transition_causes(
    status: Obj, old_status: Obj, old_spec: Obj, *,
    allow_rules: bool = True, allow_restart_all: bool = True, restart_all_gate: bool = True,
) -> list[Cause]:
    """``Validate[Init]ContainerStateTransition``: no terminated container back to another
    state unless the old spec restarts it; ``allow_rules`` and ``allow_restart_all`` are
    AllowContainerRestartPolicyRules and AllowRestartAllContainers."""
    policy = old_spec.get("restartPolicy")
    pairs = (("containerStatuses", "containers"), ("initContainerStatuses", "initContainers"))
    out: list[Cause] = []
    skip = allow_rules and allow_restart_all and _restarts_all(old_spec)
    for lst, key in () if skip else pairs:
        new, old = [_o(x) for x in _l(status.get(lst))], [_o(x) for x in _l(old_status.get(lst))]
        if not allow_rules:
            init = _l(old_spec.get("initContainers")) if key == "initContainers" else None
            out += _legacy_transitions(new, old, f"status.{lst}", init, policy)
            continue
        out += _list_transitions(new, old, f"status.{lst}", _l(old_spec.get(key)), policy, restart_all_gate)
    lst = "ephemeralContainerStatuses"
    new, old = [_o(x) for x in _l(status.get(lst))], [_o(x) for x in _l(old_status.get(lst))]
    return out + _list_transitions(new, old, f"status.{lst}", None, policy)
