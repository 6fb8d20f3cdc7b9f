"""Who may see and do what in the service: tokens, roles, views, and who may find a duel.

Every token is 32 random bytes from ``secrets`` (base64url), handed out once and kept only as
its SHA-256 digest: the store's administrator, or anyone who reads the store, cannot use it.
The organiser's token is the service's own; the others belong to one duel and one role:

=============  ==============  ===============================================================================
role           sees            may
=============  ==============  ===============================================================================
organiser      judge view      create duels, list and search them, upload files, and all below
judge          judge view      roll back, branch, note
recorder       judge view      append events (a machine's record: what it records is everything)
               table view      the same, of a witnessed duel or match (a paper table: what is public there)
p0, p1         that player's   read; confirm, dispute, seal; in a witnessed duel, play of own side
spectator      spectator view  read, held back by the duel's delay
=============  ==============  ===============================================================================

The **table view** (``TABLE``, ``view_of``) is what the table's scorekeeper sees: the spectator's
view (each player's hand, Sets, seals and Deck orders hidden; a card named when it is shown), held
back by no delay (it sits at the table), in the record's own card ids but for a hidden pile
mixed, named anew as the spectator's view names it (``views.redactor_of``: a card the table saw,
back in the hand and Set by its player's device, is no card it can tell; ``views.recorded_by``, a
spectator's record is the scorekeeper's), and knowing what the recorder's own entries named (a
Trap it was told as it was Set). The recorder writes in those names (``application.names_view``). Each player's device enters its
own hidden cards into the record; read through the judge view, the scorekeeper's token gave both
hands and every Set as the devices typed them, and the record's head (a receipt), against which
each guess of such a card could be hashed: it has neither. Its file and its picture are a
spectator's of the whole record.

What a duel hid (both hands, the deck orders, each player's unrevealed cards) is the judge
view's; when it is *released*, every token of the duel, and anyone on a public one, may ask for
the judge view too. When that happens is the organiser's choice, the duel's **release policy**
(``RELEASES``), chosen at creation: ``end`` (when the duel ends), ``event`` (when the event
ends: at a time given at creation, or when the organiser says so, ``POST /duels/{id}/release``)
or ``never`` (only what was revealed stays public). A tournament duel (one of a match, or
created with an event's name) is ``event`` unless told otherwise, any other ``end``: in a Swiss
tournament, releasing a player's unrevealed cards at the end of a round hands them to their
next opponents. A branch keeps its parent's access, release policy included, and is released no
sooner than its parent (``library_search.released``).

A duel's spectator link is ``public`` (anyone may watch, and it is listed), ``unlisted``
(anyone holding the spectator token may watch) or ``private`` (no spectator token at all);
a duel that is not public is 404 to anyone without a token for it.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Sequence

from .chain import to_ms
from .errors import ConflictError, InputError, StoreError
from .i18n import N_, say
from .text import checked

ROLES = ("recorder", "judge", "p0", "p1", "spectator")
VISIBILITIES = (N_("public"), N_("unlisted"), N_("private"))
RELEASES = ("end", "event", "never")
#: How a duel is recorded: a machine's record refuses the first illegal event; a ``witnessed``
#: duel (a paper duel at a table) keeps it, flagged (``duel_started.witnessed``, ``rules.base.fail``).
MODES = ("machine", "witnessed")
#: Who a token's role enters an event of a witnessed duel as (``Event.entered_by``).
ENTERS_AS = {"recorder": "recorder", "judge": "judge", "p0": "p0", "p1": "p1"}
VIEW_OF = {"organiser": "judge", "judge": "judge", "recorder": "judge", "p0": "p0", "p1": "p1",
           "spectator": "spectator", "public": "spectator"}
#: The view of a witnessed duel's recorder: the table's, what is public there (see above).
TABLE = "table"
#: The views a role may ask for besides its own (a judge may look through a player's eyes).
NARROWER = {"judge": ("judge", "p0", "p1", "spectator"), "p0": ("p0", "spectator"),
            "p1": ("p1", "spectator"), "spectator": ("spectator",), TABLE: (TABLE, "spectator")}


def view_of(role: str, mode: str) -> str:
    """The view ``role`` reads a duel or a match recorded in ``mode`` (``MODES``) through, at every
    door (the service's callers of a duel and of a match, a match's file of its duels):
    ``VIEW_OF``'s, but the recorder of a witnessed duel or match reads the table's (``TABLE``), as a
    machine's recorder reads the judge's. A match's table view holds what a spectator's does (each
    decklist's and Side Deck's sizes, never their cards): its recorder's token is the table's code,
    which a scorekeeper or both players' phones scan."""
    return TABLE if role == "recorder" and mode == "witnessed" else VIEW_OF[role]


