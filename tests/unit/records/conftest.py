"""Fixtures of the record tests."""

from __future__ import annotations

import pytest

from records import judge
from tests.unit.records.evaluator_fake import CardCount


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> CardCount:
    """The stand-in evaluator (evaluator_fake.py) in the judge's place, for the tests about the
    judging and its commands rather than about how good the evaluator is."""
    evaluator = CardCount()
    monkeypatch.setattr(judge, "evaluator", lambda: evaluator)
    return evaluator
