"""Nothing recorded is lost: what the store takes in through the append command (the one every
face calls) leaves it again as a replay file that loads, and as JSON Lines that reads back,
folding to the same board (issue 25, ninth pass). One check says what a file holds
(``replay_file.check_event``): every append makes it, and so does writing a file."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings, strategies as st

from ygoreplay.application import Records
from ygoreplay.cli import main
from ygoreplay.decks import banlist_hash
from ygoreplay.errors import InputError
from ygoreplay.events import from_dict
from ygoreplay.jsonl import MAX_LINE, dumps as jsonl_dumps, loads_events, read_events
from ygoreplay import replay_file
from ygoreplay.replay_file import dumps, loads
from ygoreplay.rules import RuleViolation, audit
from ygoreplay.store import Store

from duel import snapshot

REPLAYS = Path(__file__).resolve().parent.parent / "replays"
EVENTS = read_events(REPLAYS / "won-by-damage.jsonl")
OPENING = [e.to_dict() for e in EVENTS[:5]]          # duel_started, two decks, two opening hands
STARTED = OPENING[0]


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    with Store(str(tmp_path_factory.mktemp("store") / "x.sqlite")) as store:
        yield Records(store)


def appended(records: Records, wires: list[dict]) -> str:
    """A new duel with these events, decoded and appended as the CLI and the service do it."""
    duel = records.store.create_duel("t")
    records.append(duel, [from_dict(w, f"event {i}") for i, w in enumerate(wires)])
    return duel


def round_trip(records: Records, duel: str) -> None:
    """The duel exported as a signed judge file and as JSON Lines: both read back, every event as
    it was stored, and fold to the board the store holds."""
    stored = records.store.load(duel)
    board = snapshot(records.state(duel))
    back = loads(dumps(records.export(duel), records.store.key))
    assert [e.to_dict() for e in back.events] == [e.to_dict() for e in stored.events]
    assert snapshot(audit(back.events, back.cards).state) == board
    for view in ("p0", "p1", "spectator"):               # every view of it loads too
        assert len(loads(dumps(records.export(duel, view), records.store.key)).events) == len(stored.events)
    text = jsonl_dumps(stored.events)
    lines = loads_events(text.encode("utf-8"))
    assert [e.to_dict() for e in lines] == [e.to_dict() for e in stored.events]
    assert snapshot(audit(lines, stored.cards).state) == board
    # and each goes back in: the judge file imported, the JSON Lines recorded, the same board
    imported = records.import_replay(back, None, [records.store.key.public])
    assert not imported.skipped and snapshot(records.state(imported.id)) == board
    again = records.record(lines, "again", witnessed=stored.events[0].witnessed)
    assert again.stored == len(lines) and snapshot(records.state(again.id)) == board


def refused_saying(records: Records, wires: list[dict], *words: str) -> None:
    with pytest.raises(InputError) as info:
        appended(records, wires)
    for word in words:
        assert word in str(info.value), str(info.value)


# -- what append took and export refused ---------------------------------------------------------------

def test_a_players_name_no_file_header_holds_is_refused_at_append_naming_event_field_and_limit(records):
    """A name over 4,096 bytes of UTF-8 (the file header's reader limit) was stored, and no export
    of the duel was ever possible (its header unreadable)."""
    refused_saying(records, [{**STARTED, "players": ["Yugi", "é" * 2049]}, *OPENING[1:]],
                   "event 0 (duel_started)", "players[1] is 4,098 bytes", "at most 4,096", "nothing was written")
    duel = appended(records, [{**STARTED, "players": ["Yugi", "ÿ" * 2048]}, *OPENING[1:]])     # 4,096: fits
    round_trip(records, duel)


def test_more_names_than_a_duels_two_players_are_refused_at_append(records):
    """65 names (past the header's 64), or 64 long ones (past its 256 KiB), were stored and never exported."""
    refused_saying(records, [{**STARTED, "players": ["a"] * 3}, *OPENING[1:]],
                   "event 0 (duel_started)", "players names 3", "at most 2")
    # a duel stored before the check with three names still leaves the store, as it did
    earlier = records.store.record([from_dict({**STARTED, "players": ["a", "b", "c"]}), *EVENTS[1:5]], "old",
                                   check=False)[0]
    assert loads(dumps(records.export(earlier), records.store.key)).players == ["a", "b", "c"]


def test_long_notes_in_a_short_duel_export_and_load_back(records):
    """Three notes of 40,000 characters: the file was written, and no reader read it (its body
    past 2 KiB an event)."""
    notes = [{"kind": "judge_note", "judge": "j", "note": "x" * 40_000}] * 3
    round_trip(records, appended(records, [*OPENING, *notes]))


def test_an_event_no_file_holds_is_refused_at_append_naming_its_size(records):
    """A note of 65,536 four-byte characters (the decoder's longest string) was stored; its file not read."""
    refused_saying(records, [*OPENING, {"kind": "judge_note", "judge": "j", "note": "😀" * 65536}],
                   "event 5 (judge_note)", "262,1", f"at most {replay_file.MAX_EVENT_BYTES:,} bytes", "nothing was written")


@pytest.mark.parametrize("codes", [range(1, 20_001), range(100_000_000, 100_005_000)], ids=["small", "many"])
def test_a_banlist_carried_whole_exports_and_loads_back(records, codes):
    """A banlist of 20,000 small passcodes (past the body's object budget), or of 5,000 (past its
    list length): the export was written and no reader read it."""
    limits = [[code, 1] for code in codes]
    started = {**STARTED, "banlist": {"name": "b", "hash": banlist_hash([tuple(p) for p in limits], False),
                                      "limits": limits}}
    round_trip(records, appended(records, [started, *OPENING[1:]]))


def test_every_face_refuses_the_same(records, tmp_path):
    """The command line's append says what the library's does (the service maps it to 400)."""
    store = tmp_path / "cli.sqlite"
    with Store(str(store)) as s:
        duel = s.create_duel("t")
    file = tmp_path / "e.jsonl"
    file.write_text("\n".join(json.dumps(w) for w in [{**STARTED, "players": ["a" * 5000, "b"]}, *OPENING[1:]]))
    result = CliRunner().invoke(main, ["append", duel, str(file), "--store", str(store)])
    assert result.exit_code == 2, result.output
    assert "event 0 (duel_started): players[0] is 5,000 bytes" in result.output
    assert "Traceback" not in result.output
    with Store(str(store)) as s:
        assert s.info(duel).events == 0
        before = len(s.duels())
    result = CliRunner().invoke(main, ["record", str(file), "--store", str(store)])       # record: the same
    assert result.exit_code == 2 and "players[0] is 5,000 bytes" in result.output, result.output
    with Store(str(store)) as s:
        assert len(s.duels()) == before


def test_the_service_refuses_the_same(tmp_path):
    """The append route: 400 with the same words, nothing written (its duel still has no event)."""
    from test_release import ADMIN, ORGANISER, auth, digest   # noqa: F401
    from fastapi.testclient import TestClient
    from ygoreplay.service import create_app
    with Store(str(tmp_path / "s.sqlite"), concurrent=True) as store, \
            TestClient(create_app(store, digest(ADMIN))) as client:
        duel = client.post("/duels", json={"title": "t"}, headers=ORGANISER).json()
        r = client.post(f"/duels/{duel['id']}/events", json=[{**STARTED, "players": ["Yugi", "b" * 4097]}, *OPENING[1:]],
                        headers=auth(duel["tokens"]["recorder"]))
        assert r.status_code == 400, r.text
        assert "event 0 (duel_started): players[1] is 4,097 bytes" in r.json()["error"]
        assert store.info(duel["id"]).events == 0
        notes = [{"kind": "judge_note", "judge": "j", "note": "x" * 40_000}] * 3
        r = client.post(f"/duels/{duel['id']}/events", json=OPENING, headers=auth(duel["tokens"]["recorder"]))
        assert r.status_code == 200, r.text
        r = client.post(f"/duels/{duel['id']}/events", json=notes, headers=auth(duel["tokens"]["judge"]))
        assert r.status_code == 200, r.text
        exported = client.get(f"/duels/{duel['id']}/replay.ygr", headers=ORGANISER)
        assert exported.status_code == 200, exported.text
        assert len(loads(exported.content).events) == 8


def test_the_event_limit_keeps_a_json_lines_line_readable():
    assert 7 * replay_file.MAX_EVENT_BYTES + (16 << 10) <= MAX_LINE


# -- the property ----------------------------------------------------------------------------------------

_CHARS = st.characters(blacklist_categories=("Cs",))           # the decoder refuses a lone surrogate
_SHORT = st.text(_CHARS, max_size=12)
_LONG = st.builds(lambda c, n: c * n, _CHARS, st.integers(1000, 6000))
_NAMES = st.lists(st.one_of(_SHORT, _LONG, st.just(""), st.just("a\x00b")), max_size=3)
_NOTE = st.one_of(_SHORT, st.builds(lambda c, n: c * n, _CHARS, st.integers(1, 70_000)))
_BANLIST = st.one_of(st.none(), st.builds(lambda start, n: range(start, start + n),
                                          st.sampled_from([0, 1, 70_000, 100_000_000, (1 << 32) - 30_000]),
                                          st.integers(0, 20_000)))


@settings(max_examples=int(os.environ.get("EXPORTABLE_EXAMPLES", 40)), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow, HealthCheck.data_too_large])
@given(names=_NAMES, notes=st.lists(_NOTE, max_size=3), judge=_SHORT, codes=_BANLIST)
@example(names=["a" * 5000], notes=[], judge="j", codes=None)      # what main stored, never exported
@example(names=[], notes=["x" * 40_000] * 3, judge="j", codes=None)       # what main wrote, never read
def test_what_append_takes_exports_and_loads_back_to_the_same_board(records, names, notes, judge, codes):
    """Whatever names, notes and banlist append takes, the duel exports, loads back and folds to
    the same board; what it refuses is refused naming the event."""
    started = {**STARTED, "players": names}
    if codes is not None:
        limits = [[code, 1] for code in codes]
        started["banlist"] = {"name": "b", "hash": banlist_hash([tuple(p) for p in limits], False), "limits": limits}
    wires = [started, *OPENING[1:], *({"kind": "judge_note", "judge": judge, "note": n} for n in notes)]
    try:
        duel = appended(records, wires)
    except InputError as exc:
        assert str(exc).startswith("event "), str(exc)
        return
    except RuleViolation:                 # the rules' refusal (a note that names no judge: MATCH-08)
        return
    round_trip(records, duel)


def test_a_match_file_carries_games_of_any_size_and_loads_back():
    """A game is a whole .ygr inside a match file, a binary: past 4 KiB and its match's events'
    4 bytes each (a long duel's, an imported one's: 4.5 KB on average) it was written and never read."""
    import os
    from ygoreplay.cards import CardDB
    from ygoreplay.replay_file import MAGIC, ReplayFile
    game = MAGIC + os.urandom(8000)
    match = ReplayFile([], CardDB(), [], "judge", match={"kind": "match"}, games=[game])
    assert loads(dumps(match)).games == [game]


def test_a_match_whose_names_no_file_header_holds_is_refused_at_append(tmp_path):
    """match_started's players and banlist are the match file header's: a name of 64 Ki
    characters (the decoder's limit) was stored, and the match never exported."""
    import ygoreplay.match.live  # noqa: F401  (a match's events and stream kind: registered)
    from test_match_service import MATCHES, lines
    opening = lines(MATCHES / "two-nil.jsonl")[:3]
    long = {**opening[0], "players": ["Yugi", "K" * 5000]}
    with Store(str(tmp_path / "m.sqlite")) as store:
        with pytest.raises(InputError, match=r"event 0 \(match_started\): players\[1\] is 5,000 bytes"):
            store.record([from_dict(e) for e in [long, *opening[1:]]], "m", kind="match", strict=True)
        named = {**opening[0], "banlist": "B" * 5000}
        with pytest.raises(InputError, match=r"event 0 \(match_started\): banlist is 5,000 bytes"):
            store.record([from_dict(e) for e in [named, *opening[1:]]], "m", kind="match", strict=True)


_CODES = sorted(set(OPENING[1]["main"]))


@settings(max_examples=int(os.environ.get("EXPORTABLE_EXAMPLES", 15)), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(sizes=st.tuples(st.integers(0, 1000), st.integers(0, 300), st.integers(0, 300)), hand=st.integers(0, 5),
       names=_NAMES, seed=st.integers(0, 1 << 30))
@example(sizes=(1000, 0, 300), hand=5, names=["Yugi", "é" * 2049], seed=1)     # what main stored, never exported
def test_a_witnessed_duel_keeps_decks_of_any_size_and_still_exports(records, sizes, hand, names, seed):
    """At a table an illegal deck is kept, flagged (DECK-01..03): whatever size append keeps, the
    duel exports, loads back and folds to the same board."""
    import random
    pick = random.Random(seed).choices
    started = {**STARTED, "players": names, "witnessed": True}
    decks = [{"kind": "deck_registered", "player": p, "main": pick(_CODES, k=sizes[0]),
              "extra": [], "side": pick(_CODES, k=sizes[2])} for p in (0, 1)]
    draws = [{"kind": "cards_drawn", "player": p, "count": min(hand, sizes[0])} for p in (0, 1)]
    try:
        duel = appended(records, [started, *decks, *draws])
    except InputError as exc:
        assert str(exc).startswith("event "), str(exc)
        return
    except RuleViolation:
        return
    round_trip(records, duel)
