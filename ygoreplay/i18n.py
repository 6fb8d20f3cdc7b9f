"""The languages ygoreplay speaks: which one a reader asked for, and the catalogue that says it.

Every sentence, label and message a reader sees is written in English in the code, inside
``t("…")`` (translated where it is said) or ``N_("…")`` (a constant, translated where it is shown
with ``t(CONSTANT)``); placeholders are ``{name}``. The catalogues are gettext ``.po`` files,
``ygoreplay/locale/<lang>/LC_MESSAGES/<domain>.po``, read with ``babel`` (no compiled ``.mo`` to
keep in step): domain ``ygoreplay`` for what Python prints and ``pages`` for the browser pages'
strings. ``python -m ygoreplay.i18n update`` extracts every marked string and brings each
catalogue up to date (keeping its translations, dropping stale entries); tests fail on a missing,
empty or stale entry, or one whose placeholders differ from the English.

The language is a reading choice, never part of a record: it is chosen per process (``--lang``,
``$YGOREPLAY_LANG``, ``$LC_ALL``/``$LC_MESSAGES``/``$LANG``) or per request (``?lang=``,
``Accept-Language``) and held in a context variable, so deep code (a rule's summary, a log
sentence) translates without a language parameter threaded through every call.
"""
from __future__ import annotations

import contextvars
import os
import sys
from contextlib import contextmanager
from functools import lru_cache

from .errors import InputError

TYPE_CHECKING = False            # not ``typing``'s (it imports ``re``): see below
if TYPE_CHECKING:                # ``re``, ``pathlib``, ``inspect`` imported where used: the launcher
    import re                    # reads the language (``from_environment``) before it imports click
    from pathlib import Path
    from typing import Iterable, Iterator, Mapping

#: The languages with a catalogue, as BCP 47 tags, each with its own name for itself.
LANGUAGES: dict[str, str] = {"en": "English", "zh-Hans": "简体中文", "zh-Hant": "繁體中文", "ja": "日本語",
                             "ko": "한국어"}
DEFAULT = "en"
DOMAINS = ("ygoreplay", "pages")

_current: contextvars.ContextVar[str] = contextvars.ContextVar("ygoreplay_language", default=DEFAULT)

# Chinese by script first, then by region: Taiwan, Hong Kong and Macau read Traditional characters.
_TRADITIONAL_REGIONS = {"tw", "hk", "mo"}


class LanguageError(InputError):
    """A language nobody has a catalogue for, asked for by name (``--lang xx``)."""


def resolve(tag: str | None) -> str | None:
    """The catalogue language for a BCP 47 tag or a POSIX locale (``zh_TW.UTF-8``), or None.

    ``zh``, ``zh-CN``, ``zh-SG`` and ``zh-Hans`` read Simplified Chinese; ``zh-TW``, ``zh-HK``
    and ``zh-Hant`` Traditional; ``C`` and ``POSIX`` are English."""
    if not tag:
        return None
    tag = tag.split(".")[0].split("@")[0].strip().replace("_", "-").lower()
    if tag in ("c", "posix"):
        return DEFAULT
    parts = [p for p in tag.split("-") if p]
    if not parts:
        return None
    if parts[0] == "zh":
        rest = set(parts[1:])
        if "hant" in rest or rest & _TRADITIONAL_REGIONS:
            return "zh-Hant"
        return "zh-Hans"
    for language in LANGUAGES:
        if parts[0] == language.lower():
            return language
    return None


