"""The store's trusted decode path (issue 25): events read back from records whose hash chain was
just checked are built without checking every field again (``events.from_trusted_dict``), and
still a record altered behind the store's back is refused with a message naming the duel and the
position, never a traceback: unchained, by its chain; rechained, by the checking decoder."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import msgpack
import pytest

from ygoreplay import chain, events
from ygoreplay.errors import StoreError, VerificationError
from ygoreplay.events import EVENT_TYPES, UPCASTERS, EventFormatError, from_dict, from_trusted_dict
from ygoreplay.jsonl import read_events
from ygoreplay.store import Store

REPLAYS = Path(__file__).resolve().parent.parent / "replays"
DAMAGE = REPLAYS / "won-by-damage.jsonl"


def test_a_trusted_event_is_the_checked_one_for_every_sample_event():
    """Duels and matches (their streams share the decoder), every sample but the illegal ones."""
    import ygoreplay.match.events  # noqa: F401  (registers the match kinds)
    paths = [p for p in sorted(REPLAYS.rglob("*.jsonl")) if "illegal" not in p.parts]
    wires = [e.to_dict() for path in paths for e in read_events(path)]
    assert len({w["kind"] for w in wires}) > 30
    for wire in wires:
        packed = msgpack.unpackb(msgpack.packb(wire))            # as a record holds it: lists, not tuples
        assert from_trusted_dict(packed) == from_dict(packed), wire


def test_older_versions_are_still_upcast():
    old = {"kind": "activated", "player": 0, "card": "p0.m1", "link": 1}           # v1: no negates, no facts
    assert ("activated", 1) in UPCASTERS and EVENT_TYPES["activated"].VERSION > 1
    assert from_trusted_dict(old) == from_dict(old)
    moved = {"kind": "card_moved", "card": "p0.m1", "to": [0, "gy"], "reason": "destroyed"}   # v1: no with_next
    assert from_trusted_dict(moved) == from_dict(moved) and from_trusted_dict(moved).with_next is False


def _built(build, wire):
    """What ``build`` makes of a record: the event, or the EventFormatError's message."""
    try:
        return build(wire)
    except EventFormatError as exc:
        return str(exc)


def _generic(wire):
    """The trusted build of any shape (``events._trusted``), from_dict when it does not build."""
    try:
        return events._trusted(wire)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError):
        return from_dict(wire)


def test_a_record_is_built_by_the_maker_of_its_shape_as_the_generic_way_builds_it():
    """Each shape of record (kind, version, keys) has a maker written for it (issue 25): for every
    sample event, as written and with each of its fields dropped or given a value of another
    type or outside its vocabulary, it builds the same event, or is refused with the same
    message, as upcasting and checking the record field by field does."""
    import ygoreplay.match.events  # noqa: F401  (registers the match kinds)
    paths = [p for p in sorted(REPLAYS.rglob("*.jsonl")) if "illegal" not in p.parts]
    wires = {}
    for path in paths:
        for e in read_events(path):
            wire = msgpack.unpackb(msgpack.packb(e.to_dict()))
            wires.setdefault((wire["kind"], tuple(wire)), wire)
    wires[("old", 1)] = {"kind": "activated", "player": 0, "card": "p0.m1", "link": 1}
    wires[("old", 2)] = {"kind": "duel_started", "first_player": 0, "players": ["a", "b"]}
    wires[("old", 3)] = {"kind": "special_summoned", "card": "p0.x1", "zone": 5, "method": "link", "v": 2}
    for wire in wires.values():                   # each sample shape first: its maker is kept
        assert from_trusted_dict(wire) == _generic(wire)
    shapes = [(EVENT_TYPES[wire["kind"]], wire.get("v", 1), tuple(wire)) for wire in wires.values()]
    assert all(events._SHAPED[shape] is not events._trusted for shape in shapes)   # each written for its shape
    others = (None, 7, -1, 1.5, True, "zz", "", [], [1], ["a"], {"a": 1}, [0, "gy"], [0, "zz"])
    tried = 0
    for wire in wires.values():
        variants = [wire, {**wire, "extra": 1}, {**wire, "v": 1}, {**wire, "v": "x"}]
        variants += [{k: v for k, v in wire.items() if k != name} for name in wire if name != "kind"]
        variants += [{**wire, name: other} for name in wire if name not in ("kind", "v") for other in others]
        for variant in variants:
            assert _built(from_trusted_dict, variant) == _built(_generic, variant), variant
            tried += 1
    assert tried > 2000 and len(events._SHAPED) > 100


