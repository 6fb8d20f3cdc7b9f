"""The board as text: what ``ygoreplay show`` and ``print(state)`` draw, readable at a glance.

Player 1 sits at the top, mirrored, as across a table; player 0 at the bottom; the Extra Monster
Zones between them, each saying whose monster it holds. Every zone is labelled with the name the
log gives it (``M0``..``M4``, ``M5``/``M6`` the Extra Monster Zones, ``S0``..``S4``, ``FZ``). The
board fits 80 columns and widens its zones on a wider terminal; a name too long for its zone is
cut with an ellipsis, never pushed past it. Piles list their top cards first.

The layout is built as rich would draw it (``board``: a rich renderable, for the terminal UI), and
``render`` draws the same layout as plain text itself, without importing rich unless a line
needs it (a wide character, a line rich wraps). Every name, title and card text goes in as text
(never markup) after ``text.printable``, so a name can neither inject markup nor reach a
terminal raw. ``changed`` highlights zones, LP and piles (``play`` marks what the last event
changed).
"""
from __future__ import annotations

import functools
import io
import re
import textwrap
from typing import TYPE_CHECKING, Callable, Iterable, Union

from .events import ATTACK, DEFENSE, FACEDOWN, FACEDOWN_ATTACK, SET
from .card_names import card_name, counter_name, one_language, strings_path
from .cards import NAMES_MISSING, unnamed
from .i18n import N_, t
from .sentences import aside, phase_name, player_label, step_name, zone_tag
from .state import Card, DuelState
from .text import cells, padded, printable

if TYPE_CHECKING:
    from rich.console import Console, Group
    from rich.table import Table
    from rich.text import Text

WIDTH = 80                 # the narrowest board
CHANGED = "reverse"        # how a changed zone or count is shown
_LABEL = 3
#: What rich's ``Text`` strips from a string it is given (``rich.control.strip_control_codes``):
#: bell, backspace, vertical tab, form feed, carriage return.
_STRIPPED = dict.fromkeys((7, 8, 11, 12, 13))
#: Characters of the board's own words that take one cell, as ASCII does (rich's ``cell_len``:
#: ``tests/test_render_plain.py``); a line of these and printable ASCII needs no rich to measure.
_ONE_CELL = str.maketrans(dict.fromkeys("·◀—…→◆×", "x"))
#: A word as rich wraps lines (``rich._wrap.words``): the spaces before it, it, the spaces after.
_WORD = re.compile(r"\s*\S+\s*")


class _Line:
    """A line (or lines) of the board as rich's ``Text`` holds it: its characters (control codes
    stripped as rich strips them), its style and styled spans, how it is cut; built without
    importing rich (20–28 ms of a fresh ``show --at N``'s imports: issue 25) and made rich's
    ``Text`` (``rich``) only where rich draws it: the terminal UI, a line ``render`` cannot draw."""

    __slots__ = ("plain", "style", "spans", "overflow", "no_wrap")

    def __init__(self, text: str = "", style: str = "", *, overflow: str | None = None,
                 no_wrap: bool | None = None) -> None:
        self.plain = text if text.isascii() and text.isprintable() else text.translate(_STRIPPED)
        self.style = style
        self.spans: list[tuple[int, int, str]] = []
        self.overflow = overflow
        self.no_wrap = no_wrap

    def __len__(self) -> int:
        return len(self.plain)

    def append(self, text: str, style: str | None = None) -> None:
        """``Text.append`` of a string: a style covers what it adds."""
        if not (text.isascii() and text.isprintable()):    # printable ASCII has nothing to strip
            text = text.translate(_STRIPPED)
        if text:
            if style:
                self.spans.append((len(self.plain), len(self.plain) + len(text), style))
            self.plain += text

    def stylize(self, style: str) -> None:
        """``Text.stylize`` of the whole line."""
        if style and self.plain:
            self.spans.append((0, len(self.plain), style))

    def __add__(self, other: "_Line") -> "_Line":
        """``Text + Text``: this line's style and cut, the other's style and spans after it."""
        out = _Line(style=self.style, overflow=self.overflow, no_wrap=self.no_wrap)
        out.plain, out.spans = self.plain + other.plain, [*self.spans]
        if other.style:
            out.spans.append((len(self.plain), len(out.plain), other.style))
        out.spans += [(start + len(self.plain), end + len(self.plain), style) for start, end, style in other.spans]
        return out

    def rich(self) -> Text:
        """This line as rich's ``Text``."""
        from rich.text import Span, Text
        return Text(self.plain, self.style, overflow=self.overflow, no_wrap=self.no_wrap,
                    spans=[Span(*span) for span in self.spans])


