"""Which requests a policy or binding matches: apiserver pkg/admission/plugin/policy/matching
(``Matcher.Matches``, ``matchesResourceRules``) over the webhook predicates
(predicates/rules ``Matcher``, predicates/namespace ``MatchNamespaceSelector``,
predicates/object ``MatchObjectSelector``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from reference_impl.api.formats import label_key_errors, label_value_errors
from reference_impl.api.meta import selector_from_label_selector
from reference_impl.api.resources import lookup_plural, served_versions

__all__ = ["GVK", "GVR", "Attributes", "EquivalentMapper", "MatchError", "matches"]

Obj = dict[str, Any]
GVR = tuple[str, str, str]  # group, version, resource
GVK = tuple[str, str, str]  # group, version, kind
# ``EquivalentResourceMapper``: (resource, subresource) -> the equivalent resources, each
# with the kind its subresource has there (``KindFor``).
EquivalentMapper = Callable[[GVR, str], list[tuple[GVR, GVK]]]
_SCALE: Final = ("autoscaling", "v1", "Scale")  # every served /scale's kind


class MatchError(ValueError):
    """A selector that does not parse, reported only for a request the rules match."""


@dataclass(frozen=True, slots=True)
class Attributes:
    """``admission.Attributes``, as far as matching reads them."""

    operation: str
    resource: GVR
    kind: GVK
    subresource: str
    name: str
    # The object's namespace; a Namespace's own name for requests on Namespaces.
    namespace: str
    obj: Obj | None
    old: Obj | None
    # The request namespace's labels (None: cluster-scoped, or the namespace is gone).
    namespace_labels: dict[str, str] | None


def _selector_error(raw: Obj) -> str:
    """``metav1.LabelSelectorAsSelector``'s error (its label key and value checks), or ""."""
    errs: list[str] = []
    pairs = [(str(k), [str(v)], "Equals") for k, v in (raw.get("matchLabels") or {}).items()]
    pairs += [(str(e.get("key", "")), [str(v) for v in e.get("values") or []], str(e.get("operator")))
              for e in raw.get("matchExpressions") or [] if isinstance(e, dict)]  # fmt: skip
    for key, values, op in pairs:
        if bad := label_key_errors(key):
            errs.append(f'key: Invalid value: "{key}": {"; ".join(bad)}')
        if op in ("In", "NotIn", "Equals"):
            for i, v in enumerate(values):
                if bad := label_value_errors(v):
                    errs.append(f'values[{i}][{key}]: Invalid value: "{v}": {"; ".join(bad)}')
    return ", ".join(errs)


def _labels(o: Obj | None) -> dict[str, str] | None:
    return None if o is None else dict((o.get("metadata") or {}).get("labels") or {})


def _namespace_matches(criteria: Obj, a: Attributes) -> bool:
    if not a.namespace and a.resource[2] != "namespaces":
        return True  # cluster-scoped resources always match
    sel = selector_from_label_selector(criteria.get("namespaceSelector") or {})
    if a.resource[2] == "namespaces":
        labels = _labels(a.obj if a.obj is not None else a.old)
    else:
        labels = a.namespace_labels
    return sel.matches(labels or {})


def _object_matches(criteria: Obj, a: Attributes) -> bool:
    raw = criteria.get("objectSelector") or {}
    if not raw.get("matchLabels") and not raw.get("matchExpressions"):
        return True  # an empty selector matches even a request without objects
    sel = selector_from_label_selector(raw)
    return any(sel.matches(lbl) for lbl in (_labels(a.obj), _labels(a.old)) if lbl is not None)


def _in(values: list[Any] | None, want: str) -> bool:
    return any(v in ("*", want) for v in values or [])


def _resource_matches(resources: list[Any] | None, resource: str, sub: str) -> bool:
    for r in resources or []:
        if r == "*/*" or (r == "*" and not sub):
            return True
        if r == (f"{resource}/{sub}" if sub else resource):
            return True
        if sub and r in (f"{resource}/*", f"*/{sub}"):
            return True
    return False


