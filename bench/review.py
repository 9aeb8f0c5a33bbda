"""``paipu review`` speed: ``python -m bench.review [--games N] [--variants V,…]``.

Simulates ``N`` games of each variant (heuristic bots, seed 1) and reviews seat 1 of every game
(replay/review.py) twice: with the expected-value bot's memo of judged hands cleared before each
game (a first review, as ``paipu review`` runs in a fresh process), then warm (the memo kept across
the games, as the dashboard's player figure reviews a player's games in one process). Prints one
JSON object: per variant the games, decisions a game, and seconds a game cold and warm.
"""

from __future__ import annotations

import argparse
import json
import time

VARIANTS = ("guilin", "zipai", "yuanjiang_guihuzi", "sanjing_huapai", "wujing_huapai", "shuangbiegan_huapai",
            "tongcheng_gezi", "shangdaren")


def measure(variant: str, games: int, seed: int = 1) -> dict[str, float]:
    """Seconds a game to review seat 1 of ``games`` simulated games, cold and warm."""
    import msgspec

    from replay import evbot
    from replay.review import review_line
    from replay.simulator import simulate

    lines = [msgspec.json.encode(r) for r in simulate(variant, games, seed)]
    evbot._MEMO.clear()
    cold = 0.0
    decisions = 0
    for raw in lines:
        evbot._MEMO.clear()
        t = time.process_time()
        decisions += len(review_line(raw, 1).decisions)
        cold += time.process_time() - t
    t = time.process_time()
    for raw in lines:
        review_line(raw, 1)
    warm = time.process_time() - t
    return {"games": games, "decisions_per_game": round(decisions / games, 1),
            "cold_s_per_game": round(cold / games, 3), "warm_s_per_game": round(warm / games, 3)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--variants", default=",".join(VARIANTS))
    a = p.parse_args()
    print(json.dumps({v: measure(v, a.games) for v in a.variants.split(",")}, indent=1))


if __name__ == "__main__":
    main()
