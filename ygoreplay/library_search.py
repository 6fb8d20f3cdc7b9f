"""Finding a duel: the library's search, a card's numbers and a player's duels, read from the
library index (``library``) with one query each, never by folding a stored duel.

Everything here is what anyone may know: only public streams, each cut where its delay releases
it now (``cut``: as ``LiveDuel.visible`` and ``application.as_seen`` cut a spectator's view: a
duel that has not ended shows its events up to ``delay.events`` before its head and recorded at
least ``delay.seconds`` ago; nothing past the cut counts, not its length, last turn, result,
badges or card events). A branch shows only once its parent is neither delayed nor running.
Card events are a spectator's (``library.seen``); a rolled-back one counts only while the
rollback lies past the cut.
"""
from __future__ import annotations

import base64
import json
import os
import re
import sqlite3
import time
import unicodedata
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from datetime import datetime, timedelta, timezone
from typing import Any, Iterator, Mapping

from .access import Access
from .cache import Cache
from .card_names import installed_names, typed_forms
from .card_sources import normal_name
from .errors import InputError, StoreError, VerificationError
from .library import (ACTIONS, VERSION, Index, access_columns, check, found_version, held_key, newer,
                      sqlite_shape)
from .store.opening import own_schema
from .store.records import AlteredRow, row_state
from .i18n import say

PARAMS = ("q", "player", "title", "event", "round", "format", "banlist", "since", "until", "result", "source",
          "card", "action", "turn_max", "kind", "limit", "cursor")
RESULTS = ("p0", "p1", "draw", "ongoing")
SOURCES = ("imported", "table", "api")
KINDS = ("duel", "match", "any")
LIMIT, MAX_LIMIT = 20, 100
TURN_MAX = 10_000          # the last turn ``turn_max`` may name (``cli/search.py`` types both the same)
MAX_CODES = 200                  # a name that matches more cards than this is too vague to search


class SearchError(InputError):
    """A search parameter that cannot be used; ``where`` names it."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(message)
        self.where = where


@dataclass(frozen=True)
class Query:
    """A search, checked: every filter is optional."""

    q: str | None = None
    player: str | None = None
    title: str | None = None
    event: str | None = None
    round: str | None = None
    format: str | None = None
    banlist: str | None = None
    since: int | None = None         # ms since the epoch, inclusive
    until: int | None = None         # ms, exclusive
    result: str | None = None        # RESULTS, or a player's name (won by them)
    source: str | None = None
    codes: tuple[int, ...] | None = None
    action: str | None = None
    turn_max: int | None = None
    kind: str = "any"
    limit: int = LIMIT
    cursor: str | None = None        # the sealed ``next`` of a previous page (``_sealed``)
    after: tuple[int, str] | None = None     # where a statement reads on from: the cursor opened


def parse(params: Mapping[str, str], names: Any) -> Query:
    """A query from request or command-line parameters (text each); ``names`` resolves a card
    name (``card_sources.CardLookup`` or a ``CardDB``). SearchError says which is wrong."""
    unknown = sorted(set(params) - set(PARAMS))
    if unknown:
        raise SearchError(unknown[0], say("unknown search parameter {text!r} (parameters: {names})",
                                             text=unknown[0], names=", ".join(PARAMS)))
    for name, value in params.items():          # PostgreSQL refuses a NUL in text: it was a 500
        if "\x00" in value:
            raise SearchError(name, say("{name} holds a NUL character", name=name))
    text: dict[str, str | None] = {}
    for name in ("q", "player", "title", "event", "round", "format", "banlist", "result"):
        value = params.get(name)
        if value is not None and len(value) > 200:
            raise SearchError(name, say("{name} is at most 200 characters", name=name))
        text[name] = value.strip() or None if value is not None else None
    result = text["result"]
    if result is not None and result.lower() in RESULTS:
        result = result.lower()
    source = _choice(params, "source", SOURCES)
    kind = _choice(params, "kind", KINDS) or "any"
    action = _choice(params, "action", ACTIONS)
    turn_max = _number(params, "turn_max", 0, TURN_MAX)
    limit = _number(params, "limit", 1, MAX_LIMIT)
    codes = resolve_card(params["card"], names) if params.get("card") else None
    if (action or turn_max is not None) and codes is None:
        raise SearchError("action" if action else "turn_max",
                          say("action and turn_max narrow a card search: give card"))
    since, until = _time(params, "since", False), _time(params, "until", True)
    return Query(text["q"], text["player"], text["title"], text["event"], text["round"], text["format"],
                 text["banlist"], since, until, result, source, codes, action, turn_max, kind,
                 LIMIT if limit is None else limit, params.get("cursor") or None)


def _choice(params: Mapping[str, str], name: str, allowed: tuple[str, ...]) -> str | None:
    value = params.get(name)
    if value is None or value == "":
        return None
    if value not in allowed:
        raise SearchError(name, say("{name} is one of {names}, not {text!r}", name=name, names=", ".join(allowed),
                                    text=value[:40]))
    return value


def _number(params: Mapping[str, str], name: str, low: int, high: int) -> int | None:
    value = params.get(name)
    if value is None or value == "":
        return None
    if not re.fullmatch(r"\d{1,6}", value) or not low <= int(value) <= high:
        raise SearchError(name, say("{name} is a whole number {low}..{high}, not {text!r}", name=name, low=low,
                                    high=high, text=value[:40]))
    return int(value)


def _time(params: Mapping[str, str], name: str, end: bool) -> int | None:
    """A date (``2026-05-01``: the whole day) or a time with its zone, in ms; ``end``: exclusive."""
    value = params.get(name)
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value)
        if end and len(value) == 10:             # a date: until its end
            when += timedelta(days=1)
        stamp = when.replace(tzinfo=when.tzinfo or timezone.utc).timestamp()
    except (ValueError, OverflowError):          # 9999-12-31's end is past what a date holds
        raise SearchError(name, say("{name} is a date (2026-05-01) or a time (2026-05-01T18:00:00+00:00), not {text!r}",
                                    name=name, text=value[:40])) from None
    return int(stamp * 1000) + (1 if end and len(value) != 10 else 0)


#: What keys a cursor's seal: derived from the organiser's private key's seed (``OrganiserKey.mac``),
#: never from anything public, so only the service (or the command line) holding it makes or opens one.
_CURSOR_LABEL = b"ygoreplay/search-cursor/1\0"
_NONCE = 12
#: The query's fields a cursor is bound to: all but the page's size and where it starts.
_BOUND = ("q", "player", "title", "event", "round", "format", "banlist", "since", "until", "result",
          "source", "codes", "action", "turn_max", "kind")


def _seal(store: Any, query: Query, created: int, stream: str) -> str:
    """A page's ``next``: where the next statement reads on from, which may be a row the page
    did not show (its read-ahead ran out on rows left out: a held-back branch, a row not vouched
    for), sealed (AES-GCM) so that it tells nothing of that row: neither its id nor when it was
    made. Bound to the query's filters: it goes on from there in this search only."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    nonce = os.urandom(_NONCE)
    sealed = AESGCM(_cursor_key(store)).encrypt(nonce, json.dumps([created, stream]).encode(), _bound(query))
    return base64.urlsafe_b64encode(nonce + sealed).decode().rstrip("=")


