"""Deployment spec rules of ``pkg/apis/apps/validation`` (1.37.2) beyond the shared
selector/template checks in ``apps``: the strategy, rollingUpdate bounds, and the
non-negative counters with progressDeadlineSeconds above minReadySeconds."""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.apiserver.registry import Context, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["positive_int_or_percent_causes"]

Obj = dict[str, Any]
_PERCENT: Final = re.compile(r"^[0-9]+%$")
_PERCENT_MSG: Final = (
    "a valid percent string must be a numeric string followed by an ending '%' "
    "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
)


def positive_int_or_percent_causes(value: Any, path: str) -> list[Cause]:
    """``ValidatePositiveIntOrPercent``."""
    if isinstance(value, str):
        return [] if _PERCENT.match(value) else [fe.invalid(path, value, _PERCENT_MSG)]
    if isinstance(value, int) and value < 0:
        return [fe.invalid(path, value, "must be greater than or equal to 0")]
    return []


def _int_or_percent(value: Any) -> int:
    if isinstance(value, str) and _PERCENT.match(value):
        return int(value[:-1])
    return value if isinstance(value, int) else 0


def _strategy_causes(strategy: Obj, path: str) -> list[Cause]:
    kind = strategy.get("type")
    rolling = strategy.get("rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            return [
                fe.forbidden(
                    f"{path}.rollingUpdate",
                    "may not be specified when strategy `type` is 'Recreate'",
                )
            ]
        return []
    if kind != "RollingUpdate":
        return [fe.not_supported(path, strategy, ("Recreate", "RollingUpdate"))]
    if not isinstance(rolling, dict):
        return [fe.required(f"{path}.rollingUpdate", "this should be defaulted and never be nil")]
    rp = f"{path}.rollingUpdate"
    mu, ms = rolling.get("maxUnavailable"), rolling.get("maxSurge")
    causes = positive_int_or_percent_causes(mu, f"{rp}.maxUnavailable")
    causes += positive_int_or_percent_causes(ms, f"{rp}.maxSurge")
    if _int_or_percent(mu) == 0 and _int_or_percent(ms) == 0:
        causes.append(fe.invalid(f"{rp}.maxUnavailable", mu, "may not be 0 when `maxSurge` is 0"))
    if isinstance(mu, str) and _PERCENT.match(mu) and int(mu[:-1]) > 100:
        causes.append(fe.invalid(f"{rp}.maxUnavailable", mu, "must not be greater than 100%"))
    return causes


@validator("Deployment")
def validate_deployment_spec(dep: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Strategy, minReadySeconds, revisionHistoryLimit and progressDeadlineSeconds."""
    spec = dep.get("spec") or {}
    causes = _strategy_causes(spec.get("strategy") or {}, "spec.strategy")
    for f in ("minReadySeconds", "revisionHistoryLimit", "progressDeadlineSeconds"):
        v = spec.get(f)
        if isinstance(v, int) and v < 0:
            causes.append(fe.invalid(f"spec.{f}", v, "must be greater than or equal to 0"))
    deadline, min_ready = spec.get("progressDeadlineSeconds"), spec.get("minReadySeconds") or 0
    if isinstance(deadline, int) and isinstance(min_ready, int) and deadline <= min_ready:
        causes.append(
            fe.invalid(
                "spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds"
            )
        )
    return causes
