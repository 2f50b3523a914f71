"""Cloud providers as the control plane meets them: spot reclaim notices and instances.

``notices`` models the termination notices with each provider's timing and metadata
shape (AWS instance-action, GCP preemption, Azure Scheduled Events); ``spot`` is the
reference's spot market: it issues a notice for a node's instance and terminates the
instance when the notice window ends, after which the cloud node lifecycle controller
deletes a Node whose instance is gone.
"""

from reference_impl.cloud.notices import PROVIDERS, Notice, Provider, notice_for
from reference_impl.cloud.spot import SpotMarket

__all__ = ["PROVIDERS", "Notice", "Provider", "SpotMarket", "notice_for"]
