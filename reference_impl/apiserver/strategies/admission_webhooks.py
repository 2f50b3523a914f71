"""Validating/MutatingWebhookConfiguration (admissionregistration.k8s.io; the defaults of
``pkg/apis/admissionregistration/v1/defaults.go``, ``ValidateValidatingWebhookConfiguration``,
``ValidateMutatingWebhookConfiguration`` and their update variants, and the strategies'
static-suffix check of upstream v1.37.2).

matchConditions' CEL expressions are parsed but not type-checked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from reference_impl.api.formats import dns1123_subdomain_errors
from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.apiserver.strategies.admission_policies_cel import cel_causes, declared
from reference_impl.apiserver.strategies.admission_policies_rules import rule_with_operations_causes
from reference_impl.apiserver.strategies.admission_webhooks_rules import (
    admission_review_versions_causes,
    client_config_causes,
)
from reference_impl.apiserver.strategies.policy import label_selector_causes
from reference_impl.apiserver.strategies.storage import qualified_name_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["default_webhooks", "validate_webhook_configuration"]

Obj = dict[str, Any]
_KINDS: Final = ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")
_FAILURE: Final = ("Fail", "Ignore")
_MATCH: Final = ("Equivalent", "Exact")
_ALL_SIDE_EFFECTS: Final = ("None", "NoneOnDryRun", "Some", "Unknown")
_NO_SIDE_EFFECTS: Final = ("None", "NoneOnDryRun")
_REINVOCATION: Final = ("IfNeeded", "Never")
_ACCEPTED_REVIEW: Final = ("v1", "v1beta1")
_STATIC_SUFFIX: Final = ".static.k8s.io"
_MAX_MATCH_CONDITIONS: Final = 64
_MATCH_ENV: Final = declared(params=False, authorizer=True, variables=False)


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _hooks(obj: Obj | None) -> list[Obj]:
    hooks = _o(obj).get("webhooks")
    return [_o(h) for h in hooks] if isinstance(hooks, list) else []


@defaulter(*_KINDS)
def default_webhooks(obj: Obj, ctx: Context) -> None:
    """``SetDefaults_ValidatingWebhook``/``MutatingWebhook``, ``_Rule``, ``_ServiceReference``."""
    mutating = obj.get("kind") == "MutatingWebhookConfiguration"
    for hook in _hooks(obj):
        hook.setdefault("failurePolicy", "Fail")
        hook.setdefault("matchPolicy", "Equivalent")
        hook.setdefault("namespaceSelector", {})
        hook.setdefault("objectSelector", {})
        hook.setdefault("timeoutSeconds", 10)
        if mutating:
            hook.setdefault("reinvocationPolicy", "Never")
        for rule in hook.get("rules") or ():
            if isinstance(rule, dict):
                rule.setdefault("scope", "*")
        svc = _o(hook.get("clientConfig")).get("service")
        if isinstance(svc, dict):
            svc.setdefault("port", 443)


@dataclass(frozen=True, slots=True)
class _Opts:
    """``validationOptions``: create is strict; an update relaxes what the old object broke."""

    ignore_match_conditions: bool = False
    require_no_side_effects: bool = True
    require_known_review_version: bool = True
    require_unique_names: bool = True


def _update_opts(new: Obj, old: Obj) -> _Opts:
    """The options of ``Validate*WebhookConfigurationUpdate``, read from the old webhooks."""
    new_hooks, old_hooks = _hooks(new), _hooks(old)
    same_conditions = len(new_hooks) == len(old_hooks) and all(
        n.get("matchConditions") == o.get("matchConditions") for n, o in zip(new_hooks, old_hooks, strict=True)
    )
    names = [h.get("name", "") for h in old_hooks]
    return _Opts(
        ignore_match_conditions=same_conditions,
        require_no_side_effects=all(h.get("sideEffects") in _NO_SIDE_EFFECTS for h in old_hooks),
        require_known_review_version=all(
            not h.get("admissionReviewVersions") or set(h["admissionReviewVersions"]) & set(_ACCEPTED_REVIEW)
            for h in old_hooks
        ),
        require_unique_names=len(names) == len(set(names)),
    )


def _fully_qualified_name(name: str, path: str) -> list[Cause]:
    """``IsFullyQualifiedName``: a DNS subdomain of at least three segments."""
    if not name:
        return [fe.required(path)]
    errs = dns1123_subdomain_errors(name)
    if errs:
        return [fe.invalid(path, name, ",".join(errs))]
    if len(name.split(".")) < 3:
        return [fe.invalid(path, name, "should be a domain with at least three segments separated by dots")]
    return []


def _expression_causes(expression: str, path: str) -> list[Cause]:
    """The compile of ``validateMatchConditionsExpression`` (no params, an authorizer), as
    far as a parse and the declared names go: no type check."""
    return cel_causes(expression, path, _MATCH_ENV)


def _match_conditions_causes(conditions: list[Any], path: str) -> list[Cause]:
    """``validateMatchConditions``."""
    out = [fe.too_many(path, len(conditions), _MAX_MATCH_CONDITIONS)] if len(conditions) > _MAX_MATCH_CONDITIONS else []
    seen: set[str] = set()
    for i, mc in enumerate(_o(c) for c in conditions):
        p = f"{path}[{i}]"
        expression = str(mc.get("expression") or "").strip()
        out += _expression_causes(expression, f"{p}.expression") if expression else [fe.required(f"{p}.expression")]
        name = str(mc.get("name") or "")
        out += qualified_name_causes(name, f"{p}.name") if name else [fe.required(f"{p}.name")]
        if name and name in seen:
            out.append(fe.duplicate(f"{p}.name", name))
        seen.add(name)
    return out


def _policy_causes(hook: Obj, opts: _Opts, path: str, mutating: bool) -> list[Cause]:
    """The enum and range checks of ``validate*Webhook``, in upstream's order."""
    out: list[Cause] = []
    fp, mp, se = hook.get("failurePolicy"), hook.get("matchPolicy"), hook.get("sideEffects")
    if fp is not None and fp not in _FAILURE:
        out.append(fe.not_supported(f"{path}.failurePolicy", fp, _FAILURE))
    if mp is not None and mp not in _MATCH:
        out.append(fe.not_supported(f"{path}.matchPolicy", mp, _MATCH))
    allowed = _NO_SIDE_EFFECTS if opts.require_no_side_effects else _ALL_SIDE_EFFECTS
    if se is None:
        out.append(fe.required(f"{path}.sideEffects", "must specify one of " + ", ".join(allowed)))
    elif se not in allowed:
        out.append(fe.not_supported(f"{path}.sideEffects", se, allowed))
    timeout = hook.get("timeoutSeconds")
    if isinstance(timeout, int) and not 1 <= timeout <= 30:
        out.append(fe.invalid(f"{path}.timeoutSeconds", timeout, "the timeout value must be between 1 and 30 seconds"))
    for sel in ("namespaceSelector", "objectSelector"):
        if hook.get(sel) is not None:
            out += label_selector_causes(hook[sel], f"{path}.{sel}")
    rp = hook.get("reinvocationPolicy")
    if mutating and rp is not None and rp not in _REINVOCATION:
        out.append(fe.not_supported(f"{path}.reinvocationPolicy", rp, _REINVOCATION))
    return out


