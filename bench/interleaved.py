"""Ratios to python-chess on a noisy machine: ``python -m bench.interleaved [--rounds 3] [--games 4000]``.

``make bench`` times the yardstick at the start and the end of a run of several minutes, and the
variants two at a time; on this VM python-chess's own rate moves by up to half within such a run
(bench/README.md), so one run's ratios move by as much. This script times in one
process, python-chess just before and just after each figure, so each ratio divides by the
yardstick of the same minute; several rounds give a median and a range. Figures: the replay and
decode + replay events/s of guilin, zipai and 沅江 (the variants nearest their target), as ratios
to the mean of the two yardstick runs around them, and the 桂林 scorer's cold hands/s (a target
in absolute terms, printed with the yardstick beside it).

Reads the corpora ``make bench`` simulates (``build/bench/corpus/<variant>-20000g-…``, made by
``bench.corpus.ensure_corpora`` when missing). Prints one line a measurement, then the medians;
never fails on speed.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from bench.common import BUILD

VARIANTS = ("guilin", "zipai", "yuanjiang_guihuzi")


def main(argv: list[str] | None = None) -> None:
    from bench.corpus import ensure_corpora, time_replay
    from bench.hands import build_hands, time_scorer
    from bench.yardstick import ensure_pgn, time_pgn

    ap = argparse.ArgumentParser(prog="python -m bench.interleaved", description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--games", type=int, default=4000, help="games of each corpus replayed a round (of 20,000)")
    ap.add_argument("--hands", type=int, default=20000)
    a = ap.parse_args(argv)
    pgn = ensure_pgn(300, 1)
    corpora = ensure_corpora(VARIANTS, 20000, 1, "random", 2, Path(BUILD))
    hands = build_hands(a.hands, 1)
    ratios: dict[str, list[tuple[float, float]]] = {v: [] for v in VARIANTS}
    scorer: list[float] = []
    for rnd in range(a.rounds):
        for v in (*VARIANTS, "scorer"):
            before = time_pgn(pgn)["plies_per_s"]
            r = time_scorer(hands) if v == "scorer" else time_replay(corpora[v]["path"], limit=a.games)
            after = time_pgn(pgn)["plies_per_s"]
            chess = (before + after) / 2
            if v == "scorer":
                scorer.append(r["cold_hands_per_s"])
                print(f"round {rnd}: scorer cold {r['cold_hands_per_s']:,.0f} hands/s "
                      f"(python-chess {before:,.0f} / {after:,.0f})", flush=True)
            else:
                x = (r["replay_events_per_s"] / chess, r["decode_replay_events_per_s"] / chess)
                ratios[v].append(x)
                print(f"round {rnd}: {v} replay {x[0]:.2f}x, decode + replay {x[1]:.2f}x "
                      f"(python-chess {before:,.0f} / {after:,.0f})", flush=True)
    for v, xs in ratios.items():
        rep, both = [x[0] for x in xs], [x[1] for x in xs]
        print(f"{v}: replay {statistics.median(rep):.2f}x ({min(rep):.2f}-{max(rep):.2f}), "
              f"decode + replay {statistics.median(both):.2f}x ({min(both):.2f}-{max(both):.2f})")
    print(f"scorer cold: {statistics.median(scorer):,.0f} hands/s ({min(scorer):,.0f}-{max(scorer):,.0f})")


if __name__ == "__main__":
    main()
