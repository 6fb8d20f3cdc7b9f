"""``python -m ygoreplay.cli.reindex`` writes ``index.py``: where each command is declared and
the head of its help, from the commands as declared."""
from __future__ import annotations

from importlib import import_module
from pathlib import Path

from . import index
from .common import main


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
    source = Path(index.__file__).read_text(encoding="utf-8")
    head, _, rest = source.partition("COMMANDS: dict[str, tuple[str, str]] = {\n")
    return head + "COMMANDS: dict[str, tuple[str, str]] = {\n" + "".join(lines) + rest[rest.index("}\n"):]


if __name__ == "__main__":
    Path(index.__file__).write_text(written(), encoding="utf-8")