def _webhook_causes(hook: Obj, opts: _Opts, path: str, mutating: bool) -> list[Cause]:
    """``validateValidatingWebhook`` / ``validateMutatingWebhook``."""
    out = _fully_qualified_name(str(hook.get("name") or ""), f"{path}.name")
    for i, rule in enumerate(hook.get("rules") or ()):
        out += rule_with_operations_causes(_o(rule), f"{path}.rules[{i}]")
    out += _policy_causes(hook, opts, path, mutating)
    out += client_config_causes(_o(hook.get("clientConfig")), f"{path}.clientConfig")
    if not opts.ignore_match_conditions:
        conditions = hook.get("matchConditions")
        out += _match_conditions_causes(conditions if isinstance(conditions, list) else [], f"{path}.matchConditions")
    return out


@validator(*_KINDS)
def validate_webhook_configuration(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``validate*WebhookConfiguration`` with create's or update's options, then (on create,
    ManifestBasedAdmissionControlConfig being on by default) ``ValidateStaticSuffix``."""
    opts = _Opts() if old is None else _update_opts(obj, old)
    mutating = obj.get("kind") == "MutatingWebhookConfiguration"
    out: list[Cause] = []
    names: set[str] = set()
    for i, hook in enumerate(_hooks(obj)):
        path = f"webhooks[{i}]"
        out += _webhook_causes(hook, opts, path, mutating)
        versions = hook.get("admissionReviewVersions")
        out += admission_review_versions_causes(
            versions if isinstance(versions, list) else [], opts.require_known_review_version,
            f"{path}.admissionReviewVersions",
        )
        name = str(hook.get("name") or "")
        if opts.require_unique_names and name:
            if name in names:
                out.append(fe.duplicate(f"{path}.name", name))
            names.add(name)
    name = str(_o(obj.get("metadata")).get("name") or "")
    if old is None and name.endswith(_STATIC_SUFFIX):
        out.append(fe.invalid(
            "metadata.name", name,
            f'names ending with "{_STATIC_SUFFIX}" are reserved for static manifest-based '
            "configurations and cannot be managed via the API",
        ))
    return out
