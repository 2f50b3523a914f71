"""ObjectMeta's name, label and annotation errors read as upstream's, word for word: the
Go-quoted value and ``content.RegexError``'s examples and regex (its double space
included). Each message was answered by a live v1.37.2 kube-apiserver to the same body."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_configmap, make_namespace
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import Invalid
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

_SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
CASES = [
    (make_configmap("Bad_Name", "default").build(), "metadata.name",
     f'Invalid value: "Bad_Name": {_SUBDOMAIN}'),
    (make_configmap("c", "default").label("bad key!", "v").build(), "metadata.labels",
     "Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' "
     "or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
     "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
    (make_configmap("c", "default").annotation("/x", "v").build(), "metadata.annotations",
     'Invalid value: "/x": prefix part must be non-empty'),
]  # fmt: skip


@pytest.mark.parametrize(("body", "field", "message"), CASES)
def test_meta_errors_use_upstreams_words(body: dict[str, Any], field: str, message: str) -> None:
    s = APIServer(MVCCStore(), SimClock(), Rng(1), FeatureGates())
    s.create(make_namespace("default").build())
    with pytest.raises(Invalid) as err:
        s.create(body)
    assert [(c.field, c.message) for c in err.value.causes] == [(field, message)]
