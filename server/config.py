"""Server settings, one frozen record handed to the app factory."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field

from server.entrypoints.fairuse import KINDS


@dataclass(frozen=True)
class ServerConfig:
    store_url: str = "memory://"
    async_mode: str = "eventlet"  # or "threading"
    # How long a player may stay away before the opponent can claim (resignation or a bot).
    grace_s: float = 60.0
    # Pause before a seated bot plays: None = each table's "bot pace" (normal: 1 s), so that
    # people can follow its moves; a number overrides every table (tests, benchmarks).
    bot_delay_s: float | None = None
    # Allow the test-only bots of server/services/testbots.py (never listed in the lobby).
    test_bots: bool = False
    # Period of the clock/bot ticker; deadlines themselves come from event times.
    tick_s: float = 0.1
    host: str = "127.0.0.1"
    port: int = 8000
    # Origins besides the server's own whose pages may connect and change things ("*": any).
    allowed_origins: tuple[str, ...] = ()
    # Host names besides its addresses, localhost, the machine's names and the mDNS name that
    # the server answers for (server/entrypoints/security.py; "*": any, the Host check off).
    allowed_hosts: tuple[str, ...] = ()
    # Overrides of server.entrypoints.fairuse.DEFAULT_LIMITS by kind (None: off); `crapette serve`
    # keeps the defaults, an app made here for a test has every limit off unless it asks.
    rate_limits: Mapping[str, str | None] = field(default_factory=lambda: dict.fromkeys(KINDS))
    # How long a request over its rate limit waits for its 429 (server.entrypoints.fairuse).
    refusal_pause_s: float = 1.0
    # Where the lobby projection is saved between runs (None: rebuilt from the store each start).
    lobby_file: str | None = None
    # An open table nobody joined expires after this long (None: never).
    expire_open_s: float | None = 2 * 3600
    # A match with no seated player connected, no event and no request for this long leaves
    # memory (None: never); it is read again from the store when asked for.
    unload_idle_s: float | None = 600
    # A live table with no person's client connected for this long is idle: the lobby's "Live
    # games" and "Open tables" leave it out (None: never idle).
    idle_after_s: float | None = 60
    secret_key: str = field(default_factory=lambda: secrets.token_hex(16))
    # Several processes as one server (server.adapters.cluster): the Redis URL of the Socket.IO
    # message queue, presence and leases, and this process's name there (default: host-pid-random).
    message_queue: str | None = None
    node_id: str | None = None
    # Behind one reverse proxy (HAProxy, deploy/haproxy.cfg): a request's address, scheme and host
    # are the ones the proxy says it received (X-Forwarded-For/-Proto/-Host), not the proxy's own.
    behind_proxy: bool = False
    # Worker processes building the reads that fold a whole match (replays, records, options;
    # server/adapters/workers.py), and how many such builds may wait for one before a 503 `busy`.
    # 0, or a store in memory: built in the server process instead.
    # Two: an address has one job of a kind at a time (fair shares), so one visitor looping on
    # long replays holds one worker and the other serves everyone else.
    read_workers: int = 2
    # The lobby's address by name when the server announces itself by mDNS
    # (server/adapters/announce.py), as `crapette serve` prints it: http://crapette.local:8000/;
    # None when it does not.
    announced_url: str | None = None
    read_queue: int = 16
    # engine.io's heartbeat (python-engineio's defaults): a ping every `ping_interval_s`, and a
    # connection whose client answers none for `ping_timeout_s` more is closed as gone.
    ping_interval_s: float = 25.0
    ping_timeout_s: float = 20.0
    # Worker processes of the analyses of finished matches (server/services/analyses.py): a pool of
    # its own, so that a long analysis never holds up a replay. 0, or a store in memory: a thread of
    # the server process instead. Built analyses are kept in `analysis_dir` (None: memory).
    analysis_workers: int = 1
    # Worker processes of the builds that take seconds (a GIF, the one-file HTML, an uploaded
    # record's check and import): a pool of their own, so that a replay never waits behind
    # one. 0, or a store in memory: the read pool's (or the server process).
    heavy_workers: int = 1
    # A worker's resident-size bound in MB: one over it is killed and replaced, its job refused
    # with `422 too_costly` (server/adapters/workers.py).
    worker_memory_mb: int = 512
    analysis_dir: str | None = None
    # Which function judges a record (`module:function`; tests name a fixture).
    analyser: str = "server.readmodels.judge:analyse_record"
    # Which function gives a try's win chance in the learning mode (`module:function`).
    try_judge: str = "server.services.try_judge:judge_try"
