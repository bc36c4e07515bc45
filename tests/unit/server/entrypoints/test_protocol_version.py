"""The handshake's protocol version as the server reads it (server/entrypoints/protocol.py): a
version is a whole number 0 <= v < 10**6; anything else is quoted, cut, never echoed whole (issue 28
review)."""

from __future__ import annotations

from server.entrypoints import protocol
from server.errors import QUOTE_CHARS


def test_a_huge_number_is_no_version_and_is_quoted_cut() -> None:
    huge = int("9" * 4000)
    assert protocol.version_of(huge) is None
    refused = protocol.refusal({}, {"protocol": huge})
    assert refused is not None and refused["code"] == protocol.UNSUPPORTED
    # quoted: at most QUOTE_CHARS characters, in quotes, with an ellipsis
    asked = refused["asked"]
    assert isinstance(asked, str) and len(asked) <= QUOTE_CHARS + 3
    assert len(str(refused["message"])) < 250
    assert "is not a protocol version this server knows" in str(refused["message"])


def test_versions_are_whole_numbers_below_a_million() -> None:
    assert protocol.version_of(0) == 0 and protocol.version_of(999_999) == 999_999
    assert protocol.version_of(10**6) is None and protocol.version_of(-2) is None
    assert protocol.version_of(True) is None and protocol.version_of("2") == 2
    newer = protocol.refusal({}, {"protocol": 999_999})
    assert newer is not None and newer["asked"] == 999_999
    assert "999999 is newer than this server's" in str(newer["message"])
    negative = protocol.refusal({}, {"protocol": -5})
    assert negative is not None and negative["asked"] == "-5"
    assert protocol.refusal({}, {"protocol": 2}) is None


def test_a_long_string_is_quoted_cut() -> None:
    refused = protocol.refusal({"QUERY_STRING": "protocol=" + "x" * 5000}, None)
    assert refused is not None and len(str(refused["asked"])) <= QUOTE_CHARS + 3
    assert len(str(refused["message"])) < 250