def _who(state: DuelState, player: int) -> str:
    name = state.players[player] if player < len(state.players) and state.players[player] else ""
    return printable(name) if name else player_label(player)


def _stat(card: Card) -> str:
    """``1900A`` in Attack Position, ``2000D`` in Defense, ``set`` face-down (with the DEF of a
    monster the view may see), ``L2`` a Link monster's rating (see ``KEY``)."""
    if card.zone == "szone" and card.facts.is_pendulum and card.face_up:
        return f"scale {card.facts.lscale}"
    if not card.facts.is_monster or card.code == 0:
        return "set" if card.position in (SET, FACEDOWN, FACEDOWN_ATTACK) else ""
    if card.position == SET:
        return f"set {card.current_def}D"
    if card.position == FACEDOWN_ATTACK:
        return f"set {card.current_atk}A"
    if card.facts.is_link:
        return f"{card.current_atk}A L{card.facts.link_rating}"
    if card.position == DEFENSE:
        return f"{card.current_def}D"
    return f"{card.current_atk}A" if card.position == ATTACK else ""


KEY = N_("1900A ATK in Attack Position · 2000D DEF in Defense Position · ◆2 Xyz materials")


def _wrapped(name: str, width: int, lines: int) -> list[str]:
    """``name`` in at most ``lines`` lines of ``width``, the last cut with an ellipsis if need be."""
    if len(name) <= width and name.isprintable() and name == name.strip(" "):
        return [name] if name else [""]     # what textwrap gives a line that fits (most names: issue 25)
    out = textwrap.wrap(name, width, break_long_words=True, break_on_hyphens=True) or [""]
    if len(out) > lines:
        last = " ".join(out[lines - 1:])
        out = out[:lines - 1] + [last[:width - 1] + "…"]
    return out


@functools.lru_cache(maxsize=4096)
def _name_lines(name: str, width: int) -> tuple[str, ...]:
    """A zone's name lines (``_wrapped`` in two lines): kept by the name and width alone, all it
    depends on; the same cards' names are wrapped on every board a process draws (a resident's,
    a service's: textwrap was a twentieth of a board drawn, issue 25)."""
    return tuple(_wrapped(name, width, 2))


def _cell(state: DuelState, card_id: str | None, tag: str, changed: set[str], width: int, owner: str = "") -> _Line:
    """A zone: its tag and what stands in it (stat, then the name in two lines at most; a
    face-down card a view cannot see as what is seen of it; in an Extra Monster Zone, whose)."""
    hot = tag in changed or (card_id is not None and card_id in changed)
    if card_id is None:
        return _Line(tag, style=CHANGED if hot else "dim")
    card = state.cards[card_id]
    stat = _stat(card)
    if card.materials:
        stat += f" ◆{len(card.materials)}"
    if card.counters:
        stat += " " + " ".join(f"{n}×{printable(counter_name(k) or k)}" for k, n in sorted(card.counters.items()) if n)
    text = _Line(tag, style="dim")
    text.append(f" {stat}"[:max(0, width - len(tag))] if stat else "", style="bold")
    name = (t(_UNKNOWN) if card.face_up else t("(face-down)")) if card.code == 0 else printable(card_name(card.facts))
    for line in _name_lines(name, width):
        text.append("\n" + line)
    if owner:
        text.append("\n" + owner[:width], style="italic")
    if hot:
        text.stylize(CHANGED)
    return text


