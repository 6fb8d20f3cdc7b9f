"""A duel's paper LP record: every change of either player's Life Points, turn by turn, with its
cause, the LP after it and the result — the sheet both players sign at the table (Konami's policy
keeps a paper LP record mandatory even where an LP calculator is allowed).

The sheet is made from a duel as one view has it (``views``): a spectator's sheet is folded from
the spectator's redacted events, so a card it names is named as that view knew it when the change
happened (a card paid from a hidden place stays "a card in Kaiba's hand"). LP changes themselves
are public. A change is whatever moved either player's LP in the fold: damage, gains, a set
value, an activation's LP cost, a set-up position, a judge's rollback (which gives back what the
events it undid took, and marks their rows reverted).

``sheet_of`` makes an ``LPSheet``; ``to_csv`` (RFC 4180, spreadsheet formulas guarded) and
``to_html`` (a printable A4 or Letter page with two signature lines) lay it out.
"""
from __future__ import annotations

import csv
import io
import unicodedata
from dataclasses import dataclass, field, replace
from html import escape
from typing import Iterable, Sequence

from .cards import CardDB
from .events import Activated, AttackDeclared, AttackRetargeted, Event, LifePointsChanged, RolledBack
from .log import PHASE_TAGS, Narrator
from .rules import History
from .i18n import N_, current, t
from .sentences import Line, phase_name, step_name
from .state import DuelState
from .text import printable
from .views import ViewReplay, ViewStep

PAPERS = ("a4", "letter")
_REASONS = {"battle_damage": N_("battle damage"), "effect_damage": N_("effect damage"), "cost": N_("cost"),
            "gain": N_("gain"), "set": N_("set"), "rollback": N_("rollback"), "set-up": N_("set-up position"),
            "change": N_("change")}
#: What a spreadsheet reads as the start of a formula (OWASP's CSV injection list).
_FORMULA = ("=", "+", "-", "@", "\t", "\r")
#: What a spreadsheet may pass over before a formula's first character (``guarded``).
_LEADING = " \u00a0\u3000"


@dataclass(frozen=True)
class LPRow:
    """One LP change: the event that made it, where in the duel, whose LP, by how much and why."""

    index: int
    turn: int
    phase: str | None
    step: str | None
    player: int
    reason: str                  # battle_damage, effect_damage, cost, gain, set, rollback, set-up, change
    before: int
    after: int
    lp: tuple[int, int]          # both players' LP after the event
    cause: str                   # the attack, the card, the rollback: as the view knew it
    text: str                    # the event's log line
    time: str = ""
    reverted_by: int | None = None

    @property
    def change(self) -> int:
        return self.after - self.before

    @property
    def when(self) -> str:
        """``T4 BP``, the log's turn-and-phase tag."""
        return f"T{self.turn} {PHASE_TAGS.get(self.phase or '', '--')}"

    def to_dict(self) -> dict:
        return {"index": self.index, "turn": self.turn, "phase": self.phase, "step": self.step,
                "player": self.player, "reason": self.reason, "change": self.change, "before": self.before,
                "after": self.after, "lp": list(self.lp), "cause": self.cause, "text": self.text,
                "time": self.time, "reverted_by": self.reverted_by}


@dataclass
class LPSheet:
    """A duel's LP record as one view has it, with what identifies the record it came from."""

    view: str
    players: tuple[str, str]
    starting_lp: tuple[int, int]
    rows: list[LPRow]
    lp: tuple[int, int]                              # LP after the last event
    result: str
    events: int                                      # events the sheet covers
    duel_id: str = ""
    title: str = ""
    head: str = ""                                   # the record's chain hash after those events (hex)
    match: dict = field(default_factory=dict)        # event, round, table, format when known

    def to_dict(self) -> dict:
        return {"duel": self.duel_id, "title": self.title, "view": self.view, "players": list(self.players),
                "starting_lp": list(self.starting_lp), "lp": list(self.lp), "result": self.result,
                "events": self.events, "head": self.head, "match": self.match,
                "rows": [row.to_dict() for row in self.rows]}


# -- making it ------------------------------------------------------------------------------------

class _JudgeFold:
    """The full record folded as ``check`` folds it."""

    def __init__(self, cards: CardDB) -> None:
        self.history = History(cards, audit=True)

    def before(self, index: int, event: Event) -> DuelState:
        return self.history.state

    def after(self, event: Event) -> DuelState:
        return self.history.append(event)


