"""Pod /status updates of upstream v1.37.2's ``pkg/apis/core/validation``:
``ValidatePodStatusUpdate`` (pod updates are ``pod_update``'s)."""

from __future__ import annotations

import ipaddress
from typing import Any, Final

from reference_impl.api.meta import dns1123_subdomain_errors, label_key_errors
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.pod_allocated_status import (
    allocated_resources_status_causes,
)
from reference_impl.apiserver.validation.pod_status_rules import (
    container_user_causes,
    extended_claim_status_causes,
    resource_claim_status_causes,
    state_transition_causes,
)
from reference_impl.apiserver.validation.pod_update import pod_annotation_update_causes
from reference_impl.apiserver.validation.pod_validation_options import PodValidationOptions
from reference_impl.errors import Cause

__all__ = ["pod_status_causes"]

Obj = dict[str, Any]
_SYSTEM_CONDITIONS: Final = ("PodScheduled", "Ready", "Initialized")


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _ip_causes(ips: list[Any], path: str, existing: list[str]) -> list[Cause]:
    out: list[Cause] = []
    parsed = []
    for i, entry in enumerate(ips):
        ip = str(_o(entry).get("ip") or "")
        try:
            parsed.append(ipaddress.ip_address(ip))
        except ValueError:
            if ip not in existing:
                out.append(fe.invalid(f"{path}[{i}]", ip, "must be a valid IP address"))
    if len(ips) > 1 and len(parsed) == len(ips):
        if len(ips) > 2 or len({a.version for a in parsed}) != 2:
            out.append(fe.invalid(path, ips, "may specify no more than one IP for each IP family"))
    return out


def _conditions(conds: list[Any]) -> list[Cause]:
    """``validatePodConditions``."""
    out: list[Cause] = []
    for i, c in enumerate(conds):
        c = _o(c)
        og = c.get("observedGeneration")
        if isinstance(og, int) and og < 0:
            out.append(fe.invalid(f"status.conditions[{i}].observedGeneration", og, "must be a non-negative integer"))
        ctype = str(c.get("type") or "")
        if ctype not in _SYSTEM_CONDITIONS:
            out += [fe.invalid(f"status.conditions[{i}].Type", ctype, e) for e in label_key_errors(ctype)]
    return out


def _container_statuses(status: Obj, spec: Obj) -> list[Cause]:
    """``validateContainerStatusUsers`` of each list, the allocated resources of
    (init) containers, then none for ephemeral ones."""
    out: list[Cause] = []
    os_name = str(_o(spec.get("os")).get("name") or "linux")
    lists = ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses")
    for lst in lists:
        for i, cs in enumerate(_l(status.get(lst))):
            out += container_user_causes(_o(cs).get("user"), f"status.{lst}[{i}].user", os_name)
    for lst, ctrs in (("containerStatuses", "containers"), ("initContainerStatuses", "initContainers")):
        statuses, containers = _l(status.get(lst)), _l(spec.get(ctrs))
        out += allocated_resources_status_causes(statuses, containers, status, f"status.{lst}")
    for i, cs in enumerate(_l(status.get("ephemeralContainerStatuses"))):
        if _o(cs).get("allocatedResourcesStatus"):
            p = f"status.ephemeralContainerStatuses[{i}].allocatedResourcesStatus"
            out.append(fe.forbidden(p, "cannot be set on ephemeral container statuses"))
    return out


def pod_status_causes(
    pod: Obj, old: Obj, opts: PodValidationOptions | None = None, restart_all_gate: bool = True
) -> list[Cause]:
    """``ValidatePodStatusUpdate`` (the podIP/podIPs pair is already made consistent)
    under ``opts`` (None: the default gates'); ``restart_all_gate`` is
    RestartAllContainersOnContainerExits, which ``ContainerShouldRestart`` reads."""
    status, old_status = _o(pod.get("status")), _o(old.get("status"))
    spec, old_spec = _o(pod.get("spec")), _o(old.get("spec"))
    annotations = _o(_o(pod.get("metadata")).get("annotations"))
    out = pod_annotation_update_causes(annotations, _o(_o(old.get("metadata")).get("annotations")))
    out += _conditions(_l(status.get("conditions")))
    if spec.get("nodeName") != old_spec.get("nodeName"):
        out.append(fe.forbidden("status.nodeName", "may not be changed directly"))
    nominated = status.get("nominatedNodeName") or ""
    if nominated and nominated != (old_status.get("nominatedNodeName") or ""):
        out += [fe.invalid("status.nominatedNodeName", nominated, e) for e in dns1123_subdomain_errors(nominated)]
        if old_spec.get("nodeName"):
            out.append(fe.forbidden("status.nominatedNodeName", "may not be set on pods that are already bound to a node"))
    og = status.get("observedGeneration")
    if isinstance(og, int) and og < 0:
        out.append(fe.invalid("status.observedGeneration", og, "must be a non-negative integer"))
    # podStatusStrategy.PrepareForUpdate keeps the old class when the new one is empty.
    if status.get("qosClass") and status.get("qosClass") != old_status.get("qosClass"):
        out.append(fe.invalid("status.qosClass", status.get("qosClass"), "field is immutable"))
    if opts is None:
        out += state_transition_causes(status, old_status, old_spec)
    else:
        out += state_transition_causes(
            status, old_status, old_spec,
            allow_rules=opts.allow_container_restart_policy_rules,
            allow_restart_all=opts.allow_restart_all_containers,
            restart_all_gate=restart_all_gate,
        )
    out += resource_claim_status_causes(_l(status.get("resourceClaimStatuses")), spec)
    out += extended_claim_status_causes(status, spec)
    old_ips = [str(_o(x).get("ip")) for x in _l(old_status.get("podIPs"))]
    out += _ip_causes(_l(status.get("podIPs")), "status.podIPs", old_ips)
    host_ips = _l(status.get("hostIPs"))
    if host_ips:
        first = str(_o(host_ips[0]).get("ip") or "")
        if (status.get("hostIP") or "") != first:
            out.append(fe.invalid("status.hostIPs[0].ip", first, "must be equal to `hostIP`"))
        old_host = [str(_o(x).get("ip")) for x in _l(old_status.get("hostIPs"))]
        out += _ip_causes(host_ips, "status.hostIPs", old_host)
    return out + _container_statuses(status, spec)
