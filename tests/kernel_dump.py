"""Everything the engine answers on a fixed corpus, as bytes: ``python tests/kernel_dump.py OUT``.

Run once per kernel (``PAIPU_KERNEL=python`` / ``compiled``) by tests/test_kernel.py, which requires
the two files to be byte-identical. Written by the process itself, so the simulation is compared too.

The corpus, per implemented variant (通城個子牌 also at 3 seats): simulated games (heuristic and
random bots), each option value other than the default played out once, the golden logs of
tests/golden; then tampered copies of each game (its claimed units one more, an action left out,
two actions swapped, the last one cut) for the error paths; and the bad-input lines of
tests/data/bad/cases. Written per line: the verdict, the facts, the audit table of the line's
middle step (``replay_record(stop_after=…)`` and ``snapshot()``); then the warehouse rows of the
whole corpus (``ingest.rows.process_chunk``); then the 桂林 scorer (``best_split`` /
``best_points``) on the bench's fixed hands.
"""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path

import msgspec

HERE = Path(__file__).resolve().parent
SIM_GAMES = 6  # per bot kind and variant
OPTION_GAMES = 1  # per non-default option value


def _tampered(raw: bytes) -> list[bytes]:
    obj = msgspec.json.decode(raw)
    out = []
    acts = obj.get("actions") or []
    res = obj.get("result") or {}
    if isinstance(res.get("units"), int):
        out.append({**obj, "game_id": obj["game_id"] + "-units", "result": {**res, "units": res["units"] + 1}})
    if len(acts) > 4:
        mid = len(acts) // 2
        out.append({**obj, "game_id": obj["game_id"] + "-skip", "actions": acts[:mid] + acts[mid + 1:]})
        out.append({**obj, "game_id": obj["game_id"] + "-swap",
                    "actions": acts[:mid] + [acts[mid + 1], acts[mid]] + acts[mid + 2:]})
        out.append({**obj, "game_id": obj["game_id"] + "-cut", "actions": acts[:-1]})
    return [msgspec.json.encode(o) for o in out]


def corpus() -> list[bytes]:
    """The lines the two kernels are compared on (see the module doc)."""
    from replay import variants
    from replay.simulator import simulate

    enc = msgspec.json.Encoder()
    lines: list[bytes] = []
    for spec in variants.VARIANTS.values():
        if not spec.implemented:
            continue
        seatings = [{}] + [{"players": n} for n in spec.players[1:]]
        for rules in seatings:
            for bots in ("heuristic", "random"):
                lines += [enc.encode(r) for r in simulate(spec.id, SIM_GAMES, 3, bots=bots, rules=rules)]
        for opt in spec.options:
            if opt.name == "players":
                continue
            for value in opt.allowed:
                if value != opt.default:
                    try:
                        recs = list(simulate(spec.id, OPTION_GAMES, 5, bots="random", rules={opt.name: value}))
                    except (ValueError, TypeError):  # a value that needs another option with it
                        continue
                    lines += [enc.encode(r) for r in recs]
        golden = HERE / "golden" / f"{spec.id}.jsonl"
        if golden.exists():
            lines += [x for x in golden.read_bytes().splitlines() if x.strip()]
    lines += [t for raw in list(lines) for t in _tampered(raw)]
    for f in sorted((HERE / "data" / "bad" / "cases").glob("*.jsonl")):
        lines += [x for x in f.read_bytes().splitlines() if x.strip()]
    return lines


def dump(out: Path) -> None:
    """Write every answer of the engine on :func:`corpus` to ``out``."""
    from bench.hands import build_hands
    from ingest.reader import Line
    from ingest.rows import process_chunk
    from replay.replayer import replay_line, replay_record
    from replay.variants.guilin._kernel import best_points, best_split

    enc = msgspec.json.Encoder()
    lines = corpus()
    with open(out, "wb") as f:
        for i, raw in enumerate(lines):
            o = replay_line(raw)
            f.write(b"line %d " % i + raw + b"\n")
            f.write(enc.encode(o.verdict) + b"\n")
            f.write(enc.encode(o.facts) + b"\n")
            if o.record is not None and o.ruleset is not None and o.record.actions:
                mid = replay_record(o.record, raw, stop_after=len(o.record.actions) // 2)
                snap = getattr(mid.state, "snapshot", None)
                f.write(enc.encode(snap() if snap is not None and mid.state is not None else None) + b"\n")
        at = datetime(2026, 1, 1, tzinfo=timezone.utc)
        res = process_chunk(0, 0, [Line("corpus.jsonl", i + 1, raw) for i, raw in enumerate(lines)], at)
        for name in sorted(res.tables):
            f.write(f"table {name}\n".encode())
            for row in res.tables[name].to_pylist():
                f.write(enc.encode({k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in row.items()})
                        + b"\n")
        f.write(enc.encode([res.counts.valid, res.counts.invalid, res.counts.rejected]) + b"\n")
        for hand, melds, w, wf in build_hands(4000, 3):
            sp = best_split(hand, melds, w, wf)
            pts = best_points(hand, melds, w, wf)
            f.write(enc.encode([pts, None if sp is None else [sp.points, [(g.kind, g.cards, g.points, g.origin)
                                                                           for g in sp.groups]]]) + b"\n")


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    from replay import kernel

    dump(Path(sys.argv[1]))
    print(kernel.describe())
