"""The application service, built from one part per job. Each part is load → fold → decide →
append → publish for its own operations, and holds no rules: `domain.decide` judges, the store
records, the publisher delivers.

| part | module (in `server`) | job |
|---|---|---|
| `repo` | `adapters.matches` | the cache of every match, reading newer events, appending |
| `presence` | `adapters.presence` | which seats have a client connected, since when away |
| (leases) | `adapters.leases` | which matches this process drives on its clock |
| `autopilot` | `services.autopilot` | what the server does alone: start games, time-outs, bots |
| `reads` | `services.reads` | reconnect backlog, view at a version; replay, record, options |
| `imports` | `services.imports` | an uploaded record checked, or checked and stored, in a worker |
| `views` | `services.tableviews` | a table's lobby view, the lobby's list; told on every change |
| `queue` | `services.queue` | a rotation table's queue: joining it, leaving it for good |
| `openings` | `services.openings` | presets, opening tables (with a bot, a tournament's arranged) |
| `seats` | `services.seats` | taking a seat, which seat a token is, claiming an absent's seat |
| `clients` | `services.clients` | a seat's clients come and go (joining: reads); owners return |
| `rematches` | `services.rematch` | a finished table's rematch: offers and answers |
| `endings` | `services.endings` | ready for the next game; abandoning the match |
| `player_commands` | `services.player_commands` | a player's command: checked, decided, appended |
| `projection` | `readmodels.lobbyview` | the lobby from the store's global order, saved |
| `upkeep` | `services.upkeep` | each second: lobby caught up, open tables expire, idle unload |
| `tournaments` | `services.tournaments` | the director's orders, claims, rounds' tables, results |
| `analyses` | `services.analyses` | finished matches' win chances and judgements, in workers |
| `practice` | `services.practice` | play on from a position of a finished match, against a bot |

`GameService` only builds them, in an order where each gets what it needs in its constructor:
the publisher comes first, from outside (it needs nothing from the service), so no part is ever
wired in after the fact. So do presence and leases when several processes share them (in
Redis, `server.adapters.cluster`). The one thing handed on afterwards is the lobby's table view
(`TableViews.table`), which the Socket.IO publisher gets from
`server.entrypoints.sockets.register` (docs/architecture.md). HTTP routes and Socket.IO
handlers call the part whose job it is."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from eventstore import EventStore
from server.adapters.leases import Leases
from server.adapters.matches import MatchRepository, now_ms
from server.adapters.presence import Presence
from server.adapters.publisher import NoPublisher, Publisher
from server.adapters.tournament_repo import TournamentRepository
from server.adapters.workers import ReadWorkers
from server.readmodels.analysis_build import DEFAULT_ANALYSER, DEFAULT_TRY_JUDGE
from server.readmodels.lobbyview import LobbyProjection
from server.services.analyses import Analyses
from server.services.autopilot import Autopilot
from server.services.clients import Clients
from server.services.endings import Endings
from server.services.imports import Imports
from server.services.openings import Openings
from server.services.player_commands import PlayerCommands
from server.services.practice import Practice
from server.services.queue import RotationQueue
from server.services.reads import Reads
from server.services.rematch import Rematches
from server.services.seats import Seats
from server.services.tableviews import TableViews
from server.services.tournaments import Tournaments
from server.services.upkeep import Upkeep


class GameService:
    def __init__(
        self,
        store: EventStore,
        *,
        publisher: Publisher | None = None,
        grace_s: float = 60.0,
        bot_delay_s: float | None = None,
        clock: Callable[[], int] = now_ms,
        test_bots: bool = False,
        lobby_file: Path | None = None,
        expire_open_s: float | None = None,
        unload_idle_s: float | None = None,
        idle_after_s: float | None = None,
        presence: Presence | None = None,
        leases: Leases | None = None,
        read_workers: ReadWorkers | None = None,
        analysis_workers: ReadWorkers | None = None,
        heavy_workers: ReadWorkers | None = None,
        analysis_dir: str | None = None,
        analyser: str = DEFAULT_ANALYSER,
        try_judge: str = DEFAULT_TRY_JUDGE,
    ) -> None:
        self.publisher: Publisher = publisher if publisher is not None else NoPublisher()
        self.repo = MatchRepository(store, self.publisher.applied)
        self.projection = LobbyProjection(store, lobby_file)
        self.presence = presence if presence is not None else Presence(grace_s=grace_s, clock=clock)
        self.autopilot = Autopilot(
            self.repo,
            self.presence,
            self.projection,
            bot_delay_s=bot_delay_s,
            clock=clock,
            test_bots=test_bots,
            leases=leases,
        )
        self.reads = Reads(self.repo, self.publisher, workers=read_workers, heavy=heavy_workers)
        self.imports = Imports(store, heavy_workers or read_workers)
        self.views = TableViews(
            self.repo,
            self.presence,
            self.autopilot,
            self.publisher,
            self.projection,
            clock=clock,
            idle_after_s=idle_after_s,
        )
        self.queue = RotationQueue(
            self.repo, self.presence, self.autopilot, self.views, clock=clock
        )
        self.openings = Openings(
            self.repo, self.presence, self.autopilot, self.queue, self.views, clock=clock
        )
        self.seats = Seats(
            self.repo, self.presence, self.autopilot, self.queue, self.views, clock=clock
        )
        self.clients = Clients(
            self.repo,
            self.presence,
            self.publisher,
            self.reads,
            self.seats,
            self.views,
            clock=clock,
        )
        self.rematches = Rematches(self.repo, self.openings, self.views, clock=clock)
        self.endings = Endings(self.repo, self.autopilot, self.queue, self.views, clock=clock)
        self.player_commands = PlayerCommands(
            self.repo, self.autopilot, clock=clock, abandon=self.endings.abandon_command
        )
        self.tournaments = Tournaments(
            TournamentRepository(store), self.repo, self.openings, clock=clock
        )
        self.upkeep = Upkeep(
            self.repo,
            self.presence,
            self.projection,
            self.publisher,
            self.views.table_json,
            clock=clock,
            expire_open_s=expire_open_s,
            unload_idle_s=unload_idle_s,
        )
        self.analyses = Analyses(
            self.repo,
            analysis_workers,
            cache_dir=analysis_dir,
            analyser=analyser,
            try_judge=try_judge,
        )
        self.practice = Practice(
            self.repo, self.analyses, self.autopilot, self.presence, clock=clock
        )
