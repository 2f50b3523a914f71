"""apps/v1 DaemonSet and ControllerRevision (1.37.2): ``SetDefaults_DaemonSet``,
``ValidateDaemonSetSpec`` (selector, template, update strategy, counters), the selector's
immutability, ``validateDaemonSetStatus`` and ``ValidateControllerRevisionCreate`` /
``Update``; ``Convert_v1_DaemonSet_To_apps_DaemonSet``'s parse of the templateGeneration
annotation, and the strategy's upkeep of that generation."""

from __future__ import annotations

import json
import re
from typing import Any, Final

from reference_impl.api.meta import selector_from_label_selector
from reference_impl.apiserver.conversion.scheme import register_defaulter
from reference_impl.apiserver.equality import semantic as _sem
from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.strategies.apps import (
    _default_template,
    old_template,
    template_causes,
)
from reference_impl.apiserver.strategies.apps_deployment import positive_int_or_percent_causes
from reference_impl.apiserver.strategies.policy import label_selector_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import BadRequest, Cause

__all__: list[str] = []

Obj = dict[str, Any]
_NONNEG = "must be greater than or equal to 0"
# apps/v1 carries the internal spec.templateGeneration in this annotation.
_TGEN: Final = "deprecated.daemonset.template.generation"
_INT: Final = re.compile(r"[+-]?[0-9]+")


def _parse_int64_error(value: str) -> str | None:
    """The error of Go's ``strconv.ParseInt(value, 10, 64)``, or None."""
    if not _INT.fullmatch(value):
        return f"strconv.ParseInt: parsing {json.dumps(value, ensure_ascii=False)}: invalid syntax"
    if not -(2**63) <= int(value) < 2**63:
        return f"strconv.ParseInt: parsing {json.dumps(value, ensure_ascii=False)}: value out of range"
    return None


def _check_template_generation(obj: Obj) -> None:
    """``Convert_v1_DaemonSet_To_apps_DaemonSet``: an annotation that is no int64 fails the
    decode (a 400, as every conversion error)."""
    anns = (obj.get("metadata") or {}).get("annotations")
    value = anns.get(_TGEN) if isinstance(anns, dict) else None
    err = _parse_int64_error(value) if isinstance(value, str) else None
    if err is not None:
        raise BadRequest(f'DaemonSet in version "v1" cannot be handled as a DaemonSet: {err}')


register_defaulter("apps", "v1", "DaemonSet", _check_template_generation)


def _template_generation(obj: Obj) -> int:
    """The internal ``spec.templateGeneration``: the annotation's value, 0 without one."""
    anns = (obj.get("metadata") or {}).get("annotations")
    value = anns.get(_TGEN) if isinstance(anns, dict) else None
    return int(value) if isinstance(value, str) and _parse_int64_error(value) is None else 0


_STATUS_COUNTERS: Final = ("currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady")


