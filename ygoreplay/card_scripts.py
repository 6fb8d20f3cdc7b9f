"""Read EDOPro/ProjectIgnis card scripts into effect facts (``effect_facts``), never running them.

A scripts folder (an EDOPro install's ``script/``, a CardScripts checkout) holds one ``cNNNN.lua``
per card, ``NNNN`` its passcode, in any subfolder. Each is parsed with ``luaparser`` (a real Lua
parser: the script is data here, nothing in it is executed) and every ``Effect.CreateEffect``
is followed through the ``SetType``/``SetCode``/``SetProperty``/``SetCategory``/``SetCountLimit``
calls on its variable, and through ``Clone`` (``local e2=e1:Clone()`` starts from ``e1``'s facts).
A procedure the card's ``initial_effect`` calls (``Pendulum.AddProcedure(c)``,
``aux.AddUnionProcedure(c)``, ``Spirit.AddProcedure(c,...)``), or that makes an effect it
registers (``local e2=Fusion.CreateSummonEff(c,...)``, ``c:RegisterEffect(Ritual.CreateProc(...))``),
declares effects in a shared file the reader does not follow: it is kept as a fact of kind
``helper`` (``effect_facts.HELPER``) naming the call, so whoever reads the facts knows the card may
have effects they do not show.

Whether an effect's activation depends on code the reader does not judge is kept too
(``EffectFact.condition``): a ``SetCondition``, a ``SetCost``, or a ``SetTarget`` whose check
(``if chk==0 then return ... end``) is anything but a plain ``true``.

The reader is bounded: a file larger than ``MAX_SCRIPT_BYTES`` or nested deeper than
``MAX_NESTING`` brackets/blocks is refused before parsing (the parser recurses), one whose
expression chains deeper than the reader recurses (``a.b.b...``) when read, a folder of more
than ``MAX_SCRIPTS`` files is refused, one takes at most ``PARSE_SECONDS`` to parse (the parser
is quadratic in a chain of calls), and reading stops at ``deadline`` seconds, saying so. A
script that cannot be read is listed with why; the others are kept.
"""
from __future__ import annotations

import re
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from .effect_facts import HELPER, LINK_PROCEDURE, EffectFact
from .errors import InputError
from .i18n import say

MAX_SCRIPT_BYTES = 256 << 10          # the longest real script is some 40 KB
MAX_NESTING = 48                       # brackets and blocks; real scripts stay under 15
MAX_SCRIPTS = 100_000
DEADLINE = 3600.0                      # seconds for a whole folder
#: Seconds to parse one script. The parser's prediction is quadratic in a chain of calls
#: (``f(a)(a)(a)...``: 16 s for 100 of them); real scripts parse in well under a second.
PARSE_SECONDS = 20.0

_SCRIPT_NAME = re.compile(r"^c(\d{1,10})\.lua$")
_SETTERS = {"SetType": "types", "SetCode": "code", "SetProperty": "properties", "SetCategory": "categories",
            "SetCountLimit": "count", "SetCondition": "condition", "SetCost": "condition", "SetTarget": "target",
            "SetRange": "ranges"}
_PREFIXES = {"types": "EFFECT_TYPE_", "properties": "EFFECT_FLAG_", "categories": "CATEGORY_", "ranges": "LOCATION_"}
_OPEN = re.compile(r"\bfunction\b|\bdo\b|\bthen\b|\brepeat\b|[({\[]")
_CLOSE = re.compile(r"\bend\b|\buntil\b|[)}\]]")
_STRINGS = re.compile(r"--\[(=*)\[.*?\]\1\]|\[(=*)\[.*?\]\2\]|--[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'",
                      re.S)


class ScriptError(InputError):
    """A card script that cannot be read (too large, too deep, not Lua)."""


@dataclass
class ScriptReading:
    """What a folder of scripts gave: effect facts per passcode, and what could not be read."""

    effects: dict[int, tuple[EffectFact, ...]] = field(default_factory=dict)
    files: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)     # (file, why)
    stopped: str = ""                                                 # why reading stopped early

    @property
    def parsed(self) -> int:
        return self.files - len(self.failed)

    @property
    def effect_count(self) -> int:
        return sum(len(found) for found in self.effects.values())


