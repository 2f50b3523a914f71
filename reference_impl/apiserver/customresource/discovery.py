"""The custom resources discovery lists (apiextensions-apiserver
``pkg/apiserver/customresource_discovery_controller.go``), as the controllers that walk
every served resource see them (``discovery.ServerPreferredResources``): each Established
CRD's resource once, at its most preferred served version (kube-aware order, as
``version.CompareKubeAwareVersionStrings``). A Terminating CRD stays listed: only create,
update and patch leave its verbs."""

from __future__ import annotations

from reference_impl.apiserver.customresource.deprecation import kube_aware_key
from reference_impl.apiserver.customresource.info import (
    CustomResourceInfo,
    from_crd,
    stored_crds,
)
from reference_impl.storage.mvcc import MVCCStore

__all__ = ["served_custom_resources"]


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
