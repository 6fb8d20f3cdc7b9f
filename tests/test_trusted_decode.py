"""The store's trusted decode path (issue 25): events read back from records whose hash chain was
just checked are built without checking every field again (``events.from_trusted_dict``), and
still a record altered behind the store's back is refused with a message naming the duel and the
position, never a traceback: unchained, by its chain; rechained, by the checking decoder."""
from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import sqlite3
import sys
from pathlib import Path

import msgpack
import pytest

from ygoreplay import chain, events
from ygoreplay.errors import StoreError, VerificationError
from ygoreplay.events import EVENT_TYPES, UPCASTERS, EventFormatError, from_dict, from_trusted_dict
from ygoreplay.jsonl import read_events
from ygoreplay.store import Store

from conftest import shared_path

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


def test_a_record_is_built_by_the_maker_of_its_shape_as_the_generic_way_builds_it(monkeypatch):
    """Each shape of record (kind, version, keys) has a maker written for it (issue 25): for every
    sample event, as written and with each of its fields dropped or given a value of another
    type or outside its vocabulary, it builds the same event, or is refused with the same
    message, as upcasting and checking the record field by field does."""
    import ygoreplay.match.events  # noqa: F401  (registers the match kinds)
    monkeypatch.setattr(events, "_SHAPE_COMPILE_AFTER", 0)   # every shape's maker written at its first record
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
    shapes = [(wire["kind"], wire.get("v", 1), tuple(wire)) for wire in wires.values()]
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


# -- events built through a twin of their kind (issue 25, sixth pass) ------------------------------

def _wires_of(events_read):
    """Each event with its record as the store holds it (msgpack: lists, not tuples)."""
    return [(e, msgpack.unpackb(msgpack.packb(e.to_dict()))) for e in events_read]


def _fields(event):
    return [(f.name, type(getattr(event, f.name)), getattr(event, f.name)) for f in dataclasses.fields(event)]


def _alike(event, record, compiled):
    """``record`` built trusted (by its shape's maker), checked and by its kind's compiled maker is
    ``event``: its class (never the twin it was filled as), fields and their types, wire form,
    equality, hash and repr."""
    cls = type(event)
    if cls not in compiled:
        compiled[cls] = events._compiled_maker(cls, None)
    kwargs = {name: value for name, _t, value in _fields(event)}
    for made in (from_trusted_dict(record), from_dict(record), compiled[cls](kwargs)):
        assert type(made) is cls and _fields(made) == _fields(event), (record, made)
        assert made.to_dict() == event.to_dict() == record
        assert made == event and _hashed(made) == _hashed(event) and repr(made) == repr(event)


def _hashed(event):
    """The event's hash, or the error of one holding a mutable value (a match's banlist)."""
    try:
        return hash(event)
    except TypeError as exc:
        return str(exc)


def test_an_event_filled_as_a_twin_is_its_kind_frozen_and_picklable():
    """The makers fill a twin of the kind (``events._twin``: plain slot stores) and make it the
    kind: what comes out is the event ``Kind(**fields)`` makes, immutable, and pickles and copies as it."""
    import ygoreplay.match.events  # noqa: F401  (registers the match kinds)
    paths = [p for p in sorted(REPLAYS.rglob("*.jsonl")) if "illegal" not in p.parts]
    seen = set()
    for path in paths:
        for event, record in _wires_of(read_events(path)):
            if (event.kind, tuple(record)) in seen:
                continue
            seen.add((event.kind, tuple(record)))
            cls = type(event)
            kwargs = {name: value for name, _t, value in _fields(event)}
            made = cls(**kwargs)                                     # the kind's own __init__
            for built in (from_trusted_dict(record), events._compiled_maker(cls, None)(kwargs)):
                assert type(built) is cls and built == made and _hashed(built) == _hashed(made)
                assert pickle.loads(pickle.dumps(built)) == made and copy.deepcopy(built) == made
                assert dataclasses.replace(built) == made
                name = dataclasses.fields(cls)[0].name
                with pytest.raises(dataclasses.FrozenInstanceError):
                    setattr(built, name, None)
                with pytest.raises(dataclasses.FrozenInstanceError):
                    delattr(built, name)
    assert len({kind for kind, _keys in seen}) > 30
    for cls in EVENT_TYPES.values():             # every kind's twin has its layout (none in a sample too)
        values = {f.name: None for f in dataclasses.fields(cls)}
        assert type(events._compiled_maker(cls, None)(values)) is cls


def test_every_real_duel_sample_and_synthetic_duel_builds_the_same_events_either_way():
    """The 100 real EDOPro duels, every sample of ``replays/`` (JSON Lines and ``.ygr``, the
    illegal ones too) and synthetic duels of three seeds: each record builds, trusted (the store's
    own records), checked (``from_dict``) and by the compiled makers, the event it was written from."""
    from ygoreplay.replay_file import read
    from ygoreplay.yrpx import YrpxError, import_yrpx
    sys.path.insert(0, str(REPLAYS.parent / "bench"))
    from synthetic import generate
    duels = [generate(3_000, seed) for seed in (1, 2, 3)]
    duels += [read_events(path) for path in sorted(REPLAYS.rglob("*.jsonl"))]
    duels += [read(path).events for path in sorted(REPLAYS.rglob("*.ygr"))]
    real = 0
    for path in sorted(shared_path("real-replays", "edopro").glob("*.yrpX")):
        try:
            duels.append(import_yrpx(path).events)
            real += 1
        except YrpxError:
            continue
    count, compiled = 0, {}
    for duel in duels:
        for event, record in _wires_of(duel):
            _alike(event, record, compiled)
            count += 1
    assert real >= 100 and count > 30_000


