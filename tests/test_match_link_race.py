"""Two matches linking one duel at once (issue 25, ninth pass): exactly one of them links it.

``record`` checked that a duel had no link (``linkable``), appended the match's events, and only
then wrote the link (``Store.attach``: the latest version read, the next one inserted). Two
writers that both passed the check both recorded their game, and the second link overwrote the
first (or met a conflict after its game was written): one match's stream held a game whose duel
names the other match, a recorded game lost to its match. The link is now the first version of
the duel's ``match_game``, written in the transaction of the match's events: the store's unique
(stream, version) lets one writer have it; the other writes nothing and is refused as a conflict.

Each test forces the interleaving: both writers pass the check before either writes (a barrier
after ``linkable``), in one process's threads on one store, and on two stores of one PostgreSQL
database (the service's worker processes).
"""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from ygoreplay.events import from_dict
from ygoreplay.jsonl import read_events
from ygoreplay.live import Hub
from ygoreplay.match import commands
from ygoreplay.match.application import match_stream
from ygoreplay.store import ConflictError, Store

from test_store import fresh_url

MATCHES = Path(__file__).resolve().parent.parent / "replays" / "matches"
OPENING = read_events(MATCHES / "two-nil.jsonl")[:3]          # match_started and both decklists
ORGANISER = commands.Writer("organiser")


def _match(store: Store, title: str) -> str:
    # private: the duels these link are recorded with no access record, private, and a duel is
    # linked into no match wider than itself (``access.linkable_into``)
    spec, _tokens = match_stream(list(OPENING), title, "private")
    return str(store.record(**spec)[0])


def _started(duel: str) -> list:
    return [from_dict({"kind": "game_started", "game": 1, "duel": duel, "first_player": 0, "chosen_by": 0}, "ev")]


