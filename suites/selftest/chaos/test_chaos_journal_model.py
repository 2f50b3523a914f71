"""A stateful model of the journal and rollbacks: random interleavings of inject, crash
(at any point: before apply, mid-line, mid-revert) and ``garhwal chaos revert`` never leave
a fault behind once nothing is outstanding."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from chaos_helpers import node_state
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from fixtures.chaos import api_faults  # noqa: F401
from fixtures.chaos.envelope import Envelope
from fixtures.chaos.injector import INJECTORS, Scope
from fixtures.chaos.journal import Journal, Locator, outstanding, read_lines
from fixtures.chaos.revert import replay
from fixtures.chaos.session import ChaosSession
from fixtures.targets.reference import ReferenceTarget
from reference_impl import errors
from reference_impl.api import make_pool_node

NODES = ("m0", "m1", "m2")
FAULTS = st.sampled_from([
    ("node-cordon", {}),
    ("node-taint", {"key": "a", "effect": "NoSchedule"}),
    ("node-taint", {"key": "a", "effect": "NoExecute", "value": "2"}),
    ("node-taint", {"key": "b", "effect": "NoSchedule"}),
    ("node-delete", {}),
])


class JournalModel(RuleBasedStateMachine):
    """One reference cluster; sessions come and go, some of them killed."""

    def __init__(self) -> None:
        super().__init__()
        self.target = ReferenceTarget(seed=3)
        for n in NODES:
            self.target.apply(make_pool_node(n, "model").build())
        self.initial = node_state(self.target)
        self.dir = Path(tempfile.mkdtemp(prefix="garhwal-journal-model-"))
        self.path = self.dir / "journal.jsonl"
        self.session: ChaosSession | None = None

    def _open(self) -> ChaosSession:
        if self.session is None:
            env = Envelope.load(self.target, allow_chaos=True)
            self.session = ChaosSession(self.target, Locator("reference"), env, Journal([self.path]))
        return self.session

    @rule(node=st.sampled_from(NODES), fault=FAULTS)
    def inject(self, node: str, fault: tuple[str, dict[str, Any]]) -> None:
        try:
            self._open().inject(fault[0], Scope(nodes=(node,), params=fault[1]))
        except errors.NotFound:
            pass  # the node is deleted (by a fault still held): prepare read nothing

    @rule(node=st.sampled_from(NODES), fault=FAULTS)
    def crash_after_the_journal_line(self, node: str, fault: tuple[str, dict[str, Any]]) -> None:
        """kill -9 between the fsync'd line and apply."""
        session = self._open()
        injector = INJECTORS[fault[0]]()
        try:
            rb = injector.prepare(self.target, Scope(nodes=(node,), params=fault[1]))
        except errors.NotFound:
            return
        assert session.journal is not None
        session.journal.record_inject("x" + os.urandom(6).hex(), rb, session.locator, "", 0.0)
        self.session = None

    @rule()
    def crash_mid_line(self) -> None:
        """kill -9 while a line is half written."""
        with self.path.open("ab") as fh:
            fh.write(b'{"op": "inject", "id": "torn", "injec')
        self.session = None

    @precondition(lambda self: self.session is not None and self.session.held)
    @rule()
    def crash_mid_revert(self) -> None:
        """kill -9 after undoing the newest fault but before its 'reverted' line."""
        assert self.session is not None
        entry = self.session.held[-1]
        entry.injector.revert(self.target, entry.rollback)
        self.session = None

    @rule()
    def crash(self) -> None:
        self.session = None

    @precondition(lambda self: self.session is not None)
    @rule()
    def finish(self) -> None:
        """The run ends normally: its finally reverts what it holds."""
        assert self.session is not None
        assert self.session.revert_all() == []
        self.session = None

    @precondition(lambda self: self.session is None)
    @rule()
    def garhwal_chaos_revert(self) -> None:
        report = replay([self.path], target_for=lambda _loc: self.target)
        assert report.failed == []
        assert outstanding(read_lines(self.path)) == []

    @invariant()
    def nothing_outstanding_means_nothing_left(self) -> None:
        if self.session is None and (not self.path.exists() or not outstanding(read_lines(self.path))):
            assert node_state(self.target) == self.initial

    def teardown(self) -> None:
        if self.session is not None:
            self.session.revert_all()
        replay([self.path], target_for=lambda _loc: self.target)
        assert node_state(self.target) == self.initial


JournalModel.TestCase.settings = settings(
    max_examples=25, stateful_step_count=25, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_journal_model = JournalModel.TestCase
