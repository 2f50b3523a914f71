"""Pod signatures for OpportunisticBatching (KEP-5598).

Models staging/src/k8s.io/kube-scheduler/framework/signers.go (the signer names and the
shared signers) and framework.go's ``computeBatchablePlugins`` / ``SignPod``: every
PreFilter, Filter, PreScore and Score plugin must be a SignPlugin, else the profile signs
nothing; a pod's signature joins the scheduler name and each plugin's fragments, and is
None as soon as one plugin cannot sign the pod. Two pods with equal signatures get the
same feasibility and scores on the same nodes.

Signatures are computed once per pod, when the queue builds its QueuedPodInfo, never in
the scheduling cycle. A plugin whose ``signs_no_pod`` is True refuses every pod (e.g.
PodTopologySpread with default constraints, so the default profile signs nothing); the
signer then answers None at once, as upstream's loop would after that plugin.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, Final, Protocol, runtime_checkable

from reference_impl.scheduler.framework.interface import OK, Code, Plugin, Status
from reference_impl.scheduler.framework.types import request_totals

__all__ = [
    "DRA_EXTENDED_UNSIGNABLE",
    "FEATURES_SIGNER",
    "HOST_PORTS_SIGNER",
    "IMAGE_NAMES_SIGNER",
    "LABELS_SIGNER",
    "NODE_AFFINITY_SIGNER",
    "NODE_NAME_SIGNER",
    "NODE_SELECTOR_SIGNER",
    "RESOURCES_SIGNER",
    "SCHEDULER_NAME_SIGNER",
    "TOLERATIONS_SIGNER",
    "VOLUMES_SIGNER",
    "PodSignature",
    "PodSigner",
    "SignFragment",
    "SignPlugin",
    "host_ports_signer",
    "node_affinity_signer",
    "resources_signer",
    "signed",
    "tolerations_signer",
    "unsignable",
    "volumes_signer",
]

Obj = dict[str, Any]
PodSignature = str | None  # canonical JSON; None: the pod cannot be batched
SignFragment = tuple[str, Any]  # (signer name, JSON-able value)

DYNAMIC_RESOURCES_SIGNER: Final = "v1.Pod.Spec.DynamicResources"
IMAGE_NAMES_SIGNER: Final = "v1.Pod.Spec.CanonicalImageNames()"
LABELS_SIGNER: Final = "v1.Pod.Labels"
NODE_NAME_SIGNER: Final = "v1.Pod.Spec.NodeName"
NODE_AFFINITY_SIGNER: Final = "v1.Pod.Spec.Affinity.NodeAffinity"
NODE_SELECTOR_SIGNER: Final = "v1.Pod.Spec.Affinity.NodeSelector"
HOST_PORTS_SIGNER: Final = "v1.Pod.Spec.HostPorts()"
RESOURCES_SIGNER: Final = "v1.Pod.Spec.ContainerRequestsAndOverheads()"
SCHEDULER_NAME_SIGNER: Final = "v1.Pod.Spec.SchedulerName"
TOLERATIONS_SIGNER: Final = "v1.Pod.Spec.Tolerations"
VOLUMES_SIGNER: Final = "v1.Pod.Spec.Volumes.NonSyntheticSources()"
FEATURES_SIGNER: Final = "v1.Pod.Spec.RequiredFeatures()"
DRA_EXTENDED_UNSIGNABLE: Final = "signature disabled when dra extended resources are used in the cluster"


@runtime_checkable
class SignPlugin(Plugin, Protocol):
    """``fwk.SignPlugin``: the fragments this plugin's decisions depend on, or a
    non-success status when it cannot vouch for pods with equal fragments."""

    def sign_pod(self, pod: Obj) -> tuple[Sequence[SignFragment], Status]:
        """Fragments (with an OK status), or a status saying why the pod is unsignable."""
        ...


def signed(*fragments: SignFragment) -> tuple[list[SignFragment], Status]:
    """A SignPod answer: these fragments."""
    return list(fragments), OK


def unsignable(message: str) -> tuple[list[SignFragment], Status]:
    """A SignPod answer: the pod cannot be signed (Unschedulable, as upstream)."""
    return [], Status(Code.UNSCHEDULABLE, (message,))


def resources_signer(pod: Obj) -> list[Any]:
    """``computePodResourceRequest`` as a value: the pod's requests and overhead."""
    r = request_totals(pod)[0]
    return [r.milli_cpu, r.memory, r.ephemeral_storage, r.allowed_pod_number, sorted(r.scalar.items())]


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=list)