def _opened(store: Any, query: Query) -> tuple[int, str] | None:
    """Where ``query``'s cursor goes on from, or SearchError: a cursor altered, made by another
    service (another organiser key) or for another search is refused, never read."""
    value = query.cursor
    if value is None:
        return query.after
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    try:
        raw = base64.urlsafe_b64decode(value.encode() + b"=" * (-len(value) % 4))
        created, stream = json.loads(AESGCM(_cursor_key(store)).decrypt(raw[:_NONCE], raw[_NONCE:], _bound(query)))
        if isinstance(created, int) and isinstance(stream, str):
            return created, stream
    except (ValueError, TypeError, InvalidTag):
        pass
    raise SearchError("cursor", say("cursor is the 'next' of a previous answer to this same search, unchanged"))


def _cursor_key(store: Any) -> bytes:
    held_key(store)
    return store.index_key().mac(_CURSOR_LABEL)


def _bound(query: Query) -> bytes:
    return json.dumps([getattr(query, name) for name in _BOUND]).encode()


def resolve_card(text: str, names: Any) -> tuple[int, ...]:
    """The passcodes a card parameter means: a passcode as given; else the cards whose name
    (in any language the card databases hold, or installed names do: ``card_names``; case and
    accents ignored, Chinese in either script) is exactly it, else those whose name starts with
    it, else those holding it; with their alternate artworks."""
    text = text.strip()
    if re.fullmatch(r"\d{1,10}", text):
        return (int(text),)
    if not normal_name(text):
        raise SearchError("card", say("card is a card's name or passcode"))
    wanted = typed_forms(text, normal_name)
    rows = _names(names)
    aliases = {code: alias for code, alias, _ in rows}
    rows += [(code, aliases.get(code, 0), folded) for code, folded in installed_names(normal_name)]
    for rank in (lambda folded: folded in wanted, lambda folded: any(map(folded.startswith, wanted)),
                 lambda folded: any(form in folded for form in wanted)):
        cards = {alias or code for code, alias, folded in rows if rank(folded)}
        if cards:
            break
    else:
        raise SearchError("card", say("no card is named {text!r} (give its passcode, or a part of its name)",
                                      text=text[:60]))
    if len(cards) > MAX_CODES:
        raise SearchError("card", say("{count} cards match {text!r}: give more of the name",
                                      count=len(cards), text=text[:60]))
    return tuple(sorted({code for code, alias, _ in rows if (alias or code) in cards} | cards))


def _names(names: Any) -> list[tuple[int, int, str]]:
    """(passcode, alias, name as compared) of every card ``names`` knows, in every source."""
    layers = getattr(names, "layers", [names])
    out = []
    for layer in layers:
        listed = layer.names() if hasattr(layer, "names") else [
            (f.code, f.alias, f.name, None) for f in layer.values()]
        out += [(code, alias or 0, folded or normal_name(name)) for code, alias, name, folded in listed]
    return out


def released(store: Any, duel_id: str, now: float | None = None) -> bool:
    """Whether what a stored duel hid is released to every reader: it has ended and its release
    settings say so (``Access.releases``; a match's duel with none of its own follows its
    match's, and is released no sooner than the match ends), and, for a branch, its parent's
    too (a branch holds its parent's hidden cards and deck orders: a judge's what-if line
    played to its end releases nothing while the duel it branched from goes on)."""
    info = store.info(duel_id)
    if not info.status.get("ended"):
        return False
    settings = Access.from_dict(store.attachment(duel_id, "access") or {"visibility": "private"})
    match = store.match_of(duel_id)
    ended = True
    if match is not None and settings.release is None and settings.event is None:
        # the match's policy, counted from the match's end: a game's hidden cards are the
        # player's deck for the games still to come
        settings = Access.from_dict(store.attachment(match, "access") or {"visibility": "private"})
        ended = bool(store.info(match).status.get("ended"))
    if not settings.releases(ended, match is not None, now):
        return False
    return info.parent is None or released(store, info.parent, now)


def branch_cut(branch_at: int, parent_released: bool, parent_shows: int) -> int | None:
    """How many of a branch's events a view other than the judge's may see (None: every one):
    while its parent has not released what it hid (``released``), where it left, as far as the
    parent shows that view. A branch is the judge's what-if from a board whose hidden cards are
    the parent's: its own events play them ("what if Kaiba had equipped the Axe in his hand"),
    and shown to the players or spectators of a duel that still hides them they would tell what
    it hides (ZONE-12, ZONE-13). The one rule of the service's views (``LiveDuel.branch_cut``),
    a search's row (``_branch_cut``) and an export (``Records.export``)."""
    return None if parent_released else min(branch_at, parent_shows)


# -- queries --------------------------------------------------------------------------------------

_EVENTS = "coalesce((SELECT max(h.originator_version) FROM {heads} h WHERE h.originator_id = s.id || '/head'), 0)"
_CUT = ("CASE WHEN s.ended = 1 OR (s.delay_events = 0 AND s.delay_ms = 0) THEN s.events "
        "ELSE coalesce((SELECT max(m.position) + 1 FROM {marks} m WHERE m.stream = s.id "
        "AND m.position < s.events - s.delay_events AND m.at <= ? - s.delay_ms), 0) END")
