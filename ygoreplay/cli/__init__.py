"""The ``ygoreplay`` command (``records`` holds it while the command line becomes a package)."""
from .records import main

__all__ = ["main"]
