"""What every command of the command line shares: the group ``main`` the area modules register
their commands on, the shared options (``--store``, ``--cards``, ``--view``, ``--witness``,
``--receipt``, ``--key``), and opening a store, a witness or a stored duel; with, from the
modules that need no click (``output``, ``duel_files``), the exit codes, ``echo`` and opening a
duel file.

Errors become exit codes in one place (``output.answered``, around every command: ``_Group.invoke``);
every line printed goes through ``echo``, which escapes control characters so that no file can
rewrite a judge's terminal.
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from importlib import import_module
from typing import TYPE_CHECKING, Iterator

import click

from .. import i18n
from ..i18n import N_, say, t
from ..errors import InputError
from ..text import printable
from . import kept_aside
from .index import AREAS, COMMANDS
from .duel_files import card_db, file_format, load_events  # noqa: F401  (every command's, from here)
from .output import (  # noqa: F401  (the exit codes and echo: every command's, from here)
    EXIT_ILLEGAL, EXIT_INTERRUPTED, EXIT_UNREADABLE, answered, echo, escape_streams, terminal_width)

if TYPE_CHECKING:
    from ..cards import CardDB
    from ..decks import Banlist
    from ..receipts import Receipt, Witness
    from ..signing import OrganiserKey
    from ..source import Source
    from ..store.reading import Store


def signing_key() -> OrganiserKey:
    """The organiser's key, made (and said so) the first time one is needed."""
    from ..signing import OrganiserKey
    key, created = OrganiserKey.load_or_create()
    if created:
        # the fingerprint too: it is what verify names the key by ("signed by organiser key …")
        echo(t("created the organiser key {path} (public key {public}, fingerprint {fingerprint})",
               path=printable(key.path), public=key.public.text, fingerprint=key.public.fingerprint), err=True)
    return key


def pick_list(path: str, name: str | None) -> Banlist:
    """The --list NAME of an lflist.conf; the only list when there is one; else exit code 2."""
    from ..decks import read_lflist
    lists = read_lflist(Path(path))
    names = ", ".join(repr(n) for n in lists) or "none"
    if not lists:
        raise InputError(say("{path}: no banlist in this file (a list starts with a '!name' line)", path=path))
    if name is None:
        if len(lists) > 1:
            raise click.UsageError(f"{path} holds {len(lists)} lists; pick one with --list "
                                   f"(lists: {names})")
        return next(iter(lists.values()))
    if name in lists:
        return lists[name]
    folded = [n for n in lists if n.casefold() == name.casefold()]
    if len(folded) == 1:
        return lists[folded[0]]
    raise InputError(say("{path}: no list named {name!r} (lists: {names})", path=path, name=name, names=names))


class Words(click.Choice):
    """A choice among the words of one of the package's vocabularies (``views.VIEWS``,
    ``events.PHASES``...), imported when the option is parsed or its command's help shown rather
    than when the command line starts: ``ygoreplay --help`` needs none of them."""

    def __init__(self, module: str, name: str) -> None:        # no super().__init__: ``choices`` is lazy
        self.where = (module, name)
        self.case_sensitive = True
        self._words: tuple[str, ...] | None = None

    @property
    def choices(self) -> tuple[str, ...]:
        if self._words is None:
            module, name = self.where
            self._words = tuple(getattr(import_module(module), name))
        return self._words


