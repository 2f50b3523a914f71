"""Validating/MutatingAdmissionPolicy and their bindings (admissionregistration.k8s.io;
``pkg/apis/admissionregistration/validation`` and ``pkg/registry/admissionregistration`` of
upstream v1.37.2). CEL expressions are checked for presence only, not compiled."""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.api.meta import dns1123_subdomain_errors, label_key_errors
from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.strategies.admission_policies_cel import (
    cel_causes,
    declared,
    output_type_causes,
)
from reference_impl.apiserver.strategies.admission_policies_rules import (
    match_resources_causes,
    param_kind_causes,
    param_ref_causes,
    rule_defaults,
)
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.jsonpath_syntax import parse_error as jsonpath_parse_error
from reference_impl.apiserver.validation.status_conditions import validate_conditions
from reference_impl.errors import Cause

__all__ = [
    "default_binding",
    "default_policy",
    "prepare_policy",
    "validate_mutating_binding",
    "validate_mutating_policy",
    "validate_validating_binding",
    "validate_validating_policy",
    "validate_validating_policy_status",
]

Obj = dict[str, Any]
_VAP: Final = "ValidatingAdmissionPolicy"
_MAP: Final = "MutatingAdmissionPolicy"
_FAILURE: Final = ("Fail", "Ignore")
_REASONS: Final = ("Forbidden", "Invalid", "RequestEntityTooLarge")
_ACTIONS: Final = ("Audit", "Deny", "Warn")
_MUTATING_OPS: Final = ("*", "CONNECT", "CREATE", "UPDATE")
_REINVOCATION: Final = ("IfNeeded", "Never")
_PATCH_TYPES: Final = ("ApplyConfiguration", "JSONPatch")
_MAX_AUDIT: Final = 20
_MAX_VALUE_EXPR: Final = 5 * 1024
_CEL_IDENT: Final = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")
_CEL_RESERVED: Final = frozenset(
    "true false null in as break const continue else for function if import let loop package "
    "namespace return var void while".split()
)
_NEWLINE: Final = re.compile(r"[\n\r]+")
_STATIC_SUFFIX: Final = ".static.k8s.io"


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _s(v: Any) -> str:
    return v if isinstance(v, str) else ""


@defaulter(_VAP, _MAP)
def default_policy(policy: Obj, ctx: Context) -> None:
    """``SetDefaults_*AdmissionPolicySpec``: failurePolicy Fail; matchConstraints' defaults.
    The spec is a struct value, so an absent one is defaulted too."""
    if policy.get("spec") is None:
        policy["spec"] = {}
    spec = policy["spec"]
    if not isinstance(spec, dict):
        return
    spec.setdefault("failurePolicy", "Fail")
    if isinstance(spec.get("matchConstraints"), dict):
        rule_defaults(spec["matchConstraints"])


@defaulter("ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicyBinding")
def default_binding(binding: Obj, ctx: Context) -> None:
    """``SetDefaults_MatchResources`` on matchResources when set."""
    if isinstance(_o(binding.get("spec")).get("matchResources"), dict):
        rule_defaults(binding["spec"]["matchResources"])