#: A stream's row as stored, and its match's settings (``m_``): what ``Index.vouched`` checks.
_COLUMNS = ("s.id, s.kind, s.title, s.created, s.created_ms, s.parent, s.p0, s.p1, s.p0_key, s.p1_key, "
            "s.event, s.meta_event, s.round, s.format, s.banlist, s.meta_mac, s.imported, s.signed, s.verified, "
            "s.witnessed, s.visibility, s.match, s.turn, s.ended, s.winner, s.reason, s.first_flag, s.flag_mac, "
            "s.first_rollback, s.rollback_mac, m.event AS m_event, m.meta_event AS m_meta_event, "
            "m.round AS m_round, m.format AS m_format, m.banlist AS m_banlist, m.meta_mac AS m_meta_mac, m.id AS m_id")
#: The attachments a stream's row is checked against, as the service reads them: its access, its
#: match link, its match's access (each its latest row, one index lookup).
_ATTACHED = " ".join(
    f"(SELECT a.state FROM {{heads}} a WHERE a.originator_id = p.{column} || '/{name}' "
    f"ORDER BY a.originator_version DESC LIMIT 1) AS {alias}{comma}"
    for column, name, alias, comma in (("id", "access", "access_state", ","), ("id", "match_game", "link_state", ","),
                                       ("match", "access", "m_access_state", "")))
#: The mark a delayed stream's cut is at (``search``): checked under its tag.
_MARK = ("CASE WHEN t.ended = 1 OR (t.delay_events = 0 AND t.delay_ms = 0) THEN NULL ELSE (SELECT mk.{column} FROM {{marks}} mk "
         "WHERE mk.stream = t.id AND mk.position = t.cut - 1) END AS mark_{column}")
_MARKS = ", ".join(_MARK.format(column=column) for column in ("at", "turn", "mac"))
#: What a duel's match says of a setting, in what a search finds a duel by: nothing of a match
#: that is not public (``_shown`` decides on its access attachment, as the service does).
_PUBLIC_MATCH = "CASE WHEN m.visibility = 'public' THEN m.{name} END"
#: The settings a stream's row shows, its own or else its (public) match's.
_SETTINGS = ("event", "round", "format", "banlist")
#: A branch shows once no ancestor is delayed and running: not only its parent (a branch of an
#: undelayed branch of a delayed duel holds that duel's events past its delay, as ``LiveDuel``'s
#: ``hidden_by_parent`` asks its parent, which asks its own).
_VISIBLE_PARENT = ("(s.parent IS NULL OR NOT EXISTS (WITH RECURSIVE up(id) AS (SELECT s.parent UNION "
                   "SELECT p.parent FROM {streams} p JOIN up ON p.id = up.id) SELECT 1 FROM up "
                   "JOIN {streams} a ON a.id = up.id WHERE a.ended = 0 AND (a.delay_events > 0 OR a.delay_ms > 0)))")


#: What a player's record and a card's numbers count: the duels played, not a judge's what-if
#: branches (a branch keeps its parent's first events, counted again, and ends as the judge played
#: it: Yugi's surrender in a what-if is no win of Kaiba's). A search still lists them.
_PLAYED = "t.parent IS NULL"


#: A card event a reader sees: before the cut, and not reverted by a rollback before it.
_SHOWN = ("c.position < t.cut AND NOT EXISTS (SELECT 1 FROM {rollbacks} r WHERE r.stream = c.stream "
          "AND r.position < t.cut AND c.position >= r.back_to AND c.position < r.position)")


def _visible(index: Index, query: Query, now_ms: int, rare: bool = False) -> tuple[str, list[Any]]:
    """The public streams matching ``query``, each with ``cut`` (what its delay releases): a
    subquery ``t``, and its parameters. ``rare``: the card is in few duels, so those are read
    first (else the newest streams are read in order, each looked up in the card index)."""
    like = "LIKE" if index.backend == "sqlite" else "ILIKE"
    where = ["s.visibility = 'public'", _VISIBLE_PARENT]
    params: list[Any] = [now_ms]
    if query.kind != "any":
        where.append("s.kind = ?")
        params.append(query.kind)
    if query.player:
        where.append("(s.p0_key = ? OR s.p1_key = ?)")
        params += [normal_name(query.player)] * 2
    for name in ("title", "event", "round", "format", "banlist"):
        value = getattr(query, name)
        if value:
            # a match's settings find a duel only when the match is public (``_shown`` checks it again)
            column = "s.title" if name == "title" else f"coalesce(s.{name}, {_PUBLIC_MATCH.format(name=name)})"
            where.append(f"{column} {like} ? ESCAPE '\\'")
            params.append("%" + re.sub(r"([\\%_])", r"\\\1", value) + "%")
    if query.q:
        words = re.findall(r"\w+", query.q)
        if index.backend == "sqlite" and words:
            where.append("s.rowid IN (SELECT rowid FROM library_text WHERE library_text MATCH ?)")
            params.append(" ".join(f'"{word}"*' for word in words))
        for word in words if index.backend != "sqlite" else ():
            where.append("s.body LIKE ? ESCAPE '\\'")       # a word's "_" is a letter, no wildcard
            params.append("%" + re.sub(r"([\\%_])", r"\\\1", word.lower()) + "%")
    if query.since is not None:
        where.append("s.created_ms >= ?")
        params.append(query.since)
    if query.until is not None:
        where.append("s.created_ms < ?")
        params.append(query.until)
    if query.source == "imported":
        where.append("s.imported = 1")
    elif query.source is not None:
        table = "(s.witnessed = 1 OR coalesce(m.visibility, '') = 'public')"
        where.append(f"s.imported = 0 AND {'' if query.source == 'table' else 'NOT '}{table}")
    if query.codes is not None and rare:
        where.append(f"s.id IN (SELECT stream FROM {{cards}} WHERE {_card_filter(query, params, '')})")
    if query.after is not None:
        where.append("(s.created_ms < ? OR (s.created_ms = ? AND s.id < ?))")
        params += [query.after[0], query.after[0], query.after[1]]
    # the stream's length (its last anchor's count) first, then where its delay cuts it
    sql = (f"SELECT s.*, {_CUT} AS cut FROM (SELECT {_COLUMNS}, s.delay_events, s.delay_ms, {_EVENTS} AS events "
           f"FROM {{streams}} s LEFT JOIN {{streams}} m ON m.id = s.match WHERE {' AND '.join(where)}) s")
    return sql, params