class _ViewFold:
    """A view's events folded with what it learns at each (``ViewReplay.prepare``/``advance``)."""

    def __init__(self, cards: CardDB, disclosures: Iterable[list], renames: Iterable[list]) -> None:
        self.replay = ViewReplay([], cards, [])
        self.shown: dict[int, list] = {}
        self.renamed: dict[int, list] = {}
        for item in disclosures:
            self.shown.setdefault(item[0], []).append(item)
        for item in renames:
            self.renamed.setdefault(item[0], []).append(item)

    def before(self, index: int, event: Event) -> DuelState:
        return self.replay.prepare(ViewStep(index, event, self.shown.get(index, []), self.renamed.get(index, []),
                                            [], set()))

    def after(self, event: Event) -> DuelState:
        return self.replay.advance()


def sheet_of(events: Sequence[Event], cards: CardDB, view: str = "judge", *, disclosures: Iterable[list] = (),
             renames: Iterable[list] = (), times: Sequence[str] = (), duel_id: str = "", title: str = "",
             head: bytes | None = None, match: dict | None = None) -> LPSheet:
    """The LP sheet of ``events`` as ``view`` has them: a judge's record (``view="judge"``) or a
    view's redacted events with its disclosures and renames (``views.redact``, a ``.ygr`` view, a
    served view); ``cards`` the facts that view may carry."""
    fold = _JudgeFold(cards) if view == "judge" else _ViewFold(cards, disclosures, renames)
    narrator = Narrator()
    rows: list[LPRow] = []
    attack_at: int | None = None                    # the event that declared the attack going on
    state: DuelState | None = None
    starting: tuple[int, int] | None = None
    for index, event in enumerate(events):
        before = fold.before(index, event)
        lp_before = (before.sides[0].lp, before.sides[1].lp)
        cause = printable(_cause(Line(before), before, event, narrator.resolved, attack_at))
        entry = narrator.entry(index, event, before)
        where = (entry.turn, entry.phase, entry.step)
        if isinstance(event, (AttackDeclared, AttackRetargeted)):
            attack_at = index
        state = fold.after(event)
        lp_after = (state.sides[0].lp, state.sides[1].lp)
        if starting is None and state.started:
            starting = lp_after
            continue
        if isinstance(event, RolledBack):
            _mark_reverted(rows, event.to, index)
        for player in (0, 1):
            if lp_after[player] != lp_before[player]:
                rows.append(LPRow(index, *where, player, _reason(event), lp_before[player], lp_after[player],
                                  lp_after, cause, entry.text, times[index] if index < len(times) else ""))
    names = tuple(state.players[:2]) if state is not None and len(state.players) >= 2 else ()
    players = (names[0], names[1]) if len(names) == 2 else ("Player 0", "Player 1")
    lp = (state.sides[0].lp, state.sides[1].lp) if state is not None else (0, 0)
    return LPSheet(view, (printable(players[0]), printable(players[1])), starting or lp, rows, lp,
                   _result(state, players), len(events), duel_id, printable(title), head.hex() if head else "",
                   dict(match or {}))


def _reason(event: Event) -> str:
    if isinstance(event, LifePointsChanged):
        return event.reason
    if isinstance(event, Activated):
        return "cost"
    if isinstance(event, RolledBack):
        return "rollback"
    return "set-up" if event.kind == "position_set_up" else "change"


def _cause(w: Line, state: DuelState, event: Event, resolved: str | None, attack_at: int | None) -> str:
    """What caused the change ``event`` makes, named as the view knew it just before."""
    if isinstance(event, LifePointsChanged):
        attack = state.attack
        if event.reason == "battle_damage" and event.cause is None and attack is not None:
            declared = f" (#{attack_at})" if attack_at is not None else ""
            if not attack.target:
                return t("{attacker} attacking directly", attacker=w.card(attack.attacker, owner=True)) + declared
            return t("{attacker} attacking {target}", attacker=w.card(attack.attacker, owner=True),
                     target=w.card(attack.target, owner=True)) + declared
        card = event.cause or resolved
        if card is None:
            return ""
        return w.card(card, owner=True) if card in state.cards else printable(card)
    if isinstance(event, Activated):
        return t("activating {card} (Chain Link {link})", card=w.card(event.card, owner=True), link=len(state.chain) + 1)
    if isinstance(event, RolledBack):
        return t("a judge's rollback to before #{index}", index=event.to) + (
            f": {printable(event.reason)}" if event.reason else "")
    return ""


