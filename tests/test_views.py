"""Views of a duel (judge, p0, p1, spectator) as replay files: what each may know, and proof of it.

* A spectator file holds no identity of a card that was never public while it played: the raw
  bytes (header, compressed and decompressed body) are searched for every msgpack encoding of each
  such passcode, and for its decimal text. Likewise a player's file never holds the opponent's hand,
  face-down cards or deck order.
* Each view replays to the same public board as the judge record, at every event.
* ``verify --against`` passes for honest files and fails when the judge record's deck order or the
  view was altered.

* Names: a view's card ids follow neither the registered list nor a card through a hidden pile: a
  card bounced to a hidden hand, shuffled into a Deck or revealed for a moment cannot be picked
  out later; a player's own decklist is given sorted, never in the order it became the Deck.
* The commitments' key is the duel's secret: nothing public about a view derives it.

Cases: every sample duel in ``replays/``, plus two made here: the damage duel with both decks
shuffled after registration (so there are hidden deck orders to commit to), and a duel that starts
from a set-up position with hidden cards in every zone. And four real EDOPro duels, imported
(skipped when ../shared or the importer is absent).
"""
from __future__ import annotations

import dataclasses
import functools
from collections import Counter
import hashlib
import lzma
import random
import struct
import zlib
from pathlib import Path

import msgpack
import pytest
from click.testing import CliRunner

from duel import (
    AXE, BATTLE_OX, BLUE_EYES, CARDS, CELTIC as CELTIC_GUARDIAN, DARK_MAGICIAN, DECODE_TALKER, JINZO,
    KURIBOH, MIRROR_FORCE, MONSTER_REBORN, MST, MYSTICAL_ELF, POT, RAIGEKI, STARDUST, SUMMONED_SKULL,
    TRAP_HOLE, UTOPIA, VORSE, position)
from ygoreplay.cli import main
from ygoreplay.events import (
    BANISHED, DECK, EXTRA, FZONE, GY, HAND, MZONE, OVERLAY, SZONE, DeckShuffled, Event, from_dict)
from ygoreplay.exchange import make_replay, verify_against
from ygoreplay.jsonl import read_events
from ygoreplay.replay_file import (
    ReplayFile, decode_body, dumps, loads, referenced_codes, sign as signed)
from ygoreplay.rules import History, audit
from ygoreplay.signing import OrganiserKey
from ygoreplay.source import Source
from ygoreplay.state import Card
from ygoreplay.views import ViewReplay, public_board, redact

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(p.stem for p in (ROOT / "replays").glob("*.jsonl") if ".public" not in p.name)   # full records
RECORD_ROOT = hashlib.sha256(b"ygoreplay views test").digest()
SECRET = hashlib.sha256(b"ygoreplay views test secret").digest()
VIEWERS = ("p0", "p1", "spectator")
SHUFFLED, SET_UP = "won-by-damage, shuffled", "set-up position"
CASES = SAMPLES + [SHUFFLED, SET_UP]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _shuffled() -> list[Event]:
    """The damage duel with a deck_shuffled for each player after registration: the cards the duel
    draws stay on top in the same order, the rest (never drawn) are shuffled."""
    events = read_events(ROOT / "replays" / "won-by-damage.jsonl")
    end = History(CARDS, audit=True)
    end.extend(events)
    start = History(CARDS, audit=True)
    start.extend(events[:3])
    shuffles = []
    for player in (0, 1):
        deck = list(start.state.sides[player].deck)
        drawn = len(deck) - len(end.state.sides[player].deck)
        assert deck[drawn:] == end.state.sides[player].deck
        rest = deck[drawn:]
        random.Random(player).shuffle(rest)
        shuffles.append(DeckShuffled(player=player, order=tuple(deck[:drawn] + rest), seed=f"seed-{player}"))
    return events[:3] + shuffles + events[3:]


def _set_up() -> list[Event]:
    """Turn 2 from a set-up position: hands, a Set monster, Set Spells/Traps, a face-down banished
    card, Extra Decks, an Xyz with materials; then a battle that flips and destroys the Set monster."""
    start = position(
        {"hand": [DARK_MAGICIAN, POT],
         "mzone": [None, {"code": SUMMONED_SKULL, "position": "attack"}, None, None, None,
                   {"code": UTOPIA, "position": "attack", "materials": [BATTLE_OX, VORSE]}],
         "szone": [{"code": MIRROR_FORCE, "position": "set"}], "gy": [RAIGEKI], "extra": [STARDUST]},
        {"hand": [BLUE_EYES, MONSTER_REBORN], "mzone": [{"code": JINZO, "position": "set"}],
         "szone": [None, {"code": TRAP_HOLE, "position": "set"}], "gy": [KURIBOH],
         "banished": [{"code": AXE, "position": "facedown"}, MST], "extra": [DECODE_TALKER]})
    rest = [
        {"kind": "phase_entered", "phase": "battle"},
        {"kind": "step_entered", "step": "battle"},
        {"kind": "attack_declared", "player": 0, "attacker": "p0.s15", "target": "p1.s17"},
        {"kind": "step_entered", "step": "damage"},
        {"kind": "damage_calculated", "destroyed": ["p1.s17"], "damage": [0, 0]},
        {"kind": "card_moved", "card": "p1.s17", "to": [1, "gy"], "reason": "battle"},
        {"kind": "step_entered", "step": "battle"},
        {"kind": "step_entered", "step": "end"},
        {"kind": "phase_entered", "phase": "main2"},
        {"kind": "phase_entered", "phase": "end"},
        {"kind": "turn_started", "player": 1, "turn": 3},
        {"kind": "phase_entered", "phase": "draw"},
        {"kind": "cards_drawn", "player": 1, "count": 1},
    ]
    return [from_dict(start)] + [from_dict(e) for e in rest]


