"""FlowSchema and PriorityLevelConfiguration (flowcontrol.apiserver.k8s.io; upstream
v1.37.2's ``pkg/apis/flowcontrol/validation``, ``pkg/apis/flowcontrol/v1/defaults.go``
and ``pkg/registry/flowcontrol/*/strategy.go``). The mandatory objects' fixed specs are
in ``flowcontrol_mandatory``. PriorityLevelConfiguration is in
``flowcontrol_pl``; StorageVersionMigration and APIService in ``flowcontrol_misc``."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.formats import dns1123_label_errors, dns1123_subdomain_errors
from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.strategies import flowcontrol_misc, flowcontrol_pl
from reference_impl.apiserver.strategies.flowcontrol_mandatory import mandatory_flow_schema_causes
from reference_impl.apiserver.strategies.flowcontrol_pl import conditions_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = [
    "default_flow_schema",
    "flowcontrol_misc",
    "flowcontrol_pl",
    "reset_status_on_create",
    "validate_flow_schema",
    "validate_fs_status",
]

Obj = dict[str, Any]
_MAX_PRECEDENCE: Final = 10000
_DISTINGUISHERS: Final = ("ByNamespace", "ByUser")
_VERBS: Final = (
    "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch",
)  # fmt: skip
_SUBJECT_KINDS: Final = ("Group", "ServiceAccount", "User")
_NS_INTRO: Final = "each member of this list must be '*' or a DNS-1123 label; "
_NOT_USER: Final = "user is forbidden when subject kind is not 'User'"
_NOT_GROUP: Final = "group is forbidden when subject kind is not 'Group'"
_NOT_SA: Final = "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


@preparer("FlowSchema", "PriorityLevelConfiguration")
def reset_status_on_create(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """PrepareForCreate: a client's status is dropped (updates keep the stored one)."""
    if old is None:
        obj["status"] = {}


@defaulter("FlowSchema")
def default_flow_schema(fs: Obj, ctx: Context) -> None:
    """``SetDefaults_FlowSchemaSpec``: matchingPrecedence 0 becomes 1000 (the spec is a
    struct value: an absent one is defaulted too)."""
    if fs.get("spec") is None:
        fs["spec"] = {}
    spec = fs["spec"]
    if isinstance(spec, dict) and not _int(spec.get("matchingPrecedence")):
        spec["matchingPrecedence"] = 1000


def _precedence(spec: Obj, name: str) -> list[Cause]:
    p, path, out = _int(spec.get("matchingPrecedence")), "spec.matchingPrecedence", []
    if p <= 0:
        out.append(fe.invalid(path, p, "must be a positive value"))
    if p > _MAX_PRECEDENCE:
        out.append(fe.invalid(path, p, f"must not be greater than {_MAX_PRECEDENCE}"))
    if p == 1 and name != "exempt":
        out.append(fe.invalid(path, p, "only the schema named 'exempt' may have matchingPrecedence 1"))
    return out


def _spec_causes(spec: Obj, name: str) -> list[Cause]:
    """``ValidateFlowSchemaSpec``."""
    out = _precedence(spec, name)
    dm = spec.get("distinguisherMethod")
    if isinstance(dm, dict) and dm.get("type") not in _DISTINGUISHERS:
        value = {"Type": str(dm.get("type") or "")}
        out.append(fe.not_supported("spec.distinguisherMethod.type", value, _DISTINGUISHERS))
    pl_name, pl_path = str(_o(spec.get("priorityLevelConfiguration")).get("name") or ""), "spec.priorityLevelConfiguration.name"
    if pl_name:
        out += [fe.invalid(pl_path, pl_name, m) for m in dns1123_subdomain_errors(pl_name)]
    else:
        out.append(fe.required(pl_path, "must reference a priority level"))
    for i, rule in enumerate(_l(spec.get("rules"))):
        out += _rule_causes(_o(rule), f"spec.rules[{i}]")
    return out


def _rule_causes(rule: Obj, path: str) -> list[Cause]:
    """``ValidateFlowSchemaPolicyRulesWithSubjects``."""
    subjects, out = _l(rule.get("subjects")), []
    for i, s in enumerate(subjects):
        out += _subject_causes(_o(s), f"{path}.subjects[{i}]")
    if not subjects:
        out.append(fe.required(f"{path}.subjects", "subjects must contain at least one value"))
    rrs, nrs = _l(rule.get("resourceRules")), _l(rule.get("nonResourceRules"))
    if not rrs and not nrs:
        out.append(fe.required(path, "at least one of resourceRules and nonResourceRules has to be non-empty"))
    for i, rr in enumerate(rrs):
        out += _resource_rule_causes(_o(rr), f"{path}.resourceRules[{i}]")
    for i, nr in enumerate(nrs):
        out += _non_resource_rule_causes(_o(nr), f"{path}.nonResourceRules[{i}]")
    return out


def _named(subject: Any, path: str, what: str) -> list[Cause]:
    """``ValidateUserSubject`` / ``ValidateGroupSubject``."""
    if not isinstance(subject, dict):
        return [fe.required(path, f"{what} is required when subject kind is '{what.capitalize()}'")]
    return [] if subject.get("name") else [fe.required(f"{path}.name")]


