"""The ``ValidatingAdmissionPolicy`` admission plugin (GA, on by default): apiserver
pkg/admission/plugin/policy/validating (plugin.go, dispatcher.go ``Dispatch``, validator.go
``Validate``, policy_decision.go ``reasonToCode``) over policy/generic (``CollectParams``,
the excluded admission-configuration resources) and webhook/matchconditions.

Policies and bindings are read from the lister on every write; with no binding (the usual
case) nothing else is done. The Audit action and ``auditAnnotations`` are recorded through
``Context.annotate`` (``policy_audit``); ``authorizer`` checks the request's user
(``Context.user``) against the apiserver's RBAC chain (``cel_authz``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.meta import selector_from_label_selector
from reference_impl.api.resources import ResourceInfo, lookup
from reference_impl.apiserver.admission import policy_matching as pm
from reference_impl.apiserver.admission.policy_audit import (
    ERROR,
    PUBLISH,
    AnnotationCollector,
    AuditAnnotation,
    ValidationFailure,
    audit_activation,
    evaluate_audit_annotations,
    publish_validation_failures,
    without_authorizer,
)
from reference_impl.apiserver.admission.policy_cel import (
    Activation,
    CelInputs,
    compile_error,
    evaluate,
    request_of,
    type_name,
)
from reference_impl.apiserver.admission.policy_source import Grouped, PolicyBindings
from reference_impl.apiserver.cel_authz import Authorizer, authorizer_value, rbac
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.errors import ApiError, Cause, Forbidden, Invalid

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["ValidatingAdmissionPolicyAdmission", "install", "policy_error"]

Obj = dict[str, Any]
_V1: Final = "admissionregistration.k8s.io/v1"
# The admission configuration kinds no policy applies to (rules.IsExemptAdmissionConfigurationResource).
_EXEMPT: Final = frozenset(
    "ValidatingWebhookConfiguration MutatingWebhookConfiguration ValidatingAdmissionPolicy "
    "ValidatingAdmissionPolicyBinding MutatingAdmissionPolicy MutatingAdmissionPolicyBinding".split()
)
_CODES: Final = {
    "Forbidden": 403,
    "Unauthorized": 401,
    "RequestEntityTooLarge": 413,
    "Invalid": 422,
}
_MAX_MESSAGE: Final = 5 * 1024  # celconfig.MaxEvaluatedMessageExpressionSizeBytes


@dataclass(frozen=True, slots=True)
class Decision:
    """``PolicyDecision``: deny (``deny``) or admit, with its message and reason."""

    deny: bool
    message: str = ""
    reason: str = ""


class _ConfigError(Exception):
    """A policy or binding that cannot be applied (``addConfigError``)."""


def policy_error(resource: str, name: str, message: str, reason: str) -> ApiError:
    """dispatcher.go's refusal: ``admission.NewForbidden``'s text with the decision's reason
    and code (``reasonToCode``; unknown reasons are 422) and the message as the one cause."""
    text = f'{resource} "{name}" is forbidden: {message}'
    cause = Cause("", "", message)
    if reason in ("", "Invalid"):
        err: ApiError = Invalid(resource.partition(".")[0], name, [cause])
    elif reason == "Forbidden":
        err = Forbidden(text)
    else:
        err = ApiError(text)
        err.reason = reason
    err.code = _CODES.get(reason, 422)
    err.causes = (cause,)
    return err


def _fail_policy(policy: Obj) -> str:
    return str((policy.get("spec") or {}).get("failurePolicy") or "Fail")


def _gvk_text(api_version: str, kind: str) -> str:
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}, Kind={kind}"


def _param_info(policy: Obj) -> ResourceInfo | None:
    """The paramKind's resource; a _ConfigError when it names none (policy_source.go)."""
    pk = (policy.get("spec") or {}).get("paramKind")
    if not pk:
        return None
    info = lookup(str(pk.get("apiVersion") or ""), str(pk.get("kind") or ""))
    if info is None:
        text = _gvk_text(str(pk.get("apiVersion") or ""), str(pk.get("kind") or ""))
        raise _ConfigError(f"failed to find resource referenced by paramKind: '{text}'")
    return info


