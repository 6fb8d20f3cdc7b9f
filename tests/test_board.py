"""The board of `show` and `print(state)` (issue 15): 80 columns, wider when there is room, zones
named as the log names them, whose monster stands in an Extra Monster Zone, Xyz materials
explained, long names cut inside their zone, piles top first; and the library's habits."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import ygoreplay
from ygoreplay import CardDB, CardFacts, DuelState, apply, audit, read_events, replay
from ygoreplay.cards import CardType
from ygoreplay.cli import main
from ygoreplay.errors import InputError
from ygoreplay.events import from_dict
from ygoreplay.render import changes, render
from ygoreplay.rules import History, RuleViolation
from ygoreplay.source import open_source
from ygoreplay.views import public_board

REPLAYS = Path(__file__).resolve().parent.parent / "replays"
DAMAGE = REPLAYS / "won-by-damage.jsonl"
SUMMONS = REPLAYS / "every-summon-method.jsonl"
SAMPLES = sorted(REPLAYS.glob("*.jsonl"))
CARDS = CardDB.classic()


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def states(path: Path):
    history = History(CARDS, audit=True)
    for event in read_events(path):
        history.append(event)
        yield history.state


def test_every_board_of_every_sample_fits_80_columns_and_uses_more_when_there_is_room():
    for sample in SAMPLES:
        for state in states(sample):
            assert max(map(len, render(state).splitlines())) <= 80
    wide = render(replay(read_events(SUMMONS), CARDS), width=132)
    assert 80 < max(map(len, wide.splitlines())) <= 132
    assert "Black Luster Soldier" in wide            # a name cut at 80 columns is whole at 132


def test_zones_are_named_as_the_log_names_them():
    out = run("show", DAMAGE, "--at", 60).output
    for tag in ("M0", "M1", "M2", "M3", "M4", "S0", "S1", "S2", "S3", "S4", "FZ"):
        assert out.count(f"│{tag}") == 2, tag          # one per side
    assert "│M1 2500A   │" in out and "│S1         │" in out
    assert "Magic Cylinder [S1]" in run("log", DAMAGE).output


def test_an_extra_monster_zone_says_whose_monster_it_holds_and_xyz_materials_are_explained():
    out = run("show", SUMMONS).output
    emz = out[out.index("│EMZ│"):].split("\nPlayer 0")[0]
    assert "M5 2500A" in emz and "Stardust" in emz and "Yugi's" in emz
    assert "M5 1000A L1" in emz and "Link Spider" in emz and "Kaiba's" in emz
    assert "│M1 2500A ◆2│" in out
    assert "◆2 Yugi's Number 39: Utopia [M1] has 2 Xyz materials: Flash Knight, Celtic\nGuardian" in out
    assert "◆2 Xyz materials" in out.splitlines()[-1]            # the key says what the marks mean


def test_piles_show_their_top_cards_first():
    state = replay(read_events(SUMMONS), CARDS)
    gy = [state.cards[c].name for c in state.sides[0].gy]
    out = render(state)
    line = next(t for t in out.splitlines() if t.startswith("  GY 7 ") and gy[-1] in t)
    assert line.startswith(f"  GY 7        {gy[-1]}, {gy[-2]}, ") and line.endswith("more")
    assert "  deck 27     top: " + state.cards[state.sides[0].deck[0]].name in out


LONG = CardFacts(code=90000001, name="Supreme Ultimate Overlord of the Endless Infinite Cosmic Abyss Dragon",
                 type=int(CardType.MONSTER | CardType.NORMAL), level=4, atk=1000, defense=1000)
CRAFTED = CardFacts(code=90000002, name="Evil\x1b[2J\x1b[H Twin\u202e", type=int(CardType.MONSTER | CardType.NORMAL),
                    level=4, atk=1200, defense=800)


def _board_with(*facts: CardFacts) -> DuelState:
    cards = CARDS.merged(CardDB(list(facts)))
    state = DuelState(cards)
    apply(state, from_dict({"kind": "position_set_up", "turn": 2, "phase": "main1", "sides": [
        {"mzone": [f.code for f in facts], "hand": [f.code for f in facts], "gy": [f.code for f in facts]},
        {"mzone": [None, LONG.code], "szone": [None, None, 5318639]}]}))
    return state


def test_long_names_never_break_the_layout_and_control_characters_never_reach_the_terminal():
    text = render(_board_with(LONG, CRAFTED))
    assert max(map(len, text.splitlines())) <= 80
    assert "Supreme…" in text or "Ultimate…" in text or any(t.rstrip("│ ").endswith("…") for t in text.splitlines())
    assert "\x1b" not in text and "\u202e" not in text and "Evil\\e[2J" in text
    rows = [t for t in text.splitlines() if t.startswith("│")]
    assert len({len(t) for t in rows}) == 1                    # every row of the grid as wide as the others


def test_changes_name_the_zones_lp_and_piles_an_event_changed():
    events = read_events(DAMAGE)
    before, after = replay(events, CARDS, at=21), replay(events, CARDS, at=23)
    assert changes(before, after) == {"p1:lp", "p0:M2"}        # the flip and the damage
    assert changes(replay(events, CARDS, at=39), replay(events, CARDS, at=40)) == {"p1:M2", "p1:gy"}
    assert changes(after, after) == set()


# -- library habits ----------------------------------------------------------------------------------------

def test_print_state_draws_the_board_and_reprs_say_what_things_are(capsys):
    events = read_events(DAMAGE)
    state = replay(events, CARDS, at=60)
    print(state)
    assert capsys.readouterr().out == render(state)
    assert repr(state) == "<DuelState turn 4, player 1's battle (battle step), LP 8000 / 4400, 80 cards, after event #60>"
    assert repr(DuelState(CARDS)) == "<DuelState not started, 0 cards, before the first event>"
    assert repr(audit(events, CARDS)) == "<AuditReport 89 events, legal, 0 override(s), 0 rollback(s), player 0 won>"
    assert repr(ygoreplay.read_replay(REPLAYS / "won-by-damage.spectator.ygr")).startswith(
        "<ReplayFile spectator view 'won-by-damage', 89 events, 8 cards, mr2020")
    from ygoreplay.application import check
    assert repr(check(events[:23], CARDS)).startswith("<CheckReport 23 events, legal, 0 override(s)")
    source = open_source(str(DAMAGE), None, CARDS)
    from ygoreplay.study import Study
    assert repr(Study(source)) == "<Study '" + str(DAMAGE) + "' event 0/88 judge view>"


def test_the_package_exports_the_store_files_jsonl_and_views(tmp_path):
    for name in ("Store", "read_replay", "write_replay", "ReplayFile", "read_events", "write_events", "dump_events",
                 "VIEWS", "redact", "ViewReplay", "DuelState", "AuditReport"):
        assert name in ygoreplay.__all__ and hasattr(ygoreplay, name), name
    events = read_events(DAMAGE)
    copy = tmp_path / "copy.jsonl"
    assert ygoreplay.write_events(copy, events) == copy.stat().st_size
    assert read_events(copy) == events
    spectator = ygoreplay.redact(events, CARDS, "spectator", b"k" * 32)
    assert len(spectator.events) == len(events) and ygoreplay.VIEWS == ("judge", "p0", "p1", "spectator")
    with ygoreplay.Store(str(tmp_path / "duels.sqlite")) as store:
        assert repr(store).startswith("<Store sqlite ") and store.duels() == []


def test_the_package_doctests_hold_and_py_typed_ships():
    import doctest
    assert doctest.testmod(ygoreplay).failed == 0
    root = Path(ygoreplay.__file__).parent
    assert (root / "py.typed").is_file()
    assert '"py.typed"' in (root.parent / "pyproject.toml").read_text()


def _position_key(state: DuelState) -> tuple:
    """Everything a set-up position holds (a Spell/Trap Set this turn counts as summoned, as a
    set-up says it; Xyz materials have no controller of their own)."""
    cards = tuple(sorted((c.id, c.code, c.owner, c.zone, None if c.zone == "overlay" else c.controller, c.position,
                          c.atk, c.defense, c.level, c.summoned_turn == state.turn if c.zone == "mzone" else None,
                          c.set_turn == state.turn, c.position_changed_turn == state.turn,
                          c.attacked_turn == state.turn, tuple(c.materials), c.host,
                          tuple(sorted(c.counters.items())), c.properly_summoned, c.is_token)
                         for c in state.cards.values()))
    sides = tuple((s.lp, tuple(s.deck), tuple(s.hand), tuple(s.mzone), tuple(s.szone), s.fzone, tuple(s.gy),
                   tuple(s.banished), tuple(s.extra), s.normal_summon_turn == state.turn,
                   s.pendulum_summon_turn == state.turn) for s in state.sides)
    return (cards, sides, tuple(state.emz), state.turn, state.turn_player, state.phase, state.step,
            state.ruleset, state.battle_phase_entered, state.first_player)


def _between_actions(state: DuelState) -> bool:
    return bool(state.turn and state.phase and not state.chain and state.attack is None and not state.ended)


def test_a_board_written_as_position_set_up_folds_back_to_the_same_board():
    """Every board of every sample between two actions, through the wire form and the rules."""
    checked = 0
    for sample in SAMPLES:
        for state in states(sample):
            if not _between_actions(state):
                continue
            event = from_dict(json.loads(json.dumps(state.position_set_up().to_dict())))
            fresh = DuelState(CARDS)
            apply(fresh, event)
            assert _position_key(fresh) == _position_key(state), (sample.name, state.index)
            checked += 1
    assert checked > 300


def test_real_boards_fold_back_or_are_refused_by_a_named_rule():
    """EDOPro duels hold boards only card effects make (a monster equipped as a Spell, a Trap
    monster, a card in its opponent's hand): the rules refuse to set those up, naming the rule."""
    from conftest import shared_path
    from ygoreplay.card_sources import card_lookup
    folder = shared_path("real-replays", "edopro")
    same = refused = 0
    for path in sorted(folder.glob("*.yrpX"))[:25]:
        try:
            source = open_source(str(path), None, card_lookup(()))
        except InputError:
            continue                                 # a hand test, not a duel
        history = History(source.cards, audit=True)
        for event in source.events:
            history.append(event)
            state = history.state
            if not _between_actions(state):
                continue
            fresh = DuelState(source.cards)
            try:
                apply(fresh, state.position_set_up())
            except RuleViolation as violation:
                assert violation.rule in ("ZONE-09", "ZONE-03", "CTRL-03"), violation
                refused += 1
                continue
            assert _position_key(fresh) == _position_key(state), (path.name, state.index)
            same += 1
    assert same > 20 * refused


def test_a_view_board_sets_up_with_its_unknown_cards_and_a_duel_not_started_cannot_be_set_up():
    source = open_source(str(DAMAGE), None, CARDS)
    seen = source.state_after(40, "spectator")
    event = from_dict(json.loads(json.dumps(seen.position_set_up().to_dict())))
    fresh = DuelState(CARDS)
    apply(fresh, event)
    assert public_board(fresh, "spectator")[:5] == public_board(seen, "spectator")[:5], \
        "the cards the view does not know stay unknown (passcode 0) in the position"
    with pytest.raises(InputError, match="has not started"):
        DuelState(CARDS).position_set_up()


def test_the_board_of_an_attack_whose_attacker_is_gone_names_no_card_and_does_not_fail():
    """A Token that attacked vanishes when it leaves the field (TOKEN-02), and the attack can still
    be in progress: the board says "a card" for the attacker instead of failing on its id."""
    from dataclasses import replace as replaced
    events = read_events(Path(__file__).resolve().parent.parent / "replays" / "won-by-damage.jsonl")
    state = replay(events, CardDB.classic(), at=20)                 # the attack of event 20 declared
    assert state.attack is not None and state.attack.attacker in state.cards
    state.attack = replaced(state.attack, attacker="p1.t9")           # a Token's id, gone from the cards
    shown = render(state, width=100)
    assert "attack: a card → " in shown
