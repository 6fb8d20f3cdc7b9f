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
