"""Attacks on issue 25's fourteenth pass, second round (``attack25ad``): what was merged this pass
(a turn change entered twice, a duel linked only into a match no wider than itself, tokens handed
by a match, LOG-12's correction that strikes no judge's note, the request head's bound, TIME-06's
sudden death), reached by another door or a record no one meant.

* LOG-12 / LOG-11: a correction strikes no judge's note, and the same class was left open for a
  player's seal. In a witnessed duel a player's device seals the hidden cards of its own it sees
  (``cards_sealed``): the record's only proof of what the card was. The table's recorder,
  correcting its own draw entry back past the seal, struck it with the play: the card was
  unsealed again, and its player could open it at the end as any card (an unsealed card is
  opened without a nonce), the commitment gone. A seal is struck by its sealer's correction alone.
* ``lp-sheet -o`` wrote the judge's sheet 0644 (``files.mode_for`` asked by every other door).
* ``request_head``: a head bounded in bytes, but not in time: a connection sending nothing or a
  byte at a time was held for ever (slowloris); now 408 after ``HEAD_SECONDS``.
* TIME-05/06: the sudden death's deciding LP change was the first one folded, a change a judge
  rolled back (or its recorder corrected) and the rollback itself included.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from duel import CARDS
from test_seals import two_devices
from ygoreplay.events import CardsSealed, EntryCorrected
from ygoreplay.jsonl import read_events
from ygoreplay.rules import History, RuleViolation

ROOT = Path(__file__).resolve().parent.parent


# -- LOG-12: a correction strikes no other's seal (LOG-11) ---------------------------------------------

def _sealed_draw() -> tuple[list, int]:
    """A witnessed two-device record of a sample duel, each entry stamped with who entered it
    (the seals their players', the rest the table's recorder), up to a turn's draw (recorder)
    and its player's seal of the card drawn; and the seal's index."""
    events, _kept = two_devices(read_events(ROOT / "replays" / "won-by-damage.jsonl"))
    events[0] = dataclasses.replace(events[0], witnessed=True)
    stamped = [dataclasses.replace(e, entered_by=f"p{e.player}" if isinstance(e, CardsSealed) else "recorder")
               for e in events]
    history = History(CARDS)
    for index, event in enumerate(stamped):
        if isinstance(event, CardsSealed) and history.state.turn >= 1 and history.state.turn_began < index - 1:
            return stamped[:index + 1], index
        history.append(event)
    raise AssertionError("no seal after a draw within a turn")


def test_a_recorders_correction_does_not_strike_a_players_seal():
    """LOG-12/LOG-11: the recorder corrects its draw entry (#16) back past player 1's seal of the
    card drawn (#17): refused, naming the seal; the sealer corrects their own seal, and then the
    recorder's correction of the draw goes as before."""
    record, seal = _sealed_draw()
    history = History(CARDS)
    history.extend(record)
    sealer = record[seal].player
    with pytest.raises(RuleViolation) as refused:
        history.append(EntryCorrected(to=seal - 1, reason="wrong card drawn", entered_by="recorder"))
    assert refused.value.rule == "LOG-12" and f"#{seal}" in refused.value.message
    assert f"player {sealer}'s seal" in refused.value.message
    from ygoreplay import i18n
    with i18n.using("ja"):                                         # translated where shown
        assert i18n.said(refused.value.message).startswith(f"訂正は他人のシールを取り消さない：#{seal} はプレイヤー {sealer}")
    card = record[seal].seals[0][0]
    assert history.state.cards[card].seal is not None            # nothing was struck
    # nor by the other player, whose correction was never theirs to make (their own entries only)
    with pytest.raises(RuleViolation, match="LOG-12|corrects their own"):
        history.append(EntryCorrected(to=seal, reason="no", entered_by=f"p{1 - sealer}"))
    history.append(EntryCorrected(to=seal, reason="sealed the wrong card", entered_by=f"p{sealer}"))
    assert history.state.cards[card].seal is None
    history.append(EntryCorrected(to=seal - 1, reason="wrong card drawn", entered_by="recorder"))


# -- lp-sheet -o: the judge's sheet is its owner's alone (files.mode_for) ------------------------------

def test_the_judges_lp_sheet_written_to_a_file_is_its_owners_alone(tmp_path):
    """``lp-sheet -o`` wrote every sheet 0644 whatever its view: the judge's (the default for a
    full record) names the cause of each LP change as the judge sees it, hidden cards too, and
    another user of the machine read it. It asks ``files.mode_for`` as every other door that
    writes the judge's record; a spectator's sheet is for sharing."""
    from click.testing import CliRunner

    from ygoreplay.cli import main
    env = {"XDG_DATA_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path), "YGOREPLAY_STORE": str(tmp_path / "s.sqlite")}
    sample = str(ROOT / "replays" / "won-by-damage.jsonl")
    for view, args, mode in (("judge", ["--view", "judge"], 0o600), ("default", [], 0o600),
                             ("judge-csv", ["--view", "judge", "--csv"], 0o600),
                             ("spectator", ["--view", "spectator"], 0o644)):
        out = tmp_path / f"{view}.html"
        ran = CliRunner(env=env).invoke(main, ["lp-sheet", sample, "-o", str(out), *args])
        assert ran.exit_code == 0, ran.output
        assert out.stat().st_mode & 0o777 == mode, view


# -- a request's head has a deadline (slowloris) --------------------------------------------------------

def _served(store, monkeypatch, seconds: float):
    """The service over ``store`` as ``serve`` and ``demo`` run it (``server_settings``), in a
    thread, a head given ``seconds`` to come in."""
    import contextlib
    import socket
    import threading
    import time

    import uvicorn

    from test_service_delay import ADMIN
    from ygoreplay.access import digest
    from ygoreplay.service import create_app
    from ygoreplay.service import request_head
    monkeypatch.setattr(request_head, "HEAD_SECONDS", seconds, raising=False)

    @contextlib.contextmanager
    def serving():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(create_app(store, digest(ADMIN)), host="127.0.0.1", port=port,
                                               log_level="warning", access_log=False, timeout_graceful_shutdown=1,
                                               **request_head.server_settings()))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive(), "the service did not start"
            time.sleep(0.01)
        try:
            yield port
        finally:
            server.should_exit = True
            thread.join(10)
    return serving()


def _answer_within(sock, seconds: float) -> bytes:
    """What the service says on ``sock`` within ``seconds`` (b"" if it closed saying nothing)."""
    import socket
    sock.settimeout(seconds)
    try:
        return sock.recv(4096)
    except socket.timeout:
        return b"<nothing: still open>"


def trickled(sock, piece: bytes, seconds: float) -> bytes:
    """What the service says on ``sock`` while ``piece`` is sent every quarter second, for at
    most ``seconds`` (b"" if nothing: the connection held on, or closed saying nothing)."""
    import time
    started, said = time.monotonic(), b""
    while time.monotonic() - started < seconds and not said:
        try:
            sock.sendall(piece)
        except OSError:
            break
        said = _answer_within(sock, 0.25)
        said = b"" if said == b"<nothing: still open>" else said
    return said


def test_a_request_head_trickled_or_never_sent_is_answered_408_in_time(tmp_path, monkeypatch):
    """uvicorn sets no time for a request's head: a connection that sent nothing, or its head a
    byte every few seconds (under the 64 KiB bound), was held open for ever, and a few hundred of
    them held every file descriptor the process may open (slowloris). A head not whole
    ``request_head.HEAD_SECONDS`` after its connection opened is answered 408 and closed; a
    request sent at once, and a later request of a kept-alive connection after a pause, are
    served as before."""
    import socket
    import time

    from test_service_delay import open_store
    with open_store(tmp_path / "s.sqlite") as store, _served(store, monkeypatch, 1.0) as port:
        with socket.create_connection(("127.0.0.1", port)) as idle:             # says nothing at all
            said = _answer_within(idle, 4)
        assert said.startswith(b"HTTP/1.1 408 "), said[:200]
        with socket.create_connection(("127.0.0.1", port)) as slow:             # a byte at a time
            slow.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
            said = trickled(slow, b"X-Slow: a\r\n", 4)
        assert said.startswith(b"HTTP/1.1 408 ") and b"line and headers" in said, said[:200]
        with socket.create_connection(("127.0.0.1", port)) as kept:             # kept alive between requests
            for _ in range(2):
                kept.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                said = _answer_within(kept, 4)
                assert said.startswith(b"HTTP/1.1 200 "), said[:200]
                time.sleep(1.5)                                                 # longer than a head's time


# -- TIME-06: the LP change that decides a sudden death is one still in the record ---------------------

def test_time_06_a_rolled_back_lp_change_decides_no_sudden_death() -> None:
    """TIME-05/06: in sudden death (2000 / 2000) 1000 damage to player 0 was entered, and the judge
    rolled it back (LOG-02: it did not happen); then player 1 took 500 damage, which decided the
    duel for player 0 at 2000 / 1500. The check took the first LP change it folded, the one
    rolled back, as the decision: the match judging the duel on 2000 / 1500 was reported (LOG-09),
    and one judging it on the rolled-back 1000 / 2000 agreed."""
    import sys
    sys.path.insert(0, str(ROOT / "tests"))
    from test_rule_scenarios_27 import ev
    from test_rule_scenarios_30 import sudden_death_duel
    from test_rule_scenarios_30b import _judged
    from ygoreplay.events import from_dict

    events = sudden_death_duel()[:-2]
    wrong = len(events)
    duel = events + [from_dict(e) for e in (
        ev("life_points_changed", player=0, amount=1000, reason="effect_damage"),
        ev("rolled_back", to=wrong, judge="Head Judge", reason="no damage was dealt"),
        ev("life_points_changed", player=1, amount=500, reason="effect_damage"))]
    assert _judged(duel, [2000, 1500], 0) == []
    problem, = _judged(duel, [1000, 2000], 1)
    assert (problem.rule, problem.index) == ("LOG-09", wrong + 2)