def _columns(state: DuelState) -> int:
    """Zone columns: 5, the Field Zone, and under Master Rule 3 the two Pendulum Zones."""
    return 6 + (2 if len(state.sides[0].szone) > 5 else 0)


class _Grid:
    """A row of zones under a label column: rich draws it as a table (``__rich__``: the terminal
    UI's styles), and ``render`` draws the same characters itself (``lines``): rich's table
    layout was most of the time of a board drawn as text (issue 25)."""

    __slots__ = ("widths", "rows")

    def __init__(self, columns: int, cell: int) -> None:
        self.widths = [_LABEL] + [cell] * columns
        self.rows: list[tuple[_Line, ...]] = []

    def add_row(self, *cells: _Line) -> None:
        self.rows.append(cells)

    def __rich__(self) -> Table:
        from rich import box
        from rich.table import Table
        table = Table(box=box.SQUARE, show_header=False, show_lines=True, padding=0, expand=False)
        table.add_column(width=_LABEL, no_wrap=True)
        for cell in self.widths[1:]:
            table.add_column(width=cell, no_wrap=True, overflow="ellipsis", max_width=cell)
        for row in self.rows:
            table.add_row(*(cell.rich() for cell in row))
        return table

    def lines(self, width: int) -> list[str] | None:
        """The lines rich draws of this table on a console ``width`` wide: square box, a rule
        between rows, each cell's lines cut with an ellipsis or padded to its column, the shorter
        cells padded below. None when rich would draw it otherwise (narrower columns to fit)."""
        widths = self.widths
        if sum(widths) + len(widths) + 1 > width:
            return None
        rule = ["─" * w for w in widths]
        out = ["┌" + "┬".join(rule) + "┐"]
        for k, row in enumerate(self.rows):
            if k:
                out.append("├" + "┼".join(rule) + "┤")
            cells = []
            for text, w in zip(row, widths):
                if text.no_wrap is False or text.overflow not in (None, "ellipsis"):
                    return None
                cell = []
                for line in text.plain.split("\n"):
                    if not _single_cells(line):
                        return None
                    cell.append(line[:w - 1] + "…" if len(line) > w else line.ljust(w))
                cells.append(cell)
            height = max(map(len, cells))
            for cell, w in zip(cells, widths):
                cell += [" " * w] * (height - len(cell))
            out += ["│" + "│".join(line) + "│" for line in zip(*cells)]
        out.append("└" + "┴".join(rule) + "┘")
        return out


def _single_cells(line: str) -> bool:
    """Whether each character of ``line`` takes one cell, as the plain drawing assumes (a tab, a
    wide or a zero-width character: rich draws the board)."""
    if line.isascii():                       # nothing for _ONE_CELL to map: printable is one cell each
        return line.isprintable()
    ones = line.translate(_ONE_CELL)
    if ones.isascii() and ones.isprintable():
        return True
    from rich.cells import cell_len
    return "\t" not in line and cell_len(line) == len(line)


def _text_lines(text: _Line, width: int) -> list[str] | None:
    """The lines rich draws of a line on a console ``width`` wide: as they are when each fits in
    one cell a character, else as rich wraps or cuts them (``Text.wrap``, what printing it does).
    None when rich's console would still have to crop one."""
    lines = text.plain.split("\n")
    if all(map(_single_cells, lines)):
        if all(len(line) <= width for line in lines):
            return lines
        if not text.no_wrap and text.overflow in (None, "fold"):
            return [piece for line in lines for piece in (_folded(line, width) if len(line) > width else (line,))]
    from rich.cells import cell_len
    console = _wrapper(width)
    lines = [line.plain for line in text.rich().wrap(
        console, width, justify="default", overflow=text.overflow or "fold", tab_size=console.tab_size or 8,
        no_wrap=bool(text.no_wrap))]
    return lines if all(cell_len(line) <= width for line in lines) else None