def _shown_card(query: Query, params: list[Any]) -> str:
    """A subquery: a card event of ``query`` in the stream ``t`` that its delay shows and no
    rollback reverted (by the index's rows: the answer checks them again, ``_card_events``)."""
    return "SELECT 1 FROM {cards} c WHERE " + _card_filter(query, params, "c.") + f" AND c.stream = t.id AND {_SHOWN}"


def _card_filter(query: Query, params: list[Any], alias: str) -> str:
    assert query.codes is not None
    terms = [f"{alias}code IN ({', '.join('?' * len(query.codes))})"]
    params += list(query.codes)
    actions = (query.action,) if query.action else ACTIONS       # each a range of the card index
    terms.append(f"{alias}action IN ({', '.join('?' * len(actions))})")
    params += actions
    if query.turn_max is not None:
        terms.append(f"{alias}turn <= ?")
        params.append(query.turn_max)
    return " AND ".join(terms)


#: How many statements a page reads at most, each twice the rows of the one before (the first
#: its size and one): a page comes out full unless its rows left out (``_batch``) outnumber
#: ~15 times its size, and then its ``next`` goes on past what it read.
_BATCHES = 4


def search(store: Any, query: Query, now: float | None = None) -> dict:
    """The public duels and matches ``query`` finds, newest first, a page at a time:
    ``{"results": [...], "next": cursor or None}`` (the contract the README gives). A page holds
    ``limit`` rows while more exist: the rows the statement found and the checks after it left
    out (``_batch``) are read past, by statements further on from the last row read (a short
    page only past ``_BATCHES`` of them, its ``next`` then past the last row read), and ``next``
    follows the page's last row; sealed (``_seal``): it may stand at a row the page left out.
    A cursor that does not open is SearchError."""
    after, size = _opened(store, query), query.limit + 1
    rare = query.codes is not None and _rare(store, query)
    now_ms = _now_ms(now)
    results: list[Any] = []
    unvouched = pending = 0          # rows left out before the page's last row, and after it
    for _ in range(_BATCHES):
        rows, shown, left_out = _batch(store, replace(query, after=after), rare, now_ms, size)
        for row in rows:
            if row["id"] in shown:
                if len(results) == query.limit:         # one more to show: the next page starts here
                    return _page(results, unvouched, _seal(store, query, results[-1]["created_ms"], results[-1]["id"]))
                results.append(row)
                unvouched, pending = unvouched + pending, 0
            elif row["id"] in left_out:
                pending += 1
            after = (row["created_ms"], row["id"])
        if len(rows) < size:                            # none left
            return _page(results, unvouched + pending, None)
        size *= 2
    assert after is not None                            # rows were read: full batches of them
    return _page(results, unvouched + pending, _seal(store, query, *after))


def _page(rows: list[Any], unvouched: int, cursor: str | None) -> dict:
    # a page holds only what the list of duels would name (``Store.listed``: not an altered
    # stream, nor a branch of one) from index rows that are what its anchors vouch for and its
    # tags hold (``Index.vouched``, ``Index.genuine``); it says how many it left out
    answer = {"results": [_result(row) for row in rows], "next": cursor}
    if unvouched:
        answer["unvouched"] = unvouched
    return answer


def _batch(store: Any, query: Query, rare: bool, now_ms: int, size: int) -> tuple[list[Any], dict[str, Any], set[str]]:
    """The first ``size`` rows the statement finds for ``query`` (newest first, past its
    ``after``), those of them the page may show (by id), and those left out as not vouched for:
    the rest of the rows are a branch whose result its cut does not show (``_branch_cut``)."""
    index: Index = store.library
    inner, params = _visible(index, query, now_ms, rare)
    where = ["(t.cut > 0 OR t.events = 0)"]
    if query.result is not None:
        where.append(_result_filter(query.result, params))
    if query.codes is not None:
        # A common card: a scalar subquery per duel, which PostgreSQL never turns into a join, so
        # the newest duels are read in order until the page is full. As an EXISTS, a card it
        # thought rarer than it is had every public duel read and sorted (4 s at 1,000,000 duels).
        shown = _shown_card(query, params)
        where.append(f"EXISTS ({shown})" if rare else f"({shown} LIMIT 1) = 1")
    params.append(size)
    sql = (f"SELECT t.*, {_MARKS} FROM ({inner}) t "
           f"WHERE {' AND '.join(where)} ORDER BY t.created_ms DESC, t.id DESC LIMIT ?")
    rows, shown, left_out = _listed_rows(store, index.sql(sql), params, "ORDER BY p.created_ms DESC, p.id DESC",
                                         now_ms=now_ms)
    if query.codes is not None:
        cards = _card_events(store, query, [row for row in rows if row["id"] in shown])
        left_out |= {row["id"] for row in rows if row["id"] in shown and row["id"] not in cards}
        shown = {stream: row for stream, row in shown.items() if stream in cards}
    hidden = {stream for stream, row in shown.items() if not _found_by_shown(query, row)}
    left_out |= hidden
    # a branch's result as its cut shows it (``_branch_cut``): the statement found every branch
    shown = {stream: row for stream, row in shown.items() if stream not in hidden
             and (query.result is None or _result_holds(query.result, row))}
    if query.q:             # found by the words' own table (SQLite's FTS5), or a column of them
        worded = {stream for stream, row in shown.items() if not _has_words(index, row, query.q)}
        left_out |= worded
        shown = {stream: row for stream, row in shown.items() if stream not in worded}
    return rows, shown, left_out


RARE = 900                       # at 100,000 streams; times the square root of how many times more
SCALE = 100_000


