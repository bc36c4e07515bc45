"""Fixtures of the unit tests: the judge's stand-in watch (judge_fake.py), for the record and
read-model tests about the judging rather than about the engine."""

from __future__ import annotations

import pytest

from server.readmodels import judge
from tests.unit.judge_fake import CardCount


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> CardCount:
    """The stand-in evaluator (judge_fake.py) in the judge's place, for the tests about the
    judging and its commands rather than about how good the evaluator is."""
    evaluator = CardCount()
    monkeypatch.setattr(judge, "evaluator", lambda: evaluator)
    return evaluator
