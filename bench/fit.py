"""``paipu fit`` on a server's logs: ``python -m bench.fit [--games N] [--workers W]``.

Simulates ``N`` guilin games (heuristic bots) under a server's ruleset — the readings a live
public 桂林 server plays (``peng_kai_duo_on_other_flip=true``, ``xing_mode=shangxia``) and
逢3进1 — writes them without their ``rules`` object to ``build/bench/fit/guilin-<N>g.jsonl``
(kept: a second run reuses it), then times ``paipu fit`` on it as a whole process (wall seconds,
the interpreter's start included) and checks that it found that ruleset. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import msgspec

from bench.common import BUILD

SERVER = {"peng_kai_duo_on_other_flip": True, "xing_mode": "shangxia", "tuo_step": 3}


def write_logs(out: Path, games: int, seed: int = 1) -> Path:
    """The server's logs: ``games`` simulated under :data:`SERVER`, ``rules`` left out."""
    from replay.simulator import simulate

    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    with open(tmp, "wb") as f:
        for rec in simulate("guilin", games, seed, rules=SERVER):
            obj = msgspec.to_builtins(rec)
            obj.pop("rules", None)
            f.write(msgspec.json.encode(obj) + b"\n")
    tmp.replace(out)
    return out


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args(argv)
    logs = write_logs(BUILD / "fit" / f"guilin-{a.games}g.jsonl", a.games)
    t0 = time.perf_counter()
    got = subprocess.run([sys.executable, "-m", "paipu.cli", "fit", str(logs), "--variant", "guilin", "--json",
                          "--workers", str(a.workers)], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    res = json.loads(got.stdout)
    out = {"games": res["games"], "workers": a.workers, "wall_s": round(wall, 1),
           "evaluations": res["evaluations"], "valid_default": res["valid_default"], "valid_found": res["valid_found"],
           "rules_found": res["rules"], "found_the_server": res["rules"] == SERVER}
    print(json.dumps(out, ensure_ascii=False))
    return out


if __name__ == "__main__":
    main()
