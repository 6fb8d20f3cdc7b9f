"""A big round read again opens none of its duels (#25, nineteenth pass, svc19): the duels a round's
reading reads are held by the hub (``Hub.get``'s ``held``) past ``IDLE_DUELS``. A 500-table
round read ~375 recording duels, more than the hub kept idle (256), and its own reading evicted
the duels it read next: every reading after a change opened ~120 of them again (~1 ms each, most
of the change's CPU)."""
from __future__ import annotations

from test_organiser_18b import PAPER, _started
from test_release import ORGANISER, auth, client, store  # noqa: F401  (fixtures: an in-process service)
from ygoreplay import live
from ygoreplay.live import Hub


def test_a_round_read_again_opens_none_of_its_duels_past_the_idle_duels_kept(client, store, monkeypatch):  # noqa: F811
    """Three tables recording, the hub keeping one idle duel: the round read after one table's
    entry opens no duel again (on ``main`` it opened the two its own reading had evicted), and
    shows the entry."""
    monkeypatch.setattr(live, "IDLE_DUELS", 1)
    body = "1,Yugi,Kaiba\n2,Joey,Mai\n3,Tea,Tristan\n4,Bakura,Marik\n"
    made = client.post("/rounds?event=Regional&round=6", content=body,
                       headers={"Content-Type": "text/csv", **ORGANISER}).json()
    duels = _started(client.post, made, 3)
    for duel in duels:
        r = client.post(f"/duels/{duel['id']}/events", json=PAPER[:5], headers=auth(duel["tokens"]["recorder"]))
        assert r.status_code == 200, r.text
    first = client.get(f"/rounds/{made['id']}.json").json()
    opened: list[str] = []           # the duels opened from the store (``Store.opened``: a ``LiveDuel`` made)
    monkeypatch.setattr(store, "opened", lambda duel_id, read=store.opened: opened.append(duel_id) or read(duel_id))
    one = duels[0]
    r = client.post(f"/duels/{one['id']}/events?expected=5", json=PAPER[5:8], headers=auth(one["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    again = client.get(f"/rounds/{made['id']}.json").json()
    assert opened == []
    assert again["tables"][0]["last_event"] != first["tables"][0]["last_event"]
    assert again["tables"][1:] == first["tables"][1:]


def test_a_reading_no_longer_read_holds_its_duels_no_more(store, monkeypatch):  # noqa: F811
    """A hold not renewed within ``HELD_FOR`` is let go when the hub next evicts (no other
    reading need come): its duels are idle again, evicted past ``IDLE_DUELS`` as any other."""
    from test_live_vouched import _recorded
    monkeypatch.setattr(live, "IDLE_DUELS", 1)
    a, b, c = (_recorded(store, 4) for _ in range(3))
    hub = Hub(store)
    hub.get(a, held=True)
    hub.get(b, held=True)
    hub.get(c)
    assert set(hub.duels) == {a, b, c}                # held, over the one idle duel kept
    monkeypatch.setattr(live, "HELD_FOR", -1.0)       # the round's reading is long past
    d = _recorded(store, 4)
    hub.get(d)
    assert list(hub.duels) == [d]
