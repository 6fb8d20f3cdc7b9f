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
* A symbolic link another user planted at an output's name in a folder everyone writes to (/tmp)
  was followed to whatever it named (MEDIUM on a machine a judge shares: ``export DUEL -o
  /tmp/t4.ygr --view judge`` replaced a file of the judge's elsewhere, its ``.bashrc``, a
  spreadsheet). The write resolved the link itself (``files._target``), where Linux's
  ``fs.protected_symlinks`` refuses to follow such a link for any ``open``: every output now
  follows a link only as that rule lets the kernel (``files._followed``): one of the user's own, or
  of the folder's owner, or in a folder that is not shared.
"""
from __future__ import annotations

import os
import stat

import pytest
from click.testing import CliRunner

from ygoreplay.cli import main
from ygoreplay.errors import InputError
from ygoreplay.files import write_atomic

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


def _shared_folder_with_a_link(tmp_path, owner: int):
    """A folder everyone writes to (sticky, as /tmp) holding a link owned by ``owner`` that names
    a file of ours outside it."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    mine = tmp_path / "notes.txt"
    mine.write_text("the judge's own notes")
    link = shared / "t4.ygr"
    link.symlink_to(mine)
    os.lchown(link, owner, owner)
    return link, mine


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="a link of another user's is made as root")
def test_a_link_another_user_planted_in_a_shared_folder_is_not_followed(tmp_path):
    """Baseline: the write went through the link and replaced the file it named."""
    link, mine = _shared_folder_with_a_link(tmp_path, 65534)
    assert stat.S_IMODE(os.stat(link.parent).st_mode) == 0o1777
    with pytest.raises(InputError, match="symbolic link another user made"):
        write_atomic(link, b"\x89YGR a judge file", 0o600)
    assert mine.read_text() == "the judge's own notes"
    assert os.path.islink(link)
    assert [p.name for p in link.parent.iterdir()] == ["t4.ygr"]          # no temporary file left
    os.lchown(link, 0, 0)                                                  # one of the user's own: followed
    write_atomic(link, b"exported", 0o644)
    assert mine.read_bytes() == b"exported" and os.path.islink(link)

