"""The authorizer chain behind access-review answers, as kube-apiserver v1.37.2 runs it
with ``--authorization-mode=Node,RBAC``: the ``system:masters`` privileged-group
authorizer, then Node, then RBAC (``plugin/pkg/auth/authorizer/rbac``'s
``RBACAuthorizer.Authorize`` over ``pkg/registry/rbac/validation``'s
``DefaultRuleResolver.VisitRulesFor``), joined as ``union.Authorize`` joins them.

RBAC reads the stored Roles, ClusterRoles and their bindings, the bootstrap policy the
apiserver stores at start (``rbac_bootstrap``) among them. Bindings are visited in name
order (live: informer order), so a case must not hinge on which of two allowing bindings
is named.

The Node authorizer is modelled only as far as non-node users go (NoOpinion): a node
identity's answer (graph of pods, secrets...) is not modelled and gets NoOpinion too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.apiserver.validation.resource.lists import as_dict, as_list

__all__ = [
    "Attributes",
    "Decision",
    "aggregate_error",
    "api_group_matches",
    "applies_to",
    "applies_to_user",
    "authorize",
    "non_resource_url_matches",
    "resource_matches",
    "resource_name_matches",
    "rule_allows",
    "rules_for",
    "verb_matches",
]

Obj = dict[str, Any]
Getter = Callable[[str, str, str, "str | None"], "Obj | None"]
Lister = Callable[[str, str, "str | None"], list[Obj]]
_RBAC: Final = "rbac.authorization.k8s.io/v1"
_SA_PREFIX: Final = "system:serviceaccount:"
_PRIVILEGED: Final = "system:masters"


@dataclass(frozen=True, slots=True)
class Attributes:
    """``authorizer.AttributesRecord``: who asks, and a resource or non-resource request."""

    user: str = ""
    groups: tuple[str, ...] = ()
    resource_request: bool = True
    verb: str = ""
    namespace: str = ""
    api_group: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""
    path: str = ""
    uid: str = ""
    extra: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Decision:
    """A union decision: allowed, denied (never, for this chain), reason, error text."""

    allowed: bool
    reason: str = ""
    error: str = ""


# -- pkg/apis/rbac/v1 evaluation helpers ------------------------------------------------


def verb_matches(rule: Obj, verb: str) -> bool:
    """``VerbMatches``."""
    return any(v in ("*", verb) for v in as_list(rule.get("verbs")))


def api_group_matches(rule: Obj, group: str) -> bool:
    """``APIGroupMatches``."""
    return any(g in ("*", group) for g in as_list(rule.get("apiGroups")))


def resource_matches(rule: Obj, combined: str, subresource: str) -> bool:
    """``ResourceMatches``: ``*``, the exact ``resource[/subresource]``, or ``*/<sub>``
    for a request naming that subresource (``resource/*`` matches nothing special)."""
    for r in as_list(rule.get("resources")):
        if r in ("*", combined):
            return True
        if subresource and r == f"*/{subresource}":
            return True
    return False


def resource_name_matches(rule: Obj, name: str) -> bool:
    """``ResourceNameMatches``: no names listed allows any (even none)."""
    names = as_list(rule.get("resourceNames"))
    return not names or name in names


def non_resource_url_matches(rule: Obj, path: str) -> bool:
    """``NonResourceURLMatches``: ``*``, exact, or a prefix ending in ``*``."""
    for u in as_list(rule.get("nonResourceURLs")):
        if not isinstance(u, str):
            continue
        if u in ("*", path) or (u.endswith("*") and path.startswith(u.rstrip("*"))):
            return True
    return False


def rule_allows(attrs: Attributes, rule: Obj) -> bool:
    """``RuleAllows``."""
    if not verb_matches(rule, attrs.verb):
        return False
    if not attrs.resource_request:
        return non_resource_url_matches(rule, attrs.path)
    combined = f"{attrs.resource}/{attrs.subresource}" if attrs.subresource else attrs.resource
    return (
        api_group_matches(rule, attrs.api_group)
        and resource_matches(rule, combined, attrs.subresource)
        and resource_name_matches(rule, attrs.name)
    )


# -- pkg/registry/rbac/validation -------------------------------------------------------


def _matches_sa_username(namespace: str, name: str, username: str) -> bool:
    """``serviceaccount.MatchesUsername``."""
    return username == f"{_SA_PREFIX}{namespace}:{name}"


def applies_to_user(attrs: Attributes, subject: Obj, namespace: str) -> bool:
    """``appliesToUser``: only the groups the request names count (a review implies none)."""
    kind, name = subject.get("kind"), str(subject.get("name") or "")
    if kind == "User":
        return attrs.user == name
    if kind == "Group":
        return name in attrs.groups
    if kind == "ServiceAccount":
        sa_ns = str(subject.get("namespace") or "") or namespace
        return bool(sa_ns) and _matches_sa_username(sa_ns, name, attrs.user)
    return False


def applies_to(attrs: Attributes, subjects: list[Obj], namespace: str) -> int | None:
    """``appliesTo``: the index of the first subject that applies, None when none does."""
    return next((i for i, s in enumerate(subjects) if applies_to_user(attrs, s, namespace)), None)


def _describe_subject(subject: Obj, binding_ns: str) -> str:
    """``describeSubject``."""
    kind, name = str(subject.get("kind") or ""), str(subject.get("name") or "")
    if kind == "ServiceAccount":
        return f'{kind} "{name}/{subject.get("namespace") or binding_ns}"'
    return f'{kind} "{name}"'


class _Policy:
    """The stored RBAC objects (the bootstrap policy among them: ``rbac_bootstrap``)."""

    def __init__(self, get: Getter, list_: Lister) -> None:
        self._get, self._list = get, list_

    def cluster_role_bindings(self) -> list[Obj]:
        return self._list(_RBAC, "ClusterRoleBinding", None)

    def role_bindings(self, namespace: str) -> list[Obj]:
        return self._list(_RBAC, "RoleBinding", namespace)

    def role_rules(self, ref: Obj, namespace: str) -> list[Obj]:
        """``GetRoleReferenceRules``; raises LookupError with the lister's NotFound text."""
        kind, name = ref.get("kind"), str(ref.get("name") or "")
        if kind == "ClusterRole":
            obj = self._get(_RBAC, "ClusterRole", name, None)
            if obj is None:
                raise LookupError(f'clusterrole.rbac.authorization.k8s.io "{name}" not found')
            return [as_dict(r) for r in as_list(obj.get("rules"))]
        if kind == "Role":
            obj = self._get(_RBAC, "Role", name, namespace)
            if obj is None:
                raise LookupError(f'role.rbac.authorization.k8s.io "{name}" not found')
            return [as_dict(r) for r in as_list(obj.get("rules"))]
        raise LookupError(f'unsupported role reference kind: "{kind}"')


def _visit(policy: _Policy, attrs: Attributes) -> Iterator[tuple[str, Obj | None, str]]:
    """``VisitRulesFor``: (source, rule, "") per rule that applies, ("", None, error) per
    binding whose role is missing; ClusterRoleBindings, then the namespace's RoleBindings."""
    scopes: list[tuple[str, list[Obj]]] = [("", policy.cluster_role_bindings())]
    if attrs.namespace:
        scopes.append((attrs.namespace, policy.role_bindings(attrs.namespace)))
    for ns, bindings in scopes:
        for b in bindings:
            subjects = [as_dict(s) for s in as_list(b.get("subjects"))]
            index = applies_to(attrs, subjects, ns)
            if index is None:
                continue
            subject = subjects[index]
            ref = as_dict(b.get("roleRef"))
            try:
                rules = policy.role_rules(ref, ns)
            except LookupError as e:
                yield "", None, str(e)
                continue
            name = str(as_dict(b.get("metadata")).get("name") or "")
            what = f'ClusterRoleBinding "{name}"' if not ns else f'RoleBinding "{name}/{ns}"'
            source = f'{what} of {ref.get("kind")} "{ref.get("name")}" to {_describe_subject(subject, ns)}'
            for rule in rules:
                yield source, as_dict(rule), ""


def aggregate_error(messages: list[str]) -> str:
    """``utilerrors.NewAggregate(...).Error()``: one message bare, several deduplicated in
    brackets."""
    seen = list(dict.fromkeys(messages))
    if len(seen) <= 1:
        return "".join(seen)
    return "[" + ", ".join(seen) + "]"


def rules_for(attrs: Attributes, get: Getter, list_: Lister) -> tuple[list[Obj], str]:
    """``DefaultRuleResolver.RulesFor``: every rule that applies to the user in
    ``attrs.namespace``, and the aggregated error of missing roles."""
    rules, errors = [], []
    for _, rule, err in _visit(_Policy(get, list_), attrs):
        if rule is not None:
            rules.append(rule)
        if err:
            errors.append(err)
    return rules, aggregate_error(errors)


def rbac_authorize(policy: _Policy, attrs: Attributes) -> tuple[bool, str]:
    """``RBACAuthorizer.Authorize``: (allowed, reason)."""
    errors: list[str] = []
    for source, rule, err in _visit(policy, attrs):
        if rule is not None and rule_allows(attrs, rule):
            return True, f"RBAC: allowed by {source}"
        if err:
            errors.append(err)
    return False, f"RBAC: {aggregate_error(errors)}" if errors else ""


def authorize(attrs: Attributes, get: Getter, list_: Lister) -> Decision:
    """``union.Authorize`` over system-privileged-group, node, rbac: the first Allow wins
    with its own reason; otherwise every non-empty reason, prefixed by its authorizer's
    name, one a line."""
    if _PRIVILEGED in attrs.groups:
        return Decision(True)
    # node: NoOpinion with no reason for non-node users (node users: not modelled).
    allowed, reason = rbac_authorize(_Policy(get, list_), attrs)
    if allowed:
        return Decision(True, reason)
    return Decision(False, f"rbac: {reason}" if reason else "")
