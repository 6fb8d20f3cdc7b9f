"""Attacks on issue 25's tenth pass, after ``devreveal``: what a player's own device may make the
record release to it.

A duel's end releases what it hid to every reader under its release policy (``Access.releases``:
``end``, the default of a duel of no event, at once), and nothing undoes an end: no correction
after it (LOG-12), no rollback (MATCH-10). Player 0's device entered ``duel_ended`` naming itself
the winner (flagged WIN-01, kept): the duel was over on its word alone, and its token then read
the judge's view, player 1's hand and Deck order with it. A player's device now enters its own
loss only (a concession, or the loss the rules impose on it); a win or a draw is entered by the
table's recorder or by the device of the player who loses it (``views.out_of_sight``).

And a player's own Deck: its view hides the order (``can_see``), but its device could ask the
record. A move of one of its Deck cards with a ``source`` was refused by LOG-02 saying "Vorse
Raider (p0.m8) is at [0, 'deck', 7]": the card and its place, one request a card, nothing
written. A draw naming the cards drawn, followed in the same append by an entry the rules refuse,
was refused at the draw when its cards were not the top ones and at the later entry when they
were: the Deck's order, card by card. The record's reasons about a card the view does not see are
the judge's (``views.unseen``, its own Deck's cards too), and a device says no order of a pile it
does not see: it draws without naming the cards, and names no index in its Deck.

And a material attached under the other player's face-down monster (``card_moved`` to its
``overlay``) named no card of player 1's, but XMAT-01 refused it when the record knew the monster
was no Xyz monster and kept it when it was one: what the face-down card is, asked by its place.

And the record's hash chain (``chain.link``: each head the hash of the one before, the event's
wire form and its time) is a secret to whoever may not read the record (``/receipt`` is the
judge's and the recorder's): the receipt every append answered a player's device carried the
record's head, and the LP sheet printed it to every view. Two heads around the recorder's entry
of a face-down monster (``shows`` its passcode), with the view's own copy of that entry and its
time, let player 0 try each record id and passcode offline until the hashes met: the card, and
the record id behind its view name. A player's device is answered no receipt (it keeps its
view's file, which ``verify --against`` ties to the record), a view's sheet prints no head."""
from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from test_attack_25n import _codes_seen
from test_device_names import START, TURN_2, auth, board, count, post, table, view_names  # noqa: F401  (fixture)
from ygoreplay import chain
from ygoreplay.cli import main
from ygoreplay.events import from_dict
from ygoreplay.replay_file import loads
from ygoreplay.store import Store


def _judge_view_as(client, duel_id: str, token: str) -> int:
    """The status of player 0's token asking for the judge's view (403 while the duel hides it)."""
    return client.get(f"/duels/{duel_id}/state", params={"view": "judge"}, headers=auth(token)).status_code


@pytest.mark.parametrize("winner, reason", [(0, "lp"), (0, "surrender"), (None, "draw")])
def test_a_players_device_does_not_end_the_duel_but_by_its_own_loss(table, winner, reason):
    """Player 0's device said it won (or that the duel was drawn): the duel ended on its word,
    was released, and player 0's token read player 1's hand through the judge's view. Refused
    now, nothing written, nothing released; its own concession (player 1 wins) is its to enter."""
    client, duel_id, tokens, _store = table
    at = count(client, duel_id, tokens)
    before = _codes_seen(client, duel_id, tokens["p0"])
    refused = post(client, duel_id, tokens["p0"], [{"kind": "duel_ended", "winner": winner, "reason": reason}])
    assert refused.status_code == 403, refused.text
    assert "nothing was written" in refused.json()["error"] and "its own loss" in refused.json()["error"]
    assert count(client, duel_id, tokens) == at
    assert _judge_view_as(client, duel_id, tokens["p0"]) == 403
    assert _codes_seen(client, duel_id, tokens["p0"]) == before
    conceded = post(client, duel_id, tokens["p0"], [{"kind": "duel_ended", "winner": 1, "reason": "surrender"}])
    assert conceded.status_code == 200, conceded.text


def test_the_loser_enters_the_end_on_the_winners_turn(table):
    """Player 1's device enters its own loss on player 0's turn (its ``player``: its own side);
    player 0's device, whose turn it is, may not enter that win for it."""
    client, duel_id, tokens, _store = table
    won = {"kind": "duel_ended", "winner": 0, "reason": "surrender"}
    assert post(client, duel_id, tokens["p0"], [won]).status_code == 403
    assert post(client, duel_id, tokens["p1"], [{**won, "player": 1}]).status_code == 200


