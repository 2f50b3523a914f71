"""The PV controller's volume index (models pkg/controller/volume/persistentvolume/index.go):
volumes grouped by their set of access modes, searched from the smallest set that holds
every mode a claim asks for, so a claim gets the volume closest to what it asked for.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from reference_impl.api.pv_helpers import find_matching_volume

__all__ = [
    "access_modes_key", "all_possible_matching_access_modes", "find_best_match_for_claim", "modes_from_key",
]

Obj = dict[str, Any]
# GetAccessModesAsString's order and abbreviations.
_ABBREV: Final = (
    ("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"), ("ReadWriteOncePod", "RWOP"),
)
_BY_ABBREV: Final = {short: mode for mode, short in _ABBREV}


def access_modes_key(modes: Iterable[str]) -> str:
    """``GetAccessModesAsString``: the modes' abbreviations in a fixed order, deduplicated."""
    present = set(modes)
    return ",".join(short for mode, short in _ABBREV if mode in present)


def modes_from_key(key: str) -> list[str]:
    """``GetAccessModesFromString``."""
    return [_BY_ABBREV[s] for s in key.split(",") if s in _BY_ABBREV]


def all_possible_matching_access_modes(keys: Iterable[str], requested: Sequence[str]) -> list[list[str]]:
    """``allPossibleMatchingAccessModes``: the index's mode sets that hold every requested
    mode, fewest modes first (ties by key: upstream leaves them in map order)."""
    want = set(requested)
    matched = sorted((k for k in set(keys) if want <= set(modes_from_key(k))),
                     key=lambda k: (len(modes_from_key(k)), k))
    return [modes_from_key(k) for k in matched]


def find_best_match_for_claim(claim: Obj, volumes: Iterable[Obj], delay_binding: bool) -> Obj | None:
    """``findBestMatchForClaim``/``findByClaim``: ``FindMatchingVolume`` (no node, nothing
    excluded) over each access-mode group in turn; the first group with a match wins.
    Within a group volumes are taken by name, so equal sizes go to the first name."""
    groups: dict[str, list[Obj]] = {}
    for pv in volumes:
        groups.setdefault(access_modes_key(pv["spec"].get("accessModes") or ()), []).append(pv)
    for modes in all_possible_matching_access_modes(groups, claim["spec"].get("accessModes") or ()):
        group = sorted(groups[access_modes_key(modes)], key=lambda pv: str(pv["metadata"]["name"]))
        best = find_matching_volume(claim, group, None, (), delay_binding)
        if best is not None:
            return best
    return None
