"""``framework.NewPodInfo``'s parse errors for inter-pod terms: a label selector whose
values are not valid label values fails PreFilter (UnschedulableAndUnresolvable) and
PreScore (Error), as upstream; the reference compiles selectors without checking them."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.formats import label_value_errors

__all__ = ["affinity_parse_error"]

Obj = dict[str, Any]

_GROUPS: Final = (
    ("podAffinity", False, "requiredAffinityTerms"), ("podAntiAffinity", False, "requiredAntiAffinityTerms"),
    ("podAffinity", True, "preferredAffinityTerms"), ("podAntiAffinity", True, "preferredAntiAffinityTerms"),
)


def _selector_error(sel: Obj | None) -> str:
    """The first label-value error ``LabelSelectorAsSelector`` reports, or ""."""
    if not sel:
        return ""
    reqs = [(k, (v,)) for k, v in sorted((sel.get("matchLabels") or {}).items())]
    reqs += [(e.get("key", ""), tuple(e.get("values") or ())) for e in sel.get("matchExpressions") or ()
             if e.get("operator") in ("In", "NotIn")]
    for key, values in reqs:
        for i, v in enumerate(values):
            if errs := label_value_errors(str(v)):
                return f'values[{i}][{key}]: Invalid value: "{v}": ' + "; ".join(errs)
    return ""


def affinity_parse_error(pod: Obj) -> str:
    """``framework.NewPodInfo``'s error: per term group, the first term whose selector does
    not parse (``GetAffinityTerms``), aggregated as ``utilerrors.NewAggregate`` prints."""
    aff = pod["spec"].get("affinity") or {}
    errs: list[str] = []
    for part, preferred, label in _GROUPS:
        for raw in _raw_terms(aff.get(part), preferred):
            if e := _selector_error(raw.get("labelSelector")) or _selector_error(raw.get("namespaceSelector")):
                errs.append(f"{label}: {e}")
                break
    return errs[0] if len(errs) == 1 else ("[" + ", ".join(errs) + "]" if errs else "")


def _raw_terms(part: Obj | None, preferred: bool) -> list[Obj]:
    key = "preferredDuringSchedulingIgnoredDuringExecution" if preferred else "requiredDuringSchedulingIgnoredDuringExecution"
    terms = (part or {}).get(key) or ()
    return [(t.get("podAffinityTerm") or {}) if preferred else t for t in terms]