def test_an_old_file_still_loads_on_the_fast_path(tmp_path):
    """A duel of the first file format (``tests/fixtures/v1``), recorded and read back through the
    store's trusted path (a seek, with no snapshot: every record built by its shape's maker):
    records of older versions of their kind are still upcast, and the board is the checked fold's."""
    from ygoreplay.rules import History
    old = read_events(Path(__file__).resolve().parent / "fixtures" / "v1" / "won-by-damage.jsonl")
    url = str(tmp_path / "store.db")
    with Store(url) as store:
        duel = store.create_duel("old")
        store.append(duel, list(old))
    with sqlite3.connect(url) as conn:
        conn.execute("DELETE FROM stored_snapshots WHERE originator_id = ?", (duel,))
    records = [envelope["e"] for _v, envelope in _rows(url, duel)]
    upcast = [r for r in records if EVENT_TYPES[r["kind"]].VERSION > r.get("v", 1)]
    assert {r["kind"] for r in upcast} >= {"duel_started", "card_moved", "activated"}
    assert [from_trusted_dict(r) for r in records] == [from_dict(r) for r in records] == list(old)
    with Store(url) as reader:
        history = History(reader.cards_of(duel)[0], audit=True)
        for event in old:
            history.append(event)
        assert reader.state_at(duel).to_data() == history.state.to_data()


@pytest.mark.parametrize("bad", [
    {"kind": "cards_drawn", "player": 7, "count": 1, "cards": ["p0.m1"]},
    {"kind": "life_points_changed", "player": 0, "amount": "1000", "reason": "cost", "lp": 7000},
    {"kind": "card_moved", "card": "p0.m1", "to": [0, "nowhere"], "reason": "destroyed"},
])
def test_untrusted_input_with_a_malformed_event_is_still_refused(tmp_path, bad):
    """The fast makers serve both decoders; what comes from outside (a JSON Lines file, an HTTP
    body, a replay file) still goes through ``from_dict``, which checks every field."""
    from ygoreplay.errors import InputError
    from ygoreplay.service.common import HTTPError, _events
    lines = DAMAGE.read_text().splitlines()
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join([*lines[:5], json.dumps(bad), *lines[5:]]) + "\n")
    with pytest.raises(InputError, match=bad["kind"]):
        list(read_events(path))
    with pytest.raises(HTTPError) as refused:
        _events([bad])
    assert refused.value.status == 400
    with pytest.raises(EventFormatError, match=bad["kind"]):
        from_dict(bad)


def test_a_followers_read_builds_trusted_only_what_follows_the_chain(tmp_path):
    """``chained_after`` (a live duel's followers) checks each record against the chain first and
    builds only those that follow it, trusted: the events are the checked decoder's, and an altered
    record that no longer decodes breaks the chain as any altered one does (nothing is shown from
    it on, or from the last signed anchor before it), where it raised StoreError before."""
    url, duel = _recorded(tmp_path)
    with Store(url) as reader:
        root = reader.header(duel).root
        read, broken = reader.chained_after(duel, 0, root)
        assert broken is None and [r.event for r in read] == [r.event for r in reader.records(duel)]
    position = _alter(url, duel, "cards_drawn", "cards", 7, rechain=False)
    with Store(url) as reader:
        read, broken = reader.chained_after(duel, 0, root)
    assert broken is not None and broken <= position and all(r.position < broken for r in read)


def test_a_shape_is_built_the_generic_way_until_it_has_been_read_often():
    """A maker is written for a shape only once ``_SHAPE_COMPILE_AFTER`` of its records were built by
    ``_trusted`` (a seek reads a few dozen records in a handful of shapes: writing their makers
    was 2.4% of a fresh ``show DUEL --at N``, issue 25); every record is the same event either way."""
    wire = {"kind": "phase_entered", "player": 1, "phase": "standby", "v": 1}     # a shape no sample has
    shape = (wire["kind"], 1, tuple(wire))
    events._SHAPED.pop(shape, None)
    events._SHAPE_USES.pop(shape, None)
    first = from_trusted_dict(wire)
    assert shape not in events._SHAPED and events._SHAPE_USES[shape] == 1
    for _ in range(events._SHAPE_COMPILE_AFTER - 1):
        assert from_trusted_dict(wire) == first
    assert shape not in events._SHAPED
    assert from_trusted_dict(wire) == first == _generic(wire)
    assert events._SHAPED[shape] is not events._trusted and shape not in events._SHAPE_USES
    assert from_trusted_dict(wire) == first
