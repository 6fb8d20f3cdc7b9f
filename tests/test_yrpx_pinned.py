"""One real EDOPro duel's import pinned by digest: its events, times, sources, card facts, what the
replay says, notes, cites and the engine-check figures, and the judge file written of it.

Work on the importer's speed (#25) must leave what it imports byte for byte the same; a change
that means to alter the import updates the digests here, saying why in its commit."""
from __future__ import annotations

import hashlib

import msgpack

from conftest import shared_path
from ygoreplay.exchange import make_replay
from ygoreplay.replay_file import BATCH_PRESET, dumps
from ygoreplay.yrpx import import_yrpx
from ygoreplay.yrpx.engine_check import check

#: The duel: 305 events, a chain, a Deck listing and state packets of every kind.
DUEL = "2020-06-21_12-58-40.yrpX"
IMPORT_DIGEST = "78fa7445a7ac159971b749efe22d41fc129d46e213b844c4381cf63ef54b459e"
FILE_DIGEST = "270e057a82bf8e0feae1a66cc3cdabb631711b2390b5ca2ef47613d70dc9f698"


def imported_bytes(name: str) -> tuple[bytes, bytes]:
    """(the import as msgpack, the judge file ``import -o`` writes of it with fixed secrets)."""
    result = import_yrpx(shared_path("real-replays", "edopro", name), check=True)
    figures, report = check(result)
    record = [[e.to_dict() for e in result.events], result.times, result.sources,
              result.cards.to_json_list(), list(result.expected.lp), result.expected.winner,
              result.expected.reason, result.expected.turns, list(result.players), result.notes,
              [[i, list(rules), cite.card, cite.effect] for i, rules, cite in result.engine_allowed],
              figures.to_dict(), [v.rule for v in report.violations]]
    replay = make_replay(result.events, result.times, result.cards, "judge", b"\1" * 32, b"\2" * 32,
                         {"title": name, "players": list(result.players)}, {"format": "yrpX", "file": name})
    return msgpack.packb(record), dumps(replay, preset=BATCH_PRESET)


def test_a_real_duel_imports_to_the_same_bytes():
    record, written = imported_bytes(DUEL)
    assert hashlib.sha256(record).hexdigest() == IMPORT_DIGEST
    assert hashlib.sha256(written).hexdigest() == FILE_DIGEST
