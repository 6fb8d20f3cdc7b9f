"""What the recorder's page asks the service for, every one of them public API another client can
use: the card rows (/cards.json), the event schemas, a duel's warnings setting and record link,
the actions with cards named (``shows``) and the moves the rules offer after a damage calculation
and at LP 0."""
from __future__ import annotations

import gzip
import json

import pytest

from test_release import ADMIN, ORGANISER, auth, client, events_of, store  # noqa: F401  (the fixtures)
from ygoreplay.cards import CardDB
from ygoreplay.schema import umbrella_schema

PUBLIC = events_of("won-by-damage.public.jsonl")


def created(client, **body) -> dict:  # noqa: F811
    r = client.post("/duels", json=body, headers=ORGANISER)
    assert r.status_code == 201, r.text
    return r.json()


def test_cards_json_is_every_card_as_compact_rows_cached_and_gzipped(client):  # noqa: F811
    r = client.get("/cards.json")
    assert r.status_code == 200 and r.headers["content-encoding"] == "gzip"    # the client asked for gzip
    assert "max-age" in r.headers["cache-control"] and r.headers["etag"]
    data = r.json()
    assert data["columns"] == ["code", "name", "type", "level", "atk", "def"]
    classic = CardDB.classic()
    rows = {row[0]: row for row in data["cards"]}
    assert len(rows) == len(classic)
    skull = classic[70781052]
    assert rows[70781052] == [70781052, skull.name, skull.type, skull.level, skull.atk, skull.defense]
    again = client.get("/cards.json", headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    plain = client.get("/cards.json", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and json.loads(plain.content) == data
    assert len(gzip.compress(plain.content)) < len(plain.content) / 2
    from ygoreplay.service import reference                  # made once per database, not per request
    kept = reference._rows["en"]
    client.get("/cards.json")
    assert reference._rows["en"] is kept


def test_the_event_schemas_are_served_as_the_service_generates_them(client):  # noqa: F811
    r = client.get("/schemas/event.json")
    assert r.status_code == 200 and r.json() == umbrella_schema()
    one = client.get("/schemas/events/life_points_changed.json").json()
    assert one["properties"]["reason"]["enum"][:2] == ["battle_damage", "effect_damage"]
    missing = client.get("/schemas/events/no_such_kind.json")
    assert missing.status_code == 404 and "no_such_kind" in missing.json()["error"]


@pytest.mark.parametrize("body, warns", [({}, True), ({"mode": "witnessed"}, False),
                                         ({"mode": "witnessed", "warnings": True}, True),
                                         ({"warnings": False}, False)])
def test_warnings_are_the_organisers_choice_per_duel(client, body, warns):  # noqa: F811
    duel = created(client, **body)
    assert duel["warnings"] is warns
    recording = ("recorder", "p0", "p1") if body.get("mode") == "witnessed" else ("recorder",)   # a player's own side
    assert duel["record"] == {r: f"http://testserver/record/{duel['id']}?token={duel['tokens'][r]}" for r in recording}
    started = {**PUBLIC[0], **({"witnessed": True} if body.get("mode") == "witnessed" else {})}
    r = client.post(f"/duels/{duel['id']}/events", json=[started, *PUBLIC[1:6]], headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    answer = client.get(f"/duels/{duel['id']}/actions?card=p0.m0", headers=auth(duel["tokens"]["recorder"])).json()
    assert answer["warnings"] is warns and answer["actions"]
    assert all(("verdict" in a) is warns for a in answer["actions"]), "no verdict reaches a recorder with warnings off"
    judged = client.get(f"/duels/{duel['id']}/actions?card=p0.m0", headers=auth(duel["tokens"]["judge"])).json()
    assert judged["warnings"] is True and all("verdict" in a for a in judged["actions"])
    illegal = [a for a in judged["actions"] if a["verdict"] == "illegal"]
    assert illegal, "a summon in the Draw Phase is illegal (the judge always sees it)"


def test_a_bad_warnings_setting_is_refused_naming_it(client):  # noqa: F811
    r = client.post("/duels", json={"warnings": "yes"}, headers=ORGANISER)
    assert r.status_code == 400 and r.json()["where"] == "warnings"


def test_actions_with_a_card_named_carry_it_and_price_the_battle_by_it(client):  # noqa: F811
    duel = created(client)
    recorder = auth(duel["tokens"]["recorder"])
    assert client.post(f"/duels/{duel['id']}/events", json=PUBLIC[:22], headers=recorder).status_code == 200
    unnamed = client.get(f"/duels/{duel['id']}/actions", headers=recorder).json()["actions"]
    calc = next(a for a in unnamed if a["event"]["kind"] == "damage_calculated")
    assert calc["event"].get("damage", [0, 0]) == [0, 0], "an unknown Set monster: no DEF to fight"
    named = client.get(f"/duels/{duel['id']}/actions?shows=p0.m0:13039848", headers=recorder).json()["actions"]
    calc = next(a for a in named if a["event"]["kind"] == "damage_calculated")
    assert calc["event"]["damage"] == PUBLIC[22]["damage"] and calc["event"]["shows"] == {"p0.m0": 13039848}
    assert client.post(f"/duels/{duel['id']}/events", json=[calc["event"]], headers=recorder).status_code == 200
    after = client.get(f"/duels/{duel['id']}/actions", headers=recorder).json()["actions"]
    assert after[0]["event"] == {k: v for k, v in PUBLIC[23].items()}, "the battle damage calculated, offered first"
    for bad, where in (("p0.m0", "shows"), ("p0.m0:1", "passcode 1"), ("p9.z:13039848", "p9.z")):
        r = client.get(f"/duels/{duel['id']}/actions?shows={bad}", headers=recorder)
        assert r.status_code == 400 and where in r.text, r.text


def test_at_lp_0_the_rules_offer_the_end_of_the_duel(client):  # noqa: F811
    duel = created(client)
    recorder = auth(duel["tokens"]["recorder"])
    assert client.post(f"/duels/{duel['id']}/events", json=PUBLIC[:-1], headers=recorder).status_code == 200
    moves = client.get(f"/duels/{duel['id']}/actions", headers=recorder).json()["actions"]
    # offered as the loser's entry (``player``): a player's device may enter its own loss only
    assert moves[0]["event"] == {**PUBLIC[-1], "player": 1 - PUBLIC[-1]["winner"]}
    assert moves[0]["label"] == "Yugi wins (LP reached 0)"              # the reason in words, not "lp"
    r = client.post(f"/duels/{duel['id']}/events", json=[moves[0]["event"]], headers=recorder)
    assert r.status_code == 200, r.text


def test_the_recorder_page_is_served_with_the_viewers_policy(client):  # noqa: F811
    duel = created(client)
    r = client.get(f"/record/{duel['id']}")
    assert r.status_code == 200 and "record.js" in r.text and "default-src 'none'" in r.headers["content-security-policy"]
    for asset in ("record.js", "record.css"):
        assert client.get(f"/viewer/{asset}").status_code == 200
    assert client.get("/record/..%2Fetc").status_code == 404
