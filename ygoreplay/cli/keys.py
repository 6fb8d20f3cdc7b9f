"""``ygoreplay key``: the organiser's public key, for others to verify what this organiser signs;
``ygoreplay seal``: a player's device's seal of a hidden card of its own."""
from __future__ import annotations

import json

import click

from ..errors import InputError
from ..i18n import t
from ..text import printable
from .common import echo, main, signing_key


@main.command()
def key() -> None:
    """Print the organiser's public key (created on first use), for others to verify what you sign."""
    from ..signing import default_key_path
    organiser = signing_key()
    echo(organiser.public.text)
    echo(t("fingerprint {fingerprint}, private key in {value}",
           fingerprint=organiser.public.fingerprint,
           value=printable(str(organiser.path or default_key_path()))), err=True)


@main.command()
@click.argument("passcode", type=int)
def seal(passcode: int) -> None:
    """Seal a hidden card of your own as a player's device does: print {code, seal, nonce} as JSON.
    Record the seal (cards_sealed), keep the nonce secret until you open the card (cards_opened)."""
    from .. import seals
    try:
        digest, nonce = seals.seal(passcode)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    echo(json.dumps({"code": passcode, "seal": digest, "nonce": nonce}))
