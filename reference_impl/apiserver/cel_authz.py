"""The Kubernetes CEL authz library (``k8s.io/apiserver/pkg/cel/library/authz.go``, with
AuthzSelectors) for cel-python: the ``authorizer`` variable and its receivers ``path``,
``group``, ``serviceAccount``, ``resource``, ``subresource``, ``namespace``, ``name``,
``fieldSelector``, ``labelSelector``, ``check``, ``allowed``, ``reason``, ``errored`` and
``error``; ``authorizer.requestResource`` (``NewResourceAuthorizerVal``) is a field of the
authorizer value.

Checks go to an ``Authorizer`` callable over the ``Record`` the library builds
(``authorizer.AttributesRecord``); ``rbac`` adapts the reference's RBAC chain to it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Final

from celpy import celtypes
from celpy.evaluation import CELEvalError

from reference_impl.api.formats import dns1123_label_errors, dns1123_subdomain_errors
from reference_impl.api.meta import Requirement, parse_selector
from reference_impl.apiserver import rbac_authorizer as rbac_chain
from reference_impl.apiserver.field_selectors import parse_selector as parse_fields
from reference_impl.apiserver.user_info import UserInfo, service_account_user
from reference_impl.errors import ApiError

__all__ = [
    "ALLOW",
    "DENY",
    "FUNCTIONS",
    "NO_OPINION",
    "AuthorizerVal",
    "Authorizer",
    "AuthzDecision",
    "Record",
    "authorizer_value",
    "rbac",
]

ALLOW: Final = "Allow"
DENY: Final = "Deny"
NO_OPINION: Final = "NoOpinion"
_REQUEST_RESOURCE: Final = celtypes.StringType("requestResource")


@dataclass(frozen=True, slots=True)
class Record:
    """``authorizer.AttributesRecord`` as the library fills it: a resource check (APIVersion
    ``*``) or a path check. Selectors are kept parsed, or with their parse error."""

    user: UserInfo | None = None
    verb: str = ""
    resource_request: bool = False
    api_group: str = ""
    api_version: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""
    # (operator, field, value) per ``fields.Requirement``; None: no selector given.
    field_requirements: tuple[tuple[str, str, str], ...] | None = None
    field_error: str = ""
    label_requirements: tuple[Requirement, ...] | None = None
    label_error: str = ""


@dataclass(frozen=True, slots=True)
class AuthzDecision:
    """What ``Authorize`` returns: the decision, its reason and its error text."""

    decision: str
    reason: str = ""
    error: str = ""


Authorizer = Callable[[Record], AuthzDecision]


class AuthorizerVal(celtypes.MessageType):
    """``authorizerVal``; a message so that ``authorizer.requestResource`` selects the
    request's own ResourceCheck (only the bound variable has it)."""

    cel_type = "kubernetes.authorization.Authorizer"
    user: UserInfo | None
    authorize: Authorizer


def _authorizer(user: UserInfo | None, authorize: Authorizer) -> AuthorizerVal:
    out = AuthorizerVal()
    out.user, out.authorize = user, authorize
    return out


@dataclass(frozen=True, slots=True)
class PathCheck:
    """``pathCheckVal``."""

    authorizer: AuthorizerVal
    path: str
    cel_type = "kubernetes.authorization.PathCheck"


@dataclass(frozen=True, slots=True)
class GroupCheck:
    """``groupCheckVal``."""

    authorizer: AuthorizerVal
    group: str
    cel_type = "kubernetes.authorization.GroupCheck"


@dataclass(frozen=True, slots=True)
class ResourceCheck:
    """``resourceCheckVal``."""

    authorizer: AuthorizerVal
    group: str
    resource: str
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    field_selector: str = ""
    label_selector: str = ""
    cel_type = "kubernetes.authorization.ResourceCheck"


@dataclass(frozen=True, slots=True)
class Decision:
    """``decisionVal``."""

    decision: AuthzDecision
    cel_type = "kubernetes.authorization.Decision"


def authorizer_value(
    user: UserInfo | None,
    authorize: Authorizer,
    request: tuple[str, str, str, str, str] | None = None,
) -> AuthorizerVal:
    """The ``authorizer`` variable (``NewAuthorizerVal``); with ``request`` (group,
    resource, subresource, namespace, name) also ``authorizer.requestResource``
    (``NewResourceAuthorizerVal``)."""
    out = _authorizer(user, authorize)
    if request is not None:
        group, resource, sub, ns, name = request
        rc: Any = ResourceCheck(out, group, resource, sub, ns, name)  # not a CEL value type
        out[_REQUEST_RESOURCE] = rc
    return out


