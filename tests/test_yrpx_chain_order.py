"""A chain link of an imported duel reads as our model writes it (issue 24): its
``chain_link_resolved`` first, where EDOPro starts resolving it (MSG_CHAIN_SOLVING), then what it
did, up to the next link; a link whose activation was negated is ``chain_link_negated`` and
nothing of it follows. The rules read a chain that way (NIS-06's segments, TERM-14/SPELL-06: a
negated link does nothing), and so does the log. Small streams built here, then real replays
(skipped without ../shared)."""
from __future__ import annotations

import struct

import pytest
from conftest import shared_path
from test_engine_authority import BOARD, imported
from test_yrpx import DECKS, HAND, draw, loc, opening, packet, replay
from test_yrpx_emits import answered, chaining
from ygoreplay.importing import ImportResult
from ygoreplay.rules import audit
from ygoreplay.yrpx import (MSG_CHAIN_END, MSG_CHAIN_NEGATED, MSG_CHAIN_SOLVED, MSG_CHAIN_SOLVING, MSG_MOVE,
                            MSG_WIN, REASON_EFFECT, import_yrpx, parse_message)
from ygoreplay.yrpx.engine_check import check

GRAVE = 0x10
MARKERS = ("activated", "chain_link_resolved", "chain_link_negated", "chain_ended")


def links(result: ImportResult) -> list[tuple[str, int | None, list[str]]]:
    """Each chain marker, its link, and the kinds of the events after it up to the next marker."""
    out: list[tuple[str, int | None, list[str]]] = []
    for e in result.events:
        if e.kind in MARKERS:
            out.append((e.kind, getattr(e, "link", None), []))
        elif out:
            out[-1][2].append(e.kind)
    return out


def solving(result: ImportResult, k: int) -> tuple[int, int]:
    """(MSG_CHAIN_SOLVING packet, the packet that ends that link's turn) of event ``k``'s link: its
    source must be that MSG_CHAIN_SOLVING, naming the same link."""
    packets = result.replay.packets
    at = result.sources[k]
    assert packets[at].id == MSG_CHAIN_SOLVING and parse_message(packets[at])["chain"] == result.events[k].link
    end = next((j for j in range(at + 1, len(packets)) if packets[j].id in (MSG_CHAIN_SOLVING, MSG_CHAIN_END)),
               len(packets) - 1)
    return at, end


def test_a_links_events_follow_its_chain_link_resolved():
    """Player 1's link 2 sends a card from player 0's hand to the GY, then player 0's link 1 draws:
    each link's ``chain_link_resolved`` comes first (at its MSG_CHAIN_SOLVING), then its events,
    caused by its card; the fold agrees (no violation) and so does the engine check."""
    mine, theirs = DECKS[0][0][::-1][0], DECKS[1][0][::-1][0]
    sent, drawn = DECKS[0][0][::-1][1], DECKS[0][0][::-1][5]
    stream = opening() + chaining(0, mine, 0, 1) + chaining(1, theirs, 0, 2)
    stream += packet(MSG_CHAIN_SOLVING, bytes([2]))
    stream += packet(MSG_MOVE, struct.pack("<I", sent) + loc(0, HAND, 1, 0xA) + loc(0, GRAVE, 0, 0x5)
                     + struct.pack("<I", REASON_EFFECT))
    stream += packet(MSG_CHAIN_SOLVED, bytes([2])) + packet(MSG_CHAIN_SOLVING, bytes([1])) + draw(0, [drawn])
    stream += packet(MSG_CHAIN_SOLVED, bytes([1])) + packet(MSG_CHAIN_END, b"") + packet(MSG_WIN, bytes([1]))
    result = import_yrpx(replay(stream=stream))
    assert links(result) == [("activated", 1, []), ("activated", 2, []),
                             ("chain_link_resolved", 2, ["card_moved"]),
                             ("chain_link_resolved", 1, ["cards_drawn"]), ("chain_ended", None, ["duel_ended"])]
    activated = {e.link: e.card for e in result.events if e.kind == "activated"}
    moved = next(e for e in result.events if e.kind == "card_moved")
    drew = next(e for e in result.events if e.kind == "cards_drawn" and e.cause is not None)
    assert (moved.cause, drew.cause) == (activated[2], activated[1])
    for k, e in enumerate(result.events):
        if e.kind == "chain_link_resolved":
            at, end = solving(result, k)
            assert at < result.sources[k + 1] <= end          # its event comes from its own resolution
    agreement, report = check(result)
    assert agreement.ok and report.violations == []


