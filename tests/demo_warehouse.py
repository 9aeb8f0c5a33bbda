"""A demo warehouse for the dashboard, tune and browser tests, built once per test session.

It holds what each page needs to show real figures:

- a tuning experiment: guilin ``tuo_step=5`` (A) against ``tuo_step=3`` (B) on the same
  :data:`TUNE_DEALS` deals (``paipu tune``'s own code path);
- simulated guilin games outside experiments under two rulesets (defaults, and
  ``zimo_bonus=double``), for the overview, player, leaderboard and fairness pages;
- a planted collusion lead: in :data:`RING_GAMES` games (one per table) where someone dealt in,
  the winner is renamed ``ring-a`` and the discarder ``ring-b`` (the games stay valid: seats are
  labels);
- the worked example ``data/guilin-short.jsonl`` (``example-guilin-1``), one game that breaks a
  rule (``demo-bad-turn``: out of turn at step 3), one whose claim differs (``demo-bad-claim``);
- three rejected lines (bad JSON, an unknown variant, not an object).

Build cost on a loaded 2-core machine: about half a minute.
"""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parent.parent
TUNE_DEALS = 300
TUNE_SEED = 11
PLAIN_GAMES = 120
DOUBLE_GAMES = 60
RING_GAMES = 12


@dataclass(frozen=True)
class Demo:
    warehouse: Path
    tune: object  # analytics.tune.TuneResult
    ring_games: tuple[str, ...]
    double_ruleset: str  # ruleset_id of the zimo_bonus=double games (outside experiments)


def _lines(records) -> list[bytes]:
    return [msgspec.json.encode(r) for r in records]


@functools.cache
def build() -> Demo:
    """Build the demo warehouse in a temporary folder (removed at exit) and return it."""
    from analytics import tune
    from ingest.run import ingest
    from replay.simulator import simulate

    tmp = Path(tempfile.mkdtemp(prefix="paipu-demo-"))
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    wh = tmp / "warehouse"
    logs = tmp / "logs"
    logs.mkdir()

    res = tune.run("guilin", "tuo_step=5", "tuo_step=3", TUNE_DEALS, TUNE_SEED, wh, workers=2)

    plain = [msgspec.to_builtins(r) for r in simulate("guilin", PLAIN_GAMES, 3, "heuristic", {})]
    ring: list[str] = []
    tables: set[str] = set()
    for rec in plain:
        res_ = rec.get("result") or {}
        acts = rec["actions"]
        dealt_in = (res_.get("outcome") == "win" and res_.get("from") is not None and len(acts) >= 2
                    and acts[-2]["act"] == "discard" and acts[-2]["seat"] == res_["from"])
        if len(ring) < RING_GAMES and dealt_in and rec["table_id"] not in tables:
            rec["seats"][res_["winner"]] = "ring-a"  # one 放炮 game per table: a pair that meets
            rec["seats"][res_["from"]] = "ring-b"    # everywhere and always pays the same way
            tables.add(rec["table_id"])
            ring.append(rec["game_id"])
    bad_turn = json.loads(json.dumps(plain[-1]))
    bad_turn["game_id"] = "demo-bad-turn"
    bad_turn["actions"][3]["seat"] = (bad_turn["actions"][3]["seat"] + 1) % 3
    bad_claim = json.loads(json.dumps(plain[-2]))
    bad_claim["game_id"] = "demo-bad-claim"
    if (bad_claim.get("result") or {}).get("points") is not None:
        bad_claim["result"]["points"] += 7
    else:
        bad_claim["result"]["units"] = 99
    (logs / "guilin-plain.jsonl").write_bytes(
        b"\n".join(msgspec.json.encode(r) for r in [*plain, bad_turn, bad_claim]) + b"\n")
    double = _lines(simulate("guilin", DOUBLE_GAMES, 4, "heuristic", {"zimo_bonus": "double"}))
    (logs / "guilin-double.jsonl").write_bytes(b"\n".join(double) + b"\n")
    shutil.copy(ROOT / "data" / "guilin-short.jsonl", logs / "guilin-short.jsonl")
    (logs / "broken.jsonl").write_text(
        '{oops\n{"format": "paipu/1", "game_id": "mj-1", "variant": "mahjong", "seats": ["a", "b"], '
        '"dealer": 0, "deal": {"hands": [[], []], "wall": []}, "actions": []}\n[1, 2]\n', encoding="utf-8")
    ingest([logs], wh, workers=2, progress=False)
    from replay import variants
    from replay.options import make_ruleset

    spec = variants.get("guilin")
    return Demo(wh, res, tuple(ring), make_ruleset("guilin", spec.options, {"zimo_bonus": "double"}).id)
