"""A card's numbers, the search and a player's duels keep the store's vouching decisions
(``Store.listed``) while nothing is committed to its database (``Store.committed``), and by the
rows' exact bytes otherwise (issue 25, tenth pass: a popular card's numbers cost 3.3 times what
they did once every duel was checked): a header or anchor row altered after an answer is decided
again, and the next answer leaves its duel out, in the same Store, in another Store on the same
database (a second service worker), on SQLite and PostgreSQL."""
from __future__ import annotations

import time

import msgpack
import pytest

from duel import CARDS
from test_live_vouched import _retitle
from test_search import COUNTERS, _code_of, first, found, recorded
from test_store import _set_state, _state, store_url  # noqa: F401  (fixture: a fresh SQLite file or PostgreSQL schema)
from ygoreplay.library_search import card_stats, player
from ygoreplay.store import Store

CODE = _code_of(COUNTERS, first(COUNTERS, "activated")[1].card)


def _counted(store: Store) -> int:
    return card_stats(store, CODE)["duels"]


def _ended(store: Store) -> int:
    """How many duels ``player`` counts of Kaiba's (each sample duel is his, and has ended)."""
    answer = player(store, "kaiba")
    return answer["won"] + answer["lost"] + answer["drawn"]


def _reanchor(url: str, duel: str) -> bytes:
    """The duel's last anchor row said to name the other winner: it still decodes, its MAC and
    signature no longer hold. The row's bytes before."""
    with Store(url, readonly=True) as store:
        last = store.info(duel).events
    before = _state(url, f"{duel}/head", last)
    anchor = msgpack.unpackb(before)
    anchor["status"]["winner"] = 1 - anchor["status"]["winner"]
    _set_state(url, f"{duel}/head", last, msgpack.packb(anchor))
    return before


def test_a_header_altered_after_a_kept_answer_is_left_out_of_the_next(store_url):
    with Store(store_url, CARDS) as store:
        altered, other = recorded(store, COUNTERS), recorded(store, COUNTERS)
        assert _counted(store) == _counted(store) == 2           # the second at the same mark
        assert set(found(store, card=str(CODE))) == {altered, other} and _ended(store) == 2
        _retitle(store_url, altered)                             # another connection's commit
        assert _counted(store) == 1
        assert found(store, card=str(CODE)) == [other] and _ended(store) == 1


def test_an_anchor_altered_after_a_kept_answer_is_left_out_until_its_bytes_are_back(store_url):
    with Store(store_url, CARDS) as store:
        altered, other = recorded(store, COUNTERS), recorded(store, COUNTERS)
        assert _counted(store) == 2 and _ended(store) == 2
        before = _reanchor(store_url, altered)
        assert _counted(store) == 1 and found(store) == [other] and _ended(store) == 1
        _set_state(store_url, f"{altered}/head", store.info(altered).events, before)
        assert _counted(store) == 2 and set(found(store)) == {altered, other}


def test_another_workers_store_counts_a_new_duel_and_drops_an_altered_one(store_url):
    """Two Stores on one database, as two service workers: each keeps its own decisions, and a
    write through the other (a new duel) or straight into the database (an alteration) is seen
    by the next answer of each."""
    with Store(store_url, CARDS) as one, Store(store_url, CARDS) as two:
        altered = recorded(one, COUNTERS)
        assert _counted(one) == _counted(two) == 1
        assert _counted(one) == _counted(two) == 1
        added = recorded(two, COUNTERS)
        assert _counted(one) == _counted(two) == 2
        _retitle(store_url, altered)
        assert _counted(one) == _counted(two) == 1
        assert found(one, card=str(CODE)) == found(two, card=str(CODE)) == [added]


def test_a_duel_its_delay_releases_later_is_decided_at_a_kept_mark(store_url):
    """A running duel's card events show once their delay is past: with nothing committed
    between, the answer at the later time counts it, decided then (not left out as unknown)."""
    with Store(store_url, CARDS) as store:
        recorded(store, COUNTERS)
        late = recorded(store, COUNTERS, upto=first(COUNTERS, "activated")[0] + 1, delay_seconds=3600.0)
        assert _counted(store) == 1
        later = time.time() + 3601
        assert card_stats(store, CODE, now=later)["duels"] == 2
        _retitle(store_url, late)
        assert card_stats(store, CODE, now=later)["duels"] == 1


def test_an_answer_at_an_unchanged_mark_decides_no_duel_again(tmp_path, monkeypatch):
    """With nothing committed since the last answer, the next reads no header or anchor row and
    decides nothing: the cost of an answer is its library query's again (a popular card's
    numbers were 3.3 times it when each duel was decided on its rows read again). SQLite only:
    PostgreSQL's mark is the cluster's snapshot, which any database's commit changes (the shared
    test cluster commits all the time)."""
    with Store(str(tmp_path / "duels.sqlite"), CARDS) as store:
        recorded(store, COUNTERS), recorded(store, COUNTERS)
        for _ in range(8):      # once on each connection of the pool (SQLite's marks are each one's)
            assert _counted(store) == 2 and len(found(store, card=str(CODE))) == 2
        decided: list[str] = []
        listed_header = Store._listed_header

        def spy(self: Store, stream_id: str, *rows: object) -> object:
            decided.append(stream_id)
            return listed_header(self, stream_id, *rows)
        monkeypatch.setattr(Store, "_listed_header", spy)
        assert _counted(store) == 2 and len(found(store, card=str(CODE))) == 2 and decided == []
        recorded(store, COUNTERS)                                # a commit: each is decided again
        assert _counted(store) == 3 and len(decided) == 3


@pytest.mark.parametrize("alter", [_retitle, _reanchor])
def test_a_page_of_the_search_leaves_out_a_duel_altered_after_it_was_shown(store_url, alter):
    with Store(store_url, CARDS) as store:
        altered, other = recorded(store, COUNTERS), recorded(store, COUNTERS)
        assert found(store) == found(store) == [other, altered]
        alter(store_url, altered)
        assert found(store) == [other]


def test_a_stream_not_decided_at_a_kept_mark_is_read_and_decided_then(store_url):
    """``Store.listed`` at a mark it has decided other streams at reads the rows of a stream it
    has not (the library's query left them out: ``Store.decided``), in one statement of its own."""
    with Store(store_url, CARDS) as store:
        one, two = recorded(store, COUNTERS), recorded(store, COUNTERS)
        _retitle(store_url, two)
        three = recorded(store, COUNTERS)
        with store.events.datastore.transaction(commit=False) as cursor:
            mark = store.committed(cursor)
        assert not store.decided(mark) and set(store.listed([one], None, mark)) == {one}
        assert store.decided(mark) and set(store.listed([three, two, one], None, mark)) == {one, three}
