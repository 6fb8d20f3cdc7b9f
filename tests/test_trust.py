"""The three promises under attack, on SQLite and PostgreSQL: a record proves it was not altered,
nothing recorded is lost or half-written, and nothing is laundered on its way out or in.

Each test is an attack that worked before (the trust issue lists them): rows swapped or deleted
behind the store's back, a snapshot edited, a tampered or truncated file exported, imported or
re-signed, a forged signature, a rollback inside one batch, a write that fails half-way.
"""
from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path

import msgpack
import pytest
from click.testing import CliRunner

from duel import CARDS, snapshot
from test_store import (  # noqa: F401  (fixtures)
    DAMAGE, DECK_OUT, REPLAYS, _pg_connect, execute, open_store, recorded, sample, store, store_url)
from ygoreplay.application import Records
from ygoreplay.cli import main
from ygoreplay.errors import StoreError, VerificationError
from ygoreplay.events import RolledBack, from_dict
from ygoreplay.exchange import verify_against
from ygoreplay.jsonl import dumps as jsonl
from ygoreplay.replay_file import dumps, loads, read, sign, verify_chain
from ygoreplay.rules import History, replay
from ygoreplay.rules import history as history_module
from ygoreplay.signing import OrganiserKey
from ygoreplay.store.postgres import _PostgresWriter
from ygoreplay.store import SNAPSHOT_EVERY, Store

WHERE = "WHERE originator_id = ? AND originator_version = ?"


def run(*args, url: str | None = None, env: dict | None = None):
    return CliRunner(env=env).invoke(main, [str(a) for a in args] + (["--store", url] if url else []))


def clean(result, code: int) -> None:
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, (SystemExit, type(None))), repr(result.exception)
    assert "Traceback" not in result.output


def row(url: str, originator: str, version: int) -> bytes:
    (state,), = execute(url, f"SELECT state FROM {{t}} {WHERE}", (originator, version))
    return bytes(state)


def put(url: str, originator: str, version: int, state: bytes) -> None:
    execute(url, f"UPDATE {{t}} SET state = ? {WHERE}", (state, originator, version))


def execute_snapshots(url: str, statement: str, params: tuple = ()) -> list[tuple]:
    return execute(url, statement, params, snapshots=True)


# -- truncation, rechaining, header edits: the signed anchor -------------------------------------------

def test_deleting_the_last_events_is_detected(store_url, store, open_store):
    duel = recorded(store, DAMAGE)
    for version in (89, 88, 87):
        execute(store_url, f"DELETE FROM {{t}} {WHERE}", (duel, version))
    result = open_store().verify(duel)
    assert not result.ok and result.events == 86
    assert result.problem == "the last 3 event(s) are missing: an anchor signed at 89 events names them"
    verdict = run("verify", duel, url=store_url)
    clean(verdict, 1)
    assert "BROKEN" in verdict.stdout and "the last 3 event(s) are missing" in verdict.stdout


def test_deleting_the_last_events_and_their_anchors_still_breaks_the_record(store_url, store, open_store):
    """An attacker who knows about anchors deletes the last appends whole, anchors included: the
    earlier signed anchors name the events that remain, so the record verifies as the shorter
    record it was then, and nothing appended later can hide that the duel was cut at an anchor;
    a cut inside one append is always caught."""
    duel = store.create_duel("cut")
    for i in range(0, 89, 10):
        store.append(duel, sample(DAMAGE)[i:i + 10])
    for version in range(85, 90):                         # inside the last append (80..88)
        execute(store_url, f"DELETE FROM {{t}} {WHERE}", (duel, version))
    execute(store_url, f"DELETE FROM {{t}} {WHERE}", (f"{duel}/head", 89))
    result = open_store().verify(duel)
    assert not result.ok and "events 80..83 were added after its last signed anchor" in result.problem


def test_rechaining_the_record_is_detected(store_url, store, open_store):
    """An event edited and every hash after it recomputed: a consistent chain, but not the signed one."""
    from ygoreplay.chain import link
    duel = recorded(store, DAMAGE, 40)
    prev = store.header(duel).root
    for version in range(1, 41):
        env = msgpack.unpackb(row(store_url, duel, version))
        if version == 30:
            env["t"] = "2020-01-01T00:00:00.000+00:00"
        env["p"], env["h"] = prev, link(prev, version - 1, env["e"], env["t"])
        prev = env["h"]
        put(store_url, duel, version, msgpack.packb(env))
    result = open_store().verify(duel)
    assert not result.ok and "not the ones its anchor signed (rechained)" in result.problem
    with pytest.raises(VerificationError, match="do not match its signed anchor"):
        open_store().append(duel, sample(DAMAGE)[40])     # nothing is appended onto it, nor signed
    assert open_store().verify(duel).problem == result.problem


def test_an_edited_header_is_detected(store_url, store, open_store):
    duel = recorded(store, DAMAGE, 20)
    env = msgpack.unpackb(row(store_url, duel, 0))
    env["header"]["title"] = "Finals: Yugi wins"
    env["h"] = hashlib.sha256(msgpack.packb(env["header"])).digest()   # its own digest recomputed
    put(store_url, duel, 0, msgpack.packb(env))
    result = open_store().verify(duel)
    assert not result.ok and result.first_bad == -1 and "not the one its anchors signed" in result.problem


