"""Attack on the sixteenth pass's merges (attack25ap).

* ``ygoreplay release SPEC`` (doors16) resolved SPEC as a duel's prefix first and as a match's
  only when no duel had it: a prefix typed for a match that a duel shares released the duel, for
  good (what it hid becomes every reader's at its end). A prefix naming both is refused, naming
  both, and nothing is written.
"""
from __future__ import annotations

from click.testing import CliRunner

from test_doors_16 import _match, _released
from test_release import REPLAYS, client, store  # noqa: F401  (fixtures)
from ygoreplay.access import Access
from ygoreplay.cli import main
from ygoreplay.jsonl import read_events


def test_a_prefix_a_duel_and_a_match_share_releases_neither(store, client):  # noqa: F811
    """A release is for good: ``release 3f2a`` typed for match 3f2a… must not release duel 3f2a…
    (under the ``event`` policy, its hand and deck order every reader's at its end)."""
    match = _match(client)
    prefix = match["id"][:4]
    duel_id = prefix + ("0" if match["id"][4] != "0" else "1") + "0" * 7
    events = read_events(REPLAYS / "won-by-damage.jsonl")[:10]
    store.record(events, "a side event's duel", stream_id=duel_id,
                 attachments={"access": Access("private", release="event").to_dict()})
    done = CliRunner().invoke(main, ["release", prefix, "--store", store.path])
    assert done.exit_code == 2 and duel_id in done.output and match["id"] in done.output, done.output
    assert not _released(store, duel_id) and not _released(store, match["id"])
    said = CliRunner().invoke(main, ["--lang", "ja", "release", prefix, "--store", store.path])
    assert said.exit_code == 2 and "両方を指す" in said.output and match["id"] in said.output, said.output
    # a prefix of one only goes on as before: the duel's, then the match's
    assert CliRunner().invoke(main, ["release", duel_id[:6], "--store", store.path]).exit_code == 0
    assert _released(store, duel_id)
    assert CliRunner().invoke(main, ["release", match["id"][:6], "--store", store.path]).exit_code == 0
    assert _released(store, match["id"])


def test_a_file_imported_again_is_named_on_one_line(store, tmp_path):  # noqa: F811
    """files16 escaped every error line; the single file's 'already stored' line still printed
    its name raw: a name with a line break forged a line of its own on the judge's terminal."""
    from test_release import judge_file
    path = tmp_path / "table 3.ygr\nall.ygr: verified, nothing to see"
    path.write_bytes(judge_file(store))
    runner = CliRunner()
    assert runner.invoke(main, ["import", str(path), "--store", store.path]).exit_code == 0
    again = runner.invoke(main, ["import", str(path), "--store", store.path])
    assert again.exit_code == 0 and "already stored" in again.stderr, again.output
    assert "table 3.ygr\\nall.ygr" in again.stderr and "\nall.ygr" not in again.stderr, again.stderr
