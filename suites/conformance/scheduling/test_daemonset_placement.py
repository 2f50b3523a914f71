"""DaemonSet placement: the DaemonSet controller runs one pod on every node its template's
nodeSelector matches, pinned to that node by a ``metadata.name`` matchFields term of the
required node affinity, and counts those nodes in ``status.desiredNumberScheduled``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import make_pool_pod
from reference_impl.api.builders import ManifestBuilder

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
LABEL = "garhwal.dev/daemon"
HASH = "controller-revision-hash"


def _daemonset(name: str, namespace: str) -> Obj:
    """Selects the nodes labelled ``LABEL=on``; tolerates every taint (as driver and
    device-plugin DaemonSets do), so the nodeSelector alone decides placement."""
    pod = make_pool_pod("x", namespace, cpu="10m").node_selector(**{LABEL: "on"}).build()
    spec = pod["spec"]
    spec["tolerations"] = [{"operator": "Exists"}]
    template = {"metadata": {"labels": {"app": name}}, "spec": spec}
    body = {"selector": {"matchLabels": {"app": name}}, "template": template}
    return ManifestBuilder("apps/v1", "DaemonSet", name, namespace).set("spec", body).build()


def _pinned_node(pod: Obj) -> list[str] | None:
    """The node names of the pod's required node affinity's matchFields terms."""
    required = (((pod["spec"].get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})  # fmt: skip
    out: list[str] = []
    for term in required.get("nodeSelectorTerms") or ():
        for req in term.get("matchFields") or ():
            if req.get("key") == "metadata.name" and req.get("operator") == "In":
                out += req.get("values") or []
    return out or None


def test_a_daemonset_runs_one_pinned_pod_on_each_matching_node(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """One daemon pod per selected node.

    With two nodes labelled for the DaemonSet and one not, within 60 s there MUST be exactly
    one pod per labelled node and none for the other: each controlled by the DaemonSet
    (ownerReference kind DaemonSet, its uid, controller true), its required node affinity a
    single ``metadata.name In [<node>]`` matchFields term, labelled with a
    ``controller-revision-hash`` that names the DaemonSet's ControllerRevision
    ``<ds>-<hash>`` and with ``pod-template-generation`` "1". The DaemonSet's
    ``status.desiredNumberScheduled`` MUST become 2.
    """
    wanted = {pool(garhwal_dev__daemon="on"), pool(garhwal_dev__daemon="on")}
    pool(garhwal_dev__daemon="off")
    ds = target.apply(_daemonset("agent", namespace))
    uid = ds["metadata"]["uid"]

    def pods() -> list[Obj]:
        return [
            p for p in target.list("v1", "Pod", namespace)
            if (p["metadata"].get("labels") or {}).get("app") == "agent"
            and not p["metadata"].get("deletionTimestamp")
        ]  # fmt: skip

    def placed() -> bool:
        got = sorted(n for p in pods() for n in _pinned_node(p) or ["?"])
        return got == sorted(wanted)

    target.wait_until(placed, timeout=60, what="one daemon pod per labelled node")
    for pod in pods():
        refs = [r for r in pod["metadata"].get("ownerReferences") or () if r.get("controller")]
        assert [(r["apiVersion"], r["kind"], r["name"], r["uid"]) for r in refs] == [
            ("apps/v1", "DaemonSet", "agent", uid)
        ]
        required = pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        node = _pinned_node(pod)
        assert node is not None and len(node) == 1
        assert required["nodeSelectorTerms"] == [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": node}]}
        ]
        labels = pod["metadata"]["labels"]
        assert labels.get("pod-template-generation") == "1"
        revision = target.get("apps/v1", "ControllerRevision", f"agent-{labels[HASH]}", namespace)
        owner = [r["uid"] for r in revision["metadata"].get("ownerReferences") or () if r.get("controller")]
        assert owner == [uid]
    target.wait_until(
        lambda: (target.get("apps/v1", "DaemonSet", "agent", namespace).get("status") or {})
        .get("desiredNumberScheduled") == 2,
        timeout=60, what="status.desiredNumberScheduled 2",
    )  # fmt: skip
