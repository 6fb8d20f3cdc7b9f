"""What the engine does with every rule of the catalogue: one row per RULES.md ID, plus our own
``LOG-nn`` (the log's consistency) and ``TEXT-nn`` (a card's own text, as its script states it),
which no game rule states (``OWN_SECTIONS``).

A judge reading "legal" from ``check`` needs to know what was checked. Each row says, in the
project's words, what the rule is and one of:

* ``enforced``: a violation cites the ID. ``where`` names the modules (package-relative) whose
  code cites it, ``legal`` and ``illegal`` one test each (``tests/FILE::NAME``).
* ``applied``: the fold follows the rule as it applies events, or checks it under another ID
  (``why`` says which); no violation cites this ID.
* ``needs card text``: the engine knows card facts (type, Level, ATK...) and what the card scripts
  declare of each effect (``effect_facts``: kind, event, flags, categories, limits, whether it has
  a condition), not what an effect's code does, so the rule cannot be judged from the log and
  those facts; ``why`` says what is missing.
* ``recorded only``: the log carries it (``why`` names the event) but nothing is checked.
* ``not yet``: it could be judged from the log and is not; ``why`` says what is missing.
* ``outside the record``: nothing a duel's events carry could show it (sleeves, manners).
* ``choice`` (``CONF-nn``): which reading of the seeds the engine follows, and where.

``tests/test_coverage.py`` keeps the table true. Its test conventions:

* the code *raises* an ID when a string constant in ``ygoreplay/`` (this module aside) is exactly
  that ID (``fail(state, ev, "SUM-04", ...)``, ``Problem("DECK-01", ...)``, ``rule = "PEND-03"``);
  every ID raised has an ``enforced`` row whose ``where`` names exactly the modules that raise it;
* a test *cites* an ID when its name carries it in snake case (``test_sum_04_...``; several
  numbers after one prefix, ``test_win_01_02_04_...``, or a range, ``test_dmg_01_to_09_...``),
  or its docstring names it (``SUM-04``, or a range ``DMG-01..09``);
* the ``illegal`` test spells the ID as a string (it expects that violation: ``refused_as(
  "SUM-04", ...)``, ``assert v.rule == "SUM-04"``, or a ``parametrize`` case); the ``legal`` test
  is another test that cites the ID and is not named as a refusal (``..._refused``).

Adding a rule: one row below, in the order of RULES.md.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..i18n import say
from ..files import write_atomic

ENFORCED, APPLIED, CARD_TEXT, RECORDED = "enforced", "applied", "needs card text", "recorded only"
NOT_YET, OUTSIDE, CHOICE = "not yet", "outside the record", "choice"
STATUSES = (ENFORCED, APPLIED, CARD_TEXT, RECORDED, NOT_YET, OUTSIDE, CHOICE)
ID_PATTERN = re.compile(r"[A-Z]+-\d{2}")
#: Our own ID prefixes, for checks no RULES.md rule states: the log's own, a card's own text.
OWN_SECTIONS = ("LOG", "TEXT")


@dataclass(frozen=True, slots=True)
class Rule:
    """One catalogue rule and what the engine does with it."""

    id: str
    summary: str
    status: str
    why: str = ""
    where: tuple[str, ...] = ()
    legal: str = ""
    illegal: str = ""

    @property
    def section(self) -> str:
        return self.id.split("-")[0]

    def describe(self) -> str:
        """Where it is enforced, or why not, in one line."""
        if self.status == ENFORCED:
            return f"enforced in {', '.join(self.where)}; legal: {self.legal}; illegal: {self.illegal}"
        return f"{self.status}: {self.why}"

    def to_dict(self) -> dict:
        data = {"id": self.id, "summary": self.summary, "status": self.status}
        if self.status == ENFORCED:
            data.update(where=list(self.where), legal=self.legal, illegal=self.illegal)
        else:
            data["why"] = self.why
        return data


def enforced(rule_id: str, summary: str, where: str, legal: str, illegal: str) -> Rule:
    """``where``: modules separated by spaces; ``legal``/``illegal``: ``FILE::TEST`` in tests/."""
    return Rule(rule_id, summary, ENFORCED, where=tuple(where.split()),
                legal=f"tests/{legal}", illegal=f"tests/{illegal}")


def applied(rule_id: str, summary: str, why: str) -> Rule:
    return Rule(rule_id, summary, APPLIED, why)


def card_text(rule_id: str, summary: str, why: str) -> Rule:
    return Rule(rule_id, summary, CARD_TEXT, why)


def recorded(rule_id: str, summary: str, why: str) -> Rule:
    return Rule(rule_id, summary, RECORDED, why)


def not_yet(rule_id: str, summary: str, why: str) -> Rule:
    return Rule(rule_id, summary, NOT_YET, why)


def outside(rule_id: str, summary: str, why: str) -> Rule:
    return Rule(rule_id, summary, OUTSIDE, why)


def choice(rule_id: str, summary: str, why: str) -> Rule:
    return Rule(rule_id, summary, CHOICE, why)


TABLE: tuple[Rule, ...] = (
    # -- 1. General principles -------------------------------------------------------------------
    enforced("GEN-01", "A card effect beats a basic rule: an event citing the effect sets the rule aside (recorded as an override).",
             "rules/outcome.py", "test_rules_summon.py::test_gen_01_a_cited_effect_allows_a_second_normal_summon",
             "test_rules_zones.py::test_zone_changed_basic_rules_refused"),
    card_text("GEN-02", "When an effect makes both players act at once, the turn player acts first.",
              "the scripts' facts say an effect's kind, event and categories, not that its operation makes both players "
              "act (that is code, not read)"),
    enforced("GEN-03", "'Can' marks an optional effect; without it the effect is mandatory: a mandatory trigger is activated.",
             "rules/card_text.py", "test_rules_card_text.py::test_gen_03_a_mandatory_trigger_activated_when_it_triggers",
             "test_rules_card_text.py::test_gen_03_a_mandatory_trigger_never_activated_refused"),
    card_text("GEN-04", "'N or more' and 'N or less' include N.", "it is a way of reading card text: the numbers are compared in an effect's code, which the facts do not keep"),
    applied("GEN-05", "Cards are 'the same card' when they have the same name.",
            "DECK-06 and DECK-08 count copies by name (alternate artworks by the card they alias)"),
    card_text("GEN-06", "A random pick: the cards are offered face-down and the opponent picks.",
              "a random pick is a call in an effect's operation (code, not a fact read); no event records the pick itself"),
    # -- 2. Deck construction --------------------------------------------------------------------
    enforced("DECK-01", "The Main Deck has 40 to 60 cards.", "decks.py rules/setup.py",
             "test_rules_turn.py::test_deck_01_to_06_legal_decks_are_registered",
             "test_rules_turn.py::test_deck_01_to_06_illegal_decks_are_refused"),
    enforced("DECK-02", "Fusion, Synchro, Xyz and Link monsters may not be in the Main Deck.",
             "decks.py match/rules.py rules/identity.py rules/setup.py",
             "test_rules_turn.py::test_deck_01_to_06_legal_decks_are_registered",
             "test_rules_turn.py::test_deck_01_to_06_illegal_decks_are_refused"),
    enforced("DECK-03", "The Extra Deck has at most 15 cards, all Extra Deck monsters.",
             "decks.py match/rules.py rules/identity.py rules/setup.py",
             "test_rules_turn.py::test_deck_01_to_06_legal_decks_are_registered",
             "test_rules_turn.py::test_deck_01_to_06_illegal_decks_are_refused"),
    applied("DECK-04", "Pendulum monsters that reach the Extra Deck during a duel do not count toward its 15.",
            "the 15 counts Extra Deck monsters (at registration, and in a set-up position); a Pendulum is a Main Deck card"),
    enforced("DECK-05", "The Side Deck has at most 15 cards and is never used during a duel.", "decks.py",
             "test_rules_turn.py::test_deck_01_to_06_legal_decks_are_registered",
             "test_rules_turn.py::test_deck_01_to_06_illegal_decks_are_refused"),
    enforced("DECK-06", "At most 3 copies of a card name across Main, Extra and Side Deck.", "decks.py",
             "test_decks.py::test_deck_06_same_name_by_alias_and_by_equal_names",
             "test_rules_turn.py::test_deck_01_to_06_illegal_decks_are_refused"),
    card_text("DECK-07", "A card whose text says it is treated as another name counts under that name for the 3 copies.",
              "'treated as' names are in card text (CONF-28); the scripts' EFFECT_CHANGE_CODE applies on the field or in the "
              "GY, not in a Deck, so only alternate artworks are grouped"),
    enforced("DECK-08", "A banlist allows 0, 1 or 2 copies (across the Side Deck too) and beats the 3-copy rule.", "decks.py",
             "test_decks.py::test_deck_08_an_unknown_passcode_is_judged_only_when_listed",
             "test_decks.py::test_deck_08_banlist_counts_across_main_extra_and_side"),
    enforced("DECK-09", "The banlist is revised from time to time.",
             "match/rules.py",
             "test_match.py::test_sample_match_and_its_duels_are_legal",
             "test_match.py::test_deck_09_the_banlist_hash_is_of_its_content"),
    enforced("DECK-10", "Token and counter cards are stand-ins and cannot be in any deck.", "decks.py",
             "test_decks.py::test_deck_10_a_token_made_in_the_duel_needs_no_deck",
             "test_decks.py::test_a_token_is_deck_10_only_not_also_deck_02_or_03"),
    outside("DECK-11", "Display and commemorative cards, and unofficial items, are not legal.",
            "a card's physical edition is not in the record; a passcode is a passcode"),
    outside("DECK-12", "Legal card pools by language, and sleeves that hide the differences in a mixed deck.",
            "the record names cards by passcode, not by printed language"),
    outside("DECK-13", "No proxies, stickers or markings on cards or sleeves.", "physical cards are not in the record"),
    outside("DECK-14", "Main, Side and Extra Deck use identical, unmodified sleeves.", "sleeves are not in the record"),
    # -- 3. Card data model ----------------------------------------------------------------------
    enforced("CARD-01", "A card is known by its facts (name, Level or Rank, Attribute, Type, ATK/DEF, Link, Scales); an unknown passcode is reported.",
             "decks.py rules/identity.py rules/setup.py rules/summon.py",
             "test_decks.py::test_real_deck_cards_known_from_a_cards_cdb_are_judged",
             "test_decks.py::test_real_deck_check_reports_unknown_passcodes_and_guesses_nothing"),
    outside("CARD-02", "Card frames by kind (Normal yellow, Effect orange, ...).", "how a card is printed is not in the record"),
    applied("CARD-03", "Only effectless Main Deck monsters and effectless Pendulums are Normal Monsters.",
            "card facts carry the Normal type bit as the card databases give it"),
    applied("CARD-04", "Seven Attributes; neither Attribute nor Type gives a battle advantage.",
            "card facts carry the Attribute; damage calculation (DMG-01..09) uses ATK/DEF alone"),
    applied("CARD-05", "The Types of monsters (Dragon, Spellcaster, ... Cyberse, Creator God).",
            "card facts carry the Type as the card databases give it (NIS-08)"),
    applied("CARD-06", "Original ATK/DEF is the printed value; a printed '?' counts as 0.",
            "card facts read '?' as 0 (cards.py)"),
    enforced("CARD-07", "Xyz monsters have a Rank, not a Level: no Level changes, no Level-based material.",
             "rules/outcome.py rules/summon.py",
             "test_rules_zones.py::test_link_05_card_07_stats_changed_sets_current_values",
             "test_rules_zones.py::test_link_05_card_07_stats_change_refused"),
    applied("CARD-08", "Link monsters have a Link Rating and arrows, no Level, Rank or DEF.",
            "card facts carry them; a Level or DEF change of a Link monster is refused as LINK-05"),
    enforced("CARD-09", "Gemini monsters gain their effects when Normal Summoned on the field; Spirit, Union and Toon rules need card text.",
             "rules/summon.py", "test_scenarios.py::test_gemini_summoned_again_on_the_turn_after_it_was_normal_summoned",
             "test_scenarios.py::test_gemini_summon_after_the_normal_summon_was_used_is_refused"),
    applied("CARD-10", "Spell and Trap icons: Normal, Equip, Field, Continuous, Ritual, Quick-Play; Counter Traps.",
            "card facts carry the subtype; the rules of each are checked under SPELL-nn and TRAP-nn"),
    # -- 4. Match and tournament procedure (ygoreplay/match/) ------------------------------------
    enforced("MATCH-01", "A match is best of three: the first to win 2 duels wins.",
             "match/rules.py",
             "test_match.py::test_sample_match_and_its_duels_are_legal",
             "test_match.py::test_match_01_two_wins_end_it_and_no_fourth_duel"),
    enforced("MATCH-02", "1 win and 2 draws wins the match; 1 win, 1 draw, 1 loss is a draw.",
             "match/rules.py",
             "test_match.py::test_one_win_two_draws_wins_or_is_a_double_loss",
             "test_match.py::test_match_02_one_win_one_draw_one_loss_is_a_draw_and_one_win_two_draws_wins"),
    applied("MATCH-03", "A card that wins the match cannot undo a match already lost 2-0.",
            "a decided match takes no further duel (MATCH-01) and no event after its end (LOG-03); a card that wins is cited (GEN-01)"),
    enforced("MATCH-04", "One deck per tournament; only decklisted cards are used.",
             "match/commands.py match/links.py match/rules.py",
             "test_match.py::test_sample_match_and_its_duels_are_legal",
             "test_match.py::test_match_04_one_decklist_and_only_its_cards"),
    enforced("MATCH-05", "Each round starts from the registered deck; no siding before duel 1.",
             "match/rules.py",
             "test_match.py::test_sample_match_and_its_duels_are_legal",
             "test_match.py::test_match_05_no_siding_before_duel_1"),
    enforced("MATCH-06", "Siding is one-for-one, between duels, keeping every deck's size.",
             "match/rules.py",
             "test_match.py::test_sample_match_and_its_duels_are_legal",
             "test_match.py::test_match_06_one_for_one_between_duels_only"),
    enforced("MATCH-07", "The player chosen to go first (by the RPS winner, later the previous loser) takes turn 1.",
             "match/commands.py match/links.py match/rules.py rules/turn.py",
             "test_rules_turn.py::test_match_07_the_chosen_player_goes_first",
             "test_rules_turn.py::test_match_07_the_other_player_going_first_is_refused"),
    enforced("MATCH-08", "Questions and disputes go to a judge, whose instructions are followed.",
             "match/rules.py rules/base.py",
             "test_match.py::test_sample_match_and_its_duels_are_legal",
             "test_match.py::test_match_08_and_10_calls_rulings_appeals"),
    recorded("MATCH-09", "An unnoticed mistake in effects or LP cannot be redone once play has passed it.",
             "a judge's rollback is recorded with its reason; nothing limits how far back it goes"),
    enforced("MATCH-10", "No appeal is accepted after the end: no rollback once the duel has ended.",
             "match/rules.py rules/history.py",
             "test_history.py::test_match_10_a_rollback_before_the_end_is_accepted",
             "test_history.py::test_match_10_no_rollback_after_the_duel_ended"),
    outside("MATCH-11", "Every action is performed with both players confirming it.", "how players confirm is not recorded"),
    outside("MATCH-12", "LP are kept with pen and paper, not a calculator alone.", "how LP were kept at the table is not recorded"),
    outside("MATCH-13", "The tournament text is that of the 'new expert rules' (2005).", "history of the rules text"),
    # -- 5. Time limit ---------------------------------------------------------------------------
    recorded("TIME-01", "A match has 40 minutes, intervals and siding included; an interval at most 3.",
            "match_started records the time limit and time_called the wall clock; nothing measures the 40 minutes"),
    enforced("TIME-02", "When time runs out undecided, the end-of-match procedure decides the remaining duels.",
             "match/rules.py",
             "test_match.py::test_sample_match_and_its_duels_are_legal",
             "test_match.py::test_level_at_time_an_extra_duel_or_a_draw"),
    enforced("TIME-03", "Time called mid-duel: finish the turn, then 3 extra turns.",
             "match/rules.py",
             "test_match.py::test_sample_match_and_its_duels_are_legal",
             "test_match.py::test_extra_turns_or_finish_the_phase"),
    enforced("TIME-04", "After the 3 extra turns the player with more LP wins the duel.",
             "match/rules.py",
             "test_match.py::test_sample_match_and_its_duels_are_legal",
             "test_match.py::test_decided_only_after_all_extra_turns_on_the_higher_lp"),
    enforced("TIME-05", "LP still tied: sudden death, decided when LP next change.",
             "match/rules.py match/links.py",
             "test_match.py::test_time_05_sudden_death_decides_when_the_lp_differ",
             "test_match.py::test_equal_lp_sudden_death_or_a_drawn_duel"),
    enforced("TIME-06", "In sudden death LP paid as a cost count as an LP change.",
             "match/links.py",
             "test_rule_scenarios_30.py::test_time_06_a_sudden_death_decided_by_the_cost_agrees_with_its_duel",
             "test_rule_scenarios_30.py::test_time_06_a_sudden_death_decided_past_a_cost_is_reported"),
    enforced("TIME-07", "At 1-1 after the first procedure, the second decides the match.",
             "match/rules.py",
             "test_match.py::test_time_07_08_an_extra_duel_decides_a_level_match",
             "test_match.py::test_level_at_time_an_extra_duel_or_a_draw"),
    enforced("TIME-08", "Time called between duels: an extra duel of 4 turns from 8000 LP.",
             "match/rules.py",
             "test_match.py::test_time_07_08_an_extra_duel_decides_a_level_match",
             "test_match.py::test_level_at_time_an_extra_duel_or_a_draw"),
    enforced("TIME-09", "Time called before duel 2 with one player leading 1-0: that player wins the match.",
             "match/rules.py",
             "test_match.py::test_one_nil_when_time_is_called_between_duels_wins_under_time_09",
             "test_match.py::test_time_09_a_one_nil_lead_at_time_ended_otherwise_is_refused"),
    # -- 6. Conduct and penalties ----------------------------------------------------------------
    outside("PEN-01", "About 3 minutes of thinking per turn; slow play earns a caution.", "a judge's call on pace"),
    enforced("PEN-02", "The listed violations (lateness, slow play, marked cards, a deck breaking the banlist, "
             "a card not on the registered decklist...).",
             "match/rules.py rules/identity.py",
             "test_match.py::test_pen_02_game_loss_ends_the_duel_or_counts_as_the_next",
             "test_match.py::test_pen_02_a_match_ended_by_a_disqualification_says_so"),
    outside("PEN-03", "Manners: venue rules, no eating, leave the seat only with consent, hands off the opponent's cards.",
            "conduct at the table is not recorded"),
    # -- 7. Duel setup ---------------------------------------------------------------------------
    enforced("SETUP-01", "Each player starts with 8000 LP (unless the duel's options say otherwise).",
             "rules/setup.py", "test_rules_turn.py::test_setup_01_02_opening_gives_8000_lp_and_five_cards",
             "test_rules_turn.py::test_setup_01_other_starting_lp_is_refused"),
    enforced("SETUP-02", "Before the duel: decks shuffled, first player decided, each draws 5, then the first turn.",
             "rules/setup.py rules/turn.py", "test_rules_turn.py::test_setup_01_02_opening_gives_8000_lp_and_five_cards",
             "test_rules_turn.py::test_setup_02_pre_duel_order"),
    outside("SETUP-03", "Extra and Side Decks lie face-down; players check the Side Deck count and equal swaps.",
            "table handling; the views hide the Extra Deck from the opponent"),
    enforced("SETUP-04", "The first player does not draw in their first Draw Phase (unless the duel's options say so).",
             "rules/turn.py",
             "test_rules_turn.py::test_setup_04_first_player_skips_first_draw",
             "test_rules_turn.py::test_setup_04_first_player_drawing_on_turn_1_is_refused"),
    recorded("SETUP-05", "Coins, dice, counters and tokens may be needed; small objects may stand in.",
             "coin_tossed, die_rolled, counters_changed and token_created record them"),
    # -- 8. Field zones --------------------------------------------------------------------------
    enforced("ZONE-01", "Each player has 5 Main Monster Zones, 5 Spell & Trap Zones and a Field Zone; 2 shared Extra Monster Zones.",
             "rules/setup.py rules/zones.py", "test_rules_turn.py::test_set_up_places_every_card_as_described",
             "test_rules_summon.py::test_zone_01_no_normal_summon_into_a_full_field"),
    enforced("ZONE-02", "Before the New Master Rule there were no Extra Monster Zones.", "rules/zones.py",
             "test_rulesets.py::test_zone_02_extra_monster_zones_exist_from_the_new_master_rule",
             "test_rules_zones.py::test_zone_03_nis_01_illegal_extra_deck_placement_refused"),
    enforced("ZONE-03", "Monsters not from the Extra Deck go to Main Monster Zones; Extra Deck monsters to an EMZ or a linked zone.",
             "rules/outcome.py rules/setup.py rules/summon.py rules/zones.py",
             "test_rules_zones.py::test_zone_03_nis_01_legal_extra_deck_placement",
             "test_rules_zones.py::test_zone_03_nis_01_illegal_extra_deck_placement_refused"),
    enforced("ZONE-04", "Each player may use one Extra Monster Zone; the first to use one picks it.",
             "rules/outcome.py rules/setup.py rules/zones.py",
             "test_rules_zones.py::test_nis_01_material_leaving_its_emz_frees_it",
             "test_rules_zones.py::test_zone_04_second_extra_monster_zone_refused"),
    applied("ZONE-05", "Extra Link: co-linked Link monsters let one player use both Extra Monster Zones.",
            "the zone check allows the second EMZ only through Extra Link (refused as ZONE-04 otherwise)"),
    applied("ZONE-06", "Without link arrows only one Extra Deck monster (in your EMZ); arrows open Main Monster Zones.",
            "linked zones come from the Link monsters' arrows; a placement they do not allow is refused as ZONE-03"),
    applied("ZONE-07", "Pendulum Summon: from the Extra Deck to an EMZ or linked zone, from the hand to any Main Monster Zone.",
            "checked as ZONE-03 and NIS-01 when a Pendulum Summon places its monsters"),
    enforced("ZONE-08", "Spell & Trap Zones and Pendulum Zones hold 5 cards in all; a Spell needs a free zone.",
             "rules/outcome.py rules/setup.py rules/zones.py",
             "test_rules_chain.py::test_zone_08_set_in_free_zone_and_field_zone_is_not_counted",
             "test_rules_chain.py::test_zone_08_spell_trap_zone_must_exist_and_be_free"),
    enforced("ZONE-09", "The outer Spell & Trap Zones are the Pendulum Zones; only a Pendulum card there is in one.",
             "rules/outcome.py rules/setup.py rules/spell_trap.py rules/zones.py",
             "test_rules_chain.py::test_pend_01_zone_09_scale_activated_in_outer_zone",
             "test_rules_chain.py::test_zone_09_scale_in_middle_zone_refused"),
    enforced("ZONE-10", "One Field Zone per player, for one Field Spell, outside the 5 Spell & Trap Zones.",
             "rules/outcome.py rules/setup.py rules/spell_trap.py",
             "test_rules_chain.py::test_zone_08_set_in_free_zone_and_field_zone_is_not_counted",
             "test_rules_chain.py::test_zone_10_field_spells_and_only_they_use_the_field_zone"),
    enforced("ZONE-11", "The Deck is hidden and drawn from the top, its order unchanged except by a shuffle.",
             "rules/chain.py", "test_rule_scenarios_31.py::test_a_card_whose_text_allows_it_activates_there_citing_it",
             "test_rule_scenarios_31.py::test_a_card_activates_no_effect_where_it_is_hidden_or_unusable"),
    enforced("ZONE-12", "The Extra Deck is hidden; only Pendulums added during the duel are face-up in it.",
             "rules/outcome.py rules/setup.py", "test_rules_zones.py::test_card_moved_basic_rules_allow",
             "test_rules_turn.py::test_set_up_refuses_impossible_boards"),
    applied("ZONE-13", "The GY is public and its order never changes.",
            "the GY is kept in the order cards arrive; the importer checks that order against the engine's"),
    enforced("ZONE-14", "Hand size, GY contents and LP are public, and LP must be stated correctly.", "rules/outcome.py",
             "test_rules_zones.py::test_zone_14_lp_change_stated_correctly",
             "test_rules_zones.py::test_zone_14_lp_and_random_results_refused"),
    enforced("ZONE-15", "Banished cards are face-up and public, unless banished face-down (seen by the owner only, "
             "never targeted).", "rules/chain.py",
             "test_rule_scenarios_25.py::test_zone_15_a_banished_card_is_public_unless_banished_face_down",
             "test_rule_scenarios_27.py::test_zone_15_a_card_banished_face_down_cannot_be_targeted_refused"),
    applied("ZONE-16", "'On the field' excludes the GY, Deck, banished zone, hand, Extra Deck and Xyz materials.",
            "the fold's field is Monster, Spell & Trap and Field Zones; materials are under their monster (XMAT-02)"),
    # -- 9. Turn structure, phases and hand size ------------------------------------------------
    enforced("TURN-01", "The phases run Draw, Standby, Main 1, Battle, Main 2, End.", "rules/setup.py rules/turn.py",
             "test_rules_turn.py::test_turn_01_07_a_full_turn_in_order",
             "test_rules_turn.py::test_turn_01_set_up_in_an_unknown_phase_is_refused"),
    enforced("TURN-02", "In the Draw Phase the turn player draws 1 card (not on the first player's first turn).",
             "rules/base.py rules/setup.py rules/turn.py", "test_rules_turn.py::test_turn_02_the_turn_player_draws_one_then_effects_may_draw",
             "test_rules_turn.py::test_turn_02_draw_phase_draw_is_one_card_by_the_turn_player"),
    card_text("TURN-03", "Standby Phase effects are processed one at a time, in the order the turn player picks.",
              "the facts say which effects answer the Standby Phase (EVENT_PHASE+PHASE_STANDBY), not which met their "
              "condition (code) that turn, nor does the record say in what order the turn player took them (CONF-13)"),
    enforced("TURN-04", "Main Phase: one Normal Summon or Set, Flip and Special Summons, position changes, activations, Sets.",
             "rules/spell_trap.py", "test_rules_chain.py::test_turn_04_set_in_main_phase_2",
             "test_rules_chain.py::test_turn_04_set_outside_own_main_phase_refused"),
    applied("TURN-05", "The Battle Phase is optional.", "a turn may go from Main Phase 1 to the End Phase (TURN-07 then forbids Main Phase 2)"),
    enforced("TURN-06", "No Normal Summon in the Battle Phase.", "rules/summon.py",
             "test_rules_summon.py::test_turn_06_a_normal_summon_in_main_phase_2",
             "test_rules_summon.py::test_turn_06_no_normal_summon_in_the_battle_phase"),
    enforced("TURN-07", "Main Phase 2 comes only after a Battle Phase.", "rules/turn.py",
             "test_rules_turn.py::test_turn_01_07_a_full_turn_in_order",
             "test_rules_turn.py::test_turn_07_main_phase_2_without_a_battle_phase_is_refused"),
    card_text("TURN-08", "End Phase: the end is declared, 'at the end of the turn' effects apply, then the hand is adjusted.",
              "the facts say which effects answer the End Phase (EVENT_PHASE+PHASE_END), not which met their condition "
              "(code) that turn; the hand adjustment is HAND-01. Whatever an End Phase effect changes with no chain open "
              "after both players passed (a card moved, LP, ATK/DEF/Level, counters, control, a Token, named as its "
              "cause; not a cost) gives the turn player priority again (rules/turn.py end_phase_effect, PRIO-01); a "
              "lapse (an ATK change or a control change undone by the cause that made it this turn) does not"),
    enforced("HAND-01", "At the end of the End Phase the turn player discards down to 6 cards.", "rules/turn.py",
             "test_rules_turn.py::test_hand_01_discard_down_to_six_then_the_turn_ends",
             "test_rules_turn.py::test_hand_01_hand_limit"),
    applied("HAND-02", "Effects can change the maximum hand size.",
            "HAND-01 is not called while a face-up card's script (or an effect one registered while resolving) "
            "declares EFFECT_HAND_LIMIT (rules/card_text.py); else an event citing the effect sets HAND-01 aside (GEN-01)"),
    # -- 10. Priority ----------------------------------------------------------------------------
    enforced("PRIO-01", "The turn player holds priority first in every phase and step.",
             "rules/chain.py rules/turn.py",
             "test_rules_gaps.py::test_prio_01_the_opponent_activates_once_the_turn_player_passed",
             "test_rules_gaps.py::test_prio_chain_04_passes_refused"),
    applied("PRIO-02", "While one player holds priority the other may activate only trigger (and flip) effects.",
            "when passes are recorded, an activation out of turn is refused as PRIO-01, PRIO-03 or CHAIN-04; which effects are triggers (activated without priority) is card text"),
    enforced("PRIO-03", "Activating or passing hands priority to the opponent (what uses no priority, a card shown, "
             "an LP change, a move by the rules, keeps the passes).",
             "rules/battle.py rules/chain.py rules/turn.py",
             "test_rules_gaps.py::test_chain_04_a_chain_resolves_after_both_players_pass",
             "test_rules_gaps.py::test_prio_chain_04_passes_refused"),
    enforced("PRIO-04", "The turn player passes priority before the phase or step changes: not while a chain is open.",
             "rules/turn.py", "test_rules_turn.py::test_prio_04_chain_05_chain_resolved_before_moving_on",
             "test_rules_turn.py::test_prio_04_chain_05_nothing_moves_on_while_a_chain_is_open"),
    enforced("PRIO-05", "When the turn player declares an end (passes with no chain open), the opponent may still respond "
             "'before the end'; once they pass too, the phase or step has ended (no attack in an ended Battle Step).",
             "rules/battle.py rules/chain.py rules/turn.py",
             "test_rule_scenarios_28.py::test_prio_05_the_opponent_answers_before_the_end_and_the_phase_goes_on",
             "test_rule_scenarios_28.py::test_prio_05_once_both_players_passed_the_phase_has_ended"),
    applied("PRIO-06", "Open game state: your Main Phase, your priority, nothing waiting; needed for Normal Summons, Ignition effects...",
            "checked under the rule of each action: SUM-10, POS-07, TURN-04, SPELL-02, EFF-02, PEND-02; with the passes "
            "recorded, not after the turn player's own pass (PRIO-03, PRIO-05)"),
    # -- 11. Normal Summon, Set, Tribute and Flip Summon -----------------------------------------
    enforced("SUM-01", "A Normal Summon or Set: from the hand, in your Main Phase, once per turn.", "rules/summon.py",
             "test_rules_summon.py::test_sum_01_sum_09_one_normal_summon_or_set_from_the_hand",
             "test_rules_summon.py::test_sum_01_normal_summon_is_once_per_turn_from_the_hand"),
    enforced("SUM-02", "A Normal Summon is face-up Attack (a Summon) or face-down Defense (a Set, not a 'Summon': nothing negates it as one).",
             "rules/summon.py", "test_rules_summon.py::test_sum_02_a_summon_is_negated_a_set_is_left_alone",
             "test_rules_summon.py::test_sum_02_a_set_negated_as_if_it_were_a_summon_refused"),
    enforced("SUM-03", "A negated Normal Summon uses the turn's Normal Summon; the monster goes to the GY.",
             "rules/summon.py",
             "test_rules_summon.py::test_sum_03_a_flip_summon_of_a_monster_once_summoned_by_an_effect_can_be_negated",
             "test_rules_gaps.py::test_sum_03_after_a_negated_summon_a_set_is_refused_too"),
    enforced("SUM-04", "Tributes by Level: up to 4 none, 5-6 one, 7 or more two.", "rules/summon.py",
             "test_rules_summon.py::test_sum_04_tributes_by_level",
             "test_rules_summon.py::test_sum_04_wrong_number_of_tributes"),
    applied("SUM-05", "A Tribute Summon may use the zone a Tribute frees, with no other free zone.",
            "the Tributes leave before the zone is checked (ZONE-01)"),
    enforced("SUM-06", "A Tribute is a monster you control on the field, face-down ones too; it is not destruction.",
             "rules/base.py rules/summon.py", "test_rules_summon.py::test_sum_06_face_down_monsters_may_be_tributed",
             "test_rules_summon.py::test_sum_06_tributes_are_your_own_monsters_on_the_field"),
    enforced("SUM-07", "Tribute Summon: declare, Tribute, place; a Tribute's optional 'when sent to the GY' trigger misses the timing.",
             "rules/timing.py", "test_rules_effects.py::test_sum_07_sps_09_an_if_trigger_of_a_tribute_or_a_material_activates",
             "test_rules_effects.py::test_sum_07_a_when_trigger_of_a_tribute_refused"),
    enforced("SUM-08", "A Set monster stays hidden, and a Level 5 or higher one needs its Tributes even when Set "
             "(a Set the record could not see is judged when an event shows the card; one it knows, as SUM-04).",
             "rules/summon.py",
             "test_rule_scenarios_27.py::test_sum_08_a_set_shown_later_that_had_its_tributes_stands_unflagged",
             "test_rule_scenarios_27.py::test_sum_08_the_same_record_from_a_machine_is_refused_and_an_audit_collects_it"),
    enforced("SUM-09", "A Normal Summon is in Attack; face-up Defense only under an effect, and that is not a Set.",
             "rules/summon.py", "test_rules_summon.py::test_sum_01_sum_09_one_normal_summon_or_set_from_the_hand",
             "test_rules_summon.py::test_sum_09_a_normal_summon_in_defense_needs_an_effect"),
    enforced("SUM-10", "A Flip Summon turns your face-down monster face-up Attack in your Main Phase; no count limit.",
             "rules/summon.py", "test_rules_summon.py::test_sum_10_flip_summon_a_monster_set_on_an_earlier_turn",
             "test_rules_summon.py::test_sum_10_flip_summon_only_of_your_face_down_monster_in_your_main_phase"),
    enforced("SUM-11", "A Flip Summon is a position change: not the turn it was Set or summoned (option: by you), nor after it changed.",
             "rules/summon.py", "test_rules_summon.py::test_sum_10_flip_summon_a_monster_set_on_an_earlier_turn",
             "test_rules_summon.py::test_sum_11_no_flip_summon_the_turn_it_was_set_or_changed"),
    enforced("SUM-12", "A FLIP effect activates on any flip face-up; 'when Flip Summoned' only on a Flip Summon.", "rules/effects.py",
             "test_rules_effects.py::test_sum_12_sps_06_a_trigger_on_the_summon_it_answers",
             "test_rules_effects.py::test_sum_12_a_when_flip_summoned_trigger_without_a_flip_summon_refused"),
    # -- 12. Special Summons ---------------------------------------------------------------------
    enforced("SPS-01", "A Special Summon brings out a monster by its own procedure or by an effect.", "rules/summon.py",
             "test_rules_summon.py::test_sps_01_special_summons",
             "test_rules_summon.py::test_sps_special_summons_refused"),
    enforced("SPS-02", "Special Summons are unlimited, except Pendulum Summon: once per turn.", "rules/summon.py",
             "test_rules_summon.py::test_pend_03_sps_02_one_pendulum_summon_of_several_monsters",
             "test_rules_summon.py::test_pend_03_sps_02_pendulum_summon_refused"),
    enforced("SPS-03", "A Special Summon needs a usable free zone, unless its procedure frees one.", "rules/summon.py",
             "test_rule_scenarios_25.py::test_sps_03_a_special_summon_into_a_free_zone_or_one_its_procedure_frees",
             "test_rule_scenarios_25.py::test_sps_03_a_special_summon_into_a_taken_zone_refused"),
    applied("SPS-04", "The summoner picks the zone, within the placement rules.", "checked as ZONE-03, ZONE-04 and NIS-01"),
    enforced("SPS-05", "A Special Summon places the monster face-up, Attack or Defense, unless an effect says face-down.",
             "rules/summon.py", "test_rules_summon.py::test_sps_01_special_summons",
             "test_rules_summon.py::test_sps_special_summons_refused"),
    enforced("SPS-06", "Placing the monster is the 'when Special Summoned' timing.", "rules/effects.py",
             "test_rules_effects.py::test_sum_12_sps_06_a_trigger_on_the_summon_it_answers",
             "test_rules_effects.py::test_sps_06_a_when_special_summoned_trigger_without_a_special_summon_refused"),
    enforced("SPS-07", "An inherent Special Summon: your Main Phase, open game state, its printed condition; no chain.",
             "rules/summon.py", "test_special_summons.py::test_sps_07_12_15_special_summons_allowed",
             "test_special_summons.py::test_sps_07_12_13_15_special_summons_refused"),
    card_text("SPS-08", "An inherent Special Summon can be negated by 'negate the summon' cards, not by activation negation.",
              "summon_negated names the card that negated it, but its script's categories (CATEGORY_DISABLE_SUMMON, "
              "CATEGORY_NEGATE) are hints scripts do not always set, and which summons it may negate is a condition (code); "
              "that a summon is negated as it is attempted, never by a chain link, is SPS-11 and CHAIN-10"),
    enforced("SPS-09", "Cards sent for an inherent summon's condition move by the procedure: their optional triggers miss.",
             "rules/timing.py", "test_rules_effects.py::test_sum_07_sps_09_an_if_trigger_of_a_tribute_or_a_material_activates",
             "test_rule_scenarios_41.py::test_sps_09_a_when_trigger_of_an_inherent_summons_discard_refused"),
    card_text("SPS-10", "Effects that Special Summon are activations and summon as they resolve.",
              "whether an effect summons is its category CATEGORY_SPECIAL_SUMMON, a hint scripts do not always set; the "
              "summon names its cause, and a summon by a resolving effect is checked as SPS-11"),
    enforced("SPS-11", "A summon by a resolving effect cannot be negated; only a summon being attempted can.", "rules/summon.py",
             "test_rules_summon.py::test_sps_11_a_summon_is_negated_as_it_is_attempted",
             "test_rules_summon.py::test_sps_11_summons_that_cannot_be_negated"),
    enforced("SPS-12", "A monster with a summoning condition must be properly summoned before an effect revives it.",
             "rules/summon.py", "test_rules_summon.py::test_sps_12_a_properly_summoned_monster_may_be_revived",
             "test_special_summons.py::test_sps_07_12_13_15_special_summons_refused"),
    enforced("SPS-13", "A monster that 'can only be Special Summoned by' a way is summoned only that way.", "rules/summon.py",
             "test_special_summons.py::test_sps_13_summoned_only_its_own_way",
             "test_special_summons.py::test_pend_06_sps_13_pendulum_summon_refused"),
    applied("SPS-14", "A monster loses its properly-summoned status when it returns to the Deck or hand.",
            "the fold clears it then; a revival afterwards is refused as SPS-12"),
    enforced("SPS-15", "Summoning conditions are ignored only by effects that say so; otherwise not from the hand or Deck.",
             "rules/summon.py", "test_special_summons.py::test_sps_07_12_15_special_summons_allowed",
             "test_special_summons.py::test_sps_07_12_13_15_special_summons_refused"),
    applied("SPS-16", "An inherent summon is not by a card effect; Fusion and Ritual Summons are made by a resolving card.",
            "checked as FUS-01 and RIT-01 (a Fusion or Ritual Summon names its resolving cause)"),
    enforced("RIT-01", "A Ritual Summon is made by a resolving Ritual Spell (Speed 1, on the chain).", "rules/summon.py",
             "test_special_summons.py::test_rit_01_02_ritual_summon",
             "test_special_summons.py::test_rit_01_02_ritual_summon_refused"),
    enforced("RIT-02", "Tribute 1 or more monsters from hand or field, Levels adding up; the Ritual monster comes from the hand.",
             "rules/summon.py", "test_special_summons.py::test_rit_01_02_ritual_summon",
             "test_special_summons.py::test_rit_01_02_ritual_summon_refused"),
    enforced("RIT-03", "Nothing may be activated from the start of the resolution until the Ritual Summon succeeds.",
             "rules/summon.py",
             "test_rule_scenarios_25.py::test_rit_03_the_ritual_summon_then_the_chain_ends_then_a_new_chain",
             "test_rule_scenarios_25.py::test_rit_03_an_activation_during_the_ritual_resolution_refused"),
    enforced("FUS-01", "A Fusion Summon is made by a resolving card (Polymerization or another effect).", "rules/summon.py",
             "test_special_summons.py::test_fus_01_02_fusion_summon",
             "test_special_summons.py::test_fus_01_02_fusion_summon_refused"),
    enforced("FUS-02", "Two or more materials from your hand or field go to the GY; the Fusion monster comes from the Extra Deck.",
             "rules/summon.py", "test_special_summons.py::test_fus_01_02_fusion_summon",
             "test_special_summons.py::test_fus_02_materials_from_elsewhere_need_a_cited_card"),
    enforced("FUS-03", "Nothing may be activated from the start of the resolution until the Fusion Summon succeeds.",
             "rules/summon.py",
             "test_rule_scenarios_25.py::test_fus_03_nothing_between_polymerization_and_its_fusion_summon",
             "test_rule_scenarios_25.py::test_fus_03_an_activation_during_the_resolution_refused"),
    card_text("FUS-04", "Fusion monsters that do not need Polymerization are summoned their own way.",
              "which summons its EFFECT_SPSUMMON_CONDITION allows is its value, code the facts do not keep"),
    enforced("SYN-01", "Synchro Summon: 1 face-up Tuner and 1 or more face-up non-Tuners you control, Levels adding up exactly.",
             "rules/summon.py", "test_special_summons.py::test_syn_01_synchro_summon",
             "test_special_summons.py::test_syn_01_synchro_summon_refused"),
    card_text("SYN-02", "Every printed material restriction must be met, for all the non-Tuners.",
              "material restrictions are the filter functions a script passes to Synchro.AddProcedure, a shared "
              "procedure the reader keeps only as a helper fact"),
    card_text("SYN-03", "A monster that gains a Tuner's name is no Tuner; some Synchros need special Tuners.",
              "material restrictions are the filter functions a script passes to Synchro.AddProcedure, a shared "
              "procedure the reader keeps only as a helper fact"),
    applied("SYN-04", "A negated Synchro Summon destroys the monster, and it does not count as Synchro Summoned.",
            "summon_negated leaves it not properly summoned; its revival is refused as SPS-12"),
    enforced("XYZ-01", "Xyz Summon: 2 or more face-up monsters you control of one Level, the Xyz monster of that Rank on top.",
             "rules/summon.py", "test_special_summons.py::test_xyz_01_xyz_summon_attaches_its_materials",
             "test_special_summons.py::test_xyz_01_02_xyz_summon_refused"),
    enforced("XYZ-02", "Tokens cannot be Xyz materials.", "rules/outcome.py rules/summon.py",
             "test_special_summons.py::test_xyz_01_xyz_summon_attaches_its_materials",
             "test_special_summons.py::test_xyz_01_02_xyz_summon_refused"),
    card_text("XYZ-03", "An Xyz monster overlaid on another as its text permits is still properly Xyz Summoned.",
              "an event citing the effect may do it (GEN-01); the alternative material is a filter function passed to "
              "Xyz.AddProcedure, not a fact the reader keeps"),
    applied("XYZ-04", "A negated Xyz Summon destroys the monster, and it does not count as Xyz Summoned.",
            "summon_negated leaves it not properly summoned; its revival is refused as SPS-12"),
    enforced("PEND-01", "Activating a Pendulum monster in a Pendulum Zone is a Spell activation; it cannot be Set there.",
             "rules/outcome.py rules/spell_trap.py", "test_rules_chain.py::test_pend_01_zone_09_scale_activated_in_outer_zone",
             "test_rules_chain.py::test_pend_01_pendulum_monster_cannot_be_set"),
    enforced("PEND-02", "In a Pendulum Zone the card is a Spell; its Pendulum Effect is Speed 1, used only there.",
             "rules/spell_trap.py", "test_rules_chain.py::test_pend_02_pendulum_effect_from_a_pendulum_zone",
             "test_rules_chain.py::test_pend_02_pendulum_effect_refused"),
    enforced("PEND-03", "Pendulum Summon: your Main Phase, once per turn, both Scales set, Levels strictly between, from hand or face-up Extra Deck.",
             "rules/summon.py", "test_rules_summon.py::test_pend_03_sps_02_one_pendulum_summon_of_several_monsters",
             "test_rules_summon.py::test_pend_03_sps_02_pendulum_summon_refused"),
    enforced("PEND-04", "A negated Pendulum Summon sends all its monsters to the GY, Pendulums included (each "
             "negated in turn: one left on the field is refused).", "rules/summon.py",
             "test_rule_scenarios_27.py::test_pend_04_a_negated_pendulum_summon_sends_all_its_monsters_to_the_gy",
             "test_rule_scenarios_27.py::test_pend_04_a_monster_of_a_negated_pendulum_summon_left_on_the_field_refused"),
    enforced("PEND-05", "A Pendulum monster leaving the field for the GY goes face-up to its owner's Extra Deck instead "
             "(not one whose activation as a Spell was negated, PEND-01).",
             "rules/chain.py rules/outcome.py", "test_rules_battle.py::test_pend_05_pendulum_destroyed_by_battle_goes_to_extra_deck",
             "test_rules_zones.py::test_card_moved_basic_rules_refuse"),
    enforced("PEND-06", "Face-up Pendulums in the Extra Deck return only by Pendulum Summon; Xyz and Link Pendulums cannot be.",
             "rules/summon.py", "test_special_summons.py::test_pend_03_one_pendulum_summon_of_three_monsters",
             "test_special_summons.py::test_pend_06_sps_13_pendulum_summon_refused"),
    enforced("LINK-01", "Link Summon: your Main Phase, face-up materials you control to the GY, from the Extra Deck.",
             "rules/summon.py", "test_special_summons.py::test_link_01_04_link_summon",
             "test_special_summons.py::test_link_01_05_link_summon_refused"),
    enforced("LINK-02", "The materials add up to the Link Rating exactly: 1 each, a Link material its rating or 1.",
             "rules/summon.py", "test_special_summons.py::test_link_01_04_link_summon",
             "test_special_summons.py::test_link_01_05_link_summon_refused"),
    applied("LINK-03", "A Link material whose rating would overshoot counts as 1.", "part of the LINK-02 count"),
    applied("LINK-04", "Tokens may be Link materials; Pendulum materials go face-up to the Extra Deck.",
            "a Token is accepted as a Link material; a Pendulum's move is checked as PEND-05"),
    enforced("LINK-05", "A Link monster is always in Attack Position and has no Level or DEF to change.",
             "rules/outcome.py rules/position.py rules/setup.py rules/summon.py",
             "test_rules_zones.py::test_link_05_card_07_stats_changed_sets_current_values",
             "test_rules_zones.py::test_link_05_card_07_stats_change_refused"),
    applied("LINK-06", "A zone an active arrow points to is linked; Link monsters pointing at each other are co-linked.",
            "the fold computes linked zones from the arrows for ZONE-03 and ZONE-04"),
    # -- 13. Battle positions --------------------------------------------------------------------
    enforced("POS-01", "A monster is face-up Attack, face-up Defense or face-down Defense.",
             "rules/outcome.py rules/position.py rules/setup.py", "test_rules_zones.py::test_card_moved_basic_rules_allow",
             "test_rules_zones.py::test_card_moved_basic_rules_refuse"),
    enforced("POS-02", "Face-down Attack arises only from special effects; attacked, a monster in it becomes face-up Attack.",
             "rules/position.py",
             "test_rules_battle.py::test_pos_04_the_record_may_state_the_flip_when_the_engine_makes_it",
             "test_rule_scenarios_35b.py::test_pos_02_no_other_position_for_an_attacked_face_down_attack_monster"),
    enforced("POS-03", "Only a face-up Attack Position monster attacks.", "rules/battle.py",
             "test_rules_battle.py::test_pos_03_attack_position_monster_attacks",
             "test_rules_battle.py::test_pos_03_defense_or_face_down_monster_cannot_attack"),
    enforced("POS-04", "A face-down Defense monster is hidden, cannot attack, and is flipped face-up when attacked, before damage calculation.",
             "rules/chain.py rules/position.py", "test_rule_scenarios_31.py::test_a_card_whose_text_allows_it_activates_there_citing_it",
             "test_rule_scenarios_31.py::test_a_card_activates_no_effect_where_it_is_hidden_or_unusable"),
    card_text("POS-05", "A face-down monster cannot pay a cost that needs a verifiable property; it may be Tributed.",
              "whether a cost names a property is in its cost function's code (the facts keep only that it has a cost); "
              "that your face-down monster may be Tributed is SUM-06"),
    enforced("POS-06", "A face-down Defense monster cannot be equipped.", "rules/spell_trap.py",
             "test_rule_scenarios_25.py::test_pos_06_ctrl_04_an_equip_spell_equips_a_face_up_monster_either_side",
             "test_rule_scenarios_25.py::test_pos_06_a_face_down_defense_monster_cannot_be_equipped_refused"),
    enforced("POS-07", "Manual position changes: your Main Phase, open game state, each monster once per turn.",
             "rules/position.py", "test_rules_summon.py::test_pos_07_09_position_changes",
             "test_rules_summon.py::test_pos_position_changes_refused"),
    enforced("POS-08", "No manual change the turn a monster was summoned or Set (option: by you), or after it declared an attack.",
             "rules/position.py rules/summon.py", "test_rules_summon.py::test_pos_08_a_monster_summoned_on_an_earlier_turn_changes_position",
             "test_rules_summon.py::test_pos_position_changes_refused"),
    enforced("POS-09", "Manual changes: Attack and Defense face-up, or a Flip Summon; never face-down to face-up Defense.",
             "rules/position.py", "test_rules_summon.py::test_pos_07_09_position_changes",
             "test_rules_summon.py::test_pos_position_changes_refused"),
    # -- 14. Battle Phase ------------------------------------------------------------------------
    enforced("BATTLE-01", "Battle Phase steps: Start, Battle, Damage (after an attack), End. Entering the Battle Phase "
             "(phase_entered) is already its Start Step: the next step_entered is the Battle or End Step.",
             "rules/setup.py rules/turn.py",
             "test_rules_turn.py::test_battle_01_set_up_in_the_battle_phase",
             "test_rules_turn.py::test_battle_01_steps_out_of_order_are_refused"),
    enforced("BATTLE-02", "In the Battle Step the turn player attacks a monster the opponent controls, or directly when there is none.",
             "rules/battle.py", "test_rules_battle.py::test_battle_02_attack_declared_in_battle_step",
             "test_rules_battle.py::test_battle_02_illegal_attack_declaration_refused"),
    enforced("BATTLE-03", "Each monster attacks once per Battle Phase.", "rules/battle.py",
             "test_rules_battle.py::test_battle_03_each_monster_attacks_once",
             "test_rules_battle.py::test_battle_03_second_attack_refused"),
    applied("BATTLE-04", "A monster in an Extra Monster Zone battles normally and prevents direct attacks.",
            "any monster the opponent controls prevents a direct attack (BATTLE-02)"),
    recorded("BATTLE-05", "The turn player ends the Battle Phase in the End Step.", "step_entered records the End Step"),
    enforced("BATTLE-06", "A replay: when the opponent's monsters change after an attack is declared, retarget or cancel.",
             "rules/battle.py", "test_rules_battle.py::test_battle_06_replay_after_opponents_monsters_change",
             "test_rules_battle.py::test_battle_06_replay_without_change_refused"),
    enforced("BATTLE-07", "A monster whose attack was replayed away has used its attack and cannot change position.",
             "rules/battle.py", "test_rule_scenarios_31b.py::test_battle_06_after_a_replay_the_same_monster_declares_its_attack_again",
             "test_rule_scenarios_31b.py::test_battle_07_a_forfeited_attack_is_called_as_forfeited"),
    applied("BATTLE-08", "An attack declaration is no activation and cannot be chained to.", "checked as CHAIN-10"),
    enforced("BATTLE-09", "Damage Step limits (newest seed): only some triggers and Quick effects may be activated.",
             "rules/chain.py",
             "test_rules_gaps.py::test_battle_09_after_damage_calculation_only_negation_and_counter_traps",
             "test_rules_gaps.py::test_battle_09_quick_play_after_damage_calculation_refused"),
    enforced("BATTLE-10", "Damage Step limits (older seeds): ATK/DEF changes and Counter Traps, before damage calculation.",
             "rules/chain.py", "test_rules_effects.py::test_battle_10_an_atk_change_until_damage_calculation",
             "test_rules_effects.py::test_battle_10_an_atk_change_after_damage_calculation_refused"),
    enforced("BATTLE-11", "Damage calculation takes precedence in the Damage Step; it happens once per attack.", "rules/battle.py",
             "test_rules_battle.py::test_nis_03_damage_calculated_in_damage_step",
             "test_rules_battle.py::test_nis_03_battle_11_log_05_damage_calculation_refused"),
    enforced("BATTLE-12", "An attacked face-down monster is flipped before damage calculation; its FLIP effect comes after "
             "and cannot target a monster that battle destroyed.",
             "rules/chain.py",
             "test_rules_gaps.py::test_battle_12_flip_effect_activates_after_damage_calculation",
             "test_rules_battle.py::test_battle_12_flip_effect_targeting_a_monster_destroyed_in_that_battle_refused"),
    card_text("BATTLE-13", "A monster whose destruction is determined stops applying its continuous effects.",
              "the facts say which lasting effects a monster has, but the record carries their results (ATK, damage), "
              "not which effect applied when"),
    enforced("BATTLE-14", "Monsters destroyed by battle go to the GY (Pendulums to the Extra Deck).", "rules/outcome.py rules/turn.py",
             "test_rules_battle.py::test_dmg_10_battle_14_result_applied_then_attack_closes",
             "test_rules_battle.py::test_dmg_10_battle_14_result_not_applied_as_calculated_refused"),
    applied("BATTLE-15", "Master Rule 3 split the Damage Step into five timings.", "the timings are NIS-03"),
    # -- 15. Damage calculation ------------------------------------------------------------------
    enforced("DMG-01", "Attack against a weaker Attack monster: it is destroyed, its controller takes the difference.",
             "rules/battle.py", "test_rules_battle.py::test_dmg_01_to_09_legal_result_is_applied",
             "test_rules_battle.py::test_dmg_01_to_09_disagreeing_record_refused"),
    enforced("DMG-02", "Equal ATK: both are destroyed, no damage.", "rules/battle.py",
             "test_rules_battle.py::test_dmg_01_to_09_legal_result_is_applied",
             "test_rules_battle.py::test_dmg_01_to_09_disagreeing_record_refused"),
    enforced("DMG-03", "Both 0 ATK: neither is destroyed (both, under the duel option zero_atk_destroyed).", "rules/battle.py",
             "test_rules_battle.py::test_dmg_01_to_09_legal_result_is_applied",
             "test_rules_battle.py::test_dmg_01_to_09_disagreeing_record_refused"),
    enforced("DMG-04", "Attack against a stronger Attack monster: the attacker is destroyed, its controller takes the difference.",
             "rules/battle.py", "test_rules_battle.py::test_dmg_01_to_09_legal_result_is_applied",
             "test_rules_battle.py::test_dmg_01_to_09_disagreeing_record_refused"),
    enforced("DMG-05", "ATK above the target's DEF: the Defense monster is destroyed, no damage.", "rules/battle.py",
             "test_rules_battle.py::test_dmg_01_to_09_legal_result_is_applied",
             "test_rules_battle.py::test_dmg_01_to_09_disagreeing_record_refused"),
    enforced("DMG-06", "ATK equal to DEF: neither is destroyed, no damage.", "rules/battle.py",
             "test_rules_battle.py::test_dmg_01_to_09_legal_result_is_applied",
             "test_rules_battle.py::test_dmg_01_to_09_disagreeing_record_refused"),
    enforced("DMG-07", "ATK below DEF: nothing is destroyed, the attacker's controller takes DEF minus ATK.", "rules/battle.py",
             "test_rules_battle.py::test_dmg_01_to_09_legal_result_is_applied",
             "test_rules_battle.py::test_dmg_01_to_09_disagreeing_record_refused"),
    enforced("DMG-08", "A direct attack: the defending player takes the attacker's ATK.", "rules/battle.py",
             "test_rules_battle.py::test_dmg_01_to_09_legal_result_is_applied",
             "test_rules_battle.py::test_dmg_01_to_09_disagreeing_record_refused"),
    enforced("DMG-09", "A direct attack with 0 ATK deals nothing and is no successful direct attack.", "rules/battle.py",
             "test_rules_battle.py::test_dmg_01_to_09_legal_result_is_applied",
             "test_rules_battle.py::test_dmg_01_to_09_disagreeing_record_refused"),
    enforced("DMG-10", "Battle damage is the damage the calculation gives, told apart from effect damage.",
             "rules/outcome.py rules/turn.py", "test_rules_battle.py::test_dmg_10_battle_14_result_applied_then_attack_closes",
             "test_rules_battle.py::test_dmg_10_battle_14_result_not_applied_as_calculated_refused"),
    # -- 16. Spell Cards -------------------------------------------------------------------------
    applied("SPELL-01", "Quick-Play Spells are Speed 2; every other Spell is Speed 1.", "checked as CHAIN-01"),
    enforced("SPELL-02", "A Spell other than a Quick-Play is activated in your own Main Phase with an open game state.",
             "rules/spell_trap.py", "test_rules_chain.py::test_spell_02_normal_spell_in_own_main_phase",
             "test_rules_chain.py::test_spell_02_speed_1_spell_outside_own_main_phase_refused"),
    enforced("SPELL-03", "A Spell is Set face-down from the hand; a Set Spell (not a Quick-Play) may be activated that turn.",
             "rules/position.py rules/spell_trap.py", "test_rules_chain.py::test_spell_03_set_spell_activated_the_same_turn",
             "test_rules_chain.py::test_spell_03_a_spell_trap_turned_face_down_needs_an_effect"),
    enforced("SPELL-04", "After resolving a Spell goes to the GY, except Continuous, Equip and Field Spells, and Normal Spells "
             "whose text keeps them (Swords of Revealing Light: spell_trap.STAYS_ON_THE_FIELD, or a cite).",
             "rules/chain.py rules/outcome.py",
             "test_rules_chain.py::test_spell_04_swords_of_revealing_light_stays_on_the_field",
             "test_rules_chain.py::test_spell_04_trap_04_resolved_card_left_on_field_refused"),
    enforced("SPELL-05", "An Equip Spell targets 1 face-up monster on activation and stays in your zone.", "rules/spell_trap.py",
             "test_special_summons.py::test_spell_05_07_equip_cards_follow_their_monster",
             "test_special_summons.py::test_spell_05_07_equip_refused"),
    enforced("SPELL-06", "A negated Equip activation equips nothing, changes no ATK/DEF and goes to the GY (a negated "
             "effect equipped in a negated state is card text).", "rules/base.py rules/chain.py",
             "test_rules_chain.py::test_term_14_spell_06_a_negated_equip_equips_nothing_and_goes_to_the_gy",
             "test_rules_chain.py::test_term_14_spell_06_a_negated_equip_refused"),
    enforced("SPELL-07", "An Equip Spell goes to the GY when its monster leaves the field or turns face-down.", "rules/spell_trap.py",
             "test_special_summons.py::test_spell_05_07_equip_cards_follow_their_monster",
             "test_special_summons.py::test_spell_05_07_equip_refused"),
    applied("SPELL-08", "Effects a face-up Equip, Field or Continuous Spell activates are effect activations, Speed 1.",
            "checked as CHAIN-01"),
    enforced("SPELL-09", "Equip, Field and Continuous Spells stop applying once they leave the field.", "rules/base.py",
             "test_rule_scenarios_31b.py::test_chain_06_a_continuous_trap_destroyed_before_it_resolves_applies_nothing",
             "test_rule_scenarios_31b.py::test_spell_09_a_continuous_spell_sent_as_its_own_cost_still_resolves"),
    enforced("SPELL-10", "Continuous and Field Spells apply only while face-up in their zone.",
             "rules/spell_trap.py rules/chain.py",
             "test_rules_chain.py::test_spell_10_face_up_continuous_card_activates_its_effect",
             "test_rules_chain.py::test_spell_10_continuous_effect_off_the_field_refused"),
    enforced("SPELL-11", "A new Field Spell of yours sends your old one to the GY (not destroyed; option: destroyed); the opponent's stays.",
             "rules/outcome.py",
             "test_rules_gaps.py::test_spell_11_the_record_may_state_the_old_field_spell_going_to_the_gy",
             "test_rules_gaps.py::test_spell_11_wrong_replacement_refused"),
    enforced("SPELL-12", "Quick-Play Spell: from the hand in your own turn; once Set, either turn but not the turn it was Set.",
             "rules/spell_trap.py", "test_rules_chain.py::test_spell_12_quick_play_spell_timing",
             "test_rules_chain.py::test_spell_12_quick_play_spell_timing_refused"),
    card_text("SPELL-13", "A monster made an equip card is an Equip Spell and returns to its owner's hand.",
              "a monster becomes an equip card in an effect's operation (code, not a fact read); that a card goes to its "
              "owner's hand is CTRL-03"),
    # -- 17. Trap Cards --------------------------------------------------------------------------
    applied("TRAP-01", "Normal and Continuous Traps are Speed 2; Counter Traps Speed 3.", "checked as CHAIN-01"),
    enforced("TRAP-02", "A Trap is Set first, and activated from the next turn, in either player's turn.", "rules/spell_trap.py",
             "test_rules_chain.py::test_trap_02_set_trap_in_opponents_turn",
             "test_rules_chain.py::test_trap_02_trap_timing_refused"),
    applied("TRAP-03", "Card exceptions let Traps be activated the turn they are Set or from the hand.",
            "TRAP-02 is not called when the Trap's own script, a face-up card's, or an effect one registered while "
            "resolving declares EFFECT_TRAP_ACT_IN_HAND or EFFECT_TRAP_ACT_IN_SET_TURN (rules/card_text.py; its "
            "condition is code); else an event citing the card sets TRAP-02 aside (GEN-01)"),
    enforced("TRAP-04", "After resolving a Trap goes to the GY, except Continuous Traps and those that become equips.",
             "rules/chain.py rules/outcome.py", "test_rules_chain.py::test_spell_04_trap_04_resolved_cards_leave_or_stay",
             "test_rules_chain.py::test_spell_04_trap_04_resolved_card_left_on_field_refused"),
    enforced("TRAP-05", "A Continuous Trap applies and activates its effects only while face-up; they are Speed 2.",
             "rules/chain.py",
             "test_rules_chain.py::test_spell_10_face_up_continuous_card_activates_its_effect",
             "test_rule_scenarios_34.py::test_trap_05_a_set_continuous_trap_activates_no_effect_of_its_own"),
    enforced("TRAP-06", "A Counter Trap answers summons, draws and attacks, and a negating one chains directly to what it negates.",
             "rules/chain.py",
             "test_rules_gaps.py::test_trap_06_counter_trap_negates_the_link_it_chains_to",
             "test_rules_gaps.py::test_trap_06_counter_trap_negating_another_link_refused"),
    # -- 18. Spell speeds and chains -------------------------------------------------------------
    enforced("CHAIN-01", "Every activated effect has a Spell Speed (1, 2, or 3 for Counter Traps).", "rules/chain.py",
             "test_rules_chain.py::test_chain_01_recorded_speed_matches_the_card",
             "test_rules_chain.py::test_chain_01_wrong_recorded_speed_refused"),
    enforced("CHAIN-02", "Speed 1 can only be Chain Link 1, except simultaneous triggers.", "rules/chain.py",
             "test_rules_chain.py::test_chain_02_speed_1_starts_a_chain",
             "test_rules_chain.py::test_chain_02_speed_1_cannot_be_chain_link_2"),
    enforced("CHAIN-03", "A response is Speed 2 or more and at least the speed of the link it answers.", "rules/chain.py",
             "test_rules_chain.py::test_chain_03_equal_or_higher_speed_may_respond",
             "test_rules_chain.py::test_chain_03_speed_2_cannot_answer_counter_trap"),
    enforced("CHAIN-04", "Links are added one after another, each answering the newest.",
             "rules/chain.py rules/turn.py",
             "test_rules_chain.py::test_chain_04_links_are_numbered_in_order",
             "test_rules_chain.py::test_chain_04_wrong_link_number_refused"),
    enforced("CHAIN-05", "A chain resolves in reverse order, and nothing is added while it resolves.", "rules/chain.py rules/turn.py",
             "test_rules_chain.py::test_chain_05_worked_example_resolves_in_reverse",
             "test_rules_chain.py::test_chain_05_out_of_order_resolution_refused"),
    enforced("CHAIN-06", "A destroyed card's activated effect still resolves, unless it needs the card face-up on the field.",
             "rules/base.py",
             "test_rule_scenarios_31b.py::test_spell_09_a_continuous_spell_sent_as_its_own_cost_still_resolves",
             "test_rule_scenarios_31b.py::test_chain_06_a_continuous_trap_destroyed_before_it_resolves_applies_nothing"),
    applied("CHAIN-07", "The worked example: Dark Hole, Royal Decree, MST, Magic Jammer, Seven Tools.",
            "its resolution order is CHAIN-05 (test_rules_chain.py::test_chain_05_worked_example_resolves_in_reverse)"),
    applied("CHAIN-08", "Simultaneous triggers build one chain.", "a trigger marked simultaneous may be a later Speed 1 link (CHAIN-02)"),
    card_text("CHAIN-09", "Of several hand cards that would Special Summon themselves at one timing, only one activates.",
              "which hand cards trigger at a timing is their triggers' condition (code), and that they Special Summon "
              "themselves is their operation (CATEGORY_SPECIAL_SUMMON is a hint scripts do not always set)"),
    enforced("CHAIN-10", "Summons, Tributes, costs and attack declarations are no activations and cannot be chained to.",
             "rules/battle.py rules/chain.py", "test_rules_battle.py::test_chain_10_attack_after_the_chain_ended",
             "test_rules_battle.py::test_chain_10_attack_declaration_during_a_chain_refused"),
    enforced("CHAIN-11", "A cost is paid on activation, from what the player has, and is not refunded.", "rules/chain.py",
             "test_rules_chain.py::test_chain_11_costs_are_paid_on_activation",
             "test_rules_chain.py::test_chain_11_lp_cost_above_your_lp_refused"),
    enforced("CHAIN-12", "A trigger cannot activate when its card was in the hand or Deck at the timing.",
             "rules/card_text.py rules/chain.py",
             "test_rules_card_text.py::test_chain_12_a_trigger_activated_where_its_script_lets_it",
             "test_rules_card_text.py::test_chain_12_a_trigger_activated_from_the_hand_refused"),
    applied("CHAIN-13", "Chain Link 1 may be of any speed (Counter Traps at summon timings).", "CHAIN-02 and CHAIN-03 refuse nothing at Chain Link 1"),
    # -- 19. Monster effect types ----------------------------------------------------------------
    recorded("EFF-01", "Effect categories: Ignition, Continuous, Trigger, Quick, and other.", "activated records the effect_type"),
    enforced("EFF-02", "An Ignition effect is activated in your Main Phase with an open game state; Speed 1.", "rules/spell_trap.py",
             "test_rules_chain.py::test_eff_02_ignition_effect_in_open_game_state",
             "test_rules_chain.py::test_eff_02_ignition_effect_outside_open_game_state_refused"),
    enforced("EFF-03", "A Continuous effect is never activated: a monster whose script has only lasting effects activates none.",
             "rules/card_text.py", "test_rules_card_text.py::test_eff_03_eff_07_a_monster_activates_the_effects_its_script_declares",
             "test_rules_card_text.py::test_eff_03_a_monster_with_only_continuous_effects_activated_refused"),
    enforced("EFF-04", "A Trigger effect is Speed 1: chained only with simultaneous triggers.",
             "rules/chain.py rules/effects.py rules/card_text.py",
             "test_rules_card_text.py::test_eff_04_triggers_chained_together_whatever_the_record_calls_them",
             "test_rules_card_text.py::test_eff_04_a_trigger_chained_to_a_spell_refused"),
    enforced("EFF-05", "A FLIP effect triggers on any flip face-up, once for each flip, is mandatory, and after an attack "
             "waits for damage calculation.",
             "rules/card_text.py rules/chain.py",
             "test_rules_card_text.py::test_eff_05_a_flip_effect_activated_after_its_flip_summon",
             "test_rules_card_text.py::test_eff_05_a_flip_effect_left_behind_refused"),
    applied("EFF-06", "A Quick effect is Speed 2 and may be used in the opponent's turn.",
            "a card whose script declares only Quick Effects (or only Ignition Effects) activates one whatever the "
            "record calls it: its Spell Speed is judged as CHAIN-01..03 and an Ignition's open game state as EFF-02 "
            "(rules/effects.py; test_rules_effects.py)"),
    enforced("EFF-07", "Other effects (summoning procedures, rule effects) apply without activation.", "rules/card_text.py",
             "test_rules_card_text.py::test_eff_03_eff_07_a_monster_activates_the_effects_its_script_declares",
             "test_rules_card_text.py::test_eff_07_a_monster_with_only_a_summoning_procedure_activated_refused"),
    # -- 20. Tokens, counters, Xyz materials -----------------------------------------------------
    enforced("TOKEN-01", "Tokens are made by effects and occupy a Monster Zone.", "rules/summon.py",
             "test_rules_summon.py::test_token_01_a_token_occupies_a_monster_zone",
             "test_rules_summon.py::test_token_01_tokens_and_zones_refused"),
    enforced("TOKEN-02", "A Token is always face-up, never goes to the Deck or hand, and vanishes off the field.",
             "rules/outcome.py rules/position.py rules/setup.py rules/summon.py",
             "test_rules_zones.py::test_token_02_token_vanishes_off_the_field",
             "test_special_summons.py::test_token_02_a_token_is_never_face_down"),
    applied("TOKEN-03", "Tokens cannot be Xyz materials but may be Link materials.", "checked as XYZ-02; LINK-04 accepts them"),
    enforced("COUNTER-01", "Counters go only on face-up cards on the field with an effect that places them.", "rules/outcome.py",
             "test_rules_zones.py::test_counter_01_counters_on_a_card_on_the_field",
             "test_rules_zones.py::test_counter_01_counters_refused"),
    enforced("XMAT-01", "Xyz materials lie under the Xyz monster; attaching does not send them to the GY.",
             "rules/base.py rules/outcome.py rules/setup.py", "test_special_summons.py::test_xyz_01_xyz_summon_attaches_its_materials",
             "test_rules_zones.py::test_card_moved_basic_rules_refuse"),
    enforced("XMAT-02", "Xyz materials are not cards on the field: they activate none of their effects and are not targeted.",
             "rules/chain.py rules/outcome.py",
             "test_rule_scenarios_31.py::test_xmat_02_a_detached_material_or_one_whose_text_allows_it_activates",
             "test_rule_scenarios_31.py::test_xmat_02_an_xyz_material_activates_none_of_its_effects"),
    # -- 21. Win, loss and draw ------------------------------------------------------------------
    enforced("WIN-01", "A player at 0 LP loses.", "rules/win.py",
             "test_rules_battle.py::test_win_01_lethal_battle_damage_ends_the_duel",
             "test_rules_turn.py::test_win_01_02_04_refused_endings_and_play_after_a_loss"),
    enforced("WIN-02", "A player who must draw from an empty Deck loses.", "rules/base.py rules/win.py",
             "test_rules_turn.py::test_win_01_02_04_the_duel_ends_as_the_rules_say",
             "test_rules_turn.py::test_win_01_02_04_refused_endings_and_play_after_a_loss"),
    card_text("WIN-03", "A card's special win condition wins the duel (Exodia, Final Countdown...).",
              "duel_ended records the reason 'effect'; a special win is a call in an effect's code, not a fact read"),
    enforced("WIN-04", "Both players losing at once is a draw.", "match/rules.py rules/fold.py rules/win.py",
             "test_rules_turn.py::test_win_01_02_04_the_duel_ends_as_the_rules_say",
             "test_rules_turn.py::test_win_01_02_04_refused_endings_and_play_after_a_loss"),
    enforced("WIN-05", "Match and time outcomes follow MATCH-01..03 and TIME-02..09; a duel ended otherwise (a surrender) "
             "is the loss of the player who ended it.",
             "rules/win.py",
             "test_rule_scenarios_28.py::test_win_05_a_surrender_won_by_the_other_player_ends_the_duel",
             "test_rule_scenarios_28.py::test_win_05_a_surrender_naming_the_surrendering_player_winner_is_refused"),
    # -- 22. Control and ownership ---------------------------------------------------------------
    enforced("CTRL-01", "The controller of a card operates it: only they activate its effects. A card that left the field is "
             "its owner's; who controlled it as it left activates only its trigger, in the next chain.",
             "rules/chain.py rules/spell_trap.py",
             "test_rules_chain.py::test_ctrl_01_controller_activates_own_set_card_in_opponents_turn",
             "test_rules_chain.py::test_ctrl_01_cannot_activate_opponents_card"),
    enforced("CTRL-02", "Effects transfer control of a card on the field to the other player's side.", "rules/outcome.py",
             "test_rules_zones.py::test_ctrl_02_control_passes_to_the_other_player",
             "test_rules_zones.py::test_ctrl_02_control_change_refused"),
    enforced("CTRL-03", "A card goes to its owner's Deck, hand, GY or banished zone, whoever controlled it.",
             "rules/outcome.py rules/setup.py", "test_rules_zones.py::test_ctrl_03_card_goes_to_its_owners_gy",
             "test_rules_zones.py::test_ctrl_03_card_to_controllers_pile_refused"),
    applied("CTRL-04", "An Equip on the opponent's monster stays in your zone; Pendulums go to their owner's Extra Deck.",
            "checked as SPELL-05, PEND-05 and CTRL-03"),
    # -- 23. Terminology -------------------------------------------------------------------------
    enforced("TERM-01", "Destroy: to the GY by battle or a destroying effect; not a cost, not to the hand or Deck.",
             "rules/chain.py", "test_rules_chain.py::test_chain_11_costs_are_paid_on_activation",
             "test_rule_scenarios_42.py::test_term_01_a_card_destroyed_as_a_cost_refused"),
    recorded("TERM-02", "Send to the GY: any move into the GY, destruction, discards and Tributes included.",
             "card_moved records each move with its reason"),
    applied("TERM-03", "Tribute: a monster sent to the GY for a summon or a cost; not destruction.", "checked as SUM-06"),
    applied("TERM-04", "Cost: paid before the declaration and not refunded on negation.", "checked as CHAIN-11"),
    enforced("TERM-05", "A targeting effect names its targets at activation; a card in a hidden zone cannot be one.",
             "rules/chain.py", "test_rules_chain.py::test_term_05_public_cards_can_be_targeted",
             "test_rules_chain.py::test_term_05_hidden_cards_cannot_be_targeted"),
    recorded("TERM-06", "Banish: remove a card to the banished zone.", "card_moved records the move"),
    enforced("TERM-07", "Discard: a card goes from the hand to the GY.", "rules/base.py",
             "test_rules_zones.py::test_card_moved_basic_rules_allow",
             "test_rules_zones.py::test_card_moved_basic_rules_refuse"),
    applied("TERM-08", "Set: place a card face-down; a monster Set is a Normal Summon but no 'Summon'.",
            "checked as SUM-01 (a Set uses the turn's Normal Summon) and SUM-02 (no summon to negate)"),
    recorded("TERM-09", "One draw or discard action is one timing, whatever the number of cards.",
             "cards_drawn records one event per draw action"),
    applied("TERM-10", "Confirming a card shows all of it and does not flip it.",
            "card_revealed records it; a Flip effect of a face-down monster not flipped face-up this turn is refused "
            "as EFF-05"),
    recorded("TERM-11", "The Deck is shuffled after it is searched.", "deck_shuffled records the new order"),
    applied("TERM-12", "Equip card and equipped monster.", "checked as SPELL-05 and SPELL-07"),
    applied("TERM-13", "A proper summon is one by the monster's printed method.", "checked as SPS-12"),
    enforced("TERM-14", "A negated activation applies nothing (the link does not resolve, causes nothing), a negated effect "
             "leaves the card without effect; costs stay paid.", "rules/base.py rules/chain.py rules/outcome.py",
             "test_rules_gaps.py::test_term_14_a_refund_by_an_effect_is_recorded_with_its_cause",
             "test_rules_gaps.py::test_term_14_a_card_paid_for_a_negated_link_moved_back_by_no_effect_refused"),
    outside("TERM-15", "Terms renamed by Master Rule 1 (Tribute, Tribute Summon, Extra Deck).", "history of the rules text"),
    # -- 24. Master Rule history -----------------------------------------------------------------
    outside("MR-00", "Before 2008: the 'official rules'.", "the oldest rule set the engine knows is Master Rule 3 (rulesets.py)"),
    outside("MR-01", "Master Rule 1 (2008): Synchro Summon.", "the oldest rule set the engine knows is Master Rule 3 (rulesets.py)"),
    outside("MR-02", "Master Rule 2 (2011): Xyz monsters; Tokens cannot be Xyz materials.",
            "the oldest rule set the engine knows is Master Rule 3 (rulesets.py)"),
    applied("MR-03", "Master Rule 3 (2014): no first draw, one Field Spell each, separate Pendulum Zones, Pendulum Summon.",
            "the rule set 'mr3' (rulesets.py); its differences are checked as ZONE-02, ZONE-09, SETUP-04"),
    enforced("MR-04", "New Master Rule (2017): Extra Monster Zones, Pendulum Zones in the outer S/T zones, Link Summon.",
             "rules/summon.py", "test_rulesets.py::test_mr_04_link_summons_from_the_new_master_rule",
             "test_scenarios.py::test_xyz_summon_under_mr3_into_any_zone_and_no_link"),
    applied("MR-05", "The April 2020 revision.", "the default rule set 'mr2020'; see NIS-01"),
    # -- 25. Not in the seeds --------------------------------------------------------------------
    enforced("NIS-01", "Since April 2020 Fusion, Synchro and Xyz monsters may go to any Main Monster Zone.", "rules/zones.py",
             "test_rules_zones.py::test_zone_03_nis_01_legal_extra_deck_placement",
             "test_rules_zones.py::test_zone_03_nis_01_illegal_extra_deck_placement_refused"),
    enforced("NIS-02", "Simultaneous triggers chain in order: turn player's mandatory, opponent's, then the optional ones.",
             "rules/chain.py", "test_rules_effects.py::test_nis_02_segoc_mandatory_before_optional_turn_player_first",
             "test_rules_effects.py::test_nis_02_simultaneous_triggers_out_of_order_refused"),
    enforced("NIS-03", "The Damage Step's timings; damage calculation happens in the Damage Step, and a battle that goes on "
             "does not leave it without one.", "rules/battle.py rules/position.py",
             "test_rules_battle.py::test_nis_03_damage_calculated_in_damage_step",
             "test_rules_battle.py::test_nis_03_battle_11_log_05_damage_calculation_refused"),
    enforced("NIS-04", "No Battle Phase on the first turn of the duel.", "rules/setup.py rules/turn.py",
             "test_rules_turn.py::test_nis_04_battle_phase_from_turn_2",
             "test_rules_turn.py::test_nis_04_no_battle_phase_on_turn_1"),
    enforced("NIS-05", "A detached Xyz material goes to the GY; materials follow their monster off the field.",
             "rules/base.py", "test_rule_scenarios_31b.py::test_nis_05_a_material_detached_under_macro_cosmos_is_banished",
             "test_special_summons.py::test_xmat_02_materials_are_not_on_the_field"),
    enforced("NIS-06", "Missing the timing: an optional 'when ... you can' trigger needs its event to be the last thing that happened.",
             "rules/timing.py",
             "test_rules_effects.py::test_nis_06_an_if_trigger_or_the_last_thing_to_happen_does_not_miss_the_timing",
             "test_rules_effects.py::test_nis_06_a_when_trigger_whose_event_was_not_the_last_thing_refused"),
    applied("NIS-07", "The OCG and TCG have separate banlists and dates.", "a check names the list it is judged against (DECK-08)"),
    applied("NIS-08", "Types and Attributes keep growing.", "they come from the card databases, not from a list in the code"),
    outside("NIS-09", "Current tournament policies supersede the 2005 text.", "tournament policy is a judge's"),
    # -- 26. Conflicts and choices ---------------------------------------------------------------
    choice("CONF-01", "Starting LP: 8000, or another value by agreement.",
           "8000 (SETUP-01), hand 5 and draw 1, unless duel_started lists the agreed option; the older rulings "
           "a room keeps (EDOPro's Goat duel flags) are options too: first_turn_draw (SETUP-04), "
           "reposition_opponents_summons (POS-08, SUM-11), zero_atk_destroyed (DMG-03), one_field_spell (SPELL-11)"),
    choice("CONF-02", "Banlist revision dates differ between the seeds.", "no schedule: a check names its list (DECK-08)"),
    choice("CONF-03", "Field Spell replacement: old rule (destroy, one on the field) or MR3+ (one each, yours to the GY).",
           "MR3 and later: yours is sent to the GY (SPELL-11, rulesets field_spell_replacement); destroyed under "
           "the duel option one_field_spell (the opponent's then goes when yours resolves: not required)"),
    choice("CONF-04", "Extra Deck contents: Fusion/Synchro/Xyz, plus face-up Pendulums, plus Link.", "all of them (DECK-02, DECK-03)"),
    choice("CONF-05", "Sudden death: decided at the end of the turn or the instant LP change.",
           "by the match's policy, a dated text: ocg-2005 is the 2005 text of 001/002, which end the duel the "
           "instant LP change (costs too, TIME-06); ocg-2017 is 000's end-of-turn reading (the catalogue's Rec.): "
           "the LP at the end of the turn they changed in decide it, level again the next turn is played "
           "(match/links.py, policies sudden_death_at); tcg-2024 and ocg-2024 draw on equal LP"),
    choice("CONF-06", "Match results with draws.",
           "both (MATCH-02: 1 win and 2 draws wins, 1 win, 1 draw and 1 loss is a draw); otherwise more duel wins "
           "win the match, else it is drawn, unless the match's policy makes it a loss for both"),
    choice("CONF-07", "Side Deck size: exactly 15, or 0 to 15.", "0 to 15 (DECK-05)"),
    choice("CONF-08", "First-turn draw: skipped (MR3+) or not.",
           "skipped in every rule set (SETUP-04); drawn under the duel option first_turn_draw"),
    choice("CONF-09", "Pendulum Zones: separate (MR3) or the outer S/T zones (NMR).", "by the duel's rule set: 'mr3' separate, later ones shared (ZONE-09)"),
    choice("CONF-10", "Monster zones and Extra Deck placement: unrestricted, NMR 2017, or April 2020.",
           "by the duel's rule set: 'mr3', 'nmr2017', 'mr2020' (ZONE-03, NIS-01)"),
    choice("CONF-11", "A Pendulum leaving the field: straight to the Extra Deck or via the GY.", "straight to the Extra Deck, no GY event (PEND-05)"),
    choice("CONF-12", "Simultaneous triggers: one chain or sequential Chain Links 1.", "one chain (CHAIN-08)"),
    choice("CONF-13", "Standby and End Phase effects: ordered by the turn player, one at a time.", "compatible; their text is needed (TURN-03)"),
    choice("CONF-14", "What the player without priority may activate: triggers, or triggers and flips.",
           "triggers and Flip effects (a Flip effect is a trigger, EFF-05): when passes are recorded, any other "
           "activation out of priority is refused as PRIO-01, PRIO-03 or CHAIN-04 (PRIO-02)"),
    choice("CONF-15", "Effect taxonomy: four categories and other, or five kinds and rule effects.",
           "the effect types ignition, trigger, quick, flip, continuous, pendulum (EFF-01)"),
    choice("CONF-16", "Where an Ignition effect is activated: anywhere the card says, or the field only.",
           "anywhere: EFF-02 checks the timing, not the place"),
    choice("CONF-17", "Quick-Play Spell from the hand: any time in your turn, or Main and Battle Phases only.",
           "any time in your own turn (SPELL-12)"),
    choice("CONF-18", "Damage Step activations.",
           "the newest seed plus Counter Traps, refined by NIS-03: only effects usable in the Damage Step "
           "(BATTLE-09), ATK/DEF changes until damage calculation (BATTLE-10), after it only activation "
           "negation, Counter Traps and triggers; by the script's facts or the event's damage_step; without "
           "either, what the card type decides (a Counter Trap throughout, a Spell Speed 1 Spell never) and the "
           "rest listed as undecided, with the reason (BATTLE-09)"),
    choice("CONF-19", "Ritual Tribute total: equal to the Level, or equal or more.", "at least the Level (RIT-02)"),
    choice("CONF-20", "Counters: all kinds, or Spell Counters only.", "all kinds (COUNTER-01)"),
    choice("CONF-21", "Attaching an Xyz material: leaving the field or not.", "materials are off the field, no GY event on attaching (XMAT-01)"),
    choice("CONF-22", "Attributes and Types: the longer lists.", "whatever the card databases hold (NIS-08)"),
    choice("CONF-23", "'Cards on the field' excludes the GY, Deck, banished, hand, Extra Deck.", "that, and Xyz materials (ZONE-16)"),
    choice("CONF-24", "How the first player is decided: RPS, coin, die.", "duel_started records the method and who chose (MATCH-07)"),
    choice("CONF-25", "The extra turns start with the next turn.",
           "the turn in progress is finished, and extra turn n is the n-th turn after it (TIME-03)"),
    choice("CONF-26", "Hand-size discard: the turn player at the end of the End Phase.", "the turn player only (HAND-01)"),
    choice("CONF-27", "Face-down Special Summon: never, or when the effect says so.", "when an effect says so (SPS-05)"),
    choice("CONF-28", "'Treated as' names in deck construction.", "not chosen: such names are card text (DECK-07)"),
    choice("CONF-29", "Age of the tournament text.", "outside the record (NIS-09)"),
    choice("CONF-30", "Link material conditions: every material qualifies.", "the count is checked (LINK-02); the conditions are card text"),
    choice("CONF-31", "Pendulum Summon count: any number, or at most 5.", "limited only by the zones (PEND-03)"),
    choice("CONF-32", "Special Summon zone choice: any free zone, within the placement rules.", "free and allowed by placement (ZONE-03, NIS-01)"),
    choice("CONF-33", "Chain Link 1 speed: Speed 3 allowed.", "any speed at Chain Link 1 (CHAIN-13)"),
    choice("CONF-34", "Scope of the 3-copy limit: Main + Extra + Side.", "Main, Extra and Side together (DECK-06)"),
    # -- the log's own consistency (no game rule states these) -----------------------------------
    enforced("LOG-01", "Every card an event names exists in the duel.", "rules/base.py",
             "test_rules_log.py::test_log_01_a_card_of_the_duel_is_named_by_its_id",
             "test_rules_log.py::test_log_01_an_unknown_card_is_refused"),
    enforced("LOG-02", "A card is where the event says it is (and a rollback goes back to an event of play).",
             "rules/entries.py rules/fold.py rules/history.py rules/outcome.py rules/position.py rules/setup.py "
             "rules/spell_trap.py rules/summon.py rules/turn.py",
             "test_rules_turn.py::test_log_02_shuffle_and_draw_follow_the_deck",
             "test_rules_chain.py::test_log_02_log_05_card_that_cannot_be_activated_refused"),
    enforced("LOG-03", "Events come in the duel's order: a start first, one start, decks before hands, nothing after the end.",
             "application.py match/links.py match/rules.py rules/fold.py rules/setup.py rules/summon.py rules/turn.py service/matches.py",
             "test_rules_log.py::test_log_03_a_duel_in_order",
             "test_rules_turn.py::test_log_03_events_out_of_the_duel_order"),
    enforced("LOG-04", "No card id is used twice, nor a card counted twice in one event.",
             "rules/chain.py rules/identity.py rules/setup.py rules/summon.py",
             "test_rules_log.py::test_log_04_each_card_once",
             "test_rules_summon.py::test_log_04_no_card_counts_twice"),
    enforced("LOG-05", "Every value is well formed (players 0 or 1, counts, amounts, zones, positions).",
             "match/rules.py rules/battle.py rules/entries.py rules/fold.py rules/identity.py rules/outcome.py "
             "rules/setup.py rules/spell_trap.py rules/turn.py rules/win.py",
             "test_rules_log.py::test_log_05_well_formed_values",
             "test_rules_battle.py::test_nis_03_battle_11_log_05_damage_calculation_refused"),
    enforced("LOG-06", "Turns are numbered 1, 2, 3... in order.", "rules/turn.py",
             "test_rules_turn.py::test_log_06_turns_are_numbered_in_order",
             "test_rules_turn.py::test_log_06_a_skipped_turn_number_is_refused"),
    enforced("LOG-07", "A chain link resolved or negated exists, and is negated by a later link.", "rules/chain.py",
             "test_rules_log.py::test_log_07_links_that_exist",
             "test_rules_chain.py::test_log_04_log_07_chain_bookkeeping_refused"),
    enforced("LOG-08", "A rollback is applied to a duel's history, never folded into one state.", "rules/fold.py",
             "test_rules_log.py::test_log_08_a_rollback_goes_through_the_history",
             "test_rules_log.py::test_log_08_a_rollback_folded_into_a_state_is_refused"),
    enforced("LOG-09", "A match's record of a duel (who went first, the decks, how it ended, LP at time) is the duel's own.",
             "match/commands.py match/links.py service/matches.py",
             "test_match.py::test_sample_match_and_its_duels_are_legal",
             "test_match.py::test_a_duel_that_ends_otherwise_than_the_match_says_is_log_09"),
    enforced("LOG-10", "A card shown stays that card: once an event shows an unknown card (or opens it), a machine's "
             "record refuses an event showing it as another; a witnessed duel keeps the table's claim, flagged for "
             "the judge and the card's owner.",
             "rules/identity.py",
             "test_identity.py::test_unknown_cards_are_cards_like_any_other_until_an_event_shows_them",
             "test_identity.py::test_log_10_a_card_shown_stays_that_card"),
    enforced("LOG-11", "A sealed card is its sealer's own hidden card, and its opening opens its seal (passcode and nonce).",
             "rules/identity.py",
             "test_seals.py::test_log_11_a_two_device_recording_folds_clean",
             "test_seals.py::test_log_11_a_wrong_nonce_or_a_wrong_card_does_not_open_its_seal"),
    enforced("LOG-12", "A correction of a mis-entry (a witnessed duel's) goes back only over the current turn's "
             "entries, a player's only over their own, none over an entry another confirmed or disputed, and never "
             "after the duel's end; it is no judge's rollback.",
             "rules/history.py",
             "test_witnessed.py::test_a_correction_strikes_the_current_turns_entries_without_a_judge",
             "test_witnessed.py::test_the_turns_own_start_may_be_corrected_but_not_what_came_before"),
    # -- a card's own text (no game rule states these: the card's script does) ------------------
    enforced("TEXT-01", "A card's effect is used no more often than its text's limit: once per turn by card, or by name across copies.",
             "rules/card_text.py", "test_rules_card_text.py::test_text_01_each_copy_and_each_player_within_the_limits",
             "test_rules_card_text.py::test_text_01_an_effect_used_beyond_its_limit_refused"),
)

RULES: dict[str, Rule] = {rule.id: rule for rule in TABLE}


def select(query: str | None) -> list[Rule]:
    """The rows a ``rules`` query names: one ID, a section prefix (``SUM``), or all (None)."""
    if query is None:
        return list(TABLE)
    key = query.strip().upper()
    if key in RULES:
        return [RULES[key]]
    return [rule for rule in TABLE if rule.section == key]


def counts() -> dict[str, int]:
    """How many rows have each status, in the order of ``STATUSES``."""
    found = {status: 0 for status in STATUSES}
    for rule in TABLE:
        found[rule.status] += 1
    return found


README_BEGIN = "<!-- rules coverage: generated by `python -m ygoreplay.rules.coverage --readme`; do not edit -->"
README_END = "<!-- end of rules coverage -->"


def readme_section() -> str:
    """The README's list of rules, grouped by status, from the table."""
    lines = [README_BEGIN, ""]
    tally = counts()
    lines.append("Of " + str(len(TABLE)) + " rule IDs: " + ", ".join(f"{n} {s}" for s, n in tally.items()) + ".")
    lines.append("`ygoreplay rules [ID|SECTION]` says, for each, what it is and where it is enforced or why not.")
    for status in STATUSES:
        ids = [rule.id for rule in TABLE if rule.status == status]
        if ids:                                   # a status no rule has (none left "not yet") is not listed
            lines += ["", f"**{status.capitalize()}** ({len(ids)}): " + ", ".join(ids) + "."]
    lines += ["", "The log's own checks:"]
    lines += [f"- `{rule.id}` {rule.summary}" for rule in TABLE if rule.section == "LOG"]
    lines += ["", "A card's own text, as its script states it:"]
    lines += [f"- `{rule.id}` {rule.summary}" for rule in TABLE if rule.section == "TEXT"]
    lines += ["", README_END]
    return "\n".join(lines)


def rewrite_readme(path: Path) -> bool:
    """Replace the section between the markers; True when the file changed."""
    text = path.read_text(encoding="utf-8")
    start, end = text.find(README_BEGIN), text.find(README_END)
    if start < 0 or end < start:
        raise InputError(say("{path}: no rules coverage markers ({README_BEGIN!r} ... {README_END!r})",
                             path=path, README_BEGIN=README_BEGIN, README_END=README_END))
    new = text[:start] + readme_section() + text[end + len(README_END):]
    if new == text:
        return False
    write_atomic(path, new.encode("utf-8"))
    return True


def main(argv: list[str]) -> int:
    """``python -m ygoreplay.rules.coverage --readme [README.md]``: regenerate the README's list."""
    if not argv or argv[0] != "--readme":
        print("usage: python -m ygoreplay.rules.coverage --readme [README.md]", file=sys.stderr)
        return 2
    path = Path(argv[1] if len(argv) > 1 else "README.md")
    try:
        changed = rewrite_readme(path)
    except (OSError, InputError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{path}: {'rewritten' if changed else 'already up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