def test_actions_offer_the_end_to_the_losers_device_only(table):
    """At 0 LP (WIN-01) ``/actions`` offered player 0, whose turn it is, the end naming it the
    winner: refused now from its device, so not offered; the end is offered as player 1's entry,
    and its device enters it."""
    client, duel_id, tokens, _store = table
    lethal = {"kind": "life_points_changed", "player": 1, "amount": 8000, "reason": "effect_damage"}
    assert post(client, duel_id, tokens["recorder"], [lethal]).status_code == 200

    def ends(role: str) -> list[dict]:
        offered = client.get(f"/duels/{duel_id}/actions", headers=auth(tokens[role])).json()["actions"]
        return [a["event"] for a in offered if a["event"]["kind"] == "duel_ended"]
    assert ends("p0") == []
    offered = ends("p1")
    assert offered == [{"kind": "duel_ended", "winner": 0, "reason": "lp", "player": 1}], offered
    assert post(client, duel_id, tokens["p1"], offered).status_code == 200


def _deck_names(store, duel_id: str) -> list[str]:
    """Player 0's Deck, top first, by its own view's names (what only the record knows)."""
    names = view_names(store, duel_id, "p0")
    return [names[card_id] for card_id in store.head_state(duel_id).sides[0].deck]


@pytest.mark.parametrize("source", [[0, "deck", 0], [0, "gy"]])
def test_a_device_is_not_told_where_a_card_of_its_deck_is(table, source):
    """LOG-02 told player 0's device the name and the place in its Deck of the card it named."""
    client, duel_id, tokens, store = table
    at = count(client, duel_id, tokens)
    card = _deck_names(store, duel_id)[7]                     # Vorse Raider, 8th from the top
    move = {"kind": "card_moved", "card": card, "to": [0, "hand"], "reason": "added", "source": source}
    answers = [post(client, duel_id, tokens["p0"], [move]), client.post(
        f"/duels/{duel_id}/events", params={"lang": "ja"}, json=[move], headers=auth(tokens["p0"]))]
    for answer in answers:
        assert answer.status_code in (403, 422), answer.text
        assert "Vorse Raider" not in answer.text and "7]" not in answer.text and "'deck', " not in answer.text
    assert count(client, duel_id, tokens) == at


def test_a_draw_naming_its_cards_is_no_oracle_of_the_decks_order(table):
    """A draw naming the top card and a draw naming another, each followed by an entry the rules
    refuse: the answers were refused at the later entry and at the draw; now the same."""
    client, duel_id, tokens, store = table
    at = count(client, duel_id, tokens)
    deck = _deck_names(store, duel_id)
    refused = {"kind": "phase_entered", "phase": "battle", "shows": {deck[5]: 1}}    # CARD-01: no such card
    answers = set()
    for card in deck[:2]:
        answer = post(client, duel_id, tokens["p0"], [{"kind": "cards_drawn", "player": 0, "count": 1,
                                                        "cards": [card]}, refused])
        answers.add((answer.status_code, answer.text.replace(card, "X")))
    assert len(answers) == 1, answers
    assert count(client, duel_id, tokens) == at
    drawn = post(client, duel_id, tokens["p0"], [{"kind": "cards_drawn", "player": 0, "count": 1}])
    assert drawn.status_code == 200, "its draw names no card"


LUSTER_DRAGON = 11091375


def test_a_material_under_the_other_players_face_down_monster_asks_nothing_of_it(table):
    """Player 1's face-down Luster Dragon (TURN_2): a material attached under it from player 0's
    device was refused by XMAT-01 ("holds none"), as the record knew it was no Xyz monster (one
    would have kept it). The door refuses it now, whatever the monster is; an empty zone is
    still the rules' (XMAT-01), as it tells nothing."""
    client, duel_id, tokens, _store = table
    assert post(client, duel_id, tokens["recorder"], TURN_2).status_code == 200
    at = count(client, duel_id, tokens)
    mine = board(client, duel_id, tokens["p0"])["players"][0]["hand"][0]["id"]

    def attach(zone: int):
        return post(client, duel_id, tokens["p0"], [{"kind": "card_moved", "card": mine, "to": [1, "overlay", zone],
                                                    "reason": "material"}])
    under = attach(3)
    assert under.status_code == 403 and "face-down monster of player 1's" in under.json()["error"], under.text
    assert "XMAT-01" not in under.json().get("rule", "") and "holds none" not in under.text
    assert attach(2).json()["rule"] == "XMAT-01"
    assert count(client, duel_id, tokens) == at


