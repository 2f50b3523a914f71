"""README.md of each bundle: what was run, on what, and how to reproduce it."""

from __future__ import annotations

from reports.certify.inputs import Product
from reports.model import Results

__all__ = ["ai_readme", "k8s_readme"]


def _reproduce(results: Results) -> str:
    run = results.run
    live = " --kubeconfig=$KUBECONFIG" if run.target != "reference" else ""
    return (
        "```sh\n"
        "pip install garhwal   # or: git clone the garhwal repository, then ./scripts/bootstrap\n"
        f"garhwal run --certify --target {run.target}{live} --seed {run.seed} --report-dir run/\n"
        "garhwal certify --results run/ --product product.yaml "
        "[--ai-checklist AIConformance-1.37.yaml] --out bundle/\n"
        "```\n"
    )


def _facts(product: Product, results: Results) -> str:
    run, c = results.run, results.counts()
    return (
        f"- Product: {product.fields['name']} {product.fields['version']} "
        f"({product.fields['vendor']})\n"
        f"- Target: {run.target}; cluster version {run.cluster_version}; "
        f"e2e test version {run.e2e_test_version}\n"
        f"- Run {run.run_id}: {c['passed']} passed, {c['failed'] + c['error']} failed, "
        f"{c['skipped']} skipped; seed {run.seed}; certification mode (no skips)\n"
        f"- Started {run.started_at}, finished {run.finished_at}\n"
    )


def k8s_readme(product: Product, results: Results) -> str:
    """The k8s-conformance README.md."""
    return (
        f"# Conformance results for {product.fields['name']} (v1.37)\n\n"
        + _facts(product, results)
        + "\n## How to reproduce\n\n"
        + _reproduce(results)
        + "\n`e2e.log` and `junit_01.xml` are the run's own files. The CNCF bot also requires "
        "the upstream `[Conformance]` tests, run with Sonobuoy or Hydrophone "
        "(`hydrophone --conformance`); garhwal's suites complement that run.\n"
    )


def ai_readme(product: Product, results: Results, manual: list[str]) -> str:
    """The AI-conformance README.md, listing what still needs manual attestation."""
    todo = "".join(f"- `{rid}`\n" for rid in manual) or "- none\n"
    return (
        f"# Kubernetes AI Conformance v1.37: {product.fields['name']}\n\n"
        + _facts(product, results)
        + "\nAutomated evidence links `junit.xml#<test>`. `e2e-results.log` is the run's "
        "Ginkgo-style log, named so the CNCF validator does not parse it as `go test -v` output.\n"
        "\n## Requirements left for manual attestation\n\n"
        + todo
        + "\n## How to reproduce\n\n"
        + _reproduce(results)
    )