def filed_as(view: str) -> str:
    """The view a file made for ``view`` is written as: the table's (``TABLE``) is a spectator's
    file of what the table has seen (a file's views are the judge's, a player's, a spectator's)."""
    return "spectator" if view == TABLE else view


class ReleaseSettingError(InputError):
    """A release setting that cannot be used; ``where`` names the field."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(message)
        self.where = where


def release_settings(release: object, event: object, at: object) -> tuple[str | None, str | None, str | None]:
    """A duel's release policy, event name and release time as given at creation, checked: a
    time only for the ``event`` policy, with its zone (``2026-05-01T18:00:00+00:00``)."""
    if release is not None and release not in RELEASES:
        raise ReleaseSettingError("release", say("release is one of {names_list}", names_list=", ".join(RELEASES)))
    if event is not None and not isinstance(event, str):
        raise ReleaseSettingError("event", say("event is the event's name, a string of at most 200 characters"))
    event = checked(event, "the event's name", 200) if event else None
    if at is None:
        return release, event, None
    if (release or ("event" if event else "end")) != "event":
        raise ReleaseSettingError("release_at", say("release_at is for the event policy: when the event ends"))
    try:
        if not isinstance(at, str) or datetime.fromisoformat(at).tzinfo is None:
            raise ValueError
    except ValueError:
        raise ReleaseSettingError("release_at", say("release_at is a time with its zone, e.g. "
                                                    "2026-05-01T18:00:00+00:00")) from None
    return "event", event, at


#: Who may write each kind of a duel's events, through any door (``Records.append``: the typed
#: endpoints, the raw events endpoint and the command line all end there). The organiser may
#: write anything; a kind not named here is play, the recorder's.
WRITERS: dict[str, tuple[str, ...]] = {
    "rolled_back": ("judge",), "judge_note": ("judge",),
    # Who said so (a witnessed duel): the other side confirms or disputes an entry; whoever
    # entered a mis-entry corrects it, no judge needed (LOG-12).
    "entry_confirmed": ("p0", "p1"), "entry_disputed": ("p0", "p1"),
    "entry_corrected": ("recorder", "judge", "p0", "p1"),
    # Two devices (issue 22): a player's device seals its own hidden cards and opens them; the
    # table's recorder may enter an opening the players read out (``OWN_SIDE``: for themselves only).
    "cards_sealed": ("p0", "p1"), "cards_opened": ("recorder", "judge", "p0", "p1")}
#: Kinds a player writes for their own side only: the event's ``player`` is the token's.
OWN_SIDE = frozenset(("cards_sealed", "cards_opened"))
PLAYERS = ("p0", "p1")


#: A judge call, a ``judge_note`` of category ``call`` ruling on no entry (MATCH-08: questions and
#: disputes go to a judge), is also the table's to enter: the scorekeeper, or in a witnessed duel a
#: player's device, marks where a dispute arose, and the judge finds it there on rewind. Any other
#: note (a ruling, a penalty, a warning, a ruling on an entry) stays the judge's.
CALL = "call"


def recorders_of(mode: str) -> tuple[str, ...]:
    """The roles whose links open the recorder's page of a duel or a round's table recorded in
    ``mode`` (``MODES``): the recorder's (the table's code), and at a paper table (``witnessed``)
    each player's, whose device records its own side (``off_side``). The table's code is read by
    every phone that scanned it, through the table's view (``TABLE``), which knows what its own
    entries named: a player who named his own Set card with it showed it on the other player's
    phone; his seat's link keeps it his."""
    return ("recorder", *PLAYERS) if mode == "witnessed" else ("recorder",)