def _race(monkeypatch, hubs: list[Hub], matches: list[str], duel: str, expected: int | None = None) -> list:
    """Both writers link ``duel`` to their match at once: each waits, past the check that the duel
    is free, for the other to pass it too. What each got: its ``Written`` or its error."""
    barrier = threading.Barrier(2, timeout=10)
    checked = commands.linkable

    def linkable(hub, writer, duel_id, match):
        found = checked(hub, writer, duel_id, match)
        try:
            barrier.wait()
        except threading.BrokenBarrierError:     # the other writer was refused before: go on alone
            pass
        return found

    monkeypatch.setattr(commands, "linkable", linkable)
    outcome: list = [None, None]

    def write(i: int) -> None:
        try:
            outcome[i] = commands.record(hubs[i], matches[i], ORGANISER, _started(duel), expected)
        except Exception as exc:               # noqa: BLE001 (the outcome is asserted below)
            outcome[i] = exc
        finally:
            barrier.abort() if barrier.n_waiting else None

    threads = [threading.Thread(target=write, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    monkeypatch.setattr(commands, "linkable", checked)
    return outcome


def _games(store: Store, match: str) -> list[str]:
    """The duels the match's stream records games of."""
    return [r.event.duel for r in store.opened(match, "match")[3] if r.event.kind == "game_started"]


def _one_linked(hub: Hub, store: Store, matches: list[str], duel: str, outcome: list) -> None:
    won = [i for i, got in enumerate(outcome) if isinstance(got, commands.Written)]
    assert len(won) == 1, f"exactly one match links the duel: {outcome}"
    winner, loser = won[0], 1 - won[0]
    refused = outcome[loser]
    assert isinstance(refused, commands.Refused) and refused.reason == "conflict" and refused.where == "duel", refused
    assert "a duel of a match already" in refused.message
    assert store.match_of(duel) == matches[winner]
    assert _games(store, matches[winner]) == [duel]
    assert _games(store, matches[loser]) == [], "the refused match recorded no game"
    assert commands.linked_duel(hub, matches[winner], duel) is not None
    assert len(store.events.select_events(f"{duel}/match_game")) == 1, "one link, never overwritten"


@pytest.mark.parametrize("expected", [None, 3])
def test_two_threads_of_one_process_link_one_duel_once(tmp_path, monkeypatch, expected):
    with Store(str(tmp_path / "s.sqlite")) as store:
        matches = [_match(store, "A"), _match(store, "B")]
        duel = store.create_duel("table 1")
        hub = Hub(store)
        outcome = _race(monkeypatch, [hub, hub], matches, duel, expected)
        _one_linked(Hub(store), store, matches, duel, outcome)


@pytest.mark.parametrize("expected", [None, 3])
def test_two_stores_on_postgresql_link_one_duel_once(tmp_path, monkeypatch, expected):
    """Two worker processes: a store each, on one database, as the service opens it (group commit)."""
    with fresh_url("postgresql", tmp_path / "x", "link") as url, \
            Store(url, concurrent=True) as one, Store(url, concurrent=True) as other:
        matches = [_match(one, "A"), _match(one, "B")]
        duel = one.create_duel("table 1")
        outcome = _race(monkeypatch, [Hub(one), Hub(other)], matches, duel, expected)
        with Store(url) as fresh:
            _one_linked(Hub(fresh), fresh, matches, duel, outcome)


def test_one_match_linking_its_duel_twice_at_once_records_one_game(tmp_path, monkeypatch):
    """Two requests of one match (its recorder sent it twice): one game, one link. (A guard: the
    old code held here too, its second append losing the match's position.)"""
    with Store(str(tmp_path / "s.sqlite")) as store:
        match = _match(store, "A")
        duel = store.create_duel("table 1")
        outcome = _race(monkeypatch, [Hub(store), Hub(store)], [match, match], duel, 3)
        won = [got for got in outcome if isinstance(got, commands.Written)]
        assert len(won) == 1 and isinstance([g for g in outcome if g not in won][0], (ConflictError, commands.Refused))
        assert _games(store, match) == [duel] and store.match_of(duel) == match
        assert len(store.events.select_events(f"{duel}/match_game")) == 1


def test_a_failed_append_claims_nothing(tmp_path):
    """A match write refused by the store (here: its expected head is not the head) leaves the
    duel free for the next one: the claim went with the append, nothing to release. (A guard of
    the claim's design: the old code held here too.)"""
    with Store(str(tmp_path / "s.sqlite")) as store:
        matches = [_match(store, "A"), _match(store, "B")]
        duel = store.create_duel("table 1")
        hub = Hub(store)
        with pytest.raises(ConflictError):
            commands.record(hub, matches[0], ORGANISER, _started(duel), 2)
        assert store.attachment(duel, "match_game") is None and _games(store, matches[0]) == []
        commands.record(hub, matches[1], ORGANISER, _started(duel), 3)
        assert store.match_of(duel) == matches[1] and _games(store, matches[1]) == [duel]


@pytest.mark.parametrize("backend,concurrent", [("sqlite", False), ("postgresql", False), ("postgresql", True)])
def test_a_claim_another_writer_took_between_the_check_and_the_write_is_a_conflict(tmp_path, monkeypatch,
                                                                                    backend, concurrent):
    """The store's own guard, not its check beforehand: a claim read free and written by another
    writer before this one's transaction is refused by the unique (stream, version), and nothing
    of the append is written."""
    with fresh_url(backend, tmp_path / "s.sqlite", "claim") as url, Store(url, concurrent=concurrent) as store:
        matches = [_match(store, "A"), _match(store, "B")]
        duel = store.create_duel("table 1")
        store.append_records(matches[0], _started(duel), claims={duel: {"match_game": {"id": matches[0], "game": 1}}})
        checks = []
        monkeypatch.setattr(Store, "_claimed", lambda self, rows: checks.append(rows))    # read free
        with pytest.raises(ConflictError):
            store.append_records(matches[1], _started(duel), claims={duel: {"match_game": {"id": matches[1], "game": 1}}})
        assert checks, "the claim was checked (and read free)"
        monkeypatch.undo()
        assert _games(store, matches[1]) == [] and store.info(matches[1]).events == 3
        assert store.match_of(duel) == matches[0]
        assert len(store.events.select_events(f"{duel}/match_game")) == 1
        store.append_records(matches[1], _started(store.create_duel("table 2")))
        assert store.info(matches[1]).events == 4, "the match writes on: its head was not left behind"
