"""Attacks on a round's record (issue 25, twentieth pass): the round is an attachment of its own id,
not signed and not witnessed, while each table's match is. Someone who may write the database,
not holding the organiser's key, must not make the round's page, JSON, stream or results say of
a match what its signed record does not."""
from __future__ import annotations

import pytest

from ygoreplay.errors import InputError
from ygoreplay.files import rewrite
from ygoreplay.rounds import ATTACHMENT
from ygoreplay.store import Store

from test_attack_25i import _client, _round_with_a_duel
from test_release import ORGANISER, auth, client, store  # noqa: F401  (fixtures: an in-process service)
from test_round_seal_20 import unsigned  # noqa: F401  (fixture: rounds made as before they were signed)


def _forged(url: str, round_id: str, change) -> None:
    """The round's record rewritten in the database as ``change`` makes it (a new version: the
    latest, as ``Store.attachment`` reads it); every match left as signed."""
    with Store(url) as forger:
        kept = forger.attachment(round_id, ATTACHMENT)
        change(kept)
        forger.attach(round_id, ATTACHMENT, kept)


def test_a_round_record_rewritten_names_each_table_as_its_signed_match_does(tmp_path, unsigned):  # noqa: F811
    """Table 1's players swapped in the round's record: the page, its JSON and the results CSV
    put Kaiba over Yugi's score (and, once the match ended, Yugi's win under Kaiba's name: the
    winner is the match's seat, the name the record's), and ``verify`` of the match held. A
    table's players are its signed match's; the record's swap changes nothing shown. (A round
    signed since refuses the rewritten record whole: tests/test_round_seal_20.py; one written
    before rounds were signed, as here, still shows its tables so.)"""
    url = str(tmp_path / "x.sqlite")
    with _client(url) as client:
        made, _duel = _round_with_a_duel(client)
        before = client.get(f"/rounds/{made['id']}.json").json()
    assert before["tables"][0]["players"] == ["Yugi", "Kaiba"]

    def swap(kept: dict) -> None:
        kept["tables"][0]["players"] = ["Kaiba", "Yugi"]
    _forged(url, made["id"], swap)
    with _client(url) as client:
        after = client.get(f"/rounds/{made['id']}.json").json()
        assert after["tables"][0]["players"] == ["Yugi", "Kaiba"]
        assert after["tables"] == before["tables"]
        results = client.get(f"/rounds/{made['id']}/results.csv").text.splitlines()
        assert results[1].startswith("1,Yugi,Kaiba,")
        assert "<td>Yugi</td><td>Kaiba</td>" in client.get(f"/rounds/{made['id']}").text


def test_a_match_of_another_round_put_in_a_round_record_shows_nothing_of_it_there(tmp_path, unsigned):  # noqa: F811
    """Table 2 of round 3 pointed at table 1's match of round 5 (another round of the event, a
    duel being played): round 3's page showed that match's duel, state and players as table 2's.
    A match whose signed ``match_started`` names another event or round is none of this round's
    tables: no duel, no score, as a match that cannot be read."""
    url = str(tmp_path / "x.sqlite")
    with _client(url) as client:
        other, _duel = _round_with_a_duel(client)            # round 3, table 1 playing
        made = client.post("/rounds?event=Regional&round=5", content="1,Tea,Tristan\n2,Bakura,Duke\n",
                           headers={"Content-Type": "text/csv", **ORGANISER}).json()
        before = client.get(f"/rounds/{made['id']}.json").json()
    grafted = other["tables"][0]["match"]

    def graft(kept: dict) -> None:
        kept["tables"][1]["match"] = grafted
    _forged(url, made["id"], graft)
    with _client(url) as client:
        tables = client.get(f"/rounds/{made['id']}.json").json()["tables"]
        assert (tables[1]["duels"], tables[1]["score"], tables[1]["state"]) == ([], [0, 0, 0], "not started")
        assert tables[1]["recording"] is None and tables[1]["last_event"] is None
        assert tables[0] == before["tables"][0]


def test_a_swap_the_table_cannot_see_ends_its_batch_so_no_refusal_after_it_tells_it_passed(client):  # noqa: F811
    """MATCH-04: between duels the table's recorder (Yugi's phone scanned the table's code) posts
    a swap of Kaiba's cards, then an event refused on purpose (a ``game_ended`` of no duel), all or
    none. A swap Kaiba's decklist allows was followed by the later event's refusal (LOG-03, index
    6); one it does not, by the swap's own (MATCH-04, index 5): nothing written either way, and
    Yugi learnt, one guess a request, that Kaiba's Main Deck held one card and his Side Deck
    another. A swap the writer's view withholds is the last event of its batch: a batch with
    anything after it is refused before anything is judged, the same whatever the decklist holds.
    The judge's, who sees the decklists, is judged as before; a swap alone, or last, as before."""
    from test_attack_25az import between_duels
    table, decks = between_duels(client)
    match, rec = table["match"], auth(table["tokens"]["recorder"])
    kaiba = next(d for d in decks if d["player"] == 1)
    nowhere = next(c for d in decks for c in d["side"] if c not in kaiba["side"] + kaiba["main"])
    after = {"kind": "game_ended", "game": 7, "winner": 0, "how": "lp"}
    answers = set()
    for out in (kaiba["main"][0], nowhere):               # held by Kaiba's Main Deck, and not
        swap = {"kind": "side_deck_swapped", "player": 1, "main_out": [out], "main_in": [kaiba["side"][0]],
                "extra_out": [], "extra_in": []}
        answer = client.post(f"/matches/{match}/events", json=[swap, after], headers=rec)
        assert answer.status_code == 400 and "last in its batch" in answer.text, answer.text
        answers.add(answer.text)
        judged = client.post(f"/matches/{match}/events", json=[swap, after], headers=auth(table["tokens"]["judge"]))
        assert judged.status_code == 422 and judged.json()["rule"] == ("LOG-03" if out != nowhere else "MATCH-04")
    assert len(answers) == 1, answers
    assert client.get(f"/matches/{match}/state", headers=rec).json()["events"] == 5, "nothing was written"
    swap = {"kind": "side_deck_swapped", "player": 1, "main_out": [kaiba["main"][0]], "main_in": [kaiba["side"][0]],
            "extra_out": [], "extra_in": []}
    assert client.post(f"/matches/{match}/events", json=[swap], headers=rec).status_code == 200


def test_a_link_planted_as_a_files_lock_is_never_opened_through(tmp_path):
    """``files.rewrite`` (a CLI match file's appends) locks ``.NAME.lock`` beside the file, opened
    to be made if missing: a link planted there by whoever may write the folder had this user make
    an empty file wherever it pointed (``~/.ssh/…``), and lock that. A lock that is a link is
    refused, nothing written, nothing made where it points."""
    target, elsewhere = tmp_path / "m.ygm", tmp_path / "elsewhere" / "made"
    target.write_bytes(b"before")
    elsewhere.parent.mkdir()
    (tmp_path / ".m.ygm.lock").symlink_to(elsewhere)
    with pytest.raises(InputError, match="nothing was written"):
        rewrite(target, lambda path: path.read_bytes() + b" after")
    assert not elsewhere.exists() and target.read_bytes() == b"before"
