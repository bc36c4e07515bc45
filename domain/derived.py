"""What a game state implies: the one place where derived data is kept.

Legal moves, priority levels, legal actions and the destination indexes they are built from are
functions of a `GameState`, which never changes. Each state carries one `Derived` record
(`state.derived`) that holds them once computed; every field starts as ``None`` (per seat:
``(None, None)``) and is filled on first use by the one function that computes it:

- `foundations` (`domain.moves.foundation_index`): the foundations by the key of the card they
  take next;
- `houses` (`domain.moves.house_index`): the houses by the key they want, the empty ones, the
  ones with a card to move;
- `steps` (`domain.priority.legal_steps`), per seat: the moves the building rules allow;
- `levels` (`domain.priority.priority`), per seat: what priority demands (a `Level`);
- `actions` (`domain.engine.legal_actions`), per seat: the actions `decide` accepts.

The two indexes depend only on the foundations and the houses. An event that leaves them as they
were hands them on to the next state (`handed_on`); the evolve function of each event kind says
so itself (`domain.gamefold`). Everything else is computed afresh for each state.

`Derived` is a plain class whose fields default to class attributes: a state nobody queries (most
states of a replay) pays only for an empty object, and a filled field is an ordinary attribute.
"""

from __future__ import annotations

from domain.actions import Action
from domain.levels import Level, Step

FoundationIndex = dict[int, list[int]]
HouseIndex = tuple[dict[int, list[int]], list[int], list[int]]


class Derived:
    """The derived data of one game state (see the module doc); filled lazily, never emptied."""

    foundations: FoundationIndex | None = None
    houses: HouseIndex | None = None
    steps: tuple[list[Step] | None, list[Step] | None] = (None, None)
    levels: tuple[Level | None, Level | None] = (None, None)
    actions: tuple[tuple[Action, ...] | None, tuple[Action, ...] | None] = (None, None)

    def handed_on(self, houses: bool) -> Derived:
        """A record for the next state, when its foundations are this state's (and, with
        `houses`, its houses too): it starts with the indexes already computed here."""
        new = Derived()
        if self.foundations is not None:
            new.foundations = self.foundations
        if houses and self.houses is not None:
            new.houses = self.houses
        return new
