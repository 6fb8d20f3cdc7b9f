"""A round's printed and shown pages: the organiser's sheet of QR codes (one a table, each
opening the table's recorder link, and at a paper table one each seat, its player's own) and the round page anyone with its address follows.

Both are whole HTML pages with their style inline. The QR sheet has no script; the round page
is drawn whole by the server and kept current by one script of the service's own
(``viewer/round.js``, following ``/rounds/{id}/follow``), or, with scripts off, by reloading
itself. The QR sheet holds every table's recorder and seat tokens; the round page holds none.
"""
from __future__ import annotations

from html import escape
from typing import Any

import segno

from .i18n import N_, current, said, t
from .access import PLAYERS
from .rounds import ATTENTION, RECORDERS, NewRound

#: How often the round page reloads itself when its script cannot run (seconds).
REFRESH = 15
#: What a served page of these may load: its own inline style, nothing else.
POLICY = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; "
          "frame-ancestors 'none'")
#: What the round page may load besides: its script from the service, and the round's stream.
ROUND_POLICY = POLICY.replace("default-src 'none';", "default-src 'none'; script-src 'self'; connect-src 'self';")
#: The round page's headers: its policy, no referrer, never framed, asked again on each visit.
PAGE_HEADERS = {"Content-Security-Policy": ROUND_POLICY, "Referrer-Policy": "no-referrer",
                "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Cache-Control": "no-cache"}

_PRINT = """@page { size: auto; margin: 10mm; }
body { font: 11pt/1.35 system-ui, sans-serif; color: #000; margin: 0 auto; max-width: 200mm; padding: 6mm; }
h1 { font-size: 15pt; margin: 0 0 2mm; }
@media print { body { padding: 0; max-width: none; } .screen { display: none; } }"""


def qr_svg(text: str) -> str:
    """``text`` as an inline SVG QR code (error correction M: a creased or smudged sheet still reads)."""
    return segno.make(text, error="m", micro=False).svg_inline(scale=3, border=2)


def qr_page(made: NewRound, base: str = "") -> str:
    """The printable sheet of the round's QR codes: each table's number and players under the
    code of its recorder link, and at a paper table each seat's code, its player's name under it. It says who it is for: the codes are the tables' tokens. It
    links the round's own page (``base`` the service's address), which holds no token."""
    s = made.settings
    cards = []
    for table in made.tables:
        label = escape(t("Table {number}", number=table.table))
        pairing = escape(t("{first} vs {second}", first=table.players[0], second=table.players[1]))
        cards.append(f'<figure class="table" id="table-{table.table}">{qr_svg(table.recorder_link)}'
                     f'<figcaption><b>{label}</b><br>{pairing}</figcaption></figure>')
        cards.extend(_seat(table.table, seat, player, table.record[seat])
                     for seat, player in zip(PLAYERS, table.players) if seat in table.record)
    title = escape(t("{event}, round {round}: recorder QR codes", event=s.event, round=s.round))
    heading = escape(t("{event}, round {round}{format}: recorder QR codes", event=s.event, round=s.round,
                       format=", " + s.format if s.format else ""))
    secret = escape(t("Organiser only. Each code holds a table's recorder token: whoever scans it can record that "
                      "table's match. Hand each code to its own table; do not post or share this page. Tokens are "
                      "not kept by the service: this page is made once, when the round is created."))
    seats = escape(t("At a paper table each player records their own hidden cards (a Set, a card added to the "
                     "hand) on their own phone, with their seat's code, handed to that player alone: whatever is "
                     "entered with the table's code shows on every phone that scanned it."))
    seats = f'<p id="seats">{seats}</p>' if any(len(table.record) > 1 for table in made.tables) else ""
    about = escape(t("Round {id} · {count} tables · the round's page (no token in it):", id=made.id,
                     count=len(made.tables)))
    return f"""<!doctype html>
<html lang="{current()}"><head><meta charset="utf-8"><meta name="robots" content="noindex">
<title>{title}</title>
<style>{_PRINT}
.secret {{ border: 0.5mm solid #000; padding: 2mm 3mm; font-weight: bold; }}
.grid {{ display: grid; grid-template-columns: repeat(3, 1fr); gap: 6mm 4mm; margin-top: 4mm; }}
figure {{ margin: 0; text-align: center; break-inside: avoid; page-break-inside: avoid; }}
figure svg {{ width: 45mm; height: 45mm; }}
figure.seat svg {{ width: 30mm; height: 30mm; }}
figcaption {{ font-size: 10pt; }}
</style></head>
<body>
<h1>{heading}</h1>
<p class="secret" id="secret">{secret}</p>
{seats}
<p class="screen">{about}
<a id="round-page" href="{escape(base)}/rounds/{escape(made.id)}">{escape(base)}/rounds/{escape(made.id)}</a></p>
<div class="grid">
{chr(10).join(cards)}
</div>
</body></html>
"""