def may_call(role: str, witnessed: bool = False) -> bool:
    """Whether ``role`` may enter a judge call besides the judge and the organiser (``CALL``)."""
    return role == "recorder" or (witnessed and role in PLAYERS)


def is_play(kind: str) -> bool:
    """A kind ``WRITERS`` does not name: play, what happened at the table (the recorder's)."""
    return kind not in WRITERS


def may_write(role: str, kind: str, witnessed: bool = False, what_if: bool = False) -> bool:
    """Whether ``role`` may write ``kind`` at all; in a witnessed duel a player's device also
    records play, of its own side only (``off_side`` says which events that leaves out). A
    judge's what-if (a branch, ``what_if``) is the judge's line to play out (MATCH-08: the judge
    answers the dispute): the judge records its play too, from the page the branch opened on."""
    return (role == "organiser" or role in WRITERS.get(kind, ("recorder",))
            or (witnessed and role in PLAYERS and is_play(kind))
            or (what_if and role == "judge" and is_play(kind)))


def side_of(kind: str, player: int | None, turn_player: int | None) -> int | None:
    """Whose side an event of a witnessed duel is on, for a player's device recording its own
    (issue 23): the event's acting ``player`` (whose card moves, whose LP changes, who passes);
    for a kind that names none (a phase, a step, a resolved link, damage calculated) the turn
    player's. None before the first turn: the setup (the duel, both decks, the opening hands) is
    agreed by both players at the table, so either device may enter it."""
    if kind in OWN_SIDE:
        return player
    if turn_player is None:
        return None
    return turn_player if player is None else player


def off_side(by: str, kind: str, player: int | None, turn_player: int | None,
             witnessed: bool) -> str | None:
    """Why an entry stamped as player ``by`` (a player's token, or the command line's
    ``--by p0``) is not theirs to write, or None when it is: a seal or an opening of the other
    player's cards, or, in a witnessed duel, play on the other side (``side_of``). A judge's kind
    is refused before this (``may_write``); a confirmation, dispute or correction has no side."""
    if by not in PLAYERS or not (kind in OWN_SIDE or (witnessed and is_play(kind))):
        return None
    side = side_of(kind, player, turn_player)
    if side == int(by[1]) or (side is None and kind not in OWN_SIDE):
        return None
    if kind in OWN_SIDE:
        return say("it is player {player}'s: a player seals and opens their own cards", player=player)
    if player is None:
        return say("it names no player, so it is the turn player's (player {turn_player}'s turn)",
                   turn_player=turn_player)
    return say("it is player {player}'s: a player's device records its own side", player=player)


#: The same table for a match's events (``match/commands.py`` checks it for every door): rulings,
#: appeals and penalties are the judge's; a judge call or a concession is also a player's, for
#: themselves only; anything else is the table's (``MATCH_TABLE``: its recorder and its judge).
MATCH_TABLE: tuple[str, ...] = ("recorder", "judge")
MATCH_WRITERS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("judge_ruled", "ruling_appealed", "penalty_given"), ("judge",)),
    **dict.fromkeys(("judge_called", "match_conceded"), (*MATCH_TABLE, "p0", "p1"))}


def within(visibility: str, bound: str) -> bool:
    """Whether visibility ``visibility`` is no wider than ``bound`` (public, unlisted, private:
    each narrower than the one before): a what-if branch's within its parent's, a match's within
    each of its duels' (``linkable_into``)."""
    return VISIBILITIES.index(visibility) >= VISIBILITIES.index(bound)


