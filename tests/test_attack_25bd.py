"""Attacks of the twenty-first pass (issue 25, attack25bd): what a client sends is answered with
a refusal naming what is wrong, never the service's failure (no 5xx for what a client asks)."""
from __future__ import annotations

import pytest

from test_release import ORGANISER, client, store  # noqa: F401  (fixtures: an in-process service)

_MATCH = {"players": ["Yugi", "Kaiba"], "banlist": {"name": "x", "limits": []}}


@pytest.mark.parametrize("policy", [[], {}, ["tcg-2024"], {"tcg-2024": 1}])
def test_a_match_whose_policy_is_a_list_or_object_is_refused_naming_it(client, policy):  # noqa: F811
    """``POST /matches {"policy": []}``: the policy was looked up by its value in the policies'
    table, and a list or object (no name, not hashable) failed the service (500, TypeError). It
    is refused as any other policy that is none of them: 400 naming ``policy``."""
    answer = client.post("/matches", json={**_MATCH, "policy": policy}, headers=ORGANISER)
    assert answer.status_code == 400
    assert answer.json()["where"] == "policy"
    assert "tcg-2024" in answer.json()["error"]
