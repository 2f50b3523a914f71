"""The mandatory APF objects' fixed specs (``internalbootstrap.MandatoryFlowSchemas`` and
``MandatoryPriorityLevelConfigurations``, from apiserver's ``bootstrap/default.go``) and
the checks that pin them: ``ValidateFlowSchema`` and
``ValidateIfMandatoryPriorityLevelConfigurationObject``."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["mandatory_flow_schema_causes", "mandatory_priority_level_causes"]

Obj = dict[str, Any]

_ALL_RULES: Final[Obj] = {
    "resourceRules": [{
        "verbs": ["*"],
        "apiGroups": ["*"],
        "resources": ["*"],
        "namespaces": ["*"],
        "clusterScope": True,
    }],
    "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
}


def _groups(*names: str) -> list[Obj]:
    return [{"kind": "Group", "group": {"name": n}} for n in names]


_FLOW_SCHEMAS: Final[dict[str, Obj]] = {
    "exempt": {
        "priorityLevelConfiguration": {"name": "exempt"},
        "matchingPrecedence": 1,
        "rules": [{"subjects": _groups("system:masters"), **_ALL_RULES}],
    },
    "catch-all": {
        "priorityLevelConfiguration": {"name": "catch-all"},
        "matchingPrecedence": 10000,
        "distinguisherMethod": {"type": "ByUser"},
        "rules": [{"subjects": _groups("system:unauthenticated", "system:authenticated"), **_ALL_RULES}],
    },
}
# Only what ``exempt`` keeps fixed: everything but ``spec.exempt``.
_EXEMPT_LEVEL: Final[Obj] = {"type": "Exempt"}
_CATCH_ALL_LEVEL: Final[Obj] = {
    "type": "Limited",
    "limited": {"nominalConcurrencyShares": 5, "lendablePercent": 0, "limitResponse": {"type": "Reject"}},
}


def _zero(v: Any) -> bool:
    return v is None or v is False or (isinstance(v, str | list) and not v)


def _semantic(v: Any) -> Any:
    """The value as ``Semantic.DeepEqual`` sees it: an absent field, a zero string or bool
    and an empty list are one value; an empty object stays (it stands for a set pointer),
    and so does 0 (the pointer fields here that may be 0 are defaulted)."""
    if isinstance(v, dict):
        return {k: _semantic(x) for k, x in v.items() if not _zero(x)}
    if isinstance(v, list):
        return [_semantic(x) for x in v]
    return v


def mandatory_flow_schema_causes(name: str, spec: Any) -> list[Cause]:
    """``ValidateFlowSchema``: a mandatory FlowSchema's spec must equal the fixed value."""
    want = _FLOW_SCHEMAS.get(name)
    if want is None or _semantic(spec) == _semantic(want):
        return []
    return [fe.invalid("spec", spec, f"spec of '{name}' must equal the fixed value")]


def mandatory_priority_level_causes(name: str, spec: Any) -> list[Cause]:
    """``ValidateIfMandatoryPriorityLevelConfigurationObject``."""
    have = _semantic(spec if isinstance(spec, dict) else {})
    if name == "exempt":
        have.pop("exempt", None)
        if have == _EXEMPT_LEVEL:
            return []
        detail = "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value"
        return [fe.invalid("spec", spec, detail)]
    if name != "catch-all" or have == _semantic(_CATCH_ALL_LEVEL):
        return []
    return [fe.invalid("spec", spec, f"spec of '{name}' must equal the fixed value")]
