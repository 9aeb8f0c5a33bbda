"""A million-game ingest, streamed, with its peak memory: ``python -m bench.million [--games N]``.

The ingest streams, so its peak memory must not grow with the input: 1M games are never all in
memory. Simulating a million games would take hours here, so the input is the cached 20,000-game
guilin bench corpus (``make bench`` or ``python -m bench.run --only replay --variants guilin``
writes it) repeated:
copy ``r`` of game ``i`` gets the id ``m<r>-<original id>`` and a ``started_at`` in month
``2026-01 + r mod 12``, so every line is a distinct game that replays valid and the warehouse
fills twelve month partitions. The repeats replay like their originals (same deal, same events),
so the memos of the scorer are warmer than on a million fresh games; memory is what this measures.

Writes the input once to ``build/bench/million/guilin-<N>g.jsonl`` (about 2.9 KB a game), then
runs :func:`bench.ingest_probe.run_probe` with 2 workers into a fresh warehouse and prints (and
writes to ``build/bench/million/result-<N>g.json``) its JSON: wall and CPU seconds, games/s, and
``peak_rss_mb``, the largest summed resident memory of the ingest's whole process tree.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

from bench.common import BUILD
from bench.corpus import corpus_path, read_corpus

_STARTED = re.compile(rb'"started_at":"[^"]*"')


def write_input(out: Path, games: int, source: Path) -> Path:
    """Write ``games`` lines built from ``source`` (see the module doc) to ``out``; returns ``out``.

    :raises FileNotFoundError: the source corpus is missing.
    """
    base = read_corpus(source)
    tmp = out.with_name(out.name + ".part")
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(tmp, "wb") as f:
        for n in range(games):
            r, i = divmod(n, len(base))
            line = base[i]
            line = line.replace(b'"game_id":"', b'"game_id":"m%d-' % r, 1)
            line = _STARTED.sub(b'"started_at":"2026-%02d-15T12:00:00Z"' % (r % 12 + 1), line, count=1)
            f.write(line + b"\n")
    tmp.replace(out)
    return out


def main(argv: list[str] | None = None) -> None:
    from bench.ingest_probe import run_probe

    ap = argparse.ArgumentParser(prog="python -m bench.million", description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--source", type=Path, default=corpus_path("guilin", 20_000, 1, "random"))
    args = ap.parse_args(argv)
    folder = BUILD / "million"
    inp = folder / f"guilin-{args.games}g.jsonl"
    if not inp.exists():
        t = time.perf_counter()
        write_input(inp, args.games, args.source)
        print(f"input written in {time.perf_counter() - t:.0f} s: {inp} ({inp.stat().st_size / 1e9:.2f} GB)", flush=True)
    res = run_probe(inp, folder / f"wh-{args.games}g", args.workers, timeout=6 * 3600)  # removed after
    res["input_bytes"] = inp.stat().st_size
    (folder / f"result-{args.games}g.json").write_text(json.dumps(res, indent=1))
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