@pytest.mark.parametrize("wire, says", [
    ({"kind": "card_moved", "to": [0, "gy"], "reason": "destroyed"}, "missing field 'card'"),
    ({"kind": "nonsense"}, "unknown event kind"),
    ({"kind": "cards_drawn", "player": 0, "count": 1, "cards": 7}, "cards_drawn.cards"),
    (["not", "a", "map"], "an event must be an object"),
])
def test_what_does_not_build_is_refused_as_the_checking_decoder_refuses_it(wire, says):
    with pytest.raises(EventFormatError, match=says):
        from_trusted_dict(wire, "duel d event 3")


# -- records altered behind the store's back --------------------------------------------------------

def _recorded(tmp_path: Path) -> tuple[str, str]:
    url = str(tmp_path / "store.db")
    with Store(url) as store:
        duel = store.create_duel("trusted")
        store.append(duel, list(read_events(DAMAGE)))
    with sqlite3.connect(url) as conn:       # no snapshot: a seek reads, and checks, every event
        conn.execute("DELETE FROM stored_snapshots WHERE originator_id = ?", (duel,))
    return url, duel


def _rows(url: str, duel: str) -> list[tuple[int, dict]]:
    with sqlite3.connect(url) as conn:
        rows = conn.execute("SELECT originator_version, state FROM stored_events WHERE originator_id = ? "
                            "AND originator_version > 0 ORDER BY originator_version", (duel,)).fetchall()
    return [(version, msgpack.unpackb(state)) for version, state in rows]


def _write(url: str, duel: str, version: int, envelope: dict) -> None:
    with sqlite3.connect(url) as conn:
        conn.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = ?",
                     (msgpack.packb(envelope), duel, version))


def _alter(url: str, duel: str, kind: str, field: str, value, *, rechain: bool) -> int:
    """Change ``field`` of the duel's last ``kind`` event to ``value`` behind the
    store's back; with ``rechain`` every hash from there on is computed again, as a forger with the
    database (but not the store's key) can. Returns the event's position."""
    rows = _rows(url, duel)
    version, envelope = [(v, env) for v, env in rows if env["e"]["kind"] == kind][-1]
    envelope["e"][field] = value
    position = version - 1
    if not rechain:
        _write(url, duel, version, envelope)
        return position
    prev = envelope["p"]
    for v, env in rows[position:]:
        if v == version:
            env = envelope
        env["p"], env["h"] = prev, chain.link(prev, v - 1, env["e"], env["t"])
        prev = env["h"]
        _write(url, duel, v, env)
    return position


def test_an_altered_record_is_refused_by_its_chain_naming_duel_and_position(tmp_path):
    url, duel = _recorded(tmp_path)
    position = _alter(url, duel, "cards_drawn", "count", 2, rechain=False)
    with Store(url) as reader, pytest.raises(VerificationError) as refused:
        reader.state_at(duel)
    assert f"duel {duel}: event {position} does not match its hash chain (altered)" in str(refused.value)


def _signed_again(url: str, duel: str) -> None:
    """The duel's last anchor made again for its rechained head and signed with the organiser's
    key: what a forger without that key cannot do (a seek then refuses the record as not vouched
    for: test_seek_seal.py), and what reaches the decoder here."""
    from ygoreplay.signing import OrganiserKey
    from ygoreplay.store import Head
    key = OrganiserKey.load()
    with sqlite3.connect(url) as conn:
        version, state = conn.execute("SELECT originator_version, state FROM stored_events WHERE originator_id = ? "
                                      "ORDER BY originator_version DESC LIMIT 1", (f"{duel}/head",)).fetchone()
        anchor = Head.from_dict(msgpack.unpackb(state))
        unsigned = Head(anchor.count, _rows(url, duel)[-1][1]["h"], anchor.header, anchor.cards, anchor.status,
                        key.public.raw, b"", anchor.effects)
        message = unsigned.message(duel)
        head = Head(*[*vars(unsigned).values()][:6], key.sign(message), anchor.effects, key.mac(message))
        conn.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = ?",
                     (msgpack.packb(head.to_dict()), f"{duel}/head", version))