@functools.cache
def events_of(case: str) -> tuple[Event, ...]:
    if case == SHUFFLED:
        events = _shuffled()
    elif case == SET_UP:
        events = _set_up()
    else:
        events = read_events(ROOT / "replays" / f"{case}.jsonl")
    report = audit(events, CARDS)
    assert report.legal, f"{case}: {report.violations[:1]}"
    return tuple(events)


def stamps(count: int) -> list[str]:
    return [f"2024-05-01T12:{i // 60 % 60:02d}:{i % 60:02d}.{i % 1000:03d}+00:00" for i in range(count)]


def replay(events, view: str, root: bytes = RECORD_ROOT, secret: bytes = SECRET) -> ReplayFile:
    return make_replay(list(events), stamps(len(events)), CARDS, view, root, secret, {"title": "views"})


@functools.cache
def file_of(case: str, view: str) -> bytes:
    return dumps(replay(events_of(case), view))


def raw(data: bytes) -> bytes:
    """Every byte a reader could look at: the file as is, then its decompressed body."""
    return data + msgpack.packb(decode_body(data))


def encodings(n: int) -> list[bytes]:
    """Every way msgpack (any encoder, not only ours) may write the integer n, and its decimal text."""
    out = [str(n).encode()]
    if 0 <= n < 0x80:
        out.append(bytes([n]))
    for marker, fmt, low, high in ((0xcc, ">B", 0, 0xFF), (0xcd, ">H", 0, 0xFFFF), (0xce, ">I", 0, 0xFFFFFFFF),
                                   (0xcf, ">Q", 0, 2 ** 64 - 1), (0xd0, ">b", -128, 127),
                                   (0xd1, ">h", -2 ** 15, 2 ** 15 - 1), (0xd2, ">i", -2 ** 31, 2 ** 31 - 1),
                                   (0xd3, ">q", -2 ** 63, 2 ** 63 - 1)):
        if low <= n <= high:
            out.append(bytes([marker]) + struct.pack(fmt, n))
    out.append(b"\xcb" + struct.pack(">d", float(n)))          # as a float64, for good measure
    return out


def test_encodings_cover_what_msgpack_writes():
    for n in (5, 200, 40000, 46986414, 2 ** 40):
        assert msgpack.packb(n) in encodings(n)
    assert b"\xd2" + struct.pack(">i", 46986414) in encodings(46986414)


# -- what a view may know ----------------------------------------------------------------------------

def public_to(view: str, card: Card) -> bool:
    """The rule the issue states, written out here rather than borrowed from views.can_see:
    public is the GY, Xyz materials, anything face-up or revealed; a player also sees their own
    hand, own face-down cards and own banished/Extra Deck cards; nobody sees into a Deck."""
    me = {"p0": 0, "p1": 1}.get(view)
    if view == "judge" or card.revealed or card.zone in (GY, OVERLAY):
        return True
    if card.zone in (MZONE, SZONE, FZONE):
        return card.face_up or card.controller == me
    if card.zone in (BANISHED, EXTRA):
        return card.face_up or card.owner == me
    if card.zone == HAND:
        return card.controller == me
    assert card.zone == DECK, card.zone
    return False


def known_codes(events, cards, view: str) -> tuple[frozenset[int], frozenset[int]]:
    """(every passcode of the duel, the passcodes ``view`` may know: of cards public to it at some
    point, a player's own registered decklist, and the original of an alternate artwork it knows,
    which that card's facts name as its ``alias``)."""
    everything, known = set(referenced_codes(list(events))), set()
    me = {"p0": 0, "p1": 1}.get(view)
    history = History(cards, audit=True)
    for event in events:
        history.append(event)
        if event.kind == "deck_registered" and event.player == me:
            known.update(event.main, event.extra, event.side)
        if event.kind == "activated" and event.card in history.state.cards:
            known.add(history.state.cards[event.card].code)     # an activation shows the card
        for card in history.state.cards.values():
            everything.add(card.code)
            if public_to(view, card) or (event.kind == "position_set_up" and card.owner == me):
                known.add(card.code)        # a player knows their own decklist (not its order)
    known |= {cards[code].alias for code in known if code in cards and cards[code].alias}   # an alt art's original
    return frozenset(everything - {0}), frozenset(known)