def test_a_forged_anchor_fails_without_the_organisers_key(store_url, store, open_store):
    """The last two events deleted and the last anchor replaced by one that names the shorter
    record, signed by someone else's key."""
    from ygoreplay.store import Head
    duel = recorded(store, DAMAGE, 20)
    for version in (19, 20):
        execute(store_url, f"DELETE FROM {{t}} {WHERE}", (duel, version))
    anchor = Head.from_dict(msgpack.unpackb(row(store_url, f"{duel}/head", 20)))
    forger = OrganiserKey.generate()
    unsigned = Head(18, msgpack.unpackb(row(store_url, duel, 18))["h"], anchor.header, anchor.cards,
                    anchor.status, forger.public.raw, b"")
    forged = Head(18, unsigned.hash, anchor.header, anchor.cards, anchor.status, forger.public.raw,
                  forger.sign(unsigned.message(duel)))
    put(store_url, f"{duel}/head", 20, msgpack.packb(forged.to_dict()))
    result = open_store().verify(duel)
    assert not result.ok and "not a key trusted here" in result.problem
    with pytest.raises(VerificationError, match="not signed by a trusted organiser key"):
        open_store().append(duel, sample(DAMAGE)[18])


def test_anchors_cover_the_card_facts(store_url, store, open_store):
    """The facts the fold reads are part of what is signed: a lower ATK would change a battle."""
    duel = recorded(store, DAMAGE)
    versions = [r[0] for r in execute(store_url, "SELECT originator_version FROM {t} WHERE originator_id = ?",
                                      (f"{duel}/cards",))]
    cards = msgpack.unpackb(row(store_url, f"{duel}/cards", versions[0]))
    cards["cards"][0]["atk"] = 0
    put(store_url, f"{duel}/cards", versions[0], msgpack.packb(cards))
    result = open_store().verify(duel)
    assert not result.ok and "card facts are not the ones its anchor" in result.problem


# -- laundering: export carries the stored chain, import verifies first ---------------------------------

def test_export_refuses_a_tampered_record(store_url, store, tmp_path):
    duel = recorded(store, DAMAGE)
    a, b = row(store_url, duel, 30), row(store_url, duel, 31)
    put(store_url, duel, 30, b)
    put(store_url, duel, 31, a)                           # two rows swapped
    out = tmp_path / "out.ygr"
    result = run("export", duel, "-o", out, url=store_url)
    clean(result, 1)
    assert "fails verification" in result.output and not out.exists()
    for view in ("spectator", "p0"):
        clean(run("export", duel, "-o", out, "--view", view, url=store_url), 1)
    assert not out.exists()
    with pytest.raises(VerificationError):
        Records(store).branch(duel, 10)


def test_a_judge_file_exported_from_the_store_is_signed_and_carries_the_stored_chain(store_url, store, tmp_path):
    duel = recorded(store, DAMAGE)
    out = tmp_path / "judge.ygr"
    clean(run("export", duel, "-o", out, url=store_url), 0)
    judge = read(out)
    assert judge.signature_valid and judge.signer == OrganiserKey.load().public
    assert judge.chain == [r.hash for r in store.records(duel)] and judge.root == store.header(duel).root
    verdict = run("verify", out)
    clean(verdict, 0)
    assert "signed by organiser key" in verdict.stdout


def _tampered_copy(data: bytes) -> bytes:
    """The judge file with one event changed and the file re-made by someone without the key."""
    original = loads(data)
    events = list(original.events)
    index = next(i for i, e in enumerate(events) if e.kind == "life_points_changed")
    import dataclasses
    events[index] = dataclasses.replace(events[index], amount=events[index].amount + 1)
    return dumps(dataclasses.replace(original, events=events, chain=[], stored_prefixes=None, stored_head=None))


def test_import_refuses_a_tampered_or_unsigned_judge_file_and_keeps_a_good_ones_root(store_url, store, tmp_path):
    duel = recorded(store, DAMAGE)
    good = tmp_path / "judge.ygr"
    clean(run("export", duel, "-o", good, url=store_url), 0)
    rechained = tmp_path / "rechained.ygr"
    rechained.write_bytes(_tampered_copy(good.read_bytes()))        # consistent chain, no signature
    result = run("import", rechained, url=store_url)
    clean(result, 1)
    assert "NOT signed" in result.output and "nothing was imported" in result.output
    forger = OrganiserKey.generate()
    forged = tmp_path / "forged.ygr"
    forged.write_bytes(sign(_tampered_copy(good.read_bytes()), forger))  # signed by someone else
    result = run("import", forged, url=store_url)
    clean(result, 1)
    assert "not a key trusted here" in result.output
    flipped = bytearray(good.read_bytes())
    flipped[-1] ^= 1                                                 # a signature that does not hold
    (tmp_path / "flipped.ygr").write_bytes(bytes(flipped))
    clean(run("import", tmp_path / "flipped.ygr", "--unsigned", url=store_url), 1)
    assert len(store.duels()) == 1
    imported = run("import", good, url=store_url)
    clean(imported, 0)
    copy = imported.stdout.strip()
    assert store.header(copy).root == store.header(duel).root and store.header(copy).secret == store.header(duel).secret
    assert [r.hash for r in store.records(copy)] == [r.hash for r in store.records(duel)]
    unverified = run("import", rechained, "--unsigned", url=store_url)
    clean(unverified, 1)                           # kept, and its changed LP said by the audit
    assert store.info(unverified.stdout.strip()).provenance["trusted"] is False


def test_a_view_handed_out_before_still_verifies_against_a_re_export(store_url, store, tmp_path):
    duel = recorded(store, DAMAGE)
    first_view, judge = tmp_path / "spectator.ygr", tmp_path / "judge.ygr"
    clean(run("export", duel, "-o", first_view, "--view", "spectator", url=store_url), 0)
    clean(run("export", duel, "-o", judge, url=store_url), 0)
    elsewhere = str(tmp_path / "elsewhere.sqlite")
    copy = run("import", judge, url=elsewhere).stdout.strip()
    again = tmp_path / "again.ygr"
    clean(run("export", copy, "-o", again, url=elsewhere), 0)
    verdict = run("verify", first_view, "--against", again)
    clean(verdict, 0)
    assert "matches the judge record" in verdict.stdout


