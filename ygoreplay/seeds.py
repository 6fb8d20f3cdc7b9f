"""The rule in its own words: the passage of the Chinese seed documents each rule was distilled from.

The rule catalogue (``RULES.md``) gives each rule its seed files (``src:``) and, for many, its key
phrase in 「」. The seeds are third-party documents kept beside the repository in the team's
shared folder, never in it: they are read at run time from ``--seeds DIR``, ``$YGOREPLAY_SEEDS``
or the ``shared/seeds`` folder next to the repository, and nothing is quoted when there are none.

A quote is the sentence of a seed file that holds the key phrase (compared in Simplified script
with punctuation and spaces ignored, since two seeds are Traditional and two Simplified), and the
next one when it is short; a rule without a phrase is found by the characters its Chinese summary
shares with a sentence. The seeds carry pinyin mojibake (``場(chǎng)``) and stray markup; a quote
leaves them out and is otherwise the seed's own text.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .files import version_of

SEEDS_ENV = "YGOREPLAY_SEEDS"
#: The shared folder beside a checkout of the repository: ``<repo>/../shared/seeds``.
SHARED = Path(__file__).resolve().parents[2] / "shared" / "seeds"
MAX_QUOTE = 300            # characters of one quote
MAX_QUOTES = 4

_RULE = re.compile(r"^- \*\*([A-Z]+-\d{2})\*\*")
_PHRASE = re.compile(r"「([^」]{2,80})」")
_SOURCE = re.compile(r"`(\d{3}_[0-9a-f]+\.txt)`")
_PINYIN = re.compile(r"\([a-zA-Zü\u00c0-\u024f]{1,8}\)")
_MARKUP = re.compile(r"<[^>]{0,40}>|\?？|\?！|\?")
_SENTENCE = re.compile(r"[^。！？!\n]+[。！？!]?")
_NOISE = re.compile(r"[\s，。、；：！？!?,.;:“”\"'‘’（）()《》〈〉「」『』·…—\-/]+")


@dataclass(frozen=True, slots=True)
class Quote:
    """A passage of a seed file, as the rule catalogue cites it."""

    file: str
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"file": self.file, "text": self.text}


def seeds_folder(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """The seeds' folder: ``explicit``, else ``$YGOREPLAY_SEEDS``, else the shared folder next to
    the repository; None when it is not there."""
    for candidate in (explicit, os.environ.get(SEEDS_ENV), SHARED):
        if candidate:
            path = Path(candidate).expanduser()
            if path.is_dir():
                return path.resolve()
            if explicit is not None:
                return None
    return None


@dataclass(frozen=True, slots=True)
class CatalogueEntry:
    """What ``RULES.md`` says of one rule: its key phrases and its seed files."""

    id: str
    phrases: tuple[str, ...]
    sources: tuple[str, ...]


def catalogue(folder: Path) -> dict[str, CatalogueEntry]:
    """The catalogue beside the seeds (``../rules/RULES.md``, else ``RULES.md`` in the folder)."""
    for path in (folder.parent / "rules" / "RULES.md", folder / "RULES.md"):
        if path.is_file():
            return _catalogue(path, version_of(path))
    return {}


@lru_cache(maxsize=4)
def _catalogue(path: Path, changed: tuple[int, ...]) -> dict[str, CatalogueEntry]:
    """The catalogue's entries (``changed``, ``files.version_of``, keys the cache: a process that lives on,
    the resident helper, sees it edited)."""
    entries: dict[str, CatalogueEntry] = {}
    rule, block = None, []

    def close() -> None:
        if rule is not None:
            text = "\n".join(block)
            phrases = tuple(part for phrase in _PHRASE.findall(text) for part in re.split(r"[/／]", phrase)
                            if len(_normal(part)) >= 2)
            entries[rule] = CatalogueEntry(rule, phrases, tuple(dict.fromkeys(_SOURCE.findall(text))))

    for line in path.read_text(encoding="utf-8").splitlines():
        match = _RULE.match(line)
        if match or line.startswith("#") or (line.startswith("- **") and rule is not None):
            close()
            rule, block = (match.group(1), [line]) if match else (None, [])
        elif rule is not None:
            block.append(line)
    close()
    return entries


@lru_cache(maxsize=1)
def _to_simplified():
    import opencc          # the OpenCC card names convert with (``card_names``): one library, C++ and ~10x faster
    return opencc.OpenCC("t2s").convert


def _normal(text: str) -> str:
    """Text as compared: Simplified script, no punctuation or spaces."""
    return _NOISE.sub("", _to_simplified()(text)) if text else ""


@lru_cache(maxsize=16)
def _sentences(path: Path, changed: tuple[int, ...]) -> tuple[tuple[str, str], ...]:
    """(sentence as quoted, as compared) of a seed file, in order (``changed``: ``files.version_of``)."""
    text = _MARKUP.sub("", _PINYIN.sub("", path.read_text(encoding="utf-8", errors="replace")))
    said = [s.strip() for s in _SENTENCE.findall(text) if s.strip()]
    return tuple((s, _normal(s)) for s in said)


def _bigrams(text: str) -> set[str]:
    return {text[i:i + 2] for i in range(len(text) - 1)}


def _best(sentences: tuple[tuple[str, str], ...], phrases: tuple[str, ...], hint: str) -> int | None:
    """The sentence holding a key phrase (the first), else the one sharing the most of the
    hint's character pairs (at least a quarter of them, and 4)."""
    wanted = [_normal(p) for p in phrases]
    for index, (_, normal) in enumerate(sentences):
        if any(w and w in normal for w in wanted):
            return index
    pairs = _bigrams(_normal(hint))
    for phrase in wanted:
        pairs |= _bigrams(phrase)
    if len(pairs) < 4:
        return None
    score, index = max(((len(pairs & _bigrams(normal)), -i) for i, (_, normal) in enumerate(sentences)),
                       default=(0, 0))
    return -index if score >= max(4, len(pairs) // 4) else None


def quotes(rule_id: str, folder: Path | None, hint: str = "") -> list[Quote]:
    """The passages of a rule's seed files it was distilled from (``hint``: its summary in
    Chinese, to find a rule whose catalogue entry quotes no phrase); [] without seeds."""
    if folder is None:
        return []
    entry = catalogue(folder).get(rule_id)
    if entry is None:
        return []
    found = []
    for name in entry.sources:
        path = folder / name
        if not path.is_file():
            continue
        sentences = _sentences(path, version_of(path))
        index = _best(sentences, entry.phrases, hint)
        if index is None:
            continue
        text = sentences[index][0]
        if len(text) < 40 and index + 1 < len(sentences):
            text += sentences[index + 1][0]
        found.append(Quote(name, text[:MAX_QUOTE] + ("…" if len(text) > MAX_QUOTE else "")))
        if len(found) == MAX_QUOTES:
            break
    return found