def _folded(line: str, width: int) -> list[str]:
    """A line of one cell a character wrapped at ``width`` as rich wraps it (``Text.wrap``:
    ``rich._wrap.divide_line`` breaks before a word that does not fit and folds a word longer
    than a line), each piece cut to ``width`` (its trailing spaces are not drawn): the player's
    line with its turn mark is longer than 80 columns on most boards (issue 25: drawn without
    importing rich)."""
    breaks, used = [], 0
    for word in _WORD.finditer(line):
        start, size = word.start(), len(word.group().rstrip())
        if width - used >= size:
            used += len(word.group())
        elif size > width:
            folds = range(start, word.end(), width)
            breaks += [fold for fold in folds if fold]
            used = word.end() - folds[-1]
        elif used and start:
            breaks.append(start)
            used = len(word.group())
    edges = [0, *breaks, len(line)]
    return [line[a:b][:width] for a, b in zip(edges, edges[1:])]


@functools.lru_cache(maxsize=8)
def _wrapper(width: int) -> Console:
    """A console ``width`` wide for ``Text.wrap`` (it prints nothing)."""
    from rich.console import Console
    return Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False,
                   legacy_windows=False, soft_wrap=False, emoji=False, highlight=False, markup=False)


def _zones(state: DuelState, player: int, cell: int, changed: set[str]) -> _Grid:
    """A side's Monster and Spell & Trap Zones, the Field Zone beside them (and MR3's Pendulum
    Zones), player 1's mirrored."""
    side = state.sides[player]
    columns = _columns(state)
    table = _Grid(columns, cell)
    order = list(range(5)) if player == 0 else list(range(4, -1, -1))
    prefix = f"p{player}:"
    mark = {tag.removeprefix(prefix) for tag in changed if tag.startswith(prefix)} | {c for c in changed if ":" not in c}
    monsters = [_cell(state, side.mzone[i], zone_tag("mzone", i), mark, cell) for i in order]
    spells = [_cell(state, side.szone[i], zone_tag("szone", i), mark, cell) for i in order]
    spells += [_cell(state, side.fzone, "FZ", mark, cell)]
    spells += [_cell(state, side.szone[i], zone_tag("szone", i), mark, cell) for i in range(5, len(side.szone))]
    rows = [("MZ", monsters), ("S/T", spells)]
    for label, row in (rows if player == 0 else rows[::-1]):
        table.add_row(_Line(label, style="dim"), *row, *[_Line("")] * (columns - len(row)))
    return table


def _emz(state: DuelState, cell: int, changed: set[str]) -> _Grid:
    """The two Extra Monster Zones, left and right as player 0 sees them (above M1 and M3), each
    saying whose monster it holds and the number its controller's events give it."""
    columns = _columns(state)
    table = _Grid(columns, cell)
    cells: list[_Line] = [_Line("")] * columns
    for slot, column in ((0, 1), (1, 3)):
        card_id = state.emz[slot]
        hot = f"emz{slot}" in changed
        if card_id is None:
            cells[column] = _Line(f"EMZ {'left' if slot == 0 else 'right'}", style=CHANGED if hot else "dim")
            continue
        card = state.cards[card_id]
        number = 5 if (slot == 0) == (card.controller == 0) else 6
        cells[column] = _cell(state, card_id, f"M{number}", changed | ({f"M{number}"} if hot else set()), cell,
                              owner=f"{_who(state, card.controller)}'s")
    table.add_row(_Line("EMZ", style="dim"), *cells)
    return table


def _pile_label(label: str) -> str:
    """A pile's label (``GY 3``) indented and padded to 12 cells, so the names after it line up
    in every language: padding by characters left a Japanese, Chinese or Korean label's names
    further right than an English one's."""
    return "  " + padded(label, 12)


def _pile_line(label: str, name: Callable[[str], str], ids: list[str], width: int, hot: bool) -> _Line:
    """``GY 3        Luster Dragon, Vorse Raider, … 2 more``: a pile's top cards (the last card
    put there first), as many as fit on one line; only those are named (``name``: a pile of
    forty was forty names looked up for three shown)."""
    head = _Line(_pile_label(label), style=CHANGED if hot else "bold")
    if not ids:
        return head + _Line("—", style="dim")
    room = width - cells(head.plain)
    count = len(ids)
    body = ""
    for i, cid in enumerate(reversed(ids)):
        piece = (", " if body else "") + name(cid)
        tail = f", … {count - i - 1} more" if i < count - 1 else ""
        if body and len(body) + len(piece) + len(tail) > room:
            body += f", … {count - i} more"
            break
        body += piece
    return head + _Line(body if len(body) <= room else body[:room - 1] + "…")


