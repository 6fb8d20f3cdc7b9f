"""The board drawn as text without rich's layout (issue 25): ``render`` draws the zones' tables
and the lines itself, and must print exactly what rich prints of the same board, or leave the
board to rich (a name rich would wrap, a wide character, a table too wide for its columns)."""
from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text

from ygoreplay import CardDB, CardFacts, read_events
from ygoreplay.cards import CardType
from ygoreplay.events import from_dict
from ygoreplay.i18n import using
from ygoreplay.rules import History
from ygoreplay.render import _ONE_CELL, _Grid, _Line, _parts, _plain, _rich_text, board, changes, render
from ygoreplay.source import open_source

REPLAYS = Path(__file__).resolve().parent.parent / "replays"
CARDS = CardDB.classic()


def by_rich(state, title="", width=80, changed=()) -> str:
    """``render``'s text as rich alone draws it (the path it takes when it cannot draw itself)."""
    text = _rich_text(board(state, title, width, changed), max(80, width))
    return "\n".join(line.rstrip() for line in text.splitlines()).rstrip() + "\n"


def drawn_here(state, title="", width=80, changed=()) -> bool:
    return _plain(_parts(state, title, max(80, width), changed), max(80, width)) is not None


def states(events, cards=CARDS):
    history = History(cards, audit=True)
    before = None
    for event in events:
        history.append(event)
        state = history.state
        yield state, (changes(before, state) if before is not None else set())
        before = state.copy()


def sample_events(path: Path):
    return read_events(path) if path.suffix == ".jsonl" else open_source(str(path), None, CARDS).events


@pytest.mark.parametrize("path", sorted(REPLAYS.glob("*.jsonl")) + sorted(REPLAYS.glob("*.spectator.ygr")),
                         ids=lambda p: p.name)
def test_every_board_of_every_sample_is_drawn_as_rich_draws_it(path):
    """Every event's board of every sample (the spectators' views too: hidden and unknown cards),
    with what the event changed highlighted, at 80 columns (every fourth wider too)."""
    fast = 0
    for n, (state, changed) in enumerate(states(sample_events(path))):
        for width in (80, 101, 132) if n % 4 == 0 else (80,):
            title = f"{path.name} after event #{n}"
            assert render(state, title, width, changed) == by_rich(state, title, width, changed), (n, width)
            fast += drawn_here(state, title, width, changed)
    assert fast > 0                                  # the boards were drawn here, not all by rich


def test_lines_rich_wraps_and_odd_characters_come_out_as_rich_draws_them():
    """A title longer than the line and a player's name in wide characters (wrapped as rich
    wraps them), card names with a tab, a zero-width space, a line separator, a bell: the same
    text as rich's. A zone holding a character that is not one cell wide is left to rich."""
    events = list(read_events(REPLAYS / "every-summon-method.jsonl"))
    state = History(CARDS, audit=True).extend(events)
    long_title = "a title " * 20
    assert drawn_here(state, long_title)
    assert render(state, long_title) == by_rich(state, long_title)
    state.players = ("決闘者の名前" * 4, "B")
    assert render(state) == by_rich(state)
    state.players = ("A", "B")
    shown = [c for c in state.cards.values() if c.zone in ("mzone", "szone")]
    assert shown
    for odd in ("Tab\tName", "Zero\u200bWidth", "Line\u2028Separator", "Bell\x07", "決闘者の名前"):
        facts = CardFacts(code=shown[0].code, name=odd, type=CardType.SPELL)
        for card in state.cards.values():
            if card.code == shown[0].code:
                card.facts = facts
        for width in (80, 132):
            assert render(state, "", width) == by_rich(state, "", width), odd
    assert not drawn_here(state)                     # the wide name in a zone: rich drew it


def test_master_rule_3_boards_are_drawn_as_rich_draws_them():
    """Eight zone columns: too wide for 80 (rich narrows them: left to rich), drawn here wider."""
    events = [from_dict(e.to_dict()) for e in read_events(REPLAYS / "won-by-damage.jsonl")]
    state = History(CARDS, audit=True).extend(events[:40])
    state.use_ruleset("mr3")
    assert not drawn_here(state, "", 80)
    assert drawn_here(state, "", 132)
    for width in (80, 100, 132):
        assert render(state, "", width) == by_rich(state, "", width)


def test_other_languages_are_drawn_as_rich_draws_them():
    """A board's words in Japanese and Chinese (wide characters: rich draws those lines) and
    Korean, every language's board the same both ways."""
    events = list(read_events(REPLAYS / "won-by-damage.jsonl"))
    for language in ("ja", "ko", "zh-Hans", "zh-Hant"):
        with using(language):
            for n, (state, changed) in enumerate(states(events)):
                if n % 7 == 0:
                    assert render(state, "", 80, changed) == by_rich(state, "", 80, changed), (language, n)


