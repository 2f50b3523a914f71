"""Ingress (networking.k8s.io; ``pkg/apis/networking/validation`` and
``pkg/registry/networking/ingress/strategy.go`` of upstream v1.37.2).

RelaxedServiceNameValidation is GA and locked on in 1.37, so backend service names are
always DNS-1123 labels (``allowRelaxedServiceNameValidation`` is always true).
"""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.api.formats import dns1123_label_errors, dns1123_subdomain_errors, regex_error
from reference_impl.apiserver.registry import Context, preparer, validator
from reference_impl.apiserver.strategies.pod_containers import port_name_errors, port_number_errors
from reference_impl.apiserver.strategies.service_fields import legacy_ip_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.ip_formats import parse_ip_sloppy
from reference_impl.apiserver.validation.tag_formats import path_segment_name_errors
from reference_impl.errors import Cause

__all__ = [
    "reset_ingress_status",
    "validate_ingress",
    "validate_ingress_status",
]

Obj = dict[str, Any]
_CLASS_ANNOTATION: Final = "kubernetes.io/ingress.class"
_PATH_TYPES: Final = ("Exact", "ImplementationSpecific", "Prefix")
_BAD_SEQUENCES: Final = ("//", "/./", "/../", "%2f", "%2F")
_BAD_SUFFIXES: Final = ("/..", "/.")
_SUB_FMT: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_WILDCARD_FMT: Final = "\\*\\." + _SUB_FMT
_WILDCARD_RE: Final = re.compile(f"^{_WILDCARD_FMT}$")
_WILDCARD_MSG: Final = (
    "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, "
    "which must consist of lower case alphanumeric characters, '-' or '.' and end with an "
    "alphanumeric character"
)


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _objs(v: Any) -> list[Obj]:
    return [_o(x) for x in v] if isinstance(v, list) else []


def _s(v: Any) -> str:
    return v if isinstance(v, str) else ""


