"""Models pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go.

Prefers nodes whose resource fractions (requested / allocatable, capped at 1) stay close
to each other. As in 1.37, the score compares the balance with and without the pod:
``50 + (50 + balance(with pod) - balance(without)) / 2``, where balance is
``(1 - std(fractions)) * 100``. Requests are the pod's and node's actual requests (no
defaults for unset requests); best-effort pods are not scored. DRA-backed extended
resources are not counted here (they are not in the default resource list).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Self, final

from reference_impl.scheduler.framework import signature as sign
from reference_impl.scheduler.framework.batch import ScoreOutOfRange
from reference_impl.scheduler.framework.cycle_state import CycleState, StateKey
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
from reference_impl.scheduler.framework.node_memo import NodeMemo
from reference_impl.scheduler.framework.pod_resources import pod_requests
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo, Resource, is_scalar_resource_name
from reference_impl.scheduler.plugins import extended_resources as ext
from reference_impl.scheduler.plugins import names

__all__ = ["NAME", "BalancedAllocation", "NodeResourcesBalancedAllocationArgs", "new"]

Obj = dict[str, Any]
NAME: Final = names.NODE_RESOURCES_BALANCED_ALLOCATION
_HALF: Final = MAX_NODE_SCORE // 2


@dataclass(frozen=True, slots=True)
class NodeResourcesBalancedAllocationArgs:
    """``NodeResourcesBalancedAllocationArgs``: default resources cpu and memory, weight 1."""

    resources: tuple[tuple[str, int], ...] = (("cpu", 1), ("memory", 1))


@dataclass(frozen=True, slots=True)
class _State:
    requests: tuple[int, ...]  # per configured resource

    def clone(self) -> Self:
        return self


_PRE_SCORE: Final = StateKey[_State]("PreScore" + NAME)


def balance(fractions: Sequence[float]) -> int:
    """``balancedResourceScore``: (1 - standard deviation of the fractions) * 100."""
    n = len(fractions)
    std = 0.0
    if n == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif n > 2:
        mean = sum(fractions) / n
        std = math.sqrt(sum((f - mean) * (f - mean) for f in fractions) / n)
    return int((1 - std) * MAX_NODE_SCORE)


def _trunc_half(x: int) -> int:
    return -((-x) // 2) if x < 0 else x // 2  # Go's integer division truncates toward 0


@final
class BalancedAllocation:
    """Scores nodes by how evenly the pod leaves their resources used."""

    checks_score_range = True  # score_nodes checks each score it computes (batch.py)

    def __init__(self, args: NodeResourcesBalancedAllocationArgs) -> None:
        self._names = tuple(n for n, _ in args.resources)
        self._default = self._names == ("cpu", "memory")
        self._memo: NodeMemo[int] = NodeMemo()  # scores, keyed by the requests (node_memo)
        self.dra: ext.DeviceClassMapping | None = None  # DRAExtendedResource (SignPod only)

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def sign_pod(self, pod: Obj) -> tuple[list[sign.SignFragment], Status]:
        """``SignPod``: the requests; unsignable when DRA serves an extended resource."""
        if self.dra is not None and ext.pod_requests(pod, self.dra.get()):
            return sign.unsignable(sign.DRA_EXTENDED_UNSIGNABLE)
        return sign.signed((sign.RESOURCES_SIGNER, sign.resources_signer(pod)))

    def _requests(self, pod: Obj, state: CycleState) -> tuple[int, ...]:
        pi = state.pod_info  # the queue derived the same totals from this very pod
        if pi is not None and pi.pod is pod:
            req = pi.requests
        else:
            req = Resource.from_requests(pod_requests(pod))  # actual requests, no defaults
        return tuple(req.amount(n) for n in self._names)

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        """SKIP for a best-effort pod (nothing requested of the configured resources)."""
        reqs = self._requests(pod, state)
        if not any(reqs):
            return SKIP
        state.write(_PRE_SCORE, _State(reqs))
        return OK

    def _score(self, reqs: tuple[int, ...], ni: NodeInfo) -> int:
        with_pod: list[float] = []
        without: list[float] = []
        alloc, used = ni.allocatable, ni.requested
        for name, want in zip(self._names, reqs, strict=True):
            if want == 0 and is_scalar_resource_name(name):
                continue
            cap = alloc.amount(name)
            if cap == 0:
                continue
            have = used.amount(name)
            with_pod.append(min((have + want) / cap, 1.0))
            without.append(min(have / cap, 1.0))
        return _HALF + _trunc_half(_HALF + balance(with_pod) - balance(without))

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        """``balancedResourceScorer`` for the node."""
        st = state.try_read(_PRE_SCORE)
        reqs = st.requests if st is not None else self._requests(pod, state)
        if not any(reqs):
            return 0, OK
        return self._score(reqs, node_info), OK

    def node_scorer(
        self, state: CycleState, pod: Obj
    ) -> tuple[tuple[int, ...], Callable[[NodeInfo], int]] | None:
        """``score`` of one node, keyed by the pod's requests (NodeScorer): a node's
        score depends only on its NodeInfo and them; cpu and memory only."""
        st = state.try_read(_PRE_SCORE)
        if st is None or not self._default:
            return None
        reqs = st.requests
        want_c, want_m = reqs
        top = MAX_NODE_SCORE

        def balanced(ni: NodeInfo) -> int:
            alloc, used = ni.allocatable, ni.requested
            cap_c, cap_m = alloc.milli_cpu, alloc.memory
            if not (cap_c and cap_m):
                score = self._score(reqs, ni)
            else:
                uc, um = used.milli_cpu, used.memory  # _score inlined for cpu and memory
                fc, fm = min((uc + want_c) / cap_c, 1.0), min((um + want_m) / cap_m, 1.0)
                gc, gm = min(uc / cap_c, 1.0), min(um / cap_m, 1.0)
                d = int((1 - abs(fc - fm) / 2) * top) - int((1 - abs(gc - gm) / 2) * top) + _HALF
                score = _HALF + (d // 2 if d >= 0 else -((-d) // 2))
            if not 0 <= score <= top:  # checks_score_range: the framework does not rescan
                raise ScoreOutOfRange(score)
            return score

        return reqs, balanced

    def score_nodes(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> list[int] | None:
        """``score`` for many nodes in one loop (BatchScorePlugin), memoised by node
        (node_memo) for the current requests."""
        got = self.node_scorer(state, pod)
        if got is None:
            return None
        reqs, fn = got
        return self._memo.keyed(reqs).read(nodes, fn)

    def score_extensions(self) -> ScoreExtensions | None:
        """Scores are already in [0, 100]."""
        return None


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory; ``args`` is a NodeResourcesBalancedAllocationArgs or None."""
    if args is not None and not isinstance(args, NodeResourcesBalancedAllocationArgs):
        raise TypeError(
            f"NodeResourcesBalancedAllocation takes NodeResourcesBalancedAllocationArgs, not {type(args).__name__}"
        )
    pl = BalancedAllocation(args or NodeResourcesBalancedAllocationArgs())
    ctx = getattr(handle, "ctx", None)  # selftests build the plugin without a framework
    if ctx is not None and ctx.gates.get("DRAExtendedResource", True):
        pl.dra = ext.DeviceClassMapping(ctx)
    return pl


_s: type[ScorePlugin] = BalancedAllocation
_p: type[PreScorePlugin] = BalancedAllocation