def _rare(store: Any, query: Query) -> bool:
    """Whether few card events match the card, action and turn asked for (counted up to a limit
    on the card index): then their duels are read first, else the newest duels one by one, each
    looked up in the card index. Reading a card's duels first costs what it has card events;
    reading the newest costs what the page needs, the library's size over theirs: the two meet
    at the square root of the library's size (``RARE`` at ``SCALE`` streams), which is the limit."""
    index: Index = store.library
    if index.backend == "postgresql":       # the planner's estimate: no count of every row
        size = f"(SELECT reltuples FROM pg_class WHERE oid = to_regclass('{index.streams}'))"
    else:                                   # its rowid: the streams ever written
        size = "(SELECT max(rowid) FROM {streams})"
    streams = _fetch(store, index.sql(f"SELECT {size} AS n"), [])[0]["n"] or 0
    limit = int(RARE * max(1.0, float(streams) / SCALE) ** 0.5)
    params: list[Any] = []
    sql = index.sql(f"SELECT count(*) AS n FROM (SELECT 1 FROM {{cards}} WHERE {_card_filter(query, params, '')} "
                    f"LIMIT {limit}) x")
    return _fetch(store, sql, params)[0]["n"] < limit


def _result_filter(result: str, params: list[Any]) -> str:
    """The statement's filter by result: a branch always passes it (its cut is decided after,
    ``_branch_cut``, and the result checked on it, ``_result_holds``)."""
    return f"(t.parent IS NOT NULL OR {_result_sql(result, params)})"


def _result_sql(result: str, params: list[Any]) -> str:
    shown = "t.cut = t.events AND t.ended = 1"
    if result == "ongoing":
        return "(t.ended = 0 OR t.cut < t.events)"
    if result == "draw":
        return f"({shown} AND t.winner IS NULL)"
    if result in ("p0", "p1"):
        return f"({shown} AND t.winner = {int(result[1])})"
    params += [normal_name(result)] * 2
    return f"({shown} AND ((t.winner = 0 AND t.p0_key = ?) OR (t.winner = 1 AND t.p1_key = ?)))"


def _result_holds(result: str, row: Mapping[str, Any]) -> bool:
    """``_result_sql`` on a row as the search shows it (its ``cut`` a branch's, ``_branch_cut``)."""
    whole = row["cut"] == row["events"] and bool(row["ended"])
    if result == "ongoing":
        return not whole
    if not whole:
        return False
    if result == "draw":
        return row["winner"] is None
    if result in ("p0", "p1"):
        return row["winner"] == int(result[1])
    name = normal_name(result)
    return row["winner"] == 0 and row["p0_key"] == name or row["winner"] == 1 and row["p1_key"] == name


def _has_words(index: Index, row: Mapping[str, Any], q: str) -> bool:
    """Whether a stream's row (checked: ``Index.vouched``) has the words of ``q`` as the search's
    statement matched them: SQLite, each word the start of a word of its text (FTS5's ``"word"*``,
    case and accents folded, a word's parts in a row); PostgreSQL, each inside its text. The
    statement matched them in a table or column of their own, which a writer to the database
    may have written to."""
    text = " ".join(str(row[name] or "") for name in ("title", "p0", "p1", "event", "round"))
    words = re.findall(r"\w+", q)
    if index.backend != "sqlite":
        return all(word.lower() in text.lower() for word in words)
    tokens = re.findall(r"[^\W_]+", _folded(text))
    for word in words:
        parts = re.findall(r"[^\W_]+", _folded(word))
        if parts and not any(tokens[at:at + len(parts) - 1] == parts[:-1]
                             and tokens[at + len(parts) - 1].startswith(parts[-1])
                             for at in range(len(tokens) - len(parts) + 1)):
            return False
    return True


def _folded(text: str) -> str:
    """Text as SQLite's ``unicode61 remove_diacritics 2`` tokenizer compares it: no accents, lower case."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).lower()


#: Streams named in one statement of ``_card_events``: SQLite takes at most 32,766 parameters and
#: PostgreSQL 65,535, and a popular card's numbers read tens of thousands of duels.
_AMONG = 500


def _card_events(store: Any, query: Query, rows: list[Mapping[str, Any]]) -> dict[str, list[tuple[str, int]]]:
    """Of these streams (each row checked, ``_shown``, with its ``cut``), the card events of the
    query each shows, ``(action, side)`` by stream (a stream with none left out): read again
    with their tags and checked (``genuine``), as are the rollbacks that may revert them. The
    one place a card row is read for an answer (a search's page, a card's numbers): the
    statements found them by rows anyone may have written."""
    if not rows:
        return {}
    index: Index = store.library
    params: list[Any] = []
    where = _card_filter(query, params, "")
    streams = [row["id"] for row in rows]
    cards, rollbacks = [], []
    with _reading(store) as cursor:
        for start in range(0, len(streams), _AMONG):          # a card's numbers read every duel of it
            part = streams[start:start + _AMONG]
            among = ", ".join("?" * len(part))
            cursor.execute(index.sql(f"SELECT code, action, turn, stream, position, side, mac FROM {{cards}} "
                                     f"WHERE {where} AND stream IN ({among})"), [*params, *part])
            cards += cursor.fetchall()
            cursor.execute(index.sql(f"SELECT stream, position, back_to, mac FROM {{rollbacks}} "
                                     f"WHERE stream IN ({among})"), part)
            rollbacks += cursor.fetchall()
    cut = {row["id"]: row["cut"] for row in rows}
    back: dict[str, list[tuple[int, int]]] = {}
    for r in rollbacks:
        if r["position"] < cut[r["stream"]] and index.genuine(r["mac"], "rollbacks", r["stream"], r["position"],
                                                               r["back_to"]):
            back.setdefault(r["stream"], []).append((r["position"], r["back_to"]))
    found: dict[str, list[tuple[str, int]]] = {}
    for c in cards:
        stream, position = c["stream"], c["position"]
        if (position < cut[stream] and not any(to <= position < at for at, to in back.get(stream, ()))
                and index.genuine(c["mac"], "cards", c["code"], c["action"], c["turn"], stream, position, c["side"])):
            found.setdefault(stream, []).append((c["action"], c["side"]))
    return found


def _result(row: Mapping[str, Any]) -> dict:
    cut, events = row["cut"], row["events"]
    whole = cut == events
    badges = [name for name, on in (
        ("imported", row["imported"]), ("table", not row["imported"] and (row["witnessed"] or row["shows_match"])),
        ("witnessed", row["witnessed"]), ("flagged", row["first_flag"] is not None and row["first_flag"] < cut),
        ("signed", row["signed"]), ("verified-origin", row["verified"]),
        ("rollback", row["first_rollback"] is not None and row["first_rollback"] < cut)) if on]
    match = row["kind"] == "match"
    settings = _settings(row)
    return {"kind": row["kind"], "id": row["id"], "title": row["title"], "players": [row["p0"], row["p1"]],
            **settings, "created": row["created"],
            "result": {"winner": row["winner"], "reason": row["reason"] or ""} if whole and row["ended"] else None,
            "events": cut, "turns": (row["turn"] if whole else row["mark_turn"]) or 0, "badges": badges,
            "url": f"/match/{row['id']}" if match else f"/view/{row['id']}"}


def _settings(row: Mapping[str, Any]) -> dict[str, Any]:
    """A stream's event, round, format and banlist as a search shows them: its own, else its
    match's when a reader of the search may know of the match (``_shown``: a public one)."""
    return {name: row[name] if row[name] is not None else row[f"m_{name}"] if row["shows_match"] else None
            for name in _SETTINGS}


