"""Creates of authorization.k8s.io/v1 SubjectAccessReview, SelfSubjectAccessReview and
LocalSubjectAccessReview (v1.37.2 ``pkg/registry/authorization/*/rest.go``): request
bodies the apiserver validates and answers, never stores.

The rules are ``pkg/apis/authorization/validation``'s ``Validate*SubjectAccessReview``.
An accepted review is answered by ``rbac_authorizer`` (Node,RBAC as the live cluster
runs) over the attributes ``pkg/registry/authorization/util``'s
``AuthorizationAttributesFrom`` reads. A SelfSubjectAccessReview asks about the caller:
the reference has no authentication, so its caller is the admin its clients act as, the
live kubeconfig's user (``admin`` in ``system:masters`` and ``system:authenticated``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Final

from reference_impl.api.meta import label_key_errors, label_value_errors
from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver import keys
from reference_impl.apiserver.decode import decode
from reference_impl.apiserver.rbac_authorizer import Attributes, Getter, Lister, authorize
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list
from reference_impl.errors import Cause, Invalid

__all__ = ["KINDS", "is_review", "review"]

Obj = dict[str, Any]
_GROUP: Final = "authorization.k8s.io"
KINDS: Final = frozenset({"SubjectAccessReview", "SelfSubjectAccessReview", "LocalSubjectAccessReview"})
_ONE_OF: Final = "exactly one of nonResourceAttributes or resourceAttributes must be specified"
# The metadata a review may carry: ObjectMeta's comparison skips managedFields.
_IGNORED_META: Final = frozenset({"managedFields"})
_ZERO: Final[tuple[object, ...]] = ({}, [], "", None, 0)
# The caller a SelfSubjectAccessReview asks about (see the module docstring).
CALLER: Final[tuple[str, tuple[str, ...]]] = ("admin", ("system:masters", "system:authenticated"))


def is_review(manifest: object) -> bool:
    """Whether ``manifest`` is one of the three access reviews."""
    if not isinstance(manifest, dict) or manifest.get("kind") not in KINDS:
        return False
    return str(manifest.get("apiVersion") or "").split("/")[0] == _GROUP


def review(manifest: Obj, resolve: Callable[[str, str], ResourceInfo], get: Getter, list_: Lister) -> Obj:
    """Decode (strictly), validate and answer one review; raises Invalid/BadRequest.
    ``get``/``list_`` read the stored RBAC objects the authorizer consults."""

    def as_body(api_version: str, kind: str) -> ResourceInfo:
        # decode refuses request bodies; these three are decoded as any create is.
        return dataclasses.replace(resolve(api_version, kind), virtual=False)

    d = decode(manifest, as_body)
    obj, kind = d.obj, d.info.kind
    meta = obj["metadata"]
    ns = keys.namespace_for(d.info, meta.get("namespace"))
    if ns is None:
        meta.pop("namespace", None)  # a cluster-scoped request clears it
    else:
        meta["namespace"] = ns
    causes = _causes(kind, obj)
    if causes:
        raise Invalid(kind, "", causes)
    spec = as_dict(obj.get("spec"))
    decision = authorize(_attributes(kind, spec), get, list_)
    status: Obj = {"allowed": decision.allowed}
    if decision.reason:
        status["reason"] = decision.reason
    error = "; ".join(([decision.error] if decision.error else []) + _selector_errors(spec))
    if error:
        status["evaluationError"] = error
    obj["status"] = status
    return obj


def _attributes(kind: str, spec: Obj) -> Attributes:
    """``AuthorizationAttributesFrom`` (SelfSubjectAccessReview: the caller's)."""
    if kind == "SelfSubjectAccessReview":
        user, groups = CALLER
    else:
        user, groups = str(spec.get("user") or ""), tuple(str(g) for g in as_list(spec.get("groups")))
    extra = {str(k): [str(x) for x in as_list(v)] for k, v in as_dict(spec.get("extra")).items()}
    who = Attributes(user, groups, uid=str(spec.get("uid") or ""), extra=extra)
    res = spec.get("resourceAttributes")
    if isinstance(res, dict):
        return dataclasses.replace(who, verb=str(res.get("verb") or ""), namespace=str(res.get("namespace") or ""),
                                   api_group=str(res.get("group") or ""), resource=str(res.get("resource") or ""),
                                   subresource=str(res.get("subresource") or ""), name=str(res.get("name") or ""))  # fmt: skip
    nonres = as_dict(spec.get("nonResourceAttributes"))
    return dataclasses.replace(who, resource_request=False, verb=str(nonres.get("verb") or ""),
                               path=str(nonres.get("path") or ""))  # fmt: skip


def _selector_errors(spec: Obj) -> list[str]:
    """``BuildEvaluationError``'s selector part: requirements ``ResourceAttributesFrom``
    cannot convert (the authorizer ignores selectors otherwise). Raw selectors' parse
    errors are not modelled."""
    attrs = as_dict(spec.get("resourceAttributes"))
    out: list[str] = []
    for key, ok in (("fieldSelector", _field_req_ok), ("labelSelector", _label_req_ok)):
        sel = as_dict(attrs.get(key))
        reqs = [as_dict(r) for r in as_list(sel.get("requirements"))]
        if sel.get("rawSelector") and not reqs:
            continue
        good = [ok(r) for r in reqs]
        if not all(good):
            what = "partially ignored" if any(good) else "ignored"
            out.append(f"spec.resourceAttributes.{key} {what} due to parse error")
    return out


def _field_req_ok(req: Obj) -> bool:
    """``fieldSelectorAsSelector``: In/NotIn with exactly one value."""
    return req.get("operator") in ("In", "NotIn") and len(as_list(req.get("values"))) == 1


def _label_req_ok(req: Obj) -> bool:
    """``labelSelectorAsSelector``: a known operator and a ``labels.NewRequirement``
    that takes it (key and values were validated already)."""
    op, n = req.get("operator"), len(as_list(req.get("values")))
    if op in ("In", "NotIn"):
        return n > 0
    return op in ("Exists", "DoesNotExist") and n == 0


def _causes(kind: str, obj: Obj) -> list[Cause]:
    spec = as_dict(obj.get("spec"))
    # Semantic equality with an empty ObjectMeta: zero values (null, "", 0, {}) are unset.
    meta = {k: v for k, v in as_dict(obj.get("metadata")).items() if k not in _IGNORED_META and v not in _ZERO}
    out = _spec_causes(spec, subject=kind != "SelfSubjectAccessReview")
    if kind == "LocalSubjectAccessReview":
        # ValidateLocalSubjectAccessReview: only the namespace, which resources must name.
        ns = str(meta.pop("namespace", "") or "")
        if meta:
            out.append(fe.invalid("metadata", meta, "must be empty except for namespace"))
        attrs = spec.get("resourceAttributes")
        if isinstance(attrs, dict) and str(attrs.get("namespace") or "") != ns:
            out.append(fe.invalid("spec.resourceAttributes.namespace", attrs.get("namespace") or "",
                                  "must match metadata.namespace"))  # fmt: skip
        if spec.get("nonResourceAttributes") is not None:
            out.append(fe.invalid("spec.nonResourceAttributes", spec["nonResourceAttributes"],
                                  "disallowed on this kind of request"))  # fmt: skip
    elif meta:
        out.append(fe.invalid("metadata", meta, "must be empty"))
    return out


def _spec_causes(spec: Obj, *, subject: bool) -> list[Cause]:
    """``ValidateSubjectAccessReviewSpec`` (``subject``) or ``...SelfSubjectAccessReviewSpec``."""
    out: list[Cause] = []
    has_res, has_nonres = spec.get("resourceAttributes") is not None, spec.get("nonResourceAttributes") is not None
    if has_res == has_nonres:
        out.append(fe.invalid("spec", spec.get("nonResourceAttributes"), _ONE_OF))
    if subject and not spec.get("user") and not as_list(spec.get("groups")):
        out.append(fe.invalid("spec.user", spec.get("user") or "", "at least one of user or group must be specified"))
    attrs = spec.get("resourceAttributes")
    if isinstance(attrs, dict):
        out += _selector_causes(attrs.get("fieldSelector"), "spec.resourceAttributes.fieldSelector", label=False)
        out += _selector_causes(attrs.get("labelSelector"), "spec.resourceAttributes.labelSelector", label=True)
    return out


def _selector_causes(sel: object, path: str, *, label: bool) -> list[Cause]:
    """``validateFieldSelectorAttributes`` / ``validateLabelSelectorAttributes``: a raw
    selector or requirements, unknown operators allowed (newer clients send them)."""
    if not isinstance(sel, dict):
        return []
    out: list[Cause] = []
    raw, reqs = str(sel.get("rawSelector") or ""), as_list(sel.get("requirements"))
    if raw and reqs:
        out.append(fe.invalid(f"{path}.rawSelector", raw, "may not specified at the same time as requirements"))
    if not raw and not reqs:
        out.append(fe.required(f"{path}.requirements", f"when {path} is specified, requirements or rawSelector is required"))
    for i, req in enumerate(reqs):
        out += _requirement_causes(as_dict(req), f"{path}.requirements[{i}]", label=label)
    return out


def _requirement_causes(req: Obj, path: str, *, label: bool) -> list[Cause]:
    """``ValidateLabelSelectorRequirement`` / ``ValidateFieldSelectorRequirement`` with
    AllowUnknownOperatorInRequirement."""
    out: list[Cause] = []
    key, values = str(req.get("key") or ""), as_list(req.get("values"))
    if not label and not key:
        out.append(fe.required(f"{path}.key", "must be specified"))
    op = req.get("operator")
    if op in ("In", "NotIn") and not values:
        out.append(fe.required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    if op in ("Exists", "DoesNotExist") and values:
        out.append(fe.forbidden(f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    if label:
        out += [fe.invalid(f"{path}.key", key, e) for e in label_key_errors(key)]
        for j, v in enumerate(values):
            out += [fe.invalid(f"{path}.values[{j}]", v, e) for e in label_value_errors(str(v))]
    return out
