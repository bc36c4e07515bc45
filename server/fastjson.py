"""The JSON codec of Socket.IO packets: orjson to encode when it is installed, the standard
library otherwise, and always the standard library to decode.

Every update carries a view of some 3 KB; encoding it with the standard library cost about as much
as deciding the move. Decoding stays with the standard library: it accepts everything a client may
send (numbers beyond 64 bits, NaN), and the handlers' schemas refuse what they must. What it
cannot decode at all (not JSON, a number of over 4,300 digits) python-socketio drops before any
handler: logged, with no answer to the client (docs/protocol.md)."""

from __future__ import annotations

import json as _stdlib
import sys
from typing import Any

from socketio.packet import Packet

_orjson: Any
try:
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson is a dependency, but the server runs without it
    _orjson = None


def dumps(obj: Any, **_options: Any) -> str:
    if _orjson is not None:
        try:
            # Non-str keys: marshmallow reports errors of list items under int keys.
            encoded: bytes = _orjson.dumps(obj, option=_orjson.OPT_NON_STR_KEYS)
        except TypeError:
            # What orjson refuses and a client may make us echo: a lone surrogate (JSON's
            # "\ud800", in a field name or an error message) or an integer beyond 64 bits.
            pass
        else:
            return encoded.decode()
    return _stdlib.dumps(obj, separators=(",", ":"))


def loads(text: str | bytes, **_options: Any) -> Any:
    return _stdlib.loads(text)


class JsonPacket(Packet):  # type: ignore[misc]
    """Everything this server sends is JSON. The default packet scans each outgoing payload,
    recursively, for bytes: on a view with 24 piles that scan cost more than deciding the move.
    Its codec is this module (orjson to encode)."""

    uses_binary_events = False
    json = sys.modules[__name__]