def linkable_into(duel: str, match: str) -> bool:
    """Whether a duel of visibility ``duel`` may become a duel of a match of visibility ``match``.
    A match shows its duels to whoever may watch it: its file and page carry each duel's events
    for the reader's view, and each of its tokens has the same role in the duel
    (``Service.match_role``). So a duel goes only into a match no wider than itself: a private
    duel's events would otherwise reach a spectator it has none for, an unlisted duel's anyone
    on a public match's listing. Refused when it is linked (``match.commands.linkable``), never
    cut out of a match after: the match's record shows what it linked."""
    return within(match, duel)


#: A duel's roles whose tokens are its table's own (its players, its recorder, its judge): they sit
#: at the match's table and sign its LP sheet, so they know of its match; a spectator's is handed on.
TABLE_ROLES: tuple[str, ...] = ("recorder", "judge", "p0", "p1")


def knows_match(access: Access, token: str | None, hashed: str | None = None, duel_role: str | None = None) -> bool:
    """Whether a reader holding ``token`` (None: none) may know of a match whose access record is
    ``access``: anyone of a public one; of any other, a token of the match's own (the organiser's
    is the service's to grant, ``Service.reads_match``), or a token of one of the match's duels
    whose role there (``duel_role``) is its table's (``TABLE_ROLES``): a player of a private match
    sees its event and round on the sheet they sign. A duel's spectator token, or none, is not:
    a public duel may be a duel of a private match (``linkable_into``), and its readers learn
    nothing of that match (``rounds.match_details``)."""
    return (access.visibility == "public" or duel_role in TABLE_ROLES
            or (token is not None and access.role_of(token, hashed) is not None))


def view_knows_match(view: str, access: Access) -> bool:
    """Whether a view written out where no token tells who reads it (the command line's LP
    sheet, made by the store's owner to hand on) may name a duel's match: as the service answers
    a reader of the duel in that role (``knows_match`` with its ``duel_role``): the judge's and
    a player's sheet name any match (a player signs the sheet of a private match's round), a
    spectator's only a public one."""
    return knows_match(access, None, duel_role=view)


def handed(role: str) -> tuple[str, ...]:
    """The roles whose tokens a duel a match makes is given, for the caller who made it (its
    ``role`` in the match): the organiser's every one, to hand out; anyone else's its own and the
    spectator's (a link to share). A token is a role: the table's recorder, handed the new duel's
    judge token, rolled it back and ruled on disputed entries as the judge, and handed a player's,
    entered as that player's device; the match's tokens open the duel in their own roles already
    (``Service.match_role``), so no other is made."""
    return ROLES if role == "organiser" else (role, "spectator")


def seated(role: str, match_players: Sequence[str], duel_players: Sequence[str] | None) -> str:
    """The role a match's token (``role``) has in a duel of that match: a player's token is the
    seat its player sits in there. The duel names its own players (its ``duel_started``, typed
    at the table): player 0 of the match may be player 1 of a duel recorded the other way round,
    and a player token read as the same seat would see the other player's hand. So a duel that
    names the match's players in its seats keeps them, one that names them the other way round
    swaps them, and one whose seats are not the match's players (or not yet named: None keeps
    them, as no card is dealt before ``duel_started``) gives a player's token no seat: a
    spectator's view."""
    if role not in PLAYERS or duel_players is None:
        return role
    order = seat_order(match_players, duel_players) if len(duel_players) else None
    return "spectator" if order is None else PLAYERS[order[PLAYERS.index(role)]]