def test_a_cell_cut_with_an_ellipsis_and_cells_of_unequal_height():
    """The grid itself: a line longer than its zone is cut with an ellipsis, a shorter cell is
    padded below, as rich's table draws them."""
    grid = _Grid(2, 9)
    grid.add_row(_Line("MZ"), _Line("M0 1900A\nLuster Dragon Long"), _Line(""))
    grid.add_row(_Line("S/T"), _Line("S0"), _Line("S1 set\nTorrential\nTribute"))
    assert grid.lines(80) == [
        "┌───┬─────────┬─────────┐",
        "│MZ │M0 1900A │         │",
        "│   │Luster D…│         │",
        "├───┼─────────┼─────────┤",
        "│S/T│S0       │S1 set   │",
        "│   │         │Torrenti…│",
        "│   │         │Tribute  │",
        "└───┴─────────┴─────────┘"]
    console = _rich_text(grid, 80).splitlines()
    assert console == grid.lines(80)


def test_a_line_is_made_as_rich_makes_its_text():
    """``_Line`` (the board built without importing rich) holds what rich's ``Text`` made by the
    same calls holds: characters (control codes stripped), style, spans, how it is cut."""
    def made(kind):
        line = kind("M0\x07 tag\r", style="dim")
        line.append("", style="bold")
        line.append(" 1900A\x0c", style="bold")
        line.append("\nLuster\x08 Dragon")
        line.stylize("reverse")
        line.stylize("")
        both = kind("  hand 3 ", style="bold") + kind("—", style="dim") + line
        both.append(" tail", style="italic")
        return [kind(""), kind("key", style="dim", overflow="ellipsis", no_wrap=True), line, both]
    for ours, rich in zip(made(_Line), made(Text)):
        ours = ours.rich()
        assert (ours.plain, ours.style, ours.spans, ours.justify, ours.overflow, ours.no_wrap, ours.end,
                ours.tab_size) == (rich.plain, rich.style, rich.spans, rich.justify, rich.overflow, rich.no_wrap,
                                   rich.end, rich.tab_size)


def test_the_symbols_drawn_without_rich_take_one_cell_as_rich_measures_them():
    from rich.cells import cell_len
    symbols = [chr(code) for code in _ONE_CELL]
    assert symbols and all(cell_len(symbol) == 1 for symbol in symbols)


def test_long_lines_are_wrapped_as_rich_wraps_them():
    """``_folded`` (a line longer than the board, drawn without rich) breaks where rich's
    ``Text.wrap`` breaks: between words, before a word that does not fit, inside a word longer
    than a line; runs of spaces, leading spaces and the board's one-cell symbols included."""
    import random

    from ygoreplay.render import _folded, _wrapper
    rng = random.Random(25)
    pieces = ["a", "LP", "8000", "◀", "turn", "·", "—", "x" * 30, " ", "  ", "   ", "([AI]", "Mathmech)"]
    for n in range(3000):
        line = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 40)))
        width = rng.choice((5, 9, 12, 20, 80))
        if len(line) <= width:
            continue
        rich = [piece.plain.rstrip() for piece in Text(line).wrap(_wrapper(width), width, justify="default",
                                                                   overflow="fold", tab_size=8)]
        assert [piece.rstrip() for piece in _folded(line, width)] == rich, (line, width)


def test_a_name_that_fits_is_wrapped_as_textwrap_wraps_it():
    """``_wrapped`` gives a printable name that fits its line as it is, without textwrap (most
    card names: issue 25); every name, fitting or not, is cut as textwrap cuts it."""
    import random
    import textwrap

    from ygoreplay.render import _wrapped

    def wrapped(name: str, width: int, lines: int) -> list[str]:
        out = textwrap.wrap(name, width, break_long_words=True, break_on_hyphens=True) or [""]
        if len(out) > lines:
            out = out[:lines - 1] + [" ".join(out[lines - 1:])[:width - 1] + "…"]
        return out

    rng = random.Random(25)
    names = ["Dark Magician", "Blue-Eyes White Dragon", "", " ", "  lead", "trail  ", "a  b", "x" * 10, "x" * 11,
             "\u3000x", "x\u00a0y", "Tab\tName", "a-b-c-d-e-f-g", "決闘者の名前"]
    names += ["".join(rng.choice("ab -–\u3000\u00a0\u200b日 \t\n") for _ in range(rng.randint(0, 14))) for _ in range(3000)]
    for name in names:
        for width, lines in ((8, 1), (10, 2), (11, 2)):
            assert _wrapped(name, width, lines) == wrapped(name, width, lines), (name, width, lines)
