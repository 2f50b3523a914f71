"""More of upstream v1.37.2's ``ValidatePodSpec``: ``validatePodDNSConfig``, the rest of
``validateTopologySpreadConstraints``, ``ValidateMatchLabelKeysAndMismatchLabelKeys`` of
pod affinity terms, ``ValidateHostAliases`` hostnames, ``validatePodHostNetworkDeps``,
``validatePodHostName``, the serviceAccountName format and the resource names of ``validatePodResources``."""

from __future__ import annotations

import ipaddress
import math
import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.meta import dns1123_subdomain_errors, label_key_errors, parse_quantity
from reference_impl.api.resource_names import (
    is_hugepage_resource_name,
    is_native_resource,
    is_standard_resource_name,
)
from reference_impl.apiserver.quota.pod_resources import (
    aggregate_container_limits,
    aggregate_container_requests,
)
from reference_impl.apiserver.quota.resources import from_wire
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

if TYPE_CHECKING:
    from reference_impl.apiserver.validation.pod_validation_options import PodValidationOptions

__all__ = ["hugepage_value_causes", "pod_spec_rule_causes"]

Obj = dict[str, Any]
_POLICIES: Final = ("Honor", "Ignore")
_POD_RESOURCES: Final = ("cpu", "memory", "hugepages-")
_LABEL_US: Final = r"_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?"  # dns1123LabelFmtWithUnderscore
_SEARCH: Final = re.compile(rf"^{_LABEL_US}(\.{_LABEL_US})*$")


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _dns_config(spec: Obj, path: str) -> list[Cause]:
    """``validatePodDNSConfig`` (the required-when-None rules stay in ``pod_spec``)."""
    cfg, p = spec.get("dnsConfig"), f"{path}.dnsConfig"
    if not isinstance(cfg, dict):
        return []
    servers = cfg.get("nameservers") or []
    if spec.get("dnsPolicy") == "None" and not servers:
        return [fe.required(f"{p}.nameservers", "must provide at least one DNS nameserver when `dnsPolicy` is None")]
    out: list[Cause] = []
    if len(servers) > 3:
        out.append(fe.invalid(f"{p}.nameservers", servers, "must not have more than 3 nameservers"))
    for i, ns in enumerate(servers):
        try:
            ipaddress.ip_address(str(ns))
        except ValueError:
            out.append(fe.invalid(f"{p}.nameservers[{i}]", ns, "must be a valid IP address"))
    searches = [str(s) for s in cfg.get("searches") or []]
    if len(searches) > 32:
        out.append(fe.invalid(f"{p}.searches", searches, "must not have more than 32 search paths"))
    if len(" ".join(searches)) > 2048:
        out.append(fe.invalid(f"{p}.searches", searches, "must not have more than 2048 characters (including spaces) in the search list"))
    for i, s in enumerate(searches):
        if s == ".":
            continue
        s = s.removesuffix(".")
        if len(s) > 253:
            out.append(fe.invalid(f"{p}.searches[{i}]", s, "must be no more than 253 characters"))
        if not _SEARCH.match(s):
            out.append(fe.invalid(f"{p}.searches[{i}]", s, "a lowercase RFC 1123 subdomain with underscores"))
    for i, o in enumerate(cfg.get("options") or []):
        if not _o(o).get("name"):
            out.append(fe.required(f"{p}.options[{i}]", "must not be empty"))
    return out


def _label_name(key: str, path: str) -> list[Cause]:
    return [fe.invalid(path, key, e) for e in label_key_errors(key)]


def _selector_keys(sel: Obj) -> set[str]:
    keys = set(_o(sel.get("matchLabels")))
    return keys | {str(_o(e).get("key")) for e in sel.get("matchExpressions") or []}