def _collect_params(
    info: ResourceInfo | None, ref: Obj | None, ns: str, ctx: Context
) -> list[Obj | None]:
    """generic ``CollectParams``: the params a binding evaluates with ([None]: no params)."""
    if info is None or ref is None:
        return [None]
    params_ns: str | None = None
    if info.namespaced:
        params_ns = ref.get("namespace") or ns
        if not params_ns:
            raise _ConfigError(
                "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"
            )
    elif ref.get("namespace"):
        raise _ConfigError(
            "paramRef.namespace must not be provided for a cluster-scoped `paramKind`"
        )
    params: list[Obj | None]
    if ref.get("name"):
        if ref.get("selector") is not None:
            raise _ConfigError("paramRef.name and paramRef.selector are mutually exclusive")
        got = ctx.lister_get(info.api_version, info.kind, str(ref["name"]), params_ns)
        params = [] if got is None else [got]
    elif ref.get("selector") is not None:
        sel = selector_from_label_selector(ref["selector"])
        params = [
            p for p in ctx.lister_list(info.api_version, info.kind, params_ns)
            if sel.matches((p.get("metadata") or {}).get("labels") or {})
        ]  # fmt: skip
    else:
        raise _ConfigError("one of name or selector must be provided")
    if not params and ref.get("parameterNotFoundAction") == "Deny":
        raise _ConfigError("no params found for policy binding with `Deny` parameterNotFoundAction")
    return params


def _error_decision(fail: str, message: str) -> list[Decision]:
    return [Decision(deny=fail != "Ignore", message=message)]


def _match_conditions(spec: Obj, act: Activation, fail: str) -> tuple[bool, str]:
    """matchconditions ``Match``: a false condition skips the policy; errors follow the
    failure policy (Fail: the aggregate error; Ignore: no match)."""
    errs: list[str] = []
    for cond in spec.get("matchConditions") or []:
        expr = str(cond.get("expression") or "")
        err = compile_error(expr)
        res = evaluate(expr, act) if not err else None
        if res is not None and res.error:
            err = res.error
        elif res is not None and not isinstance(res.value, bool):
            err = f"compilation error: must evaluate to bool but got {type_name(res.value)}"
        if err:
            errs.append(err)
        elif res is not None and res.value is False:
            return False, ""
    if not errs:
        return True, ""
    if fail == "Ignore":
        return False, ""
    return False, errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"


def _message(v: Obj, act: Activation) -> str:
    """The denial's message: messageExpression (a non-blank single-line string within the
    size limit), else message, else ``failed expression: <expression>``."""
    expr = v.get("messageExpression")
    if expr and not compile_error(str(expr)):
        res = evaluate(str(expr), act)
        if not res.error and isinstance(res.value, str):
            text = res.value.strip()
            if text and len(text) <= _MAX_MESSAGE and "\n" not in text:
                return text
    if str(v.get("message") or "").strip():
        return str(v["message"]).strip()
    return f"failed expression: {str(v.get('expression') or '').strip()}"


