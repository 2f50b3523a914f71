"""``garhwal load``: bad input is one clear line and exit 2; master/worker on loopback."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _garhwal(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    # argv[1] must be "load" for the early gevent patch, as with the console script.
    cmd = [sys.executable, "-c",
           "import sys; sys.argv[0] = 'garhwal'; from fixtures.cli import main; sys.exit(main())",
           "load", *args]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})


def _in_process(*args: str) -> int:
    """``garhwal load ...`` in this process (Locust imported as the load fixture does)."""
    from rich.console import Console

    import fixtures.plugin.load_fixture as lf
    from fixtures.cli import build_parser

    lf._import_runner()
    ns = build_parser().parse_args(["load", *args])
    return int(ns.handler(ns, Console(width=200)))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no-such-profile"], "unknown profile 'no-such-profile'; use one of: api-churn"),
        (["api-churn", "--users", "0"], "--users: must be a positive number of users, not 0"),
        (["api-churn", "--spawn-rate", "-1"], "--spawn-rate: must be positive (users/s), not -1"),
        (["api-churn", "--run-time", "3h"], "--run-time: 10800s is beyond profile api-churn's bound of 1800s"),
        (["api-churn", "--run-time", "soon"], "--run-time: 'soon' is not a duration"),
        (["api-churn", "--slo", "nope=1"], "--slo: unknown SLO nope"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _in_process(*args) == 2
    out = capsys.readouterr()
    lines = [ln for ln in (out.out + out.err).splitlines() if ln.strip()]
    assert len(lines) == 1 and message in lines[0], lines


def test_an_unreachable_live_target_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1', insecure-skip-tls-verify: true}}]\n"
        "contexts: [{name: c, context: {cluster: c, user: u}}]\nusers: [{name: u, user: {token: t}}]\n"
    )
    assert _in_process("api-churn", "--target", "live", "--kubeconfig", str(kubeconfig), "-t", "2s") == 2
    out = capsys.readouterr()
    lines = [ln for ln in (out.out + out.err).splitlines() if ln.strip()]
    assert len(lines) == 1 and "cannot reach the apiserver at https://127.0.0.1:1" in lines[0], lines


def test_a_broken_slo_fails_the_run_with_a_table_naming_it(tmp_path: Path) -> None:
    out = _garhwal("api-churn", "-u", "2", "-r", "2", "-t", "2s", "--slo", "mutating_api_p99=0.0000001",
                   "--csv", str(tmp_path / "run"))
    assert out.returncode == 1, out.stdout + out.stderr
    assert "load: FAIL: mutating_api_p99" in out.stdout
    assert "mutating API call latency p99" in out.stdout and "1e-07 s" in out.stdout
    header = (tmp_path / "run_stats.csv").read_text().splitlines()[0]
    assert header.startswith("Type,Name,Request Count,Failure Count,Median Response Time")
    assert (tmp_path / "run_stats_history.csv").is_file() and (tmp_path / "run_failures.csv").is_file()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_one_master_and_two_workers_on_loopback(tmp_path: Path) -> None:
    port = str(_free_port())
    common = ["api-churn", "-u", "4", "-r", "4", "-t", "6s"]
    base = [sys.executable, "-c",
            "import sys; sys.argv[0] = 'garhwal'; from fixtures.cli import main; sys.exit(main())", "load"]
    env = {"COLUMNS": "200", "PATH": "/usr/bin:/bin"}
    master = subprocess.Popen([*base, *common, "--master", "--expect-workers", "2",
                               "--master-bind-port", port, "--report-dir", str(tmp_path)],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    workers = [subprocess.Popen([*base, *common, "--worker", "--master-port", port, "--seed", str(i)],
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
               for i in range(2)]
    try:
        m_out, _ = master.communicate(timeout=120)
        w_rcs = [w.wait(timeout=60) for w in workers]
    finally:
        for p in (master, *workers):
            if p.poll() is None:
                p.kill()
    assert master.returncode == 0, m_out
    assert w_rcs == [0, 0]
    doc = json.loads((tmp_path / "results.json").read_text())
    run = doc["load"][0]
    assert run["workers"] == 2 and run["profile"] == "api-churn"
    total = run["requests"][-1]
    assert total["name"] == "Aggregated" and total["requests"] > 50
    # Each worker drives its own in-process reference cluster: two namespaces were made.
    assert any(r["type"] == "apply" and r["name"] == "pods" for r in run["requests"])
