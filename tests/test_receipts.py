"""A duel cut back to an older signed anchor, on SQLite and a real PostgreSQL: the store alone
verifies (it cannot know it is not its newest state); a receipt kept by the recorder, or a witness
that kept every head, proves the cut. An untouched store verifies with both."""
from __future__ import annotations

import json

import httpx
import pytest

from test_service import Server, auth, create
from test_store import (  # noqa: F401  (fixtures)
    DAMAGE, REPLAYS, execute, fresh_url, note, open_store, sample, store, store_url)
from test_store_cli import clean, run
from ygoreplay.application import Records
from ygoreplay.errors import InputError, StoreError, VerificationError
from ygoreplay.receipts import Receipt, Witness, verify as verify_with
from ygoreplay.signing import OrganiserKey
from ygoreplay.trust import trust_of

FIRST = 60                                              # the first append; the second ends the duel


def cut_back(url: str, duel: str, keep: int) -> None:
    """What someone with write access to the store (and no key) does: delete the events after
    ``keep``, and the anchors, card facts and snapshots written with them."""
    for stream in (duel, f"{duel}/head", f"{duel}/cards"):
        execute(url, "DELETE FROM {t} WHERE originator_id = ? AND originator_version > ?", (stream, keep))
    execute(url, "DELETE FROM {t} WHERE originator_id = ? AND originator_version > ?", (duel, keep), snapshots=True)


def two_appends(records: Records) -> tuple[str, list[Receipt]]:
    done = records.record([], "cut back")
    first = records.append(done.id, list(sample(DAMAGE)[:FIRST]))
    last = records.append(done.id, list(sample(DAMAGE)[FIRST:]))
    return done.id, [done.receipt, first, last]


def test_a_duel_cut_back_to_an_older_anchor_verifies_on_the_store_alone(store_url, store, open_store):
    duel = store.create_duel("cut back")
    store.append(duel, sample(DAMAGE)[:FIRST])
    store.append(duel, sample(DAMAGE)[FIRST:])
    assert store.info(duel).status["ended"]
    cut_back(store_url, duel, FIRST)
    reader = open_store()
    result = reader.verify(duel)
    assert (result.ok, result.events) == (True, FIRST)          # the store cannot know: hence receipts
    info = reader.info(duel)
    assert info.signed and not info.status["ended"]             # the duel's end is gone


def test_a_receipt_proves_the_cut(store_url, store, open_store):
    duel, receipts = two_appends(Records(store))
    last = receipts[-1]
    assert (last.duel, last.events, last.witnessed) == (duel, 89, None) and last.valid
    assert last.head == store.hash_at(duel, 89)
    cut_back(store_url, duel, FIRST)
    result, _ = verify_with(open_store(), duel, receipts)
    assert (result.ok, result.first_bad) == (False, FIRST)
    assert result.problem == (f"the store holds {FIRST} events but a receipt signed at {last.time} promises 89 "
                              f"with head {last.head.hex()[:16]}: events were removed")


def test_an_untouched_store_verifies_with_its_receipts_and_witness(store_url, store, open_store, tmp_path):
    witness = Witness(str(tmp_path / "witness.sqlite"))
    duel, receipts = two_appends(Records(store, witness))
    assert [r.witnessed for r in receipts] == [True, True, True]
    result, seen = verify_with(open_store(), duel, receipts, witness)
    assert (result.ok, result.events, seen.events) == (True, 89, 89)


