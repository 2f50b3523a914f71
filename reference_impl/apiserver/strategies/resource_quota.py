"""Defaulting, validation and status of core/v1 ResourceQuotas: the strategy of
``pkg/registry/core/resourcequota`` and ``pkg/apis/core/validation``
ValidateResourceQuota, ValidateResourceQuotaUpdate and ValidateResourceQuotaStatusUpdate.

- Defaulting (``SetDefaults_ResourceList`` on ``spec.hard``, ``status.hard``,
  ``status.used``): every quantity is rounded up (away from zero) to milli precision; a
  ``null`` quantity decodes as zero.
- PrepareForCreate empties the status; an update keeps the stored status (the server's
  generic rule), and a /status write keeps the stored spec.
- Spec: resource names (qualified; an unprefixed one must be a standard quota resource),
  quantities (not negative; whole for object counts and extended resources), ``scopes``
  (known, valid for every standard hard resource, not conflicting) and
  ``scopeSelector.matchExpressions`` (the same, plus the operator and values rules; paths
  carry no index, as upstream's). On update ``scopes`` may not change as a set;
  ``scopeSelector`` may (1.37.2 has no rule for it).
- /status: the names and quantities of ``status.hard`` and ``status.used``. Upstream's
  ``resourceVersion`` Required never fires through the API (an unconditional update is
  given the stored version first), so it is not modelled.

1.37.2 has no option or gate here (no ``dropDisabledFields``): the VolumeAttributesClass
and CrossNamespacePodAffinity scopes are always accepted. WarningsOnCreate (request
above limit) is not modelled: the reference serves no warnings. Keys go sorted where Go
ranges over a map.
"""

from __future__ import annotations

import json
from typing import Any, Final

from reference_impl.api.quantity import format_quantity, quantity_format, quantity_value, round_away
from reference_impl.api.resource_names import is_standard_quota_resource_name
from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.strategies.limit_range import resource_name_causes
from reference_impl.apiserver.strategies.node import resource_quantity_causes
from reference_impl.apiserver.strategies.status_gates import reset_status_on_create
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["STANDARD_SCOPES", "scope_valid_for_resource", "spec_causes", "status_causes"]