def _found_by_shown(query: Query, row: Mapping[str, Any]) -> bool:
    """Whether the settings and source ``query`` filters by hold on what the row shows
    (``_settings``): a duel is never found by what it does not show of its match (the
    statement asked the match's index row, which a writer to the database may alter)."""
    shown = _settings(row)
    for name in _SETTINGS:
        value = getattr(query, name)
        if value and value.casefold() not in str(shown[name] or "").casefold():
            return False
    if query.source in ("table", "api"):
        table = bool(row["witnessed"] or row["shows_match"])
        return not row["imported"] and table == (query.source == "table")
    return True


def card_stats(store: Any, code: int, names: Any = None, now: float | None = None,
               cache: Cache | None = None) -> dict:
    """How often anyone may know a card was activated or summoned, in how many public duels, and
    how the duels ended for the player who used it (activated or summoned it). Counted per duel
    from the rows a search reads and checks the same way: each duel's row (``_listed_rows``:
    ``Store.listed`` and ``Index.vouched``, its delay's mark) and each card event and rollback
    (``_card_events``: ``Index.genuine``). An altered duel, a branch of one, or a row a writer
    to the database forged counts nothing; the answer says how many duels it left out. A
    judge's what-if branch counts nothing either (``_PLAYED``).

    ``cache`` (the service's): the answer is kept by what it was read from, ``_stats_key``, so
    anyone asking again reads one short statement, not every public duel of the card; a commit
    (a duel that lands, a visibility changed, a row altered) or a delay releasing more makes a
    new key, never a kept answer that shows what it should not."""
    now_ms = _now_ms(now)
    if cache is not None:
        return cache.get(_stats_key(store, code, now_ms),
                         lambda: card_stats(store, code, names, now_ms / 1000), lambda _answer: 512)
    index: Index = store.library
    query = Query(kind="duel", codes=(code,))
    inner, params = _visible(index, query, now_ms, rare=True)
    sql = (f"SELECT t.*, {_MARKS} FROM ({inner}) t WHERE t.cut > 0 AND {_PLAYED} "
           f"AND EXISTS ({_shown_card(query, params)})")
    _rows, shown, left_out = _listed_rows(store, index.sql(sql), params, now_ms=now_ms)
    counted = []
    for stream, events in _card_events(store, query, list(shown.values())).items():
        row = shown[stream]
        used = {side for action, side in events if action in ("activated", "summoned")}
        winner = row["winner"] if row["ended"] and row["cut"] == row["events"] else None
        counted.append((sum(action == "activated" for action, _side in events),
                        sum(action == "summoned" for action, _side in events),
                        winner is not None and winner in used, winner is not None and bool(used - {winner})))
    facts = names.get(code) if names is not None else None
    answer = {"code": code, "name": facts.name if facts is not None else None, "duels": len(counted),
              "activated": sum(1 for row in counted if row[0]), "summoned": sum(1 for row in counted if row[1]),
              **{key: sum(int(row[at]) for row in counted)
                 for at, key in ((2, "won_by_user"), (3, "lost_by_user"), (0, "activations"), (1, "summons"))}}
    if left_out:
        answer["unvouched"] = len(left_out)
    return answer


def _stats_key(store: Any, code: int, now_ms: int) -> tuple[Any, ...]:
    """What a card's numbers at ``now_ms`` are read from (kept in the cache of its store's hub): the
    mark of what is committed to its database (``Store.committed``) and when the next delayed
    running public duel of the card releases more (no answer changes between two releases). Read before the numbers: a commit
    after it makes a mark never read again, so nothing is kept under a mark it was not read at."""
    releases = ("SELECT min(m.at + s.delay_ms) AS due FROM {streams} s JOIN {marks} m ON m.stream = s.id "
                "WHERE s.id IN (SELECT c.stream FROM {cards} c WHERE c.code = ?) AND s.visibility = 'public' "
                "AND s.ended = 0 AND s.parent IS NULL AND s.delay_ms > 0 AND m.at > ? - s.delay_ms")
    with _reading(store) as cursor:
        mark = store.committed(cursor)
        cursor.execute(store.library.sql(releases), [code, now_ms])
        row = cursor.fetchone()
    due = row["due"] if isinstance(row, dict) else row[0]
    return ("card_stats", code, mark, due)


def player(store: Any, name: str, limit: int = MAX_LIMIT, cursor: str | None = None,
           now: float | None = None) -> dict:
    """A player's public duels (newest first, a page) and how the ones anyone may see ended (of
    the duels played: ``_PLAYED``)."""
    if not name.strip() or len(name) > 200 or "\x00" in name:
        raise SearchError("name", say("a player's name is 1..200 characters, no NUL"))
    index: Index = store.library
    page = search(store, Query(player=name, kind="duel", limit=limit, cursor=cursor), now)
    inner, params = _visible(index, Query(player=name, kind="duel"), _now_ms(now))
    params = [normal_name(name)] * 2 + params      # the outcome's come first in the statement
    # each ended duel anyone may see whole, and whether the player won it: counted once the
    # store says a list may name it (``Store.listed``), as the page's duels are
    sql = (f"SELECT t.*, CASE WHEN t.winner IS NULL THEN 'drawn' WHEN (t.winner = 0 AND t.p0_key = ?) OR "
           f"(t.winner = 1 AND t.p1_key = ?) THEN 'won' ELSE 'lost' END AS outcome FROM ({inner}) t "
           f"WHERE t.ended = 1 AND t.cut = t.events AND {_PLAYED}")
    _rows, shown, left_out = _listed_rows(store, index.sql(sql), params)
    counted = {outcome: 0 for outcome in ("won", "lost", "drawn")}
    for row in shown.values():
        counted[row["outcome"]] += 1
    answer = {"name": name, "duels": page["results"], "next": page["next"], **counted}
    # the duels left out of the page or of the record (a duel of both, once)
    unvouched = max(len(left_out), page.get("unvouched", 0))
    if unvouched:
        answer["unvouched"] = unvouched
    return answer


