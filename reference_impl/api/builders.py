"""Small fluent builders for manifests, after the scheduler's ``st.MakePod()`` wrappers.

Each builder produces a plain dict in the exact 1.37 wire shape, so the same manifest
goes to the reference or to a live cluster unchanged.
"""

from __future__ import annotations

import copy
from typing import Any, Self

__all__ = [
    "ManifestBuilder",
    "NodeBuilder",
    "PodBuilder",
    "make_configmap",
    "make_deployment",
    "make_job",
    "make_namespace",
    "make_node",
    "make_pod",
    "make_replicaset",
]

Obj = dict[str, Any]


class ManifestBuilder:
    """Common metadata setters; ``build()`` returns a deep copy."""

    def __init__(
        self, api_version: str, kind: str, name: str, namespace: str | None = None
    ) -> None:
        self._obj: Obj = {"apiVersion": api_version, "kind": kind, "metadata": {"name": name}}
        if namespace:
            self._obj["metadata"]["namespace"] = namespace

    def namespace(self, ns: str) -> Self:
        """Set metadata.namespace."""
        self._obj["metadata"]["namespace"] = ns
        return self

    def label(self, key: str, value: str) -> Self:
        """Add a label."""
        self._obj["metadata"].setdefault("labels", {})[key] = value
        return self

    def annotation(self, key: str, value: str) -> Self:
        """Add an annotation."""
        self._obj["metadata"].setdefault("annotations", {})[key] = value
        return self

    def owner(self, owner: Obj, controller: bool = True) -> Self:
        """Add an ownerReference to ``owner`` (a stored object with a uid)."""
        ref = {
            "apiVersion": owner["apiVersion"],
            "kind": owner["kind"],
            "name": owner["metadata"]["name"],
            "uid": owner["metadata"]["uid"],
            "controller": controller,
            "blockOwnerDeletion": True,
        }
        self._obj["metadata"].setdefault("ownerReferences", []).append(ref)
        return self

    def set(self, path: str, value: Any) -> Self:
        """Set a dotted path (``spec.replicas``), creating maps on the way."""
        node = self._obj
        parts = path.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = value
        return self

    def build(self) -> Obj:
        """The manifest, as a fresh dict."""
        return copy.deepcopy(self._obj)


class PodBuilder(ManifestBuilder):
    """Builds a core/v1 Pod with one container unless told otherwise."""

    def __init__(self, name: str, namespace: str | None = None) -> None:
        super().__init__("v1", "Pod", name, namespace)
        self._obj["spec"] = {
            "containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}]
        }

    @property
    def _c0(self) -> Obj:
        c: Obj = self._obj["spec"]["containers"][0]
        return c

    def image(self, image: str) -> Self:
        """Set the first container's image."""
        self._c0["image"] = image
        return self

    def container(
        self, name: str, image: str = "registry.k8s.io/pause:3.10", **resources: str
    ) -> Self:
        """Append a container with optional requests (``cpu="1"``)."""
        c: Obj = {"name": name, "image": image}
        if resources:
            c["resources"] = {"requests": dict(resources)}
        self._obj["spec"]["containers"].append(c)
        return self

    def req(self, **resources: str) -> Self:
        """Requests on the first container, e.g. ``req(cpu="500m", memory="1Gi")``."""
        self._c0.setdefault("resources", {}).setdefault("requests", {}).update(
            {k.replace("_", "."): v for k, v in resources.items()}
        )
        return self

    def request(self, name: str, quantity: str) -> Self:
        """One request by its full resource name (``example.com/gpu``)."""
        self._c0.setdefault("resources", {}).setdefault("requests", {})[name] = quantity
        return self

    def lim(self, **resources: str) -> Self:
        """Limits on the first container."""
        self._c0.setdefault("resources", {}).setdefault("limits", {}).update(resources)
        return self

    def node(self, node_name: str) -> Self:
        """Set spec.nodeName (bypasses the scheduler)."""
        self._obj["spec"]["nodeName"] = node_name
        return self

    def node_selector(self, **labels: str) -> Self:
        """Add to spec.nodeSelector."""
        self._obj["spec"].setdefault("nodeSelector", {}).update(labels)
        return self

    def toleration(
        self,
        key: str,
        operator: str = "Equal",
        value: str | None = None,
        effect: str | None = None,
        seconds: int | None = None,
    ) -> Self:
        """Add a toleration."""
        t: Obj = {"key": key, "operator": operator}
        if value is not None:
            t["value"] = value
        if effect is not None:
            t["effect"] = effect
        if seconds is not None:
            t["tolerationSeconds"] = seconds
        self._obj["spec"].setdefault("tolerations", []).append(t)
        return self

    def scheduling_gate(self, name: str) -> Self:
        """Add a scheduling gate."""
        self._obj["spec"].setdefault("schedulingGates", []).append({"name": name})
        return self

    def priority_class(self, name: str) -> Self:
        """Set spec.priorityClassName."""
        self._obj["spec"]["priorityClassName"] = name
        return self

    def restart_policy(self, policy: str) -> Self:
        """Set spec.restartPolicy."""
        self._obj["spec"]["restartPolicy"] = policy
        return self

    def pod_group(self, name: str) -> Self:
        """Join a PodGroup through spec.schedulingGroup.podGroupName."""
        self._obj["spec"]["schedulingGroup"] = {"podGroupName": name}
        return self

    def claim(self, name: str, *, template: str | None = None, claim: str | None = None) -> Self:
        """Add a pod resource claim (by template or by existing claim) used by container 0."""
        ref: Obj = {"name": name}
        if template:
            ref["resourceClaimTemplateName"] = template
        if claim:
            ref["resourceClaimName"] = claim
        self._obj["spec"].setdefault("resourceClaims", []).append(ref)
        self._c0.setdefault("resources", {}).setdefault("claims", []).append({"name": name})
        return self