def test_a_receipt_round_trips_as_json_and_an_altered_one_is_refused(store, tmp_path):
    duel, receipts = two_appends(Records(store))
    data = receipts[-1].to_dict()
    assert set(data) == {"receipt", "version", "duel", "events", "head", "time", "key", "signature"}
    assert data["version"] == 1 and data["receipt"] == "ygoreplay/receipt"
    assert Receipt.from_dict(json.loads(json.dumps(data))) == receipts[-1]
    forged = Receipt.from_dict({**data, "events": 90})
    result, _ = verify_with(store, duel, [forged])
    # an altered receipt proves nothing either way: the store is not judged by it, the doubt is said
    assert result.ok and result.doubt == "the signature of a receipt for 90 events does not hold: it was altered"
    assert trust_of(result.ok, {}, result.doubt)["ok"] is False
    stranger = Receipt.issue(OrganiserKey.generate(), duel, 89, receipts[-1].head)
    result, _ = verify_with(store, duel, [stranger])
    assert result.ok and result.doubt.startswith("a receipt for 89 events is signed by key ")
    key_file = tmp_path / "organiser.key"
    key_file.write_bytes(OrganiserKey.generate().to_pem())
    for hostile in ({"key": str(key_file)}, {"events": 10 ** 30}, {"events": -1}, {"events": True},
                    {"head": "00" * 31}, {"time": "yesterday"}, {"signature": 7}, {"duel": ""}, {"version": 2}):
        with pytest.raises(InputError, match="the receipt: "):
            Receipt.from_dict({**data, **hostile})


@pytest.fixture(params=["sqlite", "postgresql"])
def witness_url(request, tmp_path):
    """A witness of its own: a SQLite file, or a PostgreSQL schema (dropped after)."""
    with fresh_url(request.param, tmp_path / "witness.sqlite", "w") as url:
        yield url


def test_a_witness_proves_the_cut_without_any_receipt(store_url, store, open_store, witness_url):
    witness = Witness(witness_url)
    duel, receipts = two_appends(Records(store, witness))
    assert receipts[-1].witnessed is True
    cut_back(store_url, duel, FIRST)
    result, seen = verify_with(open_store(), duel, (), Witness(witness_url))
    assert (result.ok, result.first_bad, seen.events) == (False, FIRST, 89)
    assert result.problem == (f"the store holds {FIRST} events but its witness signed at {seen.time} promises 89 "
                              f"with head {receipts[-1].head.hex()[:16]}: events were removed")
    witness.close()


def test_a_store_cut_back_and_written_again_is_not_its_witness(store_url, store, open_store, witness_url):
    """Appending onto the cut store is refused while the witness is named; without it (its
    anchors hold) the organiser's own key writes on: the witness still holds the head the store
    had at 89, and the new 89th event is not it."""
    witness = Witness(witness_url)
    records = Records(store, witness)
    duel, receipts = two_appends(records)
    cut_back(store_url, duel, FIRST)
    filler = [note(f"note {i}") for i in range(89 - FIRST)]
    with pytest.raises(VerificationError, match=f"duel {duel}: the store holds {FIRST} events but its witness "):
        Records(open_store(), witness).append(duel, filler)
    with pytest.raises(VerificationError, match="nothing was appended"):
        Records(open_store(), witness).note(duel, "J. Smith", "a note")
    assert open_store().info(duel).events == FIRST
    assert Records(open_store()).append(duel, filler).events == 89
    result, _seen = verify_with(open_store(), duel, (), witness)
    assert not result.ok and result.problem == (
        f"the events up to 89 are not the ones its witness signed at {receipts[-1].time} (head "
        f"{receipts[-1].head.hex()[:16]}): the record was cut back and written again")
    witness.close()


def test_an_unreachable_witness_leaves_the_append_done_and_unwitnessed(store, open_store, tmp_path):
    path = tmp_path / "witness.sqlite"
    witness = Witness(str(path))
    records = Records(store, witness)
    done = records.record([], "witness goes away")
    path.write_bytes(b"not a database at all" * 100)      # the witness breaks
    first = records.append(done.id, list(sample(DAMAGE)[:FIRST]))
    assert (first.events, first.witnessed, first.valid) == (FIRST, False, True)
    assert open_store().verify(done.id).ok
    path.unlink()                                           # back: the next append is witnessed again
    last = records.append(done.id, list(sample(DAMAGE)[FIRST:]))
    assert last.witnessed is True and Witness(str(path)).latest(done.id) == last
    with pytest.raises(StoreError, match="the witness .* cannot be reached"):
        Witness("postgresql://postgres@127.0.0.1:1/test")


# -- the command line -------------------------------------------------------------------------------