def read_scripts(folder: str | Path, *, deadline: float = DEADLINE) -> ScriptReading:
    """Every ``cNNNN.lua`` under ``folder``, read (InputError when it is no folder or too big)."""
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise InputError(say("{root}: not a folder of card scripts", root=root))
    paths = sorted(p for p in _script_files(root))
    if len(paths) > MAX_SCRIPTS:
        raise InputError(say("{root}: {count:,} card scripts; more than {MAX_SCRIPTS:,}",
                             root=root, count=len(paths), MAX_SCRIPTS=MAX_SCRIPTS))
    if not paths:
        raise InputError(say("{root}: holds no card script (cNNNN.lua)", root=root))
    reading = ScriptReading()
    end = time.monotonic() + deadline
    for path in paths:
        if time.monotonic() > end:
            reading.stopped = f"stopped after {deadline:.0f} s with {len(paths) - reading.files} script(s) unread"
            break
        reading.files += 1
        code = int(_SCRIPT_NAME.match(path.name).group(1))          # type: ignore[union-attr]
        try:
            if path.stat().st_size > MAX_SCRIPT_BYTES:
                raise ScriptError(say("larger than {value} KiB", value=MAX_SCRIPT_BYTES >> 10))
            found = read_script(path.read_text(encoding="utf-8", errors="replace"), end - time.monotonic())
        except (ScriptError, OSError) as exc:
            reading.failed.append((str(path.relative_to(root)), str(exc)))
            continue
        if found:
            reading.effects[code] = found
    return reading


def _script_files(root: Path) -> Iterator[Path]:
    for path in root.rglob("c*.lua"):
        if _SCRIPT_NAME.match(path.name) and path.is_file():
            yield path


def read_script(text: str, seconds: float = PARSE_SECONDS) -> tuple[EffectFact, ...]:
    """The effects one script creates, in the order it creates them (ScriptError past ``seconds``
    or ``PARSE_SECONDS`` of parsing, the lesser)."""
    if len(text.encode("utf-8", "replace")) > MAX_SCRIPT_BYTES:
        raise ScriptError(say("larger than {value} KiB", value=MAX_SCRIPT_BYTES >> 10))
    depth = nesting(text)
    if depth > MAX_NESTING:
        raise ScriptError(say("nested {depth} deep; more than {MAX_NESTING}",
                              depth=depth, MAX_NESTING=MAX_NESTING))
    from luaparser import ast               # only reading scripts needs the parser
    try:
        with _time_limit(min(PARSE_SECONDS, seconds)):
            tree = ast.parse(text)
    except _TooSlow:
        raise ScriptError(say("took more than {value:g} s to parse", value=min(PARSE_SECONDS, seconds))) from None
    except RecursionError:
        raise ScriptError(say("nested too deep to parse")) from None
    except Exception as exc:                 # luaparser raises its own SyntaxException and antlr errors
        raise ScriptError(say("not Lua: {value}",
                              value=str(exc).splitlines()[0] if str(exc) else type(exc).__name__)) from None
    reader = _Reader()
    try:            # ``a.b.b...`` nests one node a suffix, unbracketed: nesting() does not see it
        reader.walk(tree, function=None, scope={})
        return tuple(builder.fact(reader.plain) for builder in reader.built)
    except RecursionError:
        raise ScriptError(say("nested too deep to read")) from None


class _TooSlow(BaseException):
    """The parse ran out of time (a BaseException: the parser's own ``except Exception`` lets it by)."""


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Interrupt what runs inside past ``seconds`` (_TooSlow), in the main thread where the system
    has interval timers; elsewhere only ``read_scripts``' deadline between files bounds it."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expired(_signum: int, _frame: Any) -> None:
        raise _TooSlow
    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def nesting(text: str) -> int:
    """How deep brackets and Lua blocks nest (strings and comments left out): a bound checked
    before the recursive parser sees the text. ``if ... then ... elseif ... then`` counts as one."""
    text = _STRINGS.sub(" ", text).replace("elseif", "")
    depth = deepest = 0
    for match in re.finditer(f"{_OPEN.pattern}|{_CLOSE.pattern}", text):
        if _OPEN.fullmatch(match.group()):
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(depth - 1, 0)
    return deepest


