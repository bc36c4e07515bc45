"""The shared service fixtures of tests/conftest.py: skip with a reason locally, fail under CI."""

from __future__ import annotations

import pytest

from tests.conftest import (
    _postgres_problem,
    _redis_problem,
    find_free_port,
    service_unavailable,
    services_required,
)


def test_missing_service_skips_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CRAPETTE_REQUIRE_SERVICES", raising=False)
    assert not services_required()
    with pytest.raises(pytest.skip.Exception, match="PostgreSQL unavailable: refused"):
        service_unavailable("PostgreSQL", "refused")


@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_missing_service_fails_when_required(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CRAPETTE_REQUIRE_SERVICES", value)
    assert services_required()
    with pytest.raises(pytest.fail.Exception, match="Redis unavailable: refused"):
        service_unavailable("Redis", "refused")


@pytest.mark.parametrize("value", ["", "0", "false"])
def test_requirement_can_be_switched_off(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CRAPETTE_REQUIRE_SERVICES", value)
    assert not services_required()


def test_unreachable_postgres_is_described() -> None:
    port = find_free_port()  # nothing listens there
    problem = _postgres_problem(f"postgresql://postgres@127.0.0.1:{port}/test")
    assert problem is not None and f"127.0.0.1:{port}" in problem


def test_unreachable_redis_is_described() -> None:
    port = find_free_port()
    problem = _redis_problem(f"redis://127.0.0.1:{port}/0")
    assert problem is not None and str(port) in problem
    assert (
        _redis_problem("http://example.invalid/") == "not a redis:// URL: http://example.invalid/"
    )
