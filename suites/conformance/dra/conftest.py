"""DRA suites get the fake driver fixture (``dra_driver``) and GPU nodes with health agents (``gpu_fleet``)."""

from fixtures.helpers.dra_driver import dra_driver
from fixtures.plugin.gpu_fleet import gpu_fleet

__all__ = ["dra_driver", "gpu_fleet"]
