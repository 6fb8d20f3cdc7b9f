"""The terminal viewer of ``ygoreplay play``: a Textual app over a ``Study``.

The board is redrawn in place at every step, what the event changed shown in reverse video, the
log around the event beneath it. It runs in any terminal Textual supports, over SSH too; the keys
have plain-letter twins for terminals that send no Shift+arrow.

=====================  ==============================================================
→ / l, ← / h           next / previous event
Shift+→ / ], Shift+← / [   next turn / start of this turn, then the one before
Home, End              first / last event
g                      go to: ``57`` an event, ``t4`` a turn, any other text the next
                       event naming a card (or holding the text)
/ then n, N            search the log forward; the next / previous match
c, C                   the next / previous judge call, flagged or disputed entry
v                      switch view (judge, p0, p1, spectator: those the file holds)
q                      quit
=====================  ==============================================================
"""
from __future__ import annotations

from dataclasses import replace

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Input, Static

from .i18n import N_, t
from .render import board
from .source import SourceError
from .study import Study
from .text import number, printable

LOG_AROUND = 3          # log lines shown before and after the event


class PlayApp(App):
    """Step through a duel: arrows for events, Shift for turns, g to go, / to search, v for views."""

    TITLE = "ygoreplay play"
    CSS = """
    #title { height: 1; background: $primary; color: $text; }
    #board { height: 1fr; }
    #log { height: 7; border-top: solid $primary; }
    #ask { dock: bottom; display: none; }
    #ask.open { display: block; }
    """
    BINDINGS = [
        Binding("right,l", "step(1)", N_("next")), Binding("left,h", "step(-1)", N_("previous")),
        Binding("shift+right,right_square_bracket", "turn(1)", N_("next turn")),
        Binding("shift+left,left_square_bracket", "turn(-1)", N_("turn back")),
        Binding("home", "go_to(0)", N_("first"), show=False), Binding("end", "go_to(-1)", N_("last"), show=False),
        Binding("g", "ask('go')", N_("go to")), Binding("slash", "ask('search')", N_("search")),
        Binding("n", "again(1)", N_("next match"), show=False),
        Binding("N", "again(-1)", N_("previous match"), show=False),
        Binding("c", "call(1)", N_("next call")), Binding("C", "call(-1)", N_("previous call"), show=False),
        Binding("v", "next_view", N_("view")), Binding("q", "quit", N_("quit")),
        Binding("escape", "cancel", N_("close the prompt"), show=False),
    ]

    def __init__(self, study: Study) -> None:
        super().__init__()
        # the footer's keys in the reader's language: BINDINGS are read when the module is, before
        # a language is chosen, and a judge reading Japanese read "next", "go to", "search"
        self._bindings.key_to_bindings = {
            key: [replace(binding, description=t(binding.description)) for binding in bindings]
            for key, bindings in self._bindings.key_to_bindings.items()}
        self.study = study
        self.asking: str | None = None
        self.searched = ""
        self.message = ""
        self.shown: tuple = ()             # title, board and log as last drawn (rich renderables)

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        with VerticalScroll(id="board"):
            yield Static(id="board-content")
        yield Static(id="log")
        yield Input(id="ask")
        yield Footer()

    def on_mount(self) -> None:
        self.redraw()

    def on_resize(self) -> None:
        self.redraw()

    # -- drawing ----------------------------------------------------------------------------------

    def redraw(self) -> None:
        """Title, board and log for the event shown; the board with what it changed marked."""
        study = self.study
        entry = study.entry
        where = t("event #{index}/{last}", index=study.index, last=study.last)
        title = Text(f" {printable(study.source.name)} · {where} · {entry.tag} · " + t("{view} view", view=study.view),
                     no_wrap=True, overflow="ellipsis")
        if self.message:
            title.append(f" · {self.message}", style="bold")
        width = max(80, self.size.width - 2)
        self.shown = (title, board(study.state(), width=width, changed=study.changed()), self._log())
        for widget, content in zip(("#title", "#board-content", "#log"), self.shown):
            self.query_one(widget, Static).update(content)

    def _log(self) -> Text:
        study = self.study
        entries = study.entries
        first = max(0, study.index - LOG_AROUND)
        width = max(20, self.size.width)
        text = Text()
        for entry in entries[first:study.index + LOG_AROUND + 1]:
            mark = f" [{t('reverted by #{index}', index=entry.reverted_by)}]" if entry.reverted_by is not None else ""
            line = f"{'▶' if entry.index == study.index else ' '} #{entry.index:<5} {entry.tag:<6} {entry.text}{mark}"
            line = line if len(line) <= width else line[:width - 1] + "…"
            text.append(line + "\n", style="reverse" if entry.index == study.index else "")
        return text

    def show_message(self, message: str) -> None:
        self.message = message
        self.redraw()

    # -- actions ------------------------------------------------------------------------------------

    def action_step(self, by: int) -> None:
        self.message = ""
        self.study.step(by)
        self.redraw()

    def action_turn(self, direction: int) -> None:
        self.message = ""
        self.study.next_turn(direction)
        self.redraw()

    def action_go_to(self, index: int) -> None:
        self.message = ""
        self.study.go(self.study.last if index < 0 else index)
        self.redraw()

    def action_call(self, direction: int) -> None:
        """Jump to the next (previous) judge call, flag or dispute: a judge reviewing a witnessed
        duel goes from one to the next."""
        found = self.study.next_call(direction)
        self.show_message("" if found is not None else
                          t("no later judge call, flag or dispute") if direction > 0 else
                          t("no earlier judge call, flag or dispute"))

    def action_next_view(self) -> None:
        views = self.study.views()
        view = views[(views.index(self.study.view) + 1) % len(views)] if self.study.view in views else views[0]
        try:
            self.study.switch(view)
        except SourceError as exc:
            self.show_message(str(exc))
            return
        self.show_message(t("{view} view", view=view) if len(views) > 1 else
                          t("this file holds the {view} view only", view=view))

    def action_ask(self, what: str) -> None:
        """Open the prompt: ``go`` (an event, t<turn> or a card) or ``search``."""
        self.asking = what
        ask = self.query_one("#ask", Input)
        ask.placeholder = (t("go to: an event number, t<turn>, or a card's name") if what == "go"
                           else t("search the log for"))
        ask.value = ""
        ask.add_class("open")
        ask.focus()

    def action_cancel(self) -> None:
        self.query_one("#ask", Input).remove_class("open")
        self.asking = None
        self.set_focus(None)

    def action_again(self, direction: int) -> None:
        if not self.searched:
            self.show_message("nothing searched yet: / to search")
            return
        self._search(self.searched, direction)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        ask = self.query_one("#ask", Input)
        ask.remove_class("open")
        self.set_focus(None)
        text, what = event.value.strip(), self.asking
        self.asking = None
        if not text:
            self.redraw()
            return
        if what == "search":
            self.searched = text
            self._search(text, 1)
        else:
            self._go(text)

    def _go(self, text: str) -> None:
        study = self.study
        if number(text) is not None:
            index = number(text)
            study.go(index)
            self.show_message(f"no event {index}: the last is #{study.last}" if index > study.last else "")
        elif text[:1] in "tT" and number(text[1:].strip()) is not None:
            try:
                study.turn_start(number(text[1:].strip()))
                self.show_message("")
            except SourceError as exc:
                self.show_message(str(exc))
        else:
            self._search(text, 1)

    def _search(self, text: str, direction: int) -> None:
        found = self.study.find(text, direction)
        self.show_message(f"“{printable(text)}”" + ("" if found is not None else ": no other event"))
