"""A kind made on its first use (``events._lazy``) is seen by another thread only once it is
whole: a thread that decodes while another is still making the kind waits for it, instead of
finding the class registered without its vocabularies and planning its decode without them for
good (a ``step_entered`` of step ``"bogus"`` accepted; LOG-01's closed vocabularies). attack21c."""
from __future__ import annotations

import subprocess
import sys
import textwrap

from conftest import ROOT

# Run in a fresh process (no kind made yet). Thread A makes ``step_entered`` and is held, by a
# trace, at the line of ``event_kind`` that registers the kinds' vocabularies; thread B then
# decodes a record of that kind with a step no vocabulary holds. A waits until B is done, or
# waits in ``events.__getattr__`` (for the kind being made): no timing decides the outcome.
_SCRIPT = textwrap.dedent('''
    import inspect, sys, threading
    from ygoreplay import events
    lines, first = inspect.getsourcelines(events.event_kind)
    held_at = first + next(i for i, line in enumerate(lines) if "_CHOICES_BY_KIND.update" in line)
    held, b_done, outcome = threading.Event(), threading.Event(), []

    def b_waits() -> bool:
        frame = sys._current_frames().get(b.ident)
        while frame is not None:
            if frame.f_code is events.__getattr__.__code__:
                return True
            frame = frame.f_back
        return False

    def trace(frame, event, arg):
        if frame.f_code is not events.event_kind.__code__:
            return None
        def line(frame, event, arg):
            if event == "line" and frame.f_lineno == held_at and not held.is_set():
                held.set()
                while not b_done.wait(0.01) and not b_waits():
                    pass
            return line
        return line

    def a() -> None:
        sys.settrace(trace)
        events.kind_class("step_entered")
        sys.settrace(None)

    def decode() -> None:
        try:
            events.from_dict({"kind": "step_entered", "step": "bogus", "player": 0})
            outcome.append("accepted")
        except events.EventFormatError as exc:
            outcome.append(str(exc))
        b_done.set()

    b = threading.Thread(target=decode)
    ta = threading.Thread(target=a)
    ta.start()
    held.wait()
    b.start()
    ta.join()
    b.join()
    decode()                               # and after: the plan it made is kept
    print(outcome[0])
    print(outcome[1])
''')


def test_a_kind_being_made_is_decoded_with_its_vocabularies_in_another_thread():
    done = subprocess.run([sys.executable, "-c", _SCRIPT], cwd=ROOT, capture_output=True, text=True, check=True)
    during, after = done.stdout.splitlines()
    assert "'bogus' is not one of start, battle, damage, end" in during, done.stdout
    assert "'bogus' is not one of start, battle, damage, end" in after, done.stdout