def _match_label_keys(path: str, match: list[str], mismatch: list[str], sel: Any) -> list[Cause]:
    """``ValidateMatchLabelKeysAndMismatchLabelKeys``."""
    out: list[Cause] = []
    for name, keys in (("matchLabelKeys", match), ("mismatchLabelKeys", mismatch)):
        if not keys:
            continue
        if not isinstance(sel, dict):
            out.append(fe.forbidden(f"{path}.{name}", "must not be specified when labelSelector is not set"))
            continue
        for i, k in enumerate(keys):
            out += _label_name(k, f"{path}.{name}[{i}]")
    if isinstance(sel, dict):
        index = {k: i for i, k in enumerate(match)}
        seen = set(_o(sel.get("matchLabels")))
        for e in sel.get("matchExpressions") or []:
            k = str(_o(e).get("key"))
            if k in index and k in seen:
                out.append(fe.invalid(f"{path}[{index[k]}]", k, "exists in both matchLabelKeys and labelSelector"))
            seen.add(k)
    for i, k in enumerate(match):
        if k in mismatch:
            out.append(fe.invalid(f"{path}.matchLabelKeys[{i}]", k, "exists in both matchLabelKeys and mismatchLabelKeys"))
    return out


def _affinity_terms(spec: Obj, path: str) -> list[Cause]:
    out: list[Cause] = []
    aff = _o(spec.get("affinity"))
    for kind in ("podAffinity", "podAntiAffinity"):
        pa, p = _o(aff.get(kind)), f"{path}.affinity.{kind}"
        terms = [(t, f"{p}.requiredDuringSchedulingIgnoredDuringExecution[{i}]") for i, t in enumerate(pa.get("requiredDuringSchedulingIgnoredDuringExecution") or [])]
        terms += [
            (_o(_o(t).get("podAffinityTerm")), f"{p}.preferredDuringSchedulingIgnoredDuringExecution[{i}].podAffinityTerm")
            for i, t in enumerate(pa.get("preferredDuringSchedulingIgnoredDuringExecution") or [])
        ]
        for t, tp in terms:
            t = _o(t)
            out += _match_label_keys(tp, t.get("matchLabelKeys") or [], t.get("mismatchLabelKeys") or [], t.get("labelSelector"))
    return out


def _legacy_match_label_keys(path: str, keys: list[str], sel: Any) -> list[Cause]:
    """``ValidateMatchLabelKeysInTopologySpread`` (the rule before selector merging)."""
    if not keys:
        return []
    out: list[Cause] = []
    if not isinstance(sel, dict):
        out.append(fe.forbidden(path, "must not be specified when labelSelector is not set"))
    taken = _selector_keys(sel) if isinstance(sel, dict) else set()
    for i, k in enumerate(keys):
        out += _label_name(k, f"{path}[{i}]")
        if k in taken:
            out.append(fe.invalid(f"{path}[{i}]", k, "exists in both matchLabelKeys and labelSelector"))
    return out


def _preferred_match_label_keys(opts: PodValidationOptions | None) -> bool:
    """``validateTopologySpreadConstraints``' choice: the merge-era rule
    (ValidateMatchLabelKeysAndMismatchLabelKeys) or the legacy one, kept by an old pod
    that violates the other."""
    if opts is None:
        return True
    if not opts.allow_match_label_keys_in_pod_topology_spread:
        return False
    if opts.allow_match_label_keys_in_pod_topology_spread_selector_merge:
        return not opts.old_pod_violates_match_label_keys_validation
    return opts.old_pod_violates_legacy_match_label_keys_validation


def _topology_spread(spec: Obj, path: str, opts: PodValidationOptions | None) -> list[Cause]:
    """The parts of ``validateTopologySpreadConstraints`` beyond maxSkew, key and action."""
    from reference_impl.apiserver.strategies.policy import label_selector_causes

    out: list[Cause] = []
    constraints = [_o(c) for c in spec.get("topologySpreadConstraints") or []]
    for i, c in enumerate(constraints):
        p = f"{path}.topologySpreadConstraints[{i}]"
        pair = (c.get("topologyKey"), c.get("whenUnsatisfiable"))
        if any((r.get("topologyKey"), r.get("whenUnsatisfiable")) == pair for r in constraints[i + 1 :]):
            out.append(fe.duplicate(f"{p}.{{topologyKey, whenUnsatisfiable}}", f"{{{pair[0]}, {pair[1]}}}"))
        md = c.get("minDomains")
        if isinstance(md, int):
            if md <= 0:
                out.append(fe.invalid(f"{p}.minDomains", md, "must be greater than zero"))
            if c.get("whenUnsatisfiable") != "DoNotSchedule":
                out.append(fe.invalid(f"{p}.minDomains", md, "can only use minDomains if whenUnsatisfiable=DoNotSchedule"))
        for f in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            if c.get(f) is not None and c[f] not in _POLICIES:
                out.append(fe.not_supported(f"{p}.{f}", c[f], _POLICIES))
        keys = [str(k) for k in c.get("matchLabelKeys") or []]
        if _preferred_match_label_keys(opts):
            out += _match_label_keys(p, keys, [], c.get("labelSelector"))
        else:
            out += _legacy_match_label_keys(f"{p}.matchLabelKeys", keys, c.get("labelSelector"))
        if opts is None or not opts.allow_invalid_topology_spread_constraint_label_selector:
            out += label_selector_causes(c.get("labelSelector"), f"{p}.labelSelector")
    return out


