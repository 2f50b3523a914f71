"""The horizontal pod autoscaler (``pkg/controller/podautoscaler``), autoscaling/v2."""

from reference_impl.controllers.hpa.controller import SCALED_TO_ZERO, HorizontalController
from reference_impl.controllers.hpa.replica_calculator import ReplicaCalculator

__all__ = ["SCALED_TO_ZERO", "HorizontalController", "ReplicaCalculator"]
