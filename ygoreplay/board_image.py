"""A picture of the board: the SVG and the PNG a link preview shows (``/duels/{id}/board.svg``).

Drawn from ``board.board(state)`` of a view's state, so it holds no more than that view's
frames: a card the view may not see has no passcode and no name there and is drawn as a card
back. One layout (``layout``: boxes and lines of text at fixed places) is written two ways,
``svg`` (text XML-escaped, control characters shown as escapes) and ``png`` (Pillow, offline,
no browser). The picture's size is fixed and every text is cut to a bounded length, so a long
name or a full hand cannot make it larger.
"""
from __future__ import annotations

import functools
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from .text import printable

WIDTH, HEIGHT = 800, 580
CELL_W, CELL_H, GAP = 76, 58, 6
HAND_SHOWN = 9                    # hand cards drawn; more are counted (+N)
NAME_CHARS = 13                   # a card's name in its cell
TITLE_CHARS = 70

BG, LINE, TEXT, DIM = "#14161c", "#2e3340", "#e8eaf0", "#9aa0ad"
FILL = {"monster": "#6b4a22", "spell": "#1f5a4a", "hand": "#3d4a66", "back": "#4a3424", "unknown": "#3a3f4c",
        "empty": "#1d2029"}
#: Where each row is (its top), for the player at the top and the one at the bottom; text baselines.
TOP_ROWS = {"hand": 30, "spell": 96, "monster": 160, "name": 238}
BOTTOM_ROWS = {"monster": 376, "spell": 440, "hand": 506, "name": 366}
EMZ_TOP, TURN_LINE, RESULT_LINE = 250, 326, 346
FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf")


@dataclass(frozen=True)
class Box:
    x: int
    y: int
    w: int
    h: int
    fill: str


@dataclass(frozen=True)
class Line:
    """A line of text; ``x`` is its centre."""

    x: int
    y: int
    text: str
    size: int = 11
    fill: str = TEXT


def cut(text: Any, limit: int) -> str:
    """``text`` shown safely (``text.printable``) and at most ``limit`` characters long."""
    shown = printable(str(text)).replace("\ufffe", "\\ufffe").replace("\uffff", "\\uffff")   # not XML characters
    return shown if len(shown) <= limit else shown[:limit - 1] + "\u2026"


