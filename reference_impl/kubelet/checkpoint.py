"""Pod-level checkpoint/restore (KEP-5823, gate PodLevelCheckpointRestore, alpha).

Models the CRI ``CheckpointPod``/``RestorePod`` calls (``pkg/kubelet/cri/remote`` and the
kubelet's checkpoint handler): a checkpoint freezes a running pod into an archive that
records its state, memory size and whether its warm-up (model load) is done; a restore
creates a new pod from a manifest that names the archive, on any node, and that replica
skips image pull and warm-up. There is no API for any of this (the 1.37 API has no
checkpoint subresource), so the archive is a plain dict and the store lives in the kubelet.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.errors import BadRequest, NotFound, Unimplemented

__all__ = ["ANN_RESTORE_FROM", "GATE", "CheckpointStore", "memory_bytes", "unimplemented"]

Obj = dict[str, Any]
GATE: Final = "PodLevelCheckpointRestore"
# Set on a restored pod: the archive it was restored from (the kubelet honours it only for
# an archive it holds).
ANN_RESTORE_FROM: Final = "garhwal.dev/restored-from-checkpoint"
ARCHIVE_KIND: Final = "PodCheckpointArchive"


def unimplemented(method: str) -> Unimplemented:
    """The error a CRI runtime without support answers, in gRPC's words."""
    return Unimplemented(
        f"rpc error: code = Unimplemented desc = unknown method {method} for service "
        "runtime.v1.RuntimeService"
    )


def memory_bytes(pod: Obj) -> int:
    """The pod's memory footprint: its containers' memory requests (limits when unset)."""
    total = 0
    for c in pod["spec"].get("containers") or []:
        res = c.get("resources") or {}
        mem = (res.get("requests") or {}).get("memory") or (res.get("limits") or {}).get("memory")
        if mem is not None:
            total += int(parse_quantity(mem))
    return total


class CheckpointStore:
    """The archives the runtime wrote, by name (shared storage: any node can restore)."""

    def __init__(self) -> None:
        self._archives: dict[str, Obj] = {}
        self._seq = 0

    def record(self, pod: Obj, node: str, *, warm: bool, load_seconds: float, now: str) -> Obj:
        """Archive ``pod`` (running on ``node``); returns a copy of the archive."""
        meta = pod["metadata"]
        if (pod.get("status") or {}).get("phase") != "Running":
            phase = (pod.get("status") or {}).get("phase", "Pending")
            raise BadRequest(
                f"rpc error: code = FailedPrecondition desc = pod {meta['namespace']}/"
                f"{meta['name']} is {phase}; only a running pod can be checkpointed"
            )
        self._seq += 1
        name = f"checkpoint-{meta['namespace']}-{meta['name']}-{self._seq}"
        archive: Obj = {
            "kind": ARCHIVE_KIND,
            "name": name,
            "pod": {"namespace": meta["namespace"], "name": meta["name"], "uid": meta["uid"]},
            "node": node,
            "createdAt": now,
            "state": "Running",
            "containers": [
                {"name": c["name"], "image": c.get("image", "")} for c in pod["spec"]["containers"]
            ],
            "memoryBytes": memory_bytes(pod),
            "warmUpDone": warm,
            "modelLoadSeconds": load_seconds,
        }
        self._archives[name] = archive
        return copy.deepcopy(archive)

    def get(self, name: str) -> Obj | None:
        """The archive called ``name``, or None."""
        archive = self._archives.get(name)
        return None if archive is None else copy.deepcopy(archive)

    def restore_manifest(self, archive: Mapping[str, Any], pod: Obj) -> Obj:
        """``pod`` annotated to restore from ``archive``; NotFound for an unknown archive."""
        name = str(archive.get("name", ""))
        if name not in self._archives:
            raise NotFound(
                f"rpc error: code = NotFound desc = checkpoint archive {name!r} not found"
            )
        out = copy.deepcopy(pod)
        ann = out.setdefault("metadata", {}).setdefault("annotations", {})
        ann[ANN_RESTORE_FROM] = name
        return out

    def restored_from(self, pod: Obj) -> Obj | None:
        """The archive a pod restores from, when it names one this store holds."""
        name = (pod["metadata"].get("annotations") or {}).get(ANN_RESTORE_FROM)
        return None if name is None else self._archives.get(str(name))
