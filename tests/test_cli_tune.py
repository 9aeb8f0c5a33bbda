"""``paipu tune`` from the command line: it needs ``--warehouse`` (it creates none where it runs),
its logs go to ``--experiments`` (default ``build/experiments``, outside ``build/demo`` that ``make
demo`` deletes) and the result says how to bring the experiment back into a rebuilt warehouse; the
result leads with its answer in one sentence, computed from the figures of its 80-column table."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from rich.cells import cell_len
from rich.console import Console
from typer.testing import CliRunner

from analytics import queries as q
from analytics import tune
from ingest.run import ingest
from ingest.views import connect
from paipu.cli import app
from replay.simulator import simulate

ROOT = Path(__file__).resolve().parent.parent


def test_tune_keeps_its_logs_outside_the_warehouse(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PAIPU_PROGRESS_SECONDS", "0")
    monkeypatch.setenv("COLUMNS", "200")
    r = CliRunner().invoke(app, ["tune", "--variant", "guilin", "--a", "tuo_step=5", "--b", "tuo_step=3",
                                 "--games", "8", "--workers", "1", "--warehouse", "wh", "--json", "out.json",
                                 "--bots", "heuristic"])
    assert r.exit_code == 0, r.output
    exp = json.loads((tmp_path / "out.json").read_text("utf-8"))["experiment"]
    folder = tmp_path / "build" / "experiments" / exp
    assert sorted(p.name for p in folder.iterdir()) == ["a.jsonl", "b.jsonl", "experiment.json"]
    assert len((folder / "a.jsonl").read_text("utf-8").splitlines()) == 8
    assert not (tmp_path / "wh" / "_experiments").exists()
    said = " ".join(r.stdout.split())  # the lines as one text, wherever they wrap
    assert f"`paipu ingest {tmp_path / 'build' / 'experiments'} --warehouse {tmp_path / 'wh'}`" in said
    # 8 deals are too few for an interval, but a scoring option and the same bots: every deal alike
    assert said.startswith("Over 8 paired deals, B against A: who wins does not change (each deal has the same "
                           "winner under A and B); too few deals (under 30) to tell what a game pays: ")
    progress = [ln for ln in r.stderr.splitlines() if ln.startswith("tune guilin: ")]
    assert progress[-1].startswith("tune guilin: 8 deals, ") and ", 100%, ETA 0:00" in progress[-1]


def test_tune_needs_a_warehouse_and_creates_none_where_it_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["tune", "--variant", "guilin", "--b", "tuo_step=3", "--games", "2"])
    assert r.exit_code == 2 and "Missing option '--warehouse'" in r.output
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "wh").write_text("not a folder")
    r = CliRunner().invoke(app, ["tune", "--variant", "guilin", "--b", "tuo_step=3", "--games", "2",
                                 "--warehouse", "wh"])
    assert r.exit_code == 2 and r.stderr == "paipu tune: warehouse wh: not a folder\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wh"]


# A hand-made experiment of 40 deals, as tune writes one: under A the worked example
# (data/guilin-short.jsonl: seat 1 wins, 6 units) is deals 0–29 and a 荒庄 (simulated guilin game 3 of
# seed 1, 0 units) deals 30–39; under B the example is deals 0–14 and the 荒庄 deals 15–39.
#   seat 1's win rate: A 30/40 = 75.0 %, B 15/40 = 37.5 %; per deal A − B is 1 (15 deals) or 0 (25):
#   mean 0.375, sd √((15·0.625² + 25·0.375²)/39) = √(9.375/39) = 0.49029, ± 1.96·0.49029/√40 =
#   ± 0.1519: +37.5 pp [+22.3, +52.7]. Seats 0 and 2 never win.
#   units per game: A 30·6/40 = 4.50, B 15·6/40 = 2.25; per deal 6 (15 deals) or 0 (25): mean 2.25,
#   sd √((15·3.75² + 25·2.25²)/39) = √(337.5/39) = 2.94174, ± 0.9116: +2.25 [+1.34, +3.16]; B pays
#   2.25/4.50 = 50 % less.

HAND_SENTENCE = ("Over 40 paired deals, B against A: who wins changes: seat 1 wins less often under B, 37.5% of "
                 "deals against 75.0% (A − B win rate by seat: seat 0 alike in every deal, seat 1 +37.5 pp "
                 "[+22.3, +52.7] excludes 0, seat 2 alike in every deal); each game pays 2.25 units (≈ 50%) less "
                 "under B: 2.25 against 4.50 under A (A − B +2.25 [+1.34, +3.16], excludes 0).")


def _experiment(root: Path, b_wins: int) -> tune.TuneResult:
    """The hand-made experiment with the example as B's deals 0 … ``b_wins`` − 1, as tune returns it."""
    short = json.loads((ROOT / "data" / "guilin-short.jsonl").read_text("utf-8"))
    draw = msgspec.to_builtins(list(simulate("guilin", 4, 1, "heuristic", {}))[3])
    assert draw["result"]["outcome"] == "draw"
    exp = "tune-guilin-hand"
    files = []
    for arm, wins in (("a", 30), ("b", b_wins)):
        lines = [json.dumps({**(short if deal < wins else draw), "game_id": f"{exp}-{arm}-{deal:07d}",
                             "x_experiment": exp, "x_arm": arm, "x_deal": deal, "x_bots": "heuristic"})
                 for deal in range(40)]
        files.append(root / exp / f"{arm}.jsonl")
        files[-1].parent.mkdir(exist_ok=True)
        files[-1].write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = ingest(files, root / "wh", workers=1, progress=False)
    con = connect(root / "wh")
    try:
        a, b = q.Arm("guilin", experiment=exp, arm="a"), q.Arm("guilin", experiment=exp, arm="b")
        comparison, sizes = q.compare(con, a, b), q.arm_sizes(con, a, b)
    finally:
        con.close()
    return tune.TuneResult(exp, "guilin", {}, {"tuo_step": 3}, "guilin-default", "guilin-a1561d9054", files, report,
                           comparison, sizes, "heuristic", "as asked", 30 - b_wins)