def layout(board: dict | None, bottom: int = 0, title: str = "") -> list[Box | Line]:
    """The picture of ``board`` as boxes and lines, player ``bottom`` nearest the reader; of
    the title alone when there is no board yet (no event the view may see)."""
    shapes: list[Box | Line] = [Box(0, 0, WIDTH, HEIGHT, BG)]
    if board is None:
        return [*shapes, Line(WIDTH // 2, HEIGHT // 2, cut(title or "ygoreplay", TITLE_CHARS), 14)]
    left = (WIDTH - 8 * CELL_W - 7 * GAP) // 2
    column = lambda c: left + c * (CELL_W + GAP)       # noqa: E731  (columns 0..7, as the viewer's grid)
    top_side, bottom_side = 1 - bottom, bottom
    shapes.append(Line(WIDTH // 2, 20, cut(title or "ygoreplay", TITLE_CHARS), 14))
    for p, top in ((top_side, True), (bottom_side, False)):
        side = board["players"][p]
        rows = TOP_ROWS if top else BOTTOM_ROWS
        monster_row, spell_row = rows["monster"], rows["spell"]
        order = (lambda c: 7 - c) if top else (lambda c: c)
        for z, card in enumerate(side["mzone"][:5]):
            shapes += _cell(column(order(z + 1)), monster_row, card, "monster")
        for z, card in enumerate(side["szone"][:5]):
            shapes += _cell(column(order(z + 1)), spell_row, card, "spell")
        shapes += _cell(column(order(0)), monster_row, side["fzone"], "spell")
        shapes += _pile(column(order(6)), monster_row, "GY", side["gy"])
        shapes += _pile(column(order(7)), monster_row, "banished", side["banished"])
        shapes += _pile(column(order(0)), spell_row, "Extra", side["extra"])
        shapes += _count(column(order(6)), spell_row, "Deck", side["deck"])
        shapes += _hand(side["hand"], rows["hand"])
        lost = " (lost)" if side.get("lost") else ""
        shapes.append(Line(WIDTH // 2, rows["name"], f"{cut(side['name'] or f'Player {p}', 30)} \u00b7 LP {side['lp']}{lost}",
                           13))
    for slot, card in enumerate(board.get("emz") or []):
        if board.get("layout", {}).get("emz", True):
            shapes += _cell(column(2 if (slot == 0) == (bottom == 0) else 4), EMZ_TOP, card, "monster")
    shapes.append(Line(WIDTH // 2, TURN_LINE, _turn_line(board), 12, DIM))
    if board.get("ended"):
        winner = board.get("winner")
        who = "Draw" if winner is None else f"{cut(board['players'][winner]['name'] or f'Player {winner}', 30)} wins"
        shapes.append(Line(WIDTH // 2, RESULT_LINE, f"{who} ({cut(board.get('reason') or 'ended', 30)})", 13))
    return shapes


def _turn_line(board: dict) -> str:
    if not board.get("turn"):
        return cut(board.get("phase_name") or "", 40)
    name = board["players"][board["turn_player"]]["name"] or f"Player {board['turn_player']}"
    return f"Turn {board['turn']} \u00b7 {cut(name, 30)} \u00b7 {cut(board.get('phase_name') or '', 30)}"


def _cell(x: int, y: int, card: dict | None, kind: str) -> list[Box | Line]:
    if card is None:
        return [Box(x, y, CELL_W, CELL_H, FILL["empty"])]
    if card.get("hidden"):
        face_down = card.get("position") not in ("attack", "defense", "faceup")
        return [Box(x, y, CELL_W, CELL_H, FILL["back" if face_down else "unknown"]),
                Line(x + CELL_W // 2, y + CELL_H // 2 + 4, "face-down" if face_down else "unknown", 10, DIM)]
    out: list[Box | Line] = [Box(x, y, CELL_W, CELL_H, FILL[kind]),
                             Line(x + CELL_W // 2, y + 20, cut(card.get("name", ""), NAME_CHARS), 10)]
    if "atk" in card:
        out.append(Line(x + CELL_W // 2, y + 38, f"{_stat(card.get('atk'))}/{_stat(card.get('defense'))}", 10, DIM))
    if card.get("position") in ("set", "facedown", "facedown_attack", "defense"):
        out.append(Line(x + CELL_W // 2, y + CELL_H - 6, "set" if card["position"] != "defense" else "DEF", 9, DIM))
    return out


def _stat(value: Any) -> str:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else "?"


def _pile(x: int, y: int, label: str, cards: list[dict | None]) -> list[Box | Line]:
    out = _count(x, y, label, len(cards))
    top = cards[-1] if cards else None
    if top is not None and not top.get("hidden"):
        out.append(Line(x + CELL_W // 2, y + CELL_H - 8, cut(top.get("name", ""), NAME_CHARS), 9))
    return out


def _count(x: int, y: int, label: str, count: int) -> list[Box | Line]:
    return [Box(x, y, CELL_W, CELL_H, FILL["empty"]), Line(x + CELL_W // 2, y + 18, label, 10, DIM),
            Line(x + CELL_W // 2, y + 36, str(int(count)), 14)]


def _hand(cards: list[dict | None], y: int) -> list[Box | Line]:
    shown = cards[:HAND_SHOWN]
    width = len(shown) * (CELL_W + GAP) - GAP
    x = (WIDTH - width) // 2
    out: list[Box | Line] = []
    for i, card in enumerate(shown):
        out += _cell(x + i * (CELL_W + GAP), y, card, "hand")
    if len(cards) > HAND_SHOWN:
        out.append(Line(x + width + 24, y + CELL_H // 2, f"+{len(cards) - HAND_SHOWN}", 12, DIM))
    return out


# -- the two ways of writing it -----------------------------------------------------------------------

def svg(shapes: list[Box | Line]) -> str:
    """The layout as an SVG document (every text escaped for XML)."""
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
           'font-family="DejaVu Sans, sans-serif">']
    for shape in shapes:
        if isinstance(shape, Box):
            out.append(f'<rect x="{shape.x}" y="{shape.y}" width="{shape.w}" height="{shape.h}" rx="4" '
                       f'fill="{shape.fill}" stroke="{LINE}"/>')
        else:
            out.append(f'<text x="{shape.x}" y="{shape.y}" font-size="{shape.size}" fill="{shape.fill}" '
                       f'text-anchor="middle">{escape(shape.text)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def png(shapes: list[Box | Line]) -> bytes:
    """The layout drawn with Pillow, as PNG bytes."""
    from PIL import Image, ImageDraw
    image = Image.new("RGB", (WIDTH, HEIGHT), BG)
    draw = ImageDraw.Draw(image)
    for shape in shapes:
        if isinstance(shape, Box):
            draw.rounded_rectangle((shape.x, shape.y, shape.x + shape.w - 1, shape.y + shape.h - 1), 4,
                                   fill=shape.fill, outline=LINE)
        else:
            draw.text((shape.x, shape.y), shape.text, fill=shape.fill, font=_font(shape.size), anchor="ms")
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


@functools.cache
def _font(size: int) -> Any:
    from PIL import ImageFont
    for path in FONTS:
        if Path(path).exists():
            return ImageFont.truetype(path, size)
    return ImageFont.load_default(size)


__all__ = ["HEIGHT", "WIDTH", "Box", "Line", "cut", "layout", "png", "svg"]
