"""The shared parts of admission policies and bindings (``pkg/apis/admissionregistration/validation``
of upstream v1.37.2): resource rules, match resources, paramKind and paramRef."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.formats import dns1035_label_errors
from reference_impl.api.meta import dns1123_subdomain_errors
from reference_impl.apiserver.strategies.policy import label_selector_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.tag_formats import path_segment_name_errors
from reference_impl.errors import Cause

__all__ = [
    "match_resources_causes",
    "param_kind_causes",
    "param_ref_causes",
    "rule_defaults",
    "rule_with_operations_causes",
]

Obj = dict[str, Any]
_SCOPES: Final = ("*", "Cluster", "Namespaced")
_OPERATIONS: Final = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
_MATCH_POLICIES: Final = ("Equivalent", "Exact")


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def rule_defaults(match: Obj) -> None:
    """``SetDefaults_MatchResources`` and ``SetDefaults_Rule`` (scope "*")."""
    match.setdefault("matchPolicy", "Equivalent")
    match.setdefault("namespaceSelector", {})
    match.setdefault("objectSelector", {})
    for key in ("resourceRules", "excludeResourceRules"):
        for rule in _l(match.get(key)):
            if isinstance(rule, dict):
                rule.setdefault("scope", "*")


def _resources_causes(resources: list[Any], path: str) -> list[Cause]:
    """``validateResources``: subresource wildcards must not overlap."""
    out = [] if resources else [fe.required(path)]
    wild_sub: set[str] = set()
    wild_res: set[str] = set()
    single = plain = False
    for i, rs in enumerate(str(r) for r in resources):
        if rs == "":
            out.append(fe.required(f"{path}[{i}]"))
            continue
        single = single or rs == "*"
        if "/" not in rs:
            plain = rs != "*"
            continue
        res, sub = rs.split("/", 1)
        if res in wild_sub:
            out.append(fe.invalid(f"{path}[{i}]", rs, f"if '{res}/*' is present, must not specify {rs}"))
        if sub in wild_res:
            out.append(fe.invalid(f"{path}[{i}]", rs, f"if '*/{sub}' is present, must not specify {rs}"))
        if sub == "*":
            wild_sub.add(res)
        if res == "*":
            wild_res.add(sub)
    if len(resources) > 1 and "*/*" in resources:
        out.append(fe.invalid(path, resources, "if '*/*' is present, must not specify other resources"))
    if single and plain:
        detail = "if '*' is present, must not specify other resources without subresources"
        out.append(fe.invalid(path, resources, detail))
    return out


def _list_field(rule: Obj, key: str, path: str, noun: str) -> list[Cause]:
    vals = _l(rule.get(key))
    out = [] if vals else [fe.required(f"{path}.{key}")]
    if len(vals) > 1 and "*" in vals:
        out.append(fe.invalid(f"{path}.{key}", vals, f"if '*' is present, must not specify other {noun}"))
    return out


def _rule_causes(rule: Obj, path: str) -> list[Cause]:
    """``validateRule`` with subresources allowed."""
    out = _list_field(rule, "apiGroups", path, "API groups")
    out += _list_field(rule, "apiVersions", path, "API versions")
    out += [fe.required(f"{path}.apiVersions[{i}]") for i, v in enumerate(_l(rule.get("apiVersions"))) if v == ""]
    out += _resources_causes(_l(rule.get("resources")), f"{path}.resources")
    scope = rule.get("scope")
    if scope is not None and scope not in _SCOPES:
        out.append(fe.not_supported(f"{path}.scope", scope, _SCOPES))
    return out


def _named_rule_causes(rule: Obj, path: str) -> list[Cause]:
    """``validateNamedRuleWithOperations``: resourceNames, operations, then the rule."""
    out: list[Cause] = []
    seen: set[str] = set()
    for i, name in enumerate(str(n) for n in _l(rule.get("resourceNames"))):
        p = f"{path}.resourceNames[{i}]"
        out += [fe.invalid(p, name, m) for m in path_segment_name_errors(name)]
        out += [fe.duplicate(p, name)] if name in seen else []
        seen.add(name)
    return out + rule_with_operations_causes(rule, path)


def rule_with_operations_causes(rule: Obj, path: str) -> list[Cause]:
    """``validateRuleWithOperations``: operations, then the rule (webhooks use it too)."""
    out = _list_field(rule, "operations", path, "operations")
    for i, op in enumerate(_l(rule.get("operations"))):
        if op not in _OPERATIONS:
            out.append(fe.not_supported(f"{path}.operations[{i}]", op, _OPERATIONS))
    return out + _rule_causes(rule, path)


def match_resources_causes(match: Any, path: str) -> list[Cause]:
    """``validateMatchResources`` (nil is fine)."""
    if not isinstance(match, dict):
        return []
    out: list[Cause] = []
    policy = match.get("matchPolicy")
    if policy is None:
        out.append(fe.required(f"{path}.matchPolicy"))
    elif policy not in _MATCH_POLICIES:
        out.append(fe.not_supported(f"{path}.matchPolicy", policy, _MATCH_POLICIES))
    for sel in ("namespaceSelector", "objectSelector"):
        if match.get(sel) is None:
            out.append(fe.required(f"{path}.{sel}"))
        else:
            out += label_selector_causes(match[sel], f"{path}.{sel}")
    for key in ("resourceRules", "excludeResourceRules"):
        for i, rule in enumerate(_l(match.get(key))):
            out += _named_rule_causes(_o(rule), f"{path}.{key}[{i}]")
    return out


def _api_version_causes(api_version: str, path: str) -> list[Cause]:
    if api_version.count("/") > 1:
        return [fe.invalid(path, api_version, f"unexpected GroupVersion string: {api_version}")]
    group, _, version = api_version.rpartition("/") if api_version != "/" else ("", "", "")
    out = [fe.invalid(path, group, ",".join(e)) for e in [dns1123_subdomain_errors(group)] if group and e]
    if not version:
        return out + [fe.invalid(path, api_version, "version must be specified")]
    return out + [fe.invalid(path, version, ",".join(e)) for e in [dns1035_label_errors(version)] if e]


def param_kind_causes(pk: Obj, path: str) -> list[Cause]:
    """``validateParamKind``."""
    api_version, kind = str(pk.get("apiVersion") or ""), str(pk.get("kind") or "")
    out = _api_version_causes(api_version, f"{path}.apiVersion") if api_version else [fe.required(f"{path}.apiVersion")]
    if not kind:
        return out + [fe.required(f"{path}.kind")]
    errs = dns1035_label_errors(kind.lower())
    detail = "may have mixed case, but should otherwise match: " + ",".join(errs)
    return out + ([fe.invalid(f"{path}.kind", kind, detail)] if errs else [])


def param_ref_causes(ref: Any, path: str) -> list[Cause]:
    """``validateParamRef`` (nil is fine)."""
    if not isinstance(ref, dict):
        return []
    name, sel, out = str(ref.get("name") or ""), ref.get("selector"), []
    exclusive = "name and selector are mutually exclusive"
    if name:
        out += [fe.invalid(f"{path}.name", name, m) for m in path_segment_name_errors(name)]
        out += [fe.forbidden(f"{path}.name", exclusive)] if sel is not None else []
    if sel is not None:
        out += label_selector_causes(sel, f"{path}.selector")
        out += [fe.forbidden(f"{path}.selector", exclusive)] if name else []
    if not name and sel is None:
        out.append(fe.required(path, "one of name or selector must be specified"))
    action = ref.get("parameterNotFoundAction")
    if not action:
        out.append(fe.required(f"{path}.parameterNotFoundAction"))
    elif action not in ("Deny", "Allow"):
        out.append(fe.not_supported(f"{path}.parameterNotFoundAction", action, ("Deny", "Allow")))
    return out
