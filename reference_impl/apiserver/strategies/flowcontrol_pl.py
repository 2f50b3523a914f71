"""PriorityLevelConfiguration (flowcontrol.apiserver.k8s.io/v1): upstream v1.37.2's
``ValidatePriorityLevelConfiguration`` and the v1 defaults. The union rules upstream marks
covered by declarative validation answer as the declarative ones do: a member the
discriminator does not name is Forbidden whatever the discriminator holds."""

from __future__ import annotations

import math
from typing import Any, Final

from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.apiserver.strategies.flowcontrol_mandatory import (
    mandatory_priority_level_causes,
)
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["conditions_causes", "default_priority_level", "validate_priority_level"]

Obj = dict[str, Any]
_TYPES: Final = ("Exempt", "Limited")
_RESPONSES: Final = ("Queue", "Reject")
_MAX_QUEUES: Final = 10_000_000
_MAX_HASH_BITS: Final = 60
_ROUNDTRIP: Final = "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares"
_QUEUING_DEFAULTS: Final = (("handSize", 8), ("queues", 64), ("queueLengthLimit", 50))


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


@defaulter("PriorityLevelConfiguration")
def default_priority_level(pl: Obj, ctx: Context) -> None:
    """``SetDefaults_ExemptPriorityLevelConfiguration``, ``..._LimitedPriorityLevelConfiguration``
    and ``SetDefaults_QueuingConfiguration``, on the members that are set."""
    spec = _o(pl.get("spec"))
    exempt, limited = spec.get("exempt"), spec.get("limited")
    if isinstance(exempt, dict):
        exempt.setdefault("nominalConcurrencyShares", 0)
        exempt.setdefault("lendablePercent", 0)
    if not isinstance(limited, dict):
        return
    limited.setdefault("nominalConcurrencyShares", 30)
    limited.setdefault("lendablePercent", 0)
    queuing = _o(limited.get("limitResponse")).get("queuing")
    if isinstance(queuing, dict):
        for f, v in _QUEUING_DEFAULTS:
            if not _int(queuing.get(f)):
                queuing[f] = v


def _type_causes(spec: Obj, name: str) -> list[Cause]:
    """``ValidatePriorityLevelConfigurationSpec``'s discriminator and union members."""
    t, out = str(spec.get("type") or ""), []
    if (name == "exempt") != (t == "Exempt"):
        out.append(fe.invalid("spec.type", t, "must be 'Exempt' if and only if `name` is 'exempt'"))
    if not t:
        out.append(fe.required("spec.type"))
    elif t not in _TYPES:
        out.append(fe.not_supported("spec.type", t, _TYPES))
    limited, exempt = spec.get("limited"), spec.get("exempt")
    if limited is not None and t != "Limited":
        out.append(fe.forbidden("spec.limited"))
    if exempt is not None and t != "Exempt":
        out.append(fe.forbidden("spec.exempt"))
    if t == "Exempt" and isinstance(exempt, dict):
        out += _exempt_causes(exempt)
    if t == "Limited":
        if limited is None:
            out.append(fe.required("spec.limited"))
        else:
            out += _limited_causes(_o(limited))
    elif isinstance(limited, dict):
        # Declarative validation (beta in 1.37) walks a forbidden member too: limitResponse's
        # required type and its mode-dependent queuing.
        out += _limit_response_mode_causes(_o(limited.get("limitResponse")), "spec.limited.limitResponse")
    return out


def _limit_response_mode_causes(lr: Obj, path: str) -> list[Cause]:
    """The ``+k8s:required``/``+k8s:modeDiscriminator`` tags of LimitResponse."""
    t, queuing, out = str(lr.get("type") or ""), lr.get("queuing"), []
    if queuing is not None and t != "Queue":
        out.append(fe.forbidden(f"{path}.queuing"))
    if t == "Queue" and queuing is None:
        out.append(fe.required(f"{path}.queuing"))
    if not t:
        out.append(fe.required(f"{path}.type"))
    return out


def _lendable(v: int | None, path: str) -> list[Cause]:
    if v is not None and not 0 <= v <= 100:
        return [fe.invalid(path, v, "must be between 0 and 100, inclusive")]
    return []


