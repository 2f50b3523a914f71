"""The custom resources discovery lists (apiextensions-apiserver
``pkg/apiserver/customresource_discovery_controller.go``), as the controllers that walk
every served resource see them (``discovery.ServerPreferredResources``): each Established
CRD's resource once, at its most preferred served version (kube-aware order, as
``version.CompareKubeAwareVersionStrings``). A Terminating CRD stays listed: only create,
update and patch leave its verbs."""

from __future__ import annotations

import re
from typing import Final

from reference_impl.apiserver.customresource.info import (
    CustomResourceInfo,
    from_crd,
    stored_crds,
)
from reference_impl.storage.mvcc import MVCCStore

__all__ = ["kube_aware_key", "served_custom_resources"]

_KUBE_VERSION: Final = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")
_TYPE_RANK: Final = {"alpha": 0, "beta": 1, None: 2}


def kube_aware_key(v: str) -> tuple[int, int, int, int, str]:
    """A sort key putting the most preferred version first: GA, beta, alpha (each by
    descending numbers), then the versions that are not kube-like, alphabetically."""
    m = _KUBE_VERSION.match(v)
    if m is None:
        return (1, 0, 0, 0, v)
    major, kind, minor = int(m.group(1)), m.group(2), int(m.group(3) or 0)
    return (0, -_TYPE_RANK[kind], -major, -minor, "")


def served_custom_resources(
    store: MVCCStore, namespaced: bool | None = None
) -> list[CustomResourceInfo]:
    """One CustomResourceInfo per Established CRD with a served version, sorted by
    group/resource (built once per stored set of CRDs)."""
    crds = stored_crds(store)
    if crds.served_infos is None:
        out: list[CustomResourceInfo] = []
        for crd in crds.crds:
            versions = (crd.get("spec") or {}).get("versions") or ()
            names = sorted(
                (str(v["name"]) for v in versions if isinstance(v, dict) and v.get("served")),
                key=kube_aware_key,
            )
            info = from_crd(crd, names[0]) if names else None
            if info is not None:
                out.append(info)
        crds.served_infos = sorted(out, key=lambda i: i.group_resource)
    return [i for i in crds.served_infos if namespaced is None or i.namespaced == namespaced]