def _pod_resources(spec: Obj, path: str) -> list[Cause]:
    """``validatePodResources``: windows pods, and the supported resource names."""
    res = spec.get("resources")
    if not isinstance(res, dict):
        return []
    p = f"{path}.resources"
    if _o(spec.get("os")).get("name") == "windows":
        return [fe.forbidden(p, "may not be set for a windows pod")]
    out: list[Cause] = []
    if res.get("claims") is not None:
        out.append(fe.forbidden(f"{p}.claims", "claims may not be set for Resources at pod-level"))
    limits = _o(res.get("limits"))
    for kind in ("limits", "requests"):
        for name, value in _o(res.get(kind)).items():
            out += _pod_resource_name(name, f"{p}.{kind}[{name}]")
            out += hugepage_value_causes(name, value, f"{p}.{kind}[{name}]")
            if kind == "requests" and name in limits:
                out += _request_vs_limit(name, value, limits[name], f"{p}.requests")
            elif kind == "requests" and not _overcommit_allowed(name):
                out.append(fe.required(f"{p}.limits", "Limit must be set for non overcommitable resources"))
    names = [*limits, *_o(res.get("requests"))]
    if any(str(n).startswith("hugepages-") for n in names) and not {"cpu", "memory"} & set(names):
        out.append(fe.forbidden(p, "HugePages require cpu or memory"))
    return out + _pod_resource_consistency(spec, res, p)


def _request_vs_limit(name: str, value: object, limit: object, path: str) -> list[Cause]:
    """A request at most its limit; equal to it for the non-overcommitable resources."""
    try:
        req, lim = parse_quantity(value), parse_quantity(limit)
    except ValueError:
        return []
    if req != lim and not _overcommit_allowed(name):
        return [fe.invalid(path, str(value), f"must be equal to {name} limit of {limit}")]
    if req > lim:
        return [fe.invalid(path, str(value), f"must be less than or equal to {name} limit of {limit}")]
    return []


def _overcommit_allowed(name: str) -> bool:
    """``IsOvercommitAllowed``: native and not hugepages."""
    return is_native_resource(name) and not is_hugepage_resource_name(name)


def _pod_resource_name(name: str, path: str) -> list[Cause]:
    """``validatePodResourceName``: ``validateResourceName``, then the pod-level ones."""
    errs = label_key_errors(name)
    if errs:
        return [fe.invalid(path, name, e) for e in errs]
    if "/" not in name and not is_standard_resource_name(name):
        return [fe.invalid(path, name, "must be a standard resource type or fully qualified")]
    if name not in _POD_RESOURCES[:2] and not name.startswith(_POD_RESOURCES[2]):
        return [fe.not_supported(path, name, ("cpu", "memory"))]
    return []


def hugepage_value_causes(name: str, value: object, path: str) -> list[Cause]:
    """``validateResourceQuantityHugePageValue``: a positive integer multiple of the page size."""
    if not is_hugepage_resource_name(name):
        return []
    try:
        qty = parse_quantity(value)
    except ValueError:
        return []  # the decoder's to refuse
    try:
        page = parse_quantity(name[len("hugepages-") :])
    except ValueError:
        page = Decimal(0)  # no page size: nothing divides
    if page > 0 and page % 1 == 0 and math.ceil(qty) % page == 0:
        return []
    return [fe.invalid(path, str(value), f"{value} is not positive integer multiple of {name}")]


