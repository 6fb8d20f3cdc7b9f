"""A rule that reads what a card is, answered to a writer who may not see the card (#25, twentieth
pass, ``hidden20``).

The table's recorder of a witnessed duel sees the public cards; a player's device names its own
hidden cards for itself, and the record then knows them. A rule check that reads such a card's
identity answered the table differently as the device had named it or not: attaching a material
under player 1's face-down monster was refused (``XMAT-01``, 422) where player 1's device had named
it as a monster other than an Xyz, accepted where it had not; moving player 0's Set card into a
Pendulum Zone (``ZONE-09``, Master Rule 3's separate zones 5 and 6) was accepted where it was named
as a Pendulum card, refused otherwise. With a later event of the batch refused on purpose nothing
was written, so the table tried one card after another and learned each. Where the writer may not
see the card (``rules.base.refuse_by_identity``) a witnessed duel keeps the event and flags it for
the judge and the card's owner: the table's answer is the same whatever the device named; a
public card and a machine's record are refused as before.
"""
from __future__ import annotations

import json

import pytest
from duel import CARDS

from test_release import ORGANISER, auth, client, store  # noqa: F401  (fixtures: an in-process service)
from test_device_names import board, post
from ygoreplay.events import from_dict
from ygoreplay.rules import History, RuleViolation

MIRROR, LUSTER, ODD_EYES = 44095762, 11091375, 16178681
#: A refused event after the probe: a batch is all or none, so the probe's answer alone shows.
REFUSED = {"kind": "game_ended", "game": 7, "winner": 0, "how": "lp"}


