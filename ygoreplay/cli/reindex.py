"""``python -m ygoreplay.cli.reindex`` writes ``index.py``: where each command is declared and
the head of its help, from the commands as declared, and the group's help page in each language
as click writes it (``index.HELP``)."""
from __future__ import annotations

import os
import subprocess
import sys
from importlib import import_module
from pathlib import Path

from .. import i18n
from . import index
from .common import main

#: The group's help page as click writes it in a fresh process, for ``--lang L --help``.
_RENDER = "import sys\nfrom ygoreplay.cli import main\nmain(['--lang', sys.argv[1], '--help'], prog_name='ygoreplay')"


def help_page(language: str) -> str:
    """``ygoreplay --lang LANGUAGE --help`` as click writes it (not the launcher's copy) to a pipe,
    where it is as wide as on a terminal of 80 columns or more: ``index.HELP_COLUMNS``."""
    root = Path(__file__).resolve().parents[2]
    env = {**{k: v for k, v in os.environ.items() if not k.endswith("_COMPLETE")},
           "COLUMNS": str(index.HELP_COLUMNS), "PYTHONIOENCODING": "utf-8",
           "PYTHONPATH": os.pathsep.join([str(root), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, "-c", _RENDER, language], cwd=root, env=env, capture_output=True,
                          check=True)
    return done.stdout.decode("utf-8")


def written() -> str:
    """``index.py``'s text for the commands as declared (imports every module of ``index.AREAS``)."""
    for area in index.AREAS:
        import_module(f"{__package__}.{area}")
    lines = []
    for name, command in sorted(main.commands.items()):
        if command.short_help or command.hidden or command.deprecated:
            raise ValueError(f"{name}: the index keeps no short_help, hidden or deprecated command")
        text = command.help or ""
        end = text.find("\n\n")             # as click's make_default_short_help cuts it
        area = command.callback.__module__.rpartition(".")[2] if command.callback else ""
        if area not in index.AREAS:
            raise ValueError(f"{name}: declared in {area!r}, which is not in AREAS")
        lines.append(f"    {name!r}: ({area!r}, {text if end == -1 else text[:end]!r}),\n")
    pages = "".join(f"    {language!r}: {help_page(language)!r},\n" for language in i18n.LANGUAGES)
    source = Path(index.__file__).read_text(encoding="utf-8")
    head, _, _ = source.partition("COMMANDS: dict[str, tuple[str, str]] = {\n")
    return (head + "COMMANDS: dict[str, tuple[str, str]] = {\n" + "".join(lines) + "}\n\n"
            + _HELP_HEAD + pages + "}\n")


_HELP_HEAD = '''#: language -> ``ygoreplay --help`` as click writes it where it is ``HELP_COLUMNS`` or more wide
#: (click wraps at ``min(columns, 80) - 2``): the launcher prints it without importing click.
HELP: dict[str, str] = {
'''

if __name__ == "__main__":
    Path(index.__file__).write_text(written(), encoding="utf-8")
