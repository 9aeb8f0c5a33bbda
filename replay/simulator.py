"""Self-play: deal, let bots play through the engine, write paipu/1 records.

Every record is produced by the same engine that validates it: the simulator only chooses
among ``state`` options, applies events with ``state.apply`` and writes the state's own
result as the claim, so a simulated log is valid by construction (and the tests replay
them to prove it). Deterministic for a seed: each game uses its own ``random.Random``
seeded from ``(seed, game index)``; the global random state is never touched.
"""

from __future__ import annotations

import importlib
import random
from datetime import datetime, timedelta, timezone
from typing import Any, Iterator, Mapping

import msgspec

from replay import variants
from replay.engine import Phase
from replay.options import make_ruleset
from replay.record import Deal, Event, Record, Result, Shuffle
from replay.replayer import shuffle_digest
from replay.rollout import next_events

PLAYERS = 48  # simulated player pool: enough tables for player pages and leaderboards
EPOCH = datetime(2026, 11, 1, 12, 0, tzinfo=timezone(timedelta(hours=8)))


def _bots(variant: str, name: str):
    """The bot class ``name`` of ``variant`` (``replay/variants/<id>/bots.py`` defines ``BOTS``)."""
    import importlib

    try:
        table = importlib.import_module(f"replay.variants.{variant}.bots").BOTS
    except ModuleNotFoundError:
        raise ValueError(f"no bots for variant {variant!r}") from None
    if name not in table:
        raise ValueError(f"bots {name!r} not known for {variant}; known: {', '.join(table)}")
    return table[name]


def seat_bots(variant: str, bots: str, rules: Mapping[str, Any] | None = None) -> list[type]:
    """The bot class of every seat: ``bots`` is one kind for every seat or one a seat,
    comma-separated (``heuristic,ev,heuristic``); the seat count is the variant's, or its
    ``players`` option in ``rules``.

    :raises ValueError: an unknown kind (naming it and the known ones), or a list whose length is not
        the number of seats."""
    spec = variants.get(variant)
    n = int(dict(rules or {}).get("players", spec.players[0]))  # a variant with several seat counts has a `players` option
    kinds = bots.split(",") if "," in bots else [bots] * n
    if len(kinds) != n:
        raise ValueError(f"bots {bots!r} names {len(kinds)} seats; {variant} plays {n} here")
    return [_bots(variant, k) for k in kinds]


def deal_cards(spec: variants.VariantSpec, n: int, dealer: int, rng: random.Random) -> Deal:
    """Shuffle the variant's deck with ``rng`` and deal (dealer first gets the extra card)."""
    cards = spec.deck.all_cards()
    rng.shuffle(cards)
    assert spec.hand_sizes is not None
    dn, on = spec.hand_sizes(n)
    hands, pos = [], 0
    for s in range(n):
        k = dn if s == dealer else on
        hands.append(cards[pos:pos + k])
        pos += k
    return Deal(hands=hands, wall=cards[pos:])


def play(record: Record, rules: Mapping[str, Any], bots: list) -> Record:
    """Play ``record``'s deal to the end with ``bots`` (one per seat); returns the record with
    ``actions`` and ``result`` filled."""
    spec = variants.get(record.variant)
    ruleset = make_ruleset(spec.id, spec.options, rules)
    assert spec.state is not None
    state = spec.state(record, ruleset)
    log: list[Event] = []
    apply, keep = state.apply, log.append
    while state.phase is not Phase.OVER:
        for ev in next_events(state, bots):  # the rollouts' reading of a turn too (replay.rollout)
            apply(ev)
            keep(ev)
    result = msgspec.convert(state.result(), type=Result)
    return msgspec.structs.replace(record, actions=log, result=result)


def simulate(variant: str, games: int, seed: int, bots: str = "heuristic", rules: Mapping[str, Any] | None = None,
             deals: list[dict[str, Any]] | None = None, start: int = 0) -> Iterator[Record]:
    """Yield ``games`` simulated records (or one per given deal).

    :param deals: pre-recorded deals ``{"deal_id", "dealer", "hands", "wall"}`` to play out
        instead of shuffling (e.g. data/guilin-deals-2017.jsonl).
    :param start: index of the first game (for sharding a run across processes; a multiple of 8
        keeps tables whole, which variants with dealer succession need).
    :param bots: one bot kind for every seat (``heuristic``, ``random``, ``rollout``) or one a seat,
        comma-separated (``rollout,heuristic,heuristic``: the duplicate matches of bench/duplicate.py);
        each seat's bot draws from its own stream ``(game, seat, seed)`` whatever its kind.
    :raises ValueError: unknown variant or bots, or a per-seat list of the wrong length.
    """
    spec = variants.get(variant)
    if not spec.implemented:
        raise ValueError(f"variant {variant!r} is not implemented yet")
    rules = dict(rules or {})
    bot_cls = seat_bots(variant, bots, rules)
    n = len(bot_cls)  # the seats: the variant's, or its `players` option
    ruleset = make_ruleset(spec.id, spec.options, rules)
    rid = variant if ruleset.id.endswith("-default") else ruleset.id  # game ids unique across rulesets
    # ... and across bot kinds (spec §2: unique across all files); heuristic ids keep their old form
    bid = "" if bots == "heuristic" else f"{bots.replace(',', '+')}-"
    todo = range(start, start + games) if deals is None else range(len(deals))
    # Variants whose dealer follows the previous hand (e.g. 定庄 in yuanjiang_guihuzi) define
    # ``next_dealer(prev_dealer, prev_result, n)``; tables are 8 consecutive games.
    next_dealer = getattr(importlib.import_module(f"replay.variants.{variant}"), "next_dealer", None)
    prev: tuple[int, Result | None] | None = None
    for i in todo:
        rng = random.Random(f"paipu:{variant}:{seed}:{i}")
        table = i // 8
        trng = random.Random(f"paipu:table:{seed}:{table}")
        seats = [f"p{k:03d}" for k in trng.sample(range(PLAYERS), n)]
        if deals is None:
            if next_dealer is None:
                dealer = i % n
            elif i % 8 == 0 or prev is None:
                dealer = trng.randrange(n)  # 首局随机坐庄
            else:
                dealer = next_dealer(prev[0], prev[1], n)
            deal = deal_cards(spec, n, dealer, rng)
            gid = f"sim-{rid}-{bid}{seed}-{i:07d}"
            shuffle = Shuffle(algo="python-random-shuffle", seed=f"paipu:{variant}:{seed}:{i}")
        else:
            d = deals[i]
            dealer = int(d.get("dealer", 0))
            deal = Deal(hands=d["hands"], wall=d["wall"])
            gid = f"{d.get('deal_id', f'deal-{i}')}-{bid}s{seed}"
            shuffle = Shuffle(algo="recorded-deal", seed=str(d.get("deal_id")))
        shuffle.digest = shuffle_digest([c for h in deal.hands for c in h] + list(deal.wall))
        rec = Record(format="paipu/1", game_id=gid, variant=variant, seats=seats, dealer=dealer, deal=deal,
                     actions=[], rules=rules, started_at=(EPOCH + timedelta(minutes=7 * i)).isoformat(),
                     table_id=f"sim-{seed}-t{table}", round=i % 8 + 1, stake=1, shuffle=shuffle)
        done = play(rec, rules, [bot_cls[s](random.Random(f"{i}:{s}:{seed}")) for s in range(n)])
        prev = (dealer, done.result)
        yield done