def test_verify_against_covers_the_header_times_and_card_facts(store_url, store):
    import dataclasses
    duel = recorded(store, DAMAGE)
    judge = loads(dumps(Records(store).export(duel)))
    view = loads(dumps(Records(store).export(duel, "spectator")))
    assert verify_against(view, judge) == []
    late = dataclasses.replace(view, times=view.times[:-1] + ["2031-01-01T00:00:00.000+00:00"], chain=[])
    assert any("recording times differ" in p for p in verify_against(loads(dumps(late)), judge))
    facts = view.cards.to_json_list()
    facts[0] = {**facts[0], "atk": 1}
    from ygoreplay.cards import CardDB
    altered = dataclasses.replace(view, cards=CardDB.from_json(facts), chain=[])
    assert "the view's card facts are not the record's" in verify_against(loads(dumps(altered)), judge)
    renamed = dataclasses.replace(view, match={**view.match, "title": "Finals"}, players=["Kaiba", "Yugi"], chain=[])
    assert any("header differs" in p and "title" in p and "players" in p
               for p in verify_against(loads(dumps(renamed)), judge))


def test_a_file_cut_short_and_rechained_fails_verify(store_url, store, tmp_path):
    import dataclasses
    duel = recorded(store, DAMAGE)
    out = tmp_path / "judge.ygr"
    clean(run("export", duel, "-o", out, url=store_url), 0)
    whole = read(out)
    cut = dataclasses.replace(whole, events=whole.events[:-5], times=whole.times[:-5], chain=[])
    short = tmp_path / "short.ygr"
    short.write_bytes(dumps(cut))
    verdict = run("verify", short)
    clean(verdict, 1)
    assert "NOT signed" in verdict.stdout
    forger = OrganiserKey.generate()
    short.write_bytes(sign(dumps(cut), forger))
    verdict = run("verify", short)
    clean(verdict, 1)
    assert f"signed by key {forger.public.fingerprint}, which is not a key trusted here" in verdict.stdout
    assert run("verify", short, "--key", forger.public.text).exit_code == 0, "trust is the verifier's choice"


# -- snapshots: bound to the chain, signed, checked before use ------------------------------------------

def test_an_edited_snapshot_is_not_used_and_verify_names_it(store_url, store, open_store):
    duel = recorded(store, DAMAGE)
    truth = snapshot(replay(sample(DAMAGE), CARDS, at=69))
    (state,), = execute_snapshots(store_url, "SELECT state FROM {t} WHERE originator_id = ? AND originator_version = ?",
                                  (duel, 64))
    snap = msgpack.unpackb(bytes(state))
    data = msgpack.unpackb(zlib.decompress(snap["d"]))              # deflated msgpack
    for side in data["state"]["sides"]:
        side[0] = 1                                                   # both players at 1 LP
    snap["d"] = zlib.compress(msgpack.packb(data))
    execute_snapshots(store_url, "UPDATE {t} SET state = ? WHERE originator_id = ? AND originator_version = ?",
                      (msgpack.packb(snap), duel, 64))
    fresh = open_store()
    assert snapshot(fresh.state_at(duel, 70)) == truth                # the bad snapshot is passed over
    result = fresh.verify(duel)
    assert not result.ok and "the snapshot at 64 is not signed or not bound to the chain" in result.problem
    assert run("diff", f"{duel}@70", f"{duel}@70", url=store_url).stdout.endswith("are the same position\n")


def test_a_snapshot_moved_to_another_position_is_not_used(store_url, store, open_store):
    duel = recorded(store, DAMAGE)
    (state,), = execute_snapshots(store_url, "SELECT state FROM {t} WHERE originator_id = ? AND originator_version = ?",
                                  (duel, 32))
    execute_snapshots(store_url, "DELETE FROM {t} WHERE originator_id = ? AND originator_version = ?", (duel, 64))
    execute_snapshots(store_url, "INSERT INTO {t} (originator_id, originator_version, topic, state) VALUES (?, ?, ?, ?)",
                      (duel, 64, "ygoreplay:snapshot", bytes(state)))
    fresh = open_store()
    assert snapshot(fresh.state_at(duel, 70)) == snapshot(replay(sample(DAMAGE), CARDS, at=69))
    assert not fresh.verify(duel).ok


# -- rollbacks in one batch, and their cost ----------------------------------------------------------------

def _with_rollbacks(events: list, count: int) -> list:
    """A legal duel with ``count`` judge rollbacks: each undoes a judge note just written."""
    out = list(events[:40])
    for i in range(count):
        out.append(from_dict({"kind": "judge_note", "judge": "J", "note": f"check {i}"}))
        out.append(RolledBack(to=len(out) - 1, judge="J", reason=f"undo note {i}"))
    return out + list(events[40:])


def test_a_rollback_inside_one_batch_is_recorded_as_check_accepts_it(store_url, store, tmp_path):
    events = _with_rollbacks(list(sample(DAMAGE)), 3)
    path = tmp_path / "rolled.jsonl"
    path.write_text(jsonl(events))
    clean(run("check", path), 0)
    result = run("record", path, url=store_url)
    clean(result, 0)
    duel = result.stdout.strip()
    assert len(store.records(duel)) == len(events) and store.verify(duel).ok
    assert snapshot(store.state_at(duel, SNAPSHOT_EVERY * 2)) == snapshot(replay(events, CARDS, at=SNAPSHOT_EVERY * 2 - 1))
    assert snapshot(store.state_at(duel)) == snapshot(replay(events, CARDS))