def _str(v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError("no such overload")
    return str(v)


def _of(v: Any, kind: type[Any]) -> Any:
    if not isinstance(v, kind):
        raise TypeError("no such overload")
    return v


def _path(a: Any, p: Any) -> PathCheck | CELEvalError:
    path = _str(p)
    if not path.strip():
        return CELEvalError("path must not be empty")
    return PathCheck(_of(a, AuthorizerVal), path)


def _group(a: Any, g: Any) -> GroupCheck:
    return GroupCheck(_of(a, AuthorizerVal), _str(g))


def _service_account(a: Any, ns: Any, name: Any) -> AuthorizerVal | CELEvalError:
    """``authorizerServiceAccount``: the same authorizer, checking for the account's user."""
    authz = _of(a, AuthorizerVal)
    namespace, sa = _str(ns), _str(name)
    if dns1123_subdomain_errors(sa):
        return CELEvalError("Invalid service account name")
    if dns1123_label_errors(namespace):
        return CELEvalError("Invalid service account namespace")
    return _authorizer(service_account_user(namespace, sa), authz.authorize)


def _resource(g: Any, r: Any) -> ResourceCheck | CELEvalError:
    group, resource = _of(g, GroupCheck), _str(r)
    if not resource.strip():
        return CELEvalError("resource must not be empty")
    return ResourceCheck(group.authorizer, group.group, resource)


def _rc(rc: Any) -> ResourceCheck:
    check: ResourceCheck = _of(rc, ResourceCheck)
    return check


# The ResourceCheck setters; "" leaves a field unset.
def _subresource(rc: Any, v: Any) -> ResourceCheck:
    return replace(_rc(rc), subresource=_str(v))


def _namespace(rc: Any, v: Any) -> ResourceCheck:
    return replace(_rc(rc), namespace=_str(v))


def _name(rc: Any, v: Any) -> ResourceCheck:
    return replace(_rc(rc), name=_str(v))


def _field_selector(rc: Any, v: Any) -> ResourceCheck:
    return replace(_rc(rc), field_selector=_str(v))


def _label_selector(rc: Any, v: Any) -> ResourceCheck:
    return replace(_rc(rc), label_selector=_str(v))


def _field_requirements(selector: str) -> tuple[tuple[tuple[str, str, str], ...] | None, str]:
    """``fields.ParseSelector(...).Requirements()``, or its parse error."""
    try:
        terms = parse_fields(selector)
    except ApiError as e:
        return None, e.message
    return tuple(("!=" if t.negated else "=", t.field, t.value) for t in terms), ""


def _label_requirements(selector: str) -> tuple[tuple[Requirement, ...] | None, str]:
    """``labels.ParseToRequirements``, or its parse error (the reference parser's text)."""
    try:
        return parse_selector(selector).requirements, ""
    except ValueError as e:
        return None, str(e)


def _check(c: Any, v: Any) -> Decision:
    """``pathCheckVal.Authorize`` / ``resourceCheckVal.Authorize``."""
    verb = _str(v)
    if isinstance(c, PathCheck):
        record = Record(user=c.authorizer.user, verb=verb, path=c.path)
        return Decision(c.authorizer.authorize(record))
    rc = _rc(c)
    record = Record(
        user=rc.authorizer.user, verb=verb, resource_request=True, api_group=rc.group,
        api_version="*", resource=rc.resource, subresource=rc.subresource,
        namespace=rc.namespace, name=rc.name,
    )  # fmt: skip
    if rc.field_selector:
        fields, err = _field_requirements(rc.field_selector)
        record = replace(record, field_requirements=fields, field_error=err)
    if rc.label_selector:
        labels, err = _label_requirements(rc.label_selector)
        record = replace(record, label_requirements=labels, label_error=err)
    return Decision(rc.authorizer.authorize(record))


def _allowed(d: Any) -> celtypes.BoolType:
    return celtypes.BoolType(_of(d, Decision).decision.decision == ALLOW)


def _errored(d: Any) -> celtypes.BoolType:
    return celtypes.BoolType(bool(_of(d, Decision).decision.error))


def _error(d: Any) -> celtypes.StringType:
    return celtypes.StringType(_of(d, Decision).decision.error)


def _reason(d: Any) -> celtypes.StringType:
    return celtypes.StringType(_of(d, Decision).decision.reason)


FUNCTIONS: Final[dict[str, Any]] = {
    "path": _path,
    "group": _group,
    "serviceAccount": _service_account,
    "resource": _resource,
    "subresource": _subresource,
    "namespace": _namespace,
    "name": _name,
    "fieldSelector": _field_selector,
    "labelSelector": _label_selector,
    "check": _check,
    "allowed": _allowed,
    "errored": _errored,
    "error": _error,
    "reason": _reason,
}


Getter = Callable[[str, str, str, "str | None"], "dict[str, Any] | None"]
Lister = Callable[[str, str, "str | None"], list[dict[str, Any]]]


def rbac(get: Getter, list_: Lister) -> Authorizer:
    """The apiserver's authorizer (``rbac_authorizer.authorize``: privileged group, Node,
    RBAC); it allows or has no opinion, and ignores selectors and the API version."""

    def authorize(r: Record) -> AuthzDecision:
        u = r.user or UserInfo()
        attrs = rbac_chain.Attributes(
            user=u.name, groups=u.groups, resource_request=r.resource_request, verb=r.verb,
            namespace=r.namespace, api_group=r.api_group, resource=r.resource,
            subresource=r.subresource, name=r.name, path=r.path, uid=u.uid,
            extra={k: list(v) for k, v in u.extra.items()},
        )  # fmt: skip
        d = rbac_chain.authorize(attrs, get, list_)
        return AuthzDecision(ALLOW if d.allowed else NO_OPINION, d.reason, d.error)

    return authorize
