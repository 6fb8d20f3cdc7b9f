"""Attacks on the recorder's actions (issue 25, thirteenth pass): what ``GET /duels/{id}/actions``
offers, the events it offers, and the refusals the page shows in its language."""
from __future__ import annotations

from test_release import ORGANISER, auth, client, store  # noqa: F401  (fixtures)


def lost_at_the_table(client) -> tuple[dict, str, int]:  # noqa: F811
    """A witnessed duel as the recorder's page starts one (unknown decks, hands drawn), Main Phase
    1 of turn 1, where player 1's LP has just gone to 0 (WIN-01: the duel must end now)."""
    duel = client.post("/duels", json={"title": "table 9", "mode": "witnessed"}, headers=ORGANISER).json()
    recorder = duel["tokens"]["recorder"]
    events = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["Yugi", "Kaiba"],
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
