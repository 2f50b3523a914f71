"""The Deployment controller (``pkg/controller/deployment``)."""

from reference_impl.controllers.deployment.controller import DeploymentController

__all__ = ["DeploymentController"]
