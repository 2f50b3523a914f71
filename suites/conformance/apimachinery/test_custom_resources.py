"""API machinery conformance: the custom resources a CustomResourceDefinition defines are
served once it is Established: create, get, list, update, the status subresource and
delete; unknown fields are pruned (a strict write is refused), schema defaults applied, and an x-kubernetes-validations
rule refuses a write with its message (apiextensions-apiserver's customresource handler)."""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from reference_impl.errors import BadRequest, Invalid, NotFound

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
