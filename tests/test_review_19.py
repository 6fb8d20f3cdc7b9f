"""Review of the nineteenth pass's merge (#25, review19): what was found and fixed, what was
tried and held.

Found, fixed:

- svc19's holds (``Hub.get``'s held duels) had no bound: every round's reading held every duel it
  read for ``HELD_FOR`` seconds past any eviction, so whoever read every round's page (anyone may:
  ``/rounds/{id}.json``) every few minutes kept every duel of every round in memory; and a round
  read on and on (its page followed) held every duel it had ever read, a finished game's too, for
  as long as it was read. Now each duel is held from when a reading last read it, within
  ``HELD_FOR``, ``HELD_DUELS`` at most (the least recently read let go first).

- The scorekeeper's LP sheet (``/duels/{id}/lp-sheet`` with a witnessed duel's recorder token:
  the table's view) carried the head of a chain from a root of the table's own over the table's
  names (``exchange.sheet_head`` given the table's view): no file anyone is given holds that
  chain, so the paper both players sign tied to nothing (``verify --against`` found no file it
  names). It now carries the head of the file the table is given (a spectator's, ``access.filed_as``).

- attack25ba's witnessed matches: a round's thousand matches (``round create --witness``, ``POST
  /rounds``) were each given to the witness alone, a SQLite witness opened, its table made and a
  commit synced once a table (300 tables: 5.9 s wall, 0.68 s CPU; now 0.75 s and 0.25 s). The heads
  of one write go to the witness in one transaction (``receipts.issue_all``, ``Witness.record``).

Tried and held (no change):

- tableids19: every duel door the table's recorder reads (state, frames, events, cards, actions,
  board.svg/png, diff, follow, tree, replay.ygr; a match's replay.ygr, state and follow through
  ``access.view_of``) derives the table's names from ``views.redactor_of``; its writes (a token,
  raw ``/events``, a match's recorder token seated) are turned by ``names_view`` (the judge, a
  machine's recorder and ``--by recorder`` write record ids); a name of another view or one the
  table knew before a mix is refused; the recorder page's queue sends ``expected`` (names pinned to
  their head). The first append in record ids: only a writer of ``duel_started`` writes there, and
  no card has an identity before it.
- attack25ba: every match write (``match.commands.record``, ``POST /matches``, a round, ``round
  time``) checks ``receipts.not_behind`` and gives its heads to the witness, SQLite and PostgreSQL.
- fold19: a cache file planted, stale (another key), a link or a pipe in its place, a key in a
  read-only folder: the MAC made with the seed decides, a failed write derives the half again.
  ``_hmac_pads`` equals ``hmac.digest`` (its key is always 32 bytes). ``Head.signed`` copies a
  frozen dataclass's fields (no cached field to carry over).
- judge19: a snapshot without ``flip_uses`` loads with none used (lenient: it lets a Flip
  effect through, never refuses one).
"""
from __future__ import annotations

import re
import types

from test_release import auth, client, store  # noqa: F401  (fixtures: an in-process service)
from test_live_vouched import _recorded
from ygoreplay import live
from ygoreplay.live import Hub
from ygoreplay.replay_file import loads


def _held(hub: Hub, duel_id: str) -> None:
    # as a round's reading reads each of its duels; ``held_for`` on main, ``held`` here
    try:
        hub.get(duel_id, held=True)
    except TypeError:
        hub.get(duel_id, held_for=f"round of {duel_id}")


def test_the_duels_held_by_readings_are_bounded(store, monkeypatch):  # noqa: F811
    """Four rounds' readings, each holding one duel, the hub keeping one idle duel and holding two:
    the two least recently read are let go (on main all four stayed, with any number of rounds)."""
    monkeypatch.setattr(live, "IDLE_DUELS", 1)
    monkeypatch.setattr(live, "HELD_DUELS", 2, raising=False)
    duels = [_recorded(store, 4) for _ in range(5)]
    hub = Hub(store)
    for duel in duels[:4]:
        _held(hub, duel)
    hub.get(duels[4])
    assert set(hub.duels) == {duels[2], duels[3], duels[4]}


def test_a_duel_a_reading_no_longer_reads_is_let_go_though_it_reads_on(store, monkeypatch):  # noqa: F811
    """A round's page read on and on holds the duels it reads now, not one it read once (a
    finished game's): past ``HELD_FOR`` since it was last read, that duel is idle again (on main
    the round's reading renewed every duel it had ever read)."""
    clock = [1000.0]
    monkeypatch.setattr(live, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))
    monkeypatch.setattr(live, "IDLE_DUELS", 1)
    old, now, other = (_recorded(store, 4) for _ in range(3))
    hub = Hub(store)
    try:
        hub.get(old, held=True)
        clock[0] += live.HELD_FOR / 2
        hub.get(now, held=True)
        clock[0] += live.HELD_FOR / 2 + 1          # ``old`` not read for longer than HELD_FOR
        hub.get(now, held=True)
    except TypeError:                               # main: one reading, its hold renewed as a whole
        hub.get(old, held_for="round")
        clock[0] += live.HELD_FOR / 2
        hub.get(now, held_for="round")
        clock[0] += live.HELD_FOR / 2 + 1
        hub.get(now, held_for="round")
    hub.get(other)
    assert set(hub.duels) == {now, other}


def test_the_tables_lp_sheet_carries_its_own_files_head(client):  # noqa: F811
    """The scorekeeper's LP sheet (a witnessed duel's recorder: the table's view) is the paper both
    players sign; its head ties it to a file (``exchange.sheet_head``: a view's paper carries its
    own file's head). The table's file is a spectator's (``access.filed_as``), but its sheet
    carried the head of a chain from a root of the table's own over the table's names: a file no
    one is ever given, so the signed paper tied to nothing."""
    from test_attack_25aw import _table
    duel, recorder = _table(client)
    page = client.get(f"/duels/{duel['id']}/lp-sheet", headers=auth(recorder))
    assert page.status_code == 200, page.text
    kept = loads(client.get(f"/duels/{duel['id']}/replay.ygr", headers=auth(recorder)).content)
    assert re.findall(r"\b[0-9a-f]{64}\b", page.text) == [kept.chain[-1].hex()]


def test_a_rounds_matches_are_given_to_the_witness_at_once(tmp_path):
    """``round create --witness`` (and ``POST /rounds``): each new match's head went to the witness
    alone, a SQLite witness opened and committed once a table (a 300-table round: 5.9 s of wall
    time, 0.68 s of CPU, against 0.75 and 0.25 now). The heads are given in one transaction, and
    each is kept."""
    from ygoreplay.decks import Banlist
    from ygoreplay.receipts import Witness
    from ygoreplay.rounds import RoundSettings, create_round, read_pairings
    from ygoreplay.store import Store
    with Store(str(tmp_path / "duels.sqlite")) as store:
        witness = Witness(str(tmp_path / "witness.sqlite"), store)
        runs: list[int] = []
        real = witness._run
        witness._run = lambda work: runs.append(1) or real(work)
        settings = RoundSettings("Regional", 1, "advanced", "tcg-2024", Banlist("(none)"), "public", "witnessed")
        made = create_round(store, read_pairings("1,Yugi,Kaiba\n2,Joey,Mai\n3,Tea,Tristan\n"), settings, "", witness)
        assert len(runs) == 1
        for table in made.tables:
            assert witness.latest(table.match).events == store.info(table.match).events > 0
