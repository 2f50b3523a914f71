"""The certify pipeline's inputs, checked before anything is written: product.yaml, the
AI-conformance checklist and the results directory. Every problem is a ``CertifyError``
that says how to fix it."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import yaml

from reports.model import RESULTS_NAME, Results, load_results

__all__ = [
    "CATEGORIES",
    "CertifyError",
    "K8S_FIELDS",
    "Product",
    "load_checklist",
    "load_product",
    "load_run",
]

KUBERNETES_VERSION: Final = "v1.37"
# cncf/k8s-conformance PRODUCT.yaml, in its documented order; True = required.
K8S_FIELDS: Final = {
    "vendor": True,
    "name": True,
    "version": True,
    "website_url": True,
    "repo_url": False,
    "documentation_url": True,
    "product_logo_url": False,
    "type": True,
    "description": True,
    "contact_email_address": True,
}
EXTRA_FIELDS: Final = ("k8s_conformance_url", "dir", "ai_attestations")
TYPES: Final = ("distribution", "hosted platform", "installer")
CATEGORIES: Final = (
    "accelerators",
    "networking",
    "schedulingOrchestration",
    "observability",
    "security",
    "operator",
)
STATUSES: Final = ("Implemented", "Not Implemented", "Partially Implemented", "N/A")
PLACEHOLDER: Final = re.compile(r"\[[^\]]*\]")
EMAIL: Final = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
K8S_URL: Final = re.compile(
    r"^https://github\.com/cncf/k8s-conformance/tree/(master|main)/v1\.\d+/[^/]+/?$"
)


class CertifyError(Exception):
    """Bad input: nothing is written. The message lists each problem and its fix."""


@dataclass(frozen=True, slots=True)
class Product:
    """Validated product metadata, plus the bundle directory name and manual attestations."""

    fields: dict[str, str]
    dir: str
    k8s_conformance_url: str | None
    attestations: dict[str, dict[str, Any]]


def _yaml(path: Path, what: str) -> Any:
    if not path.is_file():
        raise CertifyError(f"{what} {path} does not exist; fix: pass an existing file")
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise CertifyError(f"{what} {path} is not valid YAML: {exc}") from None


def _field_problems(doc: dict[str, Any], need_ai: bool) -> list[str]:
    problems: list[str] = []
    for key in doc:
        if key not in K8S_FIELDS and key not in EXTRA_FIELDS:
            near = difflib.get_close_matches(str(key), [*K8S_FIELDS, *EXTRA_FIELDS], n=1)
            hint = f"did you mean {near[0]!r}?" if near else "remove it"
            problems.append(f"unknown field {key!r}; fix: {hint}")
    for key, required in K8S_FIELDS.items():
        value = doc.get(key)
        if value is None or str(value).strip() == "":
            if required:
                problems.append(f"{key} is missing or empty; fix: set {key}")
            continue
        text = str(value)
        if PLACEHOLDER.search(text):
            problems.append(f"{key} is a placeholder ({text!r}); fix: put the real value")
        elif key.endswith("_url") and not text.startswith(("https://", "http://")):
            problems.append(f"{key} {text!r} is not an http(s) URL; fix: use a full URL")
    if doc.get("type") and doc["type"] not in TYPES:
        problems.append(f"type {doc['type']!r} is not one of {', '.join(TYPES)}; fix: pick one")
    email = str(doc.get("contact_email_address") or "")
    if email and not EMAIL.match(email):
        problems.append(f"contact_email_address {email!r} is not an email address")
    logo = str(doc.get("product_logo_url") or "")
    if logo and not logo.lower().endswith((".svg", ".eps", ".ai")):
        problems.append(f"product_logo_url {logo!r} must end in .svg, .eps or .ai")
    if need_ai:
        if not logo:
            problems.append("product_logo_url is required by AI conformance; fix: set it (.svg)")
        url = str(doc.get("k8s_conformance_url") or "")
        if not K8S_URL.match(url):
            problems.append(
                f"k8s_conformance_url {url!r} must be https://github.com/cncf/k8s-conformance/"
                "tree/main/vX.Y/<product> (AI conformance needs base conformance first)"
            )
    return problems


def load_product(path: Path, *, need_ai: bool) -> Product:
    """Read and check product.yaml; ``CertifyError`` listing every problem with its fix."""
    doc = _yaml(path, "product file")
    if not isinstance(doc, dict):
        raise CertifyError(f"product file {path} must be a YAML mapping of PRODUCT.yaml fields")
    problems = _field_problems(doc, need_ai)
    attest = doc.get("ai_attestations") or {}
    if not isinstance(attest, dict) or not all(isinstance(v, dict) for v in attest.values()):
        problems.append("ai_attestations must map requirement ids to {status, evidence, notes}")
        attest = {}
    if problems:
        raise CertifyError(
            f"invalid product file {path}:\n" + "\n".join(f"  - {p}" for p in problems)
        )
    fields = {k: str(doc[k]).strip() for k in K8S_FIELDS if doc.get(k)}
    slug = re.sub(r"[^a-z0-9]+", "-", fields["name"].lower()).strip("-")
    url = str(doc["k8s_conformance_url"]) if doc.get("k8s_conformance_url") else None
    return Product(fields, str(doc.get("dir") or slug), url, dict(attest))


def load_checklist(path: Path) -> dict[str, Any]:
    """Read the user's AIConformance-1.37.yaml and check it is a v1.37 checklist."""
    doc = _yaml(path, "AI checklist")
    if not isinstance(doc, dict) or not isinstance(doc.get("metadata"), dict):
        raise CertifyError(
            f"AI checklist {path} has no metadata; fix: use docs/AIConformance-1.37.yaml"
        )
    version = str(doc["metadata"].get("kubernetesVersion", ""))
    if not re.match(r"^v1\.37(\.\d+)?$", version):
        raise CertifyError(
            f"AI checklist {path} is for kubernetesVersion {version!r}, not {KUBERNETES_VERSION}; "
            "fix: use docs/AIConformance-1.37.yaml from cncf/k8s-ai-conformance"
        )
    spec = doc.get("spec")
    problems = [] if isinstance(spec, dict) else ["spec is missing"]
    for cat in CATEGORIES:
        items = spec.get(cat) if isinstance(spec, dict) else None
        if not isinstance(items, list):
            problems += [f"spec.{cat} is missing"] if isinstance(spec, dict) else []
            continue
        for i, item in enumerate(items):
            if not isinstance(item, dict) or not {"id", "description", "level"} <= item.keys():
                problems.append(f"spec.{cat}[{i}] lacks id, description or level")
            elif item["level"] not in ("MUST", "SHOULD"):
                problems.append(f"spec.{cat}[{i}].level {item['level']!r} is not MUST or SHOULD")
    if problems:
        raise CertifyError(
            f"AI checklist {path} is malformed:\n" + "\n".join(f"  - {p}" for p in problems)
        )
    return doc


