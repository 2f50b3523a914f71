"""Pod updates and /status updates of upstream v1.37.2's ``pkg/apis/core/validation``:
``ValidatePodUpdate`` (container count and images, activeDeadlineSeconds, only-added
tolerations, only-deleted scheduling gates, the gated pod's scheduling directives, and the
rest of the spec immutable) and ``ValidatePodStatusUpdate``."""

from __future__ import annotations

import copy
import ipaddress
from typing import Any, Final

from reference_impl.api.meta import dns1123_subdomain_errors, label_key_errors
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["pod_status_causes", "pod_update_causes"]

Obj = dict[str, Any]
_SYSTEM_CONDITIONS: Final = ("PodScheduled", "Ready", "Initialized")
_SPEC_MSG: Final = (
    "pod updates may not change fields other than `spec.containers[*].image`, "
    "`spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` "
    "(only additions to existing tolerations), `spec.schedulingGates` (only removals)"
)


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _container_updates(new: list[Any], old: list[Any], path: str) -> tuple[list[Cause], bool]:
    """``ValidateContainerUpdates``."""
    if len(new) != len(old):
        return [fe.forbidden(path, "pod updates may not add or remove containers")], True
    out: list[Cause] = []
    for i, c in enumerate(new):
        image = _o(c).get("image") or ""
        if not image:
            out.append(fe.required(f"{path}[{i}].image"))
        if str(image).strip() != image:
            out.append(fe.invalid(f"{path}[{i}].image", image, "must not have leading or trailing whitespace"))
    return out, False


def _only_added_tolerations(new: list[Any], old: list[Any]) -> list[Cause]:
    """``validateOnlyAddedTolerations``: every old toleration kept, up to its seconds."""
    for t in old:
        base = {k: v for k, v in _o(t).items() if k != "tolerationSeconds"}
        if not any({k: v for k, v in _o(n).items() if k != "tolerationSeconds"} == base for n in new):
            return [fe.forbidden("spec.tolerations", "existing toleration can not be modified except its tolerationSeconds")]
    return []


def _gated_mutations(munged: Obj, old: Obj) -> list[Cause]:
    """A gated pod may add to nodeSelector and set a node affinity it lacked."""
    out: list[Cause] = []
    new_sel, old_sel = _o(munged.get("nodeSelector")), _o(old.get("nodeSelector"))
    if new_sel != old_sel:
        if any(new_sel.get(k) != v for k, v in old_sel.items()):
            out.append(fe.invalid("spec.nodeSelector", new_sel, "only additions to spec.nodeSelector are allowed (no mutations or deletions)"))
        munged["nodeSelector"] = old.get("nodeSelector")
        if munged["nodeSelector"] is None:
            munged.pop("nodeSelector")
    new_na = _o(munged.get("affinity")).get("nodeAffinity")
    old_na = _o(old.get("affinity")).get("nodeAffinity")
    if new_na != old_na:
        if old_na is not None:
            out.append(fe.invalid("spec.affinity.nodeAffinity", new_na, "only additions are allowed"))
        aff = {k: v for k, v in _o(munged.get("affinity")).items() if k != "nodeAffinity"}
        if old_na is not None:
            aff["nodeAffinity"] = old_na
        if aff or old.get("affinity") is not None:
            munged["affinity"] = aff
        else:
            munged.pop("affinity", None)
    return out


