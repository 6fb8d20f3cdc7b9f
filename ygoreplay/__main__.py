"""``python -m ygoreplay`` is the ``ygoreplay`` command."""
from .cli import main

main(prog_name="ygoreplay")
