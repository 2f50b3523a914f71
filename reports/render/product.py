"""The two PRODUCT.yaml shapes: cncf/k8s-conformance (flat, snake_case) and the CNCF
AI-conformance checklist (camelCase metadata, ``spec.<category>[]`` items)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import yaml

__all__ = ["ai_metadata", "dump_yaml", "k8s_product", "render_k8s_product"]


def dump_yaml(doc: Any) -> str:
    """YAML in the document's own key order, no line folding (values stay byte for byte)."""
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=1 << 30)


def k8s_product(fields: Mapping[str, str], order: tuple[str, ...]) -> dict[str, str]:
    """The k8s-conformance PRODUCT.yaml mapping: the given fields in the documented order."""
    return {k: fields[k] for k in order if k in fields}


def render_k8s_product(fields: Mapping[str, str], order: tuple[str, ...]) -> str:
    """PRODUCT.yaml text for the k8s-conformance bundle."""
    return dump_yaml(k8s_product(fields, order))


def ai_metadata(
    template: Mapping[str, Any], fields: Mapping[str, str], k8s_conformance_url: str
) -> dict[str, Any]:
    """The checklist's metadata block filled from the product, its key order kept."""
    values = {
        "platformName": fields["name"],
        "platformVersion": fields["version"],
        "vendorName": fields["vendor"],
        "websiteUrl": fields["website_url"],
        "repoUrl": fields.get("repo_url", ""),
        "documentationUrl": fields["documentation_url"],
        "productLogoUrl": fields.get("product_logo_url", ""),
        "description": fields["description"],
        "contactEmailAddress": fields["contact_email_address"],
        "k8sConformanceUrl": k8s_conformance_url,
    }
    out = copy.deepcopy(dict(template))
    for key in [*out, *values]:
        if key in values:
            out[key] = values[key]
    return out
