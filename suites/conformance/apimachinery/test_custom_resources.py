"""API machinery conformance: the custom resources a CustomResourceDefinition defines are
served once it is Established: create, get, list, update, the status subresource and
delete; unknown fields are pruned (a strict write is refused), schema defaults applied, and an x-kubernetes-validations
rule refuses a write with its message (apiextensions-apiserver's customresource handler)."""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from reference_impl.errors import BadRequest, Forbidden, Invalid, NotFound

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
CRD = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
SCHEMA: Obj = {"type": "object", "properties": {
    "spec": {"type": "object",
             "x-kubernetes-validations": [{"rule": "self.replicas <= self.max",
                                           "message": "replicas must not exceed max"}],
             "properties": {"replicas": {"type": "integer", "minimum": 0},
                            "max": {"type": "integer", "default": 5}}},
    "status": {"type": "object", "properties": {"ready": {"type": "integer"}}}}}  # fmt: skip


def _established(target: Target, name: str) -> bool:
    conds = (target.get(*CRD, name).get("status") or {}).get("conditions") or ()
    return any(c.get("type") == "Established" and c.get("status") == "True" for c in conds)


def test_custom_resources_are_served_validated_pruned_and_defaulted(
    target: Target, namespace: str
) -> None:
    """Custom resource CRUD.

    Once its CRD is Established, a custom resource MUST be creatable, readable, listable,
    updatable (generation bumps on a spec change), its status writable through /status
    (without a generation bump) and deletable. A field the schema does not specify MUST be
    pruned, which a strict write (fieldValidation=Strict) MUST refuse as BadRequest naming
    the field; a missing field with a schema default MUST be set, and a write breaking an x-kubernetes-validations
    rule MUST be refused with the rule's message at the rule's path.
    """
    group = f"{namespace}.cr.garhwal.dev"
    name, av = f"widgets.{group}", f"{group}/v1"
    try:
        target.apply({"apiVersion": CRD[0], "kind": CRD[1], "metadata": {"name": name},
                      "spec": {"group": group, "scope": "Namespaced",
                               "names": {"plural": "widgets", "kind": "Widget"},
                               "versions": [{"name": "v1", "served": True, "storage": True,
                                             "schema": {"openAPIV3Schema": SCHEMA},
                                             "subresources": {"status": {}}}]}})  # fmt: skip
        target.wait_until(
            lambda: _established(target, name), timeout=30, what=f"{name} Established"
        )

        def served() -> bool:  # a live apiserver's discovery can trail the condition
            try:
                target.list(av, "Widget", namespace)
            except NotFound:
                return False
            return True

        target.wait_until(served, timeout=30, what=f"{av} Widget served")

        def widget(replicas: int, wname: str = "w") -> Obj:
            return {"apiVersion": av, "kind": "Widget",
                    "metadata": {"name": wname, "namespace": namespace},
                    "spec": {"replicas": replicas}}  # fmt: skip

        # Writes are strict (fieldValidation=Strict): the pruned field is reported, not stored.
        unknown = widget(1)
        unknown["spec"]["unknown"] = "x"
        with pytest.raises(BadRequest) as bad:
            target.apply(unknown)
        assert bad.value.message == (
            'Widget in version "v1" cannot be handled as a Widget: strict decoding error: '
            'unknown field "spec.unknown"'
        )

        w = target.apply(widget(1))
        assert w["spec"] == {"replicas": 1, "max": 5}
        assert w["metadata"]["generation"] == 1
        assert target.get(av, "Widget", "w", namespace)["spec"] == {"replicas": 1, "max": 5}
        assert [x["metadata"]["name"] for x in target.list(av, "Widget", namespace)] == ["w"]

        with pytest.raises(Invalid) as e:
            target.apply(widget(6, "bad"))
        assert [(c.field, c.message) for c in e.value.causes] == [
            ("spec", "Invalid value: replicas must not exceed max")
        ]

        w = target.get(av, "Widget", "w", namespace)
        w["spec"]["replicas"] = 2
        w = target.apply(w)
        assert (w["spec"]["replicas"], w["metadata"]["generation"]) == (2, 2)
        w["status"] = {"ready": 2}
        w = target.patch_status(w)
        assert (w["status"], w["metadata"]["generation"]) == ({"ready": 2}, 2)

        target.delete(av, "Widget", "w", namespace)
        target.wait_until(lambda: not target.list(av, "Widget", namespace), timeout=30,
                          what="the widget gone")  # fmt: skip
    finally:
        try:
            target.delete(*CRD, name)
        except Exception:  # noqa: BLE001, S110 - already gone
            pass