def counted_folds(monkeypatch) -> list[int]:
    """How many events a ``History`` applies from here on (appends and folds again), in ``[0]``."""
    calls = [0]
    real = history_module.apply

    def counting(state, event):
        calls[0] += 1
        return real(state, event)
    monkeypatch.setattr(history_module, "apply", counting)
    return calls


def test_rollbacks_cost_no_more_than_the_events_since_a_checkpoint(monkeypatch):
    """3,200 rollbacks in a long duel: each one folds at most CHECKPOINT_EVERY events again
    (before: the whole duel each time, 229 s)."""
    events = _with_rollbacks(list(sample(DAMAGE)), 3200)
    calls = counted_folds(monkeypatch)
    history = History(CARDS)
    history.extend(events)
    assert len(history.rollbacks) == 3200 and history.state.winner == 0
    assert calls[0] <= len(events) + 3200 * history_module.CHECKPOINT_EVERY
    assert calls[0] <= 3 * len(events)                 # in practice: what was undone, once


# -- nothing half-written ------------------------------------------------------------------------------------

def test_a_failed_write_leaves_no_duel(store_url, store, monkeypatch, tmp_path):
    from eventsourcing.persistence import OperationalError
    path = REPLAYS / DAMAGE
    before = store.ids()

    def full_disk(self, rows, *args, **kwargs):
        raise OperationalError("database or disk is full")
    _fail_writes(monkeypatch, store, full_disk)
    for command in (["record", path], ["import", REPLAYS / "won-by-damage.judge.ygr", "--unsigned"]):
        result = run(*command, url=store_url)
        clean(result, 2)
        assert "refused the write (nothing was written)" in result.output and "disk is full" in result.output
    monkeypatch.undo()
    duel = recorded(store, DAMAGE)
    _fail_writes(monkeypatch, store, full_disk)
    clean(run("branch", duel, "--at", 30, url=store_url), 2)
    monkeypatch.undo()
    assert store.ids() == before + [duel]


def _fail_writes(monkeypatch, store: Store, fault) -> None:
    """Every write of events fails with ``fault``: the recorder's insert, and on PostgreSQL the
    store's own pipelined writer (which does not go through it)."""
    monkeypatch.setattr(type(store.events), "insert_events", fault)
    monkeypatch.setattr(_PostgresWriter, "write", fault)


def test_an_interrupted_record_leaves_nothing(store_url, store, monkeypatch):
    def interrupt(self, rows, *args, **kwargs):
        raise KeyboardInterrupt
    _fail_writes(monkeypatch, store, interrupt)
    result = run("record", REPLAYS / DAMAGE, url=store_url)
    assert result.exit_code == 130 and "interrupted" in result.output
    monkeypatch.undo()
    assert store.ids() == []


def test_a_file_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    target = tmp_path / "duel.ygr"
    clean(run("export", REPLAYS / DAMAGE, "-o", target), 0)
    good = target.read_bytes()
    real_write = os.write

    def full_disk(fd, data):
        if len(data) > 100:
            raise OSError(28, "No space left on device")
        return real_write(fd, data)
    monkeypatch.setattr(os, "write", full_disk)
    result = run("export", REPLAYS / DECK_OUT, "-o", target)
    monkeypatch.undo()
    clean(result, 2)
    assert "No space left on device" in result.output and "nothing was written" in result.output
    assert target.read_bytes() == good, "the good file being replaced is intact"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["duel.ygr"], "no temporary file left behind"
    clean(run("export", REPLAYS / DECK_OUT, "-o", tmp_path / "new.ygr"), 0)


def test_a_file_that_is_not_a_store_is_refused_untouched(tmp_path):
    cdb = tmp_path / "cards.cdb"
    conn = sqlite3.connect(cdb)
    conn.execute("CREATE TABLE datas (id INTEGER PRIMARY KEY, alias INTEGER)")
    conn.execute("INSERT INTO datas VALUES (1, 0)")
    conn.commit()
    conn.close()
    before = cdb.read_bytes()
    for command in (["list"], ["record", REPLAYS / DAMAGE], ["show", "abc"], ["import", REPLAYS / "won-by-damage.judge.ygr"]):
        result = run(*command, url=str(cdb))
        clean(result, 2)
        assert "is not a ygoreplay store (it holds datas)" in result.output
    assert cdb.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["cards.cdb"]
    journal = sqlite3.connect(cdb).execute("PRAGMA journal_mode").fetchone()[0]
    assert journal == "delete", "not switched to WAL"


def test_a_mistyped_store_path_is_not_created_by_commands_that_only_read(tmp_path):
    typo = tmp_path / "tournamnet" / "duels.sqlite"
    for command in (["list"], ["show", "abc"], ["verify", "abc"], ["tree", "abc"], ["diff", "a", "b"],
                    ["rollback", "abc", "--to", "1", "--judge", "J", "--reason", "r"], ["branch", "abc", "--at", "1"]):
        result = run(*command, url=str(typo))
        assert result.exit_code in (0, 2), (command, result.output)
        assert "Traceback" not in result.output
    assert not (tmp_path / "tournamnet").exists()


def test_a_bad_postgresql_schema_name_is_refused_and_nothing_is_created():
    from test_store import POSTGRES
    for schema in ("x; DROP TABLE t", "a-b", "1abc", "x" * 64):
        result = run("record", REPLAYS / DAMAGE, url=f"{POSTGRES}?schema={schema}")
        clean(result, 2)
        assert "is not a plain name" in result.output
    with _pg_connect() as conn:
        names = {r[0] for r in conn.execute("SELECT schema_name FROM information_schema.schemata")}
    assert not any(name.startswith(("x;", "a-b", "1abc")) or name == "x" * 64 for name in names)
    missing = run("list", url=f"{POSTGRES}?schema=no_such_schema_here")
    clean(missing, 0)
    with _pg_connect() as conn:
        assert not conn.execute("SELECT 1 FROM information_schema.schemata WHERE schema_name = 'no_such_schema_here'").fetchall()