def _pod_resource_consistency(spec: Obj, res: Obj, p: str) -> list[Cause]:
    """``validatePodResourceConsistency``: pod requests cover the containers' aggregate,
    pod hugepage limits their aggregate limits, and pod limits each container's limit."""
    pod = {"spec": spec}
    reqs, lims = from_wire(res.get("requests")), from_wire(res.get("limits"))
    out: list[Cause] = []
    for name, q in aggregate_container_requests(pod).items():
        if name in reqs and q.amount > reqs[name].amount:
            msg = f"must be greater than or equal to aggregate container requests of {q}"
            out.append(fe.invalid(f"{p}.requests[{name}]", str(reqs[name]), msg))
    for name, q in aggregate_container_limits(pod).items():
        if name.startswith("hugepages-") and name in lims and q.amount > lims[name].amount:
            msg = f"must be greater than or equal to aggregate container limits of {q}"
            out.append(fe.invalid(f"{p}.limits[{name}]", str(lims[name]), msg))
    for i, c in enumerate(spec.get("containers") or ()):
        for name, q in from_wire(_o(_o(c).get("resources")).get("limits")).items():
            if name in lims and q.amount > lims[name].amount:
                msg = f"must be less than or equal to pod limits of {lims[name]}"
                out.append(fe.invalid(f"{p}.containers[{i}][{name}].limits", str(q), msg))
    return out


def _file_key_ref_volumes(spec: Obj, path: str) -> list[Cause]:
    """``validateFileKeyRefVolumes``: a fileKeyRef names an emptyDir volume of the pod."""
    sources = {str(_o(v).get("name") or ""): _o(v) for v in spec.get("volumes") or []}  # null: ""
    out: list[Cause] = []
    for lst in ("initContainers", "containers", "ephemeralContainers"):
        for i, c in enumerate(spec.get(lst) or []):
            for j, env in enumerate(_o(c).get("env") or []):
                ref = _o(_o(env).get("valueFrom")).get("fileKeyRef")
                if not isinstance(ref, dict):
                    continue
                name, p = str(ref.get("volumeName") or ""), f"{path}.{lst}[{i}].env[{j}].valueFrom.fileKeyRef.volumeName"
                if name not in sources:
                    out.append(Cause(p, "FieldValueNotFound", f'Not found: "{name}"'))
                elif sources[name].get("emptyDir") is None:
                    out.append(fe.invalid(p, name, "referenced volume must be of type emptyDir"))
    return out


def pod_spec_rule_causes(spec: Obj, path: str, opts: PodValidationOptions | None = None) -> list[Cause]:
    """The rules above for a pod spec at ``path`` (``opts``: the validation options;
    None: a create's under the default gates)."""
    out = _dns_config(spec, path) + _affinity_terms(spec, path) + _topology_spread(spec, path, opts)
    for i, h in enumerate(spec.get("hostAliases") or []):
        for j, name in enumerate(_o(h).get("hostnames") or []):
            ap = f"{path}.hostAliases[{i}].hostnames[{j}]"
            out += [fe.invalid(ap, name, e) for e in dns1123_subdomain_errors(str(name))]
    if spec.get("hostNetwork"):
        for i, c in enumerate(spec.get("containers") or []):
            for j, port in enumerate(_o(c).get("ports") or []):
                hp, cp = _o(port).get("hostPort") or 0, _o(port).get("containerPort") or 0
                if hp and hp != cp:  # a Pod's unset hostPort was defaulted to containerPort
                    out.append(fe.invalid(f"{path}.containers[{i}].ports[{j}].hostPort", hp, "must match `containerPort` when `hostNetwork` is true"))
    override = spec.get("hostnameOverride")
    if override is not None:
        p = f"{path}.hostnameOverride"
        if spec.get("setHostnameAsFQDN"):
            out.append(fe.forbidden(p, "may not be specified when setHostnameAsFQDN is true"))
        if spec.get("hostNetwork"):
            out.append(fe.forbidden(p, "may not be specified when hostNetwork is true"))
        if len(str(override)) > 64:
            out.append(fe.too_long(p, 64))
        out += [fe.invalid(p, override, e) for e in dns1123_subdomain_errors(str(override))]
    sa = spec.get("serviceAccountName")
    if sa:  # ValidateServiceAccountName: a DNS subdomain
        out += [fe.invalid(f"{path}.serviceAccountName", sa, e) for e in dns1123_subdomain_errors(str(sa))]
    return out + _pod_resources(spec, path) + _file_key_ref_volumes(spec, path)