@functools.cache
def knowledge(case: str, view: str) -> tuple[frozenset[int], frozenset[int]]:
    return known_codes(events_of(case), CARDS, view)


def never_public(case: str, view: str) -> set[int]:
    everything, known = knowledge(case, view)
    return set(everything - known)


def test_the_cases_have_cards_a_viewer_never_sees():
    """So the byte search below is not vacuous. (In the deck-out duel every passcode reaches a GY
    at some point, so only the per-event test below checks it: which copy was hidden when.)"""
    assert [case for case in CASES if not never_public(case, "spectator")] == ["lost-by-deck-out"]
    assert any(never_public(case, player) for case in CASES for player in ("p0", "p1"))


@pytest.mark.parametrize("view", VIEWERS)
@pytest.mark.parametrize("case", CASES)
def test_no_identity_of_a_card_never_public_to_the_viewer_is_in_the_file(case, view):
    data = file_of(case, view)
    hidden = never_public(case, view)
    leaks = leaked(data, hidden, CARDS)
    assert not leaks, f"{case}, {view} view: the file holds hidden card(s) {leaks}"
    assert not hidden & set(loads(data).cards)


def leaked(data: bytes, hidden: set[int], cards) -> dict[int, str]:
    """The hidden passcodes found anywhere in a file's bytes (any encoding), with their names."""
    haystack = raw(data)
    return {code: cards[code].name if code in cards else "?" for code in hidden
            if any(pattern in haystack for pattern in encodings(code))}


def walk(case: str, view: str):
    return walk_file(loads(file_of(case, view)), events_of(case), CARDS, view)


def walk_file(view_file: ReplayFile, events, cards, view: str):
    """(index, the view's state, the judge's state, the judge's ids of the cards the view may name
    right now) after each event, folding the view's file and the full record side by side. A
    card may be named while it is public to the view, and while it stays on the field after that
    (a monster turned face-down in front of everyone); once it goes into a hidden pile it may not,
    but for a Deck it was put in at a named place of (ZONE-11: a ``card_moved`` naming its place),
    until a card comes into that Deck otherwise (shuffled in) or it is shuffled, or, neither its top
    nor its bottom, until a card is taken out of that Deck (the view cannot tell which side of it)."""
    judge = History(cards, audit=True)
    followed: set[str] = set()
    states = ViewReplay(view_file.events, view_file.cards, view_file.disclosures, view_file.renames).states()
    for index, state in enumerate(states):
        event = events[index]
        orders = [list(side.deck) for side in judge.state.sides]
        decks = [set(order) for order in orders]
        judge.append(event)
        placed = event.card if event.kind == "card_moved" and event.to.zone == DECK and event.reason != "shuffled" \
            and event.to.index is not None else None     # at a place it names: the top, the 3rd, the bottom
        mixed = {p for p, side in enumerate(judge.state.sides) if set(side.deck) - decks[p] - {placed}}
        if isinstance(event, DeckShuffled):
            mixed.add(event.player)
        between = {cid for p, order in enumerate(orders)        # a card taken out: the middle's places unknown
                   if getattr(event, "card", None) in decks[p] or decks[p] - set(judge.state.sides[p].deck)
                   for cid in order[1:-1]}
        for cid, card in judge.state.cards.items():
            if public_to(view, card) and not (card.revealed and card.zone in (HAND, DECK)):
                followed.add(cid)
            elif card.zone == DECK and (cid == placed or cid in decks[card.owner] and cid not in between) \
                    and card.owner not in mixed:
                continue                           # still followed (when it was) where it was put
            elif card.zone not in (MZONE, SZONE, FZONE, OVERLAY):
                followed.discard(cid)
        followed &= set(judge.state.cards)
        yield index, state, judge.state, followed


def _named(state, ids) -> Counter:
    return Counter(state.cards[c].code for c in ids if state.cards[c].code)


def _places(state, player: int):
    """Every place of one side: field zones one by one, piles whole."""
    side = state.sides[player]
    for i, cid in enumerate(side.mzone):
        yield ("mzone", i), [cid] if cid else []
    for i, cid in enumerate(side.szone):
        yield ("szone", i), [cid] if cid else []
    yield ("fzone", 0), [side.fzone] if side.fzone else []
    for slot, cid in enumerate(state.emz):
        if cid and state.cards[cid].controller == player:
            yield ("emz", slot), [cid]
    for name in ("deck", "hand", "gy", "banished", "extra"):
        yield (name, None), getattr(side, name)


@pytest.mark.parametrize("view", VIEWERS)
@pytest.mark.parametrize("case", CASES)
def test_the_opponents_hand_face_down_cards_and_deck_stay_hidden_at_every_event(case, view):
    """At every event, in every place, the cards the view names are among those it may name there
    (the view's ids are its own, so places are compared, not ids)."""
    shown, hidden = named_only_where_allowed(walk(case, view))
    assert shown and hidden


