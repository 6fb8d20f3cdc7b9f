"""Attacks of the twenty-first pass (issue 25, attack25bd): what a client sends is answered with
a refusal naming what is wrong, never the service's failure (no 5xx for what a client asks)."""
from __future__ import annotations

import functools

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


async def _cut_off(app, path: str, token: str) -> list[dict]:
    """What ``app`` sends for a POST whose client goes away after the first bytes of a body of
    the length it stated (the server passes on its ``http.disconnect``)."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
             "scheme": "http", "path": path, "raw_path": path.encode(), "root_path": "", "query_string": b"",
             "headers": [*([(b"authorization", f"Bearer {token}".encode())] if token else []),
                         (b"content-type", b"application/json"), (b"content-length", b"100")],
             "client": ("127.0.0.1", 1), "server": ("test", 80), "state": {}}
    pending = [{"type": "http.request", "body": b'[{"kind": ', "more_body": True}, {"type": "http.disconnect"}]
    sent: list[dict] = []

    async def receive() -> dict:
        return pending.pop(0) if len(pending) > 1 else pending[0]

    async def send(message: dict) -> None:
        sent.append(message)
    await app(scope, receive, send)
    return sent


@pytest.mark.parametrize("door", ["append", "verify", "notes", "create"])
def test_a_client_gone_before_its_body_came_whole_is_no_fault_of_the_service(client, door):  # noqa: F811
    """A client that sends half a body and hangs up (``http.disconnect``): starlette's
    ``ClientDisconnect`` went up unhandled from every route that reads a body, the append's lane
    and the routed stack alike, as the service's own failure: a 500 and its traceback in the log,
    for anyone posting half a body to a public duel's ``/verify``. It is a request that did not
    come whole: 400, nothing written, through every door."""
    duel = client.post("/duels", json={"title": "cut", "visibility": "public"}, headers=ORGANISER).json()
    tokens = duel["tokens"]
    appended = client.post(f"/duels/{duel['id']}/events", json=[], headers={"Authorization": f"Bearer {tokens['recorder']}"})
    assert appended.status_code == 200 and client.app._lane is not None        # the append's lane is built
    path, token = {"append": (f"/duels/{duel['id']}/events", tokens["recorder"]),
                   "verify": (f"/duels/{duel['id']}/verify", ""),
                   "notes": (f"/duels/{duel['id']}/notes", tokens["judge"]),
                   "create": ("/duels", ORGANISER["Authorization"].split()[1])}[door]
    sent = client.portal.call(functools.partial(_cut_off, client.app, path, token))
    assert [m["status"] for m in sent if m["type"] == "http.response.start"] == [400]
    assert b"not a valid HTTP/1.1 request" in b"".join(m.get("body", b"") for m in sent)
    assert client.get(f"/duels/{duel['id']}/events", headers=ORGANISER).text == ""        # nothing written
    assert len(client.get("/duels", headers=ORGANISER).json()) == 1


def test_one_receipt_given_a_thousand_times_is_checked_once(client, monkeypatch):  # noqa: F811
    """``POST /duels/{id}/verify`` is anyone's on a public duel and takes up to 1,000 receipts: one
    receipt sent 1,000 times was checked 2,000 times (its signature, once for what the answer
    doubts and again for what the store holds) and the store read 1,000 times, ~0.7 s of CPU for
    a body of 370 KB. Each receipt is checked once, however often it is given."""
    from ygoreplay import receipts
    duel = client.post("/duels", json={"title": "public", "visibility": "public"}, headers=ORGANISER).json()
    events = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["Yugi", "Kaiba"]}]
    written = client.post(f"/duels/{duel['id']}/events", json=events,
                          headers={"Authorization": f"Bearer {duel['tokens']['recorder']}"})
    receipt = written.json()["receipt"]
    checked = []
    original = receipts.receipt_message            # what a receipt's signature check signs again
    monkeypatch.setattr(receipts, "receipt_message", lambda *args: checked.append(1) or original(*args))
    answer = client.post(f"/duels/{duel['id']}/verify", json=[receipt] * 1000)
    assert answer.status_code == 200 and answer.json()["ok"] is True
    assert len(checked) == 1