def named(tag: str) -> str:
    """The language a user named (``--lang``, ``?lang=``), or LanguageError saying which exist."""
    language = resolve(tag)
    if language is None:
        raise LanguageError(say("no catalogue for language {tag!r}: one of {names_list}",
                                tag=tag, names_list=', '.join(LANGUAGES)))
    return language


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language of a process: ``$YGOREPLAY_LANG``, then the POSIX locale variables in the
    order gettext reads them (``LANGUAGE``'s first entry, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``)."""
    environ = os.environ if environ is None else environ
    for name in ("YGOREPLAY_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if name == "LANGUAGE":
            value = value.split(":")[0]
        if value:
            return resolve(value) or DEFAULT
    return DEFAULT


#: The characters of an ``Accept-Language`` header ``negotiate`` reads (the rest is not looked at).
ACCEPT_LANGUAGE_READ = 2000


def negotiate(accept_language: str | None) -> str:
    """The best catalogue for an ``Accept-Language`` header (RFC 9110 quality values)."""
    import re
    choices: list[tuple[float, int, str]] = []
    for position, item in enumerate((accept_language or "")[:ACCEPT_LANGUAGE_READ].split(",")[:50]):
        tag, _, params = item.strip().partition(";")
        quality = 1.0
        match = re.search(r"q\s*=\s*([0-9.]+)", params)
        if match:
            try:
                quality = float(match.group(1))
            except ValueError:
                quality = 0.0
        language = resolve(tag)
        if language and quality > 0:
            choices.append((-quality, position, language))
    return min(choices)[2] if choices else DEFAULT


def current() -> str:
    """The language in use here (this request, this command)."""
    return _current.get()


@contextmanager
def using(language: str) -> Iterator[str]:
    """Speak ``language`` inside the block (a request, a test), then the one before."""
    token = speaking(language)
    try:
        yield _current.get()
    finally:
        spoken(token)


def speaking(language: str) -> contextvars.Token[str]:
    """Speak ``language`` until ``spoken(token)``: ``using`` as a pair of calls, for the service's
    append, where a context manager's four calls a request are a layer of its own (issue 25)."""
    return _current.set(language if language in LANGUAGES else DEFAULT)


def spoken(token: contextvars.Token[str]) -> None:
    """Speak the language spoken before ``speaking`` gave ``token``."""
    _current.reset(token)


def use(language: str) -> None:
    """Speak ``language`` from now on in this context (a command's whole run)."""
    _current.set(language if language in LANGUAGES else DEFAULT)


def N_(message: str) -> str:
    """Mark a constant for the catalogues; it is translated where it is shown, with ``t``."""
    return message


def t(message: str, /, **values: object) -> str:
    """``message`` in the current language, its ``{placeholders}`` filled with ``values``."""
    text = catalogue(_current.get()).get(message, message) if _current.get() != DEFAULT else message
    return text.format(**values) if values else text


def say(message: str, /, **values: object) -> str:
    """``message`` in English, its placeholders filled: a sentence that is *recorded* (a rule
    violation's message, kept in a witnessed duel's flags), never in the reader's language; the
    template is marked for the catalogues and the sentence translated where it is shown, with
    ``said``. The sentence is kept with its template and values (``_MADE``), so ``said`` puts the
    very values in the translation, never the ones a match of the finished sentence would cut."""
    english = message.format(**values)
    if values:
        fields = _fields(message)
        if fields is None:
            return english
        if fields:                 # a conversion or a spec: each value as the English shows it
            made = {name: format(_converted(values[name], conversion), spec) for name, conversion, spec in fields}
        else:                      # only plain {name}s (most): the text is format(value)
            made = {name: value if value.__class__ is str else format(value) for name, value in values.items()}
        if len(_MADE) >= MADE_KEPT:
            _MADE.clear()          # a bounded memory: an older sentence is said by matching
        _MADE[english] = (message, made)
    return english


#: The sentences ``say`` made lately → (template, each placeholder's text as filled in).
_MADE: dict[str, tuple[str, dict[str, str]]] = {}
MADE_KEPT = 16384

#: Placeholders that hold a user's or a record's own text (a player's or a card's name, a title, an
#: id, a path), or a command to type (``verb``: ``ygoreplay import``): put in a translation as they
#: are, never read as a catalogued word or a sentence of the catalogue (a player named "time" is
#: no time-out; one named "A wins (time)" no win).
USER_VALUES = frozenset({
    "player", "player2", "name", "name2", "title", "deck", "card", "card_id", "opponent", "winner", "loser",
    "judge", "match_name", "names", "user", "attacker", "defender", "target", "holder", "turn_player",
    "first_player", "chooser", "sealer", "corrector", "duel_id", "path", "url", "named", "fields", "pair", "spec",
    "file", "parent", "text", "entered_by", "verb"})


@lru_cache(maxsize=4096)
def _fields(template: str) -> tuple[tuple[str, str | None, str], ...] | None:
    """A template's placeholders (name, conversion, spec) when one has a conversion or a spec,
    () when all are plain ``{name}``s, None when one is not a name (``{a.b}``, ``{0}``, a nested
    spec): such a sentence is said by matching."""
    import string
    try:
        parsed = [(name, conversion, spec or "") for _, name, spec, conversion
                  in string.Formatter().parse(template) if name is not None]
    except ValueError:
        return None
    if not all(name.isidentifier() and "{" not in spec for name, _, spec in parsed):
        return None
    return tuple(parsed) if any(conversion or spec for _, conversion, spec in parsed) else ()


def _converted(value: object, conversion: str | None) -> object:
    return repr(value) if conversion == "r" else str(value) if conversion == "s" else \
        ascii(value) if conversion == "a" else value


def said(english: str) -> str:
    """A recorded English sentence (``say``, ``N_``) in the current language. One ``say`` made
    in this process is said from its template and its very values; another (read from a file, or
    no longer kept) has the template it was made from found by matching, a user's value put in
    whole when it is one of the names the record holds (``naming``). A value that is itself a
    catalogued phrase, such as a phase's name, is translated too, but never a user's
    (``USER_VALUES``). A sentence no template makes stays English."""
    language = _current.get()
    if language == DEFAULT or not english:
        return english
    return _said_made(language, english, 0)


_names: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar("ygoreplay_names", default=frozenset())
#: The most names ``naming`` keeps: a duel's players and the names of the cards it shows.
NAMES_KEPT = 256


@contextmanager
def naming(names: Iterable[object]) -> Iterator[None]:
    """Read a record's sentences knowing the names it holds (its players', its cards'): a sentence
    read back from the record (no ``say`` of this process made it: a file, a restarted service)
    is matched to its template with a user's placeholder (``USER_VALUES``) holding one of these
    names whole, so a player named ``A wins (time). Kaiba`` is no name cut at the template's own
    words. A sentence whose user values are none of them is matched as before."""
    kept = frozenset(str(name) for name in names if name and str(name).strip())
    token = _names.set(frozenset(sorted(kept, key=len, reverse=True)[:NAMES_KEPT]))
    try:
        yield
    finally:
        _names.reset(token)


def _said_made(language: str, english: str, depth: int) -> str:
    """``english`` from the template and values ``say`` kept for it, else by matching."""
    made = _MADE.get(english) if depth < NESTED else None
    if made is not None:
        template, values = made
        messages = catalogue(language)
        translation = messages.get(template)
        if translation:
            filled = _fill(translation, {name: _value_in(language, name, value, messages, depth)
                                         for name, value in values.items()})
            if filled is not None:
                return filled
    names = _names.get()
    return _said(language, english, depth, frozenset(n for n in names if n in english) if names else names)


def _value_in(language: str, name: str, value: str, messages: Mapping[str, str], depth: int) -> str:
    """A placeholder's value in a translation: a user's as it is; a catalogued phrase or a
    sentence (made by ``say`` or matched) said too, no deeper than ``NESTED``."""
    if name in USER_VALUES or not (" " in value or value in messages):
        return value
    return _said_made(language, value, depth + 1)


NESTED = 3                       # a value translated in a value of a value, no deeper


@lru_cache(maxsize=4096)
def _said(language: str, english: str, depth: int = 0, names: frozenset[str] = frozenset()) -> str:
    """``english`` matched to a template (``names``: the record's names it holds, ``naming``)."""
    messages = catalogue(language)
    if english in messages:
        return messages[english]
    if depth >= NESTED:          # a crafted name nesting sentences in sentences: no recursion error
        return english
    match = _named_match(language, english, names) if names else None
    if names and match is None:  # a name after a place ("event 3: "): the sentence after it, whole
        placed = _said_after_colon(language, english, depth, names)
        if placed != english:
            return placed
    for prefix, pattern, template in [match] if match else _templates(language):
        if not english.startswith(prefix):
            continue
        match = pattern.fullmatch(english)
        if match:
            values = {name: value if name in USER_VALUES or not (" " in value or value in messages)
                      else _said(language, value, depth + 1, names) for name, value in match.groupdict().items()}
            return _fill(messages[template], values) or english
    return _said_after_colon(language, english, depth, names)


def _named_match(language: str, english: str, names: frozenset[str]) -> tuple[str, re.Pattern[str], str] | None:
    """The most specific template ``english`` matches with each user placeholder holding one of
    ``names`` whole (the names in ``english``), or None."""
    for prefix, template in _user_templates(language):
        if english.startswith(prefix):
            named = _named_pattern(template, names)
            if named is not None and named.fullmatch(english):
                return prefix, named, template
    return None


@lru_cache(maxsize=None)
def _user_templates(language: str) -> list[tuple[str, str]]:
    """The templates ``_templates`` matches that have a user placeholder, in its order."""
    return [(prefix, template) for prefix, _pattern, template in _templates(language)
            if placeholders(template) & USER_VALUES]


@lru_cache(maxsize=1024)
def _named_pattern(template: str, names: frozenset[str]) -> re.Pattern[str] | None:
    """``template``'s pattern with each user placeholder one of ``names`` (the longest first),
    the others as ``_templates`` makes them; None when it has a user placeholder no name fills."""
    import re
    import string
    parsed = list(string.Formatter().parse(template))
    pattern, seen = "", set()
    chosen = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
    for (text, name, _, _), after in zip(parsed, [*parsed[1:], None]):
        pattern += re.escape(text)
        if name:
            value = f"(?:{chosen})" if name in USER_VALUES else _value(after)
            pattern += f"(?P={name})" if name in seen else f"(?P<{name}>{value})"
            seen.add(name)
    return re.compile(pattern, re.DOTALL) if chosen else None


#: The ``": "`` a sentence no template makes is cut at, at most, to find a catalogued one after it.
COLONS = 3


def _said_after_colon(language: str, english: str, depth: int, names: frozenset[str] = frozenset()) -> str:
    """A sentence made of a place and a message (``EventFormatError``'s ``"line 3: " + message``,
    ``"kind.field[2]: " + detail``, an error's ``"{path}: {exc}"``), no template making the
    whole: the first catalogued sentence after a ``": "`` is said, the place before it too when
    a template makes it (a place is a path or an id: kept as it is)."""
    start = 0
    for _ in range(COLONS):
        cut = english.find(": ", start)
        if cut < 0:
            break
        head, tail = english[:cut], english[cut + 2:]
        said_tail = _said(language, tail, depth + 1, names)
        if said_tail != tail:
            return f"{_said(language, head, depth + 1, names)}: {said_tail}"
        start = cut + 2
    return english


def _fill(template: str, values: dict[str, str]) -> str | None:
    """``template`` with values that are already text: a conversion or format spec (``{code!r}``)
    was applied when the English was made, so it is not applied again."""
    import string                           # here: its Template compiles a pattern on import
    try:
        return "".join(text + (values[name] if name else "")
                       for text, name, _, _ in string.Formatter().parse(template))
    except (ValueError, KeyError):
        return None


@lru_cache(maxsize=None)
def _templates(language: str) -> list[tuple[str, re.Pattern[str], str]]:
    """The catalogue's templates with placeholders and some words, as anchored patterns, the most
    specific (the most fixed text) first."""
    import re
    import string
    found = []
    for template in catalogue(language):
        try:
            parsed = list(string.Formatter().parse(template))
        except ValueError:
            continue
        names = [name for _, name, _, _ in parsed if name is not None]
        if not names or not all(name.isidentifier() for name in names):    # none, or braces of prose
            continue
        literal = "".join(text for text, _, _, _ in parsed)
        if len(literal.strip()) < 7:       # a few words at least ("{player} wins ({reason})": 7)
            continue
        pattern, seen = "", set()
        for (text, name, _, _), after in zip(parsed, [*parsed[1:], None]):
            pattern += re.escape(text)
            if name:
                pattern += f"(?P={name})" if name in seen else f"(?P<{name}>{_value(after)})"
                seen.add(name)
        found.append((len(literal), parsed[0][0], re.compile(pattern, re.DOTALL), template))
    found.sort(key=lambda item: -item[0])
    return [(prefix, pattern, template) for _, prefix, pattern, template in found]


def _value(after: tuple | None) -> str:
    """A placeholder's pattern that never backtracks (a crafted name or title made the lazy
    ``.*?`` of each try every split: 40 s for 120 characters): its value runs up to the first
    place the text after it starts (the leftmost split, the one ``.*?`` found first); before
    the template's last text, to where that ends the sentence; before another placeholder,
    nothing (``.*?`` left it empty too)."""
    import re
    if after is None:
        return ".*"
    text, name = after[0], after[1]
    if not text:
        return ""
    if name is None:                                     # the last text: it ends the sentence
        return f".*(?={re.escape(text)}\\Z)"
    return f"(?:(?!{re.escape(text)}).)*+"


def message_dict(english: str) -> dict[str, str]:
    """A recorded message as JSON gives it: ``message`` always the English recorded (what scripts
    match on), and ``message_translated`` beside it when the reader chose another language."""
    if _current.get() == DEFAULT:
        return {"message": english}
    return {"message": english, "message_translated": said(english)}


def beside(key: str, english: str) -> dict[str, str]:
    """A recorded sentence under another key than ``message`` (a verdict's ``problem``): the
    English as ``key``, and ``<key>_translated`` beside it when the reader chose another
    language and there is something to say."""
    if _current.get() == DEFAULT or not english:
        return {key: english}
    return {key: english, f"{key}_translated": said(english)}


def t_in(language: str, message: str, /, **values: object) -> str:
    """``message`` in ``language`` whatever the current one is."""
    with using(language):
        return t(message, **values)


def po_path(language: str, domain: str = "ygoreplay") -> Path:
    from pathlib import Path
    return Path(__file__).with_name("locale") / language.replace("-", "_") / "LC_MESSAGES" / f"{domain}.po"


@lru_cache(maxsize=None)
def catalogue(language: str, domain: str = "ygoreplay") -> dict[str, str]:
    """msgid → translation for one language and domain (empty and fuzzy entries left out, so
    they fall back to English)."""
    path = po_path(language, domain)
    if language == DEFAULT or not path.is_file():
        return {}
    from babel.messages.pofile import read_po
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=language.replace("-", "_"))
    return {m.id: m.string for m in catalog if m.id and isinstance(m.id, str) and m.string and not m.fuzzy}


def placeholders(text: str) -> set[str]:
    """The ``{names}`` a message fills (a translation must fill the same ones)."""
    import string
    try:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError:
        return {"<malformed>"}


# ---- the catalogues' upkeep: extraction and update ----------------------------------------------

_KEYWORDS = {"t": None, "N_": None, "say": None, "t_in": (2,)}
_SOURCES = {"ygoreplay": [("**.py", "python")], "pages": [("**.js", "javascript")]}


def extract(domain: str) -> dict[str, list[str]]:
    """Every marked message of a domain's sources → where it is said (``file:line``)."""
    from pathlib import Path

    from babel.messages.extract import extract_from_dir
    root = Path(__file__).parent
    folder = root / "viewer" if domain == "pages" else root
    found: dict[str, list[str]] = {}
    for filename, lineno, message, _comments, _context in extract_from_dir(
            str(folder), _SOURCES[domain], keywords=_KEYWORDS, comment_tags=("i18n:",)):
        if domain == "ygoreplay" and filename.startswith("viewer"):
            continue
        if isinstance(message, tuple):
            message = message[0]
        if message:
            found.setdefault(message, []).append(f"{filename}:{lineno}")
    if domain == "ygoreplay":
        _extract_rows(root, found)
        _extract_help(root, found)
    return found


#: Files whose rows are made by constructors taking a message as their second argument: the rule
#: catalogue's one-line summaries (``enforced("SUM-04", "Tributes by Level...", ...)``), extracted
#: without marking every row, and shown with ``t(rule.summary)``.
_ROW_KEYWORDS = {"rules/coverage.py": {name: (2,) for name in (
    "enforced", "applied", "card_text", "recorded", "not_yet", "outside", "choice")}}


def _extract_rows(root: Path, found: dict[str, list[str]]) -> None:
    from babel.messages.extract import extract_from_file
    for filename, keywords in _ROW_KEYWORDS.items():
        for lineno, message, _comments, _context in extract_from_file("python", str(root / filename),
                                                                       keywords=keywords):
            if isinstance(message, str) and message:
                found.setdefault(message, []).append(f"{filename}:{lineno}")


def help_paragraphs(text: str) -> list[str]:
    """A command's or option's help as click shows it, cut into the paragraphs the catalogue keeps
    (each on one line); a ``\\b`` paragraph (kept as written: examples) is not translated."""
    import inspect
    import re
    text = inspect.cleandoc(text).partition("\f")[0]
    return [paragraph if paragraph.startswith("\b") else " ".join(paragraph.split())
            for paragraph in re.split(r"\n\s*\n", text) if paragraph.strip()]


def help_in_language(text: str) -> str:
    """A command's or option's help in the current language, paragraph by paragraph."""
    if _current.get() == DEFAULT:
        return text
    return "\n\n".join(p if p.startswith("\b") else t(p) for p in help_paragraphs(text))


def _extract_help(root: Path, found: dict[str, list[str]]) -> None:
    """The command line's help: each command's docstring and each ``help=`` of an option, read
    from the sources (click keeps them as written; ``cli.common`` translates them when a help
    page is written)."""
    import ast
    for path in sorted((root / "cli").glob("*.py")):
        where = f"cli/{path.name}"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            texts: list[tuple[str, int]] = []
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(d, ast.Call) and getattr(d.func, "attr", None) in ("command", "group")
                    for d in node.decorator_list):
                docstring = ast.get_docstring(node, clean=False)
                if docstring:
                    texts.append((docstring, node.lineno))
            elif isinstance(node, ast.Call):
                texts += [(k.value.value, k.value.lineno) for k in node.keywords
                          if k.arg in ("help", "short_help") and isinstance(k.value, ast.Constant)
                          and isinstance(k.value.value, str)]
            for text, lineno in texts:
                for paragraph in help_paragraphs(text):
                    if not paragraph.startswith("\b"):
                        found.setdefault(paragraph, []).append(f"{where}:{lineno}")


