"""A seek shows only what the duel's signed anchors vouch for (issue 25, fourth pass, attack).

Someone with write access to the database (no organiser's secret) alters a duel's rows: an event's
payload, their order, one deleted or inserted, each time chaining the events again from the
header's root so the chain alone holds; a card record; an anchor. ``verify`` and appends caught
these; a seek (``state_at``, ``show --at N``) showed the altered duel. It now checks its events
up to N on to the first signed anchor or snapshot at or after N, and the card records against
the last signed anchor: refused (VerificationError, the CLI's exit 1 with the reason), on SQLite
and PostgreSQL. An untouched duel seeks as before, also one whose anchors have no MAC (written
before them): their signatures are checked.
"""
from __future__ import annotations

import msgpack
import pytest

from duel import CARDS, snapshot
from test_snapshot_mac import checks  # noqa: F401 (the fixture)
from test_store import DECK_OUT, execute, execute_all, open_store, sample, store, store_url  # noqa: F401
from test_store_cli import clean, run
from ygoreplay import chain
from ygoreplay.errors import VerificationError
from ygoreplay.rules import replay
from ygoreplay.signing import OrganiserKey
from ygoreplay.store import SNAPSHOT_EVERY, Store

ALTERED = 2 * SNAPSHOT_EVERY + 3            # the first event the attacker changes
NOTE = {"kind": "judge_note", "judge": "J. Smith", "note": "inserted", "category": "note"}


def stored_duel(store: Store, layout: str) -> str:
    """DECK_OUT recorded in one append (one anchor, at its end: snapshots seal a seek) or in
    appends of 5 events (an anchor after each)."""
    events = sample(DECK_OUT)
    duel = store.create_duel(layout)
    step = len(events) if layout == "one append" else 5
    for i in range(0, len(events), step):
        store.append(duel, events[i:i + step])
    return duel


def envelopes(url: str, duel: str) -> list[dict]:
    rows = execute(url, "SELECT state FROM {t} WHERE originator_id = ? AND originator_version > 0 "
                        "ORDER BY originator_version", (duel,))
    return [msgpack.unpackb(bytes(state)) for state, in rows]


def rechain(url: str, duel: str, events: list[tuple[dict, str]]) -> None:
    """The duel's events replaced by ``events`` (wire dict, time), chained again from its root."""
    (header,), = execute(url, "SELECT state FROM {t} WHERE originator_id = ? AND originator_version = 0", (duel,))
    prev = msgpack.unpackb(bytes(header))["header"]["root"]
    statements = [("DELETE FROM {t} WHERE originator_id = ? AND originator_version > 0", (duel,))]
    for position, (event, when) in enumerate(events):
        digest = chain.link(prev, position, event, when)
        statements.append(("INSERT INTO {t} (originator_id, originator_version, topic, state) VALUES (?, ?, ?, ?)",
                           (duel, position + 1, event["kind"],
                            msgpack.packb({"e": event, "t": when, "p": prev, "h": digest}))))
        prev = digest
    execute_all(url, statements)                  # one transaction: the duel is never seen half rechained


def tamper(url: str, duel: str, how: str) -> None:
    events = [(env["e"], env["t"]) for env in envelopes(url, duel)]
    if how == "payload":                      # the first event after ALTERED naming a player: the other one
        at = next(i for i in range(ALTERED, len(events)) if events[i][0].get("player") in (0, 1))
        events[at] = ({**events[at][0], "player": 1 - events[at][0]["player"]}, events[at][1])
    elif how == "order":
        events[ALTERED], events[ALTERED + 1] = events[ALTERED + 1], events[ALTERED]
    elif how == "deleted":
        del events[ALTERED]
    else:
        events.insert(ALTERED, (NOTE, events[ALTERED][1]))
    rechain(url, duel, events)


@pytest.mark.parametrize("layout", ["one append", "appends of 5"])
def test_an_untouched_duel_seeks_as_before(store_url, store, open_store, layout):
    duel = stored_duel(store, layout)
    events = sample(DECK_OUT)
    cold = open_store()
    for n in (0, 1, ALTERED, 3 * SNAPSHOT_EVERY, 3 * SNAPSHOT_EVERY + 7, len(events) - 1, len(events)):
        assert snapshot(cold.state_at(duel, n)) == snapshot(replay(events, CARDS, at=n - 1)), n
    assert snapshot(cold.state_at(duel)) == snapshot(replay(events, CARDS))