def seat_order(match_players: Sequence[str], duel_players: Sequence[str] | None) -> tuple[int, int] | None:
    """The seat each of a match's players (``match_players``, in the match's order) has in a duel
    of the match whose ``duel_started`` names ``duel_players``: ``(0, 1)`` in the same order (or
    none named yet: None, or no names), ``(1, 0)`` the other way round, None when its seats are
    not the match's players. Everything the match reads of the duel (who went first, each deck,
    the winner, the LP) is by seat, and what the match says is by its own players: read through
    this, or Kaiba's win in seat 0 was the match's player 0's, Yugi's (``match.links``)."""
    if not duel_players:
        return 0, 1
    seats, match = list(duel_players), list(match_players)
    if seats[:1] == seats[1:]:
        return None
    return (0, 1) if seats == match else (1, 0) if seats == match[::-1] else None


@dataclass
class Seating:
    """A match's token writing a duel of the match: ``match_role``, its role in the match of
    ``match_players``, writes as the seat the duel's ``duel_started`` names its player in
    (``seated``). Decided by the write command itself (``Records.append_records``), at the very
    head it judges the write on (the batch's own ``duel_started`` at 0 events), never before it:
    another process may store the ``duel_started`` in between, and a writer seated by the match
    wrote as the other seat (Kaiba's "Kaiba wins" stamped as Yugi's concession, LOG-12).
    ``role``: the seat decided last (the match's role until then)."""
    match_role: str
    match_players: tuple[str, ...]
    role: str = field(init=False)

    def __post_init__(self) -> None:
        self.role = self.match_role

    def at(self, duel_players: Sequence[str] | None) -> str:
        """The seat where the duel names ``duel_players`` (None: none yet), kept as ``role``."""
        self.role = seated(self.match_role, self.match_players, duel_players)
        return self.role


#: A duel's ``opening`` attachment: its first version says who had the first word on a duel with
#: no event yet, its first append (``Records.append_records``) or its match, which ended its game
#: before it began (``match.commands._closing``): one of the two only (``Store.append_records``'
#: claims), so no duel's first events land after its match's game end judged it empty.
OPENING = "opening"


def opening_claim(match: str | None = None, game: int | None = None) -> dict[str, dict]:
    """The ``OPENING`` claim of a duel's first append (no ``match``), or of its match closing it
    unbegun (game ``game`` of ``match`` ended: LOG-03, nothing is recorded in it after)."""
    return {OPENING: {"opened": True} if match is None else {"closed": True, "match": match, "game": game}}


def closed_by_match(opening: dict | None) -> tuple[str, int] | None:
    """The match and game that closed a duel unbegun, by its ``OPENING`` attachment, or None."""
    if not opening or not opening.get("closed"):
        return None
    return str(opening.get("match")), int(opening.get("game") or 0)


def new_token() -> str:
    return secrets.token_urlsafe(32)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def matches(token: str, stored: str | None, hashed: str | None = None) -> bool:
    """Whether ``token`` is the one ``stored`` is the digest of (``hashed``: its digest, when the
    caller has it already: a request hashes its token once), compared in constant time."""
    return stored is not None and hmac.compare_digest(digest(token) if hashed is None else hashed, stored)