class NodeBuilder(ManifestBuilder):
    """Builds a Ready core/v1 Node with capacity, as a fake kubelet registers it."""

    def __init__(self, name: str) -> None:
        super().__init__("v1", "Node", name)
        self._obj["metadata"]["labels"] = {
            "kubernetes.io/hostname": name,
            "kubernetes.io/os": "linux",
            "type": "kwok",
        }
        self._obj["spec"] = {}
        cap = {"cpu": "32", "memory": "256Gi", "pods": "110", "ephemeral-storage": "1Ti"}
        self._obj["status"] = {
            "capacity": dict(cap),
            "allocatable": dict(cap),
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "reason": "KubeletReady",
                    "message": "kubelet is posting ready status",
                }
            ],
            "phase": "Running",
        }

    def capacity(self, **resources: str) -> Self:
        """Set capacity and allocatable, e.g. ``capacity(cpu="4", memory="16Gi")``."""
        res = {k.replace("_", "."): v for k, v in resources.items()}
        self._obj["status"]["capacity"].update(res)
        self._obj["status"]["allocatable"].update(res)
        return self

    def resource(self, name: str, quantity: str) -> Self:
        """One capacity entry by full name (``example.com/gpu``)."""
        self._obj["status"]["capacity"][name] = quantity
        self._obj["status"]["allocatable"][name] = quantity
        return self

    def taint(self, key: str, effect: str, value: str | None = None) -> Self:
        """Add a node taint."""
        t: Obj = {"key": key, "effect": effect}
        if value is not None:
            t["value"] = value
        self._obj["spec"].setdefault("taints", []).append(t)
        return self

    def unschedulable(self) -> Self:
        """Cordon the node."""
        self._obj["spec"]["unschedulable"] = True
        return self


def make_pod(name: str, namespace: str | None = None) -> PodBuilder:
    """A Pod builder: ``make_pod("p").req(cpu="1").build()``."""
    return PodBuilder(name, namespace)


def make_node(name: str) -> NodeBuilder:
    """A Node builder: ``make_node("n1").capacity(cpu="8").build()``."""
    return NodeBuilder(name)


def make_namespace(name: str) -> ManifestBuilder:
    """A Namespace builder."""
    return ManifestBuilder("v1", "Namespace", name)


def make_configmap(name: str, namespace: str | None = None, **data: str) -> ManifestBuilder:
    """A ConfigMap builder with string data."""
    b = ManifestBuilder("v1", "ConfigMap", name, namespace)
    return b.set("data", dict(data))


def _template(labels: dict[str, str], pod: PodBuilder | None) -> Obj:
    built = (pod or PodBuilder("x")).build()
    meta: Obj = {"labels": {**built["metadata"].get("labels", {}), **labels}}
    if built["metadata"].get("annotations"):
        meta["annotations"] = dict(built["metadata"]["annotations"])
    return {"metadata": meta, "spec": built["spec"]}


def _replicated(kind: str, name: str, namespace: str | None, replicas: int, pod: PodBuilder | None) -> ManifestBuilder:
    labels = {"app": name}
    spec = {"replicas": replicas, "selector": {"matchLabels": labels}, "template": _template(labels, pod)}
    return ManifestBuilder("apps/v1", kind, name, namespace).set("spec", spec)


def make_deployment(
    name: str, namespace: str | None = None, replicas: int = 1, pod: PodBuilder | None = None
) -> ManifestBuilder:
    """An apps/v1 Deployment selecting ``app=<name>``."""
    return _replicated("Deployment", name, namespace, replicas, pod)


def make_replicaset(
    name: str, namespace: str | None = None, replicas: int = 1, pod: PodBuilder | None = None
) -> ManifestBuilder:
    """An apps/v1 ReplicaSet selecting ``app=<name>``."""
    return _replicated("ReplicaSet", name, namespace, replicas, pod)


def make_job(
    name: str,
    namespace: str | None = None,
    completions: int = 1,
    parallelism: int = 1,
    pod: PodBuilder | None = None,
) -> ManifestBuilder:
    """A batch/v1 Job; its pods restart Never."""
    b = ManifestBuilder("batch/v1", "Job", name, namespace)
    template = _template({"app": name}, pod)
    template["spec"]["restartPolicy"] = "Never"
    return b.set(
        "spec", {"completions": completions, "parallelism": parallelism, "template": template}
    )
