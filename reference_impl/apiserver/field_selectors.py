"""Field selectors: ``fields.ParseSelector``, the pod and node registries'
``ToSelectableFields`` (the other kinds' are in ``field_labels``) and the schemes' field
label conversions.

``APIServer.list`` takes a predicate; ``field_predicate`` builds one from the text a
client sends (``spec.nodeName=n1,status.phase!=Failed``), matching upstream's
``SelectionPredicate`` over the object's selectable fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.customresource import selectable_fields
from reference_impl.apiserver.customresource.info import CustomResourceInfo
from reference_impl.apiserver.field_labels import SELECTABLE, conversion_for, meta_fields
from reference_impl.errors import BadRequest

__all__ = [
    "Term",
    "convert_field_label",
    "field_filter",
    "field_predicate",
    "get_pod_ip",
    "matches",
    "node_to_selectable_fields",
    "parse_selector",
    "pod_to_selectable_fields",
    "to_selectable_fields",
]

Obj = dict[str, Any]

# ``termOperators``: "!=" and "==" are tried before "=" at each position.
_OPERATORS = ("!=", "==", "=")


@dataclass(frozen=True, slots=True)
class Term:
    """One ``hasTerm`` (``field=value``) or ``notHasTerm`` (``field!=value``)."""

    field: str
    value: str
    negated: bool

    def matches(self, fields: dict[str, str]) -> bool:
        """A field absent from the set reads as "" (``fields.Set.Get``)."""
        return (fields.get(self.field, "") == self.value) != self.negated


def _split_terms(selector: str) -> list[str]:
    """``splitTerms``: split on commas not escaped by a backslash."""
    terms: list[str] = []
    start, in_slash = 0, False
    for i, c in enumerate(selector):
        if in_slash:
            in_slash = False
        elif c == "\\":
            in_slash = True
        elif c == ",":
            terms.append(selector[start:i])
            start = i + 1
    terms.append(selector[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    """``splitTerm``: the first position where any operator starts."""
    for i in range(len(term)):
        for op in _OPERATORS:
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op) :]
    return None


def _unescape(value: str) -> str:
    """``UnescapeValue``: ``\\\\``, ``\\,`` and ``\\=`` only; bare ``,`` or ``=`` is an error."""
    out: list[str] = []
    in_slash = False
    for c in value:
        if in_slash:
            if c not in "\\,=":
                raise BadRequest(f"invalid field selector: invalid escape sequence: \\{c}")
            out.append(c)
            in_slash = False
        elif c == "\\":
            in_slash = True
        elif c in ",=":
            raise BadRequest(f"invalid field selector: unescaped character in value: {ord(c)}")
        else:
            out.append(c)
    if in_slash:
        raise BadRequest("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def parse_selector(selector: str) -> list[Term]:
    """``fields.ParseSelector``: the terms (sorted, as upstream sorts them) that must all
    match; an empty selector has none and matches everything."""
    terms: list[Term] = []
    if not selector:
        return terms
    for part in sorted(_split_terms(selector)):
        if not part:
            continue
        split = _split_term(part)
        if split is None:
            raise BadRequest(f"invalid selector: '{selector}'; can't understand '{part}'")
        lhs, op, rhs = split
        terms.append(Term(lhs, _unescape(rhs), negated=op == "!="))
    return terms


def matches(terms: list[Term], fields: dict[str, str]) -> bool:
    """``andTerm.Matches``."""
    return all(t.matches(fields) for t in terms)


def get_pod_ip(pod: Obj | None) -> str:
    """``getPodIP``: the first of ``status.podIPs`` (the primary IP), or ""."""
    if pod is None:
        return ""
    ips = (pod.get("status") or {}).get("podIPs") or []
    return str((ips[0] or {}).get("ip", "")) if ips else ""


def pod_to_selectable_fields(pod: Obj) -> dict[str, str]:
    """The pod registry's ``ToSelectableFields``."""
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    return {
        "spec.nodeName": str(spec.get("nodeName", "")),
        "spec.restartPolicy": str(spec.get("restartPolicy", "")),
        "spec.schedulerName": str(spec.get("schedulerName", "")),
        "spec.serviceAccountName": str(spec.get("serviceAccountName", "")),
        "spec.hostNetwork": "true" if spec.get("hostNetwork") else "false",
        "status.phase": str(status.get("phase", "")),
        "status.podIP": get_pod_ip(pod),
        "status.nominatedNodeName": str(status.get("nominatedNodeName", "")),
        **meta_fields(pod, namespaced=True),
    }


def node_to_selectable_fields(node: Obj) -> dict[str, str]:
    """The node registry's ``NodeToSelectableFields``."""
    unschedulable = bool((node.get("spec") or {}).get("unschedulable"))
    return {
        **meta_fields(node, namespaced=False),
        "spec.unschedulable": "true" if unschedulable else "false",
    }


_SELECTABLE: dict[tuple[str, str], Callable[[Obj], dict[str, str]]] = {
    ("", "Pod"): pod_to_selectable_fields,
    ("", "Node"): node_to_selectable_fields,
    **SELECTABLE,
}


def to_selectable_fields(
    kind: str, obj: Obj, *, api_version: str = "v1", namespaced: bool = True
) -> dict[str, str]:
    """The registry's selectable fields of ``obj``; a kind whose store has no
    ``AttrFunc`` selects on its metadata only (``DefaultNamespaceScopedAttr`` or
    ``DefaultClusterScopedAttr``)."""
    fn = _SELECTABLE.get((api_version.rpartition("/")[0], kind))
    return fn(obj) if fn else meta_fields(obj, namespaced=namespaced)


def convert_field_label(
    kind: str, label: str, value: str, *, api_version: str = "v1"
) -> tuple[str, str]:
    """``Scheme.ConvertFieldLabel`` for ``api_version`` ``kind``: the label as the
    registry names it; BadRequest with the version's own text when it is not supported
    (the list and watch handlers' ``errors.NewBadRequest(err.Error())``)."""
    conversion = conversion_for(api_version, kind)
    converted = conversion.convert(label)
    if converted is None:
        raise BadRequest(conversion.error(label))
    return converted, value


def field_predicate(
    kind: str, selector: str, *, api_version: str = "v1", namespaced: bool = True
) -> Callable[[Obj], bool] | None:
    """A predicate for ``APIServer.list``/``watch`` from a client's field selector text,
    its labels converted as the version's scheme does; None when it selects everything."""
    terms = [
        Term(convert_field_label(kind, t.field, t.value, api_version=api_version)[0], t.value,
             t.negated)
        for t in parse_selector(selector)
    ]  # fmt: skip
    if not terms:
        return None
    return lambda obj: matches(
        terms, to_selectable_fields(kind, obj, api_version=api_version, namespaced=namespaced)
    )


def field_filter(info: ResourceInfo, selector: str | None) -> Callable[[Obj], bool] | None:
    """``field_predicate`` for a served resource (its version, kind and scope)."""
    if not selector:
        return None
    if isinstance(info, CustomResourceInfo):  # its version's selectableFields
        return selectable_fields.field_predicate(info, selector)
    return field_predicate(
        info.kind, selector, api_version=info.api_version, namespaced=info.namespaced
    )
