"""ClusterTrustBundle projection (``pkg/kubelet/clustertrustbundle/clustertrustbundle_manager.go``).

A ``clusterTrustBundle`` source names one bundle (``name``) or selects every bundle of a
signer whose labels match ``labelSelector`` (unset matches nothing, ``{}`` matches all).
The selected trust anchors are merged and de-duplicated; this model writes them in sorted
order so the file is reproducible. A non-optional source that finds nothing keeps the pod
from starting; an optional one writes no file.
"""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.api.meta import selector_from_label_selector
from reference_impl.apiserver.informers import SharedInformer

__all__ = ["pem_blocks", "trust_anchors"]

Obj = dict[str, Any]
_BLOCK: Final = re.compile(
    r"-----BEGIN CERTIFICATE-----\r?\n.*?-----END CERTIFICATE-----", re.DOTALL
)


def pem_blocks(bundle: str) -> list[str]:
    """The CERTIFICATE blocks of a PEM bundle, each ending in a newline."""
    return [m.group(0) + "\n" for m in _BLOCK.finditer(bundle)]


def trust_anchors(source: Obj, bundles: SharedInformer) -> str | None:
    """The merged PEM a ``clusterTrustBundle`` source projects, or None when nothing
    matched (the caller decides by ``optional`` whether that blocks the pod)."""
    if source.get("name"):
        obj = bundles.get(str(source["name"]))
        found = [obj] if obj is not None else []
    else:
        signer = source.get("signerName")
        selector = selector_from_label_selector(source.get("labelSelector"))
        found = [
            b
            for b in bundles.items()
            if signer
            and (b.get("spec") or {}).get("signerName") == signer
            and selector.matches(b["metadata"].get("labels"))
        ]
    blocks = sorted({blk for b in found for blk in pem_blocks(str(b["spec"]["trustBundle"]))})
    return "".join(blocks) if blocks else None
