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
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Iterator, Mapping

from .card_sources import normal_name
from .errors import InputError, StoreError
from .library import ACTIONS, Index, built

PARAMS = ("q", "player", "title", "event", "round", "format", "banlist", "since", "until", "result", "source",
          "card", "action", "turn_max", "kind", "limit", "cursor")
RESULTS = ("p0", "p1", "draw", "ongoing")
SOURCES = ("imported", "table", "api")
KINDS = ("duel", "match", "any")
LIMIT, MAX_LIMIT = 20, 100
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
    after: tuple[int, str] | None = None


def parse(params: Mapping[str, str], names: Any) -> Query:
    """A query from request or command-line parameters (text each); ``names`` resolves a card
    name (``card_sources.CardLookup`` or a ``CardDB``). SearchError says which is wrong."""
    unknown = sorted(set(params) - set(PARAMS))
    if unknown:
        raise SearchError(unknown[0], f"unknown search parameter {unknown[0]!r} (parameters: {', '.join(PARAMS)})")
    for name, value in params.items():          # PostgreSQL refuses a NUL in text: it was a 500
        if "\x00" in value:
            raise SearchError(name, f"{name} holds a NUL character")
    text: dict[str, str | None] = {}
    for name in ("q", "player", "title", "event", "round", "format", "banlist", "result"):
        value = params.get(name)
        if value is not None and len(value) > 200:
            raise SearchError(name, f"{name} is at most 200 characters")
        text[name] = value.strip() or None if value is not None else None
    result = text["result"]
    if result is not None and result.lower() in RESULTS:
        result = result.lower()
    source = _choice(params, "source", SOURCES)
    kind = _choice(params, "kind", KINDS) or "any"
    action = _choice(params, "action", ACTIONS)
    turn_max = _number(params, "turn_max", 0, 10_000)
    limit = _number(params, "limit", 1, MAX_LIMIT)
    codes = resolve_card(params["card"], names) if params.get("card") else None
    if (action or turn_max is not None) and codes is None:
        raise SearchError("action" if action else "turn_max", "action and turn_max narrow a card search: give card")
    since, until = _time(params, "since", False), _time(params, "until", True)
    return Query(text["q"], text["player"], text["title"], text["event"], text["round"], text["format"],
                 text["banlist"], since, until, result, source, codes, action, turn_max, kind,
                 LIMIT if limit is None else limit, _cursor(params.get("cursor")))


def _choice(params: Mapping[str, str], name: str, allowed: tuple[str, ...]) -> str | None:
    value = params.get(name)
    if value is None or value == "":
        return None
    if value not in allowed:
        raise SearchError(name, f"{name} is one of {', '.join(allowed)}, not {value[:40]!r}")
    return value


def _number(params: Mapping[str, str], name: str, low: int, high: int) -> int | None:
    value = params.get(name)
    if value is None or value == "":
        return None
    if not re.fullmatch(r"\d{1,6}", value) or not low <= int(value) <= high:
        raise SearchError(name, f"{name} is a whole number {low}..{high}, not {value[:40]!r}")
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
        raise SearchError(name, f"{name} is a date (2026-05-01) or a time (2026-05-01T18:00:00+00:00), "
                                f"not {value[:40]!r}") from None
    return int(stamp * 1000) + (1 if end and len(value) != 10 else 0)


def _cursor(value: str | None) -> tuple[int, str] | None:
    if not value:
        return None
    try:
        created, stream = json.loads(base64.urlsafe_b64decode(value.encode() + b"=" * (-len(value) % 4)))
        # a forged one was a 500: a time past 64 bits, a NUL or a lone surrogate in the id
        if isinstance(created, int) and -2 ** 63 <= created < 2 ** 63 and isinstance(stream, str) \
                and 0 < len(stream.encode()) <= 100 and "\x00" not in stream:
            return created, stream
    except (ValueError, TypeError):
        pass
    raise SearchError("cursor", "cursor is the 'next' of a previous answer, unchanged")


def _next(created: int, stream: str) -> str:
    return base64.urlsafe_b64encode(json.dumps([created, stream]).encode()).decode().rstrip("=")


