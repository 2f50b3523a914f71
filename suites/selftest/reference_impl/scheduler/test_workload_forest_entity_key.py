"""``EntityKey`` with its hash made once: equal keys hash as the (type, namespace, name)
tuple did, whichever way they were made, and copies and pickles rebuild the hash."""

from __future__ import annotations

import copy
import dataclasses
import pickle

from reference_impl.scheduler.framework.workload_forest import (
    COMPOSITE_POD_GROUP_KEY_TYPE,
    POD_GROUP_KEY_TYPE,
    EntityKey,
    PodGroupInfo,
    composite_pod_group_key,
    pod_group_key,
    pod_group_key_for_pod,
)


def test_hash_and_equality_as_the_fields() -> None:
    a, b = EntityKey(POD_GROUP_KEY_TYPE, "ns", "g"), pod_group_key("ns", "g")
    assert a == b and hash(a) == hash(b) == hash((POD_GROUP_KEY_TYPE, "ns", "g"))
    assert a != composite_pod_group_key("ns", "g") and a != EntityKey(POD_GROUP_KEY_TYPE, "ns", "h")
    assert a != (POD_GROUP_KEY_TYPE, "ns", "g")  # not a tuple
    assert {a: 1}[b] == 1 and b in {a}
    assert (
        repr(a) == "EntityKey(type='podgroup', namespace='ns', name='g')"
        and str(a) == "podgroup/ns/g"
    )


def test_keys_made_every_way_agree() -> None:
    pod = {"metadata": {"namespace": "ns"}, "spec": {"schedulingGroup": {"podGroupName": "g"}}}
    info = PodGroupInfo("ns", "g", COMPOSITE_POD_GROUP_KEY_TYPE)
    assert pod_group_key_for_pod(pod) == pod_group_key("ns", "g")
    assert info.key == composite_pod_group_key("ns", "g")
    assert hash(info.key) == hash((COMPOSITE_POD_GROUP_KEY_TYPE, "ns", "g"))


def test_copies_rebuild_the_hash() -> None:
    a = pod_group_key("ns", "g")
    for other in (copy.copy(a), copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        assert other == a and hash(other) == hash(a)
    assert pickle.loads(pickle.dumps(a)).__reduce__() == (
        EntityKey,
        (POD_GROUP_KEY_TYPE, "ns", "g"),
    )
    moved = dataclasses.replace(a, name="h")
    assert moved == pod_group_key("ns", "h") and hash(moved) == hash(
        (POD_GROUP_KEY_TYPE, "ns", "h")
    )
