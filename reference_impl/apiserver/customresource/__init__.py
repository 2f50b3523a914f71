"""Custom resources served from CustomResourceDefinitions (apiextensions-apiserver v0.37.2
``pkg/apiserver/customresource_handler.go`` and ``pkg/registry/customresource``)."""

from reference_impl.apiserver.customresource.info import CustomResourceInfo, is_custom, lookup

__all__ = ["CustomResourceInfo", "is_custom", "lookup"]