def _containers(pod: Obj) -> list[Obj]:
    spec = pod["spec"]
    return [*(spec.get("containers") or ()), *(spec.get("initContainers") or ())]


def host_ports_signer(pod: Obj) -> list[int]:
    """``HostPortsSigner``: the sorted distinct non-zero host ports."""
    ports = {
        int(p.get("hostPort") or 0) for c in _containers(pod) for p in c.get("ports") or ()
    }
    ports.discard(0)
    return sorted(ports)


def tolerations_signer(pod: Obj) -> list[Obj]:
    """``TolerationsSigner``: the tolerations sorted by (key, value), stably."""
    tols = list(pod["spec"].get("tolerations") or ())
    return sorted(tols, key=lambda t: (t.get("key") or "", t.get("value") or ""))


def volumes_signer(pod: Obj) -> list[str]:
    """``VolumesSigner``: each volume's source but configMap and secret ones, sorted."""
    out = []
    for vol in pod["spec"].get("volumes") or ():
        source = {k: v for k, v in vol.items() if k != "name"}
        if "configMap" in source or "secret" in source:
            continue
        out.append(_canon(source))
    return sorted(out)


def _requirements(reqs: Iterable[Obj]) -> list[str]:
    out = [_canon({**r, "values": sorted(r.get("values") or ())}) for r in reqs]
    return sorted(out)


def _term(term: Obj) -> Obj:
    return {
        "MatchExpressions": _requirements(term.get("matchExpressions") or ()),
        "MatchFields": _requirements(term.get("matchFields") or ()),
    }


def node_affinity_signer(pod: Obj) -> Obj | None:
    """``NodeAffinitySigner``: required and preferred terms, each canonicalised and sorted."""
    na = (pod["spec"].get("affinity") or {}).get("nodeAffinity")
    if na is None:
        return None
    pref = sorted(
        _canon({"Weight": int(t.get("weight") or 0), "Preference": _term(t.get("preference") or {})})
        for t in na.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
    )
    required = na.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    req = sorted(_canon(_term(t)) for t in required.get("nodeSelectorTerms") or ())
    return {"Required": req, "Preferred": pref}


class PodSigner:
    """``computeBatchablePlugins`` and ``SignPod`` for one profile."""

    def __init__(self, candidates: Iterable[Plugin], *, enabled: bool = True) -> None:
        self.plugins: list[SignPlugin] = []
        self.unsupported: list[str] = []
        seen: set[str] = set()
        for pl in candidates:  # PreFilter, Filter, PreScore, Score plugins, in that order
            if pl.name() in seen:
                continue
            seen.add(pl.name())
            if isinstance(pl, SignPlugin):
                self.plugins.append(pl)
            else:
                self.unsupported.append(pl.name())
        self.enable_signatures = enabled and not self.unsupported
        # Some plugin refuses every pod: SignPod's loop always ends in nil.
        self.signs_nothing = not self.enable_signatures or any(
            getattr(pl, "signs_no_pod", False) for pl in self.plugins
        )

    def sign_pod(self, pod: Obj) -> PodSignature:
        """The pod's signature, or None when some plugin cannot sign it."""
        if self.signs_nothing:
            return None
        sig: dict[str, Any] = {SCHEDULER_NAME_SIGNER: pod["spec"].get("schedulerName") or ""}
        for pl in self.plugins:
            fragments, status = pl.sign_pod(pod)
            if not status.is_success():
                return None
            for key, value in fragments:
                sig[key] = value
        return _canon(sig)
