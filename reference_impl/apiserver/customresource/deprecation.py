"""A deprecated CRD version's warning (apiextensions-apiserver
``customresource_handler.go``): every request to a version with ``deprecated: true`` is
warned, ahead of the handler's own warnings, with its ``deprecationWarning`` or
``defaultDeprecationWarning``'s text, which names the most preferred served, not
deprecated, version newer than it (``version.CompareKubeAwareVersionStrings``)."""

from __future__ import annotations

import functools
import re
from typing import Any, Final

__all__ = [
    "compare_kube_aware",
    "default_deprecation_warning",
    "kube_aware_key",
    "version_warnings",
]

Obj = dict[str, Any]

_KUBE_VERSION: Final = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")
_TYPE_RANK: Final = {"alpha": 0, "beta": 1, None: 2}


def kube_aware_key(v: str) -> tuple[int, int, int, int, str]:
    """A sort key putting the most preferred version first: GA, beta, alpha (each by
    descending numbers), then the versions that are not kube-like, alphabetically."""
    m = _KUBE_VERSION.match(v)
    if m is None:
        return (1, 0, 0, 0, v)
    major, kind, minor = int(m.group(1)), m.group(2), int(m.group(3) or 0)
    return (0, -_TYPE_RANK[kind], -major, -minor, "")


def compare_kube_aware(v1: str, v2: str) -> int:
    """``CompareKubeAwareVersionStrings``: > 0 when ``v1`` is preferred (GA over beta over
    alpha, then major, then minor; kube-like over not; the others alphabetically)."""
    k1, k2 = kube_aware_key(v1), kube_aware_key(v2)
    return (k1 < k2) - (k1 > k2)


def default_deprecation_warning(version: str, spec: Obj) -> str:
    """``defaultDeprecationWarning`` of ``version`` of a CRD with ``spec``."""
    group, kind = spec.get("group", ""), (spec.get("names") or {}).get("kind", "")
    msg = f"{group}/{version} {kind} is deprecated"
    newer = [
        str(v.get("name", ""))
        for v in spec.get("versions") or ()
        if v.get("served") and not v.get("deprecated")
        and compare_kube_aware(version, str(v.get("name", ""))) < 0
    ]
    if not newer:
        return msg
    newer.sort(key=functools.cmp_to_key(compare_kube_aware), reverse=True)
    return f"{msg}; use {group}/{newer[0]} {kind}"


def version_warnings(spec: Obj, version: str) -> tuple[str, ...]:
    """The warnings of every request to ``version`` (the ``warnings`` map's entry)."""
    for v in spec.get("versions") or ():
        if v.get("name") == version and v.get("deprecated"):
            text = v.get("deprecationWarning")
            return (str(text),) if text is not None else (default_deprecation_warning(version, spec),)
    return ()
