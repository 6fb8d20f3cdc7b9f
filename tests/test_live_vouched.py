"""What the live path shows (``LiveDuel``, ``LiveMatch``, the round pages) is what the signed
anchors vouch for, as ``verify`` checks it: a header or card record altered in the database by
someone without the organiser's key was shown to followers and on pages, and only ``verify``
caught it (found by the sixth pass's attacker, issue 25)."""
from __future__ import annotations

import asyncio

import httpx
import msgpack
import pytest

from ygoreplay.errors import VerificationError
from ygoreplay.events import from_dict
from ygoreplay.jsonl import read_events
from ygoreplay.live import LiveDuel
from ygoreplay.match.live import LiveMatch
from ygoreplay.store import Store

from test_match_service import MATCHES, lines
from test_store import DAMAGE, REPLAYS, _set_state, _state, fresh_url

EVENTS = read_events(REPLAYS / DAMAGE)
FORGED = "Forged Dragon"


def _recorded(store: Store, count: int = 8) -> str:
    """A duel appended one event at a time (an anchor after each); its card records are
    written at 2 (19 cards) and 3 (one more)."""
    duel = store.create_duel("vouched")
    for i, event in enumerate(EVENTS[:count]):
        store.append(duel, event, expected_position=i)
    assert [r.originator_version for r in store.events.select_events(f"{duel}/cards")] == [2, 3]
    return duel


def _forge_card(url: str, duel: str, version: int) -> None:
    """The card record written at ``version`` with its first card renamed and made stronger."""
    record = msgpack.unpackb(_state(url, f"{duel}/cards", version))
    record["cards"][0].update(name=FORGED, atk=9999)
    _set_state(url, f"{duel}/cards", version, msgpack.packb(record))


def _retitle(url: str, stream: str) -> None:
    """The stream's header altered (its title): no anchor signs it any more."""
    envelope = msgpack.unpackb(_state(url, stream, 0))
    envelope["header"]["title"] = "forged title"
    _set_state(url, stream, 0, msgpack.packb(envelope))


def _names(cards) -> set[str]:
    return {c["name"] for c in cards.to_json_list()}


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
@pytest.mark.parametrize("version, shown", [(3, 2), (2, 1)])
def test_an_altered_card_record_cuts_what_a_live_duel_shows_where_it_was_written(tmp_path, backend, version, shown):
    """The anchors from the altered record on sign other card facts: they vouch for nothing,
    so the live duel shows the events before it, with the facts signed with them, and says
    where it stops (``broken``), as verify does not hold."""
    with fresh_url(backend, tmp_path / "x.sqlite", "vouch") as url, Store(url) as store:
        duel = _recorded(store)
        before = LiveDuel(store, duel)
        assert (before.count, before.broken) == (8, None)
        _forge_card(url, duel, version)
        with Store(url) as reader:                       # another process, with nothing of the duel held
            live = LiveDuel(reader, duel)
            assert (live.count, live.broken) == (shown, shown)
            assert [r.event for r in live.records] == list(EVENTS[:shown])
            assert FORGED not in _names(live.cards)
            assert all(c["atk"] != 9999 for c in live.cards.to_json_list() if "atk" in c)
            assert not reader.verify(duel).ok


def test_a_live_duel_refuses_altered_card_facts_an_append_of_another_process_needs(tmp_path):
    """A follower of this process holds the duel at 2 events; another process appends on,
    writing a new card's record, which is then altered: the card facts read for its events are
    not the ones the anchor signed, so nothing from them on is shown, and what was shown stays."""
    url = str(tmp_path / "x.sqlite")
    with Store(url) as writer, Store(url) as reader:
        duel = writer.create_duel("vouched")
        writer.append(duel, EVENTS[:2])
        live = LiveDuel(reader, duel)
        held = live.cards.to_json_list()
        for i, event in enumerate(EVENTS[2:8], start=2):
            writer.append(duel, event, expected_position=i)
        _forge_card(url, duel, 3)
        assert live.refresh() is False
        assert (live.count, live.broken) == (2, 2)
        assert live.cards.to_json_list() == held and FORGED not in _names(live.cards)
        _set_state(url, f"{duel}/cards", 3, _state(url, f"{duel}/cards", 3).replace(FORGED.encode(), b"Forged Dragoo"))
        assert live.refresh() is False and live.count == 2      # still altered: still cut there