def test_the_cli_keeps_receipts_and_verify_proves_the_cut_with_them_or_the_witness(store_url, tmp_path):
    kept, witness = tmp_path / "receipts", str(tmp_path / "witness.sqlite")
    kept.mkdir()
    head, tail = tmp_path / "head.jsonl", tmp_path / "tail.jsonl"
    lines = [line for line in (REPLAYS / DAMAGE).read_text().splitlines() if line.strip() and not line.startswith("#")]
    head.write_text("\n".join(lines[:FIRST]) + "\n")
    tail.write_text("\n".join(lines[FIRST:]) + "\n")
    recorded = run("record", head, "--json", "--receipt", kept, "--witness", witness, url=store_url)
    clean(recorded, 0)
    done = json.loads(recorded.stdout)
    duel = done["id"]
    assert (done["events_stored"], done["receipt"]["events"], done["witnessed"]) == (FIRST, FIRST, True)
    appended = run("append", duel, tail, "--json", "--receipt", kept, "--witness", witness, url=store_url)
    clean(appended, 0)
    last = json.loads(appended.stdout)
    assert (last["events"], last["receipt"]["events"], last["witnessed"]) == (89, 89, True)
    assert sorted(p.name for p in kept.iterdir()) == [f"{duel}-{FIRST}.json", f"{duel}-89.json"]
    assert run("append", duel, tail, "--expected", 3, url=store_url).exit_code == 3   # plain output as before

    ok = run("verify", duel, "--receipt", kept, "--witness", witness, url=store_url)
    clean(ok, 0)
    (entry,) = json.loads(run("list", "--json", "--witness", witness, url=store_url).stdout)
    assert entry["behind_witness"] is None and "BEHIND" not in run("list", "--witness", witness, url=store_url).stdout
    assert run("audit", duel, "--witness", witness, url=store_url).exit_code == 0
    assert ok.stdout.startswith(f"{duel}: ok, 89 events, hash chain intact")
    assert "; holds the head of 2 receipt(s); its witness saw 89 events" in ok.stdout

    cut_back(store_url, duel, FIRST)
    alone = run("verify", duel, url=store_url)
    clean(alone, 0)                                     # the store alone cannot know
    promised = (f"but a receipt signed at {last['receipt']['time']} promises 89 with head "
                f"{last['receipt']['head'][:16]}: events were removed")
    with_receipt = run("verify", duel, "--receipt", kept / f"{duel}-89.json", url=store_url)
    clean(with_receipt, 1)
    assert with_receipt.stdout == f"{duel}: BROKEN at event {FIRST}: the store holds {FIRST} events {promised}\n"
    with_witness = run("verify", duel, "--json", "--witness", witness, url=store_url)
    clean(with_witness, 1)
    data = json.loads(with_witness.stdout)
    assert (data["ok"], data["first_bad_link"], data["witnessed"]) == (False, FIRST, 89)
    assert "its witness signed at" in data["problem"] and data["problem"].endswith("events were removed")
    audited = run("audit", duel, "--witness", witness, url=store_url)
    clean(audited, 1)
    assert f"hash chain: BROKEN at event {FIRST}: the store holds {FIRST} events but its witness signed at" in audited.stdout
    assert run("audit", duel, url=store_url).exit_code == 0
    listed = run("list", "--witness", witness, url=store_url)
    clean(listed, 0)
    assert f"{FIRST} events" in listed.stdout and "(BEHIND ITS WITNESS: run verify)" in listed.stdout
    assert "BEHIND" not in run("list", url=store_url).stdout
    (entry,) = json.loads(run("list", "--json", "--witness", witness, url=store_url).stdout)
    assert entry["behind_witness"].startswith(f"the store holds {FIRST} events but its witness signed at ")


