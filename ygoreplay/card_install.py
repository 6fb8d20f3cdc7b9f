"""A card database a user can get and keep current: ``ygoreplay cards update`` and ``status``.

The facts of every real card come from a public source players already use: the YGOPRODeck card
API (``cardinfo.php``, JSON) by default, or any ``cards.cdb`` (EDOPro's and YGOPro's format), by
URL or path. What is fetched is converted to a ``cards.cdb`` (the format every simulator reads,
and an indexed SQLite file: a command reads the few cards it needs, never the whole database),
written beside the default store as ``cards.cdb`` with where it came from, when, and the SHA-256
of what was fetched. It replaces the old one whole, or not at all: a failed download, a file that
is not a card database or a full disk leave the installed database as it was, and the bundled set
keeps working with none.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import tempfile
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from . import chain
from .card_scripts import ScriptReading, read_scripts
from .card_names import write_names
from .cards import Attribute, CardDBError, CardType, CdbReader, LinkMarker, Race, facts_from_cdb_row
from .i18n import say
from .effect_facts import EFFECTS_COLUMNS, EFFECTS_TABLE
from .errors import InputError
from .files import installed_path, read_limited

#: The YGOPRODeck card API: every card, as JSON (https://ygoprodeck.com/api-guide/).
YGOPRODECK = "https://db.ygoprodeck.com/api/v7/cardinfo.php"
SOURCES = {"ygoprodeck": YGOPRODECK}

#: The whole API answer is some 20 MB; a source larger than this is refused as it is read.
MAX_DOWNLOAD = 256 << 20
TIMEOUT = 60.0
USER_AGENT = "ygoreplay (card database update)"

_SQLITE_MAGIC = b"SQLite format 3\0"

# The API's words for a monster's card type, and the type bits they stand for.
_MONSTER_WORDS = {
    "normal": CardType.NORMAL, "effect": CardType.EFFECT, "fusion": CardType.FUSION, "ritual": CardType.RITUAL,
    "spirit": CardType.SPIRIT, "union": CardType.UNION, "gemini": CardType.GEMINI, "tuner": CardType.TUNER,
    "synchro": CardType.SYNCHRO, "token": CardType.TOKEN, "flip": CardType.FLIP, "toon": CardType.TOON,
    "xyz": CardType.XYZ, "pendulum": CardType.PENDULUM, "link": CardType.LINK,
}
_SPELL_RACES = {"normal": 0, "quick-play": CardType.QUICKPLAY, "continuous": CardType.CONTINUOUS,
                "equip": CardType.EQUIP, "field": CardType.FIELD, "ritual": CardType.RITUAL}
_TRAP_RACES = {"normal": 0, "continuous": CardType.CONTINUOUS, "counter": CardType.COUNTER}


@dataclass
class Installed:
    """What ``cards status`` says of the installed database."""

    path: Path
    cards: int
    source: str
    url: str
    fetched: str
    sha256: str
    effects: int = 0               # effect facts read from card scripts (``add_scripts``)
    scripts: str = ""              # the folder they were read from

    def to_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "cards": self.cards, "source": self.source, "url": self.url,
                "fetched": self.fetched, "sha256": self.sha256, "effects": self.effects, "scripts": self.scripts}


@dataclass(frozen=True)
class Row:
    """One card as a ``cards.cdb`` row (``datas`` and ``texts``)."""

    code: int
    alias: int
    type: int
    atk: int
    defense: int
    level: int                 # packed: level | right scale << 16 | left scale << 24
    race: int
    attribute: int
    name: str
    text: str = ""


# -- reading a source ---------------------------------------------------------------------------

def fetch(source: str) -> tuple[bytes, str]:
    """The bytes of ``source`` (a name of ``SOURCES``, an http(s) URL or a file) and its URL,
    read within ``MAX_DOWNLOAD``; InputError saying what went wrong (offline, not found...)."""
    url = SOURCES.get(source, source)
    if not url.startswith(("http://", "https://")):
        path = Path(url).expanduser()
        return read_limited(path, MAX_DOWNLOAD, "card database"), str(path.resolve())
    import urllib.error                     # only a download needs it (every command loads this module)
    import urllib.request
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": "application/json, */*"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            declared = response.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > MAX_DOWNLOAD:
                raise InputError(say("{url}: announces {value:,} bytes; more than {value2} MiB",
                                     url=url, value=int(declared), value2=MAX_DOWNLOAD >> 20))
            data = response.read(MAX_DOWNLOAD + 1)
    except urllib.error.HTTPError as exc:
        raise InputError(say("{url}: the server answered {code} {reason}",
                             url=url, code=exc.code, reason=exc.reason)) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise InputError(say("{url}: cannot be reached ({reason}); the installed card database is unchanged",
                             url=url, reason=reason)) from None
    if len(data) > MAX_DOWNLOAD:
        raise InputError(say("{url}: more than {value} MiB; not a card database",
                             url=url, value=MAX_DOWNLOAD >> 20))
    return data, url


def rows_of(data: bytes, where: str) -> tuple[list[Row], str]:
    """The cards a source holds, and its format (``ygoprodeck`` JSON or ``cards.cdb``)."""
    if data.startswith(_SQLITE_MAGIC):
        return _cdb_rows(data, where), "cards.cdb"
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise InputError(say("{where}: neither a cards.cdb nor YGOPRODeck card JSON", where=where)) from None
    if not isinstance(document, dict) or not isinstance(document.get("data"), list):
        raise InputError(say("{where}: not YGOPRODeck card JSON (no \"data\" list)", where=where))
    return ygoprodeck_rows(document["data"], where), "ygoprodeck"


def ygoprodeck_rows(cards: Iterable[Any], where: str = "cardinfo") -> list[Row]:
    """The API's cards as ``cards.cdb`` rows: the card itself, and each alternate artwork (an
    image with a passcode of its own) as a row aliasing it. Skill cards are not cards of a duel."""
    rows: dict[int, Row] = {}
    for index, card in enumerate(cards):
        try:
            row = _ygoprodeck_row(card)
        except (KeyError, TypeError, ValueError) as exc:
            name = card.get("name") if isinstance(card, dict) else None
            raise InputError(f"{where}: card #{index}{f' ({name!r})' if name else ''}: {exc}") from None
        if row is None:
            continue
        rows.setdefault(row.code, row)
        for image in card.get("card_images") or ():
            art = image.get("id") if isinstance(image, dict) else None
            if _passcode(art) and art != row.code:
                rows.setdefault(art, Row(art, row.code, row.type, row.atk, row.defense, row.level, row.race,
                                         row.attribute, row.name, row.text))
    return list(rows.values())


def _ygoprodeck_row(card: dict) -> Row | None:
    if not isinstance(card, dict):
        raise TypeError("not an object")
    code, name = card["id"], card["name"]
    if not _passcode(code) or not isinstance(name, str) or not name:
        raise ValueError("needs an integer id and a name")
    frame = str(card.get("frameType", "")).lower()
    kind = str(card.get("type", "")).lower()
    text = card.get("desc") if isinstance(card.get("desc"), str) else ""
    if frame == "skill" or "skill" in kind:          # Speed Duel skills are not cards of a duel
        return None
    race_word = str(card.get("race", "")).lower()
    if frame == "spell" or kind == "spell card":
        return Row(code, 0, CardType.SPELL | _SPELL_RACES.get(race_word, 0), 0, 0, 0, 0, 0, name, text)
    if frame == "trap" or kind == "trap card":
        return Row(code, 0, CardType.TRAP | _TRAP_RACES.get(race_word, 0), 0, 0, 0, 0, 0, name, text)
    # "typeline" (["Spellcaster", "Effect"]) says it all; the older "type" ("Flip Effect Monster")
    # and the frame ("effect_pendulum") say most of it
    words = {w.lower() for w in card.get("typeline") or ()} or set(kind.replace("monster", "").split())
    words |= set(frame.replace("_", " ").split())
    bits = CardType.MONSTER
    for word in words:
        bits |= _MONSTER_WORDS.get(word, 0)
    if not card.get("typeline") and words & {"gemini", "spirit", "toon", "union", "flip"}:
        bits |= CardType.EFFECT                             # such a monster always has an effect
    if "token" in words:
        bits = CardType.MONSTER | CardType.TOKEN | CardType.NORMAL
    elif not bits & (CardType.EFFECT | CardType.FUSION | CardType.SYNCHRO | CardType.XYZ | CardType.LINK
                     | CardType.RITUAL):
        bits |= CardType.NORMAL                             # a Main Deck monster without an effect
    if not bits & (CardType.FUSION | CardType.SYNCHRO | CardType.XYZ | CardType.LINK) and any(
            words in text.lower() for words in ("cannot be normal summoned/set", "cannot be normal summoned or set")):
        bits |= CardType.SPSUMMON    # the API has no field for it; its text says it (SPS-12: nomi monsters)
    level = _number(card.get("linkval") if bits & CardType.LINK else card.get("level"))
    scale = _number(card.get("scale"))
    packed = level | (scale << 16) | (scale << 24) if bits & CardType.PENDULUM else level
    if bits & CardType.LINK:
        defense = 0
        for marker in card.get("linkmarkers") or ():
            defense |= LinkMarker[str(marker).upper().replace("-", "_").replace(" ", "_")]
    else:
        defense = _stat(card.get("def"))
    return Row(code, 0, int(bits), _stat(card.get("atk")), defense, packed, _flag(Race, card.get("race")),
               _flag(Attribute, card.get("attribute")), name, text)


def _passcode(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 1 << 32


def _number(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 8 else 0


def _stat(value: Any) -> int:
    """ATK or DEF; "?" (a negative or missing value in the API) is -2, as in a cards.cdb."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 20 else -2