def _mark_reverted(rows: list[LPRow], to: int, by: int) -> None:
    """Rows of the events a rollback undid (those from ``to`` on not undone already)."""
    for i, row in enumerate(rows):
        if row.index >= to and row.reverted_by is None:
            rows[i] = replace(row, reverted_by=by)


def _result(state: DuelState | None, players: tuple[str, ...]) -> str:
    if state is None:
        return t("no events")
    lp = f"LP {state.sides[0].lp} / {state.sides[1].lp}"
    if not state.ended:
        zero = [players[p] for p in (0, 1) if state.sides[p].lp == 0]
        return (t("not finished ({lp}; {players} at 0 LP, no end recorded)", lp=lp, players=t(" and ").join(zero))
                if zero else t("not finished ({lp})", lp=lp))
    if state.winner is None:
        return t("a draw ({lp})", lp=lp)
    reason = {"lp": t("LP reached 0"), "deck_out": t("could not draw")}.get(state.end_reason or "", state.end_reason or "")
    return t("{player} wins", player=printable(players[state.winner])) + (f" ({reason})" if reason else "") + f", {lp}"


# -- laying it out ----------------------------------------------------------------------------------

CSV_HEADER = ("event", "time", "turn", "phase", "step", "player", "name", "reason", "change", "lp_before",
              "lp_after", "lp_p0", "lp_p1", "cause", "reverted_by")


def guarded(text: str) -> str:
    """A cell of text from the record (a name, a cause) that no spreadsheet runs as a formula:
    one that starts as a formula does (``_FORMULA``), also after spaces, or in a full-width or
    small form a spreadsheet reads as that character (Japanese Excel takes ``＝SUM(...)`` for
    ``=SUM(...)``: its NFKC form), is given a leading ``'``."""
    first = unicodedata.normalize("NFKC", text.lstrip(_LEADING)[:1])
    return "'" + text if text.startswith(_FORMULA) or first.startswith(_FORMULA) else text