@dataclass
class _Builder:
    """An effect being declared: the facts its setters gave so far."""

    initial: bool
    values: dict[str, Any] = field(default_factory=dict)

    def fact(self, plain: set[str]) -> EffectFact:
        """Its facts; ``plain``: the script's functions whose activation check is a plain ``true``."""
        count, count_code = self.values.get("count", (0, ""))
        target = self.values.get("target")
        return EffectFact(types=self.values.get("types", ()), code=self.values.get("code", ""),
                          properties=self.values.get("properties", ()), categories=self.values.get("categories", ()),
                          count_limit=count, count_code=count_code, initial=self.initial,
                          ranges=self.values.get("ranges", ()),
                          condition=self.values.get("condition", False) or (target is not None and target not in plain))


class _Reader:
    """Walks the tree in source order, one variable scope per function."""

    def __init__(self) -> None:
        self.built: list[_Builder] = []
        self.plain: set[str] = set()         # functions whose ``chk==0`` answer is a plain ``true``

    def walk(self, node: Any, function: str | None, scope: dict[str, _Builder]) -> None:
        from luaparser import astnodes as a
        if isinstance(node, list):
            for item in node:
                self.walk(item, function, scope)
            return
        if not isinstance(node, a.Node):
            return
        if isinstance(node, a.Block) and function is not None and function.endswith("initial_effect"):
            for statement in node.body:
                self.helper_called(statement)
        if isinstance(node, (a.Function, a.LocalFunction, a.Method, a.AnonymousFunction)):
            name = _text(getattr(node, "name", None)) if not isinstance(node, a.AnonymousFunction) else function
            if not isinstance(node, a.AnonymousFunction) and _checks_plainly(node.body):
                self.plain.add(name)
            self.walk(node.body, name or function, {})
            return
        initial = function is not None and function.endswith("initial_effect")
        if isinstance(node, (a.LocalAssign, a.Assign)):
            for target, value in zip(node.targets, node.values):
                made = self.effect_made(value, function, scope)
                if made is not None and isinstance(target, a.Name):
                    scope[target.id] = made
                elif initial:
                    self.helper_made(value)
            for value in node.values:
                self.walk(value, function, scope)
            return
        if isinstance(node, a.Invoke) and isinstance(node.source, a.Name) and isinstance(node.func, a.Name):
            builder = scope.get(node.source.id)
            setter = _SETTERS.get(node.func.id)
            if builder is not None and setter is not None:
                builder.values[setter] = _setter_value(setter, node.args)
            elif initial and node.func.id == "RegisterEffect" and node.args:
                self.helper_made(node.args[0])
        for name, child in vars(node).items():
            if not name.startswith("_") and name not in ("comments",):
                self.walk(child, function, scope)

    def helper_called(self, statement: Any) -> None:
        """``Table.Procedure(...)`` called as a statement of ``initial_effect``: a shared procedure
        that may declare effects of the card (not the engine's own ``Duel``/``Effect``/``Card``)."""
        from luaparser import astnodes as a
        if not (isinstance(statement, a.Call) and isinstance(statement.func, a.Index)
                and isinstance(statement.func.value, a.Name) and statement.func.value.id not in _ENGINE_TABLES):
            return
        code = _text(statement.func)
        builder = _Builder(initial=True, values={"types": (HELPER,), "code": code})
        if code == LINK_PROCEDURE and len(statement.args) > 2 and isinstance(statement.args[2], a.Number) \
                and isinstance(statement.args[2].n, int) and statement.args[2].n > 0:
            builder.values["count"] = (statement.args[2].n, "")   # LINK-02: its ``min`` (``fewest_materials``)
        self.built.append(builder)

    def helper_made(self, value: Any) -> None:
        """``Table.Make(...)`` whose result ``initial_effect`` keeps or registers: an effect a shared
        procedure makes (``Fusion.CreateSummonEff``), kept as a helper fact like a procedure call."""
        from luaparser import astnodes as a
        if (isinstance(value, a.Call) and isinstance(value.func, a.Index) and isinstance(value.func.value, a.Name)
                and (value.func.value.id not in _ENGINE_TABLES
                     or (value.func.value.id == "Effect" and _text(value.func.idx) not in _ENGINE_MAKERS))):
            self.built.append(_Builder(initial=True, values={"types": (HELPER,), "code": _text(value.func)}))

    def effect_made(self, value: Any, function: str | None, scope: dict[str, _Builder]) -> _Builder | None:
        """``Effect.CreateEffect(c)`` or ``eN:Clone()``: the new effect's builder."""
        from luaparser import astnodes as a
        if isinstance(value, a.Call) and _text(value.func) == "Effect.CreateEffect":
            builder = _Builder(initial=function is None or function.endswith("initial_effect"))
        elif (isinstance(value, a.Invoke) and isinstance(value.func, a.Name) and value.func.id == "Clone"
              and isinstance(value.source, a.Name) and value.source.id in scope):
            source = scope[value.source.id]
            builder = _Builder(source.initial, dict(source.values))
        else:
            return None
        self.built.append(builder)
        return builder


