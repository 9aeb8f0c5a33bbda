"""The yardstick: python-chess reading PGN games and replaying them, in plies per CPU second.

python-chess is the closest well-known peer of paipu's replay (a pure-Python rules engine that
validates a text log move by move, style.md). Measured in the same run as every other figure, its
plies/s turn our figures into ratios that hold on a loaded or slower machine.

The games are random legal games (seeded, at most ``max_plies`` plies), written once as PGN under
``build/bench/`` and reused. Timing covers ``chess.pgn.read_game`` (which parses the SAN of every
move and checks it is legal) plus pushing every mainline move on a fresh board.
"""

from __future__ import annotations

import io
import random
import time
from pathlib import Path
from typing import Any

from bench.common import BUILD


def _chess():
    try:
        import chess
        import chess.pgn
    except ImportError:  # pragma: no cover - depends on the environment
        raise RuntimeError("python-chess is missing: pip install chess (the `bench` extra)") from None
    return chess


def pgn_path(games: int, seed: int, max_plies: int, build: Path = BUILD) -> Path:
    chess = _chess()
    return build / f"chess-{games}g-s{seed}-p{max_plies}-v{chess.__version__}.pgn"


def ensure_pgn(games: int = 300, seed: int = 1, max_plies: int = 200, build: Path = BUILD) -> Path:
    """Write (once) ``games`` random legal games as PGN; returns the file."""
    chess = _chess()
    path = pgn_path(games, seed, max_plies, build)
    if path.exists():
        return path
    rng = random.Random(f"paipu-bench-chess:{seed}")
    out = []
    for g in range(games):
        board = chess.Board()
        game = chess.pgn.Game()
        game.headers["Event"] = "paipu bench"
        game.headers["Round"] = str(g + 1)
        node = game
        while board.ply() < max_plies and not board.is_game_over(claim_draw=False):
            move = rng.choice(list(board.legal_moves))
            node = node.add_variation(move)
            board.push(move)
        game.headers["Result"] = board.result(claim_draw=False)
        out.append(str(game))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n\n".join(out) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def time_pgn(path: Path) -> dict[str, Any]:
    """Read every game of ``path`` and replay its moves; plies per CPU second."""
    chess = _chess()
    text = path.read_text(encoding="utf-8")
    games = plies = 0
    t0 = time.process_time()
    f = io.StringIO(text)
    while True:
        game = chess.pgn.read_game(f)
        if game is None:
            break
        if game.errors:
            raise RuntimeError(f"python-chess found errors in its own PGN: {game.errors[:1]}")
        board = game.board()
        for move in game.mainline_moves():
            board.push(move)
            plies += 1
        games += 1
    cpu = time.process_time() - t0
    return {"games": games, "plies": plies, "cpu_s": round(cpu, 4), "plies_per_s": plies / cpu if cpu else 0.0,
            "chess_version": chess.__version__}
