"""paipu replay: cards, the rules engine, variants, the replayer and the simulator.

Reading order: ``cards`` → ``record`` → ``errors`` → ``options`` → ``engine`` →
``variants`` → ``replayer`` → ``simulator``.
"""

ENGINE_VERSION = "0.1.0"

from replay import kernel as _kernel

# Before any kernel module loads: each runs compiled (its .so, built at install) or from its .py
# (PAIPU_KERNEL=python, not built, or its source changed since the build): replay/kernel.py.
_kernel.install()