def _exempt_causes(exempt: Obj) -> list[Cause]:
    """``ValidateExemptPriorityLevelConfiguration``."""
    shares, out = _int(exempt.get("nominalConcurrencyShares")), []
    if shares is not None and shares < 0:
        out.append(fe.invalid("spec.exempt.nominalConcurrencyShares", shares, "must be a non-negative integer"))
    return out + _lendable(_int(exempt.get("lendablePercent")), "spec.exempt.lendablePercent")


def _limited_causes(limited: Obj) -> list[Cause]:
    """``ValidateLimitedPriorityLevelConfiguration`` (v1 names the shares field nominal...)."""
    shares, out = _int(limited.get("nominalConcurrencyShares")) or 0, []
    if shares < 0:
        out.append(fe.invalid("spec.limited.nominalConcurrencyShares", shares, "must be a non-negative integer"))
    out += _limit_response_causes(_o(limited.get("limitResponse")), "spec.limited.limitResponse")
    out += _lendable(_int(limited.get("lendablePercent")), "spec.limited.lendablePercent")
    borrowing = _int(limited.get("borrowingLimitPercent"))
    if borrowing is not None and borrowing < 0:
        out.append(fe.invalid("spec.limited.borrowingLimitPercent", borrowing, "if specified, must be a non-negative integer"))
    return out


def _limit_response_causes(lr: Obj, path: str) -> list[Cause]:
    """``ValidateLimitResponse``: the mode rules, the queuing limits and the type's values."""
    t, queuing = str(lr.get("type") or ""), lr.get("queuing")
    out = _limit_response_mode_causes(lr, path)
    if t == "Queue" and queuing is not None:
        out += _queuing_causes(_o(queuing), f"{path}.queuing")
    elif t and t not in ("Queue", "Reject"):
        out.append(fe.not_supported(f"{path}.type", t, _RESPONSES))
    return out


def _queuing_causes(q: Obj, path: str) -> list[Cause]:
    """``ValidatePriorityLevelQueuingConfiguration``: limits and shuffle-sharding entropy."""
    limit, queues, hand = (_int(q.get(f)) or 0 for f in ("queueLengthLimit", "queues", "handSize"))
    out = [fe.invalid(f"{path}.queueLengthLimit", limit, "must be positive")] if limit <= 0 else []
    if queues <= 0:
        out.append(fe.invalid(f"{path}.queues", queues, "must be positive"))
    elif queues > _MAX_QUEUES:
        out.append(fe.invalid(f"{path}.queues", queues, f"must not be greater than {_MAX_QUEUES}"))
    hp = f"{path}.handSize"
    if hand <= 0:
        out.append(fe.invalid(hp, hand, "must be positive"))
    elif hand > queues:
        out.append(fe.invalid(hp, hand, f"should not be greater than queues ({queues})"))
    elif math.ceil(math.log2(queues) * hand) > _MAX_HASH_BITS:
        msg = f"required entropy bits of deckSize {queues} and handSize {hand} should not be greater than {_MAX_HASH_BITS}"
        out.append(fe.invalid(hp, hand, msg))
    return out


def conditions_causes(status: Any) -> list[Cause]:
    """``ValidateFlowSchemaStatus`` / ``ValidatePriorityLevelConfigurationStatus``:
    condition types present and unique."""
    seen: set[str] = set()
    out: list[Cause] = []
    for i, c in enumerate(_list(_o(status).get("conditions"))):
        t, path = str(_o(c).get("type") or ""), f"status.conditions[{i}].type"
        if t in seen:
            out.append(fe.duplicate(path, t))
        seen.add(t)
        if not t:
            out.append(fe.required(path))
    return out


@validator("PriorityLevelConfiguration")
def validate_priority_level(pl: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidatePriorityLevelConfiguration`` (create and update alike), less the metadata
    checks."""
    meta = _o(pl.get("metadata"))
    out: list[Cause] = []
    if _ROUNDTRIP in _o(meta.get("annotations")):
        out.append(fe.forbidden("metadata.annotations", f"annotation '{_ROUNDTRIP}' is forbidden"))
    name = str(meta.get("name") or "")
    out += _type_causes(_o(pl.get("spec")), name) + mandatory_priority_level_causes(name, pl.get("spec"))
    return out + conditions_causes(pl.get("status"))
