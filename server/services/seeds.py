"""Fresh deal seeds: the one place where the game reads a random source.

The domain is pure (docs/architecture.md): it deals from a seed it is given (`domain.deal`) and
never draws one. The server draws each game's seed here, from the operating system's secure
random source, and passes it in `StartGame`; its commitment is shown at the start and the seed
revealed at the end (docs/spec/deal.md).
"""

from __future__ import annotations

import secrets


def new_seed() -> str:
    """A fresh seed: 32 random bytes as 64 lower-case hex digits."""
    return secrets.token_hex(32)
