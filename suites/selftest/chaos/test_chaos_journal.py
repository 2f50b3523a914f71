"""The rollback journal: written before apply, fsync'd, torn lines skipped, replayable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pytest
from chaos_helpers import node_state

from fixtures.chaos.envelope import Envelope
from fixtures.chaos.injector import INJECTORS, Rollback, Scope, register
from fixtures.chaos.journal import (
    JOURNAL_NAME,
    Journal,
    Locator,
    outstanding,
    read_lines,
    state_journal_path,
)
from fixtures.chaos.revert import replay
from fixtures.chaos.session import ChaosSession
from fixtures.targets.base import Target
from fixtures.targets.reference import ReferenceTarget


def _session(target: Target, tmp_path: Path) -> ChaosSession:
    env = Envelope.load(target, allow_chaos=True)
    journal = Journal([tmp_path / "report" / JOURNAL_NAME, state_journal_path()])
    return ChaosSession(target, Locator("reference"), env, journal, experiment="t")


class _Spy:
    """An injector whose apply checks that its journal line is on disk already."""

    name: ClassVar[str] = "selftest-spy"
    seen: ClassVar[list[int]] = []
    path: ClassVar[Path | None] = None

    def prepare(self, target: Target, scope: Scope) -> Rollback:
        return Rollback(self.name, (), {"n": 1})

    def apply(self, target: Target, rollback: Rollback) -> None:
        assert self.path is not None
        lines = read_lines(self.path)
        type(self).seen.append(sum(d["op"] == "inject" for d in lines))
        raise RuntimeError("apply blew up")

    def revert(self, target: Target, rollback: Rollback) -> None:
        pass


register(_Spy)


def test_the_line_is_on_disk_before_apply_and_a_failed_apply_is_still_reverted(
    ref: ReferenceTarget, tmp_path: Path
) -> None:
    s = _session(ref, tmp_path)
    _Spy.path = state_journal_path()
    with pytest.raises(RuntimeError, match="apply blew up"):
        s.inject("selftest-spy", Scope())
    assert _Spy.seen[-1] == 1
    assert len(s.held) == 1  # held even though apply raised
    assert s.revert_all() == []
    for path in (state_journal_path(), tmp_path / "report" / JOURNAL_NAME):
        assert outstanding(read_lines(path)) == []
        assert [d["op"] for d in read_lines(path)] == ["inject", "reverted"]


def test_entries_record_touches_undo_and_the_locator(ref: ReferenceTarget, tmp_path: Path) -> None:
    s = _session(ref, tmp_path)
    s.locator = Locator("live", "/abs/kubeconfig", "ctx", 0)
    s.inject("node-cordon", Scope(nodes=("n0",)))
    (entry,) = outstanding(read_lines(state_journal_path()))
    assert entry.rollback.injector == "node-cordon"
    assert entry.rollback.undo == {"prior": {"n0": False}}
    assert entry.locator == Locator("live", "/abs/kubeconfig", "ctx", 0)
    assert entry.rollback.touches[0].name == "n0"
    s.revert_all()


def test_a_torn_last_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    good = {"op": "inject", "id": "a", "injector": "node-cordon", "undo": {"prior": {}}}
    path.write_text(json.dumps(good) + "\n" + '{"op": "reverted", "id": "a"', encoding="utf-8")
    assert [e.id for e in outstanding(read_lines(path))] == ["a"]


def test_replay_reverts_what_a_crashed_session_left(ref: ReferenceTarget, tmp_path: Path) -> None:
    before = node_state(ref)
    s = _session(ref, tmp_path)
    s.inject("node-cordon", Scope(nodes=("n0",)))
    s.inject("node-taint", Scope(nodes=("n0", "n1"), params={"key": "x", "effect": "NoExecute"}))
    assert node_state(ref) != before
    # The session "crashes": nothing reverts it; a new process replays the journal.
    report = replay([state_journal_path()], target_for=lambda _loc: ref)
    assert len(report.reverted) == 2 and not report.failed
    assert node_state(ref) == before
    assert outstanding(read_lines(state_journal_path())) == []
    again = replay([state_journal_path()], target_for=lambda _loc: ref)
    assert again.reverted == [] and again.failed == []


def test_replay_closes_reference_entries_as_moot(ref: ReferenceTarget, tmp_path: Path) -> None:
    s = _session(ref, tmp_path)
    s.inject("node-cordon", Scope(nodes=("n1",)))
    report = replay([state_journal_path()])
    assert len(report.moot) == 1 and report.reverted == []
    assert outstanding(read_lines(state_journal_path())) == []


def test_an_unknown_injector_stays_outstanding(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    doc: dict[str, Any] = {"op": "inject", "id": "z", "injector": "no-such", "undo": {},
                           "target": {"kind": "live"}}
    path.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    report = replay([path], target_for=lambda _loc: ReferenceTarget())
    assert report.failed and "no injector 'no-such'" in report.failed[0]
    assert len(outstanding(read_lines(path))) == 1
    assert "no-such" not in INJECTORS
