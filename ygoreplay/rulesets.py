"""Named, versioned rule sets: where the rules changed between Master Rule revisions.

A duel names its rule set in its first event, so a record is always re-checked under the rules it
was played by (RULES.md §24-26). The default is the April 2020 revision (NIS-01).

What differs (every difference has a test in tests/test_rulesets.py):

=====================  =======================  =======================  ========================
                       ``mr3`` (2014)           ``nmr2017``              ``mr2020``
=====================  =======================  =======================  ========================
Extra Monster Zones    none: 5 monster zones    2 shared (ZONE-01/04)    2 shared (ZONE-01/04)
Extra Deck placement   any zone (CONF-10)       EMZ or linked zone,      Link monsters and face-up
                                                every kind (ZONE-03/06)  Extra Deck Pendulums:
                                                                         EMZ or linked zone;
                                                                         Fusion/Synchro/Xyz: any
                                                                         (NIS-01)
Pendulum Zones         separate, S/T indexes    the outer S/T zones      the outer S/T zones
                       5 (left) and 6 (right)   0 and 4 (ZONE-09)        0 and 4 (ZONE-09)
                       (MR-03, CONF-09)
Link Summon            does not exist (MR-04)   yes                      yes
First player's draw    skipped (MR-03, CONF-08) skipped                  skipped
Field Spell            one per player, yours    the same                 the same
                       is sent to the GY when
                       you play another
                       (SPELL-11, CONF-03)
=====================  =======================  =======================  ========================
"""
from __future__ import annotations

from .lazy_dataclass import dataclass


@dataclass(frozen=True, slots=True)
class RuleSet:
    name: str
    version: int
    title: str
    extra_monster_zones: bool        # MR-04: two shared EMZs
    extra_deck_placement: str        # "unrestricted" (MR3), "nmr2017", "mr2020" (CONF-10, NIS-01)
    separate_pendulum_zones: bool    # MR-03 vs MR-04 (CONF-09)
    first_player_skips_draw: bool = True   # SETUP-04, CONF-08
    link_summon: bool = True               # MR-04: Link monsters and Link Summon
    field_spell_replacement: str = "send_own"   # SPELL-11/CONF-03: your old one to the GY

    @property
    def pendulum_zones(self) -> tuple[int, int]:
        """S/T zone indexes of the left and right Pendulum Zones (ZONE-09, CONF-09)."""
        return (5, 6) if self.separate_pendulum_zones else (0, 4)

    @property
    def spell_trap_zone_count(self) -> int:
        """How many S/T zone slots a side has: 5, plus 2 separate Pendulum Zones under MR3."""
        return 7 if self.separate_pendulum_zones else 5


RULESETS: dict[str, RuleSet] = {r.name: r for r in (
    RuleSet("mr2020", 1, "Master Rule, April 2020 revision", True, "mr2020", False),
    RuleSet("nmr2017", 1, "New Master Rule (2017)", True, "nmr2017", False),
    RuleSet("mr3", 1, "Master Rule 3 (2014)", False, "unrestricted", True, link_summon=False),
)}
DEFAULT_RULESET = "mr2020"
