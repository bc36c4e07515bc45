"""Tournaments: a stream of their own (`tournament-<id>`), folded by pure code.

`decide(state, command) -> events` and `evolve(state, event) -> state` as for a match; the
standings, tie-breaks, crosstable and next pairings are computed from the state, never stored
(docs/tournaments.md). Only `matching.py` imports a third-party package (networkx), for the
Swiss pairing's maximum-weight matching.
"""

from domain.names import MAX_NAME
from domain.tournament.commands import (
    CreateTournament,
    FinishTournament,
    PairRound,
    RecordNoShow,
    RegisterPlayer,
    ReportMatch,
    TournamentCommand,
    WithdrawPlayer,
)
from domain.tournament.decide import MAX_PLAYERS, MAX_TITLE, decide, decide_and_fold, match_id_for
from domain.tournament.errors import TournamentError
from domain.tournament.events import (
    FORMATS,
    TOURNAMENT_EVENT_TYPES,
    Format,
    MatchForfeited,
    MatchReported,
    Pairing,
    PlayerRegistered,
    PlayerWithdrew,
    RoundPaired,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
    event_from_payload,
    event_to_payload,
)
from domain.tournament.pairing import next_round
from domain.tournament.results import result_of_match
from domain.tournament.roundrobin import berger_round, cycle_rounds
from domain.tournament.standings import (
    Cell,
    PlayerGame,
    Standing,
    crosstable,
    crosstable_json,
    games_of,
    met,
    scores,
    seat_counts,
    standings,
)
from domain.tournament.state import Entrant, Result, Round, TournamentState, evolve, fold

__all__ = [
    "FORMATS",
    "MAX_NAME",
    "MAX_TITLE",
    "MAX_PLAYERS",
    "TOURNAMENT_EVENT_TYPES",
    "Cell",
    "CreateTournament",
    "Entrant",
    "FinishTournament",
    "Format",
    "MatchForfeited",
    "MatchReported",
    "PairRound",
    "Pairing",
    "PlayerGame",
    "PlayerRegistered",
    "PlayerWithdrew",
    "RecordNoShow",
    "RegisterPlayer",
    "ReportMatch",
    "Result",
    "Round",
    "RoundPaired",
    "Standing",
    "TournamentCommand",
    "TournamentCreated",
    "TournamentError",
    "TournamentEvent",
    "TournamentFinished",
    "TournamentState",
    "WithdrawPlayer",
    "berger_round",
    "crosstable",
    "crosstable_json",
    "cycle_rounds",
    "decide",
    "event_from_payload",
    "event_to_payload",
    "evolve",
    "fold",
    "games_of",
    "match_id_for",
    "met",
    "next_round",
    "decide_and_fold",
    "result_of_match",
    "scores",
    "seat_counts",
    "standings",
]
