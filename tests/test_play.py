"""`ygoreplay play` (issue 15): the Textual viewer driven through its own pilot, the real command
in a real terminal (tmux), and the line-by-line fallback when there is no terminal."""
from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ygoreplay.cards import CardDB
from ygoreplay.cli import main
from ygoreplay.source import SourceError, open_source
from ygoreplay.study import Study
from ygoreplay.tui import PlayApp

ROOT = Path(__file__).resolve().parent.parent
DAMAGE = ROOT / "replays" / "won-by-damage.jsonl"
SPECTATOR = ROOT / "replays" / "won-by-damage.spectator.ygr"


def study_of(path: Path = DAMAGE, view: str | None = None) -> Study:
    return Study(open_source(str(path), None, CardDB.classic()), view)


def drive(app: PlayApp, *keys: str, size=(100, 60), probe=None):
    """Press keys in the app through Textual's pilot; what the screen shows after each group
    (and what ``probe(app)`` says, while the app runs)."""
    seen = []

    async def go() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            for group in keys:
                await pilot.press(*group.split(" ")) if group else None
                await pilot.pause()
                seen.append((app.study.index, app.study.view, app.message, _screen(app), probe and probe(app)))
    asyncio.run(go())
    return seen


def _screen(app: PlayApp) -> str:
    from rich.console import Console
    console = Console(width=app.size.width, record=True, file=open("/dev/null", "w"), color_system=None)
    for part in app.shown:
        console.print(part)
    return console.export_text()


def test_arrows_step_shift_arrows_go_by_turn_and_the_board_is_redrawn():
    app = PlayApp(study_of())
    seen = drive(app, "right right", "left", "shift+right", "shift+right", "shift+left", "end", "home",
                 "right_square_bracket", "left_square_bracket")
    assert [s[0] for s in seen] == [2, 1, 5, 12, 5, 88, 0, 5, 0]
    assert "event #88/88" in seen[5][3] and "duel over: Yugi (player 0) wins (lp)" in seen[5][3]
    assert "▶ #5     T1 --  Turn 1 begins: Yugi" in seen[2][3]


def test_go_to_an_event_a_turn_or_a_card_and_search():
    app = PlayApp(study_of())
    seen = drive(app, "g 6 0 enter", "g t 4 enter", "g t 9 9 enter", "g r a i g e k i enter",
                 "slash c y l i n d e r enter", "n", "N", "g 9 9 9 enter")
    assert [s[0] for s in seen] == [60, 44, 44, 70, 3, 10, 3, 88]
    assert "the duel has no turn 99" in seen[2][2]
    assert "“cylinder”" in seen[4][2]
    assert "no event 999: the last is #88" in seen[7][2]


def test_what_an_event_changed_is_marked_on_the_board():
    app = PlayApp(study_of())
    app.study.go(59)
    seen = drive(app, "right", "right", probe=lambda app: (_styled(app, "LP 4400"), _styled(app, "LP 8000")))
    assert seen[0][0] == 60 and app.study.index == 61
    changed, unchanged = seen[0][4]
    assert "reverse" in changed and "reverse" not in unchanged         # Kaiba's LP changed, Yugi's did not
    assert "reverse" not in seen[1][4][0]                              # and the next event leaves it be


def _styled(app: PlayApp, text: str) -> str:
    """The style the board gives ``text``."""
    from rich.console import Console
    console = Console(width=100, file=open("/dev/null", "w"), color_system="standard", force_terminal=True)
    for line in console.render_lines(app.shown[1], console.options):
        plain = "".join(segment.text for segment in line)
        if text in plain:
            return " ".join(str(segment.style) for segment in line if text.split()[0] in segment.text)
    return ""


def test_the_view_switch_goes_round_the_views_a_file_holds():
    app = PlayApp(study_of())
    app.study.go(10)
    seen = drive(app, "v", "v", "v", "v")
    assert [s[1] for s in seen] == ["p0", "p1", "spectator", "judge"]
    assert "Magic Cylinder" in seen[0][3] and "Yugi Sets a card in S1" in seen[2][3]
    only = PlayApp(study_of(SPECTATOR))
    seen = drive(only, "v")
    assert seen[0][1] == "spectator" and "holds the spectator view only" in seen[0][2]


