"""Instructions per game (or hand), counted by callgrind: ``python -m bench.instructions VARIANT [sim|replay|scorer] [N]``.

CPU seconds on this VM wander by up to half between runs; instruction counts do not (the same
code, input and hash seed give the same count within ~1%, whatever else the machine runs), so
before/after comparisons of an engine change use this. ``replay`` decodes and replays N games
(default 50) simulated with random bots; ``sim`` simulates N games (default 30); ``ingest``
runs an ingest worker's whole job on the same N games (:func:`ingest.rows.process_chunk` in
chunks of 256 lines: parse, replay, the rows and their Arrow tables). Each count is
that of a run with N games minus that of a run with none (imports, tables and a 3-game warm-up
in both; the games to replay are simulated beforehand in another process and read from
``build/bench/instructions/`` in both, so no memo is warm with them), divided by N. ``scorer``
(guilin only) scores N hands of the bench's fixed corpus (``bench.hands``, seed 1; default 2,000)
with ``best_split``, cold (every memo of the scorer cleared first), then the same hands again
warm, and gives instructions a hand of each pass (the corpus is built in both runs). Needs
valgrind (``apt-get install valgrind``); ~1-2 minutes a count.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path


def _scorer_work(n: int, passes: int) -> None:
    from bench.hands import build_hands, clear_scorer_caches
    from replay.variants.guilin._kernel import best_split

    hands = build_hands(n or 1)[:n]
    for h in build_hands(50, 99):  # warm-up outside the corpus: imports, lazily built tables
        best_split(*h)
    clear_scorer_caches()
    for _ in range(passes):
        for h in hands:
            best_split(*h)


def _work(variant: str, mode: str, n: int, lines_path: str) -> None:
    import msgspec

    from replay.replayer import replay_line
    from replay.simulator import simulate

    enc = msgspec.json.Encoder()
    # read in both runs; simulated beforehand in another process, so no memo is warm with these games
    lines = open(lines_path, "rb").read().splitlines() if mode in ("replay", "ingest") else []
    warm = [enc.encode(r) for r in simulate(variant, 3, 1, bots="random", start=5000)]
    for x in warm:  # warm-up: imports, tables
        replay_line(x)
    if mode == "ingest":
        from datetime import datetime, timezone

        from ingest.reader import Line
        from ingest.rows import process_chunk

        now = datetime(2026, 12, 1, tzinfo=timezone.utc)
        process_chunk(0, 0, [Line("warm", i + 1, x) for i, x in enumerate(warm)], now)  # the rows' imports
        todo = [Line("bench", i + 1, x) for i, x in enumerate(lines[:n])]
        for i in range(0, len(todo), 256):
            chunk = todo[i:i + 256]
            if process_chunk(0, i, chunk, now).counts.valid != len(chunk):
                raise SystemExit(f"a simulated {variant} game did not ingest as valid")
        return
    if mode == "sim":
        for r in simulate(variant, n, 1, bots="random", start=1000):
            enc.encode(r)
    else:
        for x in lines[:n]:
            if not replay_line(x).verdict.valid:
                raise SystemExit(f"a simulated {variant} game did not replay as valid")


def _games(variant: str, n: int) -> Path:
    """``n`` random-bot games of ``variant`` (seed 1, from game 1000) as JSON lines, cached."""
    import msgspec

    from bench.common import BUILD
    from replay import ENGINE_VERSION
    from replay.simulator import simulate

    path = BUILD / "instructions" / f"{variant}-{n}g-s1-e{ENGINE_VERSION}.jsonl"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        enc = msgspec.json.Encoder()
        tmp = path.with_name(path.name + ".part")
        tmp.write_bytes(b"".join(enc.encode(r) + b"\n" for r in simulate(variant, n, 1, bots="random", start=1000)))
        tmp.replace(path)
    return path


def count(variant: str, mode: str, n: int, lines_path: Path, passes: int = 1) -> int:
    """Instructions (callgrind's ``Collected``) of one run of :func:`_work` (``scorer``: of
    :func:`_scorer_work` with ``passes`` passes over the hands)."""
    # Arrow's jemalloc and thread pools make the count wander by ~1% a run; the system allocator on
    # one thread does not
    env = {**os.environ, "PYTHONHASHSEED": "0", "ARROW_DEFAULT_MEMORY_POOL": "system", "OMP_NUM_THREADS": "1",
           "ARROW_IO_THREADS": "1"}
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-m",
                        "bench.instructions", "--work", variant, mode, str(n), "--lines", str(lines_path),
                        "--passes", str(passes)],
                       capture_output=True, text=True, env=env, check=False)
    m = re.search(r"Collected : (\d+)", p.stderr)
    if p.returncode != 0 or not m:
        raise RuntimeError(f"callgrind run failed ({p.returncode}): {p.stderr[-1500:]}")
    return int(m.group(1))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__.split("\n\n")[0])
    ap.add_argument("variant")
    ap.add_argument("mode", nargs="?", default="replay", choices=("replay", "sim", "scorer", "ingest"))
    ap.add_argument("n", nargs="?", type=int)
    ap.add_argument("--work", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--lines", default="", help=argparse.SUPPRESS)
    ap.add_argument("--passes", type=int, default=1, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    n = a.n if a.n is not None else {"replay": 50, "sim": 30, "scorer": 2000, "ingest": 50}[a.mode]
    if a.work:
        if a.mode == "scorer":
            _scorer_work(n, a.passes)
        else:
            _work(a.variant, a.mode, n, a.lines)
        return
    from replay import variants

    known = [v.id for v in variants.VARIANTS.values() if v.implemented]
    if a.variant not in known:
        ap.error(f"unknown variant {a.variant!r}; choose from {', '.join(known)}")
    if n < 1:
        ap.error("N must be at least 1")
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    if a.mode == "scorer":
        if a.variant != "guilin":
            ap.error("the scorer mode counts the 桂林 scorer only: VARIANT must be guilin")
        none, cold, both = (count(a.variant, "scorer", n, Path(os.devnull), k) for k in (0, 1, 2))
        print(f"guilin scorer: {(cold - none) / n:,.0f} instructions a hand cold, "
              f"{(both - cold) / n:,.0f} warm (n={n})")
        return
    lines = _games(a.variant, n) if a.mode in ("replay", "ingest") else Path(os.devnull)
    per_game = (count(a.variant, a.mode, n, lines) - count(a.variant, a.mode, 0, lines)) / n
    print(f"{a.variant} {a.mode}: {per_game:,.0f} instructions a game (n={n})")


if __name__ == "__main__":
    main()