def _seat(number: int, seat: str, player: str, link: str) -> str:
    """A seat's code on the QR sheet (``access.recorders_of``): its player's own recorder link."""
    label = escape(t("Table {number}, {player}'s own phone", number=number, player=player))
    only = escape(t("hand to this player only"))
    return (f'<figure class="seat" id="table-{number}-{seat}">{qr_svg(link)}'
            f'<figcaption><b>{label}</b><br>{only}</figcaption></figure>')


def round_page(status: dict[str, Any], refresh: int = REFRESH) -> str:
    """The round now, for anyone with its address: the tables, players, each match's score and
    state, who is recording each table and when its last entry came in (of a private match's
    table, its number only: ``rounds.hidden_table``). Its script
    (``round.js``) redraws the rows as ``/rounds/{id}/follow`` streams the round; with scripts
    off it reloads every ``refresh`` seconds."""
    rows = []
    for table in status["tables"]:
        p0, p1 = (escape(p) for p in table["players"]) if table["players"] else ("—", "—")   # a private match's
        marks = ["", ""]
        if table.get("winner") in (0, 1):
            marks[table["winner"]] = ' class="won"'
        recording = table.get("recording") or {}
        last = escape(recording.get("last_entry") or table["last_event"] or "—")
        needs = table.get("attention") or []
        flagged = ' class="attention"' if needs else ""
        rows.append(f'<tr id="table-{table["table"]}"{flagged}><td class="num">{table["table"]}</td>'
                    f"<td{marks[0]}>{p0}</td><td{marks[1]}>{p1}</td><td class=\"num score\">{_score(table['score'])}</td>"
                    f"<td class=\"state\">{escape(said(table['state']))}</td>"
                    f"<td class=\"needs\">{escape(needs_said(table))}</td>"
                    f"<td class=\"who\">{escape(who_said(table))}</td><td><time>{last}</time></td></tr>")
    heading = t("{event}, round {round}", event=status["event"], round=status["round"])
    head = escape(heading)
    titled = escape(t("{title}, {format}", title=heading, format=status["format"])) if status.get("format") else head
    words = {key: escape(text) for key, text in (
        ("tables", counts_said(status)), ("live", t("updated when the page loads")),
        ("json", t("the same as JSON:")), ("csv", t("the results as CSV")), ("table", t("Table")), ("player", t("Player")), ("score", t("Score")),
        ("state", t("State")), ("needs", t("Needs")), ("recording", t("Recording")), ("last", t("Last entry")))}
    return f"""<!doctype html>
<html lang="{current()}"><head><meta charset="utf-8"><noscript><meta http-equiv="refresh" content="{int(refresh)}"></noscript>
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{head}</title>
<style>{_PRINT}
table {{ width: 100%; border-collapse: collapse; }}
th, td {{ border-bottom: 0.3mm solid #999; padding: 1mm 2mm; text-align: left; }}
td.num {{ text-align: right; font-variant-numeric: tabular-nums; }}
.won {{ font-weight: bold; }}
tr.moved td {{ background: #fff6c2; transition: background 2s; }}
#live[data-live=true] {{ color: #06702b; }}
tr.attention td {{ background: #ffe0e0; }}
td.needs {{ font-weight: bold; color: #a00000; }}
#seal.unsigned {{ font-weight: bold; color: #a00000; border: 0.5mm solid #a00000; padding: 1mm 2mm; }}
@media (max-width: 480px) {{ th:nth-child(8), td:nth-child(8) {{ display: none; }} th, td {{ padding: 1mm; }} }}
</style></head>
<body data-round="{escape(status["id"])}">
<h1>{titled}</h1>
<p id="seal"{' class="unsigned"' if status.get("signed") is None else ""}>{escape(seal_said(status))}</p>
<p class="screen"><span id="counts">{words["tables"]}</span> · <span id="live" role="status">{words["live"]}</span> ·
{words["json"]} <a href="/rounds/{escape(status["id"])}.json">{escape(status["id"])}.json</a> ·
<a id="results" href="/rounds/{escape(status["id"])}/results.csv">{words["csv"]}</a></p>
<table id="tables"><thead><tr><th>{words["table"]}</th><th>{words["player"]}</th><th>{words["player"]}</th>
<th>{words["score"]}</th><th>{words["state"]}</th><th>{words["needs"]}</th><th>{words["recording"]}</th>
<th>{words["last"]}</th></tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody></table>
<script type="module" src="/viewer/round.js"></script>
</body></html>
"""


