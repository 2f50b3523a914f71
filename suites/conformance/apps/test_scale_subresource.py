"""Apps conformance: the ``<resource>/scale`` subresource (autoscaling/v1 Scale).

A Deployment's Scale carries its replicas, status replicas and selector string; a Scale
update moves the replicas into the Deployment (``pkg/registry/apps/deployment/storage``
``ScaleREST``, validated by ``ValidateScale``), and a custom resource whose CRD version
declares ``subresources.scale`` is scaled through its replicas paths (apiextensions-apiserver
``pkg/registry/customresource/etcd.go`` ``ScaleREST``).
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from fixtures.targets.extensions import ScaleSubresource, scale_subresource_of
from reference_impl.api import make_deployment, make_pod
from reference_impl.errors import Conflict, Invalid, NotFound

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
CRD = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
_INT: Obj = {"type": "integer"}
SCHEMA: Obj = {"type": "object", "properties": {
    "spec": {"type": "object", "properties": {"replicas": _INT}},
    "status": {"type": "object", "properties": {"replicas": _INT, "selector": {"type": "string"}}},
}}  # fmt: skip


@pytest.fixture
def scales(target: Target) -> ScaleSubresource:
    """The target's client for ``/scale``."""
    client = scale_subresource_of(target)
    if client is None:
        pytest.skip(f"target {target.name!r} does not reach the scale subresource")
    return client


def test_deployment_scale_get_and_update(
    target: Target, namespace: str, scales: ScaleSubresource
) -> None:
    """Deployment scale subresource.

    A Deployment's Scale MUST name it (name, namespace, uid) and carry its spec replicas and
    its selector as a label selector string. Updating the Scale's replicas MUST set the
    Deployment's spec.replicas and bump its generation; the answer MUST be the new Scale. A
    Scale update at an old resourceVersion MUST conflict, and a negative replicas count MUST
    be refused as Invalid at spec.replicas, leaving the Deployment unchanged.
    """
    pod = make_pod("x").req(cpu="10m", memory="16Mi")
    target.apply(make_deployment("scaled", namespace, replicas=1, pod=pod).build())

    def synced() -> bool:  # the controller's own writes (revision annotation) are done
        d = target.get("apps/v1", "Deployment", "scaled", namespace)
        return bool(
            (d.get("status") or {}).get("observedGeneration") == d["metadata"].get("generation")
        )

    target.wait_until(synced, timeout=60, what="the deployment controller's first sync")
    dep = target.get("apps/v1", "Deployment", "scaled", namespace)
    scale = scales.get_scale("apps/v1", "Deployment", "scaled", namespace)
    assert (scale["apiVersion"], scale["kind"]) == ("autoscaling/v1", "Scale")
    meta = scale["metadata"]
    assert (meta["name"], meta["namespace"], meta["uid"]) == (
        "scaled",
        namespace,
        dep["metadata"]["uid"],
    )
    assert scale["spec"]["replicas"] == 1
    assert scale["status"]["selector"] == "app=scaled"

    out = scales.update_scale("apps/v1", "Deployment", "scaled", namespace, 2)
    assert out["spec"]["replicas"] == 2
    assert out["metadata"]["resourceVersion"] != meta["resourceVersion"]
    after = target.get("apps/v1", "Deployment", "scaled", namespace)
    assert after["spec"]["replicas"] == 2
    assert after["metadata"]["generation"] == dep["metadata"]["generation"] + 1

    with pytest.raises(Conflict):
        scales.update_scale("apps/v1", "Deployment", "scaled", namespace, 3,
                            resource_version=meta["resourceVersion"])  # fmt: skip
    with pytest.raises(Invalid) as bad:
        scales.update_scale("apps/v1", "Deployment", "scaled", namespace, -1)
    assert [c.field for c in bad.value.causes] == ["spec.replicas"]
    assert bad.value.kind.split(".")[0] == "Scale"  # ValidateScale's, before the Deployment's
    assert target.get("apps/v1", "Deployment", "scaled", namespace)["spec"]["replicas"] == 2
    with pytest.raises(NotFound):
        scales.get_scale("apps/v1", "Deployment", "no-such-deployment", namespace)


def _established(target: Target, name: str) -> bool:
    conds = (target.get(*CRD, name).get("status") or {}).get("conditions") or ()
    return any(c.get("type") == "Established" and c.get("status") == "True" for c in conds)


def test_custom_resource_scale_subresource(
    target: Target, namespace: str, scales: ScaleSubresource
) -> None:
    """Custom resource scale subresource.

    For a CRD version declaring subresources.scale, a custom resource's Scale MUST carry the
    values at specReplicasPath and statusReplicasPath and the string at labelSelectorPath.
    Updating the Scale MUST write the replicas at specReplicasPath (a spec change: the
    generation goes up), and a negative count MUST be refused as Invalid at the
    specReplicasPath, leaving the resource unchanged.
    """
    group = f"{namespace}.scale.garhwal.dev"
    name, av = f"gadgets.{group}", f"{group}/v1"
    scale_paths = {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas",
                   "labelSelectorPath": ".status.selector"}  # fmt: skip
    try:
        target.apply({"apiVersion": CRD[0], "kind": CRD[1], "metadata": {"name": name},
                      "spec": {"group": group, "scope": "Namespaced",
                               "names": {"plural": "gadgets", "kind": "Gadget"},
                               "versions": [{"name": "v1", "served": True, "storage": True,
                                             "schema": {"openAPIV3Schema": SCHEMA},
                                             "subresources": {"status": {},
                                                              "scale": scale_paths}}]}})  # fmt: skip
        target.wait_until(
            lambda: _established(target, name), timeout=30, what=f"{name} Established"
        )

        def served() -> bool:  # a live apiserver's discovery can trail the condition
            try:
                target.list(av, "Gadget", namespace)
            except NotFound:
                return False
            return True

        target.wait_until(served, timeout=30, what=f"{av} Gadget served")
        g = target.apply({"apiVersion": av, "kind": "Gadget",
                          "metadata": {"name": "g", "namespace": namespace},
                          "spec": {"replicas": 1}})  # fmt: skip
        g["status"] = {"replicas": 1, "selector": "app=g"}
        g = target.patch_status(g)

        def scale_ready() -> bool:  # discovery may list /scale a moment after the resource
            try:
                scales.get_scale(av, "Gadget", "g", namespace)
            except NotFound:
                return False
            return True

        target.wait_until(scale_ready, timeout=30, what=f"{av} gadgets/scale served")
        scale = scales.get_scale(av, "Gadget", "g", namespace)
        assert scale["spec"] == {"replicas": 1}
        assert scale["status"] == {"replicas": 1, "selector": "app=g"}
        assert scale["metadata"]["uid"] == g["metadata"]["uid"]

        out = scales.update_scale(av, "Gadget", "g", namespace, 3)
        assert out["spec"] == {"replicas": 3}
        after = target.get(av, "Gadget", "g", namespace)
        assert after["spec"]["replicas"] == 3
        assert after["metadata"]["generation"] == g["metadata"]["generation"] + 1

        with pytest.raises(Invalid) as bad:
            scales.update_scale(av, "Gadget", "g", namespace, -1)
        assert [c.field for c in bad.value.causes] == [".spec.replicas"]
        assert target.get(av, "Gadget", "g", namespace)["spec"]["replicas"] == 3
    finally:
        try:
            target.delete(*CRD, name)
        except Exception:  # noqa: BLE001, S110 - already gone
            pass
