"""Typed reading of the lobby's seat tickets in tests."""

from __future__ import annotations

from server.wire.payloads import SeatTicket


def token_of(ticket: SeatTicket) -> str:
    """The seat token of a ticket that took a seat (a queued person or a bot has none)."""
    token = ticket["seat_token"]
    assert token is not None, ticket
    return token


def seat_of(ticket: SeatTicket) -> int:
    """The seat of a ticket that took one (a person waiting in a queue has none)."""
    seat = ticket["seat"]
    assert seat is not None, ticket
    return seat
