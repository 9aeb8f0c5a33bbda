"""Where replay and the 桂林 scorer spend their time: ``python -m bench.profile [VARIANT] [--games N]``.

Replays ``N`` games of the variant's cached bench corpus (``make bench`` or ``--quick`` writes it;
otherwise 400 games are simulated) after a warm-up of ``N`` others, under pyinstrument when it is
installed (the ``bench`` extra) and cProfile otherwise, and prints the call tree or the top
functions. ``--scorer`` profiles ``best_split`` on the fixed hand corpus instead.
"""

from __future__ import annotations

import argparse
import io
import pstats
import sys


def _lines(variant: str, games: int) -> list[bytes]:
    from bench.common import BUILD
    from bench.corpus import read_corpus

    for p in sorted((BUILD / "corpus").glob(f"{variant}-*g-s1-random-*.jsonl"), key=lambda p: -p.stat().st_size):
        lines = read_corpus(p)
        if len(lines) >= 2 * games:
            return lines[: 2 * games]
    import msgspec

    from replay.simulator import simulate

    return [msgspec.json.encode(r) for r in simulate(variant, 2 * games, 7, bots="random")]


def _work(args: argparse.Namespace):
    if args.scorer:
        from bench.hands import build_hands, clear_scorer_caches
        from replay.variants.guilin._kernel import best_split

        hands = build_hands(args.games * 10)
        clear_scorer_caches()
        return lambda: [best_split(*h) for h in hands]
    from replay.record import decode_record
    from replay.replayer import replay_record

    lines = _lines(args.variant, args.games)
    recs = [decode_record(x) for x in lines]
    for r, x in zip(recs[: args.games], lines[: args.games]):  # warm-up: imports and memos
        replay_record(r, x)
    todo = list(zip(recs[args.games:], lines[args.games:]))
    return lambda: [replay_record(r, x) for r, x in todo]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__.split("\n\n")[0])
    ap.add_argument("variant", nargs="?", default="guilin")
    ap.add_argument("--games", type=int, default=1000, help="games profiled (after as many warm-up games)")
    ap.add_argument("--scorer", action="store_true", help="profile the 桂林 hand scorer (games × 10 hands)")
    ap.add_argument("--cprofile", action="store_true", help="use cProfile even when pyinstrument is installed")
    args = ap.parse_args(argv)
    run = _work(args)
    try:
        if args.cprofile:
            raise ImportError
        from pyinstrument import Profiler
    except ImportError:
        import cProfile

        pr = cProfile.Profile()
        pr.runcall(run)
        out = io.StringIO()
        pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(30)
        sys.stdout.write(out.getvalue())
        return
    p = Profiler(interval=0.0005)
    p.start()
    run()
    p.stop()
    sys.stdout.write(p.output_text(unicode=True, color=sys.stdout.isatty(), show_all=False))


if __name__ == "__main__":
    main()
