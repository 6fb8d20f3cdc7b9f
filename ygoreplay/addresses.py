"""A host as the service listens on it and as a URL names it: an IPv6 address (it holds a
colon) takes its own socket family and, in a URL, brackets (``http://[::1]:8765``: without them
the port reads as part of the address)."""

from __future__ import annotations

import socket


def family(host: str) -> socket.AddressFamily:
    """The socket family that can bind ``host``."""
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def in_url(host: str) -> str:
    """``host`` as a URL writes it."""
    return f"[{host}]" if ":" in host else host


def url(host: str, port: int) -> str:
    """The service's address as a browser opens it."""
    return f"http://{in_url(host)}:{port}"
