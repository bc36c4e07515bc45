"""Calling a blocking store from eventlet: psycopg 3 is not eventlet-aware, so under eventlet each
PostgreSQL call runs in eventlet's OS-thread pool (`tpool`) instead of blocking the hub."""

from __future__ import annotations

from typing import Any

_METHODS = ("append", "read", "read_all", "stream_version", "list_streams", "close")


class ThreadPoolStore:
    """The same store API; every call is handed to `eventlet.tpool.execute`."""

    def __init__(self, store: Any) -> None:
        from eventlet import tpool

        self._store = store
        self._execute = tpool.execute

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._store, name)
        if name not in _METHODS:
            return target

        def call(*args: Any, **kwargs: Any) -> Any:
            return self._execute(target, *args, **kwargs)

        return call


def store_for(url: str, async_mode: str) -> Any:
    from eventstore import open_store

    # Called directly under eventlet too: the PostgreSQL store makes psycopg wait through the
    # green select itself, while tpool's OS threads break psycopg_pool's (green) locks and
    # conditions - every call timed out (docs/eventstore.md, "Under eventlet").
    return open_store(url)
