"""The store's commands as a user meets them, on SQLite and PostgreSQL: record, list, show, branch,
tree, diff, rollback, verify; exit codes 0 (done), 1 (illegal or broken), 2 (unreadable), 3 (conflict).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from duel import CARDS
from test_store import (  # noqa: F401  (fixtures)
    ALTERNATIVE, DAMAGE, DECK_OUT, NO_TRIBUTE, REPLAYS, board, execute, note, open_store,
    recorded, sample, store, store_url)
from ygoreplay.cli import main
from ygoreplay.events import from_dict
from ygoreplay.jsonl import dumps
from ygoreplay.rules import audit, replay
from ygoreplay.store import Store


def run(*args, url: str | None = None):
    return CliRunner().invoke(main, [str(a) for a in args] + (["--store", url] if url else []))


def record(url: str, name: str, *extra) -> str:
    result = run("record", REPLAYS / name, *extra, url=url)
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def clean(result, code: int) -> None:
    """The exit code, and a message rather than a traceback."""
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, (SystemExit, type(None))), repr(result.exception)
    assert "Traceback" not in result.output


# -- record, list ---------------------------------------------------------------------------------

def test_record_prints_the_id_and_list_shows_every_duel(store_url):
    empty = run("list", url=store_url)
    clean(empty, 0)
    assert empty.stdout.startswith("no duels in ")
    first = record(store_url, DAMAGE)
    second = record(store_url, DECK_OUT, "--title", "Joey decks out")
    lines = run("list", url=store_url).stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"{first}  ") and "    89 events  Yugi won (lp)  " in lines[0]
    assert lines[0].endswith("  Yugi vs Kaiba  won-by-damage.jsonl")
    assert lines[1].startswith(f"{second}  ") and "   502 events  Yugi won (deck_out)  " in lines[1]
    assert lines[1].endswith("  Yugi vs Kaiba  Joey decks out")


def test_record_an_illegal_duel_keeps_the_legal_prefix_and_exits_1(store_url, store):
    samples = sorted((REPLAYS / "illegal").glob("*.jsonl"))
    assert len(samples) >= 10
    kept = {}
    for path in samples:
        events = sample(f"illegal/{path.name}")
        first = audit(events, CARDS).violations[0]
        result = run("record", path, url=store_url)
        clean(result, 1)
        duel = result.stdout.strip()                   # stdout: only the id; the violation on stderr
        assert result.stderr.splitlines()[0] == f"#{first.index} {first.rule} {first.message}"
        assert f"recorded the {first.index} legal event(s) before it" in result.stderr
        assert [r.event for r in store.records(duel)] == list(events[:first.index])
        assert store.verify(duel).ok
        kept[duel] = first.index
    assert {d.id: d.title for d in store.duels()} == {d: p.name for d, p in zip(kept, samples)}
    listing = run("list", url=store_url).stdout
    for duel, count in kept.items():
        assert f"{count:>6} events" in next(line for line in listing.splitlines() if line.startswith(duel))
    assert kept[next(d for d, p in zip(kept, samples) if p.name == Path(NO_TRIBUTE).name)] == 33


# -- show, --at, --turn ---------------------------------------------------------------------------

def test_show_a_stored_duel_prints_the_same_board_as_its_file(store_url):
    duel = record(store_url, DAMAGE)
    for args in (["--at", 0], ["--at", 33], ["--at", 60], ["--at", 88], ["--turn", 4], ["--turn", 1], []):
        from_store = run("show", duel[:5], *args, url=store_url)
        clean(from_store, 0)
        assert from_store.stdout == run("show", REPLAYS / DAMAGE, *args).stdout, args
    assert "after event #60" in run("show", duel, "--at", 60, url=store_url).stdout
    outside = run("show", duel, "--at", 89, url=store_url)
    clean(outside, 2)
    assert "--at 89 is outside the duel's events 0..88" in outside.output
    clean(run("show", duel, "--turn", 99, url=store_url), 2)


def test_show_a_long_duel_across_snapshots(store_url):
    duel = record(store_url, DECK_OUT)
    for at in (63, 64, 200, 447, 448, 501):
        assert run("show", duel, "--at", at, url=store_url).stdout == \
            run("show", REPLAYS / DECK_OUT, "--at", at).stdout, at
    assert run("show", duel, "--turn", 30, url=store_url).stdout == run("show", REPLAYS / DECK_OUT, "--turn", 30).stdout


# -- branch, tree, diff ---------------------------------------------------------------------------

def test_branch_tree_and_diff(store_url, open_store):
    parent = record(store_url, DAMAGE)
    result = run("branch", parent, "--at", 33, "--title", "no battle", url=store_url)
    clean(result, 0)
    child = result.stdout.strip()
    writer = open_store()
    writer.append(child, [from_dict(d) for d in ALTERNATIVE])          # another line of play
    grandchild = run("branch", child[:7], "--at", 35, url=store_url).stdout.strip()
    writer.close()

    tree = run("tree", grandchild, url=store_url)
    clean(tree, 0)
    assert tree.stdout.splitlines() == [
        f"{parent}  won-by-damage.jsonl (89 events)",
        f"    └── {child}  after event #33: no battle (38 events)",
        f"        └── {grandchild}  after event #35: branch of {child} after event #35 (36 events)"]
    assert run("tree", parent, url=store_url).stdout == tree.stdout
    listed = run("list", url=store_url).stdout                                    # the parent is untouched
    assert "    89 events  Yugi won (lp)" in listed and "won-by-damage.jsonl  1 branch(es)" in listed
    assert f"no battle  branch of {parent} after event #33" in listed and f"branch of {child} after event #35\n" in listed

    diff = run("diff", f"{parent}@37", child, url=store_url)
    clean(diff, 0)
    assert f"turn:\n  {parent}@37: turn 3, player 0's Battle Phase\n  {child}: turn 4, player 1's Draw Phase\n" \
        in diff.stdout
    assert "player 1 hand:" in diff.stdout and "player 1 LP" not in diff.stdout
    heads = run("diff", parent, child, url=store_url).stdout
    assert f"player 1 LP:\n  {parent}: 0\n  {child}: 7900\n" in heads
    assert f"result:\n  {parent}: player 0 won (lp)\n  {child}: not over\n" in heads
    same = run("diff", f"{parent}@33", child + "@33", url=store_url).stdout
    assert same == f"{parent}@33 and {child}@33 are the same position\n"

    clean(run("branch", parent, "--at", -1, url=store_url), 2)
    clean(run("diff", f"{parent}@x", child, url=store_url), 2)
    past = run("diff", f"{parent}@200", child, url=store_url)
    clean(past, 2)
    assert "events #0..#88, not #200" in past.output


# -- judge rollbacks ------------------------------------------------------------------------------

def test_rollback_resumes_play_before_the_event_and_survives_a_reopen(store_url, store, open_store, tmp_path):
    events = sample(DAMAGE)
    duel = recorded(store, DAMAGE, 40)
    result = run("rollback", duel, "--to", 33, "--judge", "J. Smith", "--reason", "wrong tribute", url=store_url)
    clean(result, 0)
    assert result.stdout == f"{duel}: rolled back to before event 33 by J. Smith; events 33..39 are marked reverted\n"

    reopened = open_store()                             # what the command wrote, read cold
    assert board(reopened.state_at(duel)) == board(replay(events, CARDS, at=32))
    records = reopened.records(duel)
    assert [r.reverted_by for r in records] == [None] * 33 + [40] * 7 + [None]
    assert records[40].event.judge == "J. Smith" and records[40].event.reason == "wrong tribute"
    too_early = run("rollback", duel, "--to", 0, "--judge", "J", "--reason", "r", url=store_url)
    clean(too_early, 1)                  # the rule the raw events door meets too (LOG-02), nothing written
    assert too_early.stderr.startswith("#41 LOG-02 a rollback goes back to an earlier event (1..40), not 0")
    assert reopened.append(duel, events[33:]) == 97     # play continues: the same summon again
    stream = tmp_path / "stream.jsonl"
    stream.write_text(dumps(r.event for r in reopened.records(duel)))
    for at in (39, 40, 41, 60, 96):                     # the board the file shows, rollback and all
        assert run("show", duel, "--at", at, url=store_url).stdout == run("show", stream, "--at", at).stdout

    ended = run("rollback", duel, "--to", 50, "--judge", "J", "--reason", "appeal", url=store_url)
    clean(ended, 1)
    assert ended.stderr.startswith("#97 MATCH-10 the duel is over")
    assert len(open_store().records(duel)) == 97 and run("verify", duel, url=store_url).exit_code == 0


# -- conflicts ------------------------------------------------------------------------------------

def test_a_writer_that_gets_there_first_makes_the_command_exit_3(store_url, store, monkeypatch):
    """Controlled: another writer appends between the command's read of the head and its write."""
    duel = recorded(store, DAMAGE, 40)
    real_head = Store._load_head

    def head_then_someone_else_writes(self, duel_id):
        loaded = real_head(self, duel_id)
        if self is not store:
            store.append(duel_id, note("I was first"))
        return loaded
    monkeypatch.setattr(Store, "_load_head", head_then_someone_else_writes)
    result = run("rollback", duel, "--to", 33, "--judge", "J", "--reason", "r", url=store_url)
    clean(result, 3)
    assert result.stderr.startswith(f"conflict: duel {duel}: position 40 was written by another writer first")
    monkeypatch.undo()
    records = store.records(duel)
    assert len(records) == 41 and records[40].event.note == "I was first" and store.verify(duel).ok


