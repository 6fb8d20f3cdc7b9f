"""Leftovers of the nineteenth pass closed (``leftovers20``): a duel of one name twice, card names
folded as the page folds them, the importer's Flip effects counted per flip as the rules count them.
"""
from __future__ import annotations

import pytest

from duel import fold, refused_with
from test_release import ORGANISER, auth, client, events_of, store  # noqa: F401  (fixtures: an in-process service)

#: One player's name twice, as it reads (``text.name_key``: NFKC, case, characters not seen).
ONE_NAME = [["Yugi", "Yugi"], ["Yugi", "ＹＵＧＩ"], ["Yugi", "Yu\u200bgi"], ["Yugi", "YUGI "]]
STARTED = {"kind": "duel_started", "first_player": 0, "chosen_by": 0}


@pytest.mark.parametrize("players", ONE_NAME, ids=["same", "full width", "zero width", "case and space"])
def test_log_05_a_duel_of_one_name_twice_is_refused_in_the_fold(players):
    """LOG-05: a duel's seats are told apart by their names (``access.seat_order``); a
    ``duel_started`` naming one player twice (or a full-width, zero-width or case variant) seated
    neither and was taken, a match's judge seeing it only as LOG-09. The fold refuses it, in a
    witnessed duel too (it is no play at the table a judge rules on)."""
    for witnessed in (False, True):
        refused_with([{**STARTED, "players": players, "witnessed": witnessed}], "LOG-05", "read as one name")
    for others in ([players[0], "Kaiba"], ["", ""], []):       # two names, or none (a replay naming nobody)
        assert fold({**STARTED, "players": others}).started


