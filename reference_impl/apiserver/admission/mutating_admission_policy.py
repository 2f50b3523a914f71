"""The ``MutatingAdmissionPolicy`` admission plugin (GA, on by default): apiserver
pkg/admission/plugin/policy/mutating (plugin.go, dispatcher.go ``dispatchInvocations`` and
``dispatchOne``, the reinvocation context) over policy/generic's ``Dispatch`` (bindings,
params, ``PolicyError``), sharing the ValidatingAdmissionPolicy plugin's matching, params
and match conditions.

Reinvocation is modelled within the plugin: once any patcher ran (``Dirty``), the
``IfNeeded`` invocations that ran run once more (upstream's reinvoker re-runs the whole
mutating chain once; the reference re-runs only this plugin, the in-tree ones being
idempotent). The mutated object is defaulted again as
``dispatchOne`` does."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from celpy.adapter import json_to_cel

from reference_impl.api.resources import ResourceInfo, lookup
from reference_impl.apiserver import conversion
from reference_impl.apiserver.admission import policy_matching as pm
from reference_impl.apiserver.admission.policy_cel import (
    Activation,
    CelInputs,
    request_of,
    type_name,
    versioned,
)
from reference_impl.apiserver.admission.policy_mutation import (
    JSONPatchError,
    TypedObject,
    apply_configuration,
    apply_json_patch,
    evaluate_mutation,
    to_json,
    type_mismatches,
)
from reference_impl.apiserver.admission.policy_source import (
    Grouped,
    PolicyBindings,
    group_bindings,
)
from reference_impl.apiserver.admission.validating_admission_policy import (
    _EXEMPT,
    _attributes,
    _collect_params,
    _ConfigError,
    _fail_policy,
    _match_conditions,
    _param_info,
)
from reference_impl.apiserver.cel_authz import AuthorizerVal, authorizer_value, rbac
from reference_impl.apiserver.registry import Context, Operation, strategy_for
from reference_impl.errors import ApiError, Cause, Forbidden

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["MutatingAdmissionPolicyAdmission", "install", "mutate"]

Obj = dict[str, Any]
_V1: Final = "admissionregistration.k8s.io/v1"


def _policy_error(errors: list[str]) -> ApiError:
    """generic ``Dispatch``'s refusal: 403 with the first error as message (reason Invalid
    where the error carries it) and every error as a cause."""
    err = Forbidden(errors[0])
    if "denied request: failed to configure " not in errors[0]:
        err.reason = "Invalid"  # dispatcher.go's addConfigError(..., StatusReasonInvalid)
    err.causes = tuple(Cause("", "", m) for m in errors)
    return err


def _text(policy: Obj, binding: Obj | None, message: str) -> str:
    """``PolicyError.Error``."""
    p = policy["metadata"]["name"]
    if binding is None:
        return f'policy "{p}" denied request: {message}'
    return f"policy '{p}' with binding '{binding['metadata']['name']}' denied request: {message}"


def _mutate_one(mutation: Obj, obj: Obj, act: Activation) -> Obj:
    """``dispatchOne``: one mutation's patched object; errors raise JSONPatchError."""
    kind = mutation.get("patchType")
    if kind == "JSONPatch":
        expr = str((mutation.get("jsonPatch") or {}).get("expression") or "")
        res = evaluate_mutation(expr, act)
        if res.error:
            raise JSONPatchError(res.error)
        if not isinstance(res.value, list):
            raise JSONPatchError("type mismatch: JSONPatchType.expression should evaluate to array")
        for op in res.value:
            if isinstance(op, dict) and "value" in op and isinstance(op["value"], TypedObject):
                errs = type_mismatches(op["value"])
                if errs:
                    raise JSONPatchError("type mismatch: " + "\n".join(errs))
        return apply_json_patch(obj, [to_json(op) for op in res.value])
    if kind == "ApplyConfiguration":
        expr = str((mutation.get("applyConfiguration") or {}).get("expression") or "")
        res = evaluate_mutation(expr, act)
        if res.error:
            raise JSONPatchError(res.error)
        v = res.value
        if not isinstance(v, TypedObject) or v.type_name != "Object":
            got = v.type_name if isinstance(v, TypedObject) else type_name(v)
            raise JSONPatchError(f"must evaluate to Object but got {got}")  # compilation.go
        errs = type_mismatches(v)
        if errs:
            raise JSONPatchError("type mismatch: " + "\n".join(errs))
        return apply_configuration(obj, to_json(v))
    raise JSONPatchError(f"unsupported patch type: {kind}")