def _flag(kind: type, word: Any) -> int:
    if not isinstance(word, str) or not word:
        return 0
    member = kind.__members__.get(word.upper().replace("-", "_").replace(" ", "_"))
    return int(member) if member is not None else 0


def _cdb_rows(data: bytes, where: str) -> list[Row]:
    """A downloaded ``cards.cdb``, checked by reading every card (a bad row names its passcode)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "source.cdb"
        path.write_bytes(data)
        try:
            with closing(CdbReader(path, immutable=True)) as cdb:
                found = cdb.rows("select datas.id, alias, type, atk, def, level, race, attribute, texts.name, "
                                 "texts.desc from datas join texts on datas.id = texts.id order by datas.id")
            for row in found:
                facts_from_cdb_row(path, row[:9])
        except CardDBError as exc:
            raise InputError(say("{value}; the installed card database is unchanged",
                                 value=str(exc).replace(str(path), where))) from None
    return [Row(*row[:9], text=row[9] if isinstance(row[9], str) else "") for row in found]


# -- installing ---------------------------------------------------------------------------------

@contextmanager
def _replacing(path: Path, failed: str) -> Iterator[str]:
    """A temporary file beside ``path`` to write whole; synced and renamed over ``path`` once the
    block ends, removed if it fails (``failed`` says what was not done: the old file stays)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    os.close(fd)
    done = False
    try:
        yield temp
        with open(temp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(temp, path)
        done = True
    except (OSError, sqlite3.Error) as exc:
        raise InputError(say("{path}: {failed} ({exc}); the installed one is unchanged",
                             path=path, failed=failed, exc=exc)) from None
    finally:
        if not done:
            try:
                os.unlink(temp)
            except OSError:
                pass


def write_cdb(path: Path, rows: list[Row], meta: dict[str, str]) -> None:
    """A ``cards.cdb`` of ``rows`` with a ``ygoreplay`` table of where it came from, written to a
    temporary name and renamed over ``path``: the old file stays until the new one is whole."""
    with _replacing(path, "cannot write the card database") as temp:
        with sqlite3.connect(temp) as conn:
            conn.execute("create table datas (id integer primary key, ot integer, alias integer, setcode integer, "
                         "type integer, atk integer, def integer, level integer, race integer, attribute integer, "
                         "category integer)")
            conn.execute("create table texts (id integer primary key, name text, desc text, "
                         + ", ".join(f"str{i} text" for i in range(1, 17)) + ")")
            conn.execute("create table ygoreplay (key text primary key, value text)")
            conn.executemany("insert into datas values (?, 3, ?, 0, ?, ?, ?, ?, ?, ?, 0)",
                             [(r.code, r.alias, r.type, r.atk, r.defense, r.level, r.race, r.attribute) for r in rows])
            conn.executemany("insert into texts (id, name, desc) values (?, ?, ?)", [(r.code, r.name, r.text) for r in rows])
            conn.executemany("insert into ygoreplay values (?, ?)", sorted(meta.items()))
        conn.close()


def update(source: str = "ygoprodeck", path: Path | None = None) -> Installed:
    """Fetch ``source``, convert it and install it (replacing the old database whole)."""
    data, url = fetch(source)
    rows, form = rows_of(data, url)
    if not rows:
        raise InputError(say("{url}: holds no cards; the installed card database is unchanged", url=url))
    meta = {"source": "ygoprodeck" if form == "ygoprodeck" and url == YGOPRODECK else form, "url": url,
            "fetched": chain.now(), "sha256": hashlib.sha256(data).hexdigest(), "cards": str(len(rows))}
    target = path or installed_path()
    write_cdb(target, rows, meta)
    return _installed(target, meta)


#: The languages YGOPRODeck's card API answers in besides English (``language=``).
YGOPRODECK_LANGUAGES = ("fr", "de", "it", "pt")


def install_names(source: str, language: str, folder: Path | None = None) -> tuple[int, str]:
    """The names of every card in ``language`` from ``source`` (a localized YGOPro/EDOPro
    ``cards.cdb``, by path or URL, or ``ygoprodeck`` in French, German, Italian or Portuguese),
    kept beside the installed database (``card_names``); the facts stay the English database's.
    → (how many names, where from)."""
    if source == "ygoprodeck":
        if language not in YGOPRODECK_LANGUAGES:
            raise InputError(say("ygoprodeck: names only in {names_list}, not {language!r} (a localized cards.cdb "
                                 "gives the others)",
                                 names_list=', '.join(YGOPRODECK_LANGUAGES), language=language))
        source = f"{YGOPRODECK}?language={language}"
    data, url = fetch(source)
    rows, _ = rows_of(data, url)
    return write_names(language, ((row.code, row.name) for row in rows), folder or installed_path().parent), url


def add_scripts(folder: str | Path, path: Path | None = None) -> tuple[Installed, ScriptReading]:
    """Read the card scripts under ``folder`` (``card_scripts``) and store their effect facts in
    the installed database (table ``effects``, replacing those stored before), whole or not at
    all: the database is copied, changed and renamed over the old one."""
    target = path or installed_path()
    if status(target) is None:
        raise InputError(say("no card database is installed at {target}: run ygoreplay cards update first (with "
                             "--scripts to add the effect facts at once)", target=target))
    reading = read_scripts(folder)
    with _replacing(target, "cannot store the effect facts") as temp:
        shutil.copyfile(target, temp)
        with closing(sqlite3.connect(temp)) as conn, conn:
            conn.execute(f"drop table if exists {EFFECTS_TABLE}")
            conn.execute(f"create table {EFFECTS_TABLE} (id integer, seq integer, types text, code text, "
                         "properties text, categories text, count_limit integer, count_code text, initial integer, "
                         "condition integer, ranges text, primary key (id, seq))")
            conn.executemany(f"insert into {EFFECTS_TABLE} values ({', '.join('?' * len(EFFECTS_COLUMNS))})",
                             [fact.to_row(code, seq) for code, found in sorted(reading.effects.items())
                              for seq, fact in enumerate(found)])
            conn.executemany("insert or replace into ygoreplay values (?, ?)", [
                ("scripts", str(Path(folder).expanduser().resolve())), ("scripts_read", str(reading.parsed)),
                ("scripts_failed", str(len(reading.failed))), ("effects", str(reading.effect_count))])
    installed = status(target)
    assert installed is not None
    return installed, reading


def status(path: Path | None = None) -> Installed | None:
    """The installed database, or None when there is none."""
    target = path or installed_path()
    if not target.is_file():
        return None
    try:
        with closing(CdbReader(target)) as cdb:
            meta = dict(cdb.rows("select key, value from ygoreplay"))
    except CardDBError as exc:
        raise InputError(say("{exc}; the installed card database cannot be read: run ygoreplay cards update again",
                             exc=exc)) from None
    return _installed(target, meta)


def _installed(path: Path, meta: dict[str, str]) -> Installed:
    def number(key: str) -> int:
        value = meta.get(key, "0") or "0"
        return int(value) if value.isdigit() else 0
    return Installed(path, number("cards"), meta.get("source", "?"), meta.get("url", "?"),
                     meta.get("fetched", "?"), meta.get("sha256", "?"), number("effects"), meta.get("scripts", ""))


__all__ = ["Installed", "add_scripts", "MAX_DOWNLOAD", "Row", "SOURCES", "YGOPRODECK", "fetch", "installed_path", "rows_of",
           "status", "update", "write_cdb", "ygoprodeck_rows"]