def _hand(label: str, names: list[str], width: int, hot: bool) -> _Line:
    """A hand, every card of it, wrapped under its label (a hidden hand as a count)."""
    head = _pile_label(label)
    if not names:
        return _Line(head, style=CHANGED if hot else "bold") + _Line("—", style="dim")
    if all(name == t(_HIDDEN) for name in names):
        return _Line(head, style=CHANGED if hot else "bold") + _Line(t("{count} hidden", count=len(names)), style="dim")
    lines = textwrap.wrap(", ".join(names), width - cells(head), break_long_words=True) or [""]
    return _Line(head, style=CHANGED if hot else "bold") + _Line(("\n" + " " * cells(head)).join(lines))


_HIDDEN = N_("(hidden)")
_UNKNOWN = N_("(unknown)")
_SECRET = frozenset(("hand", "deck", "extra"))


def _piles(state: DuelState, player: int, width: int, changed: set[str]) -> list[_Line]:
    side = state.sides[player]

    def name(cid: str) -> str:
        card = state.cards[cid]
        if card.code == 0:            # a public pile's card no one knows (a record of what was seen)
            return t("(face-down)") if card.position == FACEDOWN else t(_HIDDEN) if card.zone in _SECRET else t(_UNKNOWN)
        return printable(card_name(card.facts)) + (t(" (face-down)") if card.position == FACEDOWN and card.zone == "banished" else "")

    hand = [name(cid) for cid in side.hand]
    key = f"p{player}:"
    lines = [_hand(t("hand {count}", count=len(side.hand)), hand, width, key + "hand" in changed),
             _pile_line(t("GY {count}", count=len(side.gy)), name, side.gy, width, key + "gy" in changed),
             _pile_line(t("banished {count}", count=len(side.banished)), name, side.banished, width,
                        key + "banished" in changed)]
    face_up = [c for c in side.extra if state.cards[c].position != FACEDOWN]
    label = t("extra {count}", count=len(side.extra))
    lines.append(_pile_line(label, name, face_up, width, key + "extra" in changed) if face_up else
                 _Line(_pile_label(label), style=CHANGED if key + "extra" in changed else "bold")
                 + _Line(t("face-down") if side.extra else "—", style="dim"))
    top = state.cards[side.deck[0]] if side.deck else None
    deck = _Line(_pile_label(t('deck {count}', count=len(side.deck))),
                 style=CHANGED if key + "deck" in changed else "bold")
    deck.append(t("top: {card}", card=printable(card_name(top.facts))) if top is not None and top.code
                else (t("face-down") if top else "—"),
                style="" if top is not None and top.code else "dim")
    lines.append(deck)
    return lines


def _head(state: DuelState, player: int, changed: set[str]) -> _Line:
    side = state.sides[player]
    named = player < len(state.players) and state.players[player]
    # the name aside in the reader's brackets: full-width in Japanese and Chinese (``aside``)
    text = _Line(f"{player_label(player)}{aside(_who(state, player))}  " if named else f"{player_label(player)}  ",
                style="bold")
    text.append(f"LP {side.lp}", style=("bold " + CHANGED) if f"p{player}:lp" in changed else "bold")
    text.append("  " + "  ".join((t("hand {count}", count=len(side.hand)), t("deck {count}", count=len(side.deck)),
                                  t("extra {count}", count=len(side.extra)), t("GY {count}", count=len(side.gy)),
                                  t("banished {count}", count=len(side.banished)))))
    if state.turn and state.turn_player == player and not state.ended:
        text.append(t("  ◀ turn"), style="italic")
    return text


def _turn(state: DuelState) -> str:
    if not state.turn:
        return t("before the first turn")
    step = aside(step_name(state.step)) if state.step else ""
    return t("turn {turn}, {player}'s {phase}{step}", turn=state.turn, player=_who(state, state.turn_player),
             phase=phase_name(state.phase), step=step)