class _Invocation:
    """One (policy, binding, param) to run (generic ``PolicyInvocation``)."""

    def __init__(
        self, policy: Obj, binding: Obj, param: Obj | None, gvr: Any, gvk: Any, authz: AuthorizerVal,
        request: Obj,
    ) -> None:
        self.policy, self.binding, self.param, self.gvr, self.gvk = policy, binding, param, gvr, gvk
        self.authz = authz  # the ``authorizer`` variable (the request's user)
        self.request = request  # ``CreateAdmissionRequest``'s, one per policy (shared)


def _invocations(
    a: pm.Attributes, ctx: Context, errors: list[str], grouped: Grouped
) -> list[_Invocation]:
    out: list[_Invocation] = []
    requested = (a.resource[0], a.resource[2], a.subresource, a.namespace, a.name)
    authz = authorizer_value(ctx.user, rbac(ctx.lister_get, ctx.lister_list), requested)
    for name, bindings in grouped:
        policy = ctx.lister_get(_V1, "MutatingAdmissionPolicy", name, None)
        if policy is None:
            continue
        spec = policy.get("spec") or {}
        ok, gvr, gvk = pm.matches(spec.get("matchConstraints") or {}, a)
        if not ok:
            continue
        fail = _fail_policy(policy) != "Ignore"
        try:
            info = _param_info(policy)
        except _ConfigError as e:
            if fail:
                errors.append(_text(policy, None, f"failed to configure policy: {e}"))
            continue
        request = request_of(
            op=a.operation, kind=gvk, resource=gvr, request_kind=a.kind,
            request_resource=a.resource, subresource=a.subresource, name=a.name,
            namespace=a.namespace, user=authz.user, dry_run=ctx.dry_run,
        )  # fmt: skip
        for b in bindings:
            bspec = b.get("spec") or {}
            mr = bspec.get("matchResources")
            if mr is not None and not pm.matches(mr, a)[0]:
                continue
            try:
                params = _collect_params(info, bspec.get("paramRef"), a.namespace, ctx)
            except _ConfigError as e:
                if fail:
                    errors.append(_text(policy, b, f"failed to configure binding: {e}"))
                continue
            out += [_Invocation(policy, b, p, gvr, gvk, authz, request) for p in params]
    return out


def _run(
    inv: _Invocation, obj: Obj, a: pm.Attributes, namespace: Obj | None, errors: list[str],
    inputs: CelInputs,
) -> tuple[Obj, bool, bool]:
    """One invocation of ``dispatchInvocations``: match conditions, then the mutations in
    order, each on the previous one's result. Also whether it was invoked (its match
    conditions held) and whether a patcher ran (``VersionedAttributes.Dirty``). ``inputs``:
    the write's CEL values but the object, which changes (converted here, once a version)."""
    spec = inv.policy.get("spec") or {}
    fail = _fail_policy(inv.policy) != "Ignore"
    request = inv.request
    variables = [(str(v.get("name")), str(v.get("expression") or "")) for v in spec.get("variables") or []]  # fmt: skip
    old = inputs.versioned(a.old, inv.gvk)
    src, obj_cel = obj, json_to_cel(obj)
    act = Activation(obj, old, request, inv.param, namespace, inv.authz, inputs=inputs, object_cel=obj_cel)  # fmt: skip
    act.with_variables(variables)
    matched, err = _match_conditions(spec, act, _fail_policy(inv.policy))
    if err:
        errors.append(_text(inv.policy, inv.binding, err))
        return obj, False, False
    if not matched:
        return obj, False, False
    dirty = False
    for mutation in spec.get("mutations") or []:
        if obj is not src:  # the last mutation patched it
            src, obj_cel = obj, json_to_cel(obj)
        act = Activation(obj, old, request, inv.param, namespace, inv.authz, inputs=inputs, object_cel=obj_cel)  # fmt: skip
        act.with_variables(variables)
        try:
            obj = _mutate_one(mutation, obj, act)
            dirty = True
        except JSONPatchError as e:
            if fail:
                errors.append(_text(inv.policy, inv.binding, str(e)))
    return obj, True, dirty


