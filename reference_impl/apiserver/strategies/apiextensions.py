"""CustomResourceDefinition (apiextensions.k8s.io/v1): defaults, strategy and the spec,
names, versions, conversion, subresources, columns, selectable fields and status rules of
upstream v1.37.2 ``apiextensions-apiserver/pkg/apis/apiextensions/validation``.
Schemas are validated by ``apiextensions_schema``."""

from __future__ import annotations

__all__: list[str] = []
