"""Who may see and do what in the service: tokens, roles, views, and who may find a duel.

Every token is 32 random bytes from ``secrets`` (base64url), handed out once and kept only as
its SHA-256 digest: the store's administrator, or anyone who reads the store, cannot use it.
The organiser's token is the service's own; the others belong to one duel and one role:

=============  ==============  ==============================================================
role           sees            may
=============  ==============  ==============================================================
organiser      judge view      create duels, list and search them, upload files, and all below
judge          judge view      roll back, branch, note
recorder       judge view      append events (what it records is everything)
p0, p1         that player's   read
spectator      spectator view  read, held back by the duel's delay
=============  ==============  ==============================================================

A duel's spectator link is ``public`` (anyone may watch, and it is listed), ``unlisted``
(anyone holding the spectator token may watch) or ``private`` (no spectator token at all);
a duel that is not public is 404 to anyone without a token for it.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field

ROLES = ("recorder", "judge", "p0", "p1", "spectator")
VISIBILITIES = ("public", "unlisted", "private")
VIEW_OF = {"organiser": "judge", "judge": "judge", "recorder": "judge", "p0": "p0", "p1": "p1",
           "spectator": "spectator", "public": "spectator"}
#: The views a role may ask for besides its own (a judge may look through a player's eyes).
NARROWER = {"judge": ("judge", "p0", "p1", "spectator"), "p0": ("p0", "spectator"),
            "p1": ("p1", "spectator"), "spectator": ("spectator",)}


def new_token() -> str:
    return secrets.token_urlsafe(32)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def matches(token: str, stored: str | None) -> bool:
    return stored is not None and hmac.compare_digest(digest(token), stored)


@dataclass
class Access:
    """A duel's access record, as the store keeps it (digests only)."""

    visibility: str = "unlisted"
    delay_events: int = 0
    delay_seconds: float = 0.0
    tokens: dict[str, str] = field(default_factory=dict)    # role -> digest

    @property
    def delayed(self) -> bool:
        """Whether its spectators are held back (until the duel ends)."""
        return bool(self.delay_events or self.delay_seconds)

    def to_dict(self) -> dict:
        return {"visibility": self.visibility, "delay": {"events": self.delay_events, "seconds": self.delay_seconds},
                "tokens": dict(self.tokens)}

    @classmethod
    def from_dict(cls, data: dict) -> "Access":
        delay = data.get("delay", {})
        return cls(data.get("visibility", "unlisted"), int(delay.get("events", 0)), float(delay.get("seconds", 0)),
                   dict(data.get("tokens", {})))

    @classmethod
    def issue(cls, visibility: str, delay_events: int, delay_seconds: float) -> tuple["Access", dict[str, str]]:
        """A new access record and the tokens to hand out (never kept: only their digests are)."""
        roles = [r for r in ROLES if not (r == "spectator" and visibility == "private")]
        tokens = {role: new_token() for role in roles}
        return cls(visibility, delay_events, delay_seconds, {r: digest(t) for r, t in tokens.items()}), tokens

    def role_of(self, token: str) -> str | None:
        """The role this token has in this duel, if any (compared in constant time, all of them)."""
        found = None
        for role, stored in self.tokens.items():
            if matches(token, stored):
                found = role
        return found
