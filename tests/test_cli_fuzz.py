"""Every command, fed whatever a user (or an attacker) may type: only the documented exit codes
(0, 1, 2, 3, and 75 for a store that does not answer, such as a PostgreSQL URL naming no server),
always a message, never a traceback or an internal error.

Hypothesis builds command lines from every command and option, with arguments drawn from files
good and bad (sample duels, damaged replay files, random bytes, folders, missing paths), stored
duel ids and prefixes, numbers out of range, and text with control characters, lone surrogates
and non-UTF-8 bytes. ``YGOREPLAY_FUZZ_EXAMPLES`` sets how many command lines run (default 250).
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ygoreplay.cli import main

ROOT = Path(__file__).resolve().parent.parent
REPLAYS = ROOT / "replays"
EXAMPLES = int(os.environ.get("YGOREPLAY_FUZZ_EXAMPLES", "250"))
#: command -> (positional arguments, options taking a value, flags): command lines of the right
#: shape, so that most of them reach the command itself rather than click's usage errors.
SHAPES: dict[tuple[str, ...], tuple[int, tuple[str, ...], tuple[str, ...]]] = {
    ("check",): (1, ("--cards",), ("--json",)),
    ("rules",): (1, (), ("--json",)),
    ("show",): (1, ("--at", "--turn", "--view", "--cards", "--store"), ()),
    ("log",): (1, ("--view", "--store"), ()),
    ("play",): (1, ("--view", "--store"), ()),
    ("audit",): (1, ("--key", "--store"), ("--json",)),
    ("export",): (1, ("-o", "--view", "--cards", "--store"), ()),
    ("import",): (1, ("-o", "--title", "--key", "--cards", "--store"), ("--json", "--unsigned")),
    ("record",): (1, ("--title", "--release", "--event", "--release-at", "--cards", "--store"), ()),
    ("release",): (1, ("--store",), ()),
    ("append",): (2, ("--expected", "--cards", "--store"), ()),
    ("note",): (2, ("--judge", "--category", "--store"), ()),
    ("list",): (0, ("--player", "--store"), ("--json",)),
    ("branch",): (1, ("--at", "--title", "--store"), ()),
    ("tree",): (1, ("--store",), ()),
    ("diff",): (2, ("--store",), ()),
    ("rollback",): (1, ("--to", "--judge", "--reason", "--store"), ()),
    ("verify",): (1, ("--against", "--key", "--store"), ("--json",)),
    ("key",): (0, (), ()),
    ("deck", "check"): (1, ("--banlist", "--list", "--cards"), ("--json",)),
}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Files of every kind, and a store holding two duels (one of them a branch); the working
    folder is a temporary one, so relative paths a command line names land there."""
    base = tmp_path_factory.mktemp("fuzz")
    here = os.getcwd()
    os.chdir(base)
    files = {}
    for name in ("won-by-damage.jsonl", "lost-by-deck-out.jsonl", "won-by-damage.judge.ygr",
                 "won-by-damage.spectator.ygr", "illegal/summon-without-tributes.jsonl"):
        target = base / Path(name).name
        shutil.copy(REPLAYS / name, target)
        files[name] = target
    good = (REPLAYS / "won-by-damage.judge.ygr").read_bytes()
    for name, data in {"cut.ygr": good[:len(good) // 2], "flipped.ygr": good[:200] + bytes([good[200] ^ 1]) + good[201:],
                       "zeros.yrpX": b"\0" * 4096, "random.bin": os.urandom(3000),
                       "garbage.jsonl": b'{"kind": "duel_started"\n\xff\xfe[[[[', "empty.jsonl": b"",
                       "deep.jsonl": b"[" * 50000 + b"]" * 50000 + b"\n",
                       "bigint.jsonl": b'{"kind": "duel_started", "first_player": 0, "starting_lp": 1' + b"0" * 200 + b"}\n",
                       "surrogate.jsonl": b'{"kind": "duel_started", "first_player": 0, "players": ["\\ud800"]}\n',
                       "cards.cdb": b"SQLite format 3\0" + os.urandom(2000), "deck.ydk": b"#main\n46986414\n!side\nx\n"}.items():
        (base / name).write_bytes(data)
        files[name] = base / name
    (base / "folder").mkdir()
    files["folder"] = base / "folder"
    store = str(base / "store.sqlite")
    runner = CliRunner()
    duel = runner.invoke(main, ["record", str(files["won-by-damage.jsonl"]), "--store", store]).stdout.strip()
    child = runner.invoke(main, ["branch", duel, "--at", "40", "--store", store]).stdout.strip()
    assert len(duel) == 12 and len(child) == 12
    yield {"files": files, "store": store, "duels": [duel, child], "base": base}
    os.chdir(here)


def _arguments(world) -> st.SearchStrategy[str]:
    files = [str(p) for p in world["files"].values()]
    duels = world["duels"]
    return st.one_of(
        st.sampled_from(files),
        st.sampled_from(duels + [d[:4] for d in duels] + [d + "@3" for d in duels] + [duels[0] + "@x", "@", ""]),
        st.sampled_from([str(world["base"] / "missing.jsonl"), str(world["base"] / "out.ygr"),
                         str(world["base"] / "folder" / "x.ygr"), "-", "/dev/null", "ydke://abc!def!",
                         world["store"], str(world["base"] / "new-store.sqlite")]),
        st.integers(min_value=-10, max_value=10 ** 20).map(str),
        st.sampled_from(["judge", "p0", "p1", "spectator", "referee", "ed25519:AAAA", "postgresql://x:notaport/db",
                         "mysql://db/x", "sqlite:///nowhere/at/all.sqlite", "note", "ruling", "0", "1", "40"]),
        st.lists(st.sampled_from(["\x1b[2J", "\n", "\udcff", "\u202e", "a", "é", "p0.m1", "#"])
                 | st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                           max_size=4), max_size=4).map("".join),
    )