def test_a_rechained_record_that_does_not_build_is_refused_naming_duel_and_position(tmp_path):
    url, duel = _recorded(tmp_path)
    position = _alter(url, duel, "cards_drawn", "cards", 7, rechain=True)
    with Store(url) as reader, pytest.raises(VerificationError, match=f"duel {duel}: its events up to"):
        reader.state_at(duel)                                # no key: not vouched for by its anchor
    _signed_again(url, duel)
    with Store(url) as reader, pytest.raises(StoreError) as refused:
        reader.state_at(duel)
    assert str(refused.value).startswith(f"duel {duel} event {position}: the stored record cannot be decoded")
    assert "cards_drawn.cards" in str(refused.value)


def test_a_rechained_record_that_breaks_the_fold_is_refused_naming_duel_and_position(tmp_path):
    """Trusted, ``count`` "2" builds; the fold then fails on it, and the record is read again,
    checked: a message, not a TypeError's traceback."""
    url, duel = _recorded(tmp_path)
    position = _alter(url, duel, "cards_drawn", "count", "2", rechain=True)
    with Store(url) as reader:
        assert not reader.verify(duel).ok                     # verify says the anchors no longer hold
    _signed_again(url, duel)
    with Store(url) as reader, pytest.raises(StoreError) as refused:
        reader.state_at(duel)
    assert str(refused.value).startswith(f"duel {duel} event {position}: the stored record cannot be decoded")
    assert "cards_drawn.count" in str(refused.value)


def _made(make, values):
    """What a maker makes of ``values``: the event (its class and fields), or its error."""
    try:
        event = make(values)
    except (TypeError, KeyError) as exc:
        return type(exc), exc.args
    return type(event), repr(event), event


def test_both_tiers_of_a_kinds_maker_build_the_same_events_and_refuse_alike():
    """A kind's first events are built by a loop over its fields, the rest by the maker compiled
    for it (issue 25): for every sample event, as written and with each of its fields dropped or
    given a value of another type or outside its vocabulary, both tiers, with the trusted decode's
    checks and without, give the same event or the same error."""
    import ygoreplay.match.events  # noqa: F401  (registers the match kinds)
    paths = [p for p in sorted(REPLAYS.rglob("*.jsonl")) if "illegal" not in p.parts]
    wires = {}
    for path in paths:
        for e in read_events(path):
            wires.setdefault(e.kind, []).append(msgpack.unpackb(msgpack.packb(e.to_dict())))
    others = (None, 7, -1, 1.5, True, "zz", "", [], [1], {"a": 1}, [0, "gy"])
    tried = 0
    for kind, records in wires.items():
        cls = EVENT_TYPES[kind]
        events._trusted_plan(cls)
        for checks in (None, events._TRUSTED_CHECKS[cls]):
            generic, compiled = events._maker(cls, checks), events._compiled_maker(cls, checks)
            for wire in records[:20]:
                variants = [wire, from_dict(wire).to_dict()]
                variants += [{k: v for k, v in wire.items() if k != name} for name in wire]
                variants += [{**wire, name: other} for name in wire if name not in ("kind", "v") for other in others]
                for variant in variants:
                    assert _made(generic, variant) == _made(compiled, variant), (kind, checks is None, variant)
                    tried += 1
    assert tried > 5000


def test_a_kinds_maker_is_compiled_once_it_has_built_many_of_the_kind(monkeypatch):
    """A short read compiles no maker; a long one builds with the compiled maker, which takes the
    step-by-step one's place (the same events either way)."""
    monkeypatch.setattr(events, "_MAKERS", {})
    monkeypatch.setattr(events, "_COMPILE_AFTER", 3)
    compiled, compile_maker = [], events._compiled_maker
    monkeypatch.setattr(events, "_compiled_maker", lambda cls, checks: compiled.append(cls) or compile_maker(cls, checks))
    wire = {"kind": "turn_started", "turn": 2, "player": 1}
    cls = EVENT_TYPES["turn_started"]
    built = [from_dict(wire) for _ in range(3)]
    assert compiled == []
    first = events._MAKERS[cls]
    built += [from_dict(wire) for _ in range(3)]
    assert compiled == [cls] and events._MAKERS[cls] is not first
    assert all(event == built[0] and type(event) is cls for event in built)