def test_escape_closes_the_prompt_and_a_narrow_terminal_keeps_the_board_whole():
    app = PlayApp(study_of())
    seen = drive(app, "g escape", "right", size=(80, 24))
    assert seen[1][0] == 1
    assert max(len(line.rstrip()) for line in seen[1][3].splitlines()) <= 80


def test_a_study_refuses_what_cannot_be():
    study = study_of(SPECTATOR)
    with pytest.raises(SourceError, match="cannot show the judge view"):
        study.switch("judge")
    assert study.view == "spectator"
    with pytest.raises(SourceError, match="unknown view"):
        study.switch("p3")
    assert study.find("   ") is None and study.go(-5) == 0 and study.step(500) == 88


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_play_in_a_real_terminal(tmp_path):
    """The command itself in tmux: keys typed, the screen read back, q quits."""
    name = f"ygoreplay-test-{tmp_path.name}"[:40]
    command = f"{sys.executable} -m ygoreplay play {DAMAGE}"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "100", "-y", "50", command], check=True)
    try:
        def screen() -> str:
            return subprocess.run(["tmux", "capture-pane", "-t", name, "-p"], capture_output=True, text=True).stdout

        def wait_for(text: str) -> str:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                shown = screen()
                if text in shown:
                    return shown
                time.sleep(0.2)
            raise AssertionError(f"{text!r} never appeared:\n{screen()}")

        wait_for("event #0/88")
        subprocess.run(["tmux", "send-keys", "-t", name, "Right", "Right"], check=True)
        wait_for("event #2/88")
        subprocess.run(["tmux", "send-keys", "-t", name, "S-Right"], check=True)
        shown = wait_for("event #5/88")
        assert "Turn 1 begins: Yugi" in shown and "│M0" in shown
        subprocess.run(["tmux", "send-keys", "-t", name, "g"], check=True)
        wait_for("go to:")
        subprocess.run(["tmux", "send-keys", "-t", name, "60", "Enter"], check=True)
        shown = wait_for("event #60/88")
        assert "LP 4400" in shown
        subprocess.run(["tmux", "send-keys", "-t", name, "q"], check=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and name in subprocess.run(
                ["tmux", "ls"], capture_output=True, text=True).stdout:
            time.sleep(0.2)
        assert name not in subprocess.run(["tmux", "ls"], capture_output=True, text=True).stdout
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def test_without_a_terminal_play_reads_commands_line_by_line():
    result = CliRunner().invoke(main, ["play", str(DAMAGE)], input="n\nf cylinder\nf nothing-at-all\nt 4\nq\n")
    assert result.exit_code == 0, result.output
    headings = [line for line in result.output.splitlines() if line.startswith("event #")]
    assert [h.split(":")[0] for h in headings] == ["event #0/88", "event #1/88", "event #3/88", "event #3/88",
                                                    "event #44/88"]
    assert "no other event names 'nothing-at-all'" in result.output
    plain = CliRunner().invoke(main, ["play", str(DAMAGE), "--plain"], input="q\n")
    assert plain.exit_code == 0 and "event #0/88" in plain.output


WITNESSED = ROOT / "replays" / "witnessed-illegal-play.jsonl"


def _called(tmp_path: Path) -> Path:
    """The witnessed sample (#18 flagged SUM-01 and disputed) with a judge call entered at its end."""
    path = tmp_path / "called.jsonl"
    call = '{"kind": "judge_note", "category": "call", "judge": "", "note": "was it a second Normal Summon?", ' \
           '"entered_by": "recorder"}\n'
    path.write_text(WITNESSED.read_text() + call)
    return path


def test_c_jumps_to_the_next_judge_call_flag_or_dispute_and_shift_c_back(tmp_path):
    """A judge reviewing a witnessed duel goes from one call (or flag) to the next, not event by event."""
    study = study_of(_called(tmp_path))
    last = study.last
    assert study.next_call(1) == 18 and study.next_call(1) == last and study.next_call(1) is None
    assert study.index == last and study.next_call(-1) == 18 and study.next_call(-1) is None
    app = PlayApp(study_of(_called(tmp_path)))
    seen = drive(app, "c", "c", "c", "C", "C")
    assert [s[0] for s in seen] == [18, last, last, 18, 18]
    assert "no later judge call, flag or dispute" in seen[2][2]
    assert "no earlier judge call, flag or dispute" in seen[4][2]
