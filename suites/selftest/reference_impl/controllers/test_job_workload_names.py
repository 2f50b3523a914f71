"""Names of a Job's Workload and PodGroup follow job_scheduling_manager.go exactly."""

from __future__ import annotations

from reference_impl.controllers.job_workload import pod_group_name, template_name, workload_name


def test_workload_name_hashes_the_spew_dump_of_the_uid() -> None:
    # FNV-32a("(types.UID)0b3f2c1e-...") = 3581067057, computed with go-spew and hash/fnv.
    job = {"metadata": {"name": "train", "uid": "0b3f2c1e-1111-2222-3333-444455556666"}}
    digest = "".join("bcdfghjklmnpqrstvwxz2456789"[ord(c) % 27] for c in "3581067057")
    assert workload_name(job) == f"train-{digest}"
    assert template_name(job) == "train-pgt-0"


def test_long_names_are_cut_to_253_characters_as_upstream_does() -> None:
    job = {"metadata": {"name": "j" * 300, "uid": "u"}}
    wl = workload_name(job)
    assert len(wl) == 253 and wl.startswith("j" * 242 + "-")
    short, long_tpl = "w" * 10, "t" * 300
    name = pod_group_name(short, long_tpl)
    assert len(name) == 253 and name.startswith(
        short + "-" + "t" * (253 - 10 - 2 - len(name.rsplit("-", 1)[1]))
    )
    both = pod_group_name("w" * 200, "t" * 200)
    digest = both.rsplit("-", 1)[1]
    room = 253 - len(digest) - 2
    assert both == f"{'w' * (room - room // 2)}-{'t' * (room // 2)}-{digest}"


def test_short_names_are_joined_whole() -> None:
    # FNV-32a("train-abc" + "train-pgt-0") = 2277592581 (hash/fnv, both names written).
    digest = "".join("bcdfghjklmnpqrstvwxz2456789"[ord(c) % 27] for c in "2277592581")
    assert pod_group_name("train-abc", "train-pgt-0") == f"train-abc-train-pgt-0-{digest}"
