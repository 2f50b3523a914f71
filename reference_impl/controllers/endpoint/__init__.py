"""The legacy Endpoints controller (pkg/controller/endpoint and pkg/api/v1/endpoints)."""

from reference_impl.controllers.endpoint.endpoints_controller import EndpointController

__all__ = ["EndpointController"]
