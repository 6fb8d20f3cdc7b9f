"""Attacks on the recorder's actions (issue 25, thirteenth pass): what ``GET /duels/{id}/actions``
offers, the events it offers, and the refusals the page shows in its language."""
from __future__ import annotations

import httpx

from test_browser import browser, service  # noqa: F401  (fixtures)
from test_release import ORGANISER, auth, client, store  # noqa: F401  (fixtures)


def lost_at_the_table(client, winner: str = "Yugi") -> tuple[dict, str, int]:  # noqa: F811
    """A witnessed duel as the recorder's page starts one (unknown decks, hands drawn), Main Phase
    1 of turn 1, where player 1's LP has just gone to 0 (WIN-01: the duel must end now)."""
    duel = client.post("/duels", json={"title": "table 9", "mode": "witnessed"}, headers=ORGANISER).json()
    recorder = duel["tokens"]["recorder"]
    events = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": [winner, "Kaiba"],
               "witnessed": True},
              *({"kind": "deck_registered", "player": p, "main": [0] * 40, "extra": [0] * 15} for p in (0, 1)),
              *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
              {"kind": "turn_started", "player": 0, "turn": 1},
              *({"kind": "phase_entered", "phase": phase} for phase in ("draw", "standby", "main1")),
              {"kind": "life_points_changed", "player": 1, "amount": 8000, "reason": "effect_damage", "lp": 0}]
    r = client.post(f"/duels/{duel['id']}/events", params={"expected": 0}, json=events, headers=auth(recorder))
    assert r.status_code == 200, r.text
    return duel, recorder, len(events)


def test_a_hand_card_tapped_after_a_player_lost_is_offered_not_a_crash(client) -> None:  # noqa: F811
    """WIN-01: with a player at 0 LP the duel must end, so any play is illegal. The recorder tapping
    an unknown card in the hand then got a 500 from ``/actions`` (and the same play posted to
    ``/events`` a 500): the fold tried the Summon as every card the unknown one could be
    (``candidates.decide``), each trial broke WIN-01, which the play itself had broken for sure,
    not as undecided, and looking it up among the undecided rules raised ValueError. The actions
    are offered, flagged WIN-01; the play posted is kept flagged WIN-01 in this witnessed duel."""
    duel, recorder, count = lost_at_the_table(client)
    for token in ("recorder", "p0", "judge"):
        r = client.get(f"/duels/{duel['id']}/actions", params={"card": "p0.m0", "lang": "ja"},
                       headers=auth(duel["tokens"][token]))
        assert r.status_code == 200, r.text
    summon = next(a for a in r.json()["actions"] if a["label"] == "Normal Summon")
    assert summon["verdict"] == "illegal" and summon["rules"] == ["WIN-01"] and summon["label_translated"] == "通常召喚"
    r = client.post(f"/duels/{duel['id']}/events", params={"expected": count, "lang": "ja"},
                    json=[{"kind": "normal_summoned", "player": 0, "card": "p0.m0", "zone": 0}], headers=auth(recorder))
    assert r.status_code == 200, r.text
    assert [f["rule"] for f in r.json()["flags"]] == ["WIN-01"]


def test_the_end_of_the_duel_offered_is_labelled_in_the_readers_language(client) -> None:  # noqa: F811
    """WIN-01: with a player at 0 LP the turn's moves offer the duel's end, ``Yugi wins (LP reached 0)``. Its
    ``label_translated`` was that English in every language: ``said`` matched no template with
    fewer than 8 characters of words, and "{player} wins ({reason})" has 7. Now it is translated,
    the player's name (braces and all) put in as it is, never formatted again."""
    name = "{0.__class__}{player!r:>99999999}%s"
    duel, _, _ = lost_at_the_table(client, name)
    expected = {"ja": f"{name}の勝利（LPが0になった）", "zh-Hans": f"{name}获胜（基本分归零）",     # not （lp）, the JSON word
                "zh-Hant": f"{name}獲勝（基本分歸零）", "ko": f"{name} 승리 (LP가 0이 됨)"}
    for language, words in expected.items():
        r = client.get(f"/duels/{duel['id']}/actions", params={"lang": language}, headers=auth(duel["tokens"]["judge"]))
        assert r.status_code == 200, r.text
        end = next(a for a in r.json()["actions"] if a["event"]["kind"] == "duel_ended")
        assert end["label"] == f"{name} wins (LP reached 0)"
        assert end["label_translated"] == words

def test_the_next_duels_refusal_by_a_match_rule_is_shown(service, browser):  # noqa: F811
    """MATCH-07: the loser of the last duel chooses who goes first. The match's page (/record/match,
    read in Japanese) refused by that rule showed nothing and threw: its error paragraph, named
    ``said``, hid the function of that name that picks the refusal's ``message_translated``, and
    ``said(answer)`` called the paragraph. It shows the rule and why, in the page's language (the
    match's refusals are catalogued: ``tests/test_match_languages.py``)."""
    from test_browser_record import Table, expect, new_round
    from test_service import auth as service_auth
    made = new_round(service.url, 1)
    table = made["tables"][0]
    token = service_auth(table["tokens"]["recorder"])
    first = httpx.post(f"{service.url}/matches/{table['match']}/games", json={"first_player": 0, "chosen_by": 0},
                       headers=token)
    assert first.status_code == 201, first.text
    ended = httpx.post(f"{service.url}/matches/{table['match']}/games/1/end", json={"winner": 0, "how": "surrender"},
                       headers=token)
    assert ended.status_code == 200, ended.text
    device = Table(browser, table["record"]["recorder"] + "&lang=ja")
    expect(device.page.locator("#next-duel h2")).to_contain_text("2", timeout=30_000)
    device.page.select_option("#chosen-by", "0")               # the winner chose: not theirs to (MATCH-07)
    device.tap('#next-duel [data-first="0"]')
    refusal = device.page.locator("#next-duel p.error")
    expect(refusal).to_be_visible(timeout=30_000)
    expect(refusal).to_contain_text("MATCH-07")
    expect(refusal).to_contain_text("デュエル1に負けた")           # "lost duel 1", in Japanese
    device.close()