def _table(client, set_as: int | None, monster_as: int | None) -> tuple[dict, dict]:  # noqa: F811
    """A witnessed duel under Master Rule 3 in which player 0's device Sets a card of its hand in
    Spell & Trap Zone 1 (turn 1), player 1's a monster face-down in zone 2 (turn 2), each named for
    itself as ``set_as``/``monster_as`` (None: not named). Its tokens, and the table's board."""
    duel = client.post("/duels", json={"title": "table 3", "mode": "witnessed"}, headers=ORGANISER).json()
    tokens = duel["tokens"]
    start = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["Yugi", "Kaiba"],
              "witnessed": True, "ruleset": "mr3"},
             *({"kind": "deck_registered", "player": p, "main": [0] * 40, "extra": [0] * 15} for p in (0, 1)),
             *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
             {"kind": "turn_started", "player": 0, "turn": 1},
             *({"kind": "phase_entered", "phase": phase} for phase in ("draw", "standby", "main1"))]
    assert post(client, duel["id"], tokens["recorder"], start).status_code == 200
    mine = board(client, duel["id"], tokens["p0"])["players"][0]["hand"][0]["id"]
    assert post(client, duel["id"], tokens["p0"], [{"kind": "spell_trap_set", "player": 0, "card": mine, "zone": 1,
                                                    **({"shows": {mine: set_as}} if set_as else {})}]).status_code == 200
    turn = [{"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "player": 1, "turn": 2},
            {"kind": "phase_entered", "phase": "draw"}, {"kind": "cards_drawn", "player": 1},
            {"kind": "phase_entered", "phase": "standby"}, {"kind": "phase_entered", "phase": "main1"}]
    assert post(client, duel["id"], tokens["recorder"], turn).status_code == 200
    theirs = board(client, duel["id"], tokens["p1"])["players"][1]["hand"][0]["id"]
    made = post(client, duel["id"], tokens["p1"], [{"kind": "monster_set", "player": 1, "card": theirs, "zone": 2,
                                                    **({"shows": {theirs: monster_as}} if monster_as else {})}])
    assert made.status_code == 200, made.text
    return duel, board(client, duel["id"], tokens["recorder"])


def _flags(client, duel: dict, token: str) -> list[str]:  # noqa: F811
    """The rules the duel's events were flagged with, through ``token``'s view."""
    answer = client.get(f"/duels/{duel['id']}/frames", headers=auth(token))
    assert answer.status_code == 200, answer.text
    return [f["rule"] for step in answer.json()["frames"] for f in step.get("flags") or []]


def _attach(seen: dict) -> dict:
    """XMAT-01: a card of player 1's hand attached under player 1's face-down monster."""
    return {"kind": "card_moved", "card": seen["players"][1]["hand"][0]["id"],
            "to": [1, "overlay", 2], "reason": "attached", "cause":
            seen["players"][1]["mzone"][2]["id"]}


def _to_pendulum_zone(seen: dict) -> dict:
    """ZONE-09: player 0's Set card moved to Pendulum Zone 5 of its row."""
    return {"kind": "zone_changed", "card": seen["players"][0]["szone"][1]["id"], "zone": 5}


def _taken_to_pendulum_zone(seen: dict) -> dict:
    """ZONE-09: player 1 takes player 0's Set card into its own Pendulum Zone 5."""
    card = seen["players"][0]["szone"][1]["id"]
    return {"kind": "control_changed", "card": card, "to_player": 1, "zone": 5}


#: Each probe, what the card it reads is named as (one it breaks, one it keeps, not named), and
#: who sees its flag besides the judge: the card's owner (and a player who takes control of it, who
#: may look at it).
PROBES = [
    pytest.param(_attach, "XMAT-01", [(None, LUSTER), (None, None)], ("p1",), id="xmat-01-attach-under-a-set-monster"),
    pytest.param(_to_pendulum_zone, "ZONE-09", [(MIRROR, None), (ODD_EYES, None), (None, None)], ("p0",),
                 id="zone-09-a-set-card-to-a-pendulum-zone"),
    pytest.param(_taken_to_pendulum_zone, "ZONE-09", [(MIRROR, None), (ODD_EYES, None), (None, None)], ("p0", "p1"),
                 id="zone-09-control-of-a-set-card-to-a-pendulum-zone"),
]


def _answer(answer) -> str:
    """What an append tells its writer: its status and its whole body."""
    return f"{answer.status_code} {answer.text}"


def _refused_where_seen(client, duel: dict, probe, seen: dict, rule: str) -> None:  # noqa: F811
    """The record up to the probe (the judge's), the probe entered by the judge, who sees every
    card, is refused; and so is it entered by the table where the record is a machine's.
    ``seen``: the judge's board before the probe."""
    tokens = duel["tokens"]
    lines = client.get(f"/duels/{duel['id']}/events", headers=auth(tokens["judge"])).text.splitlines()
    record = [json.loads(line)["event"] for line in lines][:-1]   # the probe's own event taken off
    for witnessed, by in ((True, "judge"), (False, None)):
        history = History(CARDS)
        for data in record:
            if data["kind"] == "duel_started":
                data = {**data, "witnessed": witnessed}
            elif not witnessed:
                data.pop("entered_by", None)
            history.append(from_dict(data))
        with pytest.raises(RuleViolation) as refusal:
            history.append(from_dict({**probe(seen), **({"entered_by": by} if by else {})}))
        assert refusal.value.rule == rule


@pytest.mark.parametrize(("probe", "rule", "namings", "knowing"), PROBES)
def test_the_tables_answer_on_a_hidden_card_is_the_same_whatever_its_device_named(client, probe, rule,  # noqa: F811
                                                                                   namings, knowing):
    """The table's recorder, alone and with a refused event after it, gets the same answer (status
    and body) whether the hidden card its entry reads was named by its player's device as one the
    rule refuses, one it accepts, or not at all (baseline: 422 for the first alone)."""
    alone, batched = set(), set()
    for set_as, monster_as in namings:
        for batch, answers in ((True, batched), (False, alone)):
            duel, seen = _table(client, set_as, monster_as)
            judged = board(client, duel["id"], duel["tokens"]["judge"])
            tries = [probe(seen), REFUSED] if batch else [probe(seen)]
            answer = post(client, duel["id"], duel["tokens"]["recorder"], tries)
            answers.add(_answer(answer))
            if not batch:
                assert answer.status_code == 200, answer.text
                broken = (set_as, monster_as) == namings[0]
                tokens = duel["tokens"]
                for view in ("judge", *knowing):
                    assert (rule in _flags(client, duel, tokens[view])) == broken, view
                for view in {"recorder", "p0", "p1", "spectator"} - set(knowing):
                    assert rule not in _flags(client, duel, tokens[view]), view
                if broken:
                    _refused_where_seen(client, duel, probe, judged, rule)
    assert len(alone) == 1 and len(batched) == 1, (alone, batched)


def test_a_set_card_the_table_activates_is_named_whatever_its_device_named_it(client):  # noqa: F811
    """LOG-05: the table activates player 0's Set card without naming it. Named by its device as a
    monster (a Luster Dragon Set in a Spell & Trap Zone) it was refused, as a Trap accepted: with
    a refused event after it, the table learned which (baseline: 422 LOG-05 at event 0 against
    event 1's refusal). Then kept and flagged; refused, unnamed, where no device had named it. Now
    refused unnamed whatever the device did (``test_table_rulings_21``); named by the table, kept,
    LOG-05 flagged for the judge where it is a monster."""
    answers = set()
    for set_as in (LUSTER, MIRROR):
        duel, seen = _table(client, set_as, None)
        card = seen["players"][0]["szone"][1]["id"]
        activation = {"kind": "activated", "player": 0, "card": card}
        batched = post(client, duel["id"], duel["tokens"]["recorder"], [activation, REFUSED])
        assert batched.status_code == 422 and batched.json()["index"] == 17, batched.text
        answers.add(_answer(batched).replace(card, "<card>"))
        named = post(client, duel["id"], duel["tokens"]["recorder"], [{**activation, "shows": {card: set_as}}])
        assert named.status_code == 200, named.text
        assert ("LOG-05" in _flags(client, duel, duel["tokens"]["judge"])) == (set_as == LUSTER)
    assert len(answers) == 1, answers
