"""report.html in headless Chromium: the matrix renders and the page logs no console errors."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from reports.model import Results, RunMeta, TestEntry
from reports.render.extras import load_extras
from reports.render.html import render_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; CI installs it)"
)


def _flags(profile: Path) -> list[str]:
    assert CHROMIUM is not None
    return [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
    ]  # fmt: skip


def _page(tmp_path: Path) -> Path:
    meta = RunMeta("run-x", "reference", "v1.37.0-garhwal-reference", {"A": True}, 1, True,
                   "2026-01-01T00:00:00+00:00", "2026-01-01T00:01:00+00:00", True, 1)  # fmt: skip
    tests = [
        TestEntry(
            "t.py::test_a", "test_a", "t", "passed", 0.1, "reference", "GANG", "KEP-4671", "beta"
        ),
        TestEntry(
            "t.py::test_b",
            "test_b",
            "t",
            "skipped",
            0.0,
            "live",
            "GANG",
            "KEP-4671",
            "beta",
            skip_reason="target 'live' lacks capability KUBELET",
        ),  # fmt: skip
        TestEntry(
            "t.py::test_c",
            "test_c",
            "t",
            "failed",
            0.2,
            "reference",
            "DRA-CORE",
            "KEP-4381",
            "ga",
            evidence={"message": "AssertionError: <script>alert(1)</script>"},
        ),  # fmt: skip
    ]
    (tmp_path / "load.json").write_text('{"latency_ms": {"create": [1, 2, 3]}}')
    html = render_html([Results(meta, tests)], load_extras(tmp_path))
    path = tmp_path / "report.html"
    path.write_text(html)
    return path


def test_matrix_renders_with_no_console_errors(tmp_path: Path) -> None:
    page = _page(tmp_path)
    run = subprocess.run(
        [*_flags(tmp_path / "p1"), "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    dom = run.stdout
    assert run.returncode == 0, run.stderr[-2000:]
    assert re.search(r'data-console-errors="0"', dom), "page JS counted console errors"
    assert re.search(r'data-matrix-cells="4"', dom)  # 2 features x 2 targets
    assert 'class="cell st-fail"' in dom and 'class="cell st-skip"' in dom
    assert "lacks capability KUBELET" in dom and "<script>alert(1)" not in dom
    assert not re.findall(r"CONSOLE\(\d+\)", run.stderr), run.stderr[-2000:]
    shot = tmp_path / "shot.png"
    subprocess.run(
        [*_flags(tmp_path / "p2"), f"--screenshot={shot}", "--window-size=1280,900", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 5000
