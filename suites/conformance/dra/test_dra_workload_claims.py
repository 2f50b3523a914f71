"""DRA-WLCLAIM: PodGroup-level resource claims, reserved once for the group (KEP-5729)."""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import FakeDriver, Target
from reference_impl.api import (
    DRA_API,
    make_claim_template,
    make_node,
    make_pod,
    make_pod_group,
    make_resource_claim,
)
from reference_impl.errors import NotFound

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("KEP-5729"),
    pytest.mark.feature_gates(GenericWorkload=True),
]
Obj = dict[str, Any]
NODE = "kwok-node-0"
SCHEDULING_V1BETA1 = "scheduling.k8s.io/v1beta1"
CLASS = "dra-wlclaim-gpu"
PODS = 300  # past the 256-entry reservedFor limit, few enough for a live cluster


def _group(ns: str, name: str, *claims: Obj) -> Obj:
    pg = make_pod_group(name, ns)
    pg["spec"]["resourceClaims"] = [dict(c) for c in claims]
    return pg


def _member(
    ns: str,
    name: str,
    group: str,
    claim: str,
    *,
    template: str | None = None,
    claim_name: str | None = None,
    node: str = NODE,
) -> Obj:
    b = make_pod(name, ns).pod_group(group).claim(claim, template=template, claim=claim_name)
    return b.node_selector(**{"kubernetes.io/hostname": node}).build()


def _pod(target: Target, name: str, ns: str) -> Obj:
    return target.get("v1", "Pod", name, ns)


def _claim(target: Target, name: str, ns: str) -> Obj:
    return target.get(DRA_API, "ResourceClaim", name, ns)


def _bound(target: Target, ns: str, *names: str) -> bool:
    return all(_pod(target, n, ns)["spec"].get("nodeName") for n in names)


def _group_claim_name(target: Target, ns: str, group: str, claim: str) -> str:
    pg = target.get(SCHEDULING_V1BETA1, "PodGroup", group, ns)
    for st in (pg.get("status") or {}).get("resourceClaimStatuses") or ():
        if st["name"] == claim and st.get("resourceClaimName"):
            return str(st["resourceClaimName"])
    return ""


def _setup(target: Target, ns: str, drv: FakeDriver, gpus: int = 2) -> None:
    drv.install_class(CLASS)
    drv.publish([NODE], gpus=gpus)
    target.apply(make_claim_template("gpu", ns).request("gpu", CLASS).build())


def test_a_shared_existing_claim_is_reserved_once_for_the_pod_group(
    target: Target, namespace: str, dra_driver: FakeDriver
) -> None:
    """DRA-WLCLAIM, shared existing claim.

    Pods of a PodGroup whose claim equals the group's claim (same name and
    resourceClaimName) MUST share that one claim: it MUST be allocated once and its
    status.reservedFor MUST hold exactly one entry, {apiGroup: scheduling.k8s.io,
    resource: podgroups, name, uid} of the PodGroup, not one entry per pod.
    """
    _setup(target, namespace, dra_driver)
    target.apply(make_resource_claim("shared", namespace).request("gpu", CLASS).build())
    pg = target.apply(_group(namespace, "pg", {"name": "gpu", "resourceClaimName": "shared"}))
    for p in ("a", "b", "c"):
        target.apply(_member(namespace, p, "pg", "gpu", claim_name="shared"))
    target.wait_until(
        lambda: _bound(target, namespace, "a", "b", "c"), timeout=60, what="members bound"
    )
    claim = _claim(target, "shared", namespace)
    assert claim["status"]["reservedFor"] == [
        {
            "apiGroup": "scheduling.k8s.io",
            "resource": "podgroups",
            "name": "pg",
            "uid": pg["metadata"]["uid"],
        }
    ]
    assert len(claim["status"]["allocation"]["devices"]["results"]) == 1


