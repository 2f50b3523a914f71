"""Webhook rules and client configs (``pkg/apis/admissionregistration/validation`` and
``apiserver/pkg/util/webhook/validation.go`` of upstream v1.37.2)."""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.api.formats import dns1123_subdomain_errors, regex_error
from reference_impl.apiserver.strategies.pod_containers import port_number_errors
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.go_url import parse_url
from reference_impl.errors import Cause

__all__ = [
    "admission_review_versions_causes",
    "client_config_causes",
    "rule_with_operations_causes",
]

Obj = dict[str, Any]
_OPERATIONS: Final = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
_SCOPES: Final = ("*", "Cluster", "Namespaced")
_ACCEPTED_REVIEW: Final = ("v1", "v1beta1")
_DNS1035_FMT: Final = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_RE: Final = re.compile(f"^{_DNS1035_FMT}$")
_URL_FORM: Final = "; desired format: https://host[/path]"


def _strs(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _resources_causes(resources: list[Any], path: str) -> list[Cause]:
    """``validateResources`` (subresources allowed)."""
    out = [fe.required(path)] if not resources else []
    wild_sub: set[str] = set()  # x/*
    wild_res: set[str] = set()  # */x
    double = single = plain = False
    for i, rs in enumerate(str(r) for r in resources):
        if not rs:
            out.append(fe.required(f"{path}[{i}]"))
            continue
        double = double or rs == "*/*"
        single = single or rs == "*"
        if "/" not in rs:
            # upstream keeps only the last plain entry's verdict
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
    if len(resources) > 1 and double:
        out.append(fe.invalid(path, resources, "if '*/*' is present, must not specify other resources"))
    if single and plain:
        out.append(fe.invalid(path, resources, "if '*' is present, must not specify other resources without subresources"))
    return out


def _rule_causes(rule: Obj, path: str) -> list[Cause]:
    """``validateRule`` with subresources allowed."""
    out: list[Cause] = []
    groups, versions = _strs(rule.get("apiGroups")), _strs(rule.get("apiVersions"))
    if not groups:
        out.append(fe.required(f"{path}.apiGroups"))
    if len(groups) > 1 and "*" in groups:
        out.append(fe.invalid(f"{path}.apiGroups", groups, "if '*' is present, must not specify other API groups"))
    if not versions:
        out.append(fe.required(f"{path}.apiVersions"))
    if len(versions) > 1 and "*" in versions:
        out.append(fe.invalid(f"{path}.apiVersions", versions, "if '*' is present, must not specify other API versions"))
    out += [fe.required(f"{path}.apiVersions[{i}]") for i, v in enumerate(versions) if v == ""]
    out += _resources_causes(_strs(rule.get("resources")), f"{path}.resources")
    scope = rule.get("scope")
    if scope is not None and scope not in _SCOPES:
        out.append(fe.not_supported(f"{path}.scope", scope, _SCOPES))
    return out


def rule_with_operations_causes(rule: Obj, path: str) -> list[Cause]:
    """``validateRuleWithOperations``."""
    ops = _strs(rule.get("operations"))
    out = [fe.required(f"{path}.operations")] if not ops else []
    if len(ops) > 1 and "*" in ops:
        out.append(fe.invalid(f"{path}.operations", ops, "if '*' is present, must not specify other operations"))
    out += [
        fe.not_supported(f"{path}.operations[{i}]", op, _OPERATIONS)
        for i, op in enumerate(ops)
        if op not in _OPERATIONS
    ]
    return out + _rule_causes(rule, path)


def _dns1035_errors(value: str) -> list[str]:
    """``IsDNS1035Label``."""
    errs = ["must be no more than 63 characters"] if len(value) > 63 else []
    if not _DNS1035_RE.match(value):
        errs.append(regex_error(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
            "with an alphabetic character, and end with an alphanumeric character",
            _DNS1035_FMT, "my-name", "abc-123"))
    return errs


def admission_review_versions_causes(versions: list[Any], require_known: bool, path: str) -> list[Cause]:
    """``validateAdmissionReviewVersions``."""
    if not versions:
        return [fe.required(path, "must specify one of " + ", ".join(_ACCEPTED_REVIEW))]
    out: list[Cause] = []
    seen: set[str] = set()
    for i, v in enumerate(str(x) for x in versions):
        if v in seen:
            out.append(fe.invalid(f"{path}[{i}]", v, "duplicate version"))
            continue
        seen.add(v)
        out += [fe.invalid(f"{path}[{i}]", v, e) for e in _dns1035_errors(v)]
    if require_known and not seen & set(_ACCEPTED_REVIEW):
        out.append(fe.invalid(path, versions, "must include at least one of " + ", ".join(_ACCEPTED_REVIEW)))
    return out


def _url_causes(url: str, path: str) -> list[Cause]:
    """``ValidateWebhookURL`` with https forced."""
    try:
        u = parse_url(url)
    except ValueError as e:
        return [fe.required(path, f"url must be a valid URL: {e}{_URL_FORM}")]
    out: list[Cause] = []
    if u.scheme != "https":
        out.append(fe.invalid(path, u.scheme, "'https' is the only allowed URL scheme" + _URL_FORM))
    if not u.host:
        out.append(fe.invalid(path, u.host, "host must be specified" + _URL_FORM))
    if u.user is not None:
        out.append(fe.invalid(path, u.user, "user information is not permitted in the URL"))
    if u.fragment:
        out.append(fe.invalid(path, u.fragment, "fragments are not permitted in the URL"))
    if u.raw_query:
        out.append(fe.invalid(path, u.raw_query, "query parameters are not permitted in the URL"))
    return out


def _service_path_causes(url_path: str, path: str) -> list[Cause]:
    """The path part of ``ValidateWebhookService``."""
    if url_path in ("", "/"):
        return []
    if url_path == "//":
        return [fe.invalid(path, url_path, "segment[0] may not be empty")]
    out = [] if url_path.startswith("/") else [fe.invalid(path, url_path, "must start with a '/'")]
    check = url_path[1:]
    check = check[:-1] if check.endswith("/") else check
    for i, step in enumerate(check.split("/")):
        if not step:
            out.append(fe.invalid(path, url_path, f"segment[{i}] may not be empty"))
            continue
        out += [fe.invalid(path, url_path, f"segment[{i}]: {e}") for e in dns1123_subdomain_errors(step)]
    return out


def _service_causes(svc: Obj, path: str) -> list[Cause]:
    """``ValidateWebhookService``."""
    out: list[Cause] = []
    if not svc.get("name"):
        out.append(fe.required(f"{path}.name"))
    if not svc.get("namespace"):
        out.append(fe.required(f"{path}.namespace"))
    port = svc.get("port")
    port = port if isinstance(port, int) else 0
    errs = port_number_errors(port)
    if errs:
        out.append(fe.invalid(f"{path}.port", port, "port is not valid: " + ", ".join(errs)))
    p = svc.get("path")
    if p is not None:
        out += _service_path_causes(str(p), f"{path}.path")
    return out


def client_config_causes(cc: Obj, path: str) -> list[Cause]:
    """The clientConfig switch of ``validateValidatingWebhook``: exactly one of url or service."""
    url, svc = cc.get("url"), cc.get("service")
    if (url is None) == (svc is None):
        return [fe.required(path, "exactly one of url or service is required")]
    if url is not None:
        return _url_causes(str(url), f"{path}.url")
    return _service_causes(svc if isinstance(svc, dict) else {}, f"{path}.service")
