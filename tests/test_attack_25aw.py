"""Attacks on issue 25's eighteenth pass (``attack25aw``): the table's recorder of a paper duel read
the judge view.

PRODUCT.md's trust model gives the recorder "what it records"; at a paper table (a ``witnessed``
duel) that is what is public at the table: each player's device enters its own hidden cards (a Set
named for itself, its hand). ``access.VIEW_OF["recorder"]`` was ``"judge"`` for every duel, so the
scorekeeper's token read both players' Sets and hands, as the devices typed them, through every
door: the board, frames, events, the live stream, differences, card facts, the ``.ygr`` file, the
board picture, the LP sheet, the receipt (the record's head, against which each guess of a hidden
card an entry holds can be hashed) and a match's file. Now the recorder of a witnessed duel reads
the **table view** (``access.TABLE``, decided in one place, ``access.view_of``): what a spectator
sees, held back by no delay (it sits at the table), in the record's own card ids (what it enters;
``views.recorded_by``: a spectator's record is the scorekeeper's). A machine's recorder keeps the
judge view; once the duel is released the recorder, like everyone, may ask for the judge view.
"""
from __future__ import annotations

import json

from test_device_names import START, board, count, post
from test_release import ORGANISER, auth, client, store  # noqa: F401  (fixtures)
from ygoreplay.replay_file import loads

MIRROR, LUSTER, VORSE = 44095762, 11091375, 14898066
#: What a device's own hidden card is: neither its passcode nor its name may reach the recorder.
SECRETS = (str(MIRROR), "Mirror Force", str(LUSTER), "Luster Dragon")


