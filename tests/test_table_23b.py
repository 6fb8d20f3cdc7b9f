"""Twenty-third pass at the paper table, second table: what the rules refuse now is told apart.

SUM-01: a hand card of the player whose turn it isn't was offered *Normal Summon* as any other
action; with the duel's warnings off (a witnessed duel's default) nothing said so until it was
stored and flagged. Where the verdicts are shown (warnings on, the judge), each action the rules
refuse now carries ``breaks``, its rule IDs (read off the view's own board: it tells nothing the
view does not see), so a page files it apart; with warnings off nothing says so in any shape (a
warning would help a player): the page orders the actions by what is likely now.
"""
from __future__ import annotations

from test_release import auth, client, store  # noqa: F401  (fixtures)
from test_service_table_recording import VORSE, at_the_table


def _actions(client, duel: dict, role: str, card: str, shows: str = "") -> dict:  # noqa: F811
    r = client.get(f"/duels/{duel['id']}/actions", params={"card": card, "shows": shows},
                   headers=auth(duel["tokens"][role]))
    assert r.status_code == 200, r.text
    return {a["label"]: a for a in r.json()["actions"]}


def test_a_normal_summon_out_of_turn_is_told_apart_where_verdicts_are_shown(client) -> None:  # noqa: F811
    """With the duel's warnings on, the recorder's action says the rules it breaks (``breaks``), so
    the page files it apart; the judge's always does."""
    duel, _ = at_the_table(client, warnings=True)
    theirs = _actions(client, duel, "recorder", "p1.m0", f"p1.m0:{VORSE}")    # player 0's turn
    assert theirs["Normal Summon"]["breaks"] == ["SUM-01"] and theirs["Normal Summon"]["verdict"] == "illegal"
    assert "breaks" not in theirs["Send to the GY"]                            # a discard: allowed now
    mine = _actions(client, duel, "recorder", "p0.m0", f"p0.m0:{VORSE}")
    assert "breaks" not in mine["Normal Summon"]


def test_with_warnings_off_the_recorder_is_told_no_rule_in_any_shape(client) -> None:  # noqa: F811
    """In sanctioned play (a witnessed duel's default: warnings off) a warning would help a player:
    neither a verdict nor the rules an action breaks reach the recorder's page; the judge's do."""
    duel, _ = at_the_table(client)
    theirs = _actions(client, duel, "recorder", "p1.m0", f"p1.m0:{VORSE}")
    assert not any({"verdict", "rules", "breaks"} & set(action) for action in theirs.values()), theirs
    judged = _actions(client, duel, "judge", "p1.m0", f"p1.m0:{VORSE}")["Normal Summon"]
    assert (judged["verdict"], judged["rules"], judged["breaks"]) == ("illegal", ["SUM-01"], ["SUM-01"])