@pytest.mark.parametrize("layout", ["one append", "appends of 5"])
@pytest.mark.parametrize("how", ["payload", "order", "deleted", "inserted"])
def test_events_altered_and_chained_again_are_refused(store_url, store, open_store, layout, how):
    duel = stored_duel(store, layout)
    tamper(store_url, duel, how)
    assert not store.verify(duel).ok
    cold = open_store()
    for n in (ALTERED + 2, ALTERED + SNAPSHOT_EVERY + 1, 4 * SNAPSHOT_EVERY, None):
        with pytest.raises(VerificationError, match=f"duel {duel}: .*no board is shown from it"):
            cold.state_at(duel, n)
    shown = run("show", duel, "--at", str(ALTERED + 5), url=store_url)
    clean(shown, 1)
    assert f"duel {duel}: its events up to" in shown.output and "no board is shown" in shown.output, shown.output
    # a board at a signed snapshot before the change is still vouched for
    assert snapshot(cold.state_at(duel, 2 * SNAPSHOT_EVERY)) == snapshot(
        replay(sample(DECK_OUT), CARDS, at=2 * SNAPSHOT_EVERY - 1))


@pytest.mark.parametrize("how", ["facts", "deleted", "added"])
def test_altered_card_records_are_refused(store_url, store, open_store, how):
    duel = stored_duel(store, "appends of 5")
    rows = execute(store_url, "SELECT originator_version, state FROM {t} WHERE originator_id = ? "
                              "ORDER BY originator_version", (f"{duel}/cards",))
    version, state = rows[-1]
    record = msgpack.unpackb(bytes(state))
    if how == "facts":
        record["cards"][0]["atk"] = 5000
        execute(store_url, "UPDATE {t} SET state = ? WHERE originator_id = ? AND originator_version = ?",
                (msgpack.packb(record), f"{duel}/cards", version))
    elif how == "deleted":
        execute(store_url, "DELETE FROM {t} WHERE originator_id = ? AND originator_version = ?",
                (f"{duel}/cards", version))
    else:
        record["cards"] = [{**record["cards"][0], "code": 99999999, "name": "Forged"}]
        record.pop("effects", None)
        execute(store_url, "INSERT INTO {t} (originator_id, originator_version, topic, state) VALUES (?, ?, ?, ?)",
                (f"{duel}/cards", version + 1, "ygoreplay:cards", msgpack.packb(record)))
    cold = open_store()
    for n in (0, 1, ALTERED, None):
        with pytest.raises(VerificationError, match=f"duel {duel}: its card records are not the ones"):
            cold.state_at(duel, n)
    shown = run("show", duel, "--at", "3", url=store_url)
    clean(shown, 1)
    assert "its card records are not the ones its anchor" in shown.output, shown.output


def last_anchor(url: str, duel: str) -> tuple[int, dict]:
    version, state = execute(url, "SELECT originator_version, state FROM {t} WHERE originator_id = ? "
                                  "ORDER BY originator_version DESC LIMIT 1", (f"{duel}/head",))[0]
    return version, msgpack.unpackb(bytes(state))


def set_anchor(url: str, duel: str, version: int, anchor: dict) -> None:
    execute(url, "UPDATE {t} SET state = ? WHERE originator_id = ? AND originator_version = ?",
            (msgpack.packb(anchor), f"{duel}/head", version))


@pytest.mark.parametrize("how", ["status", "mac of another key", "hash", "deleted"])
def test_an_altered_anchor_is_refused(store_url, store, open_store, how):
    """The last anchor (which vouches for the card records, and for the events a seek past the
    last snapshot reads) altered: its status (the signature and MAC no longer hold), a MAC
    remade with another key, its head hash, or the anchor deleted."""
    duel = stored_duel(store, "appends of 5")
    version, anchor = last_anchor(store_url, duel)
    if how == "status":
        anchor["status"]["turn"] += 1
    elif how == "mac of another key":
        anchor["status"]["turn"] += 1
        anchor["mac"] = OrganiserKey.generate().mac(b"anything")
    elif how == "hash":
        anchor["h"] = bytes(32)
    if how == "deleted":
        execute(store_url, "DELETE FROM {t} WHERE originator_id = ? AND originator_version = ?",
                (f"{duel}/head", version))
    else:
        set_anchor(store_url, duel, version, anchor)
    cold = open_store()
    with pytest.raises(VerificationError, match=f"duel {duel}: "):
        cold.state_at(duel, version)
    clean(run("show", duel, "--at", str(version - 1), url=store_url), 1)


