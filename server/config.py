"""Server settings, one frozen record handed to the app factory."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ServerConfig:
    store_url: str = "memory://"
    async_mode: str = "eventlet"  # or "threading"
    # How long a player may stay away before the opponent can claim (resignation or a bot).
    grace_s: float = 60.0
    # Pause before a seated bot plays: None = each table's "bot pace" (normal: 1 s), so that
    # people can follow its moves; a number overrides every table (tests, benchmarks).
    bot_delay_s: float | None = None
    # Allow the test-only bots of server/testbots.py (never listed in the lobby).
    test_bots: bool = False
    # Period of the clock/bot ticker; deadlines themselves come from event times.
    tick_s: float = 0.1
    host: str = "127.0.0.1"
    port: int = 8000
    secret_key: str = field(default_factory=lambda: secrets.token_hex(16))
    # Several processes as one server (server.cluster): the Redis URL of the Socket.IO message
    # queue, presence and leases, and this process's name there (default: host-pid-random).
    message_queue: str | None = None
    node_id: str | None = None
