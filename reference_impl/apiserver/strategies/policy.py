"""Defaulting and validation for policy/v1 PodDisruptionBudget
(``pkg/registry/policy/poddisruptionbudget`` and ``pkg/apis/policy/validation``).

Create never keeps a user's status: a new PDB is stored with the zero status (the four
counters 0), which the disruption controller then fills. ``minAvailable`` and
``maxUnavailable`` are exclusive, each a non-negative integer or a percentage of at most
100%; the selector's operators are checked; the status counters may not be negative.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from reference_impl.api.meta import label_key_errors, label_value_errors
from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.apiserver.validation.status_conditions import validate_conditions
from reference_impl.errors import Cause

__all__ = ["ZERO_STATUS", "int_or_percent_causes", "label_selector_causes"]

Obj = dict[str, Any]
ZERO_STATUS: Final = {
    "currentHealthy": 0,
    "desiredHealthy": 0,
    "disruptionsAllowed": 0,
    "expectedPods": 0,
}
_PERCENT: Final = re.compile(r"^[0-9]+%$")
_POLICIES: Final = ("AlwaysAllow", "IfHealthyBudget")


@defaulter("PodDisruptionBudget")
def reset_status_on_create(obj: Obj, ctx: Context) -> None:
    """``PrepareForCreate``: a new PDB starts from the zero status."""
    meta = obj.get("metadata") or {}
    if ctx.get("policy/v1", "PodDisruptionBudget", meta.get("name", ""), meta.get("namespace")):
        return  # an update: the server already carried the stored status over
    obj["status"] = dict(ZERO_STATUS)


def int_or_percent_causes(value: object, path: str) -> list[Cause]:
    """``ValidatePositiveIntOrPercent`` plus ``IsNotMoreThan100Percent``."""
    shown = f"{value!r}" if isinstance(value, str) else str(value)
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return [Cause(path, "FieldValueInvalid", "must be an integer or percentage (e.g '5%')")]
    if isinstance(value, int):
        if value < 0:
            return [
                Cause(
                    path,
                    "FieldValueInvalid",
                    f"Invalid value: {value}: must be greater than or equal to 0",
                )
            ]
        return []
    if not _PERCENT.match(value):
        return [
            Cause(
                path,
                "FieldValueInvalid",
                f"Invalid value: {shown}: a valid percent string must be a numeric string "
                "followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is "
                "'[0-9]+%')",
            )
        ]
    if int(value[:-1]) > 100:
        return [
            Cause(
                path, "FieldValueInvalid", f"Invalid value: {shown}: must not be greater than 100%"
            )
        ]
    return []


def label_selector_causes(sel: object, path: str, *, allow_invalid_values: bool = False) -> list[Cause]:
    """``ValidateLabelSelector``: matchLabels as ValidateLabels, each requirement's
    operator, values, key and (unless ``allow_invalid_values``:
    AllowInvalidLabelValueInSelector) values' format."""
    if not isinstance(sel, dict):
        return []
    out: list[Cause] = []
    for k, v in sorted((sel.get("matchLabels") or {}).items()):
        # ValidateLabels at matchLabels: key and value errors name the map, not the key.
        out += [
            Cause(f"{path}.matchLabels", "FieldValueInvalid", f"Invalid value: {json.dumps(k)}: {e}")
            for e in label_key_errors(str(k))
        ]
        out += [
            Cause(f"{path}.matchLabels", "FieldValueInvalid", f"Invalid value: {json.dumps(v)}: {e}")
            for e in label_value_errors(str(v))
        ]
    for i, expr in enumerate(sel.get("matchExpressions") or ()):
        p = f"{path}.matchExpressions[{i}]"
        op, values = expr.get("operator"), expr.get("values") or []
        if op in ("In", "NotIn"):
            if not values:
                out.append(
                    Cause(
                        f"{p}.values",
                        "FieldValueRequired",
                        "must be specified when `operator` is 'In' or 'NotIn'",
                    )
                )
        elif op in ("Exists", "DoesNotExist"):
            if values:
                out.append(
                    Cause(
                        f"{p}.values",
                        "FieldValueForbidden",
                        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    )
                )
        else:
            out.append(
                Cause(
                    f"{p}.operator",
                    "FieldValueInvalid",
                    f'Invalid value: "{op}": not a valid selector operator',
                )
            )
        key = str(expr.get("key") or "")
        out += [
            Cause(f"{p}.key", "FieldValueInvalid", f"Invalid value: {key!r}: {e}")
            for e in label_key_errors(key)
        ]
        for j, v in enumerate([] if allow_invalid_values else values):
            out += [
                Cause(f"{p}.values[{j}]", "FieldValueInvalid", f"Invalid value: {v!r}: {e}")
                for e in label_value_errors(str(v))
            ]
    return out


@validator("PodDisruptionBudget")
def validate_pdb(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidatePodDisruptionBudgetSpec``."""
    spec = obj.get("spec") or {}
    out: list[Cause] = []
    has_min, has_max = spec.get("minAvailable") is not None, spec.get("maxUnavailable") is not None
    if has_min and has_max:
        out.append(
            Cause("spec", "FieldValueInvalid", "minAvailable and maxUnavailable cannot be both set")
        )
    if has_min:
        out += int_or_percent_causes(spec["minAvailable"], "spec.minAvailable")
    if has_max:
        out += int_or_percent_causes(spec["maxUnavailable"], "spec.maxUnavailable")
    out += label_selector_causes(spec.get("selector"), "spec.selector")
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in _POLICIES:
        out.append(
            Cause(
                "spec.unhealthyPodEvictionPolicy",
                "FieldValueNotSupported",
                f'Unsupported value: "{policy}": supported values: "AlwaysAllow", "IfHealthyBudget"',
            )
        )
    return out


@validator("PodDisruptionBudget", status=True)
def validate_pdb_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidatePodDisruptionBudgetStatusUpdate``: metav1 conditions, and (policy/v1)
    the counters are non-negative."""
    st = obj.get("status") or {}
    return validate_conditions(st.get("conditions"), "status.conditions") + [
        Cause(
            f"status.{f}",
            "FieldValueInvalid",
            f"Invalid value: {st[f]}: must be greater than or equal to 0",
        )
        for f in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")
        if isinstance(st.get(f), int) and st[f] < 0
    ]
