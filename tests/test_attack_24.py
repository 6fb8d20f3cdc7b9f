"""Issue 24 attacked: the format registry, stored effect facts, the trusted decode path, the
deflated snapshots and per-process caches, the card-script reader. Each test is an attack that
broke something, kept once fixed (what held is said in the report, not tested twice)."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import shared_path

from ygoreplay.card_scripts import ScriptError, read_script, read_scripts
from ygoreplay.errors import StoreError, VerificationError
from ygoreplay.events import EventFormatError, from_dict, from_trusted_dict
from ygoreplay.store import Store

ROOT = Path(__file__).resolve().parent.parent


# -- the card-script reader ------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "x = a" + ".b" * 1000 + "\n",                         # no bracket nor block: nesting() says 0
    "function s.initial_effect(c)\n local e1=Effect.CreateEffect(c)\n e1:SetCode(a" + ".b" * 1000 + ")\nend\n",
])
def test_a_script_whose_expression_chains_deeper_than_the_reader_recurses_is_refused_by_name(text):
    """``a.b.b.b...`` parses (the parser loops over suffixes) but nests one node per ``.b``: the
    reader's walk recursed into it and raised RecursionError, a traceback out of ``cards update
    --scripts``, not a script listed as unreadable."""
    with pytest.raises(ScriptError, match="nested too deep"):
        read_script(text)


def test_a_folder_with_one_such_script_keeps_the_others(tmp_path):
    (tmp_path / "c1.lua").write_text("x = a" + ".b" * 1000 + "\n")
    (tmp_path / "c2.lua").write_text("function s.initial_effect(c)\n local e1=Effect.CreateEffect(c)\n"
                                     " e1:SetType(EFFECT_TYPE_IGNITION)\n c:RegisterEffect(e1)\nend\n")
    reading = read_scripts(tmp_path)
    assert [name for name, _why in reading.failed] == ["c1.lua"] and set(reading.effects) == {2}


# -- the trusted decode path -----------------------------------------------------------------------

@pytest.mark.parametrize("kind, field, value, says", [
    ("life_points_changed", "lp", float("nan"), "life_points_changed.lp"),     # NaN: a 500 as JSON
    ("life_points_changed", "amount", 1.5, "life_points_changed.amount"),
    ("stats_changed", "atk", 1.5, "stats_changed.atk"),
    ("card_moved", "to", [0, "zz"], "card_moved.to"),                          # a card in no zone
    ("duel_started", "first_player", 7, "duel_started.first_player"),         # diff: "the same position"
    ("duel_started", "players", "zz", "duel_started.players"),
])
def test_a_rechained_record_of_the_wrong_type_that_would_fold_is_refused_naming_it(tmp_path, kind, field, value,
                                                                                     says):
    """A forger with the database (not the key) rechains an event whose field has the wrong type.
    The trusted path took scalars as read: these folded without raising, so ``show`` and ``diff``
    of the judge's board showed LP NaN or a card in zone "zz" (the spectator's view, decoded with
    checks, refused the same record). Now the trusted path checks each scalar's type too. A seek
    refuses such a record first as not vouched for by the duel's signed anchor (issue 25); with the
    anchor signed again by the organiser's key, the decoder's own check is what refuses it."""
    from test_trusted_decode import _alter, _recorded, _signed_again
    url, duel = _recorded(tmp_path)
    position = _alter(url, duel, kind, field, value, rechain=True)
    with Store(url) as reader, pytest.raises(VerificationError, match=f"duel {duel}: its events up to"):
        reader.state_at(duel)
    _signed_again(url, duel)
    with Store(url) as reader, pytest.raises(StoreError) as refused:
        reader.state_at(duel)
    assert str(refused.value).startswith(f"duel {duel} event {position}: the stored record cannot be decoded")
    assert says in str(refused.value)


@pytest.mark.parametrize("wire", [
    {"kind": "life_points_changed", "player": 0, "amount": 100, "reason": "battle_damage", "lp": 7900.0},
    {"kind": "cards_drawn", "player": 7, "count": 1},
    {"kind": "cards_drawn", "player": True, "count": 1},
    {"kind": "phase_entered", "phase": "lunch"},
    {"kind": "card_moved", "card": "p0.m1", "to": [0, "zz"], "reason": "destroyed"},
    {"kind": "normal_summoned", "player": 0, "card": None, "zone": 2},
    {"kind": "duel_started", "first_player": 0, "players": "zz"},
    {"kind": "damage_calculated", "damage": []},                   # the log reads damage[0] and [1]
    {"kind": "token_created", "player": 0, "card": "p0.t1", "code": -1, "zone": 1, "position": "attack"},
])
def test_the_trusted_decoder_refuses_what_the_checking_one_refuses(wire):
    with pytest.raises(EventFormatError):
        from_dict(wire)
    with pytest.raises(EventFormatError):
        from_trusted_dict(wire)


# -- the format registry ---------------------------------------------------------------------------

def test_verify_names_an_edopro_replay_as_what_it_is_not_a_damaged_ygr(tmp_path):
    """The registry says the file is an EDOPro replay (by its magic, whatever its name); ``verify``
    read it as a ``.ygr`` anyway and called it one with bad magic bytes."""
    from click.testing import CliRunner

    from ygoreplay.cli import main
    real = sorted(shared_path("real-replays", "edopro").glob("*.yrp*"))[0]
    for name in ("duel.yrpX", "duel.bin"):
        copy = tmp_path / name
        copy.write_bytes(real.read_bytes())
        result = CliRunner().invoke(main, ["verify", str(copy), "--store", str(tmp_path / "store.db")])
        assert result.exit_code == 2 and "bad magic" not in result.output, result.output
        assert "EDOPro replay" in result.output and f"ygoreplay import {copy}" in result.output


# -- import -o ---------------------------------------------------------------------------------------

def test_import_o_of_two_replays_with_one_stem_writes_both(tmp_path, monkeypatch):
    """A folder's replays are found by content, so ``game.yrpX`` and ``game.bin`` (or ``game.yrp``)
    are both imported; both went to ``game.ygr``, the second over the first, while the summary
    said 2 imported: a record silently lost. Each now has a file of its own."""
    from click.testing import CliRunner

    from ygoreplay.cli import main
    from ygoreplay.replay_file import read
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    first, second = sorted(shared_path("real-replays", "edopro").glob("*.yrpX"))[:2]
    folder, out = tmp_path / "in", tmp_path / "out"
    folder.mkdir()
    (folder / "game.yrpX").write_bytes(first.read_bytes())
    (folder / "game.bin").write_bytes(second.read_bytes())
    (folder / "other.yrpX").write_bytes(second.read_bytes())
    result = CliRunner().invoke(main, ["import", str(folder), "-o", str(out), "--json", "-j", "1"])
    assert result.exit_code in (0, 1), result.output
    written = sorted(p.name for p in out.iterdir())
    assert len(written) == 3 and "other.ygr" in written, written
    sources = {read(out / name).source["file"] for name in written}
    assert sources == {"game.yrpX", "game.bin", "other.yrpX"}


def test_the_names_of_an_import_folder_never_collide_whatever_their_case():
    from ygoreplay.cli.records import _ygr_names
    names = _ygr_names([Path(n) for n in ("game.yrpX", "game.bin", "game.yrpX.yrp", "Game.YRPX", "solo.yrpX")])
    assert len({n.casefold() for n in names}) == 5 and names[-1] == "solo.ygr"


# -- deflated snapshots ------------------------------------------------------------------------------

def test_a_deflated_snapshot_is_inflated_only_so_far(tmp_path, monkeypatch):
    """A snapshot signed by a key the store trusts (another organiser sharing it) that inflates
    to far more than any state: ``zlib.decompress`` expanded it whole, whatever it held. Now a
    snapshot is inflated to at most ``MAX_SNAPSHOT`` bytes, and one past it is not used."""
    import sqlite3
    import tracemalloc
    import zlib

    import ygoreplay.store.records as store_records
    from test_trusted_decode import _recorded
    from ygoreplay.render import render
    url, duel = _recorded(tmp_path)                       # no snapshots: we plant one
    with Store(url) as writer:
        expected = render(writer.state_at(duel, 20))
        at = writer.hash_at(duel, 16)
        bomb = zlib.compress(b"\0" * (32 << 20), 9)
        row = writer._snapshot_row(duel, 16, bomb, at, writer._snapshot_message(duel, 16, at, bomb))
    with sqlite3.connect(url) as conn:
        conn.execute("INSERT INTO stored_snapshots (originator_id, originator_version, topic, state) "
                     "VALUES (?, ?, ?, ?)", (row.originator_id, row.originator_version, row.topic, row.state))
    monkeypatch.setattr(store_records, "MAX_SNAPSHOT", 1 << 20)
    with Store(url) as reader:
        tracemalloc.start()
        try:
            state = reader.state_at(duel, 20)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 16 << 20, f"inflated {peak:,} bytes"
        assert render(state) == expected                    # from the events, the snapshot unused
        assert "the snapshot at 16 cannot be decoded" in reader.verify(duel).problem


# -- one command a write ---------------------------------------------------------------------------

def test_an_upload_writes_its_duel_and_its_access_in_one_transaction(tmp_path, monkeypatch):
    """``POST /uploads`` recorded the duel, then attached its access record from the HTTP layer
    in a write of its own: a failure between the two left a duel whose tokens were never stored
    (and a second upload of it answered 409). The access now goes in with the duel."""
    from fastapi.testclient import TestClient
    from test_release import ADMIN, ORGANISER, auth
    from test_yrpx import replay as generated_yrpx

    from ygoreplay.access import digest
    from ygoreplay.service import create_app

    opened = Store(str(tmp_path / "duels.sqlite"), concurrent=True)

    def refuse(*_args, **_kwargs):
        raise AssertionError("a second write")
    monkeypatch.setattr(Store, "attach", refuse)
    try:
        with TestClient(create_app(opened, digest(ADMIN))) as client_:
            made = client_.post("/uploads", content=generated_yrpx(), headers=ORGANISER)
            assert made.status_code == 201, made.text
            tokens = made.json()["tokens"]
            viewer = client_.get(f"/duels/{made.json()['id']}/events", headers=auth(tokens["judge"]))
            assert viewer.status_code == 200, viewer.text
    finally:
        opened.close()


def test_a_json_lines_file_with_a_byte_order_mark_reads_as_it_sniffs(tmp_path):
    """The registry reads a UTF-8 byte order mark (Notepad writes one) before the first event as
    JSON Lines; the reader then refused the first line as 'Unexpected UTF-8 BOM'."""
    from ygoreplay.formats import JSONL, find_format
    from ygoreplay.jsonl import read_events
    path = tmp_path / "notepad.txt"
    plain = ROOT / "replays" / "won-by-damage.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    assert find_format(path) is JSONL
    assert read_events(path) == read_events(plain)


def test_a_script_the_parser_takes_quadratic_time_over_is_cut_off(monkeypatch):
    """``x=a(a)(a)...``: 300 bytes, nesting 1, and the parser (ANTLR's prediction over Lua's
    ambiguous call syntax) takes 16 s for 100 calls, four times that for 200: a 3 KB script took
    hours, and ``read_scripts`` only looks at its deadline between files. A script now has
    ``PARSE_SECONDS`` to be read."""
    import time

    import ygoreplay.card_scripts as card_scripts
    monkeypatch.setattr(card_scripts, "PARSE_SECONDS", 0.5)
    started = time.monotonic()
    with pytest.raises(ScriptError, match="more than 0.5 s"):
        read_script("x=a" + "(a)" * 400 + "\n")
    assert time.monotonic() - started < 30
    assert read_script("function s.initial_effect(c)\n local e1=Effect.CreateEffect(c)\nend\n")