def test_verify_refuses_receipts_it_cannot_use(store_url, tmp_path):
    kept = tmp_path / "r.json"
    duel = json.loads(run("record", REPLAYS / DAMAGE, "--json", "--receipt", kept, url=store_url).stdout)["id"]
    other = run("record", REPLAYS / DAMAGE, "--again", url=store_url).stdout.strip()
    refused = run("verify", other, "--receipt", kept, url=store_url)
    clean(refused, 2)
    assert f"none of the 1 receipt(s) given is for duel {other}" in refused.output
    (tmp_path / "bad.json").write_text('{"receipt": "ygoreplay/receipt", "version": 1, "duel": 3}')
    unreadable = run("verify", duel, "--receipt", tmp_path / "bad.json", url=store_url)
    clean(unreadable, 2)
    assert "bad.json: a receipt needs duel, events, head" in unreadable.output
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    deep = run("verify", duel, "--receipt", tmp_path / "deep.json", url=store_url)
    clean(deep, 2)
    assert "deep.json: not JSON" in deep.output
    for command in (["verify", duel], ["serve", "--port", 0], ["append", duel, REPLAYS / DAMAGE]):
        unreachable = run(*command, "--witness", "postgresql://postgres@127.0.0.1:1/test", url=store_url)
        clean(unreachable, 2)
        assert "the witness 127.0.0.1:1/test cannot be reached" in unreachable.output
    unknown = run("verify", duel, "--witness", "mysql://db/x", url=store_url)
    clean(unknown, 2)
    assert "unknown witness URL 'mysql://db/x'" in unknown.output


# -- the service ------------------------------------------------------------------------------------

def test_the_service_answers_every_write_with_a_receipt_and_verifies_against_them(tmp_path):
    store, witness = str(tmp_path / "duels.sqlite"), str(tmp_path / "witness.sqlite")
    events = [json.loads(line) for line in (REPLAYS / DAMAGE).read_text().splitlines()
              if line.strip() and not line.startswith("#")]
    server = Server(store, env={"YGOREPLAY_WITNESS": witness})
    try:
        created = create(server.url, title="receipts", visibility="public", delay={"events": 10})
        duel, recorder = created["id"], auth(created["tokens"]["recorder"])
        assert (created["receipt"]["events"], created["witnessed"]) == (0, True)
        answers = [httpx.post(f"{server.url}/duels/{duel}/events", json=events[:FIRST], headers=recorder).json()]
        spectator = httpx.post(f"{server.url}/duels/{duel}/verify", json=answers[0]["receipt"])
        assert spectator.status_code == 403 and "may see 50 events" in spectator.json()["error"]
        answers.append(httpx.post(f"{server.url}/duels/{duel}/events", json=events[FIRST:], headers=recorder).json())
        assert [(a["position"], a["receipt"]["events"], a["witnessed"]) for a in answers] == [
            (FIRST, FIRST, True), (89, 89, True)]
        last = answers[-1]["receipt"]
        ok = httpx.post(f"{server.url}/duels/{duel}/verify", json=[a["receipt"] for a in answers], headers=recorder)
        assert (ok.status_code, ok.json()["ok"], ok.json()["events"]) == (200, True, 89)
        altered = httpx.post(f"{server.url}/duels/{duel}/verify", json={**last, "events": "89"}, headers=recorder)
        assert altered.status_code == 400 and altered.json()["where"] == "body[0]"
        private = create(server.url, title="private", visibility="private")["id"]
        unknown = httpx.post(f"{server.url}/duels/{private}/verify", json={**last, "duel": private})
        assert unknown.status_code == 404, "who may not know of a duel learns nothing of it from a receipt"
    finally:
        server.stop()
    cut_back(store, duel, FIRST)
    for env, body in (({}, last), ({"YGOREPLAY_WITNESS": witness}, None)):
        server = Server(store, env=env)
        try:
            asked = (httpx.post(f"{server.url}/duels/{duel}/verify", json=body, headers=recorder) if body
                     else httpx.get(f"{server.url}/duels/{duel}/verify", headers=recorder))
            by = "a receipt" if body else "its witness"
            assert asked.status_code == 200 and asked.json()["ok"] is False, asked.text
            assert asked.json()["problem"].startswith(f"the store holds {FIRST} events but {by} signed at ")
            assert (asked.json()["events"], asked.json()["first_bad_link"]) == (FIRST, FIRST)
        finally:
            server.stop()
