"""Models ``k8s.io/apiserver/pkg/quota/v1/resources.go``: ResourceList arithmetic.

Quantities keep Go's formats: a sum or difference keeps the left operand's format unless
that operand is zero, when it takes the right one's (``Quantity.Add``/``Sub``); a fresh
zero is DecimalSI (``resource.MustParse("0")``). Name lists dedupe and sort as upstream's
``Intersection``/``Difference`` do; ``ResourceNames`` has Go's random map order, here the
list's insertion order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.quantity import Quantity
from reference_impl.apiserver.quota.types import Env, ResourceList, UsageStatsOptions
from reference_impl.errors import ApiError

if TYPE_CHECKING:
    from reference_impl.apiserver.quota.types import Evaluator

__all__ = [
    "ZERO",
    "add",
    "calculate_usage",
    "contains",
    "contains_prefix",
    "difference",
    "equals",
    "from_wire",
    "intersection",
    "is_negative",
    "is_zero",
    "less_than_or_equal",
    "mask",
    "max_",
    "pretty_print",
    "pretty_print_resource_names",
    "q_add",
    "q_sub",
    "remove_zeros",
    "resource_names",
    "subtract",
    "subtract_with_non_negative_result",
    "to_set",
    "to_wire",
]

ZERO: Final = Quantity(Decimal(0), "DecimalSI")


def q_add(a: Quantity, b: Quantity) -> Quantity:
    """``a.Add(b)``: a zero receiver takes ``b``'s format."""
    return Quantity(a.amount + b.amount, b.fmt if a.amount == 0 else a.fmt)


def q_sub(a: Quantity, b: Quantity) -> Quantity:
    """``a.Sub(b)``: a zero receiver takes ``b``'s format."""
    return Quantity(a.amount - b.amount, b.fmt if a.amount == 0 else a.fmt)


def equals(a: ResourceList, b: ResourceList) -> bool:
    """``Equals``: same names, equal amounts (formats aside)."""
    return len(a) == len(b) and all(k in b and v.amount == b[k].amount for k, v in a.items())


def less_than_or_equal(a: ResourceList, b: ResourceList) -> tuple[bool, list[str]]:
    """``LessThanOrEqual``: whether ``a`` is within ``b`` for every name both have, and
    the names that exceed (sorted, where Go's order is the map's)."""
    over = sorted(k for k, v in b.items() if k in a and a[k].amount > v.amount)
    return not over, over


def max_(a: ResourceList, b: ResourceList) -> ResourceList:
    """``Max``: the larger per name (``b``'s on a tie)."""
    out = {k: (b[k] if k in b and v.amount <= b[k].amount else v) for k, v in a.items()}
    out.update({k: v for k, v in b.items() if k not in out})
    return out


def add(a: ResourceList, b: ResourceList) -> ResourceList:
    """``Add``: ``a + b`` per name."""
    out = {k: (q_add(v, b[k]) if k in b else v) for k, v in a.items()}
    out.update({k: v for k, v in b.items() if k not in out})
    return out


def subtract(a: ResourceList, b: ResourceList) -> ResourceList:
    """``Subtract``: ``a - b`` per name; a name only in ``b`` comes back negated."""
    out = {k: (q_sub(v, b[k]) if k in b else v) for k, v in a.items()}
    out.update({k: Quantity(-v.amount, v.fmt) for k, v in b.items() if k not in out})
    return out


def subtract_with_non_negative_result(a: ResourceList, b: ResourceList) -> ResourceList:
    """``SubtractWithNonNegativeResult``: like ``subtract``, a negative or zero result
    (and a name only in ``b``) being a DecimalSI zero."""
    out: ResourceList = {}
    for k, v in a.items():
        q = q_sub(v, b[k]) if k in b else v
        out[k] = q if q.amount > 0 else ZERO
    out.update({k: ZERO for k in b if k not in out})
    return out


def mask(resources: ResourceList, names: Iterable[str]) -> ResourceList:
    """``Mask``: only the named resources."""
    keep = set(names)
    return {k: v for k, v in resources.items() if k in keep}


