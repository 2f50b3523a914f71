"""The pods/resize and pods/binding subresources (``pkg/registry/core/pod/storage``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.well_known_annotations import MIRROR_POD
from reference_impl.apiserver import conversion, keys
from reference_impl.apiserver.admission.chain import Request
from reference_impl.apiserver.admission.pod_resize import validate_pod_resize
from reference_impl.apiserver.admission.pod_topology_labels import topology_labels
from reference_impl.apiserver.admission.resource_quota import ResourceQuotaAdmission
from reference_impl.apiserver.decode import schema_causes
from reference_impl.apiserver.registry import Context, Operation, strategy_for
from reference_impl.apiserver.strategies.pod_level_defaults import default_pod_level_resources
from reference_impl.apiserver.validation.pod_resize import (
    drop_non_resize_updates,
    pod_resize_causes,
)
from reference_impl.clock import rfc3339
from reference_impl.errors import Cause, Conflict, Invalid, MethodNotAllowed, NotFound

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["MIRROR_ANNOTATION", "bind", "resize"]

Obj = dict[str, Any]
MIRROR_ANNOTATION: Final = MIRROR_POD


def _prior_causes(srv: APIServer, new: Obj, ctx: Context) -> list[Cause]:
    """``validatePodMetadataAndSpec``: the pod's own rules, as on create."""
    causes = schema_causes(new)
    for v in strategy_for("Pod").validators:
        causes += v(new, None, ctx)
    return causes


def resize(srv: APIServer, manifest: Obj) -> Obj:
    """``APIServer.resize``: ``podResizeStrategy`` keeps only the container resources and
    resize policies (and pod-level resources) of the body; ``ValidatePodResize`` judges them."""
    d = srv._decode(manifest)
    if d.info.kind != "Pod":
        raise MethodNotAllowed(f"{d.info.group_resource} has no resize subresource")
    key, old = srv._current(d.info, d.obj["metadata"])
    ctx = srv._context("resize")
    for default in strategy_for("Pod").defaulters:  # the body's decoding defaults
        default(d.obj, ctx)
    new = drop_non_resize_updates(d.obj, old, srv.gates)
    default_pod_level_resources(new["spec"], srv.gates)
    # Mutating admission (LimitRanger's defaults) sees the resized spec; only container
    # resources survive the resize strategy, so the throwaway metadata drops its annotation.
    view = {"metadata": {"name": old["metadata"]["name"], "namespace": old["metadata"].get("namespace")},
            "spec": new["spec"]}  # fmt: skip
    for plugin in srv.admission:
        plugin.admit(Operation.UPDATE, d.info, view, old, ctx)
    name = old["metadata"].get("name", "")
    causes = pod_resize_causes(new, old, srv.gates, _prior_causes(srv, new, ctx))
    if causes:
        raise Invalid("Pod", name, conversion.wire_causes(causes, d.info, d.api_version))
    # Validating admission in upstream's order: LimitRanger, PodResizeValidator, then
    # ResourceQuota last (it charges the resize, so only once the others have passed).
    quota = [p for p in srv.admission if isinstance(p, ResourceQuotaAdmission)]
    for plugin in srv.admission:
        if plugin not in quota:
            plugin.validate(Operation.UPDATE, d.info, new, old, ctx)
    if new["spec"] == old["spec"]:
        return old  # nothing resizable changed: upstream writes nothing
    new["metadata"]["generation"] = int(old["metadata"].get("generation", 1)) + 1
    validate_pod_resize(srv, new)
    for plugin in quota:
        plugin.validate(Operation.UPDATE, d.info, new, old, ctx)
    return srv._commit(key, new, d.api_version)


def bind(srv: APIServer, namespace: str, name: str, node_name: str) -> Obj:
    """``APIServer.bind``: set spec.nodeName once, as the scheduler does; the reply is
    ``metav1.Status{Status: Success}`` (BindingREST.Create), not the pod."""
    info = srv.resource("v1", "Pod")
    binding: Obj = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name, "namespace": namespace},
                    "target": {"apiVersion": "v1", "kind": "Node", "name": node_name}}  # fmt: skip
    req = Request(srv, "binding", ("", "v1", "Binding"))  # create.go, then BindingREST.Create
    req.admit(Operation.CREATE, info, binding, None)
    if causes := req.validate(Operation.CREATE, info, binding, None):
        raise Invalid("Binding", name, causes)
    kv = srv.store.get(keys.key(info, name, namespace))
    if kv is None:
        raise NotFound(f'pods "{name}" not found')
    pod = kv.decode()
    if pod["spec"].get("nodeName"):
        raise Conflict(f'pod {name} is already assigned to node "{pod["spec"]["nodeName"]}"')
    if pod["metadata"].get("deletionTimestamp"):
        raise Conflict(f"pod {name} is being deleted, cannot be assigned to a host")
    pod["spec"]["nodeName"] = node_name
    # PodTopologyLabels admits the Binding with the node's labels; the binding copies them.
    labels = topology_labels(srv._context("binding"), node_name)
    if labels:
        pod["metadata"].setdefault("labels", {}).update(labels)
    status = pod.setdefault("status", {})
    # ClearingNominatedNodeNameAfterBinding (beta, on in 1.37): the hint is spent.
    status.pop("nominatedNodeName", None)
    conds = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
    conds.append(
        {"type": "PodScheduled", "status": "True", "lastTransitionTime": rfc3339(srv.clock.now())}
    )
    status["conditions"] = conds
    srv._put(kv.key, pod)
    return {"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Success"}
