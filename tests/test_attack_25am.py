"""Attacks on issue 25's sixteenth pass (``attack25am``): the files, decoders and command line.

* ``verify VIEW.ygr --against JUDGE.ygr``: a view of format 1 or 2 (written before signatures:
  another redaction) was proven by its commitments, its times, its length and the public board
  at every event only. A view downgraded to format 2 (no signature needed: the judge file vouches
  for it) with other players' names and title in its header, other names in its ``duel_started``,
  a judge's note rewritten or card facts renamed was "ok ... matches the judge record", exit 0.
  It is now held to its record's header and card facts as a view of format 3 is, and to its
  events but for the card ids its redaction named otherwise (``exchange.verify_against``).
* The witness (``--witness``): a command that only reads (``verify``, ``audit``, ``list``) made
  the witness it was named (a typo made a new empty file and said "ok", exit 0) and wrote its
  table into any SQLite file named (another store, a ``cards.cdb``); and every witness file was
  made readable by everyone, though it holds every duel's head as a receipt does (a receipt is
  its owner's alone: ``files.mode_for``). Beside a read-only store the witness is read-only, and
  a file it makes is 0600 (``receipts.Witness``).
* ``show DUEL --at N`` with N past a 64-bit integer (``10**22``) met an internal error (exit 4,
  "OverflowError: Python int too large to convert to SQLite INTEGER"): the stored board's seek
  handed it to SQLite. It is past the duel, said so, exit 2 (``Store.seek``).
* ``list --since 2026-13-45`` (or ``--until 2026-02-30``) was compared as text: no day of the
  calendar, and it listed "no duels ... that match", exit 0. Refused, exit 2, as ``99999-01-01``
  was (``cli.records._date``).
* An output named where ygoreplay keeps its own files replaced them whole: ``export DUEL -o
  duels.sqlite`` left the store a 2 KB spectator file (every duel gone, exit 0), ``-o
  organiser.key`` the key (every signature then no one's). No output replaces an SQLite
  database, its log or a private key (``files._target``: every door writes through it).
* ``verify FILE.ygr`` and ``check FILE`` printed the file's name as it is in their verdicts: a
  name with a newline (``x\\nother.ygr: ok, 89 events, hash chain intact, signed by organiser
  key ...``) printed a verdict line of its own above the real one, where every name a command
  prints shows a newline as ``\\n`` (README). Each such line now prints the name escaped.
* A store path that is a pipe (or a device) had a size of 0 and was taken for no store: ``list``
  said "no duels ... (no store there yet)", exit 0, and ``record`` opened the pipe to create the
  store and waited for ever. It is refused, as a folder is (``store._check_sqlite``).
"""
from __future__ import annotations

import lzma
import os
import sqlite3
import stat
import struct
import zlib

import msgpack

from test_store_cli import DAMAGE, REPLAYS, clean, record, run
from ygoreplay import chain as chainlib
from ygoreplay.cards import CardDB
from ygoreplay.events import JudgeNote
from ygoreplay.exchange import make_replay, verify_against, view_root
from ygoreplay.jsonl import read_events
from ygoreplay.replay_file import MAGIC, PREFIX, _LEGACY_FILTERS, ReplayFile, dumps, loads
from ygoreplay.signing import OrganiserKey


# -- a view downgraded to format 2 ---------------------------------------------------------------

def _judge() -> tuple[bytes, ReplayFile]:
    """A judge file of the sample duel with a judge's note, signed by the organiser key."""
    events = read_events(REPLAYS / DAMAGE)
    events.insert(20, JudgeNote(judge="Ruth", note="no warning given"))
    times = [chainlib.from_ms(1_700_000_000_000 + 1000 * i) for i in range(len(events))]
    judge = make_replay(events, times, CardDB.classic(), "judge", bytes(range(32)), bytes(range(32, 64)),
                        {"title": "table 4"})
    data = dumps(judge, OrganiserKey.load_or_create()[0])
    return data, loads(data)