def test_a_template_group_claim_is_generated_owned_by_the_pod_group_and_listed_in_status(
    target: Target, namespace: str, dra_driver: FakeDriver
) -> None:
    """DRA-WLCLAIM, template-generated group claim.

    For a PodGroup claim naming a ResourceClaimTemplate the resource claim controller MUST
    generate one claim, controlled by the PodGroup, and list it in
    podGroup.status.resourceClaimStatuses; matching members MUST name that same claim in
    pod.status.resourceClaimStatuses and it MUST be reserved only for the PodGroup.
    """
    _setup(target, namespace, dra_driver)
    pg = target.apply(_group(namespace, "pg", {"name": "gpu", "resourceClaimTemplateName": "gpu"}))
    target.wait_until(
        lambda: bool(_group_claim_name(target, namespace, "pg", "gpu")),
        timeout=60,
        what="group claim listed in PodGroup status",
    )
    name = _group_claim_name(target, namespace, "pg", "gpu")
    owner = _claim(target, name, namespace)["metadata"]["ownerReferences"]
    assert [(o["kind"], o["name"], o["uid"], o.get("controller")) for o in owner] == [
        ("PodGroup", "pg", pg["metadata"]["uid"], True)
    ]
    for p in ("a", "b"):
        target.apply(_member(namespace, p, "pg", "gpu", template="gpu"))
    target.wait_until(lambda: _bound(target, namespace, "a", "b"), timeout=60, what="members bound")
    for p in ("a", "b"):
        assert _pod(target, p, namespace)["status"]["resourceClaimStatuses"] == [
            {"name": "gpu", "resourceClaimName": name}
        ]
    reserved = _claim(target, name, namespace)["status"]["reservedFor"]
    assert [(r["resource"], r["uid"]) for r in reserved] == [("podgroups", pg["metadata"]["uid"])]
    claims = target.list(DRA_API, "ResourceClaim", namespace)
    assert [c["metadata"]["name"] for c in claims] == [name]


@pytest.mark.parametrize("field", ["name", "resourceClaimName", "resourceClaimTemplateName"])
def test_a_pod_claim_differing_in_any_field_keeps_per_pod_semantics(
    target: Target, namespace: str, dra_driver: FakeDriver, field: str
) -> None:
    """DRA-WLCLAIM, exact match only.

    A member pod's claim that differs from the PodGroup's claim in name,
    resourceClaimName or resourceClaimTemplateName MUST NOT share the group claim: a
    template claim MUST get its own pod-owned claim, an existing claim MUST be reserved for
    the pod itself.
    """
    _setup(target, namespace, dra_driver, gpus=3)
    target.apply(make_resource_claim("mine", namespace).request("gpu", CLASS).build())
    pg = target.apply(_group(namespace, "pg", {"name": "gpu", "resourceClaimTemplateName": "gpu"}))
    pod_claim = {
        "name": ("other", "gpu", None),
        "resourceClaimName": ("gpu", None, "mine"),
        "resourceClaimTemplateName": ("gpu", "gpu-b", None),
    }[field]
    if field == "resourceClaimTemplateName":
        target.apply(make_claim_template("gpu-b", namespace).request("gpu", CLASS).build())
    cname, tmpl, existing = pod_claim
    target.apply(_member(namespace, "p", "pg", cname, template=tmpl, claim_name=existing))
    target.wait_until(lambda: _bound(target, namespace, "p"), timeout=60, what="pod bound")
    pod = _pod(target, "p", namespace)
    if existing:
        name = existing
    else:
        (st,) = pod["status"]["resourceClaimStatuses"]
        name = st["resourceClaimName"]
        owner = _claim(target, name, namespace)["metadata"]["ownerReferences"][0]
        assert (owner["kind"], owner["uid"]) == ("Pod", pod["metadata"]["uid"])
    assert name != _group_claim_name(target, namespace, "pg", "gpu")
    reserved = _claim(target, name, namespace)["status"]["reservedFor"]
    assert reserved == [{"resource": "pods", "name": "p", "uid": pod["metadata"]["uid"]}]
    assert pg["metadata"]["uid"] not in {r["uid"] for r in reserved}


