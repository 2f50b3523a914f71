"""The EndpointSlice controller (pkg/controller/endpointslice and k8s.io/endpointslice)."""

from reference_impl.controllers.endpointslice.controller import EndpointSliceController

__all__ = ["EndpointSliceController"]