def named_only_where_allowed(walked) -> tuple[int, int]:
    """Checks a ``walk``: the cards named in each place are among those the view may name there;
    (cards named, cards hidden), summed over the events."""
    shown = hidden = 0
    for index, state, truth, followed in walked:
        for player in (0, 1):
            for (place, slot), truth_ids in _places(truth, player):
                view_ids = dict(_places(state, player))[(place, slot)]
                assert len(view_ids) == len(truth_ids), f"event {index}: {place} {slot}"
                allowed = _named(truth, [c for c in truth_ids if c in followed])
                named = _named(state, view_ids)
                assert not named - allowed, f"event {index}: player {player}'s {place} names {named - allowed}"
                if place == "deck":                # ZONE-11: a card named in a Deck is named where it is
                    for at, (seen, true) in enumerate(zip(view_ids, truth_ids)):
                        code = state.cards[seen].code
                        assert code in (0, truth.cards[true].code), f"event {index}: player {player}'s Deck, {at}"
                shown += sum(named.values())
                hidden += len(view_ids) - sum(named.values())
    return shown, hidden


@pytest.mark.parametrize("view", VIEWERS)
def test_hidden_deck_orders_are_neutral_and_committed(view):
    events = events_of(SHUFFLED)
    data = file_of(SHUFFLED, view)
    haystack = raw(data)
    view_file = loads(data)
    shuffles = [(i, e) for i, e in enumerate(view_file.events) if e.kind == "deck_shuffled"]
    assert len(shuffles) == 2
    for index, shuffled in shuffles:
        true = events[index]
        assert list(shuffled.order) == sorted(shuffled.order) != list(true.order)
        assert shuffled.seed is None and true.seed.encode() not in haystack
        assert msgpack.packb(list(true.order)) not in haystack
        assert any(c[0] == index and c[1] == true.player for c in view_file.commitments)
    masked = [i for i, e in enumerate(view_file.events) if e.kind == "deck_registered" and set(e.main) == {0}]
    assert masked == [1, 2], "every decklist is masked, the viewer's own included (its order is the Deck's)"
    assert {c[0] for c in view_file.commitments} == {i for i, _ in shuffles} | set(masked)


# -- the same public board at every event ---------------------------------------------------------------

@pytest.mark.parametrize("view", VIEWERS)
@pytest.mark.parametrize("case", CASES)
def test_the_view_replays_to_the_same_public_board_at_every_event(case, view):
    events = events_of(case)
    view_file = loads(file_of(case, view))
    assert_same_public_board(view_file, events, CARDS, view)
    # and as the commands see it (show, log, play): the view's source against the judge record's
    source = Source(case, view_file.events, view_file.cards, view, view_file.disclosures, view_file,
                    renames=view_file.renames)
    full = Source(case, list(events), CARDS, secret=SECRET)
    last = len(events) - 1
    assert public_board(source.state_after(last), view) == public_board(full.state_after(last, view), view)


def assert_same_public_board(view_file: ReplayFile, events, cards, view: str) -> None:
    """The view folds, event by event, to the board the full record shows ``view``."""
    judge = History(cards, audit=True)
    count = 0
    for index, state in enumerate(ViewReplay(view_file.events, view_file.cards, view_file.disclosures,
                                             view_file.renames).states()):
        judge.append(events[index])
        assert public_board(state, view) == public_board(judge.state, view), f"event {index} ({events[index].kind})"
        count += 1
    assert count == len(events)


@pytest.mark.parametrize("view", ["p0", "p1"])
@pytest.mark.parametrize("case", CASES)
def test_a_player_view_shows_its_own_hand(case, view):
    me = int(view[1])
    seen = 0
    for index, state, truth, followed in walk(case, view):
        own = sorted(state.cards[c].code for c in state.sides[me].hand)
        assert own == sorted(truth.cards[c].code for c in truth.sides[me].hand), f"event {index}"
        assert 0 not in own
        seen += len(own)
        theirs = _named(state, state.sides[1 - me].hand)
        assert not theirs - _named(truth, [c for c in truth.sides[1 - me].hand if c in followed])
    assert seen


@pytest.mark.parametrize("case", CASES)
def test_the_judge_view_is_the_full_record(case):
    events = list(events_of(case))
    judge = loads(file_of(case, "judge"))
    assert [e.to_dict() for e in judge.events] == [e.to_dict() for e in events]
    assert judge.times == stamps(len(events)) and judge.root == RECORD_ROOT
    assert judge.disclosures == [] and judge.commitments == [] and judge.commit_key
    assert set(judge.cards) == referenced_codes(events)
    assert redact(events, CARDS, "judge", b"k").events == events
    history = History(CARDS, audit=True)
    history.extend(events)
    final = History(judge.cards, audit=True)
    final.extend(judge.events)
    assert public_board(final.state, "judge") == public_board(history.state, "judge")


# -- verify --against ------------------------------------------------------------------------------------

@pytest.mark.parametrize("view", VIEWERS)
@pytest.mark.parametrize("case", CASES)
def test_verify_against_passes_for_honest_files(case, view):
    assert verify_against(loads(file_of(case, view)), loads(file_of(case, "judge"))) == []