def load_run(run_dir: Path) -> Results:
    """The run to certify: finished, made with --certify, no failures, no conformance skips."""
    try:
        results = load_results(run_dir)
    except ValueError as exc:
        raise CertifyError(str(exc)) from None
    for name in ("junit_01.xml", "e2e.log", RESULTS_NAME):
        if not (run_dir / name).is_file():
            raise CertifyError(
                f"{run_dir / name} is missing; fix: rerun with --report-dir={run_dir}"
            )
    problems: list[str] = []
    if not results.run.complete:
        run, not_run = results.run, results.not_run()
        if run.interrupted:
            why = "was interrupted"
        elif run.finished_at is None:
            why = "did not finish (it crashed or is still going)"
        else:
            why = "stopped early"
        if not_run:
            why += f": {not_run} of {run.collected} collected tests did not run"
        problems.append(f"the run {why}; fix: rerun it to the end")
    if not results.run.certify:
        problems.append("the run was not made with --certify; fix: rerun with --certify")
    failed = [t.nodeid for t in results.tests if t.outcome in ("failed", "error")]
    problems += [f"{n} failed; fix: make it pass and rerun" for n in failed]
    problems += [
        f"{t.nodeid} was skipped ({t.skip_reason}); certification allows no skips: fix the cause "
        "(capability, gate) and rerun with --certify"
        for t in results.tests
        if t.outcome == "skipped" and t.conformance
    ]
    if not results.tests:
        problems.append("the run has no tests; fix: run the conformance suites")
    if problems:
        raise CertifyError(
            f"results in {run_dir} cannot be certified:\n" + "\n".join(f"  - {p}" for p in problems)
        )
    return results