def _table(client, release: str = "event") -> tuple[dict, str]:  # noqa: F811
    """A witnessed duel at the table as the recorder's page starts one (its release ``release``), then each
    player's device Sets a card of its own hand, named for itself: player 0 Mirror Force in
    Spell & Trap Zone 1 on turn 1, player 1 Luster Dragon face-down on turn 2."""
    duel = client.post("/duels", json={"title": "table 9", "mode": "witnessed", "release": release},
                       headers=ORGANISER).json()
    tokens = duel["tokens"]
    start = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["Yugi", "Kaiba"],
              "witnessed": True},
             *({"kind": "deck_registered", "player": p, "main": [0] * 40, "extra": [0] * 15} for p in (0, 1)),
             *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
             {"kind": "turn_started", "player": 0, "turn": 1},
             *({"kind": "phase_entered", "phase": phase} for phase in ("draw", "standby", "main1"))]
    assert post(client, duel["id"], tokens["recorder"], start).status_code == 200
    mine = board(client, duel["id"], tokens["p0"])["players"][0]["hand"][0]["id"]
    assert post(client, duel["id"], tokens["p0"], [{"kind": "spell_trap_set", "player": 0, "card": mine, "zone": 1,
                                                    "shows": {mine: MIRROR}}]).status_code == 200
    turn = [{"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "player": 1, "turn": 2},
            {"kind": "phase_entered", "phase": "draw"}, {"kind": "cards_drawn", "player": 1},
            {"kind": "phase_entered", "phase": "standby"}, {"kind": "phase_entered", "phase": "main1"}]
    assert post(client, duel["id"], tokens["recorder"], turn).status_code == 200
    theirs = board(client, duel["id"], tokens["p1"])["players"][1]["hand"][0]["id"]
    assert post(client, duel["id"], tokens["p1"], [{"kind": "monster_set", "player": 1, "card": theirs, "zone": 2,
                                                    "shows": {theirs: LUSTER}}]).status_code == 200
    return duel, tokens["recorder"]


def _round_table(client) -> tuple[dict, dict]:  # noqa: F811
    """A round's one table (a match of paper duels) with both decklists registered, and its
    recorder's headers (the table's code)."""
    from test_match_service import MATCHES, lines
    made = client.post("/rounds?event=Regional&round=3&visibility=unlisted", content="1,Yugi,Kaiba\n",
                       headers={"Content-Type": "text/csv", **ORGANISER}).json()
    table = made["tables"][0]
    rec = auth(table["tokens"]["recorder"])
    decks = [e for e in lines(MATCHES / "two-nil.jsonl") if e["kind"] == "decklist_registered"]
    assert client.post(f"/matches/{table['match']}/events", json=decks, headers=rec).status_code == 200
    return table, rec


def _get(client, duel: dict, path: str, token: str, **params):  # noqa: F811
    answer = client.get(f"/duels/{duel['id']}/{path}", params=params, headers=auth(token))
    assert answer.status_code == 200, (path, answer.text)
    return answer


def _leaks(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


def test_the_judge_view_holds_the_devices_cards_and_the_recorder_reads_none_of_them(client):  # noqa: F811
    """The devices' Sets are in the record (the judge's board); the recorder's every door of the
    duel gives neither card: its view is the table's, with no delay, in the record's card ids."""
    duel, recorder = _table(client)
    judge = json.dumps(board(client, duel["id"], duel["tokens"]["judge"]))
    assert str(MIRROR) in judge and str(LUSTER) in judge, "the record holds what the devices typed"
    state = _get(client, duel, "state", recorder).json()
    assert state["view"] == "table" and state["events"] == count(client, duel["id"], duel["tokens"])
    assert not _leaks(json.dumps(state))
    set_card = state["board"]["players"][0]["szone"][1]
    record = board(client, duel["id"], duel["tokens"]["judge"])["players"][0]["szone"][1]
    assert set_card["hidden"] and set_card["id"] == record["id"], "named as the record names it"
    doors = {"frames": {}, "events": {}, "cards": {}, "diff": {"a": 0, "b": state["at"]},
             "board.svg": {}, "lp-sheet": {}, "lp-sheet.csv": {}, "verify": {}, "tree": {},
             "actions": {"card": set_card["id"]}}
    for path, params in doors.items():
        assert not _leaks(_get(client, duel, path, recorder, **params).text), path
    frames = _get(client, duel, "frames", recorder).json()
    assert frames["view"] == "table" and "judge" not in frames["views"]
    kept = loads(_get(client, duel, "replay.ygr", recorder).content)
    assert kept.view == "spectator" and len(kept.events) == state["events"]
    assert not {MIRROR, LUSTER} & set(kept.cards), "a spectator's file of the whole record"
    refused = client.get(f"/duels/{duel['id']}/state", params={"view": "judge"}, headers=auth(recorder))
    assert refused.status_code == 403, refused.text


def test_the_recorder_gets_no_receipt_nor_the_records_head(client):  # noqa: F811
    """The record's head hash would let the recorder hash each guess of a Set card until one met
    it (the reason a player's device gets none): a recorder of a witnessed duel is refused a
    receipt and its append answers none; its flags are its own view's. A machine's (a
    simulator's) record is everything its recorder recorded: it keeps the judge view, receipts too."""
    duel, recorder = _table(client)
    assert client.get(f"/duels/{duel['id']}/receipt", headers=auth(recorder)).status_code == 403
    assert client.get(f"/duels/{duel['id']}/receipt", headers=auth(duel["tokens"]["judge"])).status_code == 200
    answer = post(client, duel["id"], recorder, [{"kind": "phase_entered", "phase": "battle"}])
    assert answer.status_code == 200, answer.text
    assert answer.json()["flags"] == [] and "receipt" not in answer.json(), answer.text
    sim = client.post("/duels", json={"title": "sim"}, headers=ORGANISER).json()
    machine = sim["tokens"]["recorder"]
    written = post(client, sim["id"], machine, [{**e, "witnessed": False} if e["kind"] == "duel_started" else e
                                                for e in START])
    assert written.status_code == 200 and written.json()["receipt"]["head"], written.text
    assert _get(client, sim, "state", machine).json()["view"] == "judge"
    assert client.get(f"/duels/{sim['id']}/receipt", headers=auth(machine)).status_code == 200


def test_the_live_stream_and_after_release_the_judge_view(client):  # noqa: F811
    """The recorder's stream (SSE) gives the table's view to the end; when the organiser releases
    the duel, the recorder may ask for the judge view, as every reader may."""
    duel, recorder = _table(client)
    ended = {"kind": "duel_ended", "reason": "surrender", "player": 1, "winner": 0}
    assert post(client, duel["id"], recorder, [ended]).status_code == 200
    with client.stream("GET", f"/duels/{duel['id']}/follow", headers=auth(recorder)) as stream:
        text = "".join(stream.iter_text())
    assert "event: end" in text and not _leaks(text)
    assert client.post(f"/duels/{duel['id']}/release", headers=ORGANISER).status_code == 200
    judge = _get(client, duel, "state", recorder, view="judge").json()
    assert str(MIRROR) in json.dumps(judge), "released: the judge view is everyone's"
    assert _get(client, duel, "state", recorder).json()["view"] == "table"


def test_the_recorder_goes_on_recording_and_sees_a_card_revealed_when_played(client):  # noqa: F811
    """What the recorder needs: its entries in the record's ids, ``/actions`` on its board, and a
    card the table sees as it is played (player 0's Set card activated, shown as Mirror Force)."""
    duel, recorder = _table(client)
    mine = board(client, duel["id"], recorder)["players"]
    hand, set_card = mine[1]["hand"][0]["id"], mine[0]["szone"][1]["id"]
    attack = [{"kind": "normal_summoned", "player": 1, "card": hand, "zone": 0, "shows": {hand: VORSE}},
              {"kind": "phase_entered", "phase": "battle"}, {"kind": "step_entered", "step": "battle"},
              {"kind": "attack_declared", "player": 1, "attacker": hand},
              {"kind": "activated", "player": 0, "card": set_card, "shows": {set_card: MIRROR}}]
    assert post(client, duel["id"], recorder, attack).status_code == 200
    seen = _get(client, duel, "state", recorder).json()["board"]
    assert seen["players"][0]["szone"][1]["code"] == MIRROR, "shown as it was played"
    assert seen["players"][1]["mzone"][0]["code"] == VORSE
    assert "hidden" in seen["players"][1]["mzone"][2] and str(LUSTER) not in json.dumps(seen)
    actions = _get(client, duel, "actions", recorder, card=hand).json()["actions"]
    assert actions and all(not _leaks(json.dumps(a)) for a in actions)


def test_a_branch_of_a_witnessed_duel_is_the_tables_to_its_recorder(client):  # noqa: F811
    """A judge's what-if keeps its parent's access: the recorder's token opens it as the table does."""
    duel, recorder = _table(client)
    at = count(client, duel["id"], duel["tokens"]) - 1
    made = client.post(f"/duels/{duel['id']}/branch", json={"at": at}, headers=auth(duel["tokens"]["judge"]))
    assert made.status_code == 201, made.text
    branch = {"id": made.json()["id"]}
    seen = client.get(f"/duels/{branch['id']}/state", headers=auth(recorder))
    assert seen.status_code == 200 and seen.json()["view"] == "table", seen.text
    assert not _leaks(seen.text)
    judge = client.get(f"/duels/{branch['id']}/state", headers=auth(duel["tokens"]["judge"]))
    assert str(MIRROR) in judge.text


def test_a_players_seal_stays_the_judges(client):  # noqa: F811
    """A seal (``cards_sealed``) of player 1's hand card: the judge's record holds its digest, the
    recorder's events, frames and verification do not (how many were sealed, nothing more)."""
    from ygoreplay.seals import seal
    duel, recorder = _table(client)
    digest_, nonce = seal(LUSTER)
    hand = board(client, duel["id"], duel["tokens"]["p1"])["players"][1]["hand"][0]["id"]
    sealed = post(client, duel["id"], duel["tokens"]["p1"], [{"kind": "cards_sealed", "player": 1,
                                                              "seals": {hand: digest_}}])
    assert sealed.status_code == 200, sealed.text
    assert digest_ in _get(client, duel, "events", duel["tokens"]["judge"]).text
    for path in ("events", "frames", "verify", "state"):
        text = _get(client, duel, path, recorder).text
        assert digest_ not in text and nonce not in text, path
    assert _get(client, duel, "verify", recorder).json()["seals"]["sealed"] == 1


def test_a_matchs_recorder_reads_its_witnessed_duels_as_the_table(client):  # noqa: F811
    """A round's table (a match of paper duels): the match's recorder token reads the duel, and the
    match's ``.ygr`` carries the duel, as the table sees it (a spectator's file), not the judge's."""
    from test_rounds import DUEL
    table, rec = _round_table(client)
    duel = client.post(f"/matches/{table['match']}/games", json={"first_player": 0, "chosen_by": 0},
                       headers=rec).json()["duel"]
    paper = [{**DUEL[0], "witnessed": True}, *DUEL[1:]]
    assert client.post(f"/duels/{duel['id']}/events", json=paper, headers=rec).status_code == 200
    state = client.get(f"/duels/{duel['id']}/state", headers=rec)
    assert state.status_code == 200 and state.json()["view"] == "table", state.text
    judge = client.get(f"/duels/{duel['id']}/state", headers=auth(table["tokens"]["judge"])).json()
    hand = {c["code"] for side in judge["board"]["players"] for c in side["hand"]}
    assert hand and not hand & {c.get("code") for side in state.json()["board"]["players"] for c in side["hand"]}
    for asked in ({}, {"view": "spectator"}):
        data = client.get(f"/matches/{table['match']}/replay.ygr", params=asked, headers=rec)
        assert data.status_code == 200, data.text
        assert loads(data.content).view == "spectator"
        assert [loads(game).view for game in loads(data.content).games] == ["spectator"]
    # the match itself is the table's to it too (attack25az): its judge view, both decklists, is not
    assert client.get(f"/matches/{table['match']}/replay.ygr", params={"view": "judge"}, headers=rec).status_code == 403
    judged = client.get(f"/matches/{table['match']}/replay.ygr", headers=auth(table["tokens"]["judge"]))
    assert [loads(game).view for game in loads(judged.content).games] == ["judge"]


def test_a_wrong_name_does_not_tell_the_recorder_what_a_devices_set_card_is(client):  # noqa: F811
    """LOG-10: the recorder names player 1's Set card as it is destroyed, wrongly; the record's
    refusal said "p1.m0 was shown to be Luster Dragon (11091375)": any guess, right or wrong,
    read the card. Later (tableprobe19) the refusal itself (422 against 200) told a wrong guess
    from a right one: what the table saw now stands, flagged for the judge, and its answer is
    the one a right guess gets."""
    duel, recorder = _table(client)
    at = count(client, duel["id"], duel["tokens"])
    target = board(client, duel["id"], recorder)["players"][1]["mzone"][2]["id"]
    guessed = post(client, duel["id"], recorder, [{"kind": "card_moved", "card": target, "to": [1, "gy"],
                                                   "reason": "destroyed", "shows": {target: VORSE}}])
    assert guessed.status_code == 200 and guessed.json()["flags"] == [], guessed.text
    assert not _leaks(guessed.text), guessed.text
    assert count(client, duel["id"], duel["tokens"]) == at + 1
    judged = client.get(f"/duels/{duel['id']}/frames", headers=ORGANISER).json()["frames"][-1]
    assert [f["rule"] for f in judged["flags"]] == ["LOG-10"] and "Luster Dragon" in judged["flags"][0]["message"]


def test_what_the_recorder_itself_named_stays_its_own(client):  # noqa: F811
    """The scorekeeper's own entries are what it records: a card it named as it was Set (Mirror
    Force, told at the table) is known to its view while it stays there, so ``/actions`` offers to
    activate it; what a player's device named is not."""
    duel, recorder = _table(client)
    hand = board(client, duel["id"], recorder)["players"][1]["hand"][0]["id"]
    named = {"kind": "spell_trap_set", "player": 1, "card": hand, "zone": 3, "shows": {hand: 62279055}}
    assert post(client, duel["id"], recorder, [named]).status_code == 200
    seen = board(client, duel["id"], recorder)["players"][1]
    assert seen["szone"][3]["code"] == 62279055 and "hidden" in seen["mzone"][2], seen
    assert not _leaks(json.dumps(seen))
    spectator = _get(client, duel, "state", duel["tokens"]["spectator"]).text
    assert "62279055" not in spectator, "the table's recorder's knowledge is not the spectators'"


def test_the_tables_files_are_named_as_the_spectators_files_they_are(client):  # noqa: F811
    """The table's ``.ygr`` of a duel and of a match is a spectator's file (``access.filed_as``)
    but was saved as ``ID.table.ygr``, a view no file has: it is named ``ID.spectator.ygr``."""
    duel, recorder = _table(client)
    answer = _get(client, duel, "replay.ygr", recorder)
    assert loads(answer.content).view == "spectator"
    assert answer.headers["content-disposition"] == f'attachment; filename="{duel["id"]}.spectator.ygr"'
    judged = _get(client, duel, "replay.ygr", duel["tokens"]["judge"])
    assert judged.headers["content-disposition"] == f'attachment; filename="{duel["id"]}.judge.ygr"'
    table, rec = _round_table(client)
    data = client.get(f"/matches/{table['match']}/replay.ygr", headers=rec)
    assert data.status_code == 200 and loads(data.content).view == "spectator", data.text
    assert data.headers["content-disposition"] == f'attachment; filename="{table["match"]}.spectator.ygr"'