def test_anchors_written_before_macs_are_checked_by_their_signature(store_url, store, open_store, checks):
    """A store written before anchors had a MAC: each anchor a seek reads is checked by its
    signature (once per anchor and process), and the seek gives the same state."""
    duel = stored_duel(store, "appends of 5")
    rows = execute(store_url, "SELECT originator_version, state FROM {t} WHERE originator_id = ?", (f"{duel}/head",))
    for version, state in rows:
        anchor = msgpack.unpackb(bytes(state))
        anchor.pop("mac")
        set_anchor(store_url, duel, version, anchor)
    events = sample(DECK_OUT)
    n = 3 * SNAPSHOT_EVERY + 2
    assert snapshot(open_store().state_at(duel, n)) == snapshot(replay(events, CARDS, at=n - 1))
    assert checks and all(m.startswith(b"ygoreplay/head/2\0") for m in checks)
    assert store.verify(duel).ok


def test_the_service_shows_nothing_past_the_last_anchor_that_vouches_for_it(tmp_path):
    """The service's board (``LiveDuel``, read afresh as after a restart) took stored events in
    while they chained from the header's root: a note inserted and the events chained again was
    its board. It takes in only what a signed anchor vouches for; its frames say where that ends."""
    import httpx
    from test_service_delay import ADMIN, EVENTS, append, auth, create, open_store as service_store, serving
    with service_store(tmp_path / "duels.sqlite") as opened, serving(opened) as (base, svc):
        duel = create(base, title="rechained behind the service's back", visibility="public")
        d, judge = duel["id"], duel["tokens"]["judge"]
        append(base, d, ADMIN, EVENTS[:30])
        append(base, d, ADMIN, EVENTS[30:60])
        url = str(tmp_path / "duels.sqlite")
        events = [(env["e"], env["t"]) for env in envelopes(url, d)]
        events.insert(40, (NOTE, events[40][1]))
        rechain(url, d, events)
        svc.hub.duels.pop(d)                      # read afresh, as after a restart
        state = httpx.get(f"{base}/duels/{d}/state", headers=auth(judge)).json()
        assert state["events"] == 30 and state["at"] == 29, "nothing past the anchor at 30"
        assert httpx.get(f"{base}/duels/{d}/state?at=40", headers=auth(judge)).status_code == 404
        assert httpx.get(f"{base}/duels/{d}/frames").json()["broken"] == 30
        assert httpx.get(f"{base}/duels/{d}/verify").json()["ok"] is False


def test_a_header_given_another_root_with_its_events_chained_again_is_refused(store_url, store, open_store):
    """The header's root replaced and every event chained again from it: the chain alone holds.
    A seek is refused by the header's digest, which the anchors sign (checked first, as the
    service's read checks it: a seek past it was refused by its seal alone), and so is one that
    folds from the root without reaching a seal (at 0; a rollback's restore)."""
    duel = stored_duel(store, "appends of 5")
    (state,), = execute(store_url, "SELECT state FROM {t} WHERE originator_id = ? AND originator_version = 0",
                        (duel,))
    envelope = msgpack.unpackb(bytes(state))
    envelope["header"]["root"] = bytes(32)
    execute(store_url, "UPDATE {t} SET state = ? WHERE originator_id = ? AND originator_version = 0",
            (msgpack.packb(envelope), duel))
    rechain(store_url, duel, [(env["e"], env["t"]) for env in envelopes(store_url, duel)])
    cold = open_store()
    with pytest.raises(VerificationError, match=f"duel {duel}: its header is not the one its signed anchor names"):
        cold.state_at(duel, 7)
    with pytest.raises(VerificationError, match=f"duel {duel}: its header is not the one its signed anchor names"):
        cold._history(duel, 3, cold.cards_of(duel)[0])             # what a rollback's restore folds
    with pytest.raises(VerificationError, match=f"duel {duel}: its header is not"):
        cold.state_at(duel, 0)


def test_an_anchor_altered_after_a_seek_checked_it_is_refused(store_url, store, open_store):
    """The anchors a seek checked are kept decoded by their stored bytes (``store._HEADS``): the
    last anchor altered after a seek (its status, its signature and MAC kept) is decoded and
    checked again, and refused, by the store that checked it and by a new one."""
    duel = stored_duel(store, "appends of 5")
    version, anchor = last_anchor(store_url, duel)
    warm = open_store()
    warm.state_at(duel, version)                       # the anchor checked, kept
    anchor["status"]["turn"] += 1
    set_anchor(store_url, duel, version, anchor)
    for reader in (warm, open_store()):
        with pytest.raises(VerificationError, match=f"duel {duel}: "):
            reader.state_at(duel, version)
