"""``python -m ygoreplay`` is the ``ygoreplay`` command."""
import sys

from .launcher import run

run(sys.argv[1:], "ygoreplay")
