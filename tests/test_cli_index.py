"""The command line imports a command's module only when the command runs (issue 25): the group
lists its commands from ``cli/index.py``, which must say what the modules declare, and the list
must read as it does with every module loaded, in every language."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from ygoreplay.cli import index, reindex

LANGUAGES = ("en", "zh-Hans", "zh-Hant", "ja", "ko")
QUIET = {"YGOREPLAY_LANG": "", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "", "COLUMNS": "80"}


def test_the_index_is_written_from_the_commands_as_declared():
    """After adding or renaming a command or changing its help's first paragraph:
    ``python -m ygoreplay.cli.reindex``."""
    assert Path(index.__file__).read_text(encoding="utf-8") == reindex.written()


def _run(code: str, *args: str, env: dict[str, str] | None = None) -> str:
    import os
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **QUIET, **(env or {})})
    return done.stdout + done.stderr + f"exit {done.returncode}"


HELP = """
import sys
from importlib import import_module
from ygoreplay.cli import index, main
if sys.argv[1] == "loaded":
    for area in index.AREAS:
        import_module(f"ygoreplay.cli.{area}")
try:
    main(sys.argv[2:], prog_name="ygoreplay")
finally:
    print("imported:", sorted(m for m in sys.modules if m.startswith("ygoreplay.cli.")), file=sys.stderr)
"""


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_help_lists_every_command_as_it_does_with_every_module_loaded(language):
    lazy = _run(HELP, "lazy", "--lang", language, "--help")
    loaded = _run(HELP, "loaded", "--lang", language, "--help")
    assert lazy.split("imported:")[0] == loaded.split("imported:")[0]
    assert ("imported: ['ygoreplay.cli.common', 'ygoreplay.cli.duel_files', 'ygoreplay.cli.index', "
            "'ygoreplay.cli.output']\nexit 0") in lazy                                  # and none of them
    assert all(f"\n  {name} " in lazy for name in index.COMMANDS)


def test_a_command_imports_its_own_module_only():
    sample = "replays/won-by-damage.jsonl"
    checked = _run(HELP, "lazy", "check", sample)
    assert ("imported: ['ygoreplay.cli.checks', 'ygoreplay.cli.common', 'ygoreplay.cli.duel_files', "
            "'ygoreplay.cli.duels', 'ygoreplay.cli.index', 'ygoreplay.cli.output']\nexit 0") in checked
    assert checked.split("imported:")[0] == _run(HELP, "loaded", "check", sample).split("imported:")[0]


def test_an_unknown_command_is_told_the_nearest_one():
    """click suggests among the commands loaded: an unknown name loads them all."""
    assert "No such command 'chek'. Did you mean 'check'?" in _run(HELP, "lazy", "chek")
