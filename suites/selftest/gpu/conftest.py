"""An NVML node for library and agent selftests: garhwal's library mapped into this process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from fixtures.gpu.library import LibraryUnavailable, load_in_process
from fixtures.nvml.state import GpuNode


@pytest.fixture
def nvml_node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GpuNode:
    """A healthy 8-GPU H200 node whose files the library reads at the next nvmlInit."""
    node = GpuNode.create(tmp_path / "gpu", "node-a", "H200", 8)
    for k, v in node.env().items():
        monkeypatch.setenv(k, v)
    return node


@pytest.fixture
def nvml(nvml_node: GpuNode) -> Iterator[ModuleType]:
    """pynvml, initialised against ``nvml_node``; shut down after the test."""
    try:
        load_in_process()
    except LibraryUnavailable as e:
        pytest.skip(str(e))
    import pynvml

    pynvml.nvmlInit()
    try:
        yield pynvml
    finally:
        while True:  # balance any extra nvmlInit a test made
            try:
                pynvml.nvmlShutdown()
            except pynvml.NVMLError:
                break