def _write(tmp_path: Path, name: str, data: bytes, sign: bool = True) -> Path:
    """The file, signed (as every file the store exports is) with this session's organiser key."""
    path = tmp_path / name
    path.write_bytes(signed(data, OrganiserKey.load_or_create()[0]) if sign else data)
    return path


def test_cli_verify_against_an_honest_judge_record(tmp_path):
    judge = _write(tmp_path, "judge.ygr", file_of(SHUFFLED, "judge"))
    for view in VIEWERS:
        path = _write(tmp_path, f"{view}.ygr", file_of(SHUFFLED, view))
        result = run("verify", path, "--against", judge)
        assert result.exit_code == 0, result.output
        assert "matches the judge record" in result.output and "deck orders as committed" in result.output


def _tampered_shuffle() -> list[Event]:
    """The judge record with two never-drawn cards of player 1's shuffled deck swapped."""
    events = list(events_of(SHUFFLED))
    index = next(i for i, e in enumerate(events) if e.kind == "deck_shuffled" and e.player == 1)
    order = list(events[index].order)
    order[-1], order[-2] = order[-2], order[-1]
    events[index] = dataclasses.replace(events[index], order=tuple(order))
    assert audit(events, CARDS).legal, "the tampering must not be caught by the rules alone"
    return events


@pytest.mark.parametrize("view", VIEWERS)
def test_verify_fails_when_the_judge_records_deck_order_was_altered(view, tmp_path):
    forged = dumps(replay(_tampered_shuffle(), "judge"))
    problems = verify_against(loads(file_of(SHUFFLED, view)), loads(forged))
    assert problems == ["the judge record's deck orders do not match the view's commitments"]
    result = run("verify", _write(tmp_path, "view.ygr", file_of(SHUFFLED, view)),
                 "--against", _write(tmp_path, "forged.ygr", forged))
    assert result.exit_code == 1 and "deck orders do not match the view's commitments" in result.output


@pytest.mark.parametrize("view", ["spectator", "p0"])
def test_verify_fails_when_a_hidden_decklist_was_reordered(view):
    """No shuffle: the registration order is the deck order; swap two cards player 1 never showed."""
    events = list(events_of("won-by-damage"))
    hidden = never_public("won-by-damage", "spectator")
    registered = events[2]
    assert registered.kind == "deck_registered" and registered.player == 1
    main = list(registered.main)
    end = History(CARDS, audit=True)
    end.extend(events)
    stay = [int(cid.removeprefix("p1.m")) for cid in end.state.sides[1].deck]      # never drawn
    a = next(i for i in stay if main[i] in hidden)
    b = next(i for i in stay if main[i] != main[a])
    main[a], main[b] = main[b], main[a]
    events[2] = dataclasses.replace(registered, main=tuple(main))
    forged = loads(dumps(replay(events, "judge")))
    problems = verify_against(loads(file_of("won-by-damage", view)), forged)
    assert "the judge record's deck orders do not match the view's commitments" in problems


def _altered(view_file: ReplayFile, **changes) -> ReplayFile:
    """The view with some fields changed and its chain recomputed (an editor's best effort)."""
    return loads(dumps(dataclasses.replace(view_file, chain=[], stored_prefixes=None, stored_head=None, **changes)))


@pytest.mark.parametrize("view", VIEWERS)
def test_verify_fails_when_the_view_was_altered(view, tmp_path):
    judge = loads(file_of(SHUFFLED, "judge"))
    honest = loads(file_of(SHUFFLED, view))
    lp = next(i for i, e in enumerate(honest.events) if e.kind == "life_points_changed")
    events = list(honest.events)
    events[lp] = dataclasses.replace(events[lp], amount=events[lp].amount + 1000)
    assert verify_against(_altered(honest, events=events), judge) == [
        f"the view's events differ from the record's from event {lp}"]

    index, card_id, code = honest.disclosures[-1]
    other = next(c for c in honest.cards if c != code)
    lying = _altered(honest, disclosures=honest.disclosures[:-1] + [[index, card_id, other]])
    assert verify_against(lying, judge) == ["the view discloses different cards than the record shows"]

    commitments = [list(c) for c in honest.commitments]
    commitments[0][2] = bytes(32)
    assert verify_against(_altered(honest, commitments=commitments), judge) == [
        "the judge record's deck orders do not match the view's commitments"]

    data = file_of(SHUFFLED, view)
    body = decode_body(data)
    body["chain"] = bytes([body["chain"][0] ^ 1]) + body["chain"][1:]
    packed = lzma.compress(msgpack.packb(body), format=lzma.FORMAT_RAW,
                           filters=[{"id": lzma.FILTER_LZMA2, "preset": 0}])
    header_end = 16 + struct.unpack_from("<I", data, 12)[0]
    broken = data[:header_end] + struct.pack("<II", len(packed), zlib.crc32(packed)) + packed
    assert verify_against(loads(broken), judge)[0] == "the view file's hash chain is broken at event 0"

    stranger = loads(dumps(replay(events_of(SHUFFLED), view, root=hashlib.sha256(b"another").digest())))
    assert verify_against(stranger, judge) == ["the view does not come from this record (different chain root)"]
    assert "not a judge record" in verify_against(honest, loads(file_of(SHUFFLED, "spectator")))[-1]

    judge_path = _write(tmp_path, "judge.ygr", file_of(SHUFFLED, "judge"))
    for name, data in (("edited.ygr", dumps(dataclasses.replace(
            honest, events=events, chain=[], stored_prefixes=None, stored_head=None))), ("broken.ygr", broken)):
        result = run("verify", _write(tmp_path, name, data), "--against", judge_path)
        assert result.exit_code == 1, result.output
        assert "differ from the record's" in result.output or "hash chain is broken" in result.output


