"""A rule as a reader asks for it: its one-line summary in their language, what the engine does
with it, and the passages of the Chinese seed documents it was distilled from (``seeds``).

The summaries are the catalogue's (``rules.coverage``), English in the code and translated in the
catalogues (``i18n``); the seeds' quotes are the original text, whatever the language.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .i18n import N_, t, t_in
from .rules.coverage import ENFORCED, Rule
from .seeds import Quote, quotes

STATUS_WORDS = {"enforced": N_("enforced"), "applied": N_("applied"), "needs card text": N_("needs card text"),
                "recorded only": N_("recorded only"), "not yet": N_("not yet"),
                "outside the record": N_("outside the record"), "choice": N_("choice")}


def summary(rule: Rule) -> str:
    """The rule's one-line summary in the current language."""
    return t(rule.summary)


def status(rule: Rule) -> str:
    return t(STATUS_WORDS[rule.status]) if rule.status in STATUS_WORDS else rule.status


def how(rule: Rule) -> str:
    """Where it is enforced, or why not (the why is the engine's own words, in English)."""
    if rule.status == ENFORCED:
        return t("enforced in {where}; legal: {legal}; illegal: {illegal}", where=", ".join(rule.where),
                 legal=rule.legal, illegal=rule.illegal)
    return f"{status(rule)}: {rule.why}"


def seed_quotes(rule: Rule, folder: Path | None) -> list[Quote]:
    """The seed passages of ``rule`` (found by its phrase, else by its Chinese summary)."""
    return quotes(rule.id, folder, hint=t_in("zh-Hans", rule.summary))


def explained(rule: Rule, folder: Path | None) -> dict[str, Any]:
    """``{id, summary, seed_quotes: [{file, text}]}``: what the viewer's rule pop-up shows."""
    return {"id": rule.id, "summary": summary(rule),
            "seed_quotes": [quote.to_dict() for quote in seed_quotes(rule, folder)]}