def test_cli_append_by_a_player_is_the_same_door(tmp_path):
    """``append --by p0`` (a player's device's entries, entered at the store) is judged as the
    token's: no win of its own, no place of a card of its Deck in the answer, in any language."""
    store_path = str(tmp_path / "s.sqlite")
    source = tmp_path / "start.jsonl"
    source.write_text("".join(json.dumps(e) + "\n" for e in START))
    duel_id = json.loads(CliRunner().invoke(main, ["record", str(source), "--json", "--store", store_path]).stdout)["id"]
    with Store(store_path) as store:
        card = _deck_names(store, duel_id)[7]
    entry = tmp_path / "entry.jsonl"
    for event in ({"kind": "duel_ended", "winner": 0, "reason": "lp"},
                  {"kind": "card_moved", "card": card, "to": [0, "hand"], "reason": "added", "source": [0, "gy"]}):
        entry.write_text(json.dumps(event) + "\n")
        for lang in ("en", "ja"):
            done = CliRunner().invoke(main, ["append", duel_id, str(entry), "--by", "p0", "--store", store_path,
                                             "--lang", lang])
            assert done.exit_code != 0, done.output
            said = (("nothing was written", "the reason is the judge's") if lang == "en" else
                    ("何も書き込まれなかった", "理由はジャッジのもの"))              # each refusal said in Japanese
            assert any(words in done.output for words in said), done.output
            assert "Vorse Raider" not in done.output and "'deck', 7" not in done.output, done.output
    with Store(store_path) as store:
        assert len(store.load(duel_id, verified=False).events) == len(START)


def _heads_seen(client, duel_id: str, tokens: dict, around: dict) -> tuple[list[bytes], list[dict]]:
    """Every 64-hex string player 0 is answered or shown (its appends' answers, its LP sheet) while
    the recorder enters ``around`` between two appends of its own; its view's events."""
    seen = []
    for on, entry in ((5, around), (6, None)):
        answer = post(client, duel_id, tokens["p0"], [{"kind": "entry_confirmed", "on": on}])
        assert answer.status_code == 200, answer.text
        sheet = client.get(f"/duels/{duel_id}/lp-sheet", headers=auth(tokens["p0"])).text
        seen += re.findall(r"[0-9a-f]{64}", answer.text + sheet)
        if entry is not None:
            assert post(client, duel_id, tokens["recorder"], [entry]).status_code == 200
    lines = client.get(f"/duels/{duel_id}/events", headers=auth(tokens["p0"])).text.splitlines()
    return [bytes.fromhex(h) for h in seen], [json.loads(line) for line in lines]


def test_no_head_of_the_record_for_a_player_to_try_guesses_against(table):
    """Player 0 tries every record id and passcode for the face-down monster the recorder entered
    between two of its appends, hashing its view's copy of the entry from each head it was given:
    one guess met the next head (Luster Dragon, ``p1.m1``). It is given no head of the record now."""
    client, duel_id, tokens, store = table
    set_down = {"kind": "monster_set", "player": 1, "card": "p1.m1", "zone": 3, "shows": {"p1.m1": LUSTER_DRAGON}}
    heads, lines = _heads_seen(client, duel_id, tokens, set_down)
    at = next(i for i, line in enumerate(lines) if line["event"]["kind"] == "monster_set")
    entry, next_entry = lines[at], lines[at + 1]
    found = set()
    for n in range(len(store.head_state(duel_id).sides[1].deck) + 10):
        for code in store.load(duel_id, verified=False).cards:
            guess = from_dict({**entry["event"], "card": f"p1.m{n}", "shows": {f"p1.m{n}": code}}).to_dict()
            for head in heads:
                after = chain.link(chain.link(head, at, guess, entry["time"]), at + 1,
                                   from_dict(next_entry["event"]).to_dict(), next_entry["time"])
                if after in heads:
                    found.add((n, code))
    assert found == set(), f"player 0 found the face-down card behind its view's {entry['event']['card']}: {found}"
    record = {h.hex() for h in (r.hash for r in store.load(duel_id, verified=False).records)}
    assert not record & {h.hex() for h in heads}, "no head of the record at all"
    own = loads(client.get(f"/duels/{duel_id}/replay.ygr", headers=auth(tokens["p0"])).content)
    assert own.head in heads, "its sheet ties the paper to its own view's file"