@preparer("Ingress")
def reset_ingress_status(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """PrepareForCreate: a create cannot set status (update keeps the old one)."""
    if old is None:
        obj["status"] = {"loadBalancer": {}}


def _wildcard_errors(value: str) -> list[str]:
    """``validation.IsWildcardDNS1123Subdomain``."""
    errs = ["must be no more than 253 characters"] if len(value) > 253 else []
    if not _WILDCARD_RE.match(value):
        errs.append(regex_error(_WILDCARD_MSG, _WILDCARD_FMT, "*.example.com"))
    return errs


def _host_errors(host: str) -> list[str]:
    return _wildcard_errors(host) if "*" in host else dns1123_subdomain_errors(host)


def _resource_causes(ref: Obj, path: str) -> list[Cause]:
    """``validateIngressTypedLocalObjectReference``."""
    out: list[Cause] = []
    group = ref.get("apiGroup")
    if isinstance(group, str):
        out += [fe.invalid(f"{path}.apiGroup", group, m) for m in dns1123_subdomain_errors(group)]
    for f in ("kind", "name"):
        v = _s(ref.get(f))
        if not v:
            out.append(fe.required(f"{path}.{f}"))
        else:
            out += [fe.invalid(f"{path}.{f}", v, m) for m in path_segment_name_errors(v)]
    return out


def _service_causes(svc: Obj, path: str) -> list[Cause]:
    """The service half of ``validateIngressBackend``."""
    out: list[Cause] = []
    name = _s(svc.get("name"))
    if not name:
        out.append(fe.required(f"{path}.service.name"))
    else:
        out += [fe.invalid(f"{path}.service.name", name, m) for m in dns1123_label_errors(name)]
    port = _o(svc.get("port"))
    pname, pnum = _s(port.get("name")), port.get("number")
    pnum = pnum if isinstance(pnum, int) and not isinstance(pnum, bool) else 0
    if pname and pnum:
        out.append(fe.invalid(path, "", "cannot set both port name & port number"))
    elif pname:
        out += [fe.invalid(f"{path}.service.port.name", pname, m) for m in port_name_errors(pname)]
    elif pnum:
        out += [fe.invalid(f"{path}.service.port.number", pnum, m) for m in port_number_errors(pnum)]
    else:
        out.append(fe.required(path, "port name or number is required"))
    return out


def _backend_causes(backend: Obj, path: str) -> list[Cause]:
    """``validateIngressBackend``."""
    resource, service = backend.get("resource"), backend.get("service")
    if resource is not None and service is not None:
        return [fe.invalid(path, "", "cannot set both resource and service backends")]
    if resource is not None:
        return _resource_causes(_o(resource), f"{path}.resource")
    if service is not None:
        return _service_causes(_o(service), path)
    return [fe.invalid(path, "", "resource or service backend is required")]


def _path_value_causes(value: str, path: str) -> list[Cause]:
    """Exact and Prefix paths: absolute, with no dot segments or encoded slashes."""
    out: list[Cause] = []
    if not value.startswith("/"):
        out.append(fe.invalid(path, value, "must be an absolute path"))
    if value:
        out += [fe.invalid(path, value, f"must not contain '{s}'") for s in _BAD_SEQUENCES if s in value]
        out += [fe.invalid(path, value, f"cannot end with '{s}'") for s in _BAD_SUFFIXES if value.endswith(s)]
    return out


def _http_path_causes(p: Obj, path: str) -> list[Cause]:
    """``validateHTTPIngressPath``."""
    ptype = p.get("pathType")
    if ptype is None:
        return [fe.required(f"{path}.pathType", "pathType must be specified")]
    value, out = _s(p.get("path")), []
    if ptype in ("Exact", "Prefix"):
        out += _path_value_causes(value, f"{path}.path")
    elif ptype == "ImplementationSpecific":
        if value and not value.startswith("/"):
            out.append(fe.invalid(f"{path}.path", value, "must be an absolute path"))
    else:
        out.append(fe.not_supported(f"{path}.pathType", ptype, _PATH_TYPES))
    return out + _backend_causes(_o(p.get("backend")), f"{path}.backend")


def _rule_value_causes(rule: Obj, path: str) -> list[Cause]:
    """``validateIngressRuleValue`` / ``validateHTTPIngressRuleValue``."""
    http = rule.get("http")
    if http is None:
        return []
    paths = _objs(_o(http).get("paths"))
    out = [] if paths else [fe.required(f"{path}.http.paths")]
    for i, p in enumerate(paths):
        out += _http_path_causes(p, f"{path}.http.paths[{i}]")
    return out


def _rules_causes(rules: list[Obj], allow_wildcard_rule: bool) -> list[Cause]:
    """``validateIngressRules``."""
    out: list[Cause] = []
    for i, rule in enumerate(rules):
        path, host = f"spec.rules[{i}]", _s(rule.get("host"))
        if host and parse_ip_sloppy(host) is not None:
            out.append(fe.invalid(f"{path}.host", host, "must be a DNS name, not an IP address"))
        out += [fe.invalid(f"{path}.host", host, m) for m in (_host_errors(host) if host else [])]
        if "*" not in host or not allow_wildcard_rule:
            out += _rule_value_causes(rule, path)
    return out


def _tls_causes(tls: list[Obj], allow_bad_secret: bool) -> list[Cause]:
    """``validateIngressTLS``."""
    out: list[Cause] = []
    for t, entry in enumerate(tls):
        for i, host in enumerate(entry.get("hosts") or []):
            h = _s(host)
            out += [fe.invalid(f"spec.tls[{t}].hosts[{i}]", h, m) for m in _host_errors(h)]
        secret = _s(entry.get("secretName"))
        if not allow_bad_secret and secret:
            out += [fe.invalid(f"spec.tls[{t}].secretName", secret, m) for m in dns1123_subdomain_errors(secret)]
    return out


def _spec_causes(spec: Obj, allow_bad_secret: bool, allow_wildcard_rule: bool) -> list[Cause]:
    """``ValidateIngressSpec``."""
    out: list[Cause] = []
    rules, backend = _objs(spec.get("rules")), spec.get("defaultBackend")
    if not rules and backend is None:
        msg = "either `defaultBackend` or `rules` must be specified"
        out.append(fe.invalid("spec", spec.get("rules"), msg))
    if backend is not None:
        out += _backend_causes(_o(backend), "spec.defaultBackend")
    out += _rules_causes(rules, allow_wildcard_rule)
    out += _tls_causes(_objs(spec.get("tls")), allow_bad_secret)
    cls = spec.get("ingressClassName")
    if isinstance(cls, str):
        out += [fe.invalid("spec.ingressClassName", cls, m) for m in dns1123_subdomain_errors(cls)]
    return out


def _bad_secret_stored(old: Obj | None) -> bool:
    """``allowInvalidSecretName``: the stored object already has an invalid secret name."""
    tls = _objs(_o(_o(old).get("spec")).get("tls"))
    return any(dns1123_subdomain_errors(_s(t.get("secretName"))) for t in tls if _s(t.get("secretName")))


def _bad_wildcard_rule_stored(old: Obj | None) -> bool:
    """``allowInvalidWildcardHostRule``: a stored wildcard rule already has invalid paths."""
    rules = _objs(_o(_o(old).get("spec")).get("rules"))
    return any("*" in _s(r.get("host")) and _rule_value_causes(r, "") for r in rules)


@validator("Ingress")
def validate_ingress(ing: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateIngressCreate`` / ``ValidateIngressUpdate`` (metadata is checked generically)."""
    spec = _o(ing.get("spec"))
    out = _spec_causes(spec, _bad_secret_stored(old), _bad_wildcard_rule_stored(old))
    annotations = _o(_o(ing.get("metadata")).get("annotations"))
    cls = spec.get("ingressClassName")
    if old is None and _CLASS_ANNOTATION in annotations and cls is not None:
        value = annotations[_CLASS_ANNOTATION]
        if value != cls:
            detail = "must match `ingressClassName` when both are specified"
            out.append(fe.invalid(f"annotations.{_CLASS_ANNOTATION}", value, detail))
    return out


@validator("Ingress", status=True)
def validate_ingress_status(ing: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateIngressStatusUpdate`` / ``ValidateIngressLoadBalancerStatus``."""
    base = "status.loadBalancer.ingress"
    old_ips = [_s(i.get("ip")) for i in _objs(_o(_o(_o(old).get("status")).get("loadBalancer")).get("ingress"))]
    prior = [ip for ip in old_ips if ip]
    out: list[Cause] = []
    for i, entry in enumerate(_objs(_o(_o(ing.get("status")).get("loadBalancer")).get("ingress"))):
        ip, host = _s(entry.get("ip")), _s(entry.get("hostname"))
        if ip:
            out += legacy_ip_causes(f"{base}[{i}].ip", ip, prior)
        if host:
            out += [fe.invalid(f"{base}[{i}].hostname", host, m) for m in dns1123_subdomain_errors(host)]
            if parse_ip_sloppy(host) is not None:
                out.append(fe.invalid(f"{base}[{i}].hostname", host, "must be a DNS name, not an IP address"))
    return out
