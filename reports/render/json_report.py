"""results.json: the run as a schema-checked JSON document."""

from __future__ import annotations

import json

from reports.model import Results
from reports.schema import validate_results

__all__ = ["render_results_json"]


def render_results_json(results: Results) -> str:
    """The results.json text; ``ValueError`` if it would not match the schema."""
    text = results.to_json()
    validate_results(json.loads(text))
    return text