@pytest.fixture(scope="module")
def hand(tmp_path_factory) -> tune.TuneResult:
    return _experiment(tmp_path_factory.mktemp("tune-hand"), 15)


def test_the_answer_of_a_hand_made_experiment(hand):
    ans = hand.answer()
    assert ans.text == HAND_SENTENCE
    seats = {s["seat"]: s for s in ans.who_wins["seats"]}
    assert ans.who_wins["changed"] is True and sorted(seats) == [0, 1, 2]
    one = seats[1]
    assert (one["a"], one["b"], one["diff"]) == pytest.approx((0.75, 0.375, 0.375))
    assert (one["lo"], one["hi"]) == pytest.approx((0.375 - 0.1519, 0.375 + 0.1519), abs=1e-4)
    assert one["excludes_zero"] and seats[0]["note"] == seats[2]["note"] == "identical"
    pays = ans.units_per_game
    assert (pays["a"], pays["b"], pays["diff"]) == pytest.approx((4.5, 2.25, 2.25))
    assert (pays["lo"], pays["hi"]) == pytest.approx((2.25 - 0.9116, 2.25 + 0.9116), abs=1e-4)
    assert pays["share_of_a"] == pytest.approx(-0.5)
    assert tune.to_json(hand)["answer"] == ans.to_json()
    assert tune.to_json(hand)["b"]["options"] == "tuo_step=3"


def test_the_printed_result_leads_with_the_answer_and_fits_80_columns(hand):
    console = Console(width=80, record=True, highlight=False)
    tune.print_result(hand, console)
    out = [ln.rstrip() for ln in console.export_text().splitlines()]
    assert max(cell_len(ln) for ln in out) <= 80
    n = next(i for i, ln in enumerate(out) if ln.endswith("excludes 0)."))
    assert " ".join(out[: n + 1]) == HAND_SENTENCE
    assert out[n + 1: n + 3] == ["A: guilin-default (defaults)", "B: guilin-a1561d9054 (tuo_step=3)"]
    (seat1,) = [ln.split() for ln in out if ln.startswith("座位1胡率")]
    assert seat1[-7:] == ["40", "75.0%", "37.5%", "+37.5", "[+22.3,", "+52.7]", "differs"]
    (seat0,) = [ln for ln in out if ln.startswith("座位0胡率")]
    assert seat0.split()[-7:] == ["40", "0.0%", "0.0%", "alike", "in", "every", "deal"]


def test_an_experiment_that_moves_one_deal_is_no_clear_change(tmp_path):
    """B's deal 29 a 荒庄 too (29 of 40 deals the example): seat 1's A − B is 1 in one deal, 0 in 39 —
    mean 0.025, sd √((0.975² + 39·0.025²)/39) = √0.025 = 0.15811, ± 1.96·0.15811/√40 = ± 0.0490:
    +2.5 pp [−2.4, +7.4]; a game's units 6 in one deal — mean 0.15, sd √((5.85² + 39·0.15²)/39) = √0.9
    = 0.94868, ± 0.2940: +0.15 [−0.14, +0.44]; B pays 29·6/40 = 4.35. Both intervals hold 0."""
    ans = _experiment(tmp_path, 29).answer()
    assert ans.text == (
        "Over 40 paired deals, B against A: no clear change in who wins (A − B win rate by seat: seat 0 alike in "
        "every deal, seat 1 +2.5 pp [-2.4, +7.4], seat 2 alike in every deal; every interval holds 0); no clear "
        "change in what a game pays: 4.35 units under B against 4.50 under A (A − B +0.15 [-0.14, +0.44], holds 0).")
    assert ans.who_wins["changed"] is False and ans.units_per_game["note"] == "unclear"
    assert not ans.units_per_game["excludes_zero"]


def test_what_rounds_to_zero_is_printed_plus_zero():
    """A difference of −0.04 pp or −0.004 units prints as ``+0.0`` / ``+0.00``, never ``-0.0``."""
    from analytics.answer import _cell

    assert [_cell(-0.0004, "rate", diff=True), _cell(-0.004, "mean", diff=True),
            _cell(-0.006, "mean", diff=True), _cell(0.375, "rate")] == ["+0.0", "+0.00", "-0.01", "37.5%"]
