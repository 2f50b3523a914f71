"""More of core's ``ValidatePodSpec`` (``pkg/apis/core/validation/validation.go``, 1.37.2):
affinity, resource claims (pod and container), resource names and the non-overcommitable
resources, pod-level resources, host and DNS names, DNS policy, probes, volumes and their
mounts, env, pull policy, resize policy, scheduling gates, topology spread, readiness
gates, OS, init containers and ephemeral containers on create. ``pod_spec_causes`` is
called by the Pod validator and by every pod template's."""

from __future__ import annotations

import ipaddress
from typing import Any, Final

from reference_impl.api.meta import (
    dns1123_label_errors,
    dns1123_subdomain_errors,
    label_key_errors,
    parse_quantity,
)
from reference_impl.api.well_known_annotations import MIRROR_POD
from reference_impl.apiserver.strategies.policy import label_selector_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.node_selector import node_selector, node_selector_term
from reference_impl.apiserver.validation.pod_container_rules import container_rule_causes
from reference_impl.apiserver.validation.pod_ephemeral import ephemeral_causes
from reference_impl.apiserver.validation.pod_security import pod_security_causes
from reference_impl.apiserver.validation.pod_spec_rules import (
    hugepage_value_causes,
    pod_spec_rule_causes,
)
from reference_impl.apiserver.validation.pod_validation_options import (
    PodValidationOptions,
    options_from_pod_spec_and_meta,
)
from reference_impl.apiserver.validation.pod_volumes import volume_causes
from reference_impl.errors import Cause
from reference_impl.features import FeatureGates

__all__ = ["pod_spec_causes"]

Obj = dict[str, Any]
_STANDARD_CONTAINER: Final = frozenset({"cpu", "memory", "ephemeral-storage"})
_PULL_POLICIES: Final = ("Always", "IfNotPresent", "Never")
_WHEN_UNSATISFIABLE: Final = ("DoNotSchedule", "ScheduleAnyway")
# A create's options under the default 1.37 gates.
_CREATE_DEFAULTS: Final = options_from_pod_spec_and_meta(None, None, None, None, FeatureGates())