# -- real duels: EDOPro replays imported (third-party data, skipped when absent) ---------------------------

REAL = ["TEST_PAC_FTK_SUCCESS_15_(Links)", "TEST_PAC_FTK_SUCCESS_12_(Chaos_Atl)", "GG_roid_turn_2_vs_IA_Scrap",
        "GG_DW_vs_Cyberse"]


@functools.cache
def _real(name: str):
    from conftest import shared_path
    path = shared_path("real-replays", "edopro", f"{name}.yrpX")
    yrpx = pytest.importorskip("ygoreplay.yrpx")
    try:
        return yrpx.import_yrpx(path)
    except Exception as exc:                      # the importer's own tests judge it
        pytest.skip(f"{name}: not importable here ({type(exc).__name__}: {exc})")


@pytest.mark.parametrize("name", REAL)
def test_real_duels_views_hide_what_they_must_and_show_the_same_board(name):
    """Tokens, Xyz, Links, alternate artworks (an alt art's ``alias`` names its original, which
    is not a leak), hundreds of events: every view checked as above, and verified."""
    imported = _real(name)
    events, cards = list(imported.events), imported.cards
    judge = loads(dumps(make_replay(events, list(imported.times), cards, "judge", RECORD_ROOT, SECRET)))
    for view in VIEWERS:
        data = dumps(make_replay(events, list(imported.times), cards, view, RECORD_ROOT, SECRET))
        view_file = loads(data)
        assert verify_against(view_file, judge) == []
        assert_same_public_board(view_file, events, cards, view)
        everything, known = known_codes(events, cards, view)
        hidden = everything - known
        assert hidden or view != "spectator"
        leaks = leaked(data, hidden, cards)
        assert not leaks, f"{name}, {view} view: {leaks}"


# -- attacks on a view's names and keys ---------------------------------------------------------------

def _disclosed_at_registration_index(case: str, view: str) -> tuple[int, int]:
    """(disclosures whose view id ``pN.mK`` names the card registered at index K, all of them)."""
    events = events_of(case)
    registered = {e.player: e.main for e in events if e.kind == "deck_registered"}
    hits = total = 0
    for _index, card_id, code in loads(file_of(case, view)).disclosures:
        player, kind = int(card_id[1]), card_id.split(".")[1]
        if kind.startswith("m") and kind[1:].isdigit():
            total += 1
            hits += registered[player][int(kind[1:])] == code
    return hits, total


@pytest.mark.parametrize("view", VIEWERS)
def test_card_ids_do_not_follow_the_registered_list(view):
    """Decklists are written in groups of copies, so a view naming the card registered at index K
    ``pN.mK`` would tell which hidden cards are copies of a shown one."""
    for case in ("won-by-damage", "lost-by-deck-out"):
        hits, total = _disclosed_at_registration_index(case, view)
        assert total >= 8 and hits / total < 0.4, (case, hits, total)


def test_a_players_view_does_not_give_away_its_own_deck_order():
    """No shuffle: the registered order is the Deck's order. The p0 view holds p0's decklist sorted,
    and nothing in it puts the cards p0 will draw in the order p0 draws them."""
    events = events_of("won-by-damage")
    own = next(e for e in events if e.kind == "deck_registered" and e.player == 0)
    data = file_of("won-by-damage", "p0")
    view_file = loads(data)
    assert view_file.decklist == {"main": sorted(own.main), "extra": [], "side": []}
    assert msgpack.packb(list(own.main)) not in raw(data)
    assert all(set(e.main) == {0} for e in view_file.events if e.kind == "deck_registered")
    drawn = [int(c.split(".m")[1]) for e in view_file.events if e.kind == "cards_drawn" and e.player == 0
             for c in e.cards if ".m" in c]
    assert len(drawn) >= 7 and drawn != sorted(drawn), "the view's ids of the cards drawn follow the Deck"


