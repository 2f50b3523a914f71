"""``garhwal bench`` on one upstream scheduler_perf case, its parameters as options.

The callers (``benchmarks.scheduling.basic``, ``benchmarks.dra.scheduler_perf``) name the
workload file, case, workload and which of its parameters an option sets.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from fixtures.cli import main as garhwal

__all__ = ["Param", "args_for", "main"]

Param = tuple[str, str, int]  # (option, scheduler_perf parameter, default)


def args_for(file: Path, case: str, workload: str, params: Sequence[Param], ns: argparse.Namespace) -> list[str]:
    """The ``garhwal bench`` command line for these options."""
    argv = ["bench", str(file), "--case", case, "--workload", workload]
    for option, param, _ in params:
        argv += ["--param", f"{param}={getattr(ns, _dest(option))}"]
    if ns.against:
        argv += ["--against", ns.against, "--repeat", str(ns.repeat)]
    return argv + (["--out", str(ns.out)] if ns.out else [])


def main(
    argv: list[str] | None, doc: str, file: Path, case: str, workload: str, params: Sequence[Param]
) -> int:
    """Parse ``argv`` and run garhwal bench; its exit status."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    for option, _, default in params:
        ap.add_argument(option, type=int, default=default)
    ap.add_argument("--against", choices=["upstream"])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--out", type=Path)
    return garhwal(args_for(file, case, workload, params, ap.parse_args(argv)))


def _dest(option: str) -> str:
    return option.lstrip("-").replace("-", "_")