def test_the_same_append_read_unaltered_is_taken_in(tmp_path):
    """The check refuses what was altered only: the appends of another process, card records
    and all, are taken in as before."""
    url = str(tmp_path / "x.sqlite")
    with Store(url) as writer, Store(url) as reader:
        duel = writer.create_duel("vouched")
        writer.append(duel, EVENTS[:2])
        live = LiveDuel(reader, duel)
        for i, event in enumerate(EVENTS[2:8], start=2):
            writer.append(duel, event, expected_position=i)
        assert live.refresh() is True
        assert (live.count, live.broken) == (8, None)
        assert live.cards.to_json_list() == writer.cards_of(duel)[0].to_json_list()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_an_altered_header_shows_nothing_of_the_duel(tmp_path, backend):
    """Every anchor signs the header's digest: a retitled duel (or one whose anchors were all
    deleted) is refused whole, with what to run, not shown under the forger's title."""
    with fresh_url(backend, tmp_path / "x.sqlite", "vouch") as url, Store(url) as store:
        duel = _recorded(store, 4)
        _retitle(url, duel)
        with Store(url) as reader, pytest.raises(VerificationError, match="its header is not the one"):
            LiveDuel(reader, duel)
        with Store(url) as reader:      # a listing names it with its count, as not signed
            assert (reader.info(duel).signed, reader.info(duel).status) == (False, {})


def test_a_duel_whose_anchors_were_deleted_is_not_shown(tmp_path):
    url = str(tmp_path / "x.sqlite")
    from test_store import execute
    with Store(url) as store:
        duel = _recorded(store, 4)
        execute(url, "DELETE FROM {t} WHERE originator_id = ?", (f"{duel}/head",))
        with Store(url) as reader, pytest.raises(VerificationError, match="anchors are missing"):
            LiveDuel(reader, duel)


def test_the_service_answers_409_for_an_altered_duel_not_its_forged_facts(tmp_path):
    """Through the service: the duel's state is refused with the verification's word (409),
    where it was 200 with the forged title."""
    from test_release import ADMIN
    from ygoreplay.access import digest
    from ygoreplay.service import create_app
    url = str(tmp_path / "x.sqlite")
    with Store(url) as store:
        duel = _recorded(store, 4)
        store.attach(duel, "access", {"visibility": "public"})
        _retitle(url, duel)
    with Store(url) as store:
        app = create_app(store, digest(ADMIN))

        async def get() -> httpx.Response:
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://test") as client:
                return await client.get(f"/duels/{duel}/state")
        response = asyncio.run(get())
        assert response.status_code == 409, response.text
        assert response.json()["verification"] is False and "forged title" not in response.text


def _match(store: Store) -> tuple[str, list]:
    sample = [from_dict(e) for e in lines(MATCHES / "two-nil.jsonl")]
    match, _count, _violation = store.record(sample[:3], "m", kind="match", strict=True)
    store.append(match, sample[3:5])
    return match, sample


def test_a_live_match_shows_only_what_its_anchors_vouch_for(tmp_path):
    """A match's event forged past its head (no anchor can name it) and its header altered: the
    live match showed both (it read its events and header unchecked); now the one is not shown
    and the other refuses the match, as for a duel. The round pages read its events the same way."""
    url = str(tmp_path / "x.sqlite")
    from test_store import execute
    with Store(url) as store:
        match, sample = _match(store)
        last = msgpack.unpackb(_state(url, match, 5))
        forged = {"e": sample[5].to_dict(), "t": last["t"], "p": last["h"], "h": b"\x01" * 32}
        execute(url, "INSERT INTO {t} (originator_id, originator_version, topic, state) VALUES (?, 6, ?, ?)",
                (match, "ygoreplay:event", msgpack.packb(forged)))
        with Store(url) as reader:
            live = LiveMatch(reader, match)
            assert (live.count, live.broken) == (5, 5)
            assert [r.event for r in reader.records_after(match)] == sample[:5]
            assert reader.records_after(match, 3) == reader.records_after(match)[3:]
        _retitle(url, match)
        with Store(url) as reader, pytest.raises(VerificationError, match="match .*its header is not the one"):
            LiveMatch(reader, match)


def test_an_altered_duel_is_no_spectators_and_hides_its_branches_not_the_rest(tmp_path):
    """What reads many duels at once (a round's page, a listing's spectator counts, a branch
    asking its parent) passes an altered duel over as one that cannot be read: it shows none of
    it, and the rest as before (the refusal is not an error of the whole page)."""
    from ygoreplay.service.core import Service
    from ygoreplay.service.rounds import _seen
    url = str(tmp_path / "x.sqlite")
    with Store(url) as store:
        parent, other = _recorded(store, 4), _recorded(store, 4)
        for duel in (parent, other):
            store.attach(duel, "access", {"visibility": "public"})
        branch = store.branch(parent, 3)
        store.attach(branch, "access", {"visibility": "public"})
        service = Service(store, "0" * 64)
        assert (service.events_seen(parent), len(_seen(service, parent))) == (4, 4)
        assert not service.hub.get(branch).hidden_by_parent()
        _retitle(url, parent)
    with Store(url) as store:
        service = Service(store, "0" * 64)
        assert (service.events_seen(parent), _seen(service, parent)) == (0, [])
        assert service.hub.get(branch).hidden_by_parent() and service.events_seen(branch) == 0
        assert (service.events_seen(other), len(_seen(service, other))) == (4, 4)


