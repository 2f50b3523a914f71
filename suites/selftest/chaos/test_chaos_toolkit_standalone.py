"""garhwal as a plain Chaos Toolkit extension: chaoslib's own Runner, no garhwal runner.
The controls open the session from the experiment's ``garhwal_*`` configuration (the
target through the ``garhwal.connectors`` entry point), journal, and revert at the end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from chaoslib.run import Runner
from chaoslib.types import Strategy

from fixtures.chaos.journal import outstanding, read_lines

EXT = "fixtures.chaos.extension"


def _experiment(tmp_path: Path, **config: Any) -> dict[str, Any]:
    def call(kind: str, name: str, func: str, **args: Any) -> dict[str, Any]:
        return {"type": kind, "name": name,
                "provider": {"type": "python", "module": EXT, "func": func, "arguments": args}}

    probe = call("probe", "untainted", "node_has_taint", node="kwok-node-0", key="garhwal.dev/never")
    probe["tolerance"] = False
    return {
        "title": "standalone", "description": "chaoslib runs garhwal's providers and controls",
        "configuration": {"garhwal_target": "reference", "garhwal_report_dir": str(tmp_path), **config},
        "controls": [{"name": "garhwal", "provider": {"type": "python", "module": "fixtures.chaos.controls"}}],
        "steady-state-hypothesis": {"title": "node 0 has no such taint", "probes": [probe]},
        "method": [call("action", "cordon", "cordon_node", node="kwok-node-0"),
                   call("probe", "cordoned?", "node_is_schedulable", node="kwok-node-0")],
        "rollbacks": [call("action", "undo", "revert_faults")],
    }


def test_a_plain_chaos_toolkit_run(tmp_path: Path) -> None:
    journal = Runner(Strategy.DEFAULT).run(_experiment(tmp_path, garhwal_allow_chaos="true"))
    assert journal["status"] == "completed" and not journal["deviated"]
    assert journal["run"][1]["output"] is False  # cordoned during the method
    lines = read_lines(tmp_path / "chaos-journal.jsonl")
    assert [d["op"] for d in lines] == ["inject", "reverted"]
    assert outstanding(lines) == []
    assert json.dumps(journal, default=str)


def test_a_plain_run_without_allow_chaos_is_interrupted_before_anything(tmp_path: Path) -> None:
    journal = Runner(Strategy.DEFAULT).run(_experiment(tmp_path))
    assert journal["status"] == "interrupted"
    assert journal["run"] == [] and journal["steady_states"]["before"] is None
    assert not (tmp_path / "chaos-journal.jsonl").exists()