BOUNCE = [
    position({"hand": [POT]}, {"mzone": [{"code": CELTIC_GUARDIAN, "position": "attack"}],
                               "hand": [BATTLE_OX, VORSE, MYSTICAL_ELF]}),
    {"kind": "card_moved", "card": "p1.s14", "to": [1, "hand"], "reason": "returned", "cause": "p0.s11"},
    {"kind": "phase_entered", "phase": "end"},
    {"kind": "turn_started", "player": 1, "turn": 3},
    {"kind": "phase_entered", "phase": "draw"},
    {"kind": "cards_drawn", "player": 1, "count": 1},
    {"kind": "phase_entered", "phase": "standby"},
    {"kind": "phase_entered", "phase": "main1"},
    {"kind": "monster_set", "player": 1, "card": "p1.s14", "zone": 2},
    {"kind": "card_revealed", "player": 1, "cards": ["p1.s12"], "cause": "p1.s12"},
    {"kind": "card_moved", "card": "p1.s1", "to": [1, "gy"], "reason": "sent", "cause": "p1.s12"},
    {"kind": "card_moved", "card": "p1.s1", "to": [1, "deck"], "reason": "shuffled", "cause": "p1.s12"},
    {"kind": "phase_entered", "phase": "end"},
]


def _bounce() -> list[Event]:
    events = [from_dict(e) for e in BOUNCE]
    assert audit(events, CARDS).legal
    return events


def test_a_card_that_went_back_to_a_hidden_hand_cannot_be_picked_out_when_it_comes_back():
    """Player 1's face-up Celtic Guardian is returned to their hand, then player 1 Sets a monster:
    it is that Celtic Guardian, which no spectator can know. The view mixes the names of the
    hand's hidden cards when the known card goes in, and the Set card is just a hidden card."""
    events = _bounce()
    view_file = make_replay(events, stamps(len(events)), CARDS, "spectator", RECORD_ROOT, SECRET)
    bounced = next(d[1] for d in view_file.disclosures if d[2] == CELTIC_GUARDIAN and d[0] == 0)
    mix = next(r for r in view_file.renames if r[0] == 1)
    assert bounced in mix[1] and len(mix[1]) == 4 and bounced not in mix[2], "the whole hidden hand is renamed"
    set_card = view_file.events[8].card
    assert set_card != bounced and set_card in mix[2]
    states = list(ViewReplay(view_file.events, view_file.cards, view_file.disclosures, view_file.renames).states())
    assert states[8].cards[set_card].code == 0
    assert bounced not in states[8].cards
    # the revealed Vorse Raider is named at its reveal, and hidden again (the hand mixed) right after
    revealed = next(d for d in view_file.disclosures if d[0] == 9)
    assert revealed[2] == VORSE and any(r[0] == 9 and revealed[1] in r[1] for r in view_file.renames)
    assert states[9].cards.get(revealed[1]) is None
    assert verify_against(loads(dumps(view_file)),
                          loads(dumps(make_replay(events, stamps(len(events)), CARDS, "judge", RECORD_ROOT, SECRET)))) == []


def test_a_card_shuffled_into_a_deck_cannot_be_followed_out_of_it():
    """A card seen in the GY is shuffled into the Deck: the Deck's hidden cards are all renamed (one
    put on its top or bottom stays known there: ``test_table_22b``)."""
    events = _bounce()
    view_file = make_replay(events, stamps(len(events)), CARDS, "spectator", RECORD_ROOT, SECRET)
    seen = next(d[1] for d in view_file.disclosures if d[0] == 10)
    mix = next(r for r in view_file.renames if r[0] == 11)
    assert seen in mix[1] and len(mix[1]) == 10 and not set(mix[1]) & set(mix[2])


def test_the_commitments_key_is_the_duels_secret_not_its_public_header():
    """The attack that worked: derive the key from the view's header (as format 2 did from the
    chain root), then brute-force the hidden decklists against the commitments. Every key one
    can derive from what a view shows fails; only the judge record's secret opens them."""
    from ygoreplay.views import commitment
    events = list(events_of(SHUFFLED))
    spectator = loads(file_of(SHUFFLED, "spectator"))
    truth = {i: (e.player, [list(e.main), list(e.extra), list(e.side)]) for i, e in enumerate(events)
             if e.kind == "deck_registered"}
    index, player, digest = next(c for c in spectator.commitments if c[0] in truth)
    public = [spectator.root, spectator.head, RECORD_ROOT, msgpack.packb(spectator.match),
              spectator.created.encode(), msgpack.packb(spectator.players)]
    candidates = public + [hashlib.sha256(b"ygoreplay commit key" + p).digest()[:16] for p in public] + [b""]
    assert all(commitment(key, index, player, truth[index][1]) != digest for key in candidates)
    assert commitment(loads(file_of(SHUFFLED, "judge")).commit_key, index, player, truth[index][1]) == digest


def test_a_rollback_does_not_give_back_the_name_of_a_card_the_view_saw():
    """A card revealed from the hand, the reveal rolled back by a judge, then the card Set: the
    spectator saw the reveal, so the hand is mixed again at the rollback and the Set card is not
    the revealed one by name."""
    start = position(None, {"hand": [DARK_MAGICIAN, POT, MIRROR_FORCE, RAIGEKI, MST]}, turn=2, turn_player=1)
    events = [from_dict(e) for e in (
        start,
        {"kind": "card_revealed", "cards": ["p1.s13"]},
        {"kind": "judge_note", "judge": "J", "note": "wrong card revealed"},
        {"kind": "rolled_back", "to": 1, "judge": "J", "reason": "the reveal was a misplay"},
        {"kind": "spell_trap_set", "player": 1, "card": "p1.s13", "zone": 2})]
    view_file = loads(dumps(make_replay(events, stamps(len(events)), CARDS, "spectator", RECORD_ROOT, SECRET)))
    revealed = next(d for d in view_file.disclosures if d[0] == 1)
    assert revealed[2] == MIRROR_FORCE
    assert view_file.events[4].card != revealed[1]
    assert any(r[0] == 3 and len(r[1]) == 5 for r in view_file.renames), "the hand mixed at the rollback"
    judge = loads(dumps(make_replay(events, stamps(len(events)), CARDS, "judge", RECORD_ROOT, SECRET)))
    assert verify_against(view_file, judge) == []


