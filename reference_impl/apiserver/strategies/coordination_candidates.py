"""LeaseCandidate (coordination.k8s.io v1beta1 and v1alpha2).

Ports upstream v1.37.2's ``ValidateLeaseCandidate``, ``ValidateLeaseCandidateUpdate``,
``ValidateLeaseCandidateSpec``, ``ValidateLeaseCandidateSpecUpdate`` and
``ValidateCoordinatedLeaseStrategy`` (``pkg/apis/coordination/validation``). The strategy
(``pkg/registry/coordination/leasecandidate``) prepares nothing and has no status; the
declarative rules are ObjectMeta's (alpha, shadowed). The name rule
(``ValidLeaseCandidateName``: a config-map key) is ``strategies.meta``'s. Served whenever
its group/version is enabled: upstream gates no LeaseCandidate storage on a feature.
"""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.api.meta import label_key_errors
from reference_impl.apiserver.registry import Context, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["leasecandidate_spec_causes", "parse_semver", "strategy_causes"]

Obj = dict[str, Any]
_STRATEGIES: Final = ("OldestEmulationVersion",)
_NUM: Final = r"0|[1-9][0-9]*"
_IDENT: Final = r"[0-9A-Za-z-]+"
# blang/semver/v4 Parse: strict SemVer 2.0.0 (no "v", no leading zeros, three numbers).
_SEMVER: Final = re.compile(
    rf"^({_NUM})\.({_NUM})\.({_NUM})(?:-({_IDENT}(?:\.{_IDENT})*))?(?:\+({_IDENT}(?:\.{_IDENT})*))?$"
)
Version = tuple[int, int, int, tuple[tuple[int, int | str], ...]]
_ZERO: Final[Version] = (0, 0, 0, ())


def parse_semver(s: str) -> Version | None:
    """The version's precedence key (``semver.Parse``), or None when it is not a version."""
    m = _SEMVER.match(s)
    if m is None:
        return None
    pre: list[tuple[int, int | str]] = []
    for p in (m.group(4) or "").split(".") if m.group(4) else ():
        if p.isdigit():
            if len(p) > 1 and p.startswith("0"):
                return None  # a numeric pre-release identifier has no leading zero
            pre.append((0, int(p)))  # numeric identifiers rank below alphanumeric ones
        else:
            pre.append((1, p))
    return int(m.group(1)), int(m.group(2)), int(m.group(3)), tuple(pre)


def _less(a: Version, b: Version) -> bool:
    """``Version.LT``: by numbers, then a pre-release below its release, then identifiers."""
    if a[:3] != b[:3]:
        return a[:3] < b[:3]
    if not a[3] or not b[3]:
        return bool(a[3]) and not b[3]
    return a[3] < b[3]


def strategy_causes(strategy: str, path: str) -> list[Cause]:
    """``ValidateCoordinatedLeaseStrategy`` (upstream adds ``.strategy`` to ``path``)."""
    at = f"{path}.strategy"
    if "/" not in strategy:
        return [] if strategy in _STRATEGIES else [fe.not_supported(at, strategy, _STRATEGIES)]
    return [fe.invalid(at, strategy, e) for e in label_key_errors(strategy)]


def leasecandidate_spec_causes(spec: Obj, path: str = "spec") -> list[Cause]:
    """``ValidateLeaseCandidateSpec``: leaseName and binaryVersion required, versions
    parse, binary >= emulation, a strategy (OldestEmulationVersion needs an emulation
    version). An unparsable version counts as 0.0.0 in the comparisons, as upstream."""
    out: list[Cause] = []
    lease_name = str(spec.get("leaseName") or "")
    emulation, binary = str(spec.get("emulationVersion") or ""), str(spec.get("binaryVersion") or "")
    strategy = str(spec.get("strategy") or "")
    if not lease_name:
        out.append(fe.required(f"{path}.leaseName"))
    ev = bv = _ZERO
    if emulation:
        parsed = parse_semver(emulation)
        if parsed is None:
            out.append(fe.invalid(f"{path}.emulationVersion", emulation, "must be a valid semantic version"))
        ev = parsed or _ZERO
    if not binary:
        out.append(fe.required(f"{path}.binaryVersion"))
    else:
        parsed = parse_semver(binary)
        if parsed is None:
            out.append(fe.invalid(f"{path}.binaryVersion", binary, "must be a valid semantic version"))
        bv = parsed or _ZERO
    if binary and emulation and _less(bv, ev):
        out.append(fe.invalid(f"{path}.binaryVersion", binary, "must be greater than or equal to `emulationVersion`"))
    if not strategy:
        out.append(fe.required(f"{path}.strategy"))
    else:
        if strategy == "OldestEmulationVersion" and ev == _ZERO:
            out.append(fe.required(
                f"{path}.emulationVersion", "must be specified when `strategy` is 'OldestEmulationVersion'"
            ))
        out += strategy_causes(strategy, f"{path}.strategy")
    return out


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


@validator("LeaseCandidate")
def validate_lease_candidate(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateLeaseCandidate`` / ``ValidateLeaseCandidateUpdate`` (the spec re-checked,
    then ``spec.leaseName`` immutable)."""
    spec = _o(obj.get("spec"))
    out = leasecandidate_spec_causes(spec)
    if old is not None:
        name, old_name = spec.get("leaseName") or "", _o(old.get("spec")).get("leaseName") or ""
        if name != old_name:
            out.append(fe.invalid("spec.leaseName", name, "field is immutable"))
    return out
