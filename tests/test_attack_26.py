"""Attack 26: what this morning's doors (board pictures, link previews, oEmbed, the round page,
seeking from snapshots) gave away or took on trust, each tried as an outsider with a spectator
link, a player with their own token, or someone with write access to the database file."""
from __future__ import annotations

import msgpack

from test_store import _set_state, _state, execute  # noqa: F401
from test_store_cli import DAMAGE, clean, record, run
from test_store import store_url  # noqa: F401  (the fixture)


def _altered_lp(url: str, duel: str, position: int) -> None:
    """Event #position's amount changed in the database, the row still decoding (its hash not)."""
    env = msgpack.unpackb(_state(url, duel, position + 1))
    assert env["e"]["kind"] == "life_points_changed", env["e"]
    env["e"]["amount"] = env["e"]["amount"] + 1000
    _set_state(url, duel, position + 1, msgpack.packb(env))


def test_a_board_read_from_a_snapshot_refuses_an_event_altered_after_it(store_url):  # noqa: F811
    """``show --at N`` resumes from the nearest snapshot and folded the stored events after it
    without checking them against the chain: an amount changed in the database was shown as the
    board, with no sign (only ``verify`` said BROKEN). The events a board folds are checked
    from the snapshot's chain hash (or the header's root): the board is refused, naming the event."""
    duel = record(store_url, DAMAGE)
    events = [msgpack.unpackb(_state(store_url, duel, v + 1))["e"] for v in range(89)]
    position = next(i for i, e in enumerate(events) if e["kind"] == "life_points_changed" and i > 64)
    assert position + 2 <= 88
    clean(run("show", duel, "--at", str(position + 2), url=store_url), 0)
    _altered_lp(store_url, duel, position)
    assert run("verify", duel, url=store_url).stdout.startswith(f"{duel}: BROKEN at event {position}")
    for at in sorted({position, position + 2, 88}):      # past the last snapshot (64): folded from it
        shown = run("show", duel, "--at", str(at), url=store_url)
        clean(shown, 1)
        assert f"event {position} does not match its hash chain (altered)" in shown.output, shown.output
    early = run("show", duel, "--at", str(position - 1), url=store_url)     # a board before it still shows
    clean(early, 0)