def _format_2_view(judge: ReplayFile, alter) -> bytes:
    """A spectator view of ``judge`` as format 2 wrote one (its commitments keyed as format 2
    keyed them: only the judge file's holder makes them), its events, header and card facts
    changed by ``alter(events, header, cards)``, rechained: no signature (format 2 has none)."""
    view = make_replay(judge.events, judge.times, judge.cards, "spectator", judge.root, judge.commit_key,
                       judge.match, judge.source, judge.created)
    from ygoreplay.exchange import legacy_commitments
    commitments = legacy_commitments(judge, "spectator")
    events = [e.to_dict() for e in view.events]
    header = {"view": "spectator", "ruleset": view.ruleset, "players": list(view.players), "match": dict(view.match),
              "created": view.created, "source": view.source}
    cards = view.cards.to_json_list()
    alter(events, header, cards)
    root = view_root(judge.root, "spectator")
    hashes = chainlib.hashes(root, events, view.times)
    stamps = view.stamps()
    body = {"events": events, "t0": stamps[0], "dt": [b - a for a, b in zip([stamps[0]] + stamps, stamps)],
            "cards": cards, "chain": b"".join(h[:PREFIX] for h in hashes), "commitments": commitments}
    if view.disclosures:
        body["disclosures"] = view.disclosures
    packed = lzma.compress(msgpack.packb(body), format=lzma.FORMAT_RAW, filters=_LEGACY_FILTERS)
    head = msgpack.packb({**header, "events": len(events), "cards": len(cards), "root": root, "head": hashes[-1]})
    return b"".join((MAGIC, struct.pack("<HHI", 2, 0, len(head)), head,
                     struct.pack("<II", len(packed), zlib.crc32(packed)), packed))


def _unchanged(events, header, cards) -> None:
    pass


def _names_and_note(events, header, cards) -> None:
    header["players"] = ["Mallory", "Kaiba"]
    header["match"]["title"] = "table 1"
    events[0]["players"] = ["Mallory", "Kaiba"]
    note = next(e for e in events if e["kind"] == "judge_note")
    note["note"] = "game loss for Kaiba"


def _card_renamed(events, header, cards) -> None:
    cards[0]["name"] = "Pot of Greed"


def test_a_view_downgraded_to_format_2_is_held_to_its_records_header_events_and_card_facts(tmp_path):
    """Before: all three were proven ([]), and the command line said ok, exit 0."""
    data, judge = _judge()
    assert verify_against(loads(_format_2_view(judge, _unchanged)), judge) == []      # an honest one holds
    forged = loads(_format_2_view(judge, _names_and_note))
    assert forged.format == 2 and forged.signer is None
    assert verify_against(forged, judge) == ["the view's events differ from the record's from event 0",
                                             "the view's header differs from the record's in players, title"]
    renamed = loads(_format_2_view(judge, _card_renamed))
    assert verify_against(renamed, judge) == ["the view's card facts are not the record's"]
    (tmp_path / "judge.ygr").write_bytes(data)
    (tmp_path / "forged.ygr").write_bytes(_format_2_view(judge, _names_and_note))
    (tmp_path / "honest.ygr").write_bytes(_format_2_view(judge, _unchanged))
    clean(run("verify", tmp_path / "honest.ygr", "--against", tmp_path / "judge.ygr"), 0)
    result = run("verify", tmp_path / "forged.ygr", "--against", tmp_path / "judge.ygr")
    clean(result, 1)
    assert "the view's header differs from the record's in players, title" in result.output


def test_a_note_rewritten_in_a_downgraded_view_is_found_at_its_event(tmp_path):
    _, judge = _judge()

    def rewritten(events, header, cards) -> None:
        note = next(e for e in events if e["kind"] == "judge_note")
        note["note"] = "game loss for Kaiba"
    assert verify_against(loads(_format_2_view(judge, rewritten)), judge) == [
        "the view's events differ from the record's from event 20"]


# -- the witness beside a read-only store ------------------------------------------------------------

def test_a_command_that_only_reads_makes_no_witness(tmp_path):
    """Before: each made the file (and its table) and ``verify`` said ok, exit 0."""
    url = str(tmp_path / "store.sqlite")
    duel = record(url, DAMAGE)
    typo = tmp_path / "witnes.sqlite"
    for args in (("verify", duel), ("audit", duel), ("list",)):
        result = run(*args, "--witness", typo, url=url)
        clean(result, 2)
        assert f"the witness {typo} does not exist" in result.output
        assert not typo.exists()