def seal_said(status: dict[str, Any]) -> str:
    """Who vouches for the round's record (``rounds.load_round``'s ``signed``), in the reader's
    language: the organiser's key and when, or, for a round written before rounds were signed,
    that nothing does (its tables renumbered or dropped in the database would not be seen)."""
    signed = status.get("signed")
    if signed is None:
        return t("UNSIGNED: this round was written before rounds were signed; nothing vouches for its tables (one "
                 "renumbered or dropped in the database would not be seen). The organiser may sign it as it "
                 "stands: ygoreplay round sign {id}", id=status["id"])
    if signed["late"]:
        return t("Signed by the organiser's key {key} at {time}, after it was written unsigned: the signature "
                 "vouches for the round as it stood then", key=signed["key"], time=signed["time"])
    return t("Signed by the organiser's key {key} at {time}", key=signed["key"], time=signed["time"])


def needs_said(table: dict[str, Any]) -> str:
    """What a table needs (``rounds.attention``) in the reader's language, the time called with
    its extra turns played (TIME-03): "judge called · time called (extra turn 2)"; "—" for nothing."""
    out = []
    for code in table.get("attention") or []:
        text = t(ATTENTION[code])
        turns = (table.get("time") or {}).get("extra_turns")
        if code == "time_called" and turns:
            text += t(" (extra turn {n})", n=turns)
        out.append(text)
    return " · ".join(out) or "—"


def who_said(table: dict[str, Any]) -> str:
    """Who records a table's duel in the reader's language (``rounds.RECORDERS``; the JSON's
    ``who`` is English: what scripts match on)."""
    by = (table.get("recording") or {}).get("by") or []
    return " + ".join(t(RECORDERS[role]) for role in by if role in RECORDERS) or "—"


def counts_said(status: dict[str, Any]) -> str:
    """The round at a glance (``rounds.counts``): how many tables play, are between duels, have
    ended, have not started, and how many need someone."""
    counts = status.get("counts") or {"tables": len(status["tables"])}
    parts = [t("{count} tables", count=counts["tables"])]
    for key, words in (("playing", N_("{count} playing")), ("between_duels", N_("{count} between duels")),
                       ("ended", N_("{count} ended")), ("not_started", N_("{count} not started")),
                       ("attention", N_("{count} need attention"))):
        if counts.get(key):
            parts.append(t(words, count=counts[key]))
    return " · ".join(parts)


def _score(score: list[int]) -> str:
    """A match's score as the round page shows it: ``1 – 0``, and its drawn duels if any."""
    if not score:                                # a private match's table shows none
        return "—"
    won, lost, drawn = (list(score) + [0, 0, 0])[:3]
    return f"{won} – {lost}" + (t(" ({count} drawn)", count=drawn) if drawn else "")


__all__ = ["PAGE_HEADERS", "POLICY", "REFRESH", "ROUND_POLICY", "qr_page", "qr_svg", "round_page", "seal_said"]
