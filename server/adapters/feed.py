"""Every append of every process, as it commits, moving this process's caches on.

Several processes share one store; each keeps its own cache of every match (`MatchRepository`).
The feed is one background task tailing the store's global log with a subscription, and handing
each event's stream and version to `MatchRepository.learned`, the one seam through which another
process's writes reach the caches, and from there this process's clients: each process sends its
own clients the events it folds, so they get every version once and in order, whoever wrote it.

Why the store and not Redis pub/sub: on PostgreSQL every append NOTIFYs when it commits, from
inside the append's transaction, so nothing that was written can go unannounced: not a crash
between a commit and a publish, not an append by `crapette import` or any other tool. The
notification only wakes the subscription, which then reads by global position, so a lost
notification delays (the subscription re-reads every second anyway) but never loses an event,
and the events come in commit order. Under eventlet the LISTEN connection waits greenly
(`eventstore.postgres`): it never blocks the loop."""

from __future__ import annotations

import logging
import threading

from eventstore import EventStore
from server.adapters.matches import MatchRepository

log = logging.getLogger(__name__)


class AppendFeed:
    def __init__(self, store: EventStore, repo: MatchRepository) -> None:
        self.store = store
        self.repo = repo
        self._stopped = threading.Event()
        # From the store's end as it is now: the caches were loaded from the store just before.
        self._subscription = store.subscribe(store.last_position() + 1)

    @property
    def position(self) -> int:
        """The global position of the last event handed to the caches."""
        position: int = self._subscription.position
        return position

    def run(self) -> None:
        """The task's body: until `stop`, hand every new event to the caches."""
        while not self._stopped.is_set() and not self.store.closed:
            try:
                event = self._subscription.get(timeout=1.0)
                if event is not None:
                    self.repo.learned(event.stream, event.version)
            except Exception:  # one bad event or a store hiccup must not end the feed
                log.exception("the append feed failed; going on")
                self._stopped.wait(1.0)

    def stop(self) -> None:
        self._stopped.set()
        self._subscription.close()
