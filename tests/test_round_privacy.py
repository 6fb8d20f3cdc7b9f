"""What a round's page shows to whom (issue 25, fourteenth pass; ``rounds.status(anyone=True)``).

The round's page (``/rounds/{id}``, its JSON and its stream) is read with its address alone, no
token. What was wrong: it showed every table's players, score, state, match id and recording
whatever the round's matches' visibility: a private round's scores went to anyone holding the
address, though each of its matches is 404 to anyone without a token. Now a table whose match
is private shows its number only; a public or unlisted match's standings are the round's (public
standings are normal at a tournament; an unlisted round's address is handed out as an unlisted
match's spectator link is). The organiser's command line (``ygoreplay round``) shows everything.
"""
from __future__ import annotations

import json
import re

from test_match_service import MATCHES, lines
from test_release import ORGANISER, auth, client, store  # noqa: F401  (fixtures: an in-process service)
from test_rounds import DUEL
from ygoreplay.rounds import status

PAPER = [{**DUEL[0], "witnessed": True}, *DUEL[1:]]


def _played_round(client, visibility: str) -> dict:
    """A round of two tables under ``visibility``; table 1 has played and ended its first duel."""
    r = client.post(f"/rounds?event=Regional&round=2&visibility={visibility}", content="1,Yugi,Kaiba\n2,Joey,Mai\n",
                    headers={"Content-Type": "text/csv", **ORGANISER})
    assert r.status_code == 201, r.text
    made = r.json()
    one = made["tables"][0]
    rec = auth(one["tokens"]["recorder"])
    decks = [e for e in lines(MATCHES / "two-nil.jsonl") if e["kind"] == "decklist_registered"]
    assert client.post(f"/matches/{one['match']}/events", json=decks, headers=rec).status_code == 200
    duel = client.post(f"/matches/{one['match']}/games", json={"first_player": 0, "chosen_by": 0}, headers=rec).json()["duel"]
    assert client.post(f"/duels/{duel['id']}/events", json=PAPER, headers=auth(duel["tokens"]["recorder"])).status_code == 200
    assert client.post(f"/matches/{one['match']}/games/1/end", json={}, headers=rec).status_code == 200
    return made


def _read(client, made: dict) -> tuple[dict, str]:
    """The round's JSON and page as anyone with its address reads them; its stream says the same."""
    page = client.get(f"/rounds/{made['id']}.json").json()
    html = client.get(f"/rounds/{made['id']}").text
    with client.stream("GET", f"/rounds/{made['id']}/follow") as stream:
        first = next(line for line in stream.iter_lines() if line.startswith("data: "))
    assert json.loads(first.removeprefix("data: "))["tables"] == page["tables"]
    return page, html


def test_a_round_page_shows_a_private_matchs_table_as_its_number_only(client, store):
    made = _played_round(client, "private")
    page, html = _read(client, made)
    assert [t["table"] for t in page["tables"]] == [1, 2]
    assert all(t["private"] and t["players"] == [] and t["score"] == [] and t["match"] is None
               and t["duels"] == [] and t["last_event"] is None and t["recording"] is None for t in page["tables"])
    for said in ("Yugi", "Kaiba", "Joey", "Mai", made["tables"][0]["match"], made["tables"][1]["match"],
                 "1 – 0", "between duels", "scorekeeper"):
        assert said not in json.dumps(page) + html, said
    # the organiser's command line reads the whole round
    whole = status(store, made["id"])
    assert whole["tables"][0]["players"] == ["Yugi", "Kaiba"] and whole["tables"][0]["score"][:2] == [1, 0]
    # an unlisted or public round's standings are its page's, as at any tournament
    for visibility in ("unlisted", "public"):
        page, html = _read(client, _played_round(client, visibility))
        one = page["tables"][0]
        assert one["players"] == ["Yugi", "Kaiba"] and one["score"][:2] == [1, 0] and one["state"] == "between duels"
        assert "Yugi" in html and "1 – 0" in html and not one.get("private")


def test_the_round_pages_state_column_reads_in_the_readers_language_and_its_json_in_english(client):
    """Each table's state (``rounds.status``: "between duels", "not started", "private"…) went
    onto the page as English whatever language the page was drawn in. The JSON keeps the English
    (what scripts match on); the page says it in the reader's language."""
    cells = re.compile(r'<td class="state">([^<]*)</td>')
    made = _played_round(client, "unlisted")
    page = client.get(f"/rounds/{made['id']}.json").json()
    assert [t["state"] for t in page["tables"]] == ["between duels", "not started"]
    assert cells.findall(client.get(f"/rounds/{made['id']}?lang=zh-Hant").text) == ["決鬥間歇", "未開始"]
    assert cells.findall(client.get(f"/rounds/{made['id']}?lang=ko").text) == ["듀얼 사이", "시작 전"]
    hidden = _played_round(client, "private")
    assert [t["state"] for t in client.get(f"/rounds/{hidden['id']}.json").json()["tables"]] == ["private", "private"]
    assert cells.findall(client.get(f"/rounds/{hidden['id']}?lang=ja").text) == ["非公開", "非公開"]
    assert cells.findall(client.get(f"/rounds/{hidden['id']}").text) == ["private", "private"]