def validate_policy(
    policy: Obj, act: Activation, namespace: Obj | None = None
) -> tuple[list[Decision], list[AuditAnnotation]]:
    """validator.go ``Validate``: match conditions, then one decision per validation and
    the audit annotations (evaluated with ``namespace`` as is)."""
    spec = policy.get("spec") or {}
    fail = _fail_policy(policy)
    variables = [
        (str(v.get("name")), str(v.get("expression") or "")) for v in spec.get("variables") or []
    ]
    act.with_variables(variables)
    matched, err = _match_conditions(spec, act, fail)
    if err:
        return _error_decision(fail, err), []
    if not matched:
        return [], []
    message_act: Activation | None = None  # built for the first messageExpression
    out: list[Decision] = []
    for v in spec.get("validations") or []:
        expr = str(v.get("expression") or "")
        res = None if compile_error(expr) else evaluate(expr, act)
        if res is None:
            out += _error_decision(fail, compile_error(expr))
        elif res.error:
            out += _error_decision(fail, res.error)
        elif not isinstance(res.value, bool):  # compile.go's return-type check, found late
            out += _error_decision(
                fail, f"compilation error: must evaluate to bool but got {type_name(res.value)}"
            )
        elif res.value is not True:
            if message_act is None and v.get("messageExpression"):
                message_act = without_authorizer(act, variables)
            message = _message(v, message_act or act)
            out.append(Decision(True, message, str(v.get("reason") or "Invalid")))
        else:
            out.append(Decision(False))
    if not spec.get("auditAnnotations"):
        return out, []
    return out, evaluate_audit_annotations(policy, audit_activation(act, namespace, variables))


class ValidatingAdmissionPolicyAdmission:
    """``ValidatingAdmissionPolicy``: evaluate the bound policies; refuse or warn."""

    name = "ValidatingAdmissionPolicy"

    def __init__(self) -> None:
        self._bindings = PolicyBindings()

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """Validating only."""

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """dispatcher.go ``Dispatch``: raise the first denial; add Warn bindings' warnings."""
        if info.virtual or (info.group == "admissionregistration.k8s.io" and info.kind in _EXEMPT):
            return []
        bindings = ctx.lister_list(_V1, "ValidatingAdmissionPolicyBinding", None)
        if not bindings:
            return []  # the usual case: nothing bound
        denied = _dispatch(op, info, obj, old, ctx, self._bindings.grouped(bindings))
        if denied is not None:
            name = str((obj.get("metadata") or {}).get("name") or "")
            if ctx.name is not None:  # extractResourceName: no name, no object (a DELETE)
                name = ctx.name or "Unknown"
            raise policy_error(info.group_resource, name, *denied)
        return []


def _attributes(
    op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
) -> pm.Attributes:
    meta = obj.get("metadata") or {}
    is_ns = info.kind == "Namespace" and info.api_version == "v1"
    # The request path's namespace: a Namespace's own name, except on create (no name in it).
    ns = str(meta.get("namespace") or "")
    if is_ns:
        ns = "" if op is Operation.CREATE else str(meta.get("name") or "")
    ns_obj = None if is_ns or not ns else ctx.lister_get("v1", "Namespace", ns, None)
    labels = None if ns_obj is None else dict((ns_obj.get("metadata") or {}).get("labels") or {})
    return pm.Attributes(
        operation=op.value,
        resource=(info.group, info.version, info.plural),
        kind=ctx.kind or (info.group, info.version, info.kind),
        subresource=ctx.subresource,
        name=str(meta.get("name") or "") if ctx.name is None else ctx.name,
        namespace=ns,
        obj=obj if op is not Operation.DELETE else None,
        old=old,
        namespace_labels=labels,
    )


def _dispatch(
    op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context, grouped: Grouped
) -> tuple[str, str] | None:
    """The first denial as (message, reason), or None; warnings go to ``ctx.warn``."""
    a = _attributes(op, info, obj, old, ctx)
    denials: list[tuple[str, str]] = []
    failures: list[ValidationFailure] = []
    authorize = rbac(ctx.lister_get, ctx.lister_list)
    inputs = CelInputs()  # the write's values, converted once for every evaluation
    for policy_name, bindings in grouped:
        policy = ctx.lister_get(_V1, "ValidatingAdmissionPolicy", policy_name, None)
        if policy is not None:
            denials += _dispatch_policy(policy, bindings, a, ctx, authorize, failures, inputs)
    publish_validation_failures(failures, ctx.annotate)
    return denials[0] if denials else None


def _config_denial(policy: Obj, binding: Obj | None, err: str) -> list[tuple[str, str]]:
    """``addConfigError``: Ignore drops it; Fail denies (reason Invalid)."""
    if _fail_policy(policy) == "Ignore":
        return []
    what = "binding" if binding is not None else "policy"
    return [(_denied_text(policy, binding, f"failed to configure {what}: {err}"), "")]


