"""Helpers over ``metav1`` shapes: label selectors, quantities, names and conditions.

Models ``k8s.io/apimachinery/pkg/labels`` and ``pkg/api/resource`` closely enough that the
reference accepts and rejects what the apiserver does for these shapes; the name formats
of ``pkg/util/validation`` (with upstream's texts) are ``api/formats.py``'s.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from reference_impl.api.formats import (
    dns1123_label_errors,
    dns1123_subdomain_errors,
    label_key_errors,
    label_value_errors,
)

__all__ = [
    "Requirement",
    "Selector",
    "condition",
    "dns1123_label_errors",
    "dns1123_subdomain_errors",
    "label_key_errors",
    "label_value_errors",
    "parse_quantity",
    "parse_selector",
    "selector_from_label_selector",
    "set_condition",
]

_SUFFIX: Final[dict[str, Decimal]] = {
    "": Decimal(1),
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "k": Decimal("1e3"),
    "M": Decimal("1e6"),
    "G": Decimal("1e9"),
    "T": Decimal("1e12"),
    "P": Decimal("1e15"),
    "E": Decimal("1e18"),
    "Ki": Decimal(2**10),
    "Mi": Decimal(2**20),
    "Gi": Decimal(2**30),
    "Ti": Decimal(2**40),
    "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
}
_QUANTITY: Final = re.compile(r"^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)([a-zA-Z]*)$")


def parse_quantity(value: object) -> Decimal:
    """Parse a ``resource.Quantity`` (``"500m"``, ``"2Gi"``, ``4``); ValueError when malformed."""
    if isinstance(value, bool):
        raise ValueError(f"quantities must match the regular expression: {value!r}")
    if isinstance(value, int | float):
        return Decimal(str(value))
    if not isinstance(value, str):
        raise ValueError(f"quantities must be a string or number, not {type(value).__name__}")
    return _parse_text(value)


@functools.lru_cache(maxsize=4096)  # a few distinct strings, parsed for every pod and node
def _parse_text(value: str) -> Decimal:
    m = _QUANTITY.match(value.strip())
    if not m or m.group(2) not in _SUFFIX or (m.group(2) and "e" in m.group(1).lower()):
        raise ValueError(
            f"quantities must match the regular expression "
            f"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': {value!r}"
        )
    try:
        return Decimal(m.group(1)) * _SUFFIX[m.group(2)]
    except InvalidOperation:
        raise ValueError(f"unable to parse quantity's suffix: {value!r}") from None


@dataclass(frozen=True, slots=True)
class Requirement:
    """One selector term: ``key op values`` with op in =, !=, in, notin, exists, !."""

    key: str
    op: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether ``labels`` satisfy this term."""
        has = self.key in labels
        if self.op in ("=", "==", "in"):
            return has and labels[self.key] in self.values
        if self.op in ("!=", "notin"):
            return not has or labels[self.key] not in self.values
        if self.op == "exists":
            return has
        if self.op == "!":
            return not has
        if self.op in ("gt", "lt"):
            if not has:
                return False
            try:
                left, right = int(labels[self.key]), int(self.values[0])
            except ValueError:
                return False
            return left > right if self.op == "gt" else left < right
        raise ValueError(f"unknown selector operator {self.op!r}")


@dataclass(frozen=True, slots=True)
class Selector:
    """A conjunction of requirements; the empty selector matches everything."""

    requirements: tuple[Requirement, ...] = ()
    nothing: bool = False

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        """Whether ``labels`` satisfy every requirement."""
        if self.nothing:
            return False
        lab = labels or {}
        return all(r.matches(lab) for r in self.requirements)


_SET_TERM: Final = re.compile(r"^\s*([^\s!=(),]+)\s+(in|notin)\s+\(([^)]*)\)\s*$")


def _split_terms(text: str) -> list[str]:
    # Commas inside "in (a, b)" do not separate terms.
    terms, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            terms.append(cur)
            cur = ""
        else:
            cur += ch
    terms.append(cur)
    return [t for t in (t.strip() for t in terms) if t]


def parse_selector(text: str | None) -> Selector:
    """Parse a string selector (``app=web,tier in (a,b),!canary``); ValueError if malformed."""
    if not text or not text.strip():
        return Selector()
    reqs = []
    for term in _split_terms(text):
        m = _SET_TERM.match(term)
        if m:
            values = tuple(sorted(v.strip() for v in m.group(3).split(",") if v.strip()))
            reqs.append(Requirement(m.group(1), m.group(2), values))
            continue
        for op in ("==", "!=", "="):
            if op in term:
                key, _, value = term.partition(op)
                reqs.append(Requirement(key.strip(), op, (value.strip(),)))
                break
        else:
            if term.startswith("!"):
                reqs.append(Requirement(term[1:].strip(), "!"))
            else:
                reqs.append(Requirement(term, "exists"))
    for r in reqs:
        if label_key_errors(r.key):
            raise ValueError(f"invalid label selector {text!r}: bad key {r.key!r}")
    return Selector(tuple(reqs))


_OPS: Final = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}


def selector_from_label_selector(sel: Mapping[str, Any] | None) -> Selector:
    """Convert a ``metav1.LabelSelector`` dict; None selects nothing, ``{}`` selects all."""
    if sel is None:
        return Selector(nothing=True)
    reqs = [Requirement(k, "=", (v,)) for k, v in sorted((sel.get("matchLabels") or {}).items())]
    for expr in sel.get("matchExpressions") or []:
        reqs.append(
            Requirement(expr["key"], _OPS[expr["operator"]], tuple(expr.get("values") or ()))
        )
    return Selector(tuple(reqs))


def condition(obj: Mapping[str, Any], ctype: str) -> dict[str, Any] | None:
    """The condition of type ``ctype`` in ``obj.status.conditions``, or None."""
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype:
            out: dict[str, Any] = c
            return out
    return None


def set_condition(status: dict[str, Any], cond: dict[str, Any], now: str) -> bool:
    """Insert or update a condition; lastTransitionTime moves only when status changes.

    Returns True when anything changed.
    """
    conds: list[dict[str, Any]] = status.setdefault("conditions", [])
    for i, old in enumerate(conds):
        if old.get("type") == cond["type"]:
            new = {**old, **cond}
            if old.get("status") != cond.get("status"):
                new["lastTransitionTime"] = now
            else:
                new["lastTransitionTime"] = old.get("lastTransitionTime", now)
            if new == old:
                return False
            conds[i] = new
            return True
    conds.append({**cond, "lastTransitionTime": now})
    return True