def test_300_pods_of_one_group_share_one_claim_beyond_the_256_consumer_limit(
    target: Target, namespace: str, dra_driver: FakeDriver
) -> None:
    """DRA-WLCLAIM, no 256-consumer ceiling.

    300 pods of one PodGroup sharing the group claim (more than the 256 consumers
    reservedFor may list) MUST all be scheduled: the claim is reserved once for the
    PodGroup, so the 256-entry reservedFor limit does not apply.
    """
    node = f"dra-wlclaim-{namespace}"[:63]
    # A /22 pod CIDR: a /24 holds only 253 pod addresses, fewer than the pods here.
    big = make_node(node).capacity(cpu="600", memory="1200Gi", pods="400")
    target.apply(big.set("spec.podCIDR", "10.250.0.0/22").build())
    try:
        dra_driver.install_class(CLASS)
        dra_driver.publish([node], gpus=1)
        target.apply(make_resource_claim("shared", namespace).request("gpu", CLASS).build())
        target.apply(_group(namespace, "pg", {"name": "gpu", "resourceClaimName": "shared"}))
        names = [f"p{i:04d}" for i in range(PODS)]
        for n in names:
            target.apply(_member(namespace, n, "pg", "gpu", claim_name="shared", node=node))
        target.wait_until(
            lambda: _bound(target, namespace, *names), timeout=600, what=f"{PODS} pods bound"
        )
        reserved = _claim(target, "shared", namespace)["status"]["reservedFor"]
        assert [(r["resource"], r["name"]) for r in reserved] == [("podgroups", "pg")]
    finally:
        for n in [f"p{i:04d}" for i in range(PODS)]:
            try:
                target.delete("v1", "Pod", n, namespace)
            except NotFound:
                pass
        target.delete("v1", "Node", node)


def test_the_group_claim_is_deallocated_or_deleted_when_the_pod_group_is_gone(
    target: Target, namespace: str, dra_driver: FakeDriver
) -> None:
    """DRA-WLCLAIM, release with the group.

    The group reservation MUST outlive the member pods while the PodGroup exists; once the
    PodGroup is deleted an existing shared claim MUST lose the reservation and be
    deallocated, and a template-generated group claim MUST be deleted with its PodGroup.
    """
    _setup(target, namespace, dra_driver)
    target.apply(make_resource_claim("shared", namespace).request("gpu", CLASS).build())
    target.apply(
        _group(
            namespace,
            "pg",
            {"name": "gpu", "resourceClaimName": "shared"},
            {"name": "tgpu", "resourceClaimTemplateName": "gpu"},
        )
    )
    pod = _member(namespace, "a", "pg", "gpu", claim_name="shared")
    pod["spec"]["resourceClaims"].append({"name": "tgpu", "resourceClaimTemplateName": "gpu"})
    target.apply(pod)
    target.wait_until(lambda: _bound(target, namespace, "a"), timeout=60, what="member bound")
    generated = _group_claim_name(target, namespace, "pg", "tgpu")
    assert (
        _claim(target, generated, namespace)["status"]["reservedFor"][0]["resource"] == "podgroups"
    )
    target.delete("v1", "Pod", "a", namespace)
    target.wait_until(lambda: not target.list("v1", "Pod", namespace), timeout=60, what="pod gone")
    assert _claim(target, "shared", namespace)["status"]["reservedFor"][0]["name"] == "pg"
    target.delete(SCHEDULING_V1BETA1, "PodGroup", "pg", namespace)

    def released() -> bool:
        status = _claim(target, "shared", namespace).get("status") or {}
        names = {c["metadata"]["name"] for c in target.list(DRA_API, "ResourceClaim", namespace)}
        return (
            not status.get("reservedFor")
            and not status.get("allocation")
            and generated not in names
        )

    target.wait_until(
        released, timeout=60, what="shared claim deallocated, generated claim deleted"
    )
