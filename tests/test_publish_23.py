"""Issue 25, twenty-third pass, a new user's walk: a duel recorded or imported on the command line
is private, ``search`` finds public duels only, and nothing on the command line changed that, so
an imported duel never reached the library. ``Records.set_visibility`` is the one command that
changes it (``ygoreplay visibility``, ``record --visibility``, ``import --visibility``)."""
from __future__ import annotations

import json
from pathlib import Path

import msgpack
import pytest
from click.testing import CliRunner

from duel import CARDS
from ygoreplay.access import Access, matches
from ygoreplay.application import Records
from ygoreplay.cli import main
from ygoreplay.errors import ConflictError, InputError
from ygoreplay.jsonl import read_events
from ygoreplay.store import Store

REPLAYS = Path(__file__).resolve().parent.parent / "replays"
DUEL = REPLAYS / "won-by-damage.jsonl"


def run(*args: object) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, [str(a) for a in args])
    return r.exit_code, r.stdout, r.stderr


def searched(store: Path) -> list[str]:
    code, out, _ = run("search", "--json", "--store", store)
    assert code == 0, out
    return [row["id"] for row in json.loads(out)["results"]]


def test_a_recorded_duel_made_public_is_found_by_search(tmp_path):
    store = tmp_path / "s.db"
    code, out, _ = run("record", DUEL, "--store", store)
    duel = out.strip()
    assert code == 0 and searched(store) == []
    code, out, err = run("visibility", duel[:6], "public", "--store", store)
    assert code == 0, out + err
    assert f"{duel}: public (was private)" in err and "ygoreplay search" in err
    assert searched(store) == [duel]
    code, out, err = run("visibility", duel, "private", "--json", "--store", store)
    assert json.loads(out) == {"id": duel, "visibility": "private", "was": "public"}
    assert searched(store) == []


def test_record_and_import_take_visibility_through_the_same_command(tmp_path):
    store = tmp_path / "s.db"
    code, out, err = run("record", DUEL, "--visibility", "public", "--json", "--store", store)
    recorded = json.loads(out)
    assert code == 0 and recorded["visibility"] == "public", err
    code, out, err = run("import", REPLAYS / "lost-by-deck-out.judge.ygr", "--unsigned", "--visibility", "public",
                         "--store", store)
    assert code == 0, err
    assert sorted(searched(store)) == sorted([recorded["id"], out.strip()])
    code, _, err = run("import", REPLAYS / "lost-by-deck-out.judge.ygr", "-o", tmp_path / "x.ygr",
                       "--visibility", "public")
    assert code == 2 and "--visibility" in err


def test_visibility_changes_tokens_and_keeps_every_version(tmp_path):
    with Store(str(tmp_path / "s.db"), CARDS) as store:
        records = Records(store)
        duel = records.record(read_events(str(DUEL)), "d").id
        assert duel is not None
        done = records.set_visibility(duel, "unlisted")      # a private duel has no spectator token
        assert done.spectator and matches(done.spectator, records.access(duel).tokens["spectator"])
        assert records.set_visibility(duel, "public").spectator is None
        records.set_visibility(duel, "private")
        assert "spectator" not in records.access(duel).tokens
        versions = store.events.select_events(f"{duel}/access")
        assert [Access.from_dict(msgpack.unpackb(v.state)).visibility for v in versions] == [
            "unlisted", "public", "private"]
        with pytest.raises(InputError, match="visibility is one of"):
            records.set_visibility(duel, "everyone")


def test_a_duel_of_a_match_is_never_made_narrower_than_its_match(tmp_path):
    with Store(str(tmp_path / "s.db"), CARDS) as store:
        records = Records(store)
        duel = records.record(read_events(str(DUEL)), "d").id
        assert duel is not None
        records.set_visibility(duel, "public")
        store.attach(duel, "match_game", {"id": "m0", "game": 1})
        store.attach("m0", "access", Access("public").to_dict())
        with pytest.raises(ConflictError, match="never narrower than its match"):
            records.set_visibility(duel, "unlisted")
        assert records.access(duel).visibility == "public", "nothing was written"