def resolve_card(text: str, names: Any) -> tuple[int, ...]:
    """The passcodes a card parameter means: a passcode as given; else the cards whose name
    (in any language the card databases hold; case and accents ignored) is exactly it, else
    those whose name starts with it, else those holding it; with their alternate artworks."""
    text = text.strip()
    if re.fullmatch(r"\d{1,10}", text):
        return (int(text),)
    wanted = normal_name(text)
    if not wanted:
        raise SearchError("card", "card is a card's name or passcode")
    rows = _names(names)
    for rank in (lambda folded: folded == wanted, lambda folded: folded.startswith(wanted),
                 lambda folded: wanted in folded):
        cards = {alias or code for code, alias, folded in rows if rank(folded)}
        if cards:
            break
    else:
        raise SearchError("card", f"no card is named {text[:60]!r} (give its passcode, or a part of its name)")
    if len(cards) > MAX_CODES:
        raise SearchError("card", f"{len(cards)} cards match {text[:60]!r}: give more of the name")
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


# -- queries --------------------------------------------------------------------------------------

_EVENTS = "coalesce((SELECT max(h.originator_version) FROM {heads} h WHERE h.originator_id = s.id || '/head'), 0)"
_CUT = ("CASE WHEN s.ended = 1 OR (s.delay_events = 0 AND s.delay_ms = 0) THEN s.events "
        "ELSE coalesce((SELECT max(m.position) + 1 FROM {marks} m WHERE m.stream = s.id "
        "AND m.position < s.events - s.delay_events AND m.at <= ? - s.delay_ms), 0) END")
_COLUMNS = ("s.id, s.kind, s.title, s.created, s.created_ms, s.p0, s.p1, s.p0_key, s.p1_key, "
            "coalesce(s.event, m.event) AS event, coalesce(s.round, m.round) AS round, "
            "coalesce(s.format, m.format) AS format, coalesce(s.banlist, m.banlist) AS banlist, s.imported, "
            "s.signed, s.verified, s.witnessed, s.match, s.turn, s.ended, s.winner, s.reason, "
            "s.first_flag, s.first_rollback")
#: A branch shows once no ancestor is delayed and running: not only its parent (a branch of an
#: undelayed branch of a delayed duel holds that duel's events past its delay, as ``LiveDuel``'s
#: ``hidden_by_parent`` asks its parent, which asks its own).
_VISIBLE_PARENT = ("(s.parent IS NULL OR NOT EXISTS (WITH RECURSIVE up(id) AS (SELECT s.parent UNION "
                   "SELECT p.parent FROM {streams} p JOIN up ON p.id = up.id) SELECT 1 FROM up "
                   "JOIN {streams} a ON a.id = up.id WHERE a.ended = 0 AND (a.delay_events > 0 OR a.delay_ms > 0)))")


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
            column = "s.title" if name == "title" else f"coalesce(s.{name}, m.{name})"
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
        table = "(s.witnessed = 1 OR s.match IS NOT NULL)"
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


