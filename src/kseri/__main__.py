"""``python -m kseri``: the same as the ``kseri`` command."""

from kseri.cli import main

main()
