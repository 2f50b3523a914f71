"""The Job controller (``pkg/controller/job``)."""

from reference_impl.controllers.job.controller import JobController

__all__ = ["JobController"]