def _choose_language(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """``--lang``: the language every sentence, label and message is printed in (the group's
    default: ``$YGOREPLAY_LANG``, then the POSIX locale). Recorded data never changes with it."""
    if value is None:
        if ctx.parent is None:
            i18n.use(i18n.from_environment())
        return
    try:
        i18n.use(i18n.named(value))
    except i18n.LanguageError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None


def _lang_option() -> click.Option:
    return click.Option(["--lang"], metavar="LANG", default=None, expose_value=False, is_eager=True,
                        callback=_choose_language,
                        help="The language to print in: en, zh-Hans, zh-Hant, ja, ko (default: $YGOREPLAY_LANG, "
                             "then $LANG).")


def _with_lang(group: click.Group) -> None:
    """--lang on the group and on every command loaded (``ygoreplay rules SUM-04 --lang zh``)."""
    for command in _every_command(group):
        if not any(p.name == "lang" for p in command.params):
            command.params.append(_lang_option())


def _every_command(command: click.Command) -> Iterator[click.Command]:
    yield command
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            yield from _every_command(sub)


#: Click's own words in a help page (its option help and headings), said in the reader's language.
_CLICK_WORDS = (N_("Show this message and exit."), N_("Show the version and exit."))


@contextmanager
def _help_in_language(command: click.Command, ctx: click.Context, options: bool = True) -> Iterator[None]:
    """The command's help and (``options``) its options' help in the current language while its
    help page is written: click keeps them as fixed English, set when the command was declared;
    each is found in the catalogue by its paragraphs (``i18n.help_paragraphs``, as they were
    extracted). A group's list of commands needs no options: asking for a command's makes its
    help option, a gettext lookup of click's each (3% of ``ygoreplay --help``)."""
    params = [p for p in command.get_params(ctx) if getattr(p, "help", None)] if options else []
    kept = (command.help, command.short_help, [p.help for p in params])
    try:
        if command.help:
            command.help = i18n.help_in_language(command.help)
        if command.short_help:
            command.short_help = i18n.help_in_language(command.short_help)
        for param in params:
            param.help = i18n.help_in_language(param.help)
        yield
    finally:
        command.help, command.short_help = kept[0], kept[1]
        for param, help_ in zip(params, kept[2]):
            param.help = help_


class _InLanguage:
    """A command whose help page is written in the reader's language (``--lang``, ``$LANG``)."""

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with _help_in_language(self, ctx):
            super().format_help(ctx, formatter)  # type: ignore[misc]

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(ctx.command_path, " ".join(self.collect_usage_pieces(ctx)),  # type: ignore[attr-defined]
                              t("Usage: "))

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [row for param in self.get_params(ctx)  # type: ignore[attr-defined]
                if not isinstance(param, click.Argument) and (row := param.get_help_record(ctx)) is not None]
        if rows:
            with formatter.section(t("Options")):
                formatter.write_dl(rows)
        if isinstance(self, click.Group):                # click's Group.format_options, in our words
            self.format_commands(ctx, formatter)

    def listed_command(self, ctx: click.Context, name: str) -> click.Command | None:
        """The command as the group's help lists it."""
        return self.get_command(ctx, name)  # type: ignore[attr-defined]

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        commands = [(name, command) for name in self.list_commands(ctx)  # type: ignore[attr-defined]
                    if (command := self.listed_command(ctx, name)) is not None and not command.hidden]
        if commands:
            limit = formatter.width - 6 - max(len(name) for name, _ in commands)
            rows = []
            for name, command in commands:
                with _help_in_language(command, ctx, options=False):
                    rows.append((name, command.get_short_help_str(limit)))
            with formatter.section(t("Commands")):
                formatter.write_dl(rows)


class _Command(_InLanguage, click.Command):
    pass


class _SubGroup(_InLanguage, click.Group):
    command_class = _Command
    group_class = type


class _Group(_InLanguage, click.Group):
    """``ygoreplay``: its commands are declared in the modules ``index.COMMANDS`` names, each
    imported when one of its commands is run (or its help page shown); the group's help lists
    every command from the index, without importing any."""

    command_class = _Command
    group_class = _SubGroup

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            # An unknown name loads them all: click's "Did you mean" looks among those loaded.
            with kept_aside():
                for area in (COMMANDS[cmd_name][0],) if cmd_name in COMMANDS else AREAS:
                    import_module(f"{__package__}.{area}")
            _with_lang(self)
        return self.commands.get(cmd_name)

    def listed_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.commands or name not in COMMANDS:
            return self.commands.get(name)
        return _Command(name, help=COMMANDS[name][1])       # its line of the list: as the command's

    def main(self, *args, **kwargs):
        escape_streams()
        _with_lang(self)
        # The environment's language from the start (``ygoreplay --help`` is written before --lang's
        # default is taken); it ends with the command (in-process callers).
        with i18n.using(i18n.from_environment()):
            return super().main(*args, **kwargs)

    def invoke(self, ctx: click.Context):
        with answered((click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort)):
            return super().invoke(ctx)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ygoreplay")
def main() -> None:
    """Record, check and replay Yu-Gi-Oh! duels as event logs."""


cards_option = click.option(
    "--cards", "cards", multiple=True, type=click.Path(dir_okay=False), metavar="CARDS.CDB",
    help="A cards.cdb for the names and facts of cards the duel does not carry (repeatable: a later "
         "file wins). Then $YGOREPLAY_CARDS, a local EDOPro/YGOPro install, the bundled classic set.")
store_option = click.option(
    "--store", "store_url", envvar="YGOREPLAY_STORE", default=None, metavar="URL",
    help="SQLite file or postgresql://user@host:port/db (default: $YGOREPLAY_STORE, else "
         "~/.local/share/ygoreplay/duels.sqlite).")
view_option = click.option("--view", "view", type=Words("ygoreplay.views", "VIEWS"), default=None,
                           help="See the duel as a player or a spectator saw it (default: the file's view).")
witness_option = click.option(
    "--witness", "witness_url", envvar="YGOREPLAY_WITNESS", default=None, metavar="URL",
    help="A second store (SQLite file or postgresql://...?schema=NAME) that keeps every write's signed "
         "head: a store behind it fails verify (default: $YGOREPLAY_WITNESS).")
expected_option = click.option("--expected", type=int, default=None,
                               help="Refuse (exit 3) unless the duel has exactly N events.")
receipt_out_option = click.option(
    "--receipt", "receipt_path", type=click.Path(), default=None, metavar="FILE",
    help="Save the write's signed receipt here (a folder: as DUEL-EVENTS.json in it); keep it to prove "
         "later, with verify --receipt, that the store was not cut back.")
by_option = click.option(
    "--by", "entered_by", type=Words("ygoreplay.events", "ENTERED_BY"), default="recorder", show_default=True,
    help="Who entered the events, in a witnessed duel: stamped on each event that names no one (entered_by). "
         "append --by p0 (p1) enters them as that player's device: each card is named as that player's view "
         "names it (show --view p0, the player's page, /actions), never by its record id, and a name the view "
         "does not know is refused; the recorder and the judge name record ids. record --by writes record ids "
         "(the duel has no view before it is recorded).")
key_option = click.option("--key", "keys", multiple=True, metavar="PUBLIC_KEY",
                          help="Trust signatures by this key (ed25519:... or a key file); the local "
                               "organiser key is always trusted. Repeatable.")


@contextmanager
def open_store(url: str | None, *, readonly: bool = False, create: bool = False,
               cards: CardDB | None = None, keys: tuple[str, ...] = (), reindex: bool = False) -> Iterator[Store]:
    """The store at ``url``, its matches understood (``cli.boards`` opens one for a duel's board
    alone: a match's stream kind is a tenth of ``show --at N``'s imports). ``reindex``: its
    library index rebuilt even where a newer version built it (``search --reindex``)."""
    from ..match import stream  # noqa: F401  (a store's matches are understood: registers their kind)
    from ..store.reading import Store
    key = None if readonly else signing_key()
    trust = ()
    if keys:                                    # the application layer only when keys are named
        from ..application import trusted_keys
        trust = trusted_keys(keys)
    store = Store(url, cards, key=key, readonly=readonly, create=create, trust=trust, reindex=reindex)
    try:
        yield store
    finally:
        store.close()


@contextmanager
def open_witness(url: str | None, store: Store) -> Iterator[Witness | None]:
    from ..receipts import witness_from
    witness = witness_from(url, store)
    try:
        yield witness
    finally:
        if witness is not None:
            witness.close()


def keep_receipt(receipt: Receipt, path: str | None, witness: Witness | None) -> None:
    """Save a write's receipt where asked; say when the witness did not take it. The write stands
    whatever becomes of its receipt file: a receipt that cannot be saved is said so, never with
    "nothing was written" (the file's error said it, and a script sent the write again: the
    events appended twice, a second duel recorded)."""
    from ..receipts import save_receipt
    if path:
        try:
            save_receipt(receipt, path)
        except (InputError, OSError) as exc:        # OSError: a path the system refuses to look at (too long)
            reason = (str(exc).removesuffix("; nothing was written") if isinstance(exc, InputError)
                      else f"{path}: {exc.strerror or exc}")
            raise InputError(t("the write stands: duel {duel} has {events} events now (do not send it again); "
                               "only its receipt was not saved: {reason}", duel=receipt.duel, events=receipt.events,
                               reason=reason)) from None
    if receipt.witnessed is False and witness is not None:
        echo(f"warning: the witness {witness.name} cannot be reached: this write is not witnessed "
             "(its receipt still proves it)", err=True)


@contextmanager
def open_duel(spec: str, store_url: str | None, cards: tuple[str, ...] = (), view: str | None = None) -> Iterator[Source]:
    """Open a file of any registered format, or a duel of the store (read-only) as far as ``view``
    may see it (``handed_source``)."""
    from ..source import open_source
    db = card_db(cards)
    if Path(spec).is_file():
        yield open_source(spec, None, db)
        return
    with open_store(store_url, readonly=True) as store:
        yield handed_source(spec, store, db, view)


def handed_source(spec: str, store: Store, cards: CardDB, view: str | None) -> Source:
    """A stored duel opened for ``view`` (shown, or written out to hand on: an exported record, an
    LP sheet): as far as ``view`` may see it (``Source.seen``: a judge's what-if branch stops where
    the service's views of it stop while its parent has not released what it hid, ZONE-12,
    ZONE-13; the judge's holds it). Every command line reader of a stored duel opens it here."""
    from ..source import open_source
    return open_source(spec, store, cards).seen(view)


def resolve(store: Store, duel: str) -> str:
    from ..source import resolve_duel
    return resolve_duel(store, duel, files=False)
