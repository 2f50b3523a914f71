"""Role, ClusterRole, RoleBinding, ClusterRoleBinding (``pkg/apis/rbac/v1/defaults.go`` and
``pkg/apis/rbac/validation`` of upstream v1.37.2). Metadata (``ValidateRBACName``: a path
segment) is checked by ``strategies.meta``; ServiceAccount has no rule beyond its metadata.
Event's rules are in ``rbac_events``."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.formats import (
    dns1123_subdomain_errors,
    label_key_errors,
    label_value_errors,
)
from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.apiserver.strategies import rbac_events  # noqa: F401  (registers Event)
from reference_impl.apiserver.strategies.policy import label_selector_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.tag_formats import path_segment_name_errors
from reference_impl.errors import Cause

__all__ = [
    "default_binding",
    "validate_binding",
    "validate_cluster_role",
    "validate_role",
]

Obj = dict[str, Any]
_GROUP: Final = "rbac.authorization.k8s.io"
_SUBJECT_KINDS: Final = ("ServiceAccount", "User", "Group")
_OPERATORS: Final = ("In", "NotIn", "Exists", "DoesNotExist")


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


@defaulter("RoleBinding", "ClusterRoleBinding")
def default_binding(obj: Obj, ctx: Context) -> None:
    """``SetDefaults_RoleBinding``/``ClusterRoleBinding`` and ``SetDefaults_Subject``
    (roleRef is a struct value: an absent one gets its apiGroup too)."""
    if obj.get("roleRef") is None:
        obj["roleRef"] = {}
    ref = obj["roleRef"]
    if isinstance(ref, dict) and not ref.get("apiGroup"):
        ref["apiGroup"] = _GROUP
    for s in _l(obj.get("subjects")):
        if isinstance(s, dict) and not s.get("apiGroup") and s.get("kind") in ("User", "Group"):
            s["apiGroup"] = _GROUP


def _policy_rule_causes(rule: Obj, namespaced: bool, path: str) -> list[Cause]:
    """``ValidatePolicyRule``."""
    out: list[Cause] = []
    if not _l(rule.get("verbs")):
        out.append(fe.required(f"{path}.verbs", "verbs must contain at least one value"))
    urls = _l(rule.get("nonResourceURLs"))
    if urls:
        if namespaced:
            out.append(
                fe.invalid(f"{path}.nonResourceURLs", urls, "namespaced rules cannot apply to non-resource URLs")
            )
        if any(_l(rule.get(f)) for f in ("apiGroups", "resources", "resourceNames")):
            out.append(
                fe.invalid(
                    f"{path}.nonResourceURLs",
                    urls,
                    "rules cannot apply to both regular resources and non-resource URLs",
                )
            )
        return out
    if not _l(rule.get("apiGroups")):
        out.append(fe.required(f"{path}.apiGroups", "resource rules must supply at least one api group"))
    if not _l(rule.get("resources")):
        out.append(fe.required(f"{path}.resources", "resource rules must supply at least one resource"))
    return out


def _rules_causes(obj: Obj, namespaced: bool) -> list[Cause]:
    out: list[Cause] = []
    for i, rule in enumerate(_l(obj.get("rules"))):
        out += _policy_rule_causes(_o(rule), namespaced, f"rules[{i}]")
    return out


@validator("Role")
def validate_role(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateRole`` (and ``ValidateRoleUpdate``, which adds only metadata)."""
    return _rules_causes(obj, True)


def _selector_convertible(sel: Obj) -> bool:
    """Whether ``metav1.LabelSelectorAsSelector`` succeeds: every requirement well formed."""
    for k, v in _o(sel.get("matchLabels")).items():
        if label_key_errors(str(k)) or label_value_errors(str(v)):
            return False
    for expr in _l(sel.get("matchExpressions")):
        e = _o(expr)
        op, values = e.get("operator"), _l(e.get("values"))
        if op not in _OPERATORS or label_key_errors(str(e.get("key") or "")):
            return False
        if (op in ("In", "NotIn")) != bool(values):
            return False
        if any(label_value_errors(str(v)) for v in values):
            return False
    return True


@validator("ClusterRole")
def validate_cluster_role(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateClusterRole``: the rules (non-resource URLs allowed) and the aggregation
    rule's selectors."""
    out = _rules_causes(obj, False)
    rule = obj.get("aggregationRule")
    if not isinstance(rule, dict):
        return out
    selectors = _l(rule.get("clusterRoleSelectors"))
    path = "aggregationRule.clusterRoleSelectors"
    if not selectors:
        out.append(
            fe.required(path, "at least one clusterRoleSelector required if aggregationRule is non-nil")
        )
    for i, sel in enumerate(selectors):
        out += label_selector_causes(_o(sel), f"{path}[{i}]")
        if not _selector_convertible(_o(sel)):
            out.append(fe.invalid(f"{path}[{i}]", sel, "invalid label selector."))
    return out


def _ref_causes(ref: Obj, kinds: tuple[str, ...]) -> list[Cause]:
    """The roleRef half of ``ValidateRoleBinding``/``ValidateClusterRoleBinding``."""
    out: list[Cause] = []
    group, kind, name = str(ref.get("apiGroup") or ""), str(ref.get("kind") or ""), str(ref.get("name") or "")
    if group != _GROUP:
        out.append(fe.not_supported("roleRef.apiGroup", group, (_GROUP,)))
    if kind not in kinds:
        out.append(fe.not_supported("roleRef.kind", kind, kinds))
    if not name:
        out.append(fe.required("roleRef.name"))
    out += [fe.invalid("roleRef.name", name, e) for e in path_segment_name_errors(name)]
    return out


def _subject_causes(subject: Obj, namespaced: bool, path: str) -> list[Cause]:
    """``ValidateRoleBindingSubject``."""
    out: list[Cause] = []
    name, kind, group = str(subject.get("name") or ""), subject.get("kind"), str(subject.get("apiGroup") or "")
    if not name:
        out.append(fe.required(f"{path}.name"))
    if kind == "ServiceAccount":
        if name:
            # ValidateServiceAccountName: a DNS subdomain.
            out += [fe.invalid(f"{path}.name", name, e) for e in dns1123_subdomain_errors(name)]
        if group:
            out.append(fe.not_supported(f"{path}.apiGroup", group, ("",)))
        if not namespaced and not subject.get("namespace"):
            out.append(fe.required(f"{path}.namespace"))
    elif kind in ("User", "Group"):
        if group != _GROUP:
            out.append(fe.not_supported(f"{path}.apiGroup", group, (_GROUP,)))
    else:
        out.append(fe.not_supported(f"{path}.kind", kind or "", _SUBJECT_KINDS))
    return out


@validator("RoleBinding", "ClusterRoleBinding")
def validate_binding(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateRoleBinding``/``ValidateClusterRoleBinding``; on update also
    ``ValidateImmutableField`` on the roleRef."""
    namespaced = obj.get("kind") == "RoleBinding"
    ref = _o(obj.get("roleRef"))
    out = _ref_causes(ref, ("Role", "ClusterRole") if namespaced else ("ClusterRole",))
    for i, s in enumerate(_l(obj.get("subjects"))):
        out += _subject_causes(_o(s), namespaced, f"subjects[{i}]")
    if old is not None and ref != _o(old.get("roleRef")):
        out.append(fe.invalid("roleRef", fe.OMIT, "field is immutable"))
    return out
