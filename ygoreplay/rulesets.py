"""Named, versioned rule sets: where the rules changed between Master Rule revisions.

A duel names its rule set in its first event, so a record is always re-checked under the rules it
was played by (RULES.md §24-26). The default is the April 2020 revision (NIS-01).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RuleSet:
    name: str
    version: int
    title: str
    extra_monster_zones: bool        # MR-04: two shared EMZs
    extra_deck_placement: str        # "unrestricted" (MR3), "nmr2017", "mr2020" (CONF-10, NIS-01)
    separate_pendulum_zones: bool    # MR-03 vs MR-04 (CONF-09)
    first_player_skips_draw: bool = True   # SETUP-04, CONF-08


RULESETS: dict[str, RuleSet] = {r.name: r for r in (
    RuleSet("mr2020", 1, "Master Rule, April 2020 revision", True, "mr2020", False),
    RuleSet("nmr2017", 1, "New Master Rule (2017)", True, "nmr2017", False),
    RuleSet("mr3", 1, "Master Rule 3 (2014)", False, "unrestricted", True),
)}
DEFAULT_RULESET = "mr2020"
