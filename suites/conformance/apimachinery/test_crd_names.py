"""API machinery conformance: a CustomResourceDefinition's names are accepted, then it is
Established; a name another CRD of the group holds is not (apiextensions-apiserver's
naming and establishing controllers)."""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
CRD = "apiextensions.k8s.io/v1", "CustomResourceDefinition"


def _crd(group: str, plural: str, kind: str, short: list[str]) -> Obj:
    return {
        "apiVersion": CRD[0], "kind": CRD[1], "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group, "scope": "Namespaced",
            "names": {"plural": plural, "kind": kind, "shortNames": short},
            "versions": [{"name": "v1", "served": True, "storage": True,
                          "schema": {"openAPIV3Schema": {"type": "object"}}}],
        },
    }  # fmt: skip


def _condition(target: Target, name: str, kind: str) -> Obj:
    for c in (target.get(*CRD, name).get("status") or {}).get("conditions") or ():
        if c.get("type") == kind:
            return dict(c)
    return {}


def test_crd_names_are_accepted_then_established_and_conflicts_wait(
    target: Target, namespace: str
) -> None:
    """CRD NamesAccepted and Established.

    A CRD whose names no other CRD of its group holds MUST get ``status.acceptedNames``
    equal to its (defaulted) names, NamesAccepted True ("NoConflicts") and Established True
    ("InitialNamesAccepted"). A second CRD of the group asking for a short name the first
    holds MUST get NamesAccepted False ("ShortNamesConflict", '"<name>" is already in use')
    and Established False ("NotAccepted"), with its other names accepted and the short
    names not; once the first CRD is deleted, the second MUST be Established with every
    name accepted.
    """
    group = f"{namespace}.names.garhwal.dev"
    first, second = f"widgets.{group}", f"gadgets.{group}"
    try:
        target.apply(_crd(group, "widgets", "Widget", ["wd"]))
        target.wait_until(
            lambda: _condition(target, first, "Established").get("status") == "True",
            timeout=30, what=f"{first} Established",
        )  # fmt: skip
        crd = target.get(*CRD, first)
        assert crd["status"]["acceptedNames"] == {
            "plural": "widgets", "singular": "widget", "shortNames": ["wd"], "kind": "Widget",
            "listKind": "WidgetList",
        }  # fmt: skip
        accepted = _condition(target, first, "NamesAccepted")
        assert (accepted["status"], accepted["reason"]) == ("True", "NoConflicts")
        assert _condition(target, first, "Established")["reason"] == "InitialNamesAccepted"

        target.apply(_crd(group, "gadgets", "Gadget", ["wd", "gd"]))
        target.wait_until(
            lambda: _condition(target, second, "NamesAccepted").get("status") == "False",
            timeout=30, what=f"{second} NamesAccepted False",
        )  # fmt: skip
        conflict = _condition(target, second, "NamesAccepted")
        assert (conflict["reason"], conflict["message"]) == ("ShortNamesConflict", '"wd" is already in use')
        established = _condition(target, second, "Established")
        assert (established["status"], established["reason"]) == ("False", "NotAccepted")
        names = target.get(*CRD, second)["status"]["acceptedNames"]
        assert names["plural"] == "gadgets" and names["kind"] == "Gadget"
        assert "shortNames" not in names

        target.delete(*CRD, first)
        target.wait_until(
            lambda: _condition(target, second, "Established").get("status") == "True",
            timeout=60, what=f"{second} Established after {first} went",
        )  # fmt: skip
        assert target.get(*CRD, second)["status"]["acceptedNames"]["shortNames"] == ["wd", "gd"]
    finally:
        for name in (first, second):
            try:
                target.delete(*CRD, name)
            except Exception:  # noqa: BLE001, S110 - already gone
                pass
