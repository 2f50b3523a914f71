"""The StatefulSet controller (``pkg/controller/statefulset``)."""

from reference_impl.controllers.statefulset.controller import StatefulSetController

__all__ = ["StatefulSetController"]
