"""The admissionregistration strategies' warnings (``pkg/registry/admissionregistration/
*/strategy.go``): ``WarningsForStaticSuffix`` (``validation/static_suffix.go``) for
webhook configurations, policies and bindings, and ``WarningsFor{Validating,Mutating}
WebhookRules`` (``validation/warnings.go``) over ``exclusion.Excluded()``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from reference_impl.apiserver.registry import Context, warner
from reference_impl.apiserver.warnings.gates import gate

__all__ = ["EXCLUDED", "policy_warnings", "static_suffix_warnings", "webhook_configuration_warnings",
           "webhook_rules_warnings"]  # fmt: skip

Obj = dict[str, Any]

STATIC_CONFIG_SUFFIX: Final = ".static.k8s.io"
# pkg/kubeapiserver/admission/exclusion: (group, resource) webhooks never see.
EXCLUDED: Final = (
    ("authentication.k8s.io", "selfsubjectreviews"),
    ("authentication.k8s.io", "tokenreviews"),
    ("authorization.k8s.io", "localsubjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectrulesreviews"),
    ("authorization.k8s.io", "subjectaccessreviews"),
)
_MANIFEST: Final = "ManifestBasedAdmissionControlConfig"  # beta, on by default in 1.37
_EXCLUDE: Final = "ExcludeAdmissionWebhookVirtualResources"  # beta, on by default in 1.37


def static_suffix_warnings(name: str) -> list[str]:
    """``WarningsForStaticSuffix``."""
    if name.endswith(STATIC_CONFIG_SUFFIX):
        return [f'metadata.name: names ending with "{STATIC_CONFIG_SUFFIX}" are reserved for static '
                "manifest-based configurations and cannot be managed via the API"]  # fmt: skip
    return []


def _named_excluded(groups: list[str], resources: list[str],
                    excluded: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:  # fmt: skip
    """``excludedResourcesNamedByRule``: none for a wildcard group or resource."""
    if "*" in groups or "*" in resources:
        return []
    wanted = set(excluded)
    out: list[tuple[str, str]] = []
    for group in groups:
        for resource in resources:
            gr = (group, resource)
            if gr in wanted and gr not in out:
                out.append(gr)
    return out


def webhook_rules_warnings(webhooks: list[Obj], excluded: Iterable[tuple[str, str]] = EXCLUDED) -> list[str]:
    """The rules of each webhook that name an excluded resource."""
    excluded = tuple(excluded)
    out = []
    for i, hook in enumerate(webhooks):
        for j, rule in enumerate(hook.get("rules") or ()):
            for group, resource in _named_excluded(rule.get("apiGroups") or [], rule.get("resources") or [],
                                                   excluded):  # fmt: skip
                gr = f"{resource}.{group}" if group else resource
                out.append(f"webhooks[{i}].rules[{j}]: {gr} is excluded from admission webhooks; "
                           "this rule will have no effect")  # fmt: skip
    return out


@warner("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")
def webhook_configuration_warnings(cfg: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """The static suffix (on create only with manifest-based config off), then the rules."""
    out = []
    if old is not None or not gate(ctx, _MANIFEST, True):
        out += static_suffix_warnings(cfg["metadata"].get("name", ""))
    if gate(ctx, _EXCLUDE, True):
        out += webhook_rules_warnings(cfg.get("webhooks") or [])
    return out


@warner("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding")  # fmt: skip
def policy_warnings(obj: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """The policies' and bindings' static-suffix warning."""
    if old is not None or not gate(ctx, _MANIFEST, True):
        return static_suffix_warnings(obj["metadata"].get("name", ""))
    return []