def update(domain: str) -> dict[str, tuple[int, int, int]]:
    """Brings every language's catalogue of ``domain`` in line with the sources: new messages
    added untranslated, stale ones dropped, translations kept. → language: (total, untranslated,
    dropped)."""
    from datetime import datetime, timezone

    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po, write_po
    epoch = datetime(2026, 1, 1, tzinfo=timezone.utc)
    messages = extract(domain)
    counts = {}
    for language in LANGUAGES:
        if language == DEFAULT:
            continue
        path = po_path(language, domain)
        old: dict[str, str] = {}
        if path.is_file():
            with path.open("rb") as handle:
                old = {m.id: m.string for m in read_po(handle) if m.id and isinstance(m.id, str)}
        # Fixed dates and header: a catalogue's file changes only when its messages do.
        new = Catalog(locale=language.replace("-", "_"), domain=domain, project="ygoreplay", version="1",
                      copyright_holder="the ygoreplay developers", msgid_bugs_address="",
                      creation_date=epoch, revision_date=epoch, charset="utf-8", fuzzy=False)
        for message, where in sorted(messages.items()):
            new.add(message, old.get(message, ""),
                    locations=[(w.rsplit(":", 1)[0], int(w.rsplit(":", 1)[1])) for w in where[:3]])
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".po.tmp")
        with temporary.open("wb") as handle:
            write_po(handle, new, width=100, omit_header=False, sort_output=True, include_lineno=False)
        temporary.replace(path)
        untranslated = sum(1 for m in messages if not old.get(m))
        counts[language] = (len(messages), untranslated, len(set(old) - set(messages)))
    catalogue.cache_clear()
    _templates.cache_clear()
    _user_templates.cache_clear()
    _said.cache_clear()
    return counts


def _main(argv: list[str]) -> int:
    if argv[:1] != ["update"]:
        print("usage: python -m ygoreplay.i18n update [DOMAIN...]", file=sys.stderr)
        return 2
    for domain in argv[1:] or DOMAINS:
        for language, (total, untranslated, dropped) in update(domain).items():
            print(f"{domain} {language}: {total} messages, {untranslated} untranslated, {dropped} dropped")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