def test_the_service_changes_it_through_the_same_command(tmp_path):
    from fastapi.testclient import TestClient

    from ygoreplay.access import digest
    from ygoreplay.service import create_app
    admin = "publish-organiser-token-0123456789abcdef0123"
    with Store(str(tmp_path / "s.db"), CARDS) as store:
        duel = Records(store).record(read_events(str(DUEL)), "d").id
        with TestClient(create_app(store, digest(admin))) as client:
            assert client.get(f"/duels/{duel}/state").status_code == 404
            to = f"/duels/{duel}/visibility"
            assert client.post(to, json={"visibility": "public"}).status_code == 401
            bad = client.post(to, json={"visibility": "all"}, headers={"Authorization": f"Bearer {admin}"})
            assert bad.status_code == 400 and bad.json()["where"] == "visibility"
            r = client.post(to, json={"visibility": "public"}, headers={"Authorization": f"Bearer {admin}"})
            assert r.json() == {"id": duel, "visibility": "public", "was": "private"}
            assert client.get(f"/duels/{duel}/state").status_code == 200
            assert [row["id"] for row in client.get("/search").json()["results"]] == [duel]


# ---- 2. what names cards and counters, said where they show by number ------------------------------

def _with_counters(kinds: dict[str, int]):
    from ygoreplay.rules import History
    history = History(CARDS, audit=True)
    for event in read_events(str(REPLAYS / "every-summon-method.jsonl")):
        history.append(event)
    state = history.state
    from ygoreplay.state import MZONE
    card = next(c for c in state.cards.values() if c.zone == MZONE and c.face_up)
    card.counters = dict(kinds)
    return state


def test_a_counter_is_named_from_the_clients_strings_beside_the_card_data(tmp_path, monkeypatch):
    from ygoreplay.card_names import strings_path
    from ygoreplay.i18n import using
    from ygoreplay.render import render
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))       # strings of this test's own
    state = _with_counters({"0x4": 2})
    drawn = render(state, width=200)
    assert "2×0x4" in drawn and "0x4: counters by their kind's number" in drawn
    assert str(strings_path("en")) in drawn
    strings_path("en").parent.mkdir(parents=True, exist_ok=True)
    strings_path("en").write_text("#counters\n!counter 0x4 Psychic Counter\n!counter 0x1 Spell Counter\n")
    strings_path("ja").write_text("!counter 0x0004 サイコカウンター\n")
    drawn = render(state, width=200)
    assert "2×Psychic" in drawn and "counters by their kind" not in drawn
    with using("ja"):
        assert "2×サイコ" in render(state, width=200)


def test_cards_shown_by_passcode_say_what_installs_their_names():
    from ygoreplay.i18n import using
    from ygoreplay.render import render
    from ygoreplay.rules import History
    named = render(_with_counters({}), width=120)
    assert "cards update" not in named                        # the bundled cards are named
    history = History(CARDS, audit=True)
    for event in read_events(str(REPLAYS / "every-summon-method.jsonl")):
        history.append(event)
    state = history.state
    from ygoreplay.cards import CardFacts, unnamed
    card = next(c for c in state.cards.values() if c.code)
    card.facts = CardFacts.from_dict({**card.facts.to_dict(), "name": unnamed(card.code)})   # as a replay names it
    drawn = render(state, width=120)
    assert drawn.count("'ygoreplay cards update' installs every card's name") == 1
    with using("ja"):
        assert "ygoreplay cards update" in render(state, width=120)
        assert "installs every card's name" not in render(state, width=120)


def _edopro_folder(tmp_path: Path) -> Path:
    from conftest import shared_path
    real = shared_path("real-replays", "edopro", "GG_DW_vs_Cyberse.yrpX")
    folder = tmp_path / "replays"
    folder.mkdir()
    (folder / "決闘の記録.yrpX").write_bytes(real.read_bytes())
    (folder / "b.yrpX").write_bytes(shared_path("real-replays", "edopro", "2020-06-21_18-05-48.yrpX").read_bytes())
    return folder