def _now_ms(now: float | None) -> int:
    return int((time.time() if now is None else now) * 1000)


def _fetch(store: Any, sql: str, params: list[Any]) -> list[Any]:
    with _reading(store) as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _listed_rows(store: Any, sql: str, params: list[Any], order: str = "",
                 now_ms: int | None = None) -> tuple[list[Any], Any, set[str]]:
    """The rows of ``sql`` (each a stream's ``_COLUMNS`` with its ``cut``, ``events``, delay and
    delay mark), of their streams the rows that are what the store vouches for (``_shown``), by
    id, and the streams ``Store.listed`` names that these rows left out.

    The rows the store decides a stream on (``Store.listed_columns``) are read in the same
    statement (a statement more for each 120 streams read them again), unless the store has
    decided streams at the ``Store.committed`` mark read first: nothing was committed since (no
    row altered either), so those decisions stand and the statement reads no more than ``sql``.
    ``now_ms``: the time a delayed stream's cut was read at (its mark is checked against it)."""
    with _reading(store) as cursor:
        mark = store.committed(cursor)
        decided = store.decided(mark)
        columns = [store.library.sql(_ATTACHED)]
        if not decided:
            columns.append(store.listed_columns("p.id", "p.events"))
        cursor.execute(f"SELECT p.*, {', '.join(columns)} FROM ({sql}) p {order}", params)
        rows = _mappings(cursor.fetchall())
    ids = [row["id"] for row in rows]
    given = None if decided else {
        row["id"]: (row["listed_header"], row["listed_version"], row["listed_anchor"]) for row in rows}
    listed = store.listed(ids, given, mark, ancestors=True)
    shown = _shown(store, [row for row in rows if row["id"] in listed], listed, now_ms)
    return rows, shown, {stream for stream in ids if stream in listed and stream not in shown}


def _mappings(rows: list[Any]) -> list[Any]:
    """Rows as dicts (PostgreSQL's are already): a SQLite row finds a column by its name anew
    each time, comparing it with each name before it, and a row a search checks is read by
    ~40 of them (a third of a card's numbers' CPU)."""
    if not rows or isinstance(rows[0], dict):
        return rows
    names = rows[0].keys()
    return [dict(zip(names, row)) for row in rows]


def _shown(store: Any, rows: list[Any], listed: Mapping[str, Any], now_ms: int | None) -> dict[str, Any]:
    """Of these rows (streams ``listed`` names, with what their anchors vouch for, and their
    ancestors), those the
    search may show, by id: each stream's row is the one the index writes of what is vouched
    (``Index.vouched``), its match's settings too; a delayed running stream's cut is at a mark
    whose tag holds and that its delay releases at ``now_ms``; and no ancestor of a branch is
    delayed and running by what is vouched of it (the statement asked the ancestors' rows)."""
    index: Index = store.library
    shown = {}
    for row in rows:
        vouched = listed[row["id"]]
        try:
            access, link = row_state(row["access_state"], f"{row['id']}/access"), \
                row_state(row["link_state"], f"{row['id']}/match_game")
            match_access = row_state(row["m_access_state"], f"{row['match']}/access")
        except AlteredRow:                    # a row written to in the database: left out, as any altered
            continue
        if not index.vouched(row, vouched, access, link):
            continue
        match = access_columns(match_access) if row["m_id"] is not None else None
        if match is not None and not index.settings_vouched(row["match"], row, match["release"], "m_"):
            continue
        # A duel names its match (its settings, the table badge) only when a search's reader (anyone)
        # may know of it: a public duel may be a duel of a private or unlisted match (``access.linkable_into``).
        # Decided on the match's access attachment, as the service decides who reads the match; nothing
        # signed changes (the duel's row holds none of its match: they are the match's own, under its tag).
        row["shows_match"] = match is not None and match["visibility"] == "public"
        if not row["ended"] and (row["delay_events"] or row["delay_ms"]) and row["cut"] > 0 and not (
                now_ms is not None and row["cut"] - 1 < row["events"] - row["delay_events"]
                and row["mark_at"] is not None and row["mark_at"] <= now_ms - row["delay_ms"]
                and index.genuine(row["mark_mac"], "marks", row["id"], row["cut"] - 1, row["mark_at"],
                                  row["mark_turn"])):
            continue
        shown[row["id"]] = row
    parents = {row["id"]: row["parent"] for row in shown.values() if row["parent"]}
    held = _held_back(store, set(parents.values()), listed)
    shown = {stream: row for stream, row in shown.items() if parents.get(stream) not in held}
    hides: dict[str, bool] = {}                 # a parent's release read once a search, however many its branches
    for stream, row in shown.items():
        if row["parent"]:
            _branch_cut(store, row, listed[stream].header.branch_at or 0, now_ms, hides)
    return shown


def _branch_cut(store: Any, row: dict[str, Any], branch_at: int, now_ms: int | None,
                hides: dict[str, bool] | None = None) -> None:
    """A branch's row cut where it left while its parent has not released what it hid (``released``),
    as ``LiveDuel.branch_cut`` cuts every view but the judge's and the list of duels shows it: its own
    events are the judge's what-if, its length, last turn and result too. Decided on what its signed
    anchors vouch for (``branch_at``) and its ancestors' status and settings, as the service decides
    it: nothing the index signs changes."""
    hidden = None if hides is None else hides.get(row["parent"])
    if hidden is None:
        try:
            hidden = not released(store, row["parent"], None if now_ms is None else now_ms / 1000)
        except (StoreError, VerificationError):      # a parent not there, or altered: nothing of it
            hidden = True
        if hides is not None:
            hides[row["parent"]] = hidden
    cut = branch_cut(branch_at, not hidden, branch_at)      # its parent neither delayed nor running
    if cut is not None and cut < row["cut"]:
        row["cut"], row["mark_turn"] = cut, _turn_at(store, row["id"], cut)