def test_the_stats_of_a_hidden_card_are_not_in_a_view():
    start = position(None, {"hand": [DARK_MAGICIAN, POT], "mzone": [{"code": SUMMONED_SKULL, "position": "set"}]})
    events = [from_dict(e) for e in (
        start,
        {"kind": "stats_changed", "card": "p1.s11", "level": 5, "cause": "p1.s11"},
        {"kind": "stats_changed", "card": "p1.s13", "atk": 2500, "defense": 1200})]
    view_file = make_replay(events, stamps(len(events)), CARDS, "spectator", RECORD_ROOT, SECRET)
    for event in view_file.events[1:]:
        assert (event.atk, event.defense, event.level) == (None, None, None)
    mine = make_replay(events, stamps(len(events)), CARDS, "p1", RECORD_ROOT, SECRET)
    assert mine.events[2].atk == 2500, "the card's own player sees it"


# -- a shuffle of Set cards: the opponent loses track of which is which ------------------------------

def _shuffle_record(zones: list[int]) -> list[Event]:
    """Player 0 holds a face-up Mystical Elf (zone 1) an effect turns face-down, and a Set Battle
    Ox (zone 2); an effect shuffles both among zones 1 and 2 (``zones``: the Elf's, then the Ox's)."""
    board = position({"mzone": [None, {"code": MYSTICAL_ELF, "id": "elf"},
                                {"code": BATTLE_OX, "id": "ox", "position": "set"}]}, {})
    return [from_dict(board),
            from_dict({"kind": "position_changed", "card": "elf", "position": "set", "cause": "moon"}),
            from_dict({"kind": "set_cards_shuffled", "cards": ["elf", "ox"], "zones": zones, "cause": "shadows"})]


def test_a_shuffle_of_set_cards_does_not_tell_the_opponent_which_is_which():
    """ZONE-16: the opponent and a spectator saw the Elf turned face-down; after the shuffle their
    views are the same byte for byte whether the cards traded zones or not (events, renames,
    disclosures), the Elf is no longer known in either zone, and each view still replays to the
    public board of the judge record. The controller's own view follows the cards."""
    swapped, kept = _shuffle_record([2, 1]), _shuffle_record([1, 2])
    for view in ("p1", "spectator"):
        a, b = redact(swapped, CARDS, view, SECRET), redact(kept, CARDS, view, SECRET)
        assert (a.events, a.renames, a.disclosures) == (b.events, b.renames, b.disclosures), view
        assert a.renames and a.renames[-1][0] == 2
        for record, redaction in ((swapped, a), (kept, b)):
            judge = History(CARDS)
            views = ViewReplay(redaction.events, CARDS, redaction.disclosures, redaction.renames).states()
            for event, state in zip(record, views):
                judge.append(event)
                assert public_board(state, view) == public_board(judge.state, view)
            assert [state.cards[c].code for c in state.sides[0].mzone[1:3]] == [0, 0]
    mine = redact(swapped, CARDS, "p0", SECRET), redact(kept, CARDS, "p0", SECRET)
    assert mine[0].events[-1] != mine[1].events[-1]


def test_after_a_hidden_shuffle_and_a_rollback_each_view_still_replays_to_the_public_board():
    """A judge rolls the shuffle back and it is replayed the other way; then the Elf is flipped
    face-up: in every view the card flipped is the one in the Elf's zone, named as the view
    dealt it, and every board is the judge record's public one."""
    record = _shuffle_record([2, 1]) + [
        from_dict({"kind": "rolled_back", "to": 2, "judge": "J. Doe", "reason": "wrong order"}),
        from_dict({"kind": "set_cards_shuffled", "cards": ["elf", "ox"], "zones": [1, 2], "cause": "shadows"}),
        from_dict({"kind": "position_changed", "card": "elf", "position": "attack", "cause": "flip"})]
    for view in VIEWERS:
        redaction = redact(record, CARDS, view, SECRET)
        judge = History(CARDS)
        states = ViewReplay(redaction.events, CARDS, redaction.disclosures, redaction.renames).states()
        for index, (event, state) in enumerate(zip(record, states)):
            judge.append(event)
            assert public_board(state, view) == public_board(judge.state, view), f"{view}: event {index}"
        flipped = state.sides[0].mzone[1]
        assert state.cards[flipped].code == MYSTICAL_ELF and state.cards[flipped].position == "attack"