def _checks_plainly(body: Any) -> bool:
    """A function whose body opens with ``if chk==0 then return true end``: it can always be done."""
    from luaparser import astnodes as a
    statements = getattr(body, "body", None) or []
    first = statements[0] if statements else None
    if not (isinstance(first, a.If) and isinstance(first.test, a.EqToOp) and not first.orelse):
        return False
    test = first.test
    if not (isinstance(test.left, a.Name) and test.left.id == "chk" and getattr(test.right, "n", None) == 0):
        return False
    inner = getattr(first.body, "body", None) or []
    return (len(inner) == 1 and isinstance(inner[0], a.Return) and len(inner[0].values) == 1
            and isinstance(inner[0].values[0], a.TrueExpr))


def _setter_value(setter: str, args: list) -> Any:
    if setter == "condition":
        return True
    if setter == "target":
        return _text(args[0]) if args else ""          # an anonymous function is never ``plain``
    if setter == "count":
        count = args[0] if args else None
        number = getattr(count, "n", 0)
        return (number if isinstance(number, int) else 0, ",".join(_text(x) for x in args[1:]))
    expression = args[0] if args else None
    if setter == "code":
        return _text(expression)
    prefix = _PREFIXES[setter]
    words = []
    for name in _names(expression):
        word = name[len(prefix):].lower() if name.startswith(prefix) else name
        if word not in words:
            words.append(word)
    return tuple(words)


def _names(node: Any) -> Iterator[str]:
    """The constants an expression combines (``A+B``, ``A|B``, ``(A)``); a number as itself."""
    from luaparser import astnodes as a
    if isinstance(node, a.BinaryOp):
        yield from _names(node.left)
        yield from _names(node.right)
    elif node is not None:
        yield _text(node)


#: The engine's own tables: a call on them declares no effect of the card's (``Duel.RegisterEffect``).
_ENGINE_TABLES = frozenset(("Duel", "Effect", "Card", "Group", "Debug", "s", "self"))
#: The engine's own makers of an effect (the card's own, read; a global one, not the card's).
_ENGINE_MAKERS = frozenset(("CreateEffect", "GlobalEffect"))
_OPS = {"AddOp": "+", "SubOp": "-", "BOrOp": "|", "BAndOp": "&", "MultOp": "*", "BShiftLOp": "<<"}


def _text(node: Any) -> str:
    """An expression as written, compactly (names, numbers, ``a.b``, ``{x,y}``, ``A+B``)."""
    from luaparser import astnodes as a
    if node is None:
        return ""
    if isinstance(node, a.Name):
        return node.id
    if isinstance(node, a.Number):
        return str(node.n)
    if isinstance(node, a.String):
        return repr(node.s)
    if isinstance(node, a.Index):
        idx = _text(node.idx)
        return f"{_text(node.value)}.{idx}" if node.notation == a.IndexNotation.DOT else f"{_text(node.value)}[{idx}]"
    if isinstance(node, a.Table):
        return "{" + ",".join(_text(f.value) for f in node.fields) + "}"
    if isinstance(node, a.BinaryOp):
        return f"{_text(node.left)}{_OPS.get(type(node).__name__, '?')}{_text(node.right)}"
    if isinstance(node, (a.Call, a.Invoke)):
        return f"{_text(getattr(node, 'source', None) or node.func)}(...)"
    return type(node).__name__


__all__ = ["DEADLINE", "MAX_NESTING", "MAX_SCRIPTS", "MAX_SCRIPT_BYTES", "PARSE_SECONDS", "ScriptError",
           "ScriptReading", "nesting", "read_script", "read_scripts"]