def _scope_matches(scope: str | None, a: Attributes) -> bool:
    if scope in (None, "*"):
        return True
    is_ns = a.resource[:1] == ("",) and a.resource[2] == "namespaces"
    if scope == "Namespaced":
        return not is_ns and bool(a.namespace)
    return is_ns or not a.namespace  # Cluster


def _rule_matches(rule: Obj, a: Attributes, resource: GVR) -> bool:
    """predicates/rules ``Matcher.Matches`` on ``resource`` (the request's or an equivalent)."""
    return (
        _in(rule.get("operations"), a.operation)
        and _in(rule.get("apiGroups"), resource[0])
        and _in(rule.get("apiVersions"), resource[1])
        and _resource_matches(rule.get("resources"), resource[2], a.subresource)
        and _scope_matches(rule.get("scope"), a)
    )


def _named(rule: Obj, a: Attributes) -> bool:
    names = rule.get("resourceNames") or []
    return not names or a.name in names


def _equivalents(resource: GVR, subresource: str) -> list[tuple[GVR, GVK]]:
    """The same group and resource at the other served versions (upstream's
    EquivalentResourceMapper, whose cross-group equivalences the reference does not serve),
    each with its kind: the parent's, or a /scale's Scale."""
    group, version, plural = resource
    out: list[tuple[GVR, GVK]] = []
    for api_version in served_versions():
        g, _, v = api_version.rpartition("/")
        if g != group or v == version:
            continue
        info = lookup_plural(api_version, plural)
        if info is not None:
            out.append(((g, v, plural), _SCALE if subresource == "scale" else (g, v, info.kind)))
    return out


def _rules_match(
    rules: list[Any], policy: str | None, a: Attributes, mapper: EquivalentMapper
) -> tuple[bool, GVR, GVK]:
    """``matchesResourceRules``: exact first, then (Equivalent) the equivalent resources."""
    for rule in rules:
        if isinstance(rule, dict) and _rule_matches(rule, a, a.resource) and _named(rule, a):
            return True, a.resource, a.kind
    if policy != "Equivalent":
        return False, a.resource, a.kind
    equivalents = [e for e in mapper(a.resource, a.subresource) if e[0] != a.resource]
    for rule in rules:
        for gvr, gvk in equivalents:
            if isinstance(rule, dict) and _rule_matches(rule, a, gvr) and _named(rule, a):
                return True, gvr, gvk
    return False, a.resource, a.kind


def matches(
    criteria: Obj, a: Attributes, mapper: EquivalentMapper = _equivalents
) -> tuple[bool, GVR, GVK]:
    """``Matcher.Matches``: the namespace and object selectors, the exclusions, then the
    resource rules (none: every resource); with the matched resource and kind. A selector
    that does not parse is a MatchError, raised only once the rules match."""
    # Selector errors are looked for only where they decide (they rarely exist).
    def ns_error() -> str:
        if not a.namespace and a.resource[2] != "namespaces":
            return ""  # cluster-scoped: the namespace selector is never parsed
        return _selector_error(criteria.get("namespaceSelector") or {})

    def obj_error() -> str:
        return _selector_error(criteria.get("objectSelector") or {})

    if not _namespace_matches(criteria, a) and not ns_error():
        return False, a.resource, a.kind
    if not _object_matches(criteria, a) and not obj_error():
        return False, a.resource, a.kind
    policy = criteria.get("matchPolicy")  # defaulted to Equivalent; unset is Exact
    if _rules_match(criteria.get("excludeResourceRules") or [], policy, a, mapper)[0]:
        return False, a.resource, a.kind
    rules = criteria.get("resourceRules") or []
    out = (True, a.resource, a.kind) if not rules else _rules_match(rules, policy, a, mapper)
    if out[0] and (err := ns_error() or obj_error()):
        raise MatchError(err)
    return out