RACE = r"""
import sys, time
from pathlib import Path
import ygoreplay.store as store

flags, me = Path(sys.argv[1]), sys.argv[2]
real_head = store.Store._load_head

def head(self, duel_id):            # read the head, then wait until the other process has read it too
    loaded = real_head(self, duel_id)
    (flags / me).touch()
    deadline = time.monotonic() + 30
    while len(list(flags.iterdir())) < 2 and time.monotonic() < deadline:
        time.sleep(0.002)
    return loaded

store.Store._load_head = head
from ygoreplay.cli import main
main(sys.argv[3:], prog_name="ygoreplay")
"""


def test_two_concurrent_rollback_commands_one_wins_the_other_exits_3(store_url, store, tmp_path):
    duel = recorded(store, DAMAGE, 40)
    flags = tmp_path / "flags"
    flags.mkdir()
    judges = {}
    for judge in ("Alice", "Bob"):
        judges[judge] = subprocess.Popen(
            [sys.executable, "-c", RACE, str(flags), judge, "rollback", duel, "--to", "33", "--judge", judge,
             "--reason", "race", "--store", store_url],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    done = {judge: (p.wait(60), *p.communicate()) for judge, p in judges.items()}
    assert sorted(code for code, _, _ in done.values()) == [0, 3], done
    winner = next(j for j, (code, _, _) in done.items() if code == 0)
    loser = next(j for j, (code, _, _) in done.items() if code == 3)
    assert done[winner][1].startswith(f"{duel}: rolled back to before event 33 by {winner}")
    assert done[loser][2].startswith(f"conflict: duel {duel}: position 40 was written by another writer first")
    assert "Traceback" not in done[loser][2]
    records = store.records(duel)
    assert len(records) == 41 and records[40].event.judge == winner
    assert store.verify(duel).ok
    assert run("verify", duel, url=store_url).stdout.startswith(f"{duel}: ok, 41 events, hash chain intact, anchored")


# -- verify ---------------------------------------------------------------------------------------

def test_verify_names_the_record_changed_behind_the_stores_back(store_url):
    duel = record(store_url, DAMAGE)
    ok = run("verify", duel, url=store_url)
    clean(ok, 0)
    assert ok.stdout.startswith(f"{duel}: ok, 89 events, hash chain intact, anchored and signed by organiser key ")
    where = "WHERE originator_id = ? AND originator_version = ?"
    (state,), = execute(store_url, f"SELECT state FROM {{t}} {where}", (duel, 41))
    state = bytes(state)
    assert b"+00:00" in state                           # the recorded time: still decodes, hash breaks
    execute(store_url, f"UPDATE {{t}} SET state = ? {where}", (state.replace(b"+00:00", b"+00:01"), duel, 41))
    broken = run("verify", duel, url=store_url)
    clean(broken, 1)
    assert broken.stdout == f"{duel}: BROKEN at event 40: event 40 was altered\n"

    execute(store_url, f"UPDATE {{t}} SET state = ? {where}", (b"\xc1", duel, 41))
    # Reading it is refused with a message: a board it leads to (show --at 40 folds #33..#40 from
    # the snapshot at 32; a board past the next snapshot reads no event before it), the log.
    undecodable = run("show", duel, "--at", "40", url=store_url)
    clean(undecodable, 2)
    assert f"duel {duel} event 40: the stored record cannot be decoded" in undecodable.output
    # the whole duel read (the log) is refused as the service refuses it: verify says where
    undecodable = run("log", duel, url=store_url)
    clean(undecodable, 1)
    assert f"duel {duel} fails verification at event 40: event 40 cannot be decoded" in undecodable.output
    assert run("verify", duel, url=store_url).stdout == f"{duel}: BROKEN at event 40: event 40 cannot be decoded\n"

    execute(store_url, f"DELETE FROM {{t}} {where}", (duel, 41))
    dropped = run("verify", duel, url=store_url)
    clean(dropped, 1)
    assert dropped.stdout == f"{duel}: BROKEN at event 40: event 40 is missing (the next stored is 41)\n"


# -- unreadable stores, unknown duels -------------------------------------------------------------

def _unreadable_urls(tmp_path: Path) -> dict[str, str]:
    not_a_db = tmp_path / "notes.txt"
    not_a_db.write_text("not a database, just notes\n" * 200)
    return {str(not_a_db): "is not a ygoreplay store",
            "mysql://db.example/duels": "unknown store URL 'mysql://db.example/duels'",
            "postgresql://postgres@127.0.0.1:1/test?schema=nowhere": "cannot reach PostgreSQL at 127.0.0.1:1"}


@pytest.mark.parametrize("command", [["list"], ["show", "abc"], ["verify", "abc"],
                                     ["rollback", "abc", "--to", "1", "--judge", "J", "--reason", "r"]])
def test_an_unreadable_store_exits_2_with_a_message(tmp_path, command):
    for url, message in _unreadable_urls(tmp_path).items():
        result = run(*command, url=url)
        clean(result, 75 if url.startswith("postgresql:") else 2)     # a server not answering: try again later
        assert message in result.output, (url, result.output)
    env = CliRunner(env={"YGOREPLAY_STORE": "mysql://db.example/duels"}).invoke(main, ["list"])
    clean(env, 2)
    assert "unknown store URL" in env.output
    missing = run(*command, url=str(tmp_path / "notes.txt" / "duels.sqlite"))    # nothing is created
    if command == ["list"]:
        clean(missing, 0)
        assert "no store there yet" in missing.output
    else:
        clean(missing, 2)
        assert "no store at" in missing.output
    assert not (tmp_path / "elsewhere").exists()


def test_an_unknown_duel_exits_2_with_a_message(store_url, store):
    recorded(store, DAMAGE, 10)
    for command in (["show", "nope"], ["verify", "nope"], ["tree", "nope"], ["branch", "nope", "--at", "3"],
                    ["diff", "nope", "nope@2"], ["rollback", "nope", "--to", "1", "--judge", "J", "--reason", "r"]):
        result = run(*command, url=store_url)
        clean(result, 2)
        assert "no duel matches 'nope' in " in result.output, command
    assert len(store.duels()) == 1 and len(store.records(store.duels()[0].id)) == 10


def test_record_an_unreadable_file_exits_2_and_stores_nothing(store_url, store, tmp_path):
    clean(run("record", tmp_path / "missing.jsonl", url=store_url), 2)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "summon_everything"}\n')
    result = run("record", bad, url=store_url)
    clean(result, 2)
    assert "unknown event kind 'summon_everything'" in result.output
    assert store.duels() == []


def test_record_takes_cards_like_check(store_url, tmp_path):
    """``record --cards`` (issue 13): the cards.cdb given names the cards of the duel recorded, as
    ``check --cards`` does; a --cards file that cannot be read records nothing (exit 2)."""
    from test_card_sources import cdb
    renamed = cdb(tmp_path / "renamed.cdb", (46986414, "Magician of the given file"))
    duel = record(store_url, "won-by-damage.jsonl", "--cards", str(renamed))
    shown = run("log", duel, url=store_url)
    assert shown.exit_code == 0, shown.output
    assert "Magician of the given file" in shown.stdout
    missing = run("record", REPLAYS / "won-by-damage.jsonl", "--cards", str(tmp_path / "nowhere.cdb"), url=store_url)
    clean(missing, 2)
    assert "nowhere.cdb" in missing.output
    assert run("list", url=store_url).stdout.count("won-by-damage") == 1