def test_a_command_that_only_reads_writes_nothing_into_the_file_named_its_witness(tmp_path):
    """Before: ``verify`` added the witness's table to another SQLite file (here a copy of a store)."""
    url = str(tmp_path / "store.sqlite")
    duel = record(url, DAMAGE)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("create table datas (id integer primary key)")
    conn.close()
    before = other.read_bytes()
    result = run("verify", duel, "--witness", other, url=url)
    clean(result, 2)
    assert "no such table: ygoreplay_witness" in result.output
    assert other.read_bytes() == before


def test_a_witness_a_write_makes_is_its_owners_alone_and_read_only_commands_read_it(tmp_path):
    """Before: 0644 (the umask's), every duel's head in it for every user of the machine."""
    url, witness = str(tmp_path / "store.sqlite"), tmp_path / "witness.sqlite"
    duel = record(url, DAMAGE, "--witness", witness)
    assert stat.S_IMODE(os.stat(witness).st_mode) == 0o600
    before = witness.read_bytes()
    result = run("verify", duel, "--witness", witness, url=url)
    clean(result, 0)
    assert result.output.rstrip().endswith("its witness saw 89 events")
    assert witness.read_bytes() == before


# -- a store that is a pipe ---------------------------------------------------------------------------

def test_a_store_that_is_a_pipe_is_refused(tmp_path):
    """Before: ``list`` said there was no store there yet, exit 0 (and ``record`` hung, opening
    the pipe to create a store over it: not run here)."""
    pipe = tmp_path / "duels.sqlite"
    os.mkfifo(pipe)
    for args in (("list",), ("show", "0123456789ab")):
        result = run(*args, url=str(pipe))
        clean(result, 2)
        assert f"{pipe} is not a regular file, not a store file" in result.output
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)


# -- a position past any SQL integer ------------------------------------------------------------------

def test_a_position_past_any_sql_integer_is_past_the_duel(tmp_path):
    """Before: exit 4, an internal error (SQLite's OverflowError)."""
    url = str(tmp_path / "store.sqlite")
    duel = record(url, DAMAGE)
    for at in (str(1 << 63), str(10 ** 22)):
        result = run("show", duel, "--at", at, url=url)
        clean(result, 2)
        assert f"--at {at} is outside the duel's events 0..88" in result.output


def test_a_day_not_of_the_calendar_is_refused(tmp_path):
    """Before: exit 0, "no duels in ... that match"."""
    url = str(tmp_path / "store.sqlite")
    record(url, DAMAGE)
    for option, day in (("--since", "2026-13-45"), ("--until", "2026-02-30"), ("--since", "2026-00")):
        result = run("list", option, day, url=url)
        clean(result, 2)
        assert f"{day} is not a date" in result.output
    clean(run("list", "--since", "2024-02-29", "--until", "2999", url=url), 0)


def test_no_output_replaces_the_store_or_the_key(tmp_path):
    """Before: exit 0, the store (or the key) replaced by the file written."""
    url = str(tmp_path / "store.sqlite")
    duel = record(url, DAMAGE)
    key = OrganiserKey.load_or_create()[0].path
    for target, args in ((url, ("--view", "spectator")), (url, ("--record",)), (key, ("--view", "spectator"))):
        before = open(target, "rb").read()
        result = run("export", duel, "-o", target, *args, url=url)
        clean(result, 2)
        assert "which an output never replaces; nothing was written" in result.output
        assert open(target, "rb").read() == before
    clean(run("verify", duel, url=url), 0)


def test_a_file_name_with_a_newline_prints_no_verdict_of_its_own(tmp_path):
    """Before: the forged line stood alone, "ok" and all, above "...: NOT signed"."""
    _, judge = _judge()
    forged = "x.ygr: ok, 90 events, hash chain intact, signed by organiser key 0123456789abcdef\nx"
    path = tmp_path / f"{forged}.ygr"
    path.write_bytes(dumps(judge))                      # unsigned
    for command, verdict in (("verify", "NOT signed"), ("check", "legal")):
        result = run(command, path)
        lines = result.output.splitlines()
        assert not any(line.startswith("x.ygr: ") for line in lines), result.output   # a line of its own
        assert any(line.startswith(str(tmp_path / "x.ygr: ok, 90 events")) and "\\nx.ygr: " in line
                   and verdict in line for line in lines), result.output
