"""DRA suites get the fake driver fixture (``dra_driver``)."""

from fixtures.helpers.dra_driver import dra_driver

__all__ = ["dra_driver"]
