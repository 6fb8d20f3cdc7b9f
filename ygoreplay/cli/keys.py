"""``ygoreplay key``: the organiser's public key, for others to verify what this organiser signs."""
from __future__ import annotations

from ..signing import default_key_path
from .common import echo, main, signing_key


@main.command()
def key() -> None:
    """Print the organiser's public key (created on first use), for others to verify what you sign."""
    organiser = signing_key()
    echo(organiser.public.text)
    echo(f"fingerprint {organiser.public.fingerprint}, private key in {organiser.path or default_key_path()}", err=True)
