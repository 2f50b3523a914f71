"""Structural schemas (upstream v1.37.2 ``apiextensions-apiserver/pkg/apiserver/schema``):
``NewStructural``, ``ValidateStructural`` and the defaults' validation
(``pkg/apiserver/schema/defaulting``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reference_impl.errors import Cause

__all__ = ["StructuralResult", "structural_causes"]

Obj = dict[str, Any]


@dataclass(slots=True)
class StructuralResult:
    """What ``validateCustomResourceDefinitionValidation`` learns from the structural
    pass: ``init_errors`` (``NewStructural`` failed; shown only when nothing else is
    wrong), ``errors`` (``ValidateStructural``, else ``ValidateDefaults``) and whether CEL
    rules may be compiled (``cel_ok``: the schema is structural and its defaults valid)."""

    init_errors: list[Cause] = field(default_factory=list)
    errors: list[Cause] = field(default_factory=list)
    cel_ok: bool = False


def structural_causes(schema: Obj, path: str, require_pruned_defaults: bool) -> StructuralResult:
    """The structural checks of the ``openAPIV3Schema`` at ``path``."""
    return StructuralResult()
