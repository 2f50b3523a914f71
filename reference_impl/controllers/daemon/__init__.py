"""The DaemonSet controller (``pkg/controller/daemon``)."""

from reference_impl.controllers.daemon.controller import DaemonSetsController

__all__ = ["DaemonSetsController"]