def test_read_only_commands_open_the_store_read_only(tmp_path):
    from eventsourcing.persistence import PersistenceError, StoredEvent
    url = str(tmp_path / "duels.sqlite")
    duel = run("record", REPLAYS / DAMAGE, url=url).stdout.strip()
    Store(url).close()                                   # the last writer's close checkpoints the WAL
    before = hashlib.sha256(Path(url).read_bytes()).hexdigest()
    for command in (["list"], ["show", duel], ["log", duel], ["verify", duel], ["audit", duel],
                    ["tree", duel], ["diff", duel, f"{duel}@3"], ["export", duel, "-o", tmp_path / "x.ygr"]):
        result = run(*command, url=url)
        assert result.exit_code == 0, (command, result.output)
    assert hashlib.sha256(Path(url).read_bytes()).hexdigest() == before
    with Store(url, readonly=True) as reader:
        with pytest.raises(PersistenceError):
            reader.events.insert_events([StoredEvent(duel, 999, "judge_note", b"")])
        with pytest.raises(StoreError, match="read-only"):
            reader.append(duel, from_dict({"kind": "judge_note", "judge": "J", "note": "x"}))


# -- exit codes and output as documented -----------------------------------------------------------------

def test_record_prints_only_the_id_and_list_json_is_an_array(store_url):
    result = run("record", REPLAYS / DAMAGE, url=store_url)
    clean(result, 0)
    duel = result.stdout.strip()
    assert len(duel) == 12 and result.stdout == duel + "\n"
    import json
    listing = json.loads(run("list", "--json", url=store_url).stdout)
    assert listing == [{"id": duel, "title": DAMAGE, "created": listing[0]["created"], "players": ["Yugi", "Kaiba"],
                        "events": 89, "status": "ended", "result": {"winner": 0, "reason": "lp"},
                        "parent": None, "branch_after": None, "signed": True, "origin_verified": True}]
    assert json.loads(run("list", "--json", "--player", "kaiba", url=store_url).stdout)[0]["id"] == duel
    assert json.loads(run("list", "--json", "--player", "Joey", url=store_url).stdout) == []


def test_terminal_control_characters_in_a_file_are_shown_escaped(tmp_path, store_url):
    import json
    events = [e.to_dict() for e in sample(DAMAGE)]
    events[0]["players"] = ["Yugi\x1b[2J\x1b[H", "Kai\nba\u202e"]
    events.insert(5, {"kind": "judge_note", "judge": "J\r\x1b[1A", "note": "line\nforged line \x9b31m"})
    path = tmp_path / "crafted.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    duel = run("record", path, "--title", "t\x1b]0;pwned\x07", url=store_url).stdout.strip()
    outputs = [run(*command, url=store_url).output for command in (["log", duel], ["show", duel], ["list"], ["tree", duel])]
    outputs += [run(*command).output for command in (["log", path], ["show", path], ["check", path])]
    for output in outputs:
        for raw in ("\x1b", "\x07", "\u202e", "\x9b", "\r", "Kai\nba", "line\nforged"):
            assert raw not in output
    assert "Yugi\\e[2J" in outputs[1] and "line\\nforged line" in outputs[0]


def _small_files() -> None:
    """In the child: files may not grow past 2 KB, and going past is an error, not a signal."""
    import resource
    import signal
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))


def test_a_full_stdout_is_a_message_and_exit_2(tmp_path):
    """Output into a file that cannot grow (as on a full disk): a message on stderr, exit 2."""
    with open(tmp_path / "out.txt", "w") as out:
        proc = subprocess.run([sys.executable, "-m", "ygoreplay", "log", str(REPLAYS / DECK_OUT)], stdout=out,
                              stderr=subprocess.PIPE, text=True, timeout=60, preexec_fn=_small_files)
    assert proc.returncode == 2, proc.stderr
    assert "cannot write the output" in proc.stderr and "Traceback" not in proc.stderr


def test_arguments_that_are_not_utf8_are_messages(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ygoreplay", "check", os.fsdecode(b"\xff\xfeduel.jsonl")],
                          capture_output=True, timeout=60, env={**os.environ, "YGOREPLAY_STORE": str(tmp_path / "s.sqlite")})
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr
    assert b"\\xff\\xfe" in proc.stderr


# -- real duels: imported, then studied and changed by a fresh process ---------------------------------

FRESH = r"""
import json, sys
from click.testing import CliRunner
from ygoreplay.cli import main

url, out = sys.argv[1], sys.argv[2]
runner = CliRunner()
def run(*args):
    result = runner.invoke(main, [str(a) for a in args] + ["--store", url])
    return result.exit_code, result.output
results = {}
for duel in json.loads(run("list", "--json")[1]):
    d, n = duel["id"], duel["events"]
    if duel["parent"]:
        continue
    audit = json.loads(run("audit", d, "--json")[1])
    show = run("show", d)
    judge, view = f"{out}/{d}.judge.ygr", f"{out}/{d}.spectator.ygr"
    exports = [run("export", d, "-o", judge)[0], run("export", d, "-o", view, "--view", "spectator")[0]]
    proven = run("verify", view, "--against", judge)[0]
    diff = run("diff", f"{d}@{n // 2}", d)[0]
    branch = run("branch", d, "--at", max(1, n // 2))
    child = branch[1].strip()
    rollback = run("rollback", child, "--to", max(1, n // 4), "--judge", "J", "--reason", "test") if n > 4 else (0, "")
    results[d] = {"events": n, "violations": [v["rule"] for v in audit["violations"]], "chain": audit["chain_ok"],
                  "show": show[0], "named": "Card " not in show[1] or "·" in show[1], "exports": exports,
                  "proven": proven, "diff": diff, "branch": branch[0], "rollback": rollback[0],
                  "branch_ok": run("verify", child)[0]}
print(json.dumps(results))
"""