def _sa_causes(sa: Any, path: str) -> list[Cause]:
    """``ValidateServiceAccountSubject``."""
    if not isinstance(sa, dict):
        return [fe.required(path, "serviceAccount is required when subject kind is 'ServiceAccount'")]
    name, ns, out = str(sa.get("name") or ""), str(sa.get("namespace") or ""), []
    if not name:
        out.append(fe.required(f"{path}.name"))
    elif name != "*":
        out += [fe.invalid(f"{path}.name", name, m) for m in dns1123_subdomain_errors(name)]
    if ns:
        out += [fe.invalid(f"{path}.namespace", ns, m) for m in dns1123_label_errors(ns)]
    else:
        out.append(fe.required(f"{path}.namespace", "must specify namespace for service account"))
    return out


def _subject_causes(s: Obj, path: str) -> list[Cause]:
    """``ValidateFlowSchemaSubject``: the member its kind names, and no other."""
    kind, out = s.get("kind"), []
    others: tuple[tuple[str, str], ...]
    if kind == "ServiceAccount":
        out += _sa_causes(s.get("serviceAccount"), f"{path}.serviceAccount")
        others = (("user", _NOT_USER), ("group", _NOT_GROUP))
    elif kind == "User":
        out += _named(s.get("user"), f"{path}.user", "user")
        others = (("serviceAccount", _NOT_SA), ("group", _NOT_GROUP))
    elif kind == "Group":
        out += _named(s.get("group"), f"{path}.group", "group")
        others = (("serviceAccount", _NOT_SA), ("user", _NOT_USER))
    else:
        return [fe.not_supported(f"{path}.kind", str(kind or ""), _SUBJECT_KINDS)]
    return out + [fe.forbidden(f"{path}.{f}", msg) for f, msg in others if s.get(f) is not None]


def _verbs_causes(verbs: list[Any], path: str) -> list[Cause]:
    if not verbs:
        return [fe.required(path, "verbs must contain at least one value")]
    if "*" in verbs:
        return [fe.invalid(path, verbs, "if '*' is present, must not specify other verbs")] if len(verbs) > 1 else []
    return [] if all(v in _VERBS for v in verbs) else [fe.not_supported(path, verbs, _VERBS)]


def _starred(items: list[Any], path: str, required: str, what: str) -> list[Cause]:
    if not items:
        return [fe.required(path, required)]
    if len(items) > 1 and "*" in items:
        return [fe.invalid(path, items, f"if '*' is present, must not specify other {what}")]
    return []


def _resource_rule_causes(rr: Obj, path: str) -> list[Cause]:
    """``ValidateFlowSchemaResourcePolicyRule``."""
    out = _verbs_causes(_l(rr.get("verbs")), f"{path}.verbs")
    out += _starred(_l(rr.get("apiGroups")), f"{path}.apiGroups", "resource rules must supply at least one api group", "api groups")
    out += _starred(_l(rr.get("resources")), f"{path}.resources", "resource rules must supply at least one resource", "resources")
    nss, np = _l(rr.get("namespaces")), f"{path}.namespaces"
    if not nss and not rr.get("clusterScope"):
        out.append(fe.required(np, "resource rules that are not cluster scoped must supply at least one namespace"))
    elif "*" in nss:
        if len(nss) > 1:
            out.append(fe.invalid(np, nss, "if '*' is present, must not specify other namespaces"))
    else:
        for i, ns in enumerate(nss):
            out += [fe.invalid(f"{np}[{i}]", ns, _NS_INTRO + m) for m in dns1123_label_errors(str(ns))]
    return out


def _non_resource_rule_causes(nr: Obj, path: str) -> list[Cause]:
    """``ValidateFlowSchemaNonResourcePolicyRule``."""
    out = _verbs_causes(_l(nr.get("verbs")), f"{path}.verbs")
    urls, up = _l(nr.get("nonResourceURLs")), f"{path}.nonResourceURLs"
    if not urls:
        out.append(fe.required(up, "nonResourceURLs must contain at least one value"))
    elif "*" in urls:
        if len(urls) > 1:
            out.append(fe.invalid(up, urls, "if '*' is present, must not specify other non-resource URLs"))
    else:
        for i, u in enumerate(urls):
            msg = _url_error(str(u))
            if msg:
                out.append(fe.invalid(f"{up}[{i}]", u, msg))
    return out


def _url_error(path: str) -> str:
    """``ValidateNonResourceURLPath``: the message, or "" when the path is fine."""
    if not path:
        return "must not be empty"
    if path == "/":
        return ""
    if not path.startswith("/"):
        return "must start with slash"
    if " " in path:
        return "must not contain white-space"
    if "//" in path:
        return "must not contain double slash"
    stars = path.count("*")
    if stars > 1 or (stars == 1 and path[-2:] != "/*"):
        return "wildcard can only do suffix matching"
    return ""


@validator("FlowSchema")
def validate_flow_schema(fs: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateFlowSchema`` (create and update alike), less the metadata checks."""
    name = str(_o(fs.get("metadata")).get("name") or "")
    out = _spec_causes(_o(fs.get("spec")), name) + mandatory_flow_schema_causes(name, fs.get("spec"))
    return out + conditions_causes(fs.get("status"))


@validator("FlowSchema", "PriorityLevelConfiguration", status=True)
def validate_fs_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """The status strategies' ``ValidateUpdate``: only the conditions are judged."""
    return conditions_causes(obj.get("status"))