def _turn_at(store: Any, stream: str, position: int) -> int | None:
    """The turn after a branch's first ``position`` events (its parent's, copied), as its signed
    record shows it: the row knows only its last turn, and a branch cut where it left showed
    ``turns: 0`` (its cut on turn 4). None when the record cannot be read so far."""
    try:
        return int(store.state_at(stream, position).turn)
    except (StoreError, VerificationError):
        return None


def _held_back(store: Any, streams: set[str], listed: Mapping[str, Any]) -> set[str]:
    """Of these streams (parents of branches a search found), those that hold their branches
    back, by what is vouched of them and of their own ancestors (``listed``: the store's
    decisions the search made, ancestors too, not made again): delayed (their access) and
    running (their last anchor's status), or not listed at all. The running ones' access rows
    are read ``_AMONG`` streams a statement (named all in one, past 32,766 SQLite refused it)."""
    family: dict[str, str | None] = {}              # each stream, and its parent
    waiting = set(streams)
    while waiting:
        for stream in waiting:
            vouched = listed.get(stream)
            family[stream] = vouched.header.parent if vouched is not None else None
        waiting = {parent for parent in family.values() if parent and parent not in family}
    running = sorted(stream for stream in family
                     if (vouched := listed.get(stream)) is not None and not vouched.status.get("ended"))
    access: dict[str, Any] = {}
    unread: set[str] = set()
    with _reading(store) if running else nullcontext() as cursor:
        for start in range(0, len(running), _AMONG):
            keys = [f"{stream}/access" for stream in running[start:start + _AMONG]]
            cursor.execute(store.library.sql(
                f"SELECT originator_id AS id, state FROM {{heads}} WHERE originator_id IN ({', '.join('?' * len(keys))}) "
                "ORDER BY originator_version"), keys)
            for row in cursor.fetchall():
                try:
                    access[row["id"].rpartition("/")[0]] = row_state(row["state"], row["id"])
                except AlteredRow:            # its delay cannot be read: held back, as one not vouched for
                    access.pop(row["id"].rpartition("/")[0], None)
                    unread.add(row["id"].rpartition("/")[0])
    held = {stream for stream in family if stream not in listed} | unread
    for stream in running:
        settings = access_columns(access.get(stream))
        if settings["delay_events"] or settings["delay_ms"]:
            held.add(stream)
    changed = True
    while changed:                                  # a stream whose ancestor holds it back is held back too
        changed = False
        for stream, parent in family.items():
            if stream not in held and parent in held:
                held.add(stream)
                changed = True
    return held


@contextmanager
def _reading(store: Any) -> Iterator[Any]:
    """A cursor in a read's transaction on the library index (built first if it is missing)."""
    index = _ready(store)
    if not index.keyed:                         # once a Store: the key its rows are checked with
        _keyed(store, index)
    with store.events.datastore.transaction(commit=False) as cursor:
        if index.backend == "postgresql":       # its compiling would cost more than the query: the
            cursor.execute("SET LOCAL jit = off")   # planner's cost counts the subqueries of every row
        yield cursor


def check_index(store: Any, folds: Mapping[str, Any]) -> dict[str, list[str]]:
    """``library.check`` (``search --check``) of the store's index once it is there, at this
    version, in tables as the index makes them (``_ready``), as a search reads it: an index of
    an older version lacks columns the check reads (a traceback), and a store file's table that
    computes its rows was read by the check unrefused."""
    return check(store, _ready(store), folds)


def _ready(store: Any) -> Index:
    """The store's library index, refused (StoreError) unless it is built at this version in
    tables as the index makes them."""
    index: Index = store.library
    if not index.ready:
        if index.backend == "sqlite":           # (a store written to had them checked when opened)
            _shaped(store)
        found = found_version(store, index)     # another process may have built it since
        index.ready = found == VERSION
        if found is None:
            raise StoreError(say("the store {name} has no library index yet: run 'ygoreplay search "
                                 "--reindex' once (or any command that writes to it)",
                                 name=store.name))
        if found > VERSION:
            raise newer(store.name, found)
        if not index.ready:
            raise StoreError(say("the library index of {name} was built by an older ygoreplay (index version "
                                 "{found}; this one reads version {version}): open the store for writing once to "
                                 "rebuild it ('ygoreplay search --reindex', or any command that writes to it)",
                                 name=store.name, found=found, version=VERSION))
    return index


def _shaped(store: Any) -> None:
    """Refuse a store file whose index tables are not as the index makes them (a view, a computed
    column: a ``title`` generated as 400 MB held ``search`` past a minute), before one is read
    (``store.own_schema``), on a connection of its own that reads only the schema."""
    shape = sqlite_shape()
    conn = sqlite3.connect(Path(store.name).resolve().as_uri() + "?mode=ro", uri=True)
    try:
        own_schema(conn, store.name, shape.tables, None, computed=shape.computed, virtual=shape.virtual)
    except sqlite3.Error as exc:
        raise StoreError(say("cannot open the store {path}: {exc}", path=store.name, exc=exc)) from None
    finally:
        conn.close()


def _keyed(store: Any, index: Index) -> None:
    """The index's rows are checked with the organiser's private key (``Index.genuine``): this
    process holds it, and the index was built with it (its own row's tag holds), else say so:
    under another key every row would be left out, and the search would find nothing."""
    held_key(store)
    with store.events.datastore.transaction(commit=False) as cursor:
        cursor.execute(index.sql("SELECT mac FROM {meta} WHERE version = ?"), (VERSION,))
        row = cursor.fetchone()
    if row is None or not index.genuine(row["mac"], "meta", VERSION):
        raise StoreError(say("the library index of {name} was not built with this organiser's key (or was "
                             "altered): run 'ygoreplay search --reindex' once",
                             name=store.name))
    index.keyed = True