@preparer(_VAP, _MAP)
def prepare_policy(policy: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """PrepareForCreate/Update: a validating policy's status is not written through the spec."""
    if policy.get("kind") != _VAP:
        return
    old_status = _o(old).get("status")
    if old_status is None:
        policy.pop("status", None)
    else:
        policy["status"] = old_status


def _static_suffix(obj: Obj, old: Obj | None) -> list[Cause]:
    """On create (ManifestBasedAdmissionControlConfig is on by default): ``ValidateStaticSuffix``."""
    name = _s(_o(obj.get("metadata")).get("name"))
    if old is not None or not name.endswith(_STATIC_SUFFIX):
        return []
    detail = f'names ending with "{_STATIC_SUFFIX}" are reserved for static manifest-based configurations and cannot be managed via the API'
    return [fe.invalid("metadata.name", name, detail)]


def _failure_causes(spec: Obj) -> list[Cause]:
    fp = spec.get("failurePolicy")
    if fp is None:
        return [fe.required("spec.failurePolicy")]
    return [] if fp in _FAILURE else [fe.not_supported("spec.failurePolicy", fp, _FAILURE)]


def _constraints_causes(spec: Obj) -> list[Cause]:
    """paramKind, then matchConstraints (with at least one resourceRule)."""
    out: list[Cause] = []
    if spec.get("paramKind") is not None:
        out += param_kind_causes(_o(spec["paramKind"]), "spec.paramKind")
    match = spec.get("matchConstraints")
    if match is None:
        return out + [fe.required("spec.matchConstraints")]
    out += match_resources_causes(match, "spec.matchConstraints")
    if not _l(_o(match).get("resourceRules")):
        out.append(fe.required("spec.matchConstraints.resourceRules"))
    return out


def _match_conditions_causes(conds: list[Any], path: str, params: bool) -> list[Cause]:
    """``validateMatchConditions``: the stateless compiler, so no ``variables``."""
    names = declared(params=params, authorizer=True, variables=False)
    out = [fe.too_many(path, len(conds), 64)] if len(conds) > 64 else []
    seen: set[str] = set()
    for i, c in enumerate(_o(c) for c in conds):
        p, name, expr = f"{path}[{i}]", _s(c.get("name")), _s(c.get("expression")).strip()
        out += cel_causes(expr, f"{p}.expression", names) if expr else [fe.required(f"{p}.expression")]
        if not name:
            out.append(fe.required(f"{p}.name"))
        else:
            out += [fe.invalid(f"{p}.name", name, m) for m in label_key_errors(name)]
            out += [fe.duplicate(f"{p}.name", name)] if name in seen else []
            seen.add(name)
    return out


def _variables_causes(variables: list[Any], names: frozenset[str]) -> list[Cause]:
    """``validateVariable``: a CEL identifier and an expression."""
    out: list[Cause] = []
    for i, v in enumerate(_o(v) for v in variables):
        p, name = f"spec.variables[{i}]", _s(v.get("name"))
        if not name.strip():
            out.append(fe.required(f"{p}.name", "name is not specified"))
        elif not _CEL_IDENT.fullmatch(name) or name in _CEL_RESERVED:
            out.append(fe.invalid(f"{p}.name", name, "must be a valid CEL identifier"))
        # The composition declares each variable after compiling it: only earlier ones.
        out += _expression_causes(_s(v.get("expression")), f"{p}.expression", names, _var_names(variables[:i]))
    return out


def _var_names(variables: list[Any]) -> frozenset[str]:
    return frozenset(_s(_o(v).get("name")) for v in variables)


def _expression_causes(
    expr: str, path: str, names: frozenset[str], variables: frozenset[str] | None = None
) -> list[Cause]:
    """Required when blank ("expression is not specified"), else it must compile."""
    if not expr.strip():
        return [fe.required(path, "expression is not specified")]
    return cel_causes(expr, path, names, variables)


def _message_causes(v: Obj, p: str, names: frozenset[str]) -> list[Cause]:
    out: list[Cause] = []
    mexpr = _s(v.get("messageExpression"))
    if mexpr and not mexpr.strip():
        out.append(fe.invalid(f"{p}.messageExpression", mexpr, "must be non-empty if specified"))
    elif mexpr:
        out += cel_causes(mexpr, f"{p}.messageExpression", names)
    msg = _s(v.get("message"))
    if msg and not msg.strip():
        out.append(fe.invalid(f"{p}.message", msg, "must be non-empty if specified"))
    elif _NEWLINE.search(msg.strip()):
        out.append(fe.invalid(f"{p}.message", msg, "must not contain line breaks"))
    return out


def _validations_causes(validations: list[Any], names: frozenset[str], variables: frozenset[str]) -> list[Cause]:
    """``validateValidation``: expression, messageExpression (no ``authorizer``), message, reason."""
    out: list[Cause] = []
    msg_names = names - {"authorizer"}
    for i, v in enumerate(_o(v) for v in validations):
        p = f"spec.validations[{i}]"
        out += _expression_causes(_s(v.get("expression")), f"{p}.expression", names, variables)
        out += _message_causes(v, p, msg_names)
        reason = v.get("reason")
        if reason is not None and reason not in _REASONS:
            out.append(fe.not_supported(f"{p}.reason", reason, _REASONS))
    return out


def _audit_annotation_causes(a: Obj, name: str, p: str, names: frozenset[str]) -> list[Cause]:
    """``validateAuditAnnotation``: "<policy name>/<key>" is a qualified name."""
    key = _s(a.get("key"))
    if name:
        out = [fe.invalid(f"{p}.key", f"{name}/{key}", m) for m in label_key_errors(f"{name}/{key}")]
    else:
        out = [fe.invalid(f"{p}.key", key, "requires metadata.name be non-empty")]
    expr = _s(a.get("valueExpression")).strip()
    if not expr:
        out.append(fe.required(f"{p}.valueExpression", "valueExpression is not specified"))
    elif len(expr) > _MAX_VALUE_EXPR:
        detail = f"must not exceed {_MAX_VALUE_EXPR} bytes in length"
        out.append(fe.required(f"{p}.valueExpression", detail))
    else:
        out += cel_causes(expr, f"{p}.valueExpression", names)
    return out


def _audit_causes(annotations: list[Any], name: str, names: frozenset[str]) -> list[Cause]:
    out: list[Cause] = []
    if len(annotations) > _MAX_AUDIT:
        detail = f"must not have more than {_MAX_AUDIT} auditAnnotations"
        out.append(fe.invalid("spec.auditAnnotations", annotations, detail))
    keys: set[str] = set()
    for i, a in enumerate(_o(a) for a in annotations):
        p = f"spec.auditAnnotations[{i}]"
        out += _audit_annotation_causes(a, name, p, names)
        key = _s(a.get("key"))
        out += [fe.duplicate(f"{p}.key", key)] if key in keys else []
        keys.add(key)
    return out


def _ignore_match_conditions(new: Obj, old: Obj | None) -> bool:
    """An update that keeps paramKind and matchConditions unchanged does not revalidate them."""
    if old is None:
        return False
    spec, old_spec = _o(new.get("spec")), _o(old.get("spec"))
    same_kind = spec.get("paramKind") == old_spec.get("paramKind")
    return same_kind and (spec.get("matchConditions") or []) == (old_spec.get("matchConditions") or [])


@validator(_VAP)
def validate_validating_policy(policy: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``validateValidatingAdmissionPolicySpec``."""
    spec, name = _o(policy.get("spec")), _s(_o(policy.get("metadata")).get("name"))
    out = _failure_causes(spec) + _constraints_causes(spec)
    params = spec.get("paramKind") is not None
    if not _ignore_match_conditions(policy, old):
        out += _match_conditions_causes(_l(spec.get("matchConditions")), "spec.matchConditions", params)
    # The composition compiler (declaring ``variables``) only when the policy has variables.
    names = declared(params=params, authorizer=True, variables=bool(_l(spec.get("variables"))))
    out += _variables_causes(_l(spec.get("variables")), names)
    validations, audits = _l(spec.get("validations")), _l(spec.get("auditAnnotations"))
    if not validations and not audits:
        detail = "validations or auditAnnotations must contain at least one item"
        out += [fe.required("spec.validations", detail), fe.required("spec.auditAnnotations", detail)]
    else:
        var_names = _var_names(_l(spec.get("variables")))
        out += _validations_causes(validations, names, var_names) + _audit_causes(audits, name, names)
    return out + _static_suffix(policy, old)


def _mutating_ops_causes(match: Any, path: str) -> list[Cause]:
    """Only create, update and connect requests can be mutated."""
    return [
        fe.not_supported(f"{path}.resourceRules.operations", op, _MUTATING_OPS)
        for rule in _l(_o(match).get("resourceRules"))
        for op in _l(_o(rule).get("operations"))
        if op not in _MUTATING_OPS
    ]


def _patch_causes(m: Obj, p: str, names: frozenset[str], variables: frozenset[str]) -> list[Cause]:
    """``validateMutation``: the patch named by patchType, and not the other."""
    pt = m.get("patchType")
    if not pt:
        return [fe.required(f"{p}.patchType")]
    if pt not in _PATCH_TYPES:
        return [fe.not_supported(f"{p}.patchType", pt, _PATCH_TYPES)]
    field, other = ("jsonPatch", "applyConfiguration") if pt == "JSONPatch" else ("applyConfiguration", "jsonPatch")
    out: list[Cause] = []
    if m.get(field) is None:
        out.append(fe.required(f"{p}.{field}", f"must be specified when patchType is {pt}"))
    else:
        expr = _s(_o(m[field]).get("expression")).strip()
        path = f"{p}.{field}.expression"
        want = "list(JSONPatch)" if pt == "JSONPatch" else "Object"
        if not expr:
            out.append(fe.required(path))
        else:
            out += cel_causes(expr, path, names, variables) or output_type_causes(expr, path, want)
    if m.get(other) is not None:
        detail = f"must not be specified when patchType is {pt}"
        out.append(fe.invalid(f"{p}.{other}", f"{{{other}}}", detail))
    return out


@validator(_MAP)
def validate_mutating_policy(policy: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``validateMutatingAdmissionPolicySpec``."""
    spec = _o(policy.get("spec"))
    out = _failure_causes(spec) + _constraints_causes(spec)
    if spec.get("matchConstraints") is not None:
        out += _mutating_ops_causes(spec["matchConstraints"], "spec.matchConstraints")
    params = spec.get("paramKind") is not None
    if not _ignore_match_conditions(policy, old):
        out += _match_conditions_causes(_l(spec.get("matchConditions")), "spec.matchConditions", params)
    names = declared(params=params, authorizer=True, variables=True)
    out += _variables_causes(_l(spec.get("variables")), names)
    patch_names = declared(params=params, authorizer=True, variables=True, patch=True)
    mutations = _l(spec.get("mutations"))
    if not mutations:
        out.append(fe.required("spec.mutations", "mutations must contain at least one item"))
    for i, m in enumerate(mutations):
        out += _patch_causes(_o(m), f"spec.mutations[{i}]", patch_names, _var_names(_l(spec.get("variables"))))
    rp = spec.get("reinvocationPolicy")
    if not rp:
        out.append(fe.required("spec.reinvocationPolicy"))
    elif rp not in _REINVOCATION:
        out.append(fe.not_supported("spec.reinvocationPolicy", rp, _REINVOCATION))
    return out + _static_suffix(policy, old)


def _binding_common(spec: Obj) -> list[Cause]:
    """policyName, paramRef and matchResources."""
    name = _s(spec.get("policyName"))
    if not name:
        out = [fe.required("spec.policyName")]
    else:
        out = [fe.invalid("spec.policyName", name, m) for m in dns1123_subdomain_errors(name)]
    out += param_ref_causes(spec.get("paramRef"), "spec.paramRef")
    return out + match_resources_causes(spec.get("matchResources"), "spec.matchResources")


def _actions_causes(actions: list[Any]) -> list[Cause]:
    """``validateValidationActions``."""
    out: list[Cause] = []
    seen: set[str] = set()
    for i, a in enumerate(actions):
        p = f"spec.validationActions[{i}]"
        out += [] if a in _ACTIONS else [fe.not_supported(p, a, _ACTIONS)]
        out += [fe.duplicate(p, a)] if str(a) in seen else []
        seen.add(str(a))
    if {"Deny", "Warn"} <= seen:
        detail = (
            "must not contain both Deny and Warn (repeating the same validation failure "
            "information in the API response and headers serves no purpose)"
        )
        out.append(fe.invalid("spec.validationActions", actions, detail))
    if not seen:
        out.append(fe.required("spec.validationActions", "at least one validation action is required"))
    return out


@validator("ValidatingAdmissionPolicyBinding")
def validate_validating_binding(binding: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``validateValidatingAdmissionPolicyBindingSpec``."""
    spec = _o(binding.get("spec"))
    return _binding_common(spec) + _actions_causes(_l(spec.get("validationActions"))) + _static_suffix(binding, old)


@validator("MutatingAdmissionPolicyBinding")
def validate_mutating_binding(binding: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``validateMutatingAdmissionPolicyBindingSpec``."""
    spec = _o(binding.get("spec"))
    match = spec.get("matchResources")
    extra = _mutating_ops_causes(match, "spec.matchResources") if isinstance(match, dict) else []
    return _binding_common(spec) + extra + _static_suffix(binding, old)


def _warning_causes(w: Obj, p: str) -> list[Cause]:
    """``validateExpressionWarning``: a warning and a fieldRef (``validateFieldRef``)."""
    out = [] if _s(w.get("warning")) else [fe.required(f"{p}.warning")]
    ref = _s(w.get("fieldRef")).strip()
    if not ref:
        return [*out, fe.required(f"{p}.fieldRef")]
    err = jsonpath_parse_error(f"{{{ref}}}")
    return out + ([fe.invalid(f"{p}.fieldRef", ref, f"invalid JSONPath: {err}")] if err else [])


@validator(_VAP, status=True)
def validate_validating_policy_status(policy: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``validateValidatingAdmissionPolicyStatus``: typeChecking's warnings, then conditions."""
    status = _o(policy.get("status"))
    warnings = _l(_o(status.get("typeChecking")).get("expressionWarnings"))
    path = "status.typeChecking.expressionWarnings"
    out = [c for i, w in enumerate(warnings) for c in _warning_causes(_o(w), f"{path}[{i}]")]
    return out + validate_conditions(status.get("conditions"), "status.conditions")
