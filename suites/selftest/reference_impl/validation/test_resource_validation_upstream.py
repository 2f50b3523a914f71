"""resource.k8s.io validation against upstream's own answers.

Each case of ``fixtures.validation_diff.dra_cases`` (objects after upstream's
``pkg/apis/resource/validation/*_test.go``, at and past every limit) was sent to the real
v1.37.2 kube-apiserver with ``dryRun=All``; ``dra_expected.json`` holds its answers. The
reference must give the same verdict and the same (reason, field path) set, and the same
messages except where noted in ``_MESSAGE_GAPS``. Re-record after changing a case:
``python -m fixtures.validation_diff --kubeconfig K --record fixtures/validation_diff/dra_expected.json``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, Final

import pytest

from fixtures.validation_diff import Case, run_reference
from fixtures.validation_diff.dra_cases import CASES

_EXPECTED: Final = Path(__file__).parents[4] / "fixtures" / "validation_diff" / "dra_expected.json"
# Cases whose messages differ on purpose, and why (field paths and reasons still agree).
_MESSAGE_GAPS: Final = {
    "claim/bad-name": "ObjectMeta (shared meta.py) quotes the name Python-style",
    "class/bad-name": "ObjectMeta (shared meta.py) quotes the name Python-style",
    "rule/bad-name": "ObjectMeta (shared meta.py) quotes the name Python-style",
    "claim/cel-parse": "cel-go's ANTLR syntax error text",
    "claim/cel-empty": "cel-go's ANTLR syntax error text",
    "more/claim-derived-all-int": "cel-go reports the body's column",
    "template/update": "Go prints the whole internal spec struct",
    "status/devices-duplicate": "Go prints the versioned item with its nil fields",
    "slice/node-selector-two-terms": "Go prints the internal structs' field names",
    "cel/ternary-mixed": "cel-go reports the operator's column",
    "cel/uint-mix": "cel-go reports the operator's column",
}


@cache
def _expected() -> dict[str, Any]:
    out: dict[str, Any] = json.loads(_EXPECTED.read_text("utf-8"))
    return out


def test_every_case_has_upstreams_answer() -> None:
    assert sorted(c.id for c in CASES) == sorted(_expected())


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_reference_answers_as_upstream(case: Case) -> None:
    want = _expected()[case.id]
    got = run_reference(case)
    assert not got.other, got.other
    assert got.accepted == want["accepted"], got.errors
    assert sorted(got.pairs()) == sorted({(r, f) for r, f, _ in want["errors"]})
    if case.id not in _MESSAGE_GAPS:
        assert sorted(set(got.errors)) == sorted({tuple(e) for e in want["errors"]})
