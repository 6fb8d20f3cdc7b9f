"""Match files: a match in JSON Lines (its duels named by files beside it), and a match ``.ygr``.

A match ``.ygr`` is a replay file (``replay_file.py``) whose events are the match stream's, whose
header ``match`` says ``{"kind": "match", ...}``, and whose body ``games`` carries each duel as a
whole signed judge ``.ygr`` of its own: one file holds the match, each duel inside it verifiable
like any duel file, and the outer signature covers them all.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from .. import chain
from ..card_sources import facts_of
from ..cards import CardDB, CardFacts
from ..errors import InputError
from ..events import Event
from ..exchange import make_replay
from ..formats import YGR, container_of
from ..i18n import say, t
from ..jsonl import read_events
from ..replay_file import ReplayFile, dumps as dump_replay, loads, read as read_replay
from ..signing import OrganiserKey, PublicKey
from ..text import printable
from .links import LinkProblem, check_duel
from .rules import MatchState, fold, is_match


@dataclass
class Duel:
    """One duel of a match as read: its events and card facts, and the file it came from."""

    events: list[Event]
    cards: CardDB
    name: str
    replay: ReplayFile | None = None


@dataclass
class Match:
    """A match opened from a file: its events, card facts, and the duels that could be read."""

    name: str
    events: list[Event]
    cards: CardDB
    duels: dict[int, Duel] = field(default_factory=dict)
    missing: dict[int, str] = field(default_factory=dict)     # game -> why its duel is not here
    replay: ReplayFile | None = None

    def audit(self) -> tuple[MatchState, list[LinkProblem]]:
        """The match folded with every violation collected, and every problem of its duels."""
        state = fold(self.events, self.cards, audit=True)
        problems = []
        for game in state.games:
            duel = self.duels.get(game.number)
            if duel is not None:
                problems += check_duel(game, duel.events, duel.cards, state.time, state.players)
        return state, problems


def open_match(path: str | Path, lookup: Mapping[int, CardFacts]) -> Match:
    """A match file and its duels (JSON Lines: duel files named relative to the match file)."""
    path = Path(path)
    if container_of(path) is YGR:
        return _from_replay(read_replay(path), str(path))
    events = read_events(path, getattr(lookup, "passcode", None))
    if not is_match(events):
        raise InputError(say("{path}: not a match (a match file begins with match_started)", path=path))
    match = Match(str(path), events, facts_of(events, lookup))
    for ev in events:
        if ev.kind == "game_started":
            duel_path = _duel_path(path, ev.game, ev.duel) if ev.duel else None
            if duel_path is None or not duel_path.is_file():
                match.missing[ev.game] = f"no duel file {ev.duel!r} beside the match"
                continue
            duel_events = read_events(duel_path, getattr(lookup, "passcode", None))
            match.duels[ev.game] = Duel(duel_events, facts_of(duel_events, lookup), str(duel_path))
    return match


def _duel_path(match_path: Path, game: int, name: str) -> Path:
    """The duel file a match file names, relative to the match file's folder and inside it: a
    match file passed around cannot make a command read a file elsewhere (an absolute path,
    ``../``, or a link out of the folder)."""
    folder = match_path.parent.resolve()
    try:
        found: Path | None = (folder / name).resolve()
    except (OSError, ValueError, RuntimeError):       # a NUL in it, a loop of links
        found = None
    if found is None or Path(name).is_absolute() or not found.is_relative_to(folder):
        raise InputError(say("{match_path}: game {game} names the duel file {name!r}, not a path inside "
                             "the match file's folder; a match file names its duels by paths inside its "
                             "own folder",
                             match_path=match_path, game=game, name=name))
    return found


def _from_replay(replay: ReplayFile, name: str) -> Match:
    if replay.match.get("kind") != "match":
        raise InputError(say("{name}: a duel's replay file, not a match's", name=name))
    match = Match(name, replay.events, replay.cards, replay=replay)
    numbers = [ev.game for ev in replay.events if ev.kind == "game_started"]
    for number, data in zip(numbers, replay.games):
        duel = loads(data)
        match.duels[number] = Duel(duel.events, duel.cards, f"{name} game {number}", duel)
    for number in numbers[len(replay.games):]:
        match.missing[number] = "the match file does not carry this duel"
    return match


def match_replay(match: Match, key: OrganiserKey, title: str = "", *, trust: Iterable[PublicKey] = ()) -> ReplayFile:
    """The match as one judge ``.ygr``: its events and card facts, each duel inside as its own
    signed judge file (a duel already read from a signed file is carried as it is). A match read
    from a ``.ygr`` is signed again only when it and every duel it carries hold up, signed by a
    key of ``trust`` (``trust.signable``, as a duel's file is exported again; with no key, it is
    refused): its events and duels are the file's word, which our signature would vouch for."""
    from ..trust import signable
    if match.replay is not None:
        signable(match.replay, trust, match.name)
        for number, duel in sorted(match.duels.items()):
            if duel.replay is not None:
                signable(duel.replay, trust, t("{match}: duel {number}", match=match.name, number=number))
    missing = list(match.missing)
    if missing:
        raise InputError(say("{match_name}: duel {missing} cannot be read ({why}); a match file "
                             "carries every duel",
                             match_name=match.name, missing=missing[0], why=match.missing[missing[0]]))
    state = fold(match.events, match.cards)        # refuses a match that breaks a rule
    games = []
    for game in state.games:
        duel = match.duels.get(game.number)
        if duel is None:
            continue                                 # a game lost by penalty before it was played
        replay = duel.replay or make_replay(
            duel.events, [chain.now()] * len(duel.events), duel.cards, "judge", secrets.token_bytes(32),
            secrets.token_bytes(32), {"title": printable(Path(duel.name).name), "match_game": game.number})
        games.append(dump_replay(replay, key))
    header = {"kind": "match", "title": title or printable(Path(match.name).name), "policy": state.policy.name,
              "players": list(state.players), "banlist": state.banlist.name,
              "banlist_hash": state.banlist_hash, "games": [g.duel for g in state.games]}
    replay = make_replay(match.events, [chain.now()] * len(match.events), match.cards, "judge",
                         secrets.token_bytes(32), secrets.token_bytes(32), header)
    replay.players = list(state.players)
    replay.games = games
    return replay


def verify_games(replay: ReplayFile, trust: Iterable[PublicKey]) -> list[dict]:
    """Each duel a match file carries, verified like a duel file (chain and signature)."""
    from ..trust import verify_file
    trust = list(trust)
    out = []
    for i, data in enumerate(replay.games):
        checked = verify_file(loads(data), trust)
        out.append({"game": i + 1, **checked.to_dict()})
    return out
