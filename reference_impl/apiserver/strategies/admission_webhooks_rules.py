"""Webhook rules and client configs (``pkg/apis/admissionregistration/validation`` and
``apiserver/pkg/util/webhook/validation.go`` of upstream v1.37.2)."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.formats import dns1035_label_errors, dns1123_subdomain_errors
from reference_impl.apiserver.strategies.pod_containers import port_number_errors
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.go_url import parse_url
from reference_impl.errors import Cause

__all__ = [
    "admission_review_versions_causes",
    "client_config_causes",
]

Obj = dict[str, Any]
_ACCEPTED_REVIEW: Final = ("v1", "v1beta1")
_URL_FORM: Final = "; desired format: https://host[/path]"


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
        out += [fe.invalid(f"{path}[{i}]", v, e) for e in dns1035_label_errors(v)]
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
    """``ValidateWebhookService``. Every upstream caller (webhooks, CRD conversion) passes
    the service's name as its namespace argument and the namespace as its name, so a
    missing name is reported at ``namespace`` and the other way round."""
    out: list[Cause] = []
    if not svc.get("namespace"):
        out.append(fe.required(f"{path}.name", "service name is required"))
    if not svc.get("name"):
        out.append(fe.required(f"{path}.namespace", "service namespace is required"))
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