def search(store: Any, query: Query, now: float | None = None) -> dict:
    """The public duels and matches ``query`` finds, newest first, a page at a time:
    ``{"results": [...], "next": cursor or None}`` (the contract the README gives)."""
    index: Index = store.library
    rare = query.codes is not None and _rare(store, query)
    inner, params = _visible(index, query, _now_ms(now), rare)
    where = ["(t.cut > 0 OR t.events = 0)"]
    if query.result is not None:
        where.append(_result_filter(query.result, params))
    if query.codes is not None:
        # A common card: a scalar subquery per duel, which PostgreSQL never turns into a join, so
        # the newest duels are read in order until the page is full. As an EXISTS, a card it
        # thought rarer than it is had every public duel read and sorted (4 s at 1,000,000 duels).
        shown = ("SELECT 1 FROM {cards} c WHERE " + _card_filter(query, params, "c.")
                 + f" AND c.stream = t.id AND {_SHOWN}")
        where.append(f"EXISTS ({shown})" if rare else f"({shown} LIMIT 1) = 1")
    params.append(query.limit + 1)
    sql = (f"SELECT t.*, CASE WHEN t.cut = t.events THEN t.turn ELSE (SELECT mk.turn FROM {{marks}} mk "
           f"WHERE mk.stream = t.id AND mk.position = t.cut - 1) END AS shown_turn FROM ({inner}) t "
           f"WHERE {' AND '.join(where)} ORDER BY t.created_ms DESC, t.id DESC LIMIT ?")
    rows, listed = _listed_rows(store, index.sql(sql), params, "ORDER BY p.created_ms DESC, p.id DESC")
    more = len(rows) > query.limit
    rows = rows[:query.limit]
    # a page holds only what the list of duels would name (``Store.listed``: not an altered
    # stream, nor a branch of one), under the title its anchors sign; it may come out short
    return {"results": [{**_result(row), "title": listed[row["id"]].title} for row in rows if row["id"] in listed],
            "next": _next(rows[-1]["created_ms"], rows[-1]["id"]) if more else None}


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
    shown = "t.cut = t.events AND t.ended = 1"
    if result == "ongoing":
        return "(t.ended = 0 OR t.cut < t.events)"
    if result == "draw":
        return f"({shown} AND t.winner IS NULL)"
    if result in ("p0", "p1"):
        return f"({shown} AND t.winner = {int(result[1])})"
    params += [normal_name(result)] * 2
    return f"({shown} AND ((t.winner = 0 AND t.p0_key = ?) OR (t.winner = 1 AND t.p1_key = ?)))"


def _result(row: Mapping[str, Any]) -> dict:
    cut, events = row["cut"], row["events"]
    whole = cut == events
    badges = [name for name, on in (
        ("imported", row["imported"]), ("table", not row["imported"] and (row["witnessed"] or row["match"])),
        ("witnessed", row["witnessed"]), ("flagged", row["first_flag"] is not None and row["first_flag"] < cut),
        ("signed", row["signed"]), ("verified-origin", row["verified"]),
        ("rollback", row["first_rollback"] is not None and row["first_rollback"] < cut)) if on]
    match = row["kind"] == "match"
    return {"kind": row["kind"], "id": row["id"], "title": row["title"], "players": [row["p0"], row["p1"]],
            "event": row["event"], "round": row["round"], "format": row["format"], "banlist": row["banlist"],
            "created": row["created"],
            "result": {"winner": row["winner"], "reason": row["reason"] or ""} if whole and row["ended"] else None,
            "events": cut, "turns": row["shown_turn"] or 0, "badges": badges,
            "url": f"/match/{row['id']}" if match else f"/view/{row['id']}"}


def card_stats(store: Any, code: int, names: Any = None, now: float | None = None) -> dict:
    """How often anyone may know a card was activated or summoned, in how many public duels, and
    how the duels ended for the player who used it (activated or summoned it). Counted per duel,
    then summed over those the store says a list may name (``Store.listed``, as ``search`` and
    ``player`` do): an altered duel, or a branch of one, counts nothing."""
    index: Index = store.library
    inner, params = _visible(index, Query(kind="duel", codes=(code,)), _now_ms(now), rare=True)
    params.append(code)
    used = "c.action IN ('activated', 'summoned')"
    ended = "t.ended = 1 AND t.cut = t.events AND t.winner IS NOT NULL"
    sql = (f"SELECT c.stream AS id, max(t.events) AS events, "
           f"count(CASE WHEN c.action = 'activated' THEN 1 END) AS activations, "
           f"count(CASE WHEN c.action = 'summoned' THEN 1 END) AS summons, "
           f"max(CASE WHEN {used} AND {ended} AND t.winner = c.side THEN 1 ELSE 0 END) AS won_by_user, "
           f"max(CASE WHEN {used} AND {ended} AND t.winner <> c.side THEN 1 ELSE 0 END) AS lost_by_user "
           f"FROM ({inner}) t JOIN {{cards}} c ON c.stream = t.id WHERE c.code = ? AND {_SHOWN} GROUP BY c.stream")
    rows, listed = _listed_rows(store, index.sql(sql), params, tuples=True)
    counted = [row for row in rows if row[0] in listed]
    facts = names.get(code) if names is not None else None
    return {"code": code, "name": facts.name if facts is not None else None, "duels": len(counted),
            "activated": sum(1 for row in counted if row[2]), "summoned": sum(1 for row in counted if row[3]),
            **{key: sum(int(row[at]) for row in counted)
               for at, key in ((4, "won_by_user"), (5, "lost_by_user"), (2, "activations"), (3, "summons"))}}