def _materials(state: DuelState) -> list[_Line]:
    """What ◆N means: each Xyz monster's materials, by name."""
    out = []
    for player in (0, 1):
        for card in state.monsters(player):
            if card.materials:
                loc = state.location(card)
                names = ", ".join(t(_HIDDEN) if state.cards[m].code == 0 else printable(card_name(state.cards[m].facts))
                                  for m in card.materials)
                count = len(card.materials)
                said = N_("◆{count} {player}'s {card} has {count} Xyz materials: {names}") if count > 1 else \
                    N_("◆{count} {player}'s {card} has {count} Xyz material: {names}")
                out.append(_Line(t(said, count=count, player=_who(state, player), names=names,
                                  card=f"{printable(card_name(card.facts))} [{zone_tag(loc.zone, loc.index)}]")))
    return out


_Part = Union[_Line, _Grid]


def board(state: DuelState, title: str = "", width: int = WIDTH, changed: Iterable[str] = ()) -> Group:
    """The whole board as a rich renderable: both sides, the Extra Monster Zones, the turn, the
    chain, the attack in progress and the result. ``changed`` names what to highlight: card
    ids, ``p0:M2``-style zones, ``p1:lp``, ``p0:gy``-style piles, ``emz0``/``emz1``."""
    return _rich(_parts(state, title, max(WIDTH, width), changed))


def _rich(parts: list[_Part]) -> Group:
    """The board's parts as rich draws them."""
    from rich.console import Group
    return Group(*(part.rich() if isinstance(part, _Line) else part for part in parts))


def _parts(state: DuelState, title: str, width: int, changed: Iterable[str]) -> list[_Part]:
    """The board's lines and grids, top to bottom (``board``), its cards named in one language."""
    with one_language():
        return _drawn_parts(state, title, width, changed)


