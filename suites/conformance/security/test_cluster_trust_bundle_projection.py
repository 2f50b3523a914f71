"""ClusterTrustBundle projection into pods (KEP-3257, core/v1 ClusterTrustBundleProjection).

KWOK mounts no volumes, so these need KUBELET. Bundles are cluster-scoped: each test
deletes what it created.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import Capability, Target, node_files
from reference_impl.api import (
    ca_certificate_pem,
    cluster_trust_bundle_volume,
    make_ctb,
    make_pod,
    pem_certificate_count,
)
from reference_impl.errors import NotFound

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("CTB"),
    pytest.mark.requires(Capability.KUBELET),
]

CTB = ("certificates.k8s.io/v1", "ClusterTrustBundle")
SIGNER = "garhwal.dev/ctb-projection"
PREFIX = "garhwal.dev:ctb-projection:"


def _mounted(pod: dict[str, Any]) -> dict[str, Any]:
    """Mount every volume into the container: a kubelet sets up only the volumes a
    container mounts (an unmounted one is never projected)."""
    pod["spec"]["containers"][0]["volumeMounts"] = [
        {"name": v["name"], "mountPath": f"/var/run/garhwal/{v['name']}", "readOnly": True}
        for v in pod["spec"]["volumes"]
    ]
    return pod


@pytest.fixture
def bundles(target: Target) -> Iterator[dict[str, str]]:
    """Three bundles of SIGNER (two labelled tier=a, one tier=b) and one unsigned; name -> PEM."""
    pems = {n: ca_certificate_pem(n) for n in ("a1", "a2", "b1", "plain")}
    made = []
    for n, pem in sorted(pems.items()):
        if n == "plain":
            obj = make_ctb("garhwal-ctb-projection-plain", pem).build()
        else:
            obj = make_ctb(PREFIX + n, pem, SIGNER).label("tier", n[0]).build()
        made.append(target.apply(obj)["metadata"]["name"])
    yield pems
    for name in made:
        try:
            target.delete(*CTB, name)
        except NotFound:
            pass


def _run(target: Target, namespace: str, name: str, volume: dict[str, object]) -> str:
    target.apply(_mounted(make_pod(name, namespace).set("spec.volumes", [volume]).build()))

    def running() -> bool:
        return target.get("v1", "Pod", name, namespace).get("status", {}).get("phase") == "Running"

    target.wait_until(running, timeout=60, what=f"pod {name} Running")
    files = node_files(target).projected_files(name, namespace)
    return str(files.get(volume["name"], {}).get("ca.pem", ""))


def test_selection_by_signer_and_labels_merges_matching_bundles(
    target: Target, namespace: str, bundles: dict[str, str]
) -> None:
    """ClusterTrustBundle projection by signer and labels.

    A source with ``signerName`` and ``labelSelector`` MUST project exactly the trust
    anchors of the bundles of that signer whose labels match, merged into one file.
    """
    vol = cluster_trust_bundle_volume(
        "ca", signer=SIGNER, label_selector={"matchLabels": {"tier": "a"}}
    )
    pem = _run(target, namespace, "ctb-proj-labels", vol)
    assert pem_certificate_count(pem) == 2
    assert bundles["a1"] in pem and bundles["a2"] in pem and bundles["b1"] not in pem


def test_an_empty_selector_selects_every_bundle_of_the_signer(
    target: Target, namespace: str, bundles: dict[str, str]
) -> None:
    """ClusterTrustBundle projection with an empty selector.

    An empty ``labelSelector`` MUST select every bundle of the signer and none of another
    signer or of unsigned bundles.
    """
    pem = _run(
        target,
        namespace,
        "ctb-proj-all",
        cluster_trust_bundle_volume("ca", signer=SIGNER, label_selector={}),
    )
    assert pem_certificate_count(pem) == 3 and bundles["plain"] not in pem


def test_selection_by_name_projects_one_bundle(
    target: Target, namespace: str, bundles: dict[str, str]
) -> None:
    """ClusterTrustBundle projection by name.

    A source naming one bundle MUST project exactly that bundle's anchors.
    """
    vol = cluster_trust_bundle_volume("ca", bundle_name="garhwal-ctb-projection-plain")
    assert _run(target, namespace, "ctb-proj-name", vol) == bundles["plain"]


def test_a_missing_required_bundle_keeps_the_pod_from_starting(
    target: Target, namespace: str, bundles: dict[str, str]
) -> None:
    """ClusterTrustBundle projection of a missing bundle.

    A non-optional source that matches nothing (a selector with no match) MUST keep the
    pod from running; the same source marked ``optional`` MUST let it run without the file.
    """
    none = {"matchLabels": {"tier": "nope"}}
    req = cluster_trust_bundle_volume("ca", signer=SIGNER, label_selector=none)
    target.apply(_mounted(make_pod("ctb-proj-missing", namespace).set("spec.volumes", [req]).build()))
    opt = cluster_trust_bundle_volume("ca", signer=SIGNER, label_selector=none, optional=True)
    assert _run(target, namespace, "ctb-proj-optional", opt) == ""
    phase = target.get("v1", "Pod", "ctb-proj-missing", namespace).get("status", {}).get("phase")
    assert phase in (None, "Pending")