def player(store: Any, name: str, limit: int = MAX_LIMIT, cursor: str | None = None,
           now: float | None = None) -> dict:
    """A player's public duels (newest first, a page) and how the ones anyone may see ended."""
    if not name.strip() or len(name) > 200 or "\x00" in name:
        raise SearchError("name", "a player's name is 1..200 characters, no NUL")
    index: Index = store.library
    page = search(store, Query(player=name, kind="duel", limit=limit, after=_cursor(cursor)), now)
    inner, params = _visible(index, Query(player=name, kind="duel"), _now_ms(now))
    params = [normal_name(name)] * 2 + params      # the outcome's come first in the statement
    # each ended duel anyone may see whole, and whether the player won it: counted once the
    # store says a list may name it (``Store.listed``), as the page's duels are
    sql = (f"SELECT t.id, t.events, CASE WHEN t.winner IS NULL THEN 'drawn' WHEN (t.winner = 0 AND t.p0_key = ?) OR "
           f"(t.winner = 1 AND t.p1_key = ?) THEN 'won' ELSE 'lost' END AS outcome FROM ({inner}) t "
           f"WHERE t.ended = 1 AND t.cut = t.events")
    ended, listed = _listed_rows(store, index.sql(sql), params)
    counted = {outcome: 0 for outcome in ("won", "lost", "drawn")}
    for row in ended:
        if row["id"] in listed:
            counted[row["outcome"]] += 1
    return {"name": name, "duels": page["results"], "next": page["next"], **counted}


def _now_ms(now: float | None) -> int:
    return int((time.time() if now is None else now) * 1000)


def _fetch(store: Any, sql: str, params: list[Any]) -> list[Any]:
    with _reading(store) as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _listed_rows(store: Any, sql: str, params: list[Any], order: str = "",
                 tuples: bool = False) -> tuple[list[Any], dict]:
    """The rows of ``sql`` (each has its stream's id first and its ``events``), and those of their
    streams that ``Store.listed`` names, with their headers; ``tuples``: the rows as tuples
    (``Store.as_tuples``), else mappings, as ``_fetch`` gives them. The rows the store decides a
    stream on (``Store.listed_columns``) are read in the same statement (a statement more for
    each 120 streams read them again: most of a popular card's numbers), unless the store has
    decided streams at the ``Store.committed`` mark read first: nothing was committed since (no
    row altered either), so those decisions stand and the statement reads no more than ``sql``."""
    with _reading(store) as cursor:
        mark = store.committed(cursor)
        decided = store.decided(mark)
        if not decided:
            sql = f"SELECT p.*, {store.listed_columns('p.id', 'p.events')} FROM ({sql}) p {order}"
        if tuples:
            store.as_tuples(cursor)
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    ids = [row[0] if tuples else row["id"] for row in rows]
    if decided:
        given = None
    elif tuples:
        given = {row[0]: row[-3:] for row in rows}
        rows = [row[:-3] for row in rows]
    else:
        given = {row["id"]: (row["listed_header"], row["listed_version"], row["listed_anchor"]) for row in rows}
    listed = store.listed(ids, given, mark)
    return rows, listed


@contextmanager
def _reading(store: Any) -> Iterator[Any]:
    """A cursor in a read's transaction on the library index (built first if it is missing)."""
    index: Index = store.library
    if not index.ready:
        index.ready = built(store, index)       # another process may have built it since
        if not index.ready:
            raise StoreError(f"the store {store.name} has no library index yet: run 'ygoreplay search "
                             "--reindex' once (or any command that writes to it)")
    with store.events.datastore.transaction(commit=False) as cursor:
        if index.backend == "postgresql":       # its compiling would cost more than the query: the
            cursor.execute("SET LOCAL jit = off")   # planner's cost counts the subqueries of every row
        yield cursor