def _option_values(world, option: str) -> st.SearchStrategy[str]:
    """Mostly what the option takes, sometimes anything at all."""
    base = world["base"]
    sensible = {
        "--at": st.integers(-3, 120).map(str), "--turn": st.integers(-1, 8).map(str),
        "--to": st.integers(-2, 100).map(str), "--expected": st.integers(-1, 100).map(str),
        "--view": st.sampled_from(["judge", "p0", "p1", "spectator"]),
        "--store": st.sampled_from([world["store"], str(base / "other.sqlite"), str(base / "random.bin"),
                                    str(base / "folder"), "postgresql://x:1/db", "mysql://x/y"]),
        "-o": st.sampled_from([str(base / "out.ygr"), str(base / "outdir"), str(base / "folder"),
                               str(base / "missing" / "deep" / "x.ygr"), "/dev/full"]),
        "--category": st.sampled_from(["note", "ruling", "penalty"]),
        "--cards": st.sampled_from([str(base / "cards.cdb"), str(base / "random.bin"), str(base / "missing.cdb")]),
        "--against": st.sampled_from([str(world["files"][n]) for n in ("won-by-damage.judge.ygr", "cut.ygr", "flipped.ygr")]),
        "--key": st.sampled_from(["ed25519:AAAA", "ed25519:" + "A" * 43, str(base / "random.bin"), "nonsense"]),
    }.get(option)
    anything = _arguments(world)
    return anything if sensible is None else st.one_of(sensible, sensible, sensible, anything)


REQUIRED = {("note",): ("--judge",), ("branch",): ("--at",), ("rollback",): ("--to", "--judge", "--reason"),
            ("export",): ("-o",)}


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_command_line_ends_with_a_documented_exit_code_and_no_traceback(world, data):
    command = data.draw(st.sampled_from(sorted(SHAPES)), label="command")
    positional, options, flags = SHAPES[command]
    values = _arguments(world)
    args = [data.draw(values, label="argument") for _ in range(positional)]
    chosen = data.draw(st.lists(st.sampled_from(options), unique=True), label="options") if options else []
    for option in dict.fromkeys([*REQUIRED.get(command, ()), *chosen]):
        args += [option, data.draw(_option_values(world, option), label=option)]
    args += data.draw(st.lists(st.sampled_from(flags), unique=True), label="flags") if flags else []
    env = {"YGOREPLAY_STORE": world["store"]}
    result = CliRunner(env=env).invoke(main, [*command, *args], input="n\np\nj 5\nt 2\nv p1\nq\n")
    assert result.exit_code in (0, 1, 2, 3, 75), (command, args, result.exit_code, result.output[-500:])
    assert isinstance(result.exception, (SystemExit, type(None))), (command, args, repr(result.exception))
    assert "Traceback" not in result.output and "internal error" not in result.output, (command, args, result.output)
