"""What ValidatingAdmissionPolicy records in the request's audit annotations: apiserver
pkg/admission/plugin/policy/validating validator.go (the ``auditAnnotations`` part of
``Validate``) and dispatcher.go (``auditAnnotationCollector``,
``publishValidationFailureAnnotations`` for the Audit validation action)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from celpy.adapter import json_to_cel

from reference_impl.apiserver.admission.policy_cel import (
    Activation,
    compile_error,
    evaluate,
    type_name,
)

__all__ = [
    "ERROR",
    "EXCLUDE",
    "FAILURE_KEY",
    "PUBLISH",
    "AnnotationCollector",
    "AuditAnnotation",
    "ValidationFailure",
    "audit_activation",
    "evaluate_audit_annotations",
    "publish_validation_failures",
    "without_authorizer",
]

Obj = dict[str, Any]
Annotate = Callable[[str, str], None] | None
PUBLISH: Final = "publish"
ERROR: Final = "error"
EXCLUDE: Final = "exclude"
FAILURE_KEY: Final = "validation.policy.admission.k8s.io/validation_failure"
_MAX_VALUE: Final = 10 * 1024  # maxAuditAnnotationValueLength
_MAX_FAILURES: Final = 50  # maxValidationFailures


@dataclass(frozen=True, slots=True)
class AuditAnnotation:
    """``PolicyAuditAnnotation``: publish ``value``, exclude it, or fail with ``error``."""

    key: str
    action: str
    value: str = ""
    error: str = ""


def _recomposed(act: Activation, variables: list[tuple[str, str]], **bindings: Any) -> Activation:
    """``act`` less ``authorizer``, with ``bindings`` replaced; its own composition
    evaluates ``variables`` again (each ForInput composes anew)."""
    out = Activation.__new__(Activation)
    out.bindings = {k: v for k, v in act.bindings.items() if k not in ("authorizer", "variables")}
    out.bindings.update(bindings)
    out.with_variables(variables)
    return out


def without_authorizer(act: Activation, variables: list[tuple[str, str]]) -> Activation:
    """What messageExpressions see: validator.go binds them only the params."""
    return _recomposed(act, variables)


def audit_activation(
    act: Activation, namespace: Obj | None, variables: list[tuple[str, str]]
) -> Activation:
    """What the audit annotations see: no ``authorizer`` and the whole namespace, not
    ``CreateNamespaceObject``'s subset (validator.go passes it as is)."""
    return _recomposed(act, variables, namespaceObject=json_to_cel(namespace))


def evaluate_audit_annotations(policy: Obj, act: Activation) -> list[AuditAnnotation]:
    """validator.go: each ``valueExpression``'s outcome; an error fails the request unless
    the failure policy is Ignore (then it is excluded)."""
    spec = policy.get("spec") or {}
    failed = EXCLUDE if (spec.get("failurePolicy") or "Fail") == "Ignore" else ERROR
    out: list[AuditAnnotation] = []
    for a in spec.get("auditAnnotations") or []:
        key, expr = str(a.get("key") or ""), str(a.get("valueExpression") or "")
        err = compile_error(expr)
        res = None if err else evaluate(expr, act)
        if res is None or res.error:
            out.append(AuditAnnotation(key, failed, error=err or (res.error if res else "")))
        elif res.value is None:
            out.append(AuditAnnotation(key, EXCLUDE))
        elif isinstance(res.value, str):
            value = res.value.strip()
            out.append(AuditAnnotation(key, PUBLISH, value) if value else AuditAnnotation(key, EXCLUDE))
        else:
            got = "bool" if isinstance(res.value, bool) else type_name(res.value).partition("(")[0]
            out.append(AuditAnnotation(key, ERROR, error=(
                f"valueExpression '{expr}' resulted in unsupported return type: {got}. "
                "Return type must be either string or null.")))  # fmt: skip
    return out


@dataclass(slots=True)
class AnnotationCollector:
    """``auditAnnotationCollector``: one policy's published values by key, across its
    bindings and params; distinct values join with ", "."""

    values: dict[str, list[str]] = field(default_factory=dict)

    def add(self, key: str, value: str) -> None:
        """Keep ``value`` (cut to 10 KiB, as Go slices its bytes) once per key."""
        value = value.encode()[:_MAX_VALUE].decode(errors="ignore")
        seen = self.values.setdefault(key, [])
        if value not in seen:
            seen.append(value)

    def publish(self, policy_name: str, annotate: Annotate) -> None:
        """Record ``<policy>/<key>`` annotations on the request."""
        if annotate is None:
            return
        for key, values in self.values.items():
            annotate(f"{policy_name}/{key}", ", ".join(values))


@dataclass(frozen=True, slots=True)
class ValidationFailure:
    """``ValidationFailureValue``: one failed validation of a binding with Audit."""

    message: str
    policy: str
    binding: str
    expression_index: int
    validation_actions: tuple[str, ...]

    def to_json(self) -> Obj:
        """Its JSON, in the struct's field order."""
        return {
            "message": self.message,
            "policy": self.policy,
            "binding": self.binding,
            "expressionIndex": self.expression_index,
            "validationActions": list(self.validation_actions),
        }


def _go_json(value: Any) -> str:
    """``utiljson.Marshal``: compact, with encoding/json's HTML-safe escapes."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for c, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                   ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):  # fmt: skip
        text = text.replace(c, esc)
    return text


def publish_validation_failures(failures: list[ValidationFailure], annotate: Annotate) -> None:
    """``publishValidationFailureAnnotations``: the first 50 failures as one JSON list."""
    if failures and annotate is not None:
        annotate(FAILURE_KEY, _go_json([f.to_json() for f in failures[:_MAX_FAILURES]]))