def pod_update_causes(spec: Obj, old: Obj) -> list[Cause]:
    """``ValidatePodUpdate``'s spec rules."""
    out: list[Cause] = []
    for lst in ("containers", "initContainers"):
        errs, stop = _container_updates(_l(spec.get(lst)), _l(old.get(lst)), f"spec.{lst}")
        out += errs
        if stop:
            return out
    ads, old_ads = spec.get("activeDeadlineSeconds"), old.get("activeDeadlineSeconds")
    if isinstance(ads, int):
        if not 0 <= ads <= 2**31 - 1:
            return out + [fe.invalid("spec.activeDeadlineSeconds", ads, "must be between 0 and 2147483647, inclusive")]
        if isinstance(old_ads, int) and old_ads < ads:
            return out + [fe.invalid("spec.activeDeadlineSeconds", ads, "must be less than or equal to previous value")]
    elif old_ads is not None:
        out.append(fe.invalid("spec.activeDeadlineSeconds", None, "must not update from a positive integer to nil value"))
    out += _only_added_tolerations(_l(spec.get("tolerations")), _l(old.get("tolerations")))
    old_gates = {_o(g).get("name") for g in _l(old.get("schedulingGates"))}
    for i, g in enumerate(_l(spec.get("schedulingGates"))):
        if _o(g).get("name") not in old_gates:
            out.append(fe.forbidden(f"spec.schedulingGates[{i}].name", "only deletion is allowed, but found new scheduling gate"))
    if spec == old:
        return out
    munged = copy.deepcopy(spec)
    for lst in ("containers", "initContainers"):
        for c, oc in zip(_l(munged.get(lst)), _l(old.get(lst)), strict=True):
            if isinstance(c, dict):
                c["image"] = _o(oc).get("image")
    for f in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        munged.pop(f, None)
        if f in old:
            munged[f] = old[f]
    old_tgps, tgps = old.get("terminationGracePeriodSeconds"), munged.get("terminationGracePeriodSeconds")
    if isinstance(old_tgps, int) and old_tgps < 0 and tgps == 1:
        munged["terminationGracePeriodSeconds"] = old_tgps
    if old.get("schedulingGates"):
        out += _gated_mutations(munged, old)
    if munged != old:
        out.append(fe.forbidden("spec", _SPEC_MSG))
    return out


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


def _container_statuses(status: Obj, os_name: str) -> list[Cause]:
    """``validateContainerStatusUsers`` and no allocated resources for ephemeral ones."""
    out: list[Cause] = []
    for lst in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        for i, cs in enumerate(_l(status.get(lst))):
            cs, p = _o(cs), f"status.{lst}[{i}]"
            linux = _o(cs.get("user")).get("linux")
            if isinstance(linux, dict):
                if os_name == "windows":
                    out.append(fe.forbidden(f"{p}.user.linux", "cannot be set for a windows pod"))
                else:
                    uid, gid = linux.get("uid", 0), linux.get("gid", 0)
                    if isinstance(uid, int) and not 0 <= uid <= 2**32 - 1:
                        out.append(fe.invalid(f"{p}.user.linux.uid", uid, "must be between 0 and 4294967295, inclusive"))
                    if isinstance(gid, int) and not 0 <= gid <= 2**31 - 1:
                        out.append(fe.invalid(f"{p}.user.linux.gid", gid, "must be between 0 and 2147483647, inclusive"))
            if lst == "ephemeralContainerStatuses" and cs.get("allocatedResourcesStatus"):
                out.append(fe.forbidden(f"{p}.allocatedResourcesStatus", "cannot be set on ephemeral container statuses"))
    return out


def pod_status_causes(pod: Obj, old: Obj) -> list[Cause]:
    """``ValidatePodStatusUpdate`` (the podIP/podIPs pair is already made consistent)."""
    status, old_status = _o(pod.get("status")), _o(old.get("status"))
    spec, old_spec = _o(pod.get("spec")), _o(old.get("spec"))
    out = _conditions(_l(status.get("conditions")))
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
    claims = {_o(c).get("name") for c in _l(spec.get("resourceClaims"))}
    seen: set[Any] = set()
    for i, rcs in enumerate(_l(status.get("resourceClaimStatuses"))):
        name = _o(rcs).get("name")
        if name not in claims:
            out.append(fe.invalid(f"status.resourceClaimStatuses[{i}].name", name, "must match the name of an entry in `spec.resourceClaims`"))
        if name in seen:
            out.append(fe.duplicate(f"status.resourceClaimStatuses[{i}].name", name))
        seen.add(name)
    old_ips = [str(_o(x).get("ip")) for x in _l(old_status.get("podIPs"))]
    out += _ip_causes(_l(status.get("podIPs")), "status.podIPs", old_ips)
    host_ips = _l(status.get("hostIPs"))
    if host_ips:
        first = str(_o(host_ips[0]).get("ip") or "")
        if (status.get("hostIP") or "") != first:
            out.append(fe.invalid("status.hostIPs[0].ip", first, "must be equal to `hostIP`"))
        old_host = [str(_o(x).get("ip")) for x in _l(old_status.get("hostIPs"))]
        out += _ip_causes(host_ips, "status.hostIPs", old_host)
    return out + _container_statuses(status, str(_o(spec.get("os")).get("name") or "linux"))