def _obj(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _list(v: Any) -> list[Obj]:
    return [x if isinstance(x, dict) else {} for x in v] if isinstance(v, list) else []


def _affinity(aff: Obj, path: str, opts: PodValidationOptions) -> list[Cause]:
    """``validateAffinity``: invalid label values pass in required node affinity terms and
    pod affinity selectors only where the old spec already had them (the options)."""
    out: list[Cause] = []
    na = aff.get("nodeAffinity")
    if isinstance(na, dict):
        p = f"{path}.nodeAffinity"
        req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
        if req is not None:
            values = not opts.allow_invalid_label_value_in_required_node_affinity
            out += node_selector(req, f"{p}.requiredDuringSchedulingIgnoredDuringExecution", values=values)
        for i, t in enumerate(_list(na.get("preferredDuringSchedulingIgnoredDuringExecution"))):
            tp = f"{p}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
            out += _weight(t, f"{tp}.weight")
            # Preferred terms allow invalid label values (ValidatePreferredSchedulingTerms).
            out += node_selector_term(t.get("preference") or {}, f"{tp}.preference", values=False)
    for kind in ("podAffinity", "podAntiAffinity"):
        pa = aff.get(kind)
        if not isinstance(pa, dict):
            continue
        p = f"{path}.{kind}"
        lenient = opts.allow_invalid_label_value_in_selector
        for i, t in enumerate(_list(pa.get("requiredDuringSchedulingIgnoredDuringExecution"))):
            out += _affinity_term(t, f"{p}.requiredDuringSchedulingIgnoredDuringExecution[{i}]", lenient)
        for i, t in enumerate(_list(pa.get("preferredDuringSchedulingIgnoredDuringExecution"))):
            tp = f"{p}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
            out += _weight(t, f"{tp}.weight")
            out += _affinity_term(t.get("podAffinityTerm") or {}, f"{tp}.podAffinityTerm", lenient)
    return out


def _weight(t: Obj, path: str) -> list[Cause]:
    w = t.get("weight", 0)
    if isinstance(w, int) and not 1 <= w <= 100:
        return [fe.invalid(path, w, "must be in the range 1-100")]
    return []


def _affinity_term(t: Obj, path: str, lenient: bool = False) -> list[Cause]:
    """``validatePodAffinityTerm`` (``lenient``: AllowInvalidLabelValueInSelector)."""
    out = label_selector_causes(t.get("labelSelector"), f"{path}.labelSelector", allow_invalid_values=lenient)
    out += label_selector_causes(t.get("namespaceSelector"), f"{path}.namespaceSelector", allow_invalid_values=lenient)
    for ns in t.get("namespaces") or []:
        out += [fe.invalid(f"{path}.namespace", ns, e) for e in dns1123_label_errors(str(ns))]
    key = str(t.get("topologyKey") or "")
    if not key:
        out.append(fe.required(f"{path}.topologyKey", "can not be empty"))
    out += [fe.invalid(f"{path}.topologyKey", key, e) for e in label_key_errors(key)]
    return out


def _pod_claims(claims: list[Obj], path: str, mirror: bool) -> tuple[list[Cause], set[str]]:
    """``validatePodResourceClaims``; also the names containers may reference
    (``gatherPodResourceClaimNames``: every non-empty one)."""
    out: list[Cause] = []
    names: set[str] = set()
    gathered = {str(c.get("name")) for c in claims if c.get("name")}
    for i, c in enumerate(claims):
        p = f"{path}[{i}]"
        if mirror:  # upstream's field.NewPath("") prints so
            out.append(fe.forbidden("[]", "static pods do not support resource claims"))
            continue
        name = str(c.get("name") or "")
        if not name:
            out.append(fe.required(f"{p}.name"))
        elif name in names:
            out.append(fe.duplicate(f"{p}.name", name))
        else:
            out += [fe.invalid(f"{p}.name", name, e) for e in dns1123_label_errors(name)]
            names.add(name)
        by_name, by_template = c.get("resourceClaimName"), c.get("resourceClaimTemplateName")
        if by_name is not None and by_template is not None:
            out.append(fe.invalid(p, c, "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"))
        if by_name is None and by_template is None:
            out.append(fe.invalid(p, c, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
        for f, v in (("resourceClaimName", by_name), ("resourceClaimTemplateName", by_template)):
            if v is not None:
                out += [fe.invalid(f"{p}.{f}", v, e) for e in dns1123_subdomain_errors(str(v))]
    return out, gathered


def _container_claims(claims: list[Obj], pod_names: set[str], path: str) -> list[Cause]:
    """``validateResourceClaimNames``: known, not referenced twice (also via a request)."""
    out: list[Cause] = []
    seen: set[str] = set()
    for i, c in enumerate(claims):
        p = f"{path}[{i}]"
        name, request = str(c.get("name") or ""), str(c.get("request") or "")
        if not name:
            out.append(fe.required(p))
            continue
        if name in seen:
            out.append(fe.duplicate(p, name))
        else:
            key = name
            if request:
                out += [fe.invalid(f"{p}.request", request, e) for e in dns1123_label_errors(request)]
                key = f"{name}/{request}"
            if key in seen:
                out.append(fe.duplicate(p, key))
            elif not request and any(k.split("/", 1)[0] == name for k in seen if "/" in k):
                out.append(fe.duplicate(p, name))
            seen.add(key)
        if name not in pod_names:
            out.append(Cause(p, "FieldValueNotFound", f'Not found: "{name}": must be one of the names in pod.spec.resourceClaims'))
    return out


def _native(name: str) -> bool:
    """``IsNativeResource``: unprefixed, or in the kubernetes.io namespace."""
    return "/" not in name or "kubernetes.io/" in name


def _extended(name: str) -> bool:
    """``IsExtendedResourceName``: not native, and a qualified name behind "requests."."""
    return not _native(name) and not name.startswith("requests.") and not label_key_errors(f"requests.{name}")


def _hugepages(name: str) -> bool:
    return name.startswith("hugepages-")


def _resources(res: Obj, path: str) -> list[Cause]:
    """``ValidateContainerResourceRequirements``: resource names, integer extended
    resources, and a limit equal to the request for the non-overcommitable ones."""
    out: list[Cause] = []
    limits, requests = res.get("limits") or {}, res.get("requests") or {}
    for kind, values in (("limits", limits), ("requests", requests)):
        for name, value in values.items():
            p = f"{path}.{kind}[{name}]"
            errs = label_key_errors(name)
            if errs:
                out += [fe.invalid(p, name, e) for e in errs]
                continue
            if "/" not in name:
                if name not in _STANDARD_CONTAINER and not _hugepages(name):
                    out.append(fe.invalid(p, name, "must be a standard resource for containers"))
            elif not _native(name) and not _extended(name):
                out.append(fe.invalid(p, name, "doesn't follow extended resource name standard"))
            out += hugepage_value_causes(name, value, p)
            if _extended(name):
                try:
                    if parse_quantity(value) % 1 != 0:
                        out.append(fe.invalid(p, value, "must be an integer"))
                except ValueError:
                    pass
    for name, value in requests.items():
        if not (_extended(name) or _hugepages(name)) or label_key_errors(name):
            continue
        if name not in limits:
            out.append(fe.required(f"{path}.limits", "Limit must be set for non overcommitable resources"))
        elif str(limits[name]) != str(value):
            try:
                differ = parse_quantity(limits[name]) != parse_quantity(value)
            except ValueError:
                differ = False
            if differ:
                out.append(fe.invalid(f"{path}.requests", value, f"must be equal to {name} limit of {limits[name]}"))
    if any(_hugepages(n) for n in [*limits, *requests]) and not any(
        n in ("cpu", "memory") for n in [*limits, *requests]
    ):
        out.append(fe.forbidden(path, "HugePages require cpu or memory"))
    return out


def _container(c: Obj, path: str, claims: set[str]) -> list[Cause]:
    out: list[Cause] = []
    policy = c.get("imagePullPolicy")
    if policy is not None and policy not in _PULL_POLICIES:
        out.append(fe.not_supported(f"{path}.imagePullPolicy", policy, _PULL_POLICIES))
    res = _obj(c.get("resources"))
    out += _resources(res, f"{path}.resources")
    out += _container_claims(_list(res.get("claims")), claims, f"{path}.resources.claims")
    return out


def _topology_spread(constraints: list[Obj], path: str) -> list[Cause]:
    out: list[Cause] = []
    for i, t in enumerate(constraints):
        p = f"{path}[{i}]"
        skew = t.get("maxSkew", 0)
        if isinstance(skew, int) and skew <= 0:
            out.append(fe.invalid(f"{p}.maxSkew", skew, "must be greater than zero"))
        # ValidateTopologyKey: only its presence (unlike an affinity term's topologyKey).
        if not t.get("topologyKey"):
            out.append(fe.required(f"{p}.topologyKey", "can not be empty"))
        when = t.get("whenUnsatisfiable")
        if when not in _WHEN_UNSATISFIABLE:
            out.append(fe.not_supported(f"{p}.whenUnsatisfiable", when, _WHEN_UNSATISFIABLE))
    return out


def pod_spec_causes(
    spec: Obj, path: str, *, template: bool = False, meta: Obj | None = None,
    opts: PodValidationOptions | None = None,
) -> list[Cause]:
    """The rules above for a pod spec at ``path`` (``spec`` or ``spec.template.spec``);
    ``meta`` is a pod's metadata (None for a template); ``opts`` the validation options
    (``pod_validation_options``; None: a create's under the default gates)."""
    opts = opts or _CREATE_DEFAULTS
    out: list[Cause] = []
    own = str((meta or {}).get("name") or "")
    vol_causes, volumes = volume_causes(
        spec.get("volumes") or [], f"{path}.volumes", own,
        allow_non_local_token_path=opts.allow_non_local_projected_token_path,
        allow_empty_image_reference=opts.allow_empty_image_volume_reference,
    )
    out += vol_causes
    out += container_rule_causes(
        spec, path, volumes,
        allow_rules=opts.allow_container_restart_policy_rules,
        allow_restart_all=opts.allow_restart_all_containers,
    )
    out += pod_security_causes(
        spec, path, opts.allow_sys_admin_when_privilege_escalation_false,
        allow_host_network=opts.allow_user_namespaces_host_network_support,
        allow_volume_devices=opts.allow_user_namespaces_with_volume_devices,
        allow_host_sysctls=opts.allow_namespaced_sysctls_for_host_net_and_host_ipc,
        only_recursive_selinux=opts.allow_only_recursive_selinux_change_policy,
    )
    out += pod_spec_rule_causes(spec, path, opts)
    mirror = MIRROR_POD in _obj((meta or {}).get("annotations"))
    claim_causes, claims = _pod_claims(_list(spec.get("resourceClaims")), f"{path}.resourceClaims", mirror)
    out += claim_causes
    for lst in ("initContainers", "containers", "ephemeralContainers"):
        for i, c in enumerate(_list(spec.get(lst))):
            out += _container(c, f"{path}.{lst}[{i}]", claims)
    res = spec.get("resources")
    if isinstance(res, dict) and _obj(spec.get("os")).get("name") != "windows":
        # validatePodResources -> validatePodResourceRequirements: the pod-level claims are
        # Forbidden (pod_spec_rules), and still checked by validateResourceClaimNames.
        out += _container_claims(_list(res.get("claims")), claims, f"{path}.resources.claims")
    if isinstance(spec.get("affinity"), dict):
        out += _affinity(spec["affinity"], f"{path}.affinity", opts)
    for f in ("hostname", "subdomain"):
        if spec.get(f):
            out += [fe.invalid(f"{path}.{f}", spec[f], e) for e in dns1123_label_errors(str(spec[f]))]
    if spec.get("nodeName"):
        out += [fe.invalid(f"{path}.nodeName", spec["nodeName"], e) for e in dns1123_subdomain_errors(str(spec["nodeName"]))]
    pod_name = str((meta or {}).get("name") or "")
    for i, v in enumerate(_list(spec.get("volumes"))):
        # validateVolumeSource: an ephemeral volume's PVC, <pod>-<volume>, is a valid name.
        vname = str(_obj(v).get("name") or "")
        if pod_name and vname and set(_obj(v)) == {"name", "ephemeral"}:
            pvc = f"{pod_name}-{vname}"
            out += [fe.invalid(f"{path}.volumes[{i}].name", vname, f'PVC name "{pvc}": {e}') for e in dns1123_subdomain_errors(pvc)]
    if spec.get("runtimeClassName") is not None:  # ValidateRuntimeClassName
        rcn = str(spec["runtimeClassName"])
        out += [fe.invalid(f"{path}.runtimeClassName", rcn, e) for e in dns1123_subdomain_errors(rcn)]
    if spec.get("priorityClassName"):  # ValidatePriorityClassName (a pod's is looked up first)
        pcn = str(spec["priorityClassName"])
        out += [fe.invalid(f"{path}.priorityClassName", pcn, e) for e in dns1123_subdomain_errors(pcn)]
    if spec.get("dnsPolicy") == "None" and spec.get("dnsConfig") is None:
        out.append(fe.required(f"{path}.dnsConfig", "must provide `dnsConfig` when `dnsPolicy` is None"))
    gates: set[str] = set()
    for i, g in enumerate(_list(spec.get("schedulingGates"))):
        name = str(g.get("name") or "")
        if name in gates:
            out.append(fe.duplicate(f"{path}.schedulingGates[{i}]", name))
        gates.add(name)
    out += _topology_spread(_list(spec.get("topologySpreadConstraints")), f"{path}.topologySpreadConstraints")
    for i, g in enumerate(_list(spec.get("readinessGates"))):
        ctype = str(g.get("conditionType") or "")
        out += [fe.invalid(f"{path}.readinessGates[{i}].conditionType", ctype, e) for e in label_key_errors(ctype)]
    for i, h in enumerate(_list(spec.get("hostAliases"))):
        try:
            ipaddress.ip_address(str(h.get("ip") or ""))
        except ValueError:
            out.append(fe.invalid(f"{path}.hostAliases[{i}].ip", h.get("ip"), "must be a valid IP address"))
    if spec.get("ephemeralContainers") and not template:
        out.append(fe.forbidden(f"{path}.ephemeralContainers", "cannot be set on create"))
    out += ephemeral_causes(spec, path, volumes, opts.allow_sys_admin_when_privilege_escalation_false)
    return out