def test_crd_deletion_finalizes_instances_and_field_selectors(
    target: Target, namespace: str
) -> None:
    """CRD deletion and selectable fields.

    A version's selectableFields MUST be usable as field selectors (with metadata.name and
    metadata.namespace), any other field label refused as BadRequest. Deleting a CRD MUST
    first mark it (deletionTimestamp, the customresourcecleanup.apiextensions.k8s.io
    finalizer, Terminating True) and delete its instances; while an instance remains, a
    create MUST be Forbidden; once none remains the CRD MUST go.
    """
    group = f"{namespace}.crdel.garhwal.dev"
    name, av = f"gadgets.{group}", f"{group}/v1"
    spec = {"type": "object", "properties": {"color": {"type": "string"}}}
    hold = "crdel.garhwal.dev/hold"

    def gadget(gname: str, color: str) -> Obj:
        return {"apiVersion": av, "kind": "Gadget",
                "metadata": {"name": gname, "namespace": namespace},
                "spec": {"color": color}}  # fmt: skip

    try:
        target.apply({"apiVersion": CRD[0], "kind": CRD[1], "metadata": {"name": name},
                      "spec": {"group": group, "scope": "Namespaced",
                               "names": {"plural": "gadgets", "kind": "Gadget"},
                               "versions": [{"name": "v1", "served": True, "storage": True,
                                             "schema": {"openAPIV3Schema": {
                                                 "type": "object",
                                                 "properties": {"spec": spec}}},
                                             "selectableFields": [{"jsonPath": ".spec.color"}]}]}})  # fmt: skip
        target.wait_until(
            lambda: _established(target, name), timeout=30, what=f"{name} Established"
        )

        def served() -> bool:
            try:
                target.list(av, "Gadget", namespace)
            except NotFound:
                return False
            return True

        target.wait_until(served, timeout=30, what=f"{av} Gadget served")
        target.apply(gadget("blue", "blue"))
        held = gadget("green", "green")
        held["metadata"]["finalizers"] = [hold]
        target.apply(held)
        picked = target.list(av, "Gadget", namespace, field_selector="spec.color=blue")
        assert [x["metadata"]["name"] for x in picked] == ["blue"]
        picked = target.list(av, "Gadget", namespace, field_selector="metadata.name!=blue")
        assert [x["metadata"]["name"] for x in picked] == ["green"]
        with pytest.raises(BadRequest) as bad:
            target.list(av, "Gadget", namespace, field_selector="spec.size=M")
        assert bad.value.message == "field label not supported: spec.size"

        target.delete(*CRD, name)
        crd = target.get(*CRD, name)
        assert crd["metadata"].get("deletionTimestamp")
        assert "customresourcecleanup.apiextensions.k8s.io" in crd["metadata"]["finalizers"]
        conds = {c["type"]: c for c in crd["status"]["conditions"]}
        assert conds["Terminating"]["status"] == "True"

        def instances_deleting() -> bool:
            left = target.list(av, "Gadget", namespace)
            return [x["metadata"]["name"] for x in left] == ["green"] and bool(
                left[0]["metadata"].get("deletionTimestamp")
            )

        target.wait_until(instances_deleting, timeout=30, what="the instances deleted")
        with pytest.raises(Forbidden) as forbidden:
            target.apply(gadget("new", "red"))
        assert forbidden.value.message == (
            f'gadgets.{group} "new" is forbidden: create not allowed while custom resource '
            "definition is terminating"
        )
        left = target.get(av, "Gadget", "green", namespace)
        left["metadata"]["finalizers"] = []
        target.apply(left)

        def crd_gone() -> bool:
            try:
                target.get(*CRD, name)
            except NotFound:
                return True
            return False

        target.wait_until(crd_gone, timeout=90, what=f"{name} gone")
    finally:
        try:
            left = target.get(av, "Gadget", "green", namespace)
            left["metadata"]["finalizers"] = []
            target.apply(left)
        except Exception:  # noqa: BLE001, S110 - already gone
            pass
        try:
            target.delete(*CRD, name)
        except Exception:  # noqa: BLE001, S110 - already gone
            pass
