"""The kube-scheduler model: framework, queue, cache and in-tree plugins.

``Scheduler(ctx).start()`` is all the composition root needs.
"""

from reference_impl.scheduler.profile import PluginConfig, Profile
from reference_impl.scheduler.scheduler import Scheduler

__all__ = ["PluginConfig", "Profile", "Scheduler"]
