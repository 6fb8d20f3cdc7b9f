"""Attacks of the twenty-first pass, ``attack25bf`` (#25): the command line on hostile paths.

* A path the system refuses to look at (a name past ``NAME_MAX``) given to ``check``, ``verify``,
  ``show``, ``log``, ``diff``, ``lp-sheet`` or ``export`` (as a file) was told "error: cannot write
  the output (File name too long)" (LOW: a clear error must say what and where; this one blamed
  the output, which was fine, and named nothing). The ``OSError`` of ``Path.is_file`` went up to
  the one place the command line turns errors into exit codes (``cli.output.answered``), which
  read every ``OSError`` as its output failing: one naming a file is now said as that file's.
* A file that opens and fails to read (EIO: a failing disk, a network mount; ``/proc/self/mem``
  here) was told the same: the format's sniffing (``formats.find_format``, every door that reads
  a duel's file) now says the file cannot be read, naming it.
"""
from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from ygoreplay.cli import main

LONG = "x" * 300 + ".ygr"


def _said(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(main, args)
    return result.exit_code, result.output


@pytest.mark.parametrize("args", [["check", LONG], ["verify", LONG], ["lp-sheet", LONG]],
                         ids=["check", "verify", "lp-sheet"])
def test_a_name_too_long_is_said_as_that_name_not_as_the_output(tmp_path, args):
    args = [str(tmp_path / a) if a.startswith("x") else a for a in args]
    code, said = _said(args)
    assert code == 2, said
    assert "cannot write the output" not in said, said
    assert "xxxxxxxx" in said and "Traceback" not in said, said


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="no /proc/self/mem: a file that fails to read")
@pytest.mark.parametrize("command", ["check", "verify", "show"])
def test_a_file_that_fails_to_read_is_said_as_that_file(command):
    code, said = _said([command, "/proc/self/mem"])
    assert code == 2, said
    assert "cannot write the output" not in said, said
    assert "/proc/self/mem: cannot read" in said, said
