"""Tamper-detection harness: mutate valid logs once and see whether replay catches it.

For every implemented variant (``replay.variants.VARIANTS``), :func:`run` simulates valid games
(``replay.simulator.simulate``), applies single mutations of the kinds in :data:`KINDS` — change
a card, a seat, an act, a ``from``; drop, duplicate or swap an event; alter the deck; change a
claimed score, points, units, winner, hand type; change the stake or the dealer; swap two
players — replays each mutated record with ``replay.replayer.replay_line`` and sorts it:

- ``caught``: the verdict is invalid (the first error code is tallied);
- ``legal``: the verdict is valid *and* the harness proves the mutated record is another legal
  game: every claimed result field equals the computed one (its own comparison, so a claimed
  field the engine does not compute is not taken on trust), and a second pass checks every event
  against the engine's generator (``state.legal_events()``, what the simulator plays from)
  rather than its verifier (``state.apply``);
- ``missed``: valid, but not proven legal — an engine gap, printed with the mutation;
- ``unchanged``: the mutation gave the same record (e.g. two equal events swapped).

``caught share = caught / (caught + missed)``. Deck mutations recompute ``shuffle.digest`` (a
server that lies about the deal can recompute it too), so they measure replay itself; the kind
``deck.keep_digest`` shows what the commitment alone catches.

Run: ``python -m ingest.mutate --games 10 --per-kind 3`` (a table per variant; ``--show-misses``
prints the missed records' mutations).
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from replay.workers import process_pool

Mutation = Callable[[dict, Any, random.Random], "tuple[str, dict] | None"]


# -- mutations ---------------------------------------------------------------------------------
# Each takes the record (a dict; it may be changed in place: the caller passes a copy), the
# variant spec and a random generator; returns (what was done, the record) or None when the
# record offers nothing to mutate of that kind.

def _other_card(spec: Any, code: str, rng: random.Random) -> str:
    k = spec.deck.index(code)
    return rng.choice([c for i, c in enumerate(spec.deck.codes) if i != k])


def _events_with(rec: dict, key: str) -> list[int]:
    return [i for i, ev in enumerate(rec["actions"]) if ev.get(key) not in (None, [], False)]


def _digest(rec: dict, spec: Any) -> None:
    """Recompute ``shuffle.digest`` for the altered deal (what a lying server would do)."""
    from replay.replayer import shuffle_digest

    if rec.get("shuffle", {}).get("digest"):
        cards = [spec.deck.canonical(c) for h in rec["deal"]["hands"] for c in h]
        cards += [spec.deck.canonical(c) for c in rec["deal"]["wall"]]
        rec["shuffle"]["digest"] = shuffle_digest(cards)


def m_card(rec, spec, rng):
    idx = _events_with(rec, "card")
    if not idx:
        return None
    i = rng.choice(idx)
    old = rec["actions"][i]["card"]
    rec["actions"][i]["card"] = new = _other_card(spec, old, rng)
    return f"actions[{i}].card {old} → {new}", rec


def m_cards(rec, spec, rng):
    idx = _events_with(rec, "cards")
    if not idx:
        return None
    i = rng.choice(idx)
    cards = rec["actions"][i]["cards"]
    j = rng.randrange(len(cards))
    old = cards[j]
    cards[j] = new = _other_card(spec, old, rng)
    return f"actions[{i}].cards[{j}] {old} → {new}", rec


def m_seat(rec, spec, rng):
    if not rec["actions"]:
        return None
    i = rng.randrange(len(rec["actions"]))
    n = len(rec["seats"])
    old = rec["actions"][i]["seat"]
    rec["actions"][i]["seat"] = new = rng.choice([s for s in range(n) if s != old])
    return f"actions[{i}].seat {old} → {new}", rec


def m_act(rec, spec, rng):
    if not rec["actions"]:
        return None
    i = rng.randrange(len(rec["actions"]))
    old = rec["actions"][i]["act"]
    rec["actions"][i]["act"] = new = rng.choice(sorted(a for a in spec.acts if a != old))
    return f"actions[{i}].act {old} → {new}", rec


def m_from(rec, spec, rng):
    idx = [i for i, ev in enumerate(rec["actions"]) if ev.get("from") is not None]
    if not idx:
        return None
    i = rng.choice(idx)
    old = rec["actions"][i]["from"]
    rec["actions"][i]["from"] = new = rng.choice([s for s in range(len(rec["seats"])) if s != old])
    return f"actions[{i}].from {old} → {new}", rec


def m_drop(rec, spec, rng):
    if not rec["actions"]:
        return None
    i = rng.randrange(len(rec["actions"]))
    ev = rec["actions"].pop(i)
    return f"dropped actions[{i}] {ev}", rec


def m_dup(rec, spec, rng):
    if not rec["actions"]:
        return None
    i = rng.randrange(len(rec["actions"]))
    rec["actions"].insert(i + 1, copy.deepcopy(rec["actions"][i]))
    return f"duplicated actions[{i}] {rec['actions'][i]}", rec


def m_swap_next(rec, spec, rng):
    acts = rec["actions"]
    idx = [i for i in range(len(acts) - 1) if acts[i] != acts[i + 1]]
    if not idx:
        return None
    i = rng.choice(idx)
    acts[i], acts[i + 1] = acts[i + 1], acts[i]
    return f"swapped actions[{i}] and [{i + 1}]", rec


def m_swap_any(rec, spec, rng):
    acts = rec["actions"]
    if len(acts) < 3:
        return None
    i, j = sorted(rng.sample(range(len(acts)), 2))
    if acts[i] == acts[j]:
        return None
    acts[i], acts[j] = acts[j], acts[i]
    return f"swapped actions[{i}] and [{j}]", rec


def _swap_wall(rec, spec, rng):
    w = rec["deal"]["wall"]
    pairs = [(i, j) for i in range(len(w)) for j in range(i + 1, min(len(w), i + 6))
             if spec.deck.index(w[i]) != spec.deck.index(w[j])]
    if not pairs:
        return None
    i, j = rng.choice(pairs)
    w[i], w[j] = w[j], w[i]
    return f"deal.wall[{i}] ↔ deal.wall[{j}]", rec


def m_deck_swap_wall(rec, spec, rng):
    got = _swap_wall(rec, spec, rng)
    if got:
        _digest(rec, spec)
    return got


def m_deck_keep_digest(rec, spec, rng):
    if not rec.get("shuffle", {}).get("digest"):
        return None
    return _swap_wall(rec, spec, rng)


def m_deck_hand_wall(rec, spec, rng):
    hands, w = rec["deal"]["hands"], rec["deal"]["wall"]
    if not w:
        return None
    s = rng.randrange(len(hands))
    i = rng.randrange(len(hands[s]))
    js = [j for j in range(len(w)) if spec.deck.index(w[j]) != spec.deck.index(hands[s][i])]
    if not js:
        return None
    j = rng.choice(js)
    hands[s][i], w[j] = w[j], hands[s][i]
    _digest(rec, spec)
    return f"deal.hands[{s}][{i}] ↔ deal.wall[{j}]", rec


def m_deck_hands(rec, spec, rng):
    hands = rec["deal"]["hands"]
    a, b = rng.sample(range(len(hands)), 2)
    i, j = rng.randrange(len(hands[a])), rng.randrange(len(hands[b]))
    if spec.deck.index(hands[a][i]) == spec.deck.index(hands[b][j]):
        return None
    hands[a][i], hands[b][j] = hands[b][j], hands[a][i]
    _digest(rec, spec)
    return f"deal.hands[{a}][{i}] ↔ deal.hands[{b}][{j}]", rec


def m_deck_replace(rec, spec, rng):
    w = rec["deal"]["wall"]
    if not w:
        return None
    i = rng.randrange(len(w))
    old = w[i]
    w[i] = new = _other_card(spec, old, rng)
    _digest(rec, spec)
    return f"deal.wall[{i}] {old} → {new} (not the deck any more)", rec


def _result(rec):
    r = rec.get("result")
    return r if isinstance(r, dict) else None


def m_score(rec, spec, rng):
    r = _result(rec)
    if not r or not r.get("scores"):
        return None
    i = rng.randrange(len(r["scores"]))
    d = rng.choice([-2, -1, 1, 2])
    r["scores"][i] += d
    return f"result.scores[{i}] {d:+d}", rec


def m_score_transfer(rec, spec, rng):
    r = _result(rec)
    if not r or not r.get("scores") or len(r["scores"]) < 2:
        return None
    i, j = rng.sample(range(len(r["scores"])), 2)
    d = rng.choice([1, 2, 5])
    r["scores"][i] += d
    r["scores"][j] -= d
    return f"result.scores: {d} moved from seat {j} to seat {i} (still sums to 0)", rec


def _bump(rec, key, rng):
    r = _result(rec)
    if not r or not isinstance(r.get(key), int) or isinstance(r.get(key), bool):
        return None
    d = rng.choice([-1, 1, 2])
    r[key] += d
    return f"result.{key} {d:+d}", rec


def m_points(rec, spec, rng):
    return _bump(rec, "points", rng)


def m_units(rec, spec, rng):
    return _bump(rec, "units", rng)


def m_winner(rec, spec, rng):
    r = _result(rec)
    if not r or r.get("winner") is None:
        return None
    old = r["winner"]
    r["winner"] = new = rng.choice([s for s in range(len(rec["seats"])) if s != old])
    return f"result.winner {old} → {new}", rec


def m_outcome(rec, spec, rng):
    r = _result(rec)
    if not r or r.get("outcome") not in ("win", "draw"):
        return None
    old = r["outcome"]
    r["outcome"] = new = "draw" if old == "win" else "win"
    return f"result.outcome {old} → {new}", rec


def m_hand_types(rec, spec, rng):
    r = _result(rec)
    if not r or not isinstance(r.get("hand_types"), list):
        return None
    ht = r["hand_types"]
    if ht and rng.random() < 0.5:
        gone = ht.pop(rng.randrange(len(ht)))
        return f"result.hand_types without {gone}", rec
    extra = rng.choice([x for x in ("zimo", "tianhu", "dihu", "haidi", "qingyise", "x_bonus") if x not in ht])
    ht.append(extra)
    return f"result.hand_types + {extra}", rec


def m_win_card(rec, spec, rng):
    r = _result(rec)
    if not r or not r.get("win_card"):
        return None
    old = r["win_card"]
    r["win_card"] = new = _other_card(spec, old, rng)
    return f"result.win_card {old} → {new}", rec


def m_stake(rec, spec, rng):
    old = rec.get("stake", 1)
    rec["stake"] = new = old + rng.choice([1, 2])
    return f"stake {old} → {new}", rec


def m_dealer(rec, spec, rng):
    old = rec["dealer"]
    rec["dealer"] = new = rng.choice([s for s in range(len(rec["seats"])) if s != old])
    return f"dealer {old} → {new}", rec


def m_players(rec, spec, rng):
    a, b = rng.sample(range(len(rec["seats"])), 2)
    s = rec["seats"]
    s[a], s[b] = s[b], s[a]
    return f"seats: players of seats {a} and {b} swapped", rec


KINDS: dict[str, Mutation] = {
    "event.card": m_card, "event.cards": m_cards, "event.seat": m_seat, "event.act": m_act,
    "event.from": m_from, "event.drop": m_drop, "event.duplicate": m_dup, "event.swap_next": m_swap_next,
    "event.swap_any": m_swap_any, "deck.swap_wall": m_deck_swap_wall, "deck.hand_wall": m_deck_hand_wall,
    "deck.swap_hands": m_deck_hands, "deck.replace": m_deck_replace, "deck.keep_digest": m_deck_keep_digest,
    "result.score": m_score, "result.score_transfer": m_score_transfer, "result.points": m_points,
    "result.units": m_units, "result.winner": m_winner, "result.outcome": m_outcome,
    "result.hand_types": m_hand_types, "result.win_card": m_win_card, "record.stake": m_stake,
    "record.dealer": m_dealer, "record.players": m_players,
}
"""Every mutation kind. ``record.players`` (who sat where) is legal by design: no replay can
tell; it is listed so that the figure shows it."""


# -- judging -------------------------------------------------------------------------------------

def _same(key: str, claimed: Any, computed: Any) -> bool:
    if key == "hand_types":
        return set(claimed or []) == set(computed or [])
    if key == "xing" and isinstance(claimed, dict) and isinstance(computed, dict):
        return claimed.get("count") == computed.get("count") and list(claimed.get("cards", [])) == \
            list(computed.get("cards", []))
    return claimed == computed


def prove_legal(rec: dict, out: Any) -> str | None:
    """Why a record replay judged valid is not proven another legal game, or None when it is.

    Checks every claimed result field against the computed one (a field replay does not compute
    is not proven) and replays the events against ``state.legal_events()``.
    """
    from replay import variants
    from replay.engine import Phase, event_key
    from replay.errors import RuleViolation
    from replay.record import decode_record

    claimed = rec.get("result")
    computed = out.verdict.computed or {}
    if isinstance(claimed, dict):
        for key, val in claimed.items():
            if key not in computed:
                return f"result.{key} is claimed but replay does not compute it"
            if not _same(key, val, computed[key]):
                return f"result.{key}: claimed {val!r}, computed {computed[key]!r}"
    r = decode_record(json.dumps(rec).encode())
    spec = variants.get(r.variant)
    assert spec.state is not None  # replay judged the record valid: its variant plays
    state = spec.state(r, out.ruleset)
    for i, ev in enumerate(r.actions):
        key = event_key(ev, spec.deck)
        try:
            legal = {event_key(e, spec.deck) for e in state.legal_events()}
            if key not in legal and state.phase in (Phase.WINDOW, Phase.START) and (
                    ev.act == "draw" or not state._targets_window(ev)):
                state.close_window()  # the core closes a window this way before the next draw/discard
                legal = {event_key(e, spec.deck) for e in state.legal_events()}
        except RuleViolation as e:
            return f"step {i}: the window could not close: {e.code} {e.message}"
        except Exception as e:  # the generator itself failing is a finding too
            return f"step {i}: legal_events() raised {type(e).__name__}: {e}"
        if key not in legal:
            return f"step {i}: {ev} is not among the {len(legal)} legal events"
        state.apply(ev)
    return None


def judge(rec: dict, original: dict) -> tuple[str, str]:
    """``(category, detail)``: ``caught`` (first error code), ``legal``, ``missed`` (why) or
    ``unchanged``."""
    from replay.replayer import replay_line

    if json.dumps(rec, sort_keys=True) == json.dumps(original, sort_keys=True):
        return "unchanged", ""
    out = replay_line(json.dumps(rec, ensure_ascii=False).encode())
    if not out.verdict.valid:
        return "caught", out.verdict.errors[0].code
    why = prove_legal(rec, out)
    return ("legal", "") if why is None else ("missed", why)


# -- running ---------------------------------------------------------------------------------------

@dataclass
class VariantFigures:
    """What the harness found for one variant."""

    variant: str
    games: int = 0
    mutations: int = 0
    by_category: Counter = field(default_factory=Counter)
    by_code: Counter = field(default_factory=Counter)
    by_kind: dict[str, Counter] = field(default_factory=dict)
    misses: list[dict] = field(default_factory=list)
    originals_proven: int = 0

    @property
    def caught_share(self) -> float:
        """``caught / (caught + missed)`` (1.0 when nothing was to catch)."""
        c, m = self.by_category["caught"], self.by_category["missed"]
        return c / (c + m) if c + m else 1.0


def mutate_variant(variant: str, games: int, seed: int, per_kind: int,
                   kinds: tuple[str, ...] | None = None) -> VariantFigures:
    """Simulate ``games`` games of ``variant`` and judge ``per_kind`` mutations of each kind per game."""
    import msgspec

    from replay.replayer import replay_line
    from replay.simulator import simulate

    figs = VariantFigures(variant)
    from replay import variants

    spec = variants.get(variant)
    for rec_struct in simulate(variant, games, seed):
        original = msgspec.to_builtins(rec_struct)
        figs.games += 1
        out = replay_line(json.dumps(original, ensure_ascii=False).encode())
        if out.verdict.valid and prove_legal(original, out) is None:
            figs.originals_proven += 1
        for kind in kinds or tuple(KINDS):
            rng = random.Random(f"{seed}:{original['game_id']}:{kind}")
            seen: set[str] = set()
            for _ in range(per_kind * 3):
                if sum(figs.by_kind.get(kind, Counter()).values()) >= per_kind * figs.games:
                    break
                got = KINDS[kind](copy.deepcopy(original), spec, rng)
                if got is None:
                    break
                what, rec = got
                text = json.dumps(rec, sort_keys=True)
                if text in seen:
                    continue
                seen.add(text)
                cat, detail = judge(rec, original)
                figs.mutations += 1
                figs.by_category[cat] += 1
                figs.by_kind.setdefault(kind, Counter())[cat] += 1
                if cat == "caught":
                    figs.by_code[detail] += 1
                elif cat == "missed":
                    figs.misses.append({"kind": kind, "mutation": what, "why": detail, "record": rec})
    return figs


def run(variants_: list[str] | None = None, games: int = 5, seed: int = 1, per_kind: int = 2,
        workers: int = 1, kinds: tuple[str, ...] | None = None) -> list[VariantFigures]:
    """Figures for each variant (default: every implemented one), variants in parallel."""
    from replay.variants import VARIANTS

    todo = variants_ or [v.id for v in VARIANTS.values() if v.implemented]
    if workers <= 1:
        return [mutate_variant(v, games, seed, per_kind, kinds) for v in todo]
    with process_pool(workers) as pool:
        return list(pool.map(mutate_variant, todo, [games] * len(todo), [seed] * len(todo),
                             [per_kind] * len(todo), [kinds] * len(todo)))


def format_table(figs: list[VariantFigures]) -> str:
    """A plain-text table: one row per variant, then each variant's codes."""
    head = f"{'variant':<22}{'games':>6}{'muts':>7}{'unchg':>7}{'legal':>7}{'caught':>8}{'missed':>8}{'caught%':>9}"
    lines = [head, "-" * len(head)]
    for f in figs:
        c = f.by_category
        lines.append(f"{f.variant:<22}{f.games:>6}{f.mutations:>7}{c['unchanged']:>7}{c['legal']:>7}"
                     f"{c['caught']:>8}{c['missed']:>8}{100 * f.caught_share:>8.2f}%")
    lines.append("")
    for f in figs:
        codes = ", ".join(f"{k} {v}" for k, v in f.by_code.most_common())
        legal = ", ".join(f"{k} {v['legal']}" for k, v in sorted(f.by_kind.items()) if v["legal"])
        lines.append(f"{f.variant}: originals proven legal {f.originals_proven}/{f.games}; codes: {codes}")
        if legal:
            lines.append(f"  legal mutations by kind: {legal}")
        for m in f.misses[:5]:
            lines.append(f"  MISSED {m['kind']}: {m['mutation']} — {m['why']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m ingest.mutate``: print the figures; exit 1 if a variant is under ``--target``."""
    ap = argparse.ArgumentParser(prog="python -m ingest.mutate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default="", help="comma-separated ids (default: every implemented one)")
    ap.add_argument("--games", type=int, default=5, help="simulated games per variant")
    ap.add_argument("--per-kind", type=int, default=2, help="mutations of each kind per game")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--target", type=float, default=99.0, help="caught share in %% every variant must reach")
    ap.add_argument("--show-misses", metavar="FILE", help="write every missed mutation as JSON Lines")
    a = ap.parse_args(argv)
    figs = run([v for v in a.variants.split(",") if v] or None, a.games, a.seed, a.per_kind, a.workers)
    print(format_table(figs))
    if a.show_misses:
        with open(a.show_misses, "w", encoding="utf-8") as fh:
            for f in figs:
                for m in f.misses:
                    fh.write(json.dumps({"variant": f.variant, **m}, ensure_ascii=False) + "\n")
    return 0 if all(100 * f.caught_share >= a.target for f in figs) else 1


if __name__ == "__main__":
    sys.exit(main())
