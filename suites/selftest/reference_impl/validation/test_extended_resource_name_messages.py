"""DeviceClass ``spec.extendedResourceName`` length errors word for word as the v1.37.2
apiserver answered them (checked with ``dryRun=All``): the declarative ``content``
checks count bytes where ObjectMeta's ``util/validation`` counts characters."""

from __future__ import annotations

from reference_impl.apiserver.strategies.resource_extended import extended_resource_name_errors


def test_length_errors_say_bytes() -> None:
    assert extended_resource_name_errors("example.com/" + "a" * 64) == [
        "name part must be no more than 63 bytes"
    ]
    assert extended_resource_name_errors("a" * 250 + ".com/gpu") == [
        "prefix part must be no more than 253 bytes"
    ]


def test_an_empty_name_part_gets_both_upstream_errors() -> None:
    assert extended_resource_name_errors("example.com/") == [
        "name part must be non-empty",
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and"
        " end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex"
        " used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]