def test_log_05_a_duel_of_one_name_twice_is_refused_over_http_nothing_written(client, store):  # noqa: F811
    """The service's append (the one command every face calls): 422 naming LOG-05, nothing stored."""
    duel = client.post("/duels", json={"title": "one name"}, headers=ORGANISER).json()
    events = events_of("won-by-damage.jsonl")
    events[0] = {**events[0], "players": ["Yugi", "ｙｕｇｉ"]}
    r = client.post(f"/duels/{duel['id']}/events", json=events[:3], headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 422 and r.json()["rule"] == "LOG-05", r.text
    assert "ｙｕｇｉ" in r.json()["message"]
    assert store.records_after(duel["id"], 0) == []


#: Installed names (``cards update --lang``): ABC-Dragon Buster, Z-ONE and a name of full-width signs.
NAMES = {"zh-Hans": [(1561110, "ABC-神龙歼灭者"), (62499965, "Z－ONE"), (13974207, "电光－雪花－")],
         "ja": [(1561110, "ＡＢＣ－ドラゴン・バスター"), (62499965, "Ｚ－ＯＮＥ")]}


@pytest.mark.parametrize("language, typed, code", [
    ("zh-Hans", "ＡＢＣ", 1561110), ("zh-Hans", "Ｚ－ＯＮＥ", 62499965), ("zh-Hans", "z-one", 62499965),
    ("zh-Hans", "電光-雪花-", 13974207), ("ja", "abc-ドラゴン", 1561110), ("ja", "Z-one", 62499965)])
def test_a_card_name_is_found_whatever_width_it_is_typed_in(tmp_path, monkeypatch, language, typed, code):
    """The server's search of installed names (``card_names.find_codes``, ``cards find``) folds
    as the recorder page's name box does (names.js ``plain``: NFKC, case): ＡＢＣ typed in a
    Chinese input's full-width mode, or Z-ONE for the name written Z－ONE, found nothing."""
    from ygoreplay.card_names import find_codes, write_names
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    write_names(language, NAMES[language])
    assert find_codes(typed, language) == [code]


def test_one_fold_for_names_typed_and_player_names():
    """``text.plain`` is the one fold: the page's (NFKC, case), and the first step of ``name_key``."""
    from ygoreplay.text import name_key, plain
    assert plain("Ｚ－ＯＮＥ") == plain("z-one") == "z-one" and plain("ＡＢＣ") == "abc"
    assert name_key("Ｙｕ\u200bｇｉ  Ｍｕｔｏ") == plain("Yugi Muto")


# -- the importer's Flip effects (EFF-05) ----------------------------------------------------------

FLIP_MONSTER = 0x200021                       # TYPE_MONSTER | TYPE_EFFECT | TYPE_FLIP


def _flip_stream(after_flip: bytes) -> bytes:
    """Player 0 Sets the top card of their Deck's opening hand (a Flip monster) on turn 1, Flip
    Summons it on turn 3, then ``after_flip``; player 1 wins."""
    import struct

    from test_yrpx import DECKS, DECK_LOC, HAND, draw, loc, packet, refresh
    from ygoreplay.yrpx import (MSG_FLIPSUMMONED, MSG_FLIPSUMMONING, MSG_MOVE, MSG_NEW_PHASE, MSG_NEW_TURN,
                                MSG_SET, MSG_START, MSG_WIN)
    d0, d1 = DECKS[0][0], DECKS[1][0]
    mine = d0[::-1][0]
    out = packet(MSG_START, struct.pack("<BII4H", 0, 8000, 8000, 40, 0, 40, 0))
    out += refresh(0, DECK_LOC, d0, FLIP_MONSTER) + refresh(1, DECK_LOC, d1, 0x21)
    out += draw(0, d0[::-1][:5]) + draw(1, d1[::-1][:5])
    out += packet(MSG_NEW_TURN, bytes([0])) + b"".join(packet(MSG_NEW_PHASE, struct.pack("<H", p)) for p in (1, 2, 4))
    out += packet(MSG_MOVE, struct.pack("<I", mine) + loc(0, HAND, 0, 0xA) + loc(0, 0x04, 0, 0x8) + struct.pack("<I", 0))
    out += packet(MSG_SET, struct.pack("<I", mine) + loc(0, 0x04, 0, 0x8))
    out += packet(MSG_NEW_PHASE, struct.pack("<H", 0x200))
    for player, drawn in ((1, d1[::-1][5]), (0, d0[::-1][5])):
        out += packet(MSG_NEW_TURN, bytes([player])) + packet(MSG_NEW_PHASE, struct.pack("<H", 1)) + draw(player, [drawn])
        out += b"".join(packet(MSG_NEW_PHASE, struct.pack("<H", p)) for p in (2, 4))
        if player == 1:
            out += packet(MSG_NEW_PHASE, struct.pack("<H", 0x200))
    out += packet(MSG_FLIPSUMMONING, struct.pack("<I", mine) + loc(0, 0x04, 0, 0x5)) + packet(MSG_FLIPSUMMONED, b"")
    return out + after_flip + packet(MSG_WIN, bytes([1]))


def _activated_on(location: int, seq: int, n: int) -> bytes:
    """Player 0's top card activates its effect ``n`` from ``location`` as link 1, resolved at once."""
    import struct

    from test_yrpx import DECKS, loc, packet, stringid
    from ygoreplay.yrpx import MSG_CHAIN_END, MSG_CHAIN_SOLVED, MSG_CHAIN_SOLVING, MSG_CHAINED, MSG_CHAINING
    mine = DECKS[0][0][::-1][0]
    out = packet(MSG_CHAINING, struct.pack("<I", mine) + loc(0, location, seq, 0x5)
                 + struct.pack("<BBIQI", 0, location, seq, stringid(mine, n), 1))
    out += packet(MSG_CHAINED, bytes([1])) + packet(MSG_CHAIN_SOLVING, bytes([1]))
    return out + packet(MSG_CHAIN_SOLVED, bytes([1])) + packet(MSG_CHAIN_END, b"")


def _scripts(flips: int):
    """A card database whose script of the Flip monster declares ``flips`` FLIP effects."""
    from test_yrpx import DECKS
    from ygoreplay.cards import CardDB
    from ygoreplay.effect_facts import EffectFact
    flip = EffectFact(types=("single", "flip"))                 # EFFECT_TYPE_SINGLE+EFFECT_TYPE_FLIP
    return CardDB([]).with_effects({DECKS[0][0][::-1][0]: (flip,) * flips})


def _kinds(result) -> list[str | None]:
    return [e.effect_type for e in result.events if e.kind == "activated"]


def test_eff_05_a_second_flip_effect_of_one_flip_is_imported_as_a_flip_effect():
    """EFF-05: a flip triggers each Flip effect its script declares (``rules.chain._check_flip``:
    flips x the script's FLIP effects). The importer let one flip give one Flip effect: the second
    was imported as another kind of effect (``flipped.discard``). A third, past what the script
    declares, is not a Flip effect; nor is a second when the script was not read (one a flip)."""
    from ygoreplay.yrpx import import_yrpx
    two = _activated_on(0x04, 0, 0) + _activated_on(0x04, 0, 1)
    assert _kinds(import_yrpx(_flip_replay(two), names=_scripts(2)))[:2] == ["flip", "flip"]
    three = two + _activated_on(0x04, 0, 0)
    assert _kinds(import_yrpx(_flip_replay(three), names=_scripts(2)))[2] != "flip"
    assert _kinds(import_yrpx(_flip_replay(two)))[1] != "flip"


def test_eff_05_a_flip_effect_activated_from_the_gy_after_its_flip_is_imported_as_one():
    """EFF-05 (the rules: "on the field, or gone from it since its flip"): flipped, then sent to
    the GY before its Flip effect, it activates from there: a Flip effect, not another kind."""
    import struct

    from test_yrpx import DECKS, loc, packet
    from ygoreplay.yrpx import MSG_MOVE, import_yrpx
    mine = DECKS[0][0][::-1][0]
    to_gy = packet(MSG_MOVE, struct.pack("<I", mine) + loc(0, 0x04, 0, 0x5) + loc(0, 0x10, 0, 0x5)
                   + struct.pack("<I", 0x40))
    result = import_yrpx(_flip_replay(to_gy + _activated_on(0x10, 0, 0)))
    assert _kinds(result) == ["flip"]


def _flip_replay(after_flip: bytes) -> bytes:
    from test_yrpx import replay
    return replay(stream=_flip_stream(after_flip))


# -- look-alike names across scripts (UTS #39 confusables, the mixed-script case) ------------------

#: Latin names and the same with a letter of another script that looks like one of theirs.
LOOK_ALIKES = [("Yugi", "Yugі"), ("Joey", "Jоey"), ("Kaiba", "Kаibа"), ("ABC", "ΑΒC")]   # Cyrillic і, о, а; Greek Α, Β


@pytest.mark.parametrize("latin, mixed", LOOK_ALIKES, ids=["cyrillic i", "cyrillic o", "cyrillic a", "greek"])
def test_log_05_a_name_and_its_look_alike_across_scripts_are_one_name(latin, mixed):
    """``text.name_key`` folded width, case and characters not seen, not a letter of another
    script drawn like a Latin one: ``Yugі`` (a Cyrillic і) against ``Yugi`` was a duel, a match and a
    pairing of two players. Read through Unicode's confusables (``confusable-homoglyphs``), they are
    one name: refused as a duel's two players (LOG-05; a match's, by the same key) and as a pairing. Left apart:
    one script's own look-alikes (``Kai1``/``Kail``, ``Player 0``/``Player O``: the mixed-script
    confusables, not every near likeness), an accent, a name whole in another script (``Маі``:
    whole-script confusables are not folded)."""
    from ygoreplay.rounds import PairingsError, read_pairings
    from ygoreplay.text import name_key
    assert name_key(latin) == name_key(mixed)
    refused_with([{**STARTED, "players": [latin, mixed]}], "LOG-05", "read as one name")
    with pytest.raises(PairingsError, match="cannot play themselves"):
        read_pairings(f"1,{latin},{mixed}\n".encode(), "pairings.csv")
    for one, other in (("Kai1", "Kail"), ("Player 0", "Player O"), ("José", "Jose"), ("Mai", "Маі"), ("遊戯", "游戏")):
        assert name_key(one) != name_key(other), (one, other)
    assert fold({**STARTED, "players": ["Mai", "Маі"]}).started


def test_log_05_a_real_replay_of_one_name_twice_imports_its_seats_told_apart(monkeypatch):
    """An EDOPro duel a player hosted against himself names both sides ``Player``: the duel start
    refuses one name twice (LOG-05), so the importer tells the second apart (``#2``) and says so,
    rather than lose the replay."""
    import test_yrpx
    from ygoreplay.yrpx import import_yrpx
    plain_name = test_yrpx.name
    monkeypatch.setattr(test_yrpx, "name", lambda _: plain_name("Player"))
    result = import_yrpx(test_yrpx.replay())
    started = result.events[0]
    assert started.kind == "duel_started" and started.players == ("Player", "Player #2")
    assert any("both players are named 'Player'" in note for note in result.notes)