def _run_versioned(
    inv: _Invocation, obj: Obj, a: pm.Attributes, namespace: Obj | None, errors: list[str],
    inputs: CelInputs,
) -> tuple[Obj, bool, bool]:
    """``_run`` on the object at the matched version, converted back to the stored one
    (dispatchInvocations' final ``Convert``)."""
    stored = obj.get("apiVersion")
    vobj = versioned(obj, inv.gvk)
    assert vobj is not None
    out, invoked, ran = _run(inv, vobj, a, namespace, errors, inputs)
    if not ran:
        return obj, invoked, ran
    if out.get("apiVersion") != stored:
        info = lookup(str(out.get("apiVersion") or ""), str(out.get("kind") or ""))
        if info is not None:
            out = conversion.to_storage(out, info)
    return out, invoked, ran


def mutate(
    op: Operation,
    info: ResourceInfo,
    obj: Obj,
    old: Obj | None,
    ctx: Context,
    grouped: Grouped | None = None,
) -> tuple[Obj, list[str]]:
    """The mutated object and the errors (already filtered by failure policy);
    ``grouped``: the bindings by policy, when the caller has listed them already."""
    a = _attributes(op, info, obj, old, ctx)
    errors: list[str] = []
    if grouped is None:
        grouped = group_bindings(ctx.lister_list(_V1, "MutatingAdmissionPolicyBinding", None))
    invocations = _invocations(a, ctx, errors, grouped)
    if not invocations:
        return obj, errors
    ns_name = "" if a.kind == ("", "v1", "Namespace") else a.namespace
    namespace = ctx.lister_get("v1", "Namespace", ns_name, None) if ns_name else None
    reinvocable: list[_Invocation] = []
    dirty = False
    inputs = CelInputs()  # old object, requests, params, namespace: converted once
    for inv in invocations:
        obj, invoked, ran = _run_versioned(inv, obj, a, namespace, errors, inputs)
        dirty = dirty or ran
        if invoked and (inv.policy.get("spec") or {}).get("reinvocationPolicy") == "IfNeeded":
            reinvocable.append(inv)
    # A patched object (Dirty) asks for one reinvocation of every IfNeeded policy invoked.
    if dirty and not errors:
        for inv in reinvocable:
            obj = _run_versioned(inv, obj, a, namespace, errors, inputs)[0]
    return obj, errors


class MutatingAdmissionPolicyAdmission:
    """``MutatingAdmissionPolicy``: apply the bound policies' mutations."""

    name = "MutatingAdmissionPolicy"

    def __init__(self) -> None:
        self._bindings = PolicyBindings()

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """Mutate ``obj`` in place; the first error refuses the request."""
        if op is Operation.DELETE or info.virtual:
            return  # no object to patch on delete (dispatcher.go skips the patchers)
        if info.group == "admissionregistration.k8s.io" and info.kind in _EXEMPT:
            return
        bindings = ctx.lister_list(_V1, "MutatingAdmissionPolicyBinding", None)
        if not bindings:
            return  # the usual case: nothing bound
        new, errors = mutate(op, info, obj, old, ctx, self._bindings.grouped(bindings))
        if errors:
            raise _policy_error(errors)
        if new is not obj and new != obj:
            obj.clear()
            obj.update(new)
            for defaulter in strategy_for(ctx.kind[2] if ctx.kind else info.kind).defaulters:
                defaulter(obj, ctx)

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """Mutating only."""
        return []


def install(server: APIServer) -> None:
    """Enable the plugin on ``server``."""
    server.admission.append(MutatingAdmissionPolicyAdmission())
