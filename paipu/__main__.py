"""``python -m paipu``: the ``paipu`` command (:func:`paipu.cli.main`)."""

from paipu.cli import main

main()
