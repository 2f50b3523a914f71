"""The imperative Workload rules of ``pkg/apis/scheduling/validation`` (1.37.2): template
names unique across the whole hierarchy, depth, one priority configuration, and a child
under every CompositePodGroupTemplate. The tags are in ``scheduling_types``."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["workload_spec_causes"]

Obj = dict[str, Any]
MAX_DEPTH: Final = 4


def _list(obj: Obj, name: str) -> list[Obj]:
    return [t for t in obj.get(name) or [] if isinstance(t, dict)]


def workload_spec_causes(spec: Obj, path: str = "spec") -> list[Cause]:
    """``ValidateWorkloadSpec``."""
    names = {str(t.get("name", "")) for t in _list(spec, "podGroupTemplates")}
    causes = _composite_list_names(path, _list(spec, "compositePodGroupTemplates"), names)
    causes += _depth(spec, f"{path}.compositePodGroupTemplates")
    causes += _priority(spec, path)
    for i, c in enumerate(_list(spec, "compositePodGroupTemplates")):
        causes += _has_child(c, f"{path}.compositePodGroupTemplates[{i}]")
    return causes


def _composite_names(cpg: Obj, path: str, names: set[str]) -> list[Cause]:
    causes: list[Cause] = []
    here: set[str] = set()
    for i, child in enumerate(_list(cpg, "podGroupTemplates")):
        name = str(child.get("name", ""))
        if name in names:
            causes.append(fe.duplicate(f"{path}.podGroupTemplates[{i}].name", name))
        here.add(name)
    names |= here
    return causes + _composite_list_names(path, _list(cpg, "compositePodGroupTemplates"), names)


def _composite_list_names(path: str, templates: list[Obj], names: set[str]) -> list[Cause]:
    causes: list[Cause] = []
    here: set[str] = set()
    for i, child in enumerate(templates):
        name = str(child.get("name", ""))
        if name in names:
            causes.append(fe.duplicate(f"{path}.compositePodGroupTemplates[{i}].name", name))
        here.add(name)
    names |= here
    for i, child in enumerate(templates):
        causes += _composite_names(child, f"{path}.compositePodGroupTemplates[{i}]", names)
    return causes


def _within_depth(cpg: Obj, depth: int) -> bool:
    if depth == MAX_DEPTH:
        return False
    return all(_within_depth(c, depth + 1) for c in _list(cpg, "compositePodGroupTemplates"))


def _depth(spec: Obj, path: str) -> list[Cause]:
    return [
        fe.invalid(
            f"{path}[{i}]",
            c.get("compositePodGroupTemplates"),
            f"maximum template hierarchy depth is {MAX_DEPTH}",
        )
        for i, c in enumerate(_list(spec, "compositePodGroupTemplates"))
        if not _within_depth(c, 1)
    ]


def _priority(spec: Obj, path: str) -> list[Cause]:
    first: list[tuple[str, Any]] = []

    def same(t: Obj) -> bool:
        value = (str(t.get("priorityClassName") or ""), t.get("priority"))
        if not first:
            first.append(value)
            return True
        return first[0] == value

    if not all(same(t) for t in _list(spec, "podGroupTemplates")):
        return [fe.invalid(path, None, "detected multiple priority configurations")]

    def composite(c: Obj) -> bool:
        return (
            same(c)
            and all(composite(x) for x in _list(c, "compositePodGroupTemplates"))
            and all(same(x) for x in _list(c, "podGroupTemplates"))
        )

    if not all(composite(c) for c in _list(spec, "compositePodGroupTemplates")):
        return [
            fe.invalid(
                path,
                None,
                "all priority and priorityClassName values must be identical, detected multiple values",
            )
        ]
    return []


def _has_child(cpg: Obj, path: str) -> list[Cause]:
    causes: list[Cause] = []
    if not _list(cpg, "podGroupTemplates") and not _list(cpg, "compositePodGroupTemplates"):
        causes.append(
            fe.invalid(
                path,
                cpg.get("name", ""),
                "must have at least one child PodGroupTemplate or CompositePodGroupTemplate",
            )
        )
    for i, c in enumerate(_list(cpg, "compositePodGroupTemplates")):
        causes += _has_child(c, f"{path}.compositePodGroupTemplates[{i}]")
    return causes
