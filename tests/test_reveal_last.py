"""An event that shows its writer a card it did not see ends its batch (#25, twentieth pass, ``reveal20``).

In a witnessed duel the table's recorder sees the public cards. It activated player 0's Set card
without naming it (refused since, LOG-05, ``test_table_rulings_21``: a card sent to the GY unnamed
shows it as well), moved the now face-up card to Pendulum Zone 5, then sent an event refused on
purpose: a batch is all or none, so nothing was written, and the refusal said what the card was —
422 ZONE-09 at event 1 for a Mirror Force, LOG-03 at event 2 for an Odd-Eyes Pendulum Dragon. An
event that shows its writer a card it did not see before (``rules.base.shown_to_writer``, decided
on where the cards are) is the last of its batch: anything after it is refused (400) before it is
judged, the same answer whatever the card is (``store._shown_last``). Alone or last it is judged as
before; the judge, who sees every card, batches as before.
"""
from __future__ import annotations

import pytest

from test_release import client, store  # noqa: F401  (fixtures: an in-process service)
from test_device_names import board, count, post
from test_hidden_identity import LUSTER, MIRROR, ODD_EYES, REFUSED, _answer, _table
from ygoreplay.application import Records
from ygoreplay.events import from_dict
from ygoreplay.rules import RuleViolation


def _activation(seen: dict) -> dict:
    """Player 0's Set card in Spell & Trap Zone 1 activated, not named: it turns face-up."""
    return {"kind": "activated", "player": 0, "card": seen["players"][0]["szone"][1]["id"]}


def _probe(seen: dict) -> dict:
    """ZONE-09: the card just activated moved to Pendulum Zone 5 (a Pendulum card's only)."""
    return {"kind": "zone_changed", "card": seen["players"][0]["szone"][1]["id"], "zone": 5}


def _destroyed(seen: dict) -> dict:
    """Player 0's Set card in Spell & Trap Zone 1 destroyed, not named: it goes face-up to the GY.
    (The table activates no Set card without naming it, whatever its device named: LOG-05,
    ``test_table_rulings_21``.)"""
    return {"kind": "card_moved", "card": seen["players"][0]["szone"][1]["id"], "to": [0, "gy"], "reason": "destroyed"}


def _placed(seen: dict) -> dict:
    """ZONE-09: the card just destroyed placed from the GY in Pendulum Zone 5 (a Pendulum card's only)."""
    return {"kind": "card_moved", "card": seen["players"][0]["szone"][1]["id"], "to": [0, "szone", 5],
            "reason": "resolved"}


def test_a_set_card_shown_then_probed_in_one_batch_answers_the_same_whatever_it_is(client):  # noqa: F811
    """The table's [activation, probe, refused event]: 422 ZONE-09 at event 1 where the card was a
    Mirror Force, LOG-03 at event 2 where an Odd-Eyes (baseline). Now 400 at event 0, the same
    status and body whatever the card is; nothing written. The same with the card destroyed
    unnamed and placed in a Pendulum Zone from the GY. (A Set card the table activates unnamed is
    refused, LOG-05 at event 0, the same whatever its device named it.)"""
    answers = set()
    for set_as in (MIRROR, ODD_EYES, LUSTER):
        for shown, probe in ((_activation, _probe), (_destroyed, _placed)):
            duel, seen = _table(client, set_as, None)
            tokens = duel["tokens"]
            before = count(client, duel["id"], tokens)
            answer = post(client, duel["id"], tokens["recorder"], [shown(seen), probe(seen), REFUSED])
            if shown is _activation:
                assert answer.status_code == 422 and answer.json()["rule"] == "LOG-05", answer.text
            else:
                assert answer.status_code == 400 and "last in its batch" in answer.text, answer.text
                answers.add(_answer(answer))
            assert count(client, duel["id"], tokens) == before, "nothing was written"
    assert len(answers) == 1, answers


def test_a_showing_event_alone_or_last_is_judged_as_before(client):  # noqa: F811
    """The showing event alone is written; last of a batch, after an event that shows nothing,
    too; and the probe after it, in a batch of its own, is judged (the card is public by then)."""
    duel, seen = _table(client, MIRROR, None)
    tokens = duel["tokens"]
    alone = post(client, duel["id"], tokens["recorder"], [_destroyed(seen)])
    assert alone.status_code == 200, alone.text
    probe = post(client, duel["id"], tokens["recorder"], [_placed(seen)])
    assert probe.status_code == 422 and probe.json()["rule"] == "ZONE-09", probe.text
    duel, seen = _table(client, ODD_EYES, None)
    tokens = duel["tokens"]
    last = post(client, duel["id"], tokens["recorder"], [{"kind": "phase_entered", "phase": "battle"},
                                                          _destroyed(seen)])
    assert last.status_code == 200, last.text


def test_the_judges_batch_is_judged_through_as_before(client, store):  # noqa: F811
    """The judge sees every card (the command line's ``append --by judge``): its [activation,
    probe, refused event] is judged event by event, its refusal the rule the card breaks (ZONE-09
    at event 1 for a Mirror Force, LOG-03 at event 2 after an Odd-Eyes)."""
    records = Records(store)
    for set_as, rule, index in ((MIRROR, "ZONE-09", 1), (ODD_EYES, "LOG-03", 2)):
        duel, _seen = _table(client, set_as, None)
        seen = board(client, duel["id"], duel["tokens"]["judge"])
        at = count(client, duel["id"], duel["tokens"])
        with pytest.raises(RuleViolation) as refusal:
            records.append(duel["id"], [from_dict(e) for e in (_activation(seen), _probe(seen), REFUSED)],
                           entered_by="judge")
        assert (refusal.value.rule, refusal.value.index - at) == (rule, index)


def test_a_card_the_table_names_as_it_shows_it_is_the_tables_word_and_ends_no_batch(client):  # noqa: F811
    """The table activates the Set card naming it a Mirror Force itself (``shows``): from then on
    the record takes the table's word (LOG-10, flagged where the device named it otherwise), so a
    later event reads what the table said, not what the device named: the batch is judged through,
    the same answer whatever the device named (ZONE-09 at event 1)."""
    answers = set()
    for set_as in (MIRROR, ODD_EYES):
        duel, seen = _table(client, set_as, None)
        activation = _activation(seen)
        named = {**activation, "shows": {activation["card"]: MIRROR}}
        answer = post(client, duel["id"], duel["tokens"]["recorder"], [named, _probe(seen), REFUSED])
        assert answer.status_code == 422 and answer.json()["rule"] == "ZONE-09", answer.text
        answers.add(_answer(answer))
    assert len(answers) == 1, answers
