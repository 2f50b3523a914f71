"""Models pkg/scheduler/framework/plugins/imagelocality/image_locality.go.

A node scores by the sizes of the pod's images (containers, init containers and image
volumes) it already has, each scaled by the share of nodes that have it, clamped between
23 MiB and 1000 MiB per image and mapped onto [0, 100].
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, final

from reference_impl.scheduler.framework import signature as sign
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import (
    MAX_NODE_SCORE,
    OK,
    SKIP,
    Plugin,
    PreScorePlugin,
    ScoreExtensions,
    ScorePlugin,
    Status,
)
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins import names

__all__ = ["NAME", "ImageLocality", "calculate_priority", "new", "normalized_image_name"]

Obj = dict[str, Any]
NAME: Final = names.IMAGE_LOCALITY
MB: Final = 1024 * 1024
MIN_THRESHOLD: Final = 23 * MB
MAX_CONTAINER_THRESHOLD: Final = 1000 * MB


def normalized_image_name(name: str) -> str:
    """Add ``:latest`` when the image has no tag (a ":" after the last "/")."""
    return name + ":latest" if name.rfind(":") <= name.rfind("/") else name


def calculate_priority(sum_scores: int, image_count: int) -> int:
    """``calculatePriority``: clamp and scale the summed image scores into [0, 100]."""
    max_threshold = MAX_CONTAINER_THRESHOLD * image_count
    clamped = min(max(sum_scores, MIN_THRESHOLD), max_threshold)
    return MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


def _images(pod: Obj) -> tuple[list[str], int]:
    spec = pod["spec"]
    imgs = [normalized_image_name(c.get("image") or "")
            for c in [*(spec.get("initContainers") or ()), *(spec.get("containers") or ())]]
    count = len(imgs)
    for v in spec.get("volumes") or ():
        ref = (v.get("image") or {}).get("reference") if v.get("image") is not None else None
        if v.get("image") is None:
            continue
        imgs.append(normalized_image_name(ref or ""))
        count += 1
    return imgs, count


@final
class ImageLocality:
    """Prefers nodes that already have the pod's images."""

    def __init__(self, handle: Handle) -> None:
        self._h = handle

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def sign_pod(self, pod: Obj) -> tuple[list[sign.SignFragment], Status]:
        """``SignPod``: the containers' and init containers' normalized image names."""
        spec = pod["spec"]
        images = {
            normalized_image_name(c.get("image") or "")
            for c in [*(spec.get("containers") or ()), *(spec.get("initContainers") or ())]
        }
        return sign.signed((sign.IMAGE_NAMES_SIGNER, sorted(images)))

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        """``sumImageScores`` then ``calculatePriority``."""
        lister = self._h.snapshot_shared_lister()
        total = len(lister.node_infos())
        images, count = _images(pod)
        table = lister.index.image_nodes
        s = 0
        for img in images:
            size = node_info.images.get(img)
            if size is not None:
                s += int(size * (len(table.get(img, ())) / total))
        return calculate_priority(s, count), OK

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        """SKIP when no node has any of the pod's images.

        Deviation: upstream has no PreScore here; every node would score 0 then, which
        cannot change the ranking, so the scores are not computed at all.
        """
        images, _ = _images(pod)
        table = self._h.snapshot_shared_lister().index.image_nodes
        return OK if any(img in table for img in images) else SKIP

    def score_extensions(self) -> ScoreExtensions | None:
        """Scores are already in [0, 100]."""
        return None


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    return ImageLocality(handle)


_s: type[ScorePlugin] = ImageLocality
_p: type[PreScorePlugin] = ImageLocality