def test_the_last_signed_anchor_vouches_for_every_event_before_it(tmp_path):
    """The chain links every event to the ones before it, so the last anchor that is signed and
    names the chain at its count vouches for them all: a first load checks that one anchor (not
    one an append), and an earlier anchor garbled in the database hides nothing genuine. It is
    still tampering, which verify reports."""
    url = str(tmp_path / "x.sqlite")
    with Store(url) as store:
        duel = _recorded(store)
        anchor = msgpack.unpackb(_state(url, f"{duel}/head", 4))
        anchor.update(sig=b"\x00" * 64, mac=b"\x00" * 32)
        _set_state(url, f"{duel}/head", 4, msgpack.packb(anchor))
        with Store(url) as reader:
            live = LiveDuel(reader, duel)
            assert (live.count, live.broken) == (8, None)
            assert [r.event for r in reader.records_after(duel, 2)] == list(EVENTS[2:8])
            assert not reader.verify(duel).ok
        last = _state(url, f"{duel}/head", 8)
        _set_state(url, f"{duel}/head", 8, _state(url, f"{duel}/head", 4))     # the last one garbled too
        with Store(url) as reader:
            live = LiveDuel(reader, duel)
            assert (live.count, live.broken) == (7, 7), "back to the last anchor that holds"
        _set_state(url, f"{duel}/head", 8, last)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
@pytest.mark.parametrize("what", ["event", "card", "header"])
def test_a_row_rewritten_between_verify_and_the_read_is_never_exported(tmp_path, monkeypatch, backend, what):
    """An export (and a branch) loads a duel verified: ``verify`` read the rows, then they were
    read again apart, so a forger flipping a row back and forth between its genuine and forged
    bytes had the organiser's key sign the forgery whenever the flip fell between the two. What
    is exported is now what its signed anchor vouches for, read in one statement."""
    with fresh_url(backend, tmp_path / "x.sqlite", "race") as url, Store(url) as store:
        duel = _recorded(store)
        genuine = store.load(duel)
        real = store.verify

        def verify_then_forge(duel_id: str, *args, **kwargs):
            result = real(duel_id, *args, **kwargs)
            if what == "card":
                _forge_card(url, duel, 3)
            elif what == "header":
                _retitle(url, duel)
            else:                                              # event #5 stored again as #6
                _set_state(url, duel, 6, _state(url, duel, 5))
            return result
        monkeypatch.setattr(store, "verify", verify_then_forge)
        with pytest.raises(VerificationError, match="changed in the database while it was read"):
            store.load(duel)
        monkeypatch.undo()
        assert len(genuine.records) == 8 and not store.verify(duel).ok     # and the next export is refused


def test_a_verified_load_is_what_verify_vouched_for(tmp_path):
    """The load's own read gives what the reads apart gave: header, records (reverted marks
    too), card facts and the anchor at its count."""
    url = str(tmp_path / "x.sqlite")
    with Store(url) as store:
        duel = _recorded(store)
        loaded, apart = store.load(duel), store.load(duel, verified=False)
        assert loaded.header == apart.header and loaded.records == apart.records
        assert loaded.cards.to_json_list() == apart.cards.to_json_list()
        assert loaded.head == apart.head and loaded.head.count == 8


def test_a_judges_tree_says_which_title_no_anchor_signs(tmp_path):
    """The tree of a duel's branches names each family member with its header's title: one
    whose header was altered is shown to whoever may open it as unsigned, not as a record."""
    from ygoreplay.application import Records, family
    url = str(tmp_path / "x.sqlite")
    with Store(url) as store:
        parent = _recorded(store, 4)
        branch = store.branch(parent, 3)
        for duel in (parent, branch):
            store.attach(duel, "access", {"visibility": "public"})
        _retitle(url, parent)
        nodes = {n["id"]: n for n in family(Records(store), branch, lambda _id, _access: True)}
        assert (nodes[parent]["title"], nodes[parent]["signed"]) == ("forged title", False)
        assert nodes[branch]["signed"] is True