@dataclass
class Access:
    """A duel's access record, as the store keeps it (digests only)."""

    visibility: str = "unlisted"
    delay_events: int = 0
    delay_seconds: float = 0.0
    tokens: dict[str, str] = field(default_factory=dict)    # role -> digest
    release: str | None = None       # one of RELEASES; None: the default for its kind (``policy``)
    event: str | None = None         # the event (tournament) it is a duel of, by name
    release_at: str | None = None    # ``event``: when the event ends (ISO 8601), if a time was given
    released: bool = False           # ``event``: the organiser released it
    mode: str = "machine"            # one of MODES: its duel_started must say so (``Records.append``)
    #: Whether a recorder's page shows the rules' verdicts while the duel is on (the organiser's
    #: choice; None: the default, ``warns``). Sanctioned play turns them off: a warning helps a player.
    warnings: bool | None = None

    @property
    def warns(self) -> bool:
        """Whether the duel's writers are shown the rules' verdicts: as chosen, else off for a
        witnessed duel (a paper duel at a table) and on for any other."""
        return self.warnings if self.warnings is not None else self.mode != "witnessed"

    @property
    def delayed(self) -> bool:
        """Whether its spectators are held back (until the duel ends)."""
        return bool(self.delay_events or self.delay_seconds)

    def to_dict(self) -> dict:
        return {"visibility": self.visibility, "delay": {"events": self.delay_events, "seconds": self.delay_seconds},
                "tokens": dict(self.tokens),
                "release": {"policy": self.release, "event": self.event, "at": self.release_at,
                            "released": self.released},
                **({"mode": self.mode} if self.mode != "machine" else {}),
                **({"warnings": self.warnings} if self.warnings is not None else {})}

    @classmethod
    def from_dict(cls, data: dict) -> "Access":
        """The access record as stored; StoreError for one not in the form ``to_dict`` writes (it
        is not signed: rewritten in the database, it was an internal error of each request of
        its duel, whose roles, delay and release are read from it)."""
        try:
            delay = data.get("delay", {})
            release = data.get("release") or {}
            access = cls(data.get("visibility", "unlisted"), int(delay.get("events", 0)), float(delay.get("seconds", 0)),
                         dict(data.get("tokens", {})), release.get("policy"), release.get("event"), release.get("at"),
                         bool(release.get("released", False)), str(data.get("mode", "machine")),
                         data["warnings"] if isinstance(data.get("warnings"), bool) else None)
            texts = [access.visibility, *access.tokens, *access.tokens.values()]
            if not all(isinstance(text, str) for text in texts) or not all(
                    isinstance(text, (str, type(None))) for text in (access.release, access.event, access.release_at)):
                raise TypeError("a field of another type than is written")
            if access.release_at is not None:
                to_ms(access.release_at)
        except (AttributeError, TypeError, ValueError, OverflowError) as exc:
            raise StoreError(say("an access record that cannot be read ({exc}): rewritten in the database",
                                 exc=exc)) from None
        return access

    @classmethod
    def issue(cls, visibility: str, delay_events: int, delay_seconds: float, release: str | None = None,
              event: str | None = None, release_at: str | None = None,
              mode: str = "machine", warnings: bool | None = None,
              roles: Sequence[str] = ROLES) -> tuple["Access", dict[str, str]]:
        """A new access record and the tokens of ``roles`` to hand out (never kept: only their
        digests are); no spectator's of a private one."""
        roles = [r for r in ROLES if r in roles and not (r == "spectator" and visibility == "private")]
        tokens = {role: new_token() for role in roles}
        return cls(visibility, delay_events, delay_seconds, {r: digest(t) for r, t in tokens.items()},
                   release, event, release_at, mode=mode, warnings=warnings), tokens

    def policy(self, in_match: bool) -> str:
        """The release policy: the one chosen, else ``event`` for a tournament duel, else ``end``."""
        return self.release or ("event" if in_match or self.event else "end")

    def release_now(self, in_match: bool) -> None:
        """The organiser's call that the event has ended: only an event's duels and matches wait for it."""
        policy = self.policy(in_match)
        if policy != "event":
            raise ConflictError(say("the release policy is {policy!r}: only an event's duels and matches "
                                    "are released by the organiser",
                                    policy=policy))
        self.released = True

    def releases(self, ended: bool, in_match: bool, now: float | None = None) -> bool:
        """Whether what the duel hid is released to every caller ``now`` (seconds since the epoch)."""
        policy = self.policy(in_match)
        if not ended or policy == "never":
            return False
        if policy == "end" or self.released:
            return True
        return self.release_at is not None and to_ms(self.release_at) <= (time.time() if now is None else now) * 1000

    def role_of(self, token: str, hashed: str | None = None) -> str | None:
        """The role this token has in this duel, if any (compared in constant time, all of them;
        the token hashed once, or ``hashed`` its digest)."""
        hashed = digest(token) if hashed is None else hashed
        found = None
        for role, stored in self.tokens.items():
            if matches(token, stored, hashed):
                found = role
        return found