def _drawn_parts(state: DuelState, title: str, width: int, changed: Iterable[str]) -> list[_Part]:
    """``_parts`` under ``one_language``."""
    changed = set(changed)
    columns = _columns(state)
    cell = max(9, (width - _LABEL - columns - 2) // columns)
    parts: list[_Part] = [_Line(printable(title), style="bold")] if title else []
    parts += [_Line(t("{turn} · rule set {ruleset}", turn=_turn(state), ruleset=state.ruleset), style="bold"), _Line("")]
    for player in (1, 0):
        side_parts: list[_Part] = [_head(state, player, changed)]
        piles = _piles(state, player, width, changed)
        zones = _zones(state, player, cell, changed)
        side_parts += [*piles[::-1], zones] if player == 1 else [zones, *piles]
        parts += side_parts
        if player == 1:
            parts.append(_emz(state, cell, changed))
    notes: list[_Line] = _materials(state)
    if state.chain:
        notes.append(_Line(t("chain: {count} link(s), the last resolves first", count=len(state.chain))
                          if len(state.chain) > 1 else t("chain:")))
        for link in state.chain:
            card = state.cards.get(link.card)
            name = printable(card_name(card.facts)) if card is not None and card.code else t("a card")
            notes.append(_Line(f"  {link.number}. " + t("{card} ({player}, Spell Speed {speed})", card=name,
                                                        player=_who(state, link.player), speed=link.speed)))
    if state.attack is not None:
        attack = state.attack
        target = attack.target
        aimed = (printable(card_name(state.cards[target].facts)) if state.cards[target].code else t("a face-down monster")) \
            if target in state.cards else t("directly")
        attacker = state.cards.get(attack.attacker)      # a Token that attacked may be gone (TOKEN-02)
        notes.append(_Line(t("attack: {attacker} → {target}", target=aimed, attacker=printable(card_name(attacker.facts))
                            if attacker is not None and attacker.code else t("a card"))))
    if state.ended:
        result = t("a draw") if state.winner is None else \
            t("{player} (player {number}) wins", player=_who(state, state.winner), number=state.winner)
        notes.append(_Line(t("duel over: {result} ({reason})", result=result, reason=state.end_reason), style="bold"))
    elif state.must_lose:
        notes.append(_Line(t("must lose: {players}", players=", ".join(f"{_who(state, p)} ({r})"
                                                                       for p, r in state.must_lose.items()))))
    parts += [_Line(""), *notes, _Line(t(KEY), style="dim", overflow="ellipsis", no_wrap=True)]
    parts += [_Line(hint, style="dim") for hint in _missing_names(state)]
    return parts


def _missing_names(state: DuelState) -> list[str]:
    """What the board shows by number for want of installed data, said once under it: a card
    by its passcode (``cards.unnamed``), a counter by its kind's number (``card_names.counter_name``)."""
    hints = []
    if any(card.code and card_name(card.facts, card.code) == unnamed(card.code) for card in state.cards.values()):
        hints.append(t(NAMES_MISSING))
    kinds = sorted({kind for card in state.cards.values() for kind, n in card.counters.items()
                    if n and kind.lower().startswith("0x") and counter_name(kind) is None})
    if kinds:
        hints.append(t("{kinds}: counters by their kind's number (named from a client's strings.conf placed at "
                       "{path})", kinds=", ".join(printable(k) for k in kinds), path=strings_path("en")))
    return hints


def render(state: DuelState, title: str = "", width: int = WIDTH, changed: Iterable[str] = ()) -> str:
    """The board as plain text, ``width`` columns at most (80 at least)."""
    width = max(WIDTH, width)
    parts = _parts(state, title, width, changed)
    lines = _plain(parts, width)
    if lines is not None:
        text = "\n".join(lines)
    else:
        text = _rich_text(_rich(parts), width)
    return "\n".join(line.rstrip() for line in text.splitlines()).rstrip() + "\n"


def _plain(parts: list[_Part], width: int) -> list[str] | None:
    """The board's lines as rich draws them, drawn here (``_Grid.lines``, ``_text_lines``):
    None when one part is one rich would draw otherwise (``render`` asks rich then)."""
    out: list[str] = []
    for part in parts:
        lines = part.lines(width) if isinstance(part, _Grid) else _text_lines(part, width)
        if lines is None:
            return None
        out += lines
    return out


def _rich_text(drawn: Group | Table, width: int) -> str:
    """The board as rich draws it, styles dropped."""
    from rich.console import Console
    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False,
                      legacy_windows=False, soft_wrap=False, emoji=False, highlight=False, markup=False)
    console.print(drawn)
    return console.file.getvalue()


def changes(before: DuelState, after: DuelState) -> set[str]:
    """What differs between two boards, in the names ``board`` highlights: the zones whose card,
    position or stats changed (``p0:M2``, ``p1:FZ``, ``emz0``), the piles whose cards changed
    (``p0:gy``), the LP (``p1:lp``)."""
    def look(state: DuelState, card_id: str | None) -> tuple | None:
        if card_id is None:
            return None
        card = state.cards.get(card_id)
        if card is None:
            return (card_id,)
        return (card_id, card.code, card.position, card.current_atk, card.current_def, len(card.materials),
                tuple(sorted(card.counters.items())))

    out: set[str] = set()
    for player, (old, new) in enumerate(zip(before.sides, after.sides)):
        key = f"p{player}:"
        if old.lp != new.lp:
            out.add(key + "lp")
        for zone, index_tag in (("mzone", "M"), ("szone", "S")):
            for i, (a, b) in enumerate(zip(getattr(old, zone), getattr(new, zone))):
                if look(before, a) != look(after, b):
                    out.add(f"{key}{index_tag}{i}")
        if look(before, old.fzone) != look(after, new.fzone):
            out.add(key + "FZ")
        for pile in ("hand", "gy", "banished", "extra", "deck"):
            if [look(before, c) for c in getattr(old, pile)] != [look(after, c) for c in getattr(new, pile)]:
                out.add(key + pile)
    for slot, (a, b) in enumerate(zip(before.emz, after.emz)):
        if look(before, a) != look(after, b):
            out.add(f"emz{slot}")
    return out
