"""The store's JSON codec: orjson where it can, the standard library where orjson refuses,
and every value comes back as a JSON round trip through the standard library gives it."""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from reference_impl.storage import codec
from reference_impl.storage.mvcc import MVCCStore

# JSON-shaped values, integers beyond 64 bits included (RawExtension parameters can hold them).
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@given(_VALUES)
def test_a_round_trip_gives_what_the_standard_library_gives(value: Any) -> None:
    want = json.dumps(value, sort_keys=True)  # 1 and 1.0 differ here, unlike with ==
    assert json.dumps(codec.loads(codec.dumps(value)), sort_keys=True) == want
    assert json.dumps(codec.loads(codec.dumps(value, sort_keys=True)), sort_keys=True) == want


def test_big_integers_keep_their_value_through_the_store() -> None:
    s = MVCCStore()
    s.put("/r/a", {"spec": {"parameters": {"n": 2**70, "m": -(2**65)}}})
    kv = s.get("/r/a")
    assert kv is not None
    assert kv.decode() == {"spec": {"parameters": {"n": 2**70, "m": -(2**65)}}}
    assert isinstance(kv.decode()["spec"]["parameters"]["n"], int)


def test_what_orjson_refuses_encodes_as_before() -> None:
    # Non-string keys become strings and tuples become lists, as json.dumps makes them.
    assert codec.loads(codec.dumps({1: (1, 2), "a": None})) == {"1": [1, 2], "a": None}
    assert codec.dumps({"b": 1, "a": [1]}, sort_keys=True) == b'{"a":[1],"b":1}'


def test_encoded_bytes_hold_no_spare_buffer() -> None:
    # Stored values live as long as their revision: each must cost about its length.
    pod = {"spec": {"containers": [{"name": f"c{i}", "image": "x" * 20} for i in range(40)]}}
    tracemalloc.start()
    try:
        kept = [codec.dumps(pod, sort_keys=True) for _ in range(50)]
        per_value = tracemalloc.get_traced_memory()[0] / len(kept)
    finally:
        tracemalloc.stop()
    assert per_value < 1.25 * len(kept[0]) + 64, (per_value, len(kept[0]))