def to_csv(sheet: LPSheet) -> str:
    """The rows as RFC 4180 CSV (CRLF line ends, a header row); the last row is the result."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_HEADER)
    for row in sheet.rows:
        writer.writerow([row.index, row.time, row.turn, row.phase or "", row.step or "", row.player,
                         guarded(sheet.players[row.player]), row.reason, row.change, row.before, row.after,
                         row.lp[0], row.lp[1], guarded(row.cause), "" if row.reverted_by is None else row.reverted_by])
    writer.writerow([sheet.events - 1 if sheet.events else "", "", "", "", "", "", "", "result", "", "", "",
                     sheet.lp[0], sheet.lp[1], guarded(sheet.result), ""])
    return out.getvalue()


def to_html(sheet: LPSheet, paper: str = "a4") -> str:
    """A printable page: the players, the event, the rows, the result, two signature lines and
    what ties the paper to the record (the duel's id and its head hash)."""
    if paper not in PAPERS:
        raise ValueError(f"paper is one of {', '.join(PAPERS)}, not {paper!r}")
    p0, p1 = (escape(n) for n in sheet.players)
    about = [f"{escape(label)}: {escape(str(sheet.match[key]))}" for key, label in
             (("event", t("Event")), ("round", t("Round")), ("table", t("Table")), ("format", t("Format")))
             if sheet.match.get(key) not in (None, "")]
    body = []
    for row in sheet.rows:
        change = t("set to {lp}", lp=row.after) if row.reason == "set" else f"{row.change:+d}"
        lp = ["", ""]
        lp[row.player] = f"<b>{row.after}</b>"
        lp[1 - row.player] = str(row.lp[1 - row.player])
        undone = t("reverted by #{index}", index=row.reverted_by) if row.reverted_by is not None else ""
        reverted = f' <span class="rev">{escape(undone)}</span>' if undone else ""
        mark = ' class="reverted"' if row.reverted_by is not None else ""
        body.append(
            f"<tr{mark}><td>#{row.index}</td>"
            f"<td>{row.turn}</td><td>{escape(phase_name(row.phase) if row.phase else '—')}"
            f"{escape(', ' + step_name(row.step)) if row.step else ''}</td><td>{escape(sheet.players[row.player])}</td>"
            f'<td class="num">{escape(change)}</td><td>{escape(t(_REASONS[row.reason]) if row.reason in _REASONS else row.reason)}'
            f"{': ' + escape(row.cause) if row.cause else ''}{reverted}</td>"
            f'<td class="num">{lp[0]}</td><td class="num">{lp[1]}</td></tr>')
    head = escape(sheet.head) if sheet.head else escape(t("none (this record has no hash chain)"))
    seen = t("As the {view} view saw the duel: cards it could not see are not named.", view=sheet.view)
    view = "" if sheet.view == "judge" else f'<p class="view">{escape(seen)}</p>'
    said = {key: escape(text) for key, text in (
        ("record", t("LP record")), ("p0", t("Player 0")), ("p1", t("Player 1")), ("start", t("Starting LP")),
        ("event", t("Event")), ("turn", t("Turn")), ("phase", t("Phase")), ("player", t("Player")),
        ("change", t("Change")), ("cause", t("Cause")), ("result", t("Result")),
        ("sign0", t("{player} (player 0), signature", player=sheet.players[0])),
        ("sign1", t("{player} (player 1), signature", player=sheet.players[1])),
        ("ids", t("Duel {id} · {count} events · {view} view · record head", id=sheet.duel_id or t("(a file)"),
                  count=sheet.events, view=sheet.view)))}
    record = said["record"]
    return f"""<!doctype html>
<html lang="{current()}"><head><meta charset="utf-8">
<title>{record} — {p0} vs {p1}</title>
<style>
@page {{ size: {"A4" if paper == "a4" else "letter"}; margin: 14mm 12mm; }}
body {{ font: 10.5pt/1.35 system-ui, sans-serif; color: #000; margin: 0 auto; max-width: 190mm; padding: 8mm; }}
h1 {{ font-size: 15pt; margin: 0 0 2mm; }}
.about, .view, .ids {{ margin: 1mm 0; }}
.players {{ display: flex; gap: 8mm; font-size: 12pt; margin: 3mm 0; }}
table {{ width: 100%; border-collapse: collapse; }}
th, td {{ border: 0.3mm solid #444; padding: 0.8mm 1.5mm; text-align: left; vertical-align: top; }}
th {{ background: #eee; }}
td.num, th.num {{ text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }}
tr.reverted td {{ text-decoration: line-through; color: #555; }}
.rev {{ text-decoration: none; font-style: italic; }}
.result {{ font-size: 12pt; font-weight: bold; margin: 4mm 0; }}
.signatures {{ display: flex; gap: 12mm; margin-top: 14mm; break-inside: avoid; }}
.signatures div {{ flex: 1; border-top: 0.3mm solid #000; padding-top: 1mm; }}
.ids {{ font: 8pt ui-monospace, monospace; word-break: break-all; margin-top: 6mm; }}
thead {{ display: table-header-group; }}
tr {{ break-inside: avoid; }}
@media print {{ body {{ padding: 0; max-width: none; }} th {{ -webkit-print-color-adjust: exact; print-color-adjust: exact; }} }}
</style></head>
<body>
<h1>{record}{": " + escape(sheet.title) if sheet.title else ""}</h1>
<p class="about">{" · ".join(about)}</p>
<div class="players"><span>{said["p0"]}: <b id="p0">{p0}</b></span><span>{said["p1"]}: <b id="p1">{p1}</b></span>
<span>{said["start"]}: {sheet.starting_lp[0]} / {sheet.starting_lp[1]}</span></div>
{view}
<table id="rows"><thead><tr><th>{said["event"]}</th><th>{said["turn"]}</th><th>{said["phase"]}</th><th>{said["player"]}</th>
<th class="num">{said["change"]}</th><th>{said["cause"]}</th><th class="num">{p0}</th><th class="num">{p1}</th></tr></thead>
<tbody>
{chr(10).join(body)}
</tbody></table>
<p class="result" id="result">{said["result"]}: {escape(sheet.result)}</p>
<div class="signatures"><div>{said["sign0"]}</div><div>{said["sign1"]}</div></div>
<p class="ids">{said["ids"]} {head}</p>
</body></html>
"""


__all__ = ["CSV_HEADER", "LPRow", "LPSheet", "PAPERS", "guarded", "sheet_of", "to_csv", "to_html"]
