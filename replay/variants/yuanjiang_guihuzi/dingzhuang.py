"""定庄 across the hands of one table (003 §4 定庄: 首局随机坐庄, 次局开始胡牌者坐庄, 荒庄下家坐庄).

A pure check over the warehouse's games rows; replay of one record cannot see the previous hand.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable


def check_dealer_sequence(games: Iterable[tuple[str, int, int, int | None]], players: int = 3) -> list[str]:
    """Problems with the dealers of each table's hands.

    :param games: ``(table_id, round, dealer, winner_or_None)`` per hand, any order; ``winner`` None
        means 荒庄 (a drawn hand).
    :param players: seats at the table (3, or 2 under option ``players``).
    :returns: one sentence per problem, in table then round order; empty when every hand's dealer
        follows 003 §4: the first hand any dealer, then the previous hand's winner, or after 荒庄
        the previous dealer's 下家 ((dealer + 1) mod players). A round that repeats or leaves a gap
        is reported, and no dealer is checked across the gap.
    """
    by_table: dict[str, list[tuple[int, int, int | None]]] = defaultdict(list)
    for table, rnd, dealer, winner in games:
        by_table[table].append((rnd, dealer, winner))
    out: list[str] = []
    for table in sorted(by_table):
        hands = sorted(by_table[table], key=lambda g: g[0])
        prev: tuple[int, int, int | None] | None = None
        for rnd, dealer, winner in hands:
            if not 0 <= dealer < players:
                out.append(f"table {table} round {rnd}: dealer {dealer} is not a seat (0..{players - 1})")
                prev = None
                continue
            if prev is not None:
                p_rnd, p_dealer, p_winner = prev
                if rnd == p_rnd:
                    out.append(f"table {table} round {rnd}: logged twice")
                    continue
                if rnd != p_rnd + 1:
                    out.append(f"table {table}: rounds {p_rnd + 1}..{rnd - 1} are missing; dealer of round {rnd} not checked")
                elif p_winner is not None and dealer != p_winner:
                    out.append(f"table {table} round {rnd}: dealer is seat {dealer}, but seat {p_winner} won round "
                               f"{p_rnd} and deals next (胡牌者坐庄)")
                elif p_winner is None and dealer != (p_dealer + 1) % players:
                    out.append(f"table {table} round {rnd}: dealer is seat {dealer}, but round {p_rnd} was drawn (荒庄) "
                               f"and the dealer's 下家, seat {(p_dealer + 1) % players}, deals next")
            prev = (rnd, dealer, winner)
    return out