def test_every_real_duel_imported_works_in_a_fresh_process(tmp_path):
    """Import the shared EDOPro replays into a store; a new process then shows, audits, exports
    (judge and spectator, proven against each other), diffs, branches and rolls back every one,
    with the violations the import found and no more."""
    from conftest import shared_path
    import json
    folder = shared_path("real-replays", "edopro")
    url = str(tmp_path / "real.sqlite")
    imported = run("import", folder, "--json", url=url)
    assert imported.exit_code in (1, 2) and "Traceback" not in imported.output    # 2 files are not duels
    per_file = json.loads(imported.stdout)
    done = {o["id"]: o for o in per_file if o["id"]}
    assert len(done) == 100 and all(o["events_stored"] == o["events_read"] > 0 for o in done.values())
    again = json.loads(run("import", folder, "--json", url=url).stdout)        # a re-run stores nothing twice
    assert sum(o["skipped"] for o in again) == 100 and len(json.loads(run("list", "--json", url=url).stdout)) == 100
    out = tmp_path / "out"
    out.mkdir()
    proc = subprocess.run([sys.executable, "-c", FRESH, url, str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    fresh = json.loads(proc.stdout)
    assert set(fresh) == set(done)
    for duel, result in fresh.items():
        assert result["violations"] == [v["rule"] for v in done[duel]["violations"]], done[duel]["file"]
        assert result["chain"] and result["show"] == 0 and result["exports"] == [0, 0], done[duel]["file"]
        assert result["proven"] == 0 and result["diff"] == 0 and result["branch"] == 0, done[duel]["file"]
        assert result["rollback"] in (0, 1) and result["branch_ok"] == 0, done[duel]["file"]
    clean_files = [d for d in done.values() if not d["violations"]]
    assert len(clean_files) >= 99


# -- memory and CPU bombs: refused by what the header declares, before anything is expanded --------------

def _ygr_with_body(raw: bytes, header_changes: dict | None = None) -> bytes:
    import lzma
    import struct
    import zlib
    from ygoreplay.replay_file import MAGIC
    good = loads((REPLAYS / "won-by-damage.judge.ygr").read_bytes())
    data = dumps(good)
    header = msgpack.unpackb(data[16:16 + struct.unpack_from("<I", data, 12)[0]])
    header["size"] = len(raw)
    header.update(header_changes or {})
    packed = lzma.compress(raw, format=lzma.FORMAT_RAW,
                           filters=[{"id": lzma.FILTER_LZMA2, "preset": 9, "dict_size": header["dict"]}])
    head = msgpack.packb(header)
    return b"".join((MAGIC, struct.pack("<HHI", 3, 0, len(head)), head,
                     struct.pack("<II", len(packed), zlib.crc32(packed)), packed))


BOMBS = {
    "expands past what it declares": (b"\x00" * (64 << 20), {}),
    "declares more than its events can need": (b"\x00" * 1000, {"size": 200 << 20}),
    "a flood of empty lists": (b"\xdd" + (4_000_000).to_bytes(4, "big") + b"\x90" * 4_000_000,
                               {"size": 4_000_005, "events": 89}),
    "a million events declared, none held": (msgpack.packb({"events": [], "dt": []}), {"events": 10 ** 9}),
    # random bytes lift the expansion bound, then millions of empty lists ride on them
    "incompressible padding, then empty lists": (
        b"\x82" + msgpack.packb("pad") + msgpack.packb(os.urandom(20000)) + msgpack.packb("junk")
        + b"\xdc" + (20).to_bytes(2, "big") + (b"\xdd" + (100_000).to_bytes(4, "big") + b"\x90" * 100_000) * 20,
        {"events": 90_000}),
}


@pytest.mark.parametrize("name", BOMBS)
def test_a_ygr_bomb_is_refused_fast_with_little_memory(name, tmp_path):
    import tracemalloc
    raw, changes = BOMBS[name]
    data = _ygr_with_body(raw, changes)
    assert len(data) < 64 << 10, "a small file"
    path = tmp_path / "bomb.ygr"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        with pytest.raises(Exception) as info:
            read(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    from ygoreplay.replay_file import ReplayFileError
    assert isinstance(info.value, ReplayFileError), repr(info.value)
    if name == "incompressible padding, then empty lists":
        assert "more than the" in str(info.value) and "values its declared size allows" in str(info.value)
    assert peak < 40 << 20, f"{peak / 1e6:.0f} MB to refuse {name}"
    result = run("show", path)
    clean(result, 2)


# -- set-ups in views and files ----------------------------------------------------------------------------

def test_a_duel_from_a_set_up_position_exports_and_its_views_show(tmp_path):
    """The LP of a set-up side was once taken for a passcode at export."""
    import json
    from duel import position, DARK_MAGICIAN, POT
    start = position({"hand": [DARK_MAGICIAN], "lp": 4000}, {"hand": [POT], "lp": 8000})
    path = tmp_path / "setup.jsonl"
    path.write_text(json.dumps(start) + "\n" + json.dumps({"kind": "phase_entered", "phase": "end"}) + "\n")
    for view in ("judge", "spectator", "p0", "p1"):
        clean(run("export", path, "-o", tmp_path / f"{view}.ygr", "--view", view), 0)
        clean(run("show", path, "--view", view), 0)
        clean(run("show", tmp_path / f"{view}.ygr"), 0)
    assert 4000 not in read(tmp_path / "judge.ygr").cards and 8000 not in read(tmp_path / "judge.ygr").cards


def test_a_second_or_malformed_set_up_is_a_violation_in_every_view(tmp_path):
    import json
    from duel import position, DARK_MAGICIAN
    start = position({"hand": [DARK_MAGICIAN]})
    again = position({"mzone": [{"code": DARK_MAGICIAN, "position": "set"}]})
    path = tmp_path / "twice.jsonl"
    path.write_text(json.dumps(start) + "\n" + json.dumps(again) + "\n")
    assert run("check", path).exit_code == 1
    for view in ("judge", "spectator", "p0", "p1"):
        clean(run("show", path, "--view", view), 0)
        clean(run("log", path, "--view", view), 0)
        clean(run("export", path, "-o", tmp_path / f"{view}.ygr", "--view", view), 0)
    spectator = read(tmp_path / "spectator.ygr")
    assert DARK_MAGICIAN not in spectator.cards, "the refused set-up shows nothing either"


# -- Ctrl-C, and a re-run that skips what is stored --------------------------------------------------------

def test_an_interrupted_import_says_what_was_done_and_a_rerun_finishes_it(tmp_path, monkeypatch):
    import json
    import ygoreplay.application as application     # the import command looks it up there when it runs
    folder = _some_real_replays(tmp_path, 8)         # (every shared replay: 95 more imported, 8 s of CPU)
    url = str(tmp_path / "s.sqlite")
    real = application.import_replay_file
    calls = [0]

    def interrupting(*args, **kwargs):
        calls[0] += 1
        if calls[0] == 6:
            raise KeyboardInterrupt
        return real(*args, **kwargs)
    monkeypatch.setattr(application, "import_replay_file", interrupting)
    result = run("import", folder, url=url)
    monkeypatch.undo()
    assert result.exit_code == 130 and "Traceback" not in result.output
    assert "interrupted: 5 of 8 file(s) done" in result.output
    stored = json.loads(run("list", "--json", url=url).stdout)
    assert len(stored) == 5
    rerun = json.loads(run("import", folder, "--json", url=url).stdout)
    assert sum(o["skipped"] for o in rerun) == 5 and len(json.loads(run("list", "--json", url=url).stdout)) == 7


def _some_real_replays(tmp_path: Path, count: int = 6) -> Path:
    """A folder of links to the first ``count`` shared real replays (one of them not importable)."""
    from conftest import shared_path
    folder = tmp_path / "replays"
    folder.mkdir()
    shared = sorted(Path(shared_path("real-replays", "edopro")).iterdir())
    for path in shared[:count - 1] + [next(p for p in shared if p.name.startswith("2022-12-25"))]:
        (folder / path.name).symlink_to(path)
    return folder


def test_a_folder_imported_in_two_processes_gives_what_one_process_gives(tmp_path):
    """``import FOLDER -o OUT -j 2``: the same outcomes in the same (file) order, and files holding
    the same events, times and card facts, as ``-j 1``."""
    import json
    folder = _some_real_replays(tmp_path)
    results = {}
    for jobs in ("1", "2"):
        result = run("import", folder, "-o", tmp_path / f"out{jobs}", "-j", jobs, "--json")
        assert result.exit_code == 2 and "Traceback" not in result.output     # the hand test is refused
        results[jobs] = json.loads(result.stdout)
    assert results["1"] == results["2"]
    assert [o["file"] for o in results["2"]] == sorted(p.name for p in folder.iterdir())
    written = sorted(p.name for p in (tmp_path / "out1").iterdir())
    assert written == sorted(p.name for p in (tmp_path / "out2").iterdir()) and len(written) == 5
    for name in written:
        one, two = read(tmp_path / "out1" / name), read(tmp_path / "out2" / name)
        assert (one.events, one.times, dict(one.cards), one.match) == (two.events, two.times, dict(two.cards), two.match)
        assert two.signature_valid and verify_chain(two) is None


def test_ctrl_c_during_a_parallel_import_leaves_whole_files_only(tmp_path, monkeypatch):
    """An interrupt while worker processes import: the files not started are not, those being
    written are finished, nothing half-written is left, and the command says what was done."""
    from concurrent.futures import Future
    folder = _some_real_replays(tmp_path)
    real = Future.result
    calls = [0]

    def interrupting(self, *args, **kwargs):
        calls[0] += 1
        if calls[0] == 4:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)
    monkeypatch.setattr(Future, "result", interrupting)
    result = run("import", folder, "-o", tmp_path / "out", "-j", "2")
    monkeypatch.undo()
    assert result.exit_code == 130 and "Traceback" not in result.output
    assert "interrupted: 3 of 6 file(s) done" in result.output
    written = list((tmp_path / "out").iterdir())
    assert written and all(p.suffix == ".ygr" for p in written)             # no temporary .part file
    for path in written:
        assert read(path).signature_valid


# -- the red team's findings, kept fixed ---------------------------------------------------------------------

def test_export_of_a_file_never_signs_what_does_not_hold_up(tmp_path):
    """A tampered file, unsigned or signed by someone else, is not exported (and so not signed) again."""
    good = tmp_path / "judge.ygr"
    clean(run("export", REPLAYS / DAMAGE, "-o", good), 0)
    tampered = tmp_path / "tampered.ygr"
    tampered.write_bytes(_tampered_copy(good.read_bytes()))
    forged = tmp_path / "forged.ygr"
    forged.write_bytes(sign(_tampered_copy(good.read_bytes()), OrganiserKey.generate()))
    for path in (tampered, forged):
        for view in ("judge", "spectator"):
            out = tmp_path / f"out-{view}.ygr"
            result = run("export", path, "-o", out, "--view", view)
            clean(result, 1)
            assert "cannot be exported again" in result.output and not out.exists()
    clean(run("export", good, "-o", tmp_path / "again.ygr", "--view", "spectator"), 0)
    again = read(tmp_path / "again.ygr")
    assert verify_against(again, read(good)) == []


def test_an_unverified_import_says_so_wherever_it_goes(store_url, store, tmp_path):
    import dataclasses
    import json
    forged = tmp_path / "forged.ygr"
    original = read(REPLAYS / "won-by-damage.judge.ygr")
    forged.write_bytes(dumps(dataclasses.replace(original, match={"title": "Regional final, table 1"})))
    duel = run("import", forged, "--unsigned", url=store_url).stdout.strip()
    assert "origin unverified" in run("verify", duel, url=store_url).stdout
    assert "(origin unverified)" in run("list", url=store_url).stdout
    assert json.loads(run("list", "--json", url=store_url).stdout)[0]["origin_verified"] is False
    out = tmp_path / "out.ygr"
    clean(run("export", duel, "-o", out, url=store_url), 0)
    assert read(out).source["unverified"] is True and "origin unverified" in run("verify", out).stdout


def test_an_append_is_not_checked_against_an_event_that_was_changed(store_url, store, open_store):
    """An event edited behind the store's back (and restored later) must not have an append
    checked against it: the events between the snapshot and the head are checked first."""
    duel = recorded(store, DAMAGE, 70)
    saved = row(store_url, duel, 68)
    env = msgpack.unpackb(saved)
    env["e"]["count"] = 2
    put(store_url, duel, 68, msgpack.packb(env))
    with pytest.raises(VerificationError, match="event 67 does not match its hash chain"):
        open_store().append(duel, sample(DAMAGE)[70])
    put(store_url, duel, 68, saved)
    assert open_store().verify(duel).ok and open_store().append(duel, sample(DAMAGE)[70]) == 71


def test_many_rollbacks_keep_few_states(monkeypatch):
    events = _with_rollbacks(list(sample(DAMAGE)), 3000)
    history = History(CARDS)
    history.extend(events)
    assert len(history._checkpoints) <= len(history.effective) // history_module.CHECKPOINT_EVERY + 3


def test_text_arguments_that_are_not_utf8_are_refused_with_exit_2(store_url, store):
    duel = recorded(store, DAMAGE, 40)
    bad = os.fsdecode(b"\xff")
    for command in (["record", REPLAYS / DAMAGE, "--title", bad], ["note", duel, bad, "--judge", "J"],
                    ["rollback", duel, "--to", 3, "--judge", "J", "--reason", bad],
                    ["branch", duel, "--at", 3, "--title", bad], ["diff", f"{duel}@\u00b2", duel]):
        result = run(*command, url=store_url)
        clean(result, 2)
        assert "internal error" not in result.output
    play = CliRunner().invoke(main, ["play", str(REPLAYS / DAMAGE)], input="j \u00b2\nt \u00b3\nq\n")
    clean(play, 0)


def test_a_device_is_never_replaced_by_a_file_and_a_store_is_its_owners(tmp_path):
    clean(run("export", REPLAYS / DAMAGE, "-o", "/dev/null"), 2)
    assert not Path("/dev/null").is_file()
    url = tmp_path / "duels.sqlite"
    clean(run("record", REPLAYS / DAMAGE, url=str(url)), 0)
    assert url.stat().st_mode & 0o077 == 0, "the store holds every duel's secret"
    assert run("deck", "check", "/dev/zero").exit_code == 2


def test_a_listing_shows_no_result_an_anchor_does_not_sign(store_url, store):
    import json
    duel = recorded(store, DAMAGE)
    head = msgpack.unpackb(row(store_url, f"{duel}/head", 89))
    head["status"]["winner"] = 1
    put(store_url, f"{duel}/head", 89, msgpack.packb(head))
    listing = json.loads(run("list", "--json", url=store_url).stdout)[0]
    assert listing["signed"] is False and listing["result"] is None and listing["status"] == "unverified"


@pytest.mark.parametrize("lie", [False, True], ids=["as-the-events-give", "edited-then-signed"])
def test_a_store_written_before_a_state_field_was_added_still_verifies(store_url, open_store, monkeypatch, lie):
    """A store made by an earlier version holds snapshots without the fields added since (here
    the last field of each card and ``state.shed``): it still verifies, and the events still
    read back the same. A snapshot of that shape that says something else than the fold (and
    was signed by the store all the same) still does not verify."""
    from ygoreplay.state import DuelState
    real = DuelState.to_data

    def older(self: DuelState) -> dict:
        data = real(self)
        del data["scalars"]["shed"]
        data["cards"] = [row[:-1] for row in data["cards"]]
        if lie:
            data["sides"][0][0] = 1
        return data

    monkeypatch.setattr(DuelState, "to_data", older)
    duel = recorded(open_store(), DAMAGE)
    monkeypatch.setattr(DuelState, "to_data", real)
    result = open_store().verify(duel)
    if lie:
        assert not result.ok and "is not the state the events give there" in result.problem
    else:
        assert result.ok, result.problem
        fresh = open_store()
        assert [r.event.kind for r in fresh.records(duel)] == [e.kind for e in sample(DAMAGE)]
        assert fresh.state_at(duel, len(sample(DAMAGE))).winner == replay(sample(DAMAGE), CARDS).winner