def test_an_import_with_no_card_names_installed_says_what_installs_them(tmp_path):
    folder = _edopro_folder(tmp_path)
    code, out, err = run("import", folder, "--store", tmp_path / "s.db")
    assert code in (0, 1), err
    assert out.count("'ygoreplay cards update' installs every card's name") == 1


# ---- 3. import's lines per file in the reader's language, lined up by terminal cells ---------------

def test_imports_lines_per_file_are_translated_and_lined_up_by_cells(tmp_path):
    from ygoreplay.text import cells
    folder = _edopro_folder(tmp_path)
    code, out, err = run("--lang", "ja", "import", folder, "--store", tmp_path / "s.db")
    lines = [line for line in out.splitlines() if ".yrpX" in line]
    assert len(lines) == 2, out
    assert all(" events" not in line and "winner" not in line and "no violation" not in line for line in lines), out
    starts = [cells(line[:line.index(".yrpX") + 5]) + len(line[line.index(".yrpX") + 5:]) -
              len(line[line.index(".yrpX") + 5:].lstrip()) for line in lines]
    assert starts[0] == starts[1], lines
    code, out, _ = run("--lang", "ja", "import", folder, "--store", tmp_path / "s.db")
    lines = [line for line in out.splitlines() if ".yrpX" in line]
    assert len({cells(line.split(".yrpX")[0]) + len(line.split(".yrpX")[1]) - len(line.split(".yrpX")[1].lstrip())
                for line in lines}) == 1, lines


# ---- 4. typed numbers -------------------------------------------------------------------------------

def test_search_limit_and_turn_max_are_typed_whole_numbers(tmp_path):
    from ygoreplay.library_search import MAX_LIMIT, TURN_MAX
    code, out, _ = run("search", "--help")
    for option in ("--limit", "--turn-max"):
        line = next(line for line in out.splitlines() if line.strip().startswith(option))
        assert "INTEGER RANGE" in line and "TEXT" not in line, line
    assert f"[1<=x<={MAX_LIMIT}]" in out and f"[0<=x<={TURN_MAX}]" in out
    code, out, err = run("search", "--limit", "many", "--store", tmp_path / "s.db")
    assert code == 2 and "Invalid value for '--limit'" in err
    code, out, err = run("search", "--limit", "101", "--store", tmp_path / "s.db")
    assert code == 2 and "1<=x<=100" in err


# ---- 5. the same file recorded twice is skipped by default, as an import is; --again records it again

def test_recording_the_same_events_again_skips_them_and_again_records_another_duel(tmp_path):
    """A new user recording the same file again got a duplicate duel unless --once was given: the
    file's events are skipped by default now (the first duel's id printed), --again records a copy."""
    store = tmp_path / "s.db"
    code, first, _ = run("record", DUEL, "--store", store)
    first = first.strip()
    code2, skipped, err = run("record", DUEL, "--title", "another title", "--store", store)
    assert code == code2 == 0 and skipped.strip() == first, "the same file recorded again is the same duel"
    assert f"already stored as {first} (recorded before): skipped (--again" in err
    code, listed, _ = run("list", "--json", "--store", store)
    assert len(json.loads(listed)) == 1
    code, again, err = run("record", DUEL, "--again", "--store", store)
    assert code == 0 and again.strip() != first, "a sample recorded as many duels, asked for"
    assert f"the same events are stored as {first} already: recorded again as another duel (--again)" in err
    code, listed, _ = run("list", "--json", "--store", store)
    assert len(json.loads(listed)) == 2
    code, json_out, _ = run("record", DUEL, "--once", "--json", "--store", store)
    assert json.loads(json_out)["skipped"] is True and json.loads(json_out)["id"] == first
    other = tmp_path / "other.jsonl"
    other.write_text("\n".join(DUEL.read_text().splitlines()[:40]) + "\n")
    code, shorter, err = run("record", other, "--store", store)
    assert code == 0 and shorter.strip() not in (first, again.strip()) and "already" not in err
    code, released, err = run("record", DUEL, "--release", "never", "--store", store)
    assert code == 0 and released.strip() not in (first, again.strip()), "under other settings: another recording"