Obj = dict[str, Any]
STANDARD_SCOPES: Final = frozenset({
    "Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass",
    "VolumeAttributesClass", "CrossNamespacePodAffinity",
})  # fmt: skip
_POD_SCOPES: Final = frozenset({
    "Terminating", "NotTerminating", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity",
})  # fmt: skip
_POD_COMPUTE: Final = frozenset({
    "pods", "cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory",
})  # fmt: skip
_EXISTS_ONLY: Final = frozenset(
    {"Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "CrossNamespacePodAffinity"}
)
_CONFLICTS: Final = (("BestEffort", "NotBestEffort"), ("Terminating", "NotTerminating"))
_EXISTS_MSG: Final = (
    "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, "
    "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
    "ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"
)


def scope_valid_for_resource(scope: str, resource: str) -> bool:
    """``IsResourceQuotaScopeValidForResource`` (an unknown scope allows everything)."""
    if scope in _POD_SCOPES:
        return resource in _POD_COMPUTE
    if scope == "BestEffort":
        return resource == "pods"
    if scope == "VolumeAttributesClass":
        return resource in ("persistentvolumeclaims", "requests.storage")
    return True


def _dict(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _rounded(raw: Any) -> Any:
    """``Quantity.RoundUp(-3)``: ``raw`` itself when nothing is lost."""
    if raw is None:
        return "0"
    try:
        v = quantity_value(raw)
    except ValueError:
        return raw  # the decoder answers for it
    rounded = round_away(v, -3)
    return raw if rounded == v else format_quantity(rounded, quantity_format(raw))


def _round_lists(obj: Obj, *paths: tuple[str, str]) -> None:
    for part, field in paths:
        values = _dict(obj.get(part)).get(field)
        if isinstance(values, dict):
            for k, v in values.items():
                values[k] = _rounded(v)


@defaulter("ResourceQuota")
def default_resource_quota(rq: Obj, ctx: Context) -> None:
    """``SetObjectDefaults_ResourceQuota``."""
    _round_lists(rq, ("spec", "hard"), ("status", "hard"), ("status", "used"))


@preparer("ResourceQuota", status=True)
def default_resource_quota_status(rq: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """The same defaulting of a /status body's lists (decoding defaults every body)."""
    _round_lists(rq, ("status", "hard"), ("status", "used"))


# PrepareForCreate: ``Status = ResourceQuotaStatus{}``.
preparer("ResourceQuota")(reset_status_on_create)


def _resource_list_causes(values: Any, path: str) -> list[Cause]:
    """``ValidateResourceQuotaResourceName`` and ``ValidateResourceQuantityValue`` per key."""
    causes: list[Cause] = []
    for k, v in sorted(_dict(values).items()):
        p = f"{path}[{k}]"
        causes += resource_name_causes(k, p)
        if "/" not in k and not is_standard_quota_resource_name(k):
            causes.append(fe.invalid(p, k, "must be a standard resource for quota"))
        causes += resource_quantity_causes(k, "0" if v is None else v, p)
    return causes


def _scope_causes(scopes: Any, hard: list[str]) -> list[Cause]:
    """``validateResourceQuotaScopes``: every cause at ``spec.scopes``, naming the list."""
    if not isinstance(scopes, list) or not scopes:
        return []
    causes: list[Cause] = []
    names = ["" if s is None else str(s) for s in scopes]
    for scope in names:
        if scope not in STANDARD_SCOPES:
            causes.append(fe.invalid("spec.scopes", scopes, "unsupported scope"))
        for k in hard:
            if is_standard_quota_resource_name(k) and not scope_valid_for_resource(scope, k):
                causes.append(fe.invalid("spec.scopes", scopes, "unsupported scope applied to resource"))  # fmt: skip
    for pair in _CONFLICTS:
        if set(pair) <= set(names):
            causes.append(fe.invalid("spec.scopes", scopes, "conflicting scopes"))
    return causes


def _go_selector(selector: Obj) -> str:
    """The internal ``*ScopeSelector`` as ``json.Marshal`` prints it (Go field names)."""
    exprs = selector.get("matchExpressions")
    out = None
    if isinstance(exprs, list):
        out = [
            {"ScopeName": e.get("scopeName") or "", "Operator": e.get("operator") or "",
             "Values": e.get("values")}
            for e in (_dict(x) for x in exprs)
        ]  # fmt: skip
    return json.dumps({"MatchExpressions": out}, separators=(",", ":"))


def _selector_causes(spec: Obj, hard: list[str]) -> list[Cause]:
    """``validateScopeSelector`` and ``validateScopedResourceSelectorRequirement``."""
    selector = spec.get("scopeSelector")
    if not isinstance(selector, dict):
        return []
    path = "spec.scopeSelector.matchExpressions"
    causes: list[Cause] = []
    seen: set[str] = set()
    for req in (_dict(r) for r in selector.get("matchExpressions") or ()):
        scope, op = str(req.get("scopeName") or ""), str(req.get("operator") or "")
        values = req.get("values")
        if scope not in STANDARD_SCOPES:
            causes.append(fe.invalid(f"{path}.scopeName", scope, "unsupported scope"))
        for k in hard:
            if is_standard_quota_resource_name(k) and not scope_valid_for_resource(scope, k):
                causes.append(Cause(path, "FieldValueInvalid", f"Invalid value: {_go_selector(selector)}: unsupported scope applied to resource"))  # fmt: skip
        if scope in _EXISTS_ONLY and op != "Exists":
            causes.append(fe.invalid(f"{path}.operator", op, _EXISTS_MSG))
        if op in ("In", "NotIn"):
            if not values:
                causes.append(fe.required(f"{path}.values", "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"))  # fmt: skip
        elif op in ("Exists", "DoesNotExist"):
            if values:
                causes.append(fe.invalid(f"{path}.values", values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"))  # fmt: skip
        else:
            causes.append(fe.invalid(f"{path}.operator", op, "not a valid selector operator"))
        seen.add(scope)
    for pair in _CONFLICTS:
        if set(pair) <= seen:
            causes.append(fe.invalid(path, spec.get("scopes"), "conflicting scopes"))
    return causes


def spec_causes(spec: Obj) -> list[Cause]:
    """``ValidateResourceQuotaSpec``."""
    hard = sorted(_dict(spec.get("hard")))
    return (
        _resource_list_causes(spec.get("hard"), "spec.hard")
        + _scope_causes(spec.get("scopes"), hard)
        + _selector_causes(spec, hard)
    )


def status_causes(status: Obj) -> list[Cause]:
    """``ValidateResourceQuotaStatus``."""
    return _resource_list_causes(status.get("hard"), "status.hard") + _resource_list_causes(
        status.get("used"), "status.used"
    )


def _scope_set(spec: Obj) -> set[str]:
    return {"" if s is None else str(s) for s in spec.get("scopes") or ()}


@validator("ResourceQuota")
def validate_resource_quota(rq: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateResourceQuota`` on create; ``ValidateResourceQuotaUpdate`` on update: the
    spec again, and ``spec.scopes`` immutable as a set."""
    spec = _dict(rq.get("spec"))
    causes = spec_causes(spec)
    if old is None:
        return causes + status_causes(_dict(rq.get("status")))
    if _scope_set(spec) != _scope_set(_dict(old.get("spec"))):
        causes.append(fe.invalid("spec.scopes", spec.get("scopes"), "field is immutable"))
    return causes


@validator("ResourceQuota", status=True)
def validate_resource_quota_status(rq: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateResourceQuotaStatusUpdate`` (metadata is the stored one here)."""
    return status_causes(_dict(rq.get("status")))