def _denied_text(policy: Obj, binding: Obj | None, message: str) -> str:
    p = policy["metadata"]["name"]
    if binding is None:
        return f"ValidatingAdmissionPolicy '{p}' denied request: {message}"
    return f"ValidatingAdmissionPolicy '{p}' with binding '{binding['metadata']['name']}' denied request: {message}"


def _dispatch_policy(
    policy: Obj,
    bindings: list[Obj],
    a: pm.Attributes,
    ctx: Context,
    authorize: Authorizer,
    failures: list[ValidationFailure],
    inputs: CelInputs,
) -> list[tuple[str, str]]:
    """One policy's denials; its Audit failures go to ``failures``, its audit annotations
    to ``ctx.annotate``; ``inputs``: the write's CEL values, shared."""
    spec = policy.get("spec") or {}
    ok, gvr, gvk = pm.matches(spec.get("matchConstraints") or {}, a)
    if not ok:
        return []
    try:
        param_info = _param_info(policy)
    except _ConfigError as e:
        return _config_denial(policy, None, str(e))
    out: list[tuple[str, str]] = []
    ns_name = "" if a.kind == ("", "v1", "Namespace") else a.namespace
    namespace = ctx.lister_get("v1", "Namespace", ns_name, None) if ns_name else None
    # NewResourceAuthorizerVal: the request's own resource, not the matched one.
    requested = (a.resource[0], a.resource[2], a.subresource, a.namespace, a.name)
    request: Obj | None = None  # the same for every binding: made for the first
    collector = AnnotationCollector()
    for binding in bindings:
        bspec = binding.get("spec") or {}
        if (
            bspec.get("matchResources") is not None
            and not pm.matches(bspec["matchResources"], a)[0]
        ):
            continue
        try:
            params = _collect_params(param_info, bspec.get("paramRef"), a.namespace, ctx)
        except _ConfigError as e:
            out += _config_denial(policy, binding, str(e))
            continue
        if request is None:
            request = request_of(
                op=a.operation, kind=gvk, resource=gvr, request_kind=a.kind,
                request_resource=a.resource, subresource=a.subresource, name=a.name,
                namespace=a.namespace, user=ctx.user, dry_run=ctx.dry_run,
            )  # fmt: skip
        actions = [str(x) for x in bspec.get("validationActions") or []]
        p, b = policy["metadata"]["name"], binding["metadata"]["name"]
        for param in params:
            authz = authorizer_value(ctx.user, authorize, requested)
            obj, old = inputs.versioned(a.obj, gvk), inputs.versioned(a.old, gvk)
            act = Activation(obj, old, request, param, namespace, authz, inputs=inputs)
            decisions, annotations = validate_policy(policy, act, namespace)
            for i, d in enumerate(decisions):
                if not d.deny:
                    continue
                for action in actions:
                    if action == "Deny":
                        out.append((_denied_text(policy, binding, d.message), d.reason))
                    elif action == "Audit":
                        failures.append(ValidationFailure(d.message, str(bspec.get("policyName") or ""), b, i, tuple(actions)))  # fmt: skip
                    elif action == "Warn" and ctx.warn is not None:
                        ctx.warn(
                            f"Validation failed for ValidatingAdmissionPolicy '{p}' with binding '{b}': {d.message}"
                        )
            for ann in annotations:
                if ann.action == PUBLISH:
                    collector.add(ann.key, ann.value)
                elif ann.action == ERROR:  # with failurePolicy Fail, a denial
                    out.append((_denied_text(policy, binding, ann.error), ""))
    collector.publish(str(policy["metadata"]["name"]), ctx.annotate)
    return out


def install(server: APIServer) -> None:
    """Enable the plugin on ``server``."""
    server.admission.append(ValidatingAdmissionPolicyAdmission())
