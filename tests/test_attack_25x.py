"""Attack pass 25x: the doors that sign a file read from a file again.

A duel's ``.ygr`` is exported again only when it holds up first (``application.export_file``:
chain intact, signed by a trusted key): nothing unverified comes out under the organiser's key.
A match's ``.ygr`` went through another door (``export M.ygr``, ``match export M.ygr``:
``match.files.match_replay``) that carried each duel inside "as it is" and signed the whole
again, unchecked: a match file nobody signed, or signed by a stranger, whose duels were rewritten
and rechained, came out signed by the local organiser and then verified ok.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from click.testing import CliRunner

from ygoreplay.cli import main
from ygoreplay.events import from_dict
from ygoreplay.match import stream  # noqa: F401  (the match event kinds, for reading a match file)
from ygoreplay.replay_file import dumps, loads, read
from ygoreplay.signing import OrganiserKey

MATCH = Path(__file__).resolve().parent.parent / "replays" / "matches" / "two-one-side-decking.jsonl"


def _run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def genuine(tmp_path) -> Path:
    """The sample match exported by the local organiser: a signed match ``.ygr``."""
    path = tmp_path / "match.ygr"
    done = _run("export", str(MATCH), "-o", str(path))
    assert done.exit_code == 0, done.output
    return path


def _unsigned(replay):
    """``replay`` as a forger rewrites it: its chain made again over what it holds now, no signature."""
    return dataclasses.replace(replay, chain=[], stored_prefixes=None, stored_head=None, signer=None,
                               signature_valid=None)


def _forged(genuine: Path, tmp_path: Path, signer: OrganiserKey | None) -> Path:
    """The match with its first duel's first player renamed (rechained: the chain holds), the
    match file rewritten around it and signed by ``signer`` (None: not signed)."""
    outer = read(genuine)
    duel = loads(outer.games[0])
    events = list(duel.events)
    started = events[0].to_dict()
    started["players"] = ["Mallory", started["players"][1]]
    events[0] = from_dict(started)
    games = [dumps(_unsigned(dataclasses.replace(duel, events=events)))] + outer.games[1:]
    path = tmp_path / "forged.ygr"
    path.write_bytes(dumps(_unsigned(dataclasses.replace(outer, games=games)), signer))
    return path


@pytest.mark.parametrize("door", [("export",), ("match", "export")])
@pytest.mark.parametrize("signed_by_stranger", [False, True])
def test_a_forged_match_file_is_not_signed_again_by_the_organiser(genuine, tmp_path, door, signed_by_stranger):
    forged = _forged(genuine, tmp_path, OrganiserKey.generate() if signed_by_stranger else None)
    assert _run("verify", str(forged)).exit_code != 0          # it does not hold up as it is
    out = tmp_path / "laundered.ygr"
    done = _run(*door, str(forged), "-o", str(out))
    assert done.exit_code != 0 and not out.exists(), done.output
    assert "nothing was written" in done.output


def test_a_match_file_whose_duel_was_rewritten_inside_is_refused_naming_the_duel(genuine, tmp_path):
    """The outer file intact and signed by a key trusted here, one duel inside rewritten and
    rechained, unsigned: the outer signature vouches for the bytes it was given, the duel's does not."""
    outer = read(genuine)
    duel = loads(outer.games[1])
    games = [outer.games[0], dumps(_unsigned(duel)), *outer.games[2:]]
    key = OrganiserKey.generate()
    path = tmp_path / "inner.ygr"
    path.write_bytes(dumps(_unsigned(dataclasses.replace(outer, games=games)), key))
    out = tmp_path / "out.ygr"
    done = _run("export", str(path), "-o", str(out), "--key", key.public.text)
    assert done.exit_code != 0 and not out.exists(), done.output
    assert "duel 2" in done.output and "NOT signed" in done.output


def test_a_match_file_signed_by_a_key_trusted_here_is_exported_again(genuine, tmp_path):
    stranger = OrganiserKey.generate()
    other = tmp_path / "other.ygr"
    outer = read(genuine)
    other.write_bytes(dumps(outer, stranger))                  # the same match, signed by another organiser
    for door in (("export",), ("match", "export")):
        out = tmp_path / f"{'-'.join(door)}.ygr"
        done = _run(*door, str(other), "-o", str(out), "--key", stranger.public.text)
        assert done.exit_code == 0, done.output
        checked = _run("verify", str(out))
        assert checked.exit_code == 0, checked.output
    done = _run("export", str(genuine), "-o", str(tmp_path / "again.ygr"))
    assert done.exit_code == 0, done.output


# -- a match file through the doors that read a duel --------------------------------------------------
#
# show, log, check, audit, verify and export hand a match file to the match commands, which give
# a view what ``match.views.view_dict`` lets it see (25v). Every other command that reads a file
# opened it as a duel (``source.open_source``): ``export --record --view p0`` wrote the other
# player's decklist and Side Deck whole as "the record p0 would have written", and ``lp-sheet``,
# ``play`` and ``export --html`` ended in an internal error.

@pytest.mark.parametrize("args", [
    ("export", "--record", "--view", "p0"), ("export", "--record", "--view", "spectator"),
    ("export", "--html"), ("lp-sheet",), ("lp-sheet", "--view", "p1"), ("actions",), ("opened",),
    ("play", "--plain", "--view", "p0")])
@pytest.mark.parametrize("kind", ["jsonl", "ygr"])
def test_a_match_file_is_no_duel_to_the_commands_that_read_one(genuine, tmp_path, args, kind):
    path = str(MATCH if kind == "jsonl" else genuine)
    out = tmp_path / "out"
    named = [path, *(("-o", str(out)) if args[0] in ("export", "lp-sheet") else ())]
    done = CliRunner().invoke(main, [args[0], *named, *args[1:]], input="q\n")
    assert done.exit_code == 2 and "a match file, not a duel replay" in done.output, done.output
    assert "internal error" not in done.output and "91152256" not in done.output and not out.exists()
