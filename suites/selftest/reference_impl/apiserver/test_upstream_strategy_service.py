"""pkg/registry/core/service/strategy_test.go (v1.37.2) TestCheckGeneratedNameError
(``rest.CheckGeneratedNameError`` with the Service strategy), through
``APIServer.create``: the error a Service create ends with.

Upstream calls the helper with hand-made errors; here each case makes the create fail
that way. The generated-name case needs every one of the registry's name draws to be
taken, so the server's name generator is pinned to one name.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import AlreadyExists, NotFound
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]


def _server() -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace("default").build())
    return s


def _service(namespace: str = "default", **meta: str) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"namespace": namespace, **meta},
        "spec": {"selector": {"key": "val"}, "ports": [{"name": "p", "port": 8675}]},
    }


def test_not_found_is_returned_as_is() -> None:
    """"NotFoundError should be ignored": an error other than AlreadyExists passes."""
    with pytest.raises(NotFound) as err:
        _server().create(_service("missing", name="bar"))
    assert "already exists" not in err.value.message


def test_already_exists_without_generate_name() -> None:
    """"AlreadyExists should be returned when no GenerateName field"."""
    s = _server()
    s.create(_service(name="bar"))
    with pytest.raises(AlreadyExists) as err:
        s.create(_service(name="bar"))
    assert err.value.message == 'services "bar" already exists'


def test_already_exists_with_generate_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """"expected try again later error": a generated name that is taken (every draw) is
    still AlreadyExists, with NewGenerateNameConflict's message."""
    s = _server()
    monkeypatch.setattr(s, "_generate_name", lambda kind, base: f"{base}abcde")
    s.create(_service(generateName="foo"))
    with pytest.raises(AlreadyExists) as err:
        s.create(_service(generateName="foo"))
    assert err.value.code == 409
    assert err.value.message == (
        'services "fooabcde" already exists, the server was not able to generate a unique '
        "name for the object"
    )
