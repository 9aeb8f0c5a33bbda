"""paipu replay: cards, the rules engine, variants, the replayer and the simulator.

Reading order: ``cards`` → ``record`` → ``errors`` → ``options`` → ``engine`` →
``variants`` → ``replayer`` → ``simulator``.
"""

ENGINE_VERSION = "0.1.0"