def resource_names(resources: Mapping[str, Any]) -> list[str]:
    """``ResourceNames``."""
    return list(resources)


def contains(items: Sequence[str], item: str) -> bool:
    """``Contains``."""
    return item in items


def contains_prefix(prefixes: Iterable[str], item: str) -> bool:
    """``ContainsPrefix``: whether ``item`` starts with one of ``prefixes``."""
    return any(item.startswith(p) for p in prefixes)


def intersection(a: Sequence[str], b: Sequence[str]) -> list[str]:
    """``Intersection``: names of ``a`` also in ``b``, deduped and sorted."""
    return sorted({x for x in a if x in b})


def difference(a: Sequence[str], b: Sequence[str]) -> list[str]:
    """``Difference``: names of ``a`` not in ``b``, deduped and sorted."""
    return sorted({x for x in a if x not in b})


def is_zero(a: ResourceList) -> bool:
    """``IsZero``: every amount is zero (an empty list is)."""
    return all(v.amount == 0 for v in a.values())


def remove_zeros(a: ResourceList) -> ResourceList:
    """``RemoveZeros``."""
    return {k: v for k, v in a.items() if v.amount != 0}


def is_negative(a: ResourceList) -> list[str]:
    """``IsNegative``: the names with a negative amount."""
    return [k for k, v in a.items() if v.amount < 0]


def to_set(names: Iterable[str]) -> set[str]:
    """``ToSet``."""
    return set(names)


def from_wire(raw: object) -> ResourceList:
    """A wire ResourceList (``{"cpu": "100m"}``) parsed; unparseable entries (which
    validation reports) and a non-dict are skipped."""
    out: ResourceList = {}
    for k, v in raw.items() if isinstance(raw, dict) else ():
        try:
            out[str(k)] = Quantity.of(v)
        except (ValueError, TypeError, ArithmeticError):
            continue
    return out


def to_wire(rl: ResourceList) -> dict[str, str]:
    """The wire form: ``String()`` of each quantity, names sorted."""
    return {k: str(rl[k]) for k in sorted(rl)}


def pretty_print(rl: ResourceList) -> str:
    """The quota controller's ``prettyPrint``: sorted ``name=value`` joined by ``,``."""
    return ",".join(f"{k}={rl[k]}" for k in sorted(rl))


def pretty_print_resource_names(names: Iterable[str]) -> str:
    """``prettyPrintResourceNames``: sorted names joined by ``,``."""
    return ",".join(sorted(names))


def calculate_usage(
    namespace: str,
    scopes: Sequence[str],
    hard: ResourceList,
    env: Env,
    scope_selector: Mapping[str, Any] | None = None,
    evaluators: Sequence[Evaluator] | None = None,
    errors: list[ApiError] | None = None,
) -> ResourceList:
    """``CalculateUsage``: the usage of the namespace's stored objects for the resources
    ``hard`` names that some evaluator tracks. ``evaluators`` defaults to
    ``registry.evaluators_for_hard``; an evaluator whose listing fails (an ApiError, e.g.
    a kind not served) has its resources left out, as upstream drops them after an error,
    and the error is appended to ``errors`` (upstream's aggregate error)."""
    if evaluators is None:
        from reference_impl.apiserver.quota.registry import evaluators_for_hard  # noqa: PLC0415

        evaluators = evaluators_for_hard(list(hard), env)  # imported here: a cycle
    hard_names = resource_names(hard)
    potential = [n for e in evaluators for n in e.matching_resources(hard_names)]
    matched = intersection(hard_names, potential)
    usage: ResourceList = {}
    selector = dict(scope_selector) if scope_selector is not None else None
    for e in evaluators:
        names = e.matching_resources(matched)
        if not names:
            continue
        try:
            stats = e.usage_stats(UsageStatsOptions(namespace, list(scopes), names, selector))
        except ApiError as e:
            if errors is not None:
                errors.append(e)
            matched = difference(matched, names)
            continue
        usage = add(usage, stats)
    return mask(usage, matched)
