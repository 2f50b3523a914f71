"""The results.json JSON Schema (``results.schema.json``) and its validator."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import jsonschema

__all__ = ["results_schema", "validate_results"]


@cache
def results_schema() -> dict[str, Any]:
    """The schema document, loaded once."""
    text = resources.files(__name__).joinpath("results.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def validate_results(doc: Any, *, source: str = "results.json") -> None:
    """``ValueError`` listing every schema violation (path and message) when ``doc`` is invalid."""
    validator = jsonschema.Draft202012Validator(
        results_schema(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        lines = [
            f"  {'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in errors
        ]
        raise ValueError(f"{source} does not match results.schema.json:\n" + "\n".join(lines))