@preparer("DaemonSet")
def prepare_template_generation(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """``daemonSetStrategy.PrepareForCreate``: at least 1; ``PrepareForUpdate``: the stored
    generation, plus one when the template changed (a client's value is ignored). apps/v1
    shows it as the annotation, which the conversion writes on every read. A create's
    status is the empty one."""
    if old is None:
        generation = max(_template_generation(obj), 1)
    else:
        generation = _template_generation(old)
        template = (obj.get("spec") or {}).get("template")
        if _sem(template) != _sem((old.get("spec") or {}).get("template")):
            generation += 1
    obj["metadata"].setdefault("annotations", {})[_TGEN] = str(generation)
    if old is None:  # PrepareForCreate: the empty status (its four non-omitempty counters)
        obj["status"] = dict.fromkeys(_STATUS_COUNTERS, 0)


@defaulter("DaemonSet")
def default_daemonset(obj: Obj, ctx: Context) -> None:
    """``SetDefaults_DaemonSet``: RollingUpdate with maxUnavailable 1 and maxSurge 0, a
    revision history of 10, and the template's pod defaults."""
    spec = obj.setdefault("spec", {})
    strategy = spec.setdefault("updateStrategy", {})
    if isinstance(strategy, dict):
        strategy.setdefault("type", "RollingUpdate")
        if strategy["type"] == "RollingUpdate":
            ru = strategy.get("rollingUpdate")
            if not isinstance(ru, dict):
                ru = strategy["rollingUpdate"] = {}
            ru.setdefault("maxUnavailable", 1)
            ru.setdefault("maxSurge", 0)
    spec.setdefault("revisionHistoryLimit", 10)
    template = spec.setdefault("template", {})
    if isinstance(template, dict):
        _default_template(template, ctx)


def _percent(value: Any) -> int:
    """``getIntOrPercentValue``."""
    if isinstance(value, str) and value.endswith("%") and value[:-1].isdigit():
        return int(value[:-1])
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _over_100(value: Any, path: str) -> list[Cause]:
    """``IsNotMoreThan100Percent``."""
    is_pct = isinstance(value, str) and value.endswith("%") and value[:-1].isdigit()
    if is_pct and _percent(value) > 100:
        return [fe.invalid(path, value, "must not be greater than 100%")]
    return []


def _strategy_causes(strategy: Obj) -> list[Cause]:
    """``ValidateDaemonSetUpdateStrategy`` and ``ValidateRollingUpdateDaemonSet``."""
    path = "spec.updateStrategy"
    kind = strategy.get("type")
    if kind == "OnDelete":
        return []
    if kind != "RollingUpdate":
        return [fe.not_supported(path, strategy, ("RollingUpdate", "OnDelete"))]
    ru = strategy.get("rollingUpdate")
    if not isinstance(ru, dict):
        return [fe.required(f"{path}.rollingUpdate")]
    rp = f"{path}.rollingUpdate"
    mu, ms = ru.get("maxUnavailable"), ru.get("maxSurge")
    out = positive_int_or_percent_causes(mu, f"{rp}.maxUnavailable")
    out += positive_int_or_percent_causes(ms, f"{rp}.maxSurge")
    out += _over_100(mu, f"{rp}.maxUnavailable") + _over_100(ms, f"{rp}.maxSurge")
    has_unavailable, has_surge = _percent(mu) != 0, _percent(ms) != 0
    if has_unavailable and has_surge:
        out.append(
            fe.invalid(f"{rp}.maxSurge", ms, "may not be set when maxUnavailable is non-zero")
        )
    elif not has_unavailable and not has_surge:
        out.append(fe.required(f"{rp}.maxUnavailable", "cannot be 0 when maxSurge is 0"))
    return out


@validator("DaemonSet")
def validate_daemonset(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateDaemonSetSpec`` and, on update, the immutable selector."""
    spec = obj.get("spec") or {}
    sel = spec.get("selector")
    sel_causes = label_selector_causes(sel, "spec.selector")
    out = list(sel_causes)
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
    if not sel_causes and not selector_from_label_selector(sel).matches(labels):
        msg = "`selector` does not match template `labels`"
        out.append(fe.invalid("spec.template.metadata.labels", labels, msg))
    if isinstance(sel, dict) and not (sel.get("matchLabels") or sel.get("matchExpressions")):
        out.append(fe.invalid("spec.selector", sel, "empty selector is invalid for daemonset"))
    out += template_causes(obj, ("Always",), ctx, old_template(old, "template"))
    if ((spec.get("template") or {}).get("spec") or {}).get("activeDeadlineSeconds") is not None:
        msg = "activeDeadlineSeconds in DaemonSet is not Supported"
        out.append(fe.forbidden("spec.template.spec.activeDeadlineSeconds", msg))
    for f in ("minReadySeconds", "revisionHistoryLimit"):
        v = spec.get(f)
        if isinstance(v, int) and v < 0:
            out.append(fe.invalid(f"spec.{f}", v, _NONNEG))
    strategy = spec.get("updateStrategy")
    out += _strategy_causes(strategy if isinstance(strategy, dict) else {})
    if old is not None and (old.get("spec") or {}).get("selector") != sel:
        out.append(fe.invalid("spec.selector", sel, "field is immutable"))
    return out


@validator("DaemonSet", status=True)
def validate_daemonset_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateDaemonSetStatusUpdate``: counters non-negative, collisionCount not lowered."""
    st = obj.get("status") or {}
    fields = (
        "currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady",
        "observedGeneration", "updatedNumberScheduled", "numberAvailable", "numberUnavailable",
        "collisionCount",
    )  # fmt: skip
    out = [
        fe.invalid(f"status.{f}", st[f], _NONNEG)
        for f in fields
        if isinstance(st.get(f), int) and st[f] < 0
    ]
    ocount = ((old or {}).get("status") or {}).get("collisionCount")
    count = st.get("collisionCount")
    if isinstance(ocount, int) and (not isinstance(count, int) or count < ocount):
        value = count if isinstance(count, int) else 0
        out.append(fe.invalid("status.collisionCount", value, "cannot be decremented"))
    return out


@validator("ControllerRevision")
def validate_controller_revision(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``validateControllerRevision`` (revision non-negative) plus, on create, data a JSON
    object and, on update, data immutable."""
    out: list[Cause] = []
    revision = obj.get("revision")
    if isinstance(revision, int) and revision < 0:
        out.append(fe.invalid("revision", revision, _NONNEG))
    data = obj.get("data")
    if old is not None:
        if data != old.get("data"):
            out.append(fe.invalid("data", data, "field is immutable"))
    elif data is None:
        out.append(fe.required("data", "data is mandatory"))
    elif not isinstance(data, dict):
        out.append(fe.required("data", "data must be a valid JSON object"))
    return out