def test_a_link_negated_by_a_later_link_is_followed_by_nothing_of_its_own():
    """Link 2 negates link 1's activation (MSG_CHAIN_NEGATED while link 2 resolves): link 1 is
    ``chain_link_negated`` by 2, never resolved, and the chain ends right after it."""
    result = import_yrpx(replay(stream=answered(MSG_CHAIN_NEGATED)))
    assert [(kind, link, after) for kind, link, after in links(result)][2:] == [
        ("chain_link_resolved", 2, []), ("chain_link_negated", 1, []), ("chain_ended", None, ["duel_ended"])]
    assert [v.rule for v in audit(result.events, result.cards).violations] == []


def test_a_link_negated_as_it_begins_to_resolve_does_not_resolve():
    """MSG_CHAIN_NEGATED of the very link EDOPro is resolving (an effect that answers the link
    beginning to resolve, EVENT_CHAIN_ACTIVATING: ``processor.cpp`` SolveChain then skips its
    operation): the import looks ahead from MSG_CHAIN_SOLVING and writes ``chain_link_negated``
    (by no link), not ``chain_link_resolved`` (TERM-14 holds)."""
    mine = DECKS[0][0][::-1][0]
    stream = opening() + chaining(0, mine, 0, 1) + packet(MSG_CHAIN_SOLVING, bytes([1]))
    stream += packet(MSG_CHAIN_NEGATED, bytes([1])) + packet(MSG_CHAIN_SOLVED, bytes([1]))
    stream += packet(MSG_CHAIN_END, b"") + packet(MSG_WIN, bytes([1]))
    result = import_yrpx(replay(stream=stream))
    negated = [e for e in result.events if e.kind == "chain_link_negated"]
    assert [(e.link, e.by) for e in negated] == [(1, None)]
    assert links(result)[1:] == [("chain_link_negated", 1, []), ("chain_ended", None, ["duel_ended"])]
    assert [v.rule for v in audit(result.events, result.cards).violations] == []


def test_the_authority_cites_the_resolving_link_for_its_events():
    """An event that follows a link's ``chain_link_resolved`` is that link's doing: the engine's
    authority cites that link (it is off the fold's chain by then), not a lower link or nothing."""
    events = [BOARD, {"kind": "normal_summoned", "player": 0, "card": "celtic", "zone": 1},
              {"kind": "activated", "player": 0, "card": "granter", "effect_type": "ignition"},
              {"kind": "chain_link_resolved", "link": 1},
              {"kind": "normal_summoned", "player": 0, "card": "ox", "zone": 2},
              {"kind": "chain_ended"}]
    _, overrides = imported(*events)
    [o] = [o for o in overrides if o.rule == "SUM-01"]
    assert o.cite.card == "granter" and "chain link 1 resolved" in o.cite.effect and not o.cite.unexplained


# -- the real replays ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["2020-06-21_12-58-40.yrpX", "GG_Vylon_vs_IA_Rose_Scrap.yrpX",
                                  "TEST_PAC_FTK_SUCCESS_3_(Chaos_Atl).yrpX"])
def test_real_links_events_follow_their_chain_link_resolved(name):
    """Real duels (links negated by later links, effects negated with MSG_CHAIN_DISABLED, a last
    link whose damage ends the duel): every ``chain_link_resolved`` and ``chain_link_negated``
    stands at its link's MSG_CHAIN_SOLVING; the events after a resolved link come from that link's
    resolution; none after a negated link come from inside its resolution; the board agrees with
    the engine at every state packet and nothing is a violation."""
    result = import_yrpx(shared_path("real-replays", "edopro", name))
    packets, events, sources = result.replay.packets, result.events, result.sources
    seen = {"chain_link_resolved": 0, "chain_link_negated": 0}
    for k, e in enumerate(events):
        if e.kind not in seen:
            continue
        seen[e.kind] += 1
        at, end = solving(result, k)
        solved = next(j for j in range(at + 1, end + 1) if packets[j].id == MSG_CHAIN_SOLVED or j == end)
        j = k + 1
        while j < len(events) and events[j].kind not in MARKERS:
            assert at < sources[j] <= end, (k, j, events[j].kind)
            if e.kind == "chain_link_negated":
                assert sources[j] >= solved, (k, j, events[j].kind)
            j += 1
    assert seen["chain_link_resolved"] > 0
    assert seen["chain_link_negated"] > 0 or name.startswith("TEST_PAC")
    assert sources == sorted(sources)
    agreement, report = check(result)
    assert agreement.ok and report.violations == []
    if name.startswith("TEST_PAC"):             # the last link resolved, then its damage ended the duel
        assert [e.kind for e in events[-4:]] == ["activated", "chain_link_resolved", "life_points_changed",
                                                 "duel_ended"]
