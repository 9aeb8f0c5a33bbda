"""``paipu rescore``: the warehouse's logged games re-settled under ruleset B by the one
engine. On a corpus simulated under A, the re-settlement of each game is exactly what ``paipu
validate`` computes for the same game re-labelled with B — for every scoring option of every variant
and each of its other values — and the figures are the paired differences of those settlements."""

from __future__ import annotations

import json
import math
from datetime import date

import msgspec
import pytest
from typer.testing import CliRunner

from analytics import rescore
from ingest.run import ingest
from replay import variants
from replay.replayer import replay_line
from replay.simulator import simulate

pytestmark = pytest.mark.long  # started first (tests/conftest.py)

GAMES = 36
DAYS = ("2026-11-01", "2026-11-02", "2026-11-03")
IMPLEMENTED = [v for v in variants.VARIANTS.values() if v.implemented]


def _bases(spec):
    out = [{}]
    for o in spec.options:
        if o.name == "players":
            out += [{"players": v} for v in o.allowed if v != o.default]
    return out


def _lines(variant: str, base: dict) -> list[bytes]:
    """A simulated corpus; game i started on DAYS[i % 3] (for the date filters)."""
    out = []
    for i, rec in enumerate(simulate(variant, GAMES, 23, "heuristic", base)):
        d = msgspec.to_builtins(rec)
        d["started_at"] = f"{DAYS[i % 3]}T10:{i % 60:02d}:00+00:00"
        out.append(msgspec.json.encode(d))
    return out


_WAREHOUSES: dict = {}


def _warehouse(tmp_path_factory, variant: str, base: dict):
    key = (variant, json.dumps(base, sort_keys=True))
    if key not in _WAREHOUSES:
        root = tmp_path_factory.mktemp(f"rescore-{variant}")
        lines = _lines(variant, base)
        (root / "games.jsonl").write_bytes(b"\n".join(lines) + b"\n")
        ingest([root / "games.jsonl"], root / "wh", workers=1, progress=False)
        _WAREHOUSES[key] = (root / "wh", lines)
    return _WAREHOUSES[key]


CASES = [(spec.id, base, o.name, v) for spec in IMPLEMENTED for base in _bases(spec)
         for o in spec.options if o.kind == "scoring" for v in o.allowed if v != base.get(o.name, o.default)]


@pytest.mark.parametrize("variant,base,name,value", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}={c[3]}" for c in CASES])
def test_rescore_is_validation_of_the_relabelled_games(tmp_path_factory, variant, base, name, value):
    wh, lines = _warehouse(tmp_path_factory, variant, base)
    res = rescore.run(wh, variant, f"{name}={value}", workers=1)
    assert res.games == res.paired == GAMES and res.refused == []
    by_id = {p.game_id: p for p in res.pairs}
    diffs = []
    for raw in lines:
        rec = json.loads(raw)
        rec["rules"] = {**rec.get("rules", {}), name: value}
        relabelled = replay_line(json.dumps(rec, ensure_ascii=False))  # what `paipu validate` says
        assert [e.code for e in relabelled.verdict.errors if e.code != "result_mismatch"] == []
        as_logged = replay_line(raw)
        p = by_id[rec["game_id"]]
        assert p.b == {**relabelled.verdict.computed, "win_kind": relabelled.facts["win_kind"]}
        assert p.a == {**as_logged.verdict.computed, "win_kind": as_logged.facts["win_kind"]}
        units = [(c.get("units") or 0) if c["outcome"] == "win" else 0
                 for c in (as_logged.verdict.computed, relabelled.verdict.computed)]
        diffs.append(units[0] - units[1])
    row = res.row("units_per_game")
    assert row["n_a"] == GAMES and row["paired"]
    assert row["diff"] == pytest.approx(sum(diffs) / GAMES)
    assert row["n_differ"] == sum(1 for d in diffs if d)
    if row["n_differ"] > 1:
        m = sum(diffs) / GAMES
        sd = math.sqrt(sum((d - m) ** 2 for d in diffs) / (GAMES - 1))
        assert row["lo"] == pytest.approx(m - 1.959963984540054 * sd / math.sqrt(GAMES))


def test_zimo_pay_triple_figures(tmp_path_factory):
    """通城個子牌 自摸 paid triple (000 §計分規則): a 自摸 winner's score triples, a 抓衝 stays; each
    seat's and the dealer's score, the variance and the biggest loss are paired game by game."""
    wh, lines = _warehouse(tmp_path_factory, "tongcheng_gezi", {})
    res = rescore.run(wh, "tongcheng_gezi", "zimo_pay=triple", workers=1)
    for p in res.pairs:
        if p.a["outcome"] == "win" and p.a["win_kind"] == "zimo":
            assert p.b["scores"] == [3 * s for s in p.a["scores"]]
        else:
            assert p.b["scores"] == p.a["scores"]
    zimo = [p for p in res.pairs if p.a["outcome"] == "win" and p.a["win_kind"] == "zimo"]
    assert zimo, "the corpus has a 自摸"
    seat0 = res.row("seat0_score")
    assert seat0["diff"] == pytest.approx(sum(p.a["scores"][0] - p.b["scores"][0] for p in res.pairs) / GAMES)
    dealer = res.row("dealer_score")
    assert dealer["diff"] == pytest.approx(
        sum(p.a["scores"][p.dealer] - p.b["scores"][p.dealer] for p in res.pairs) / GAMES)
    var = res.row("score_sq")
    assert var["b"] > var["a"] and var["note"] == "differs"
    loss = res.row("big_loss")
    assert loss["a"] == pytest.approx(sum(max(0, -min(p.a["scores"])) for p in res.pairs) / GAMES)
    assert res.row("big_loss_max")["b"] == max(max(0, -min(p.b["scores"])) for p in res.pairs)
    assert res.row("zimo")["note"] == "identical"  # the same games: only the settlement moved
    wins = [p for p in res.pairs if p.a["outcome"] == "win"]
    mix = res.row("hand_type:zimo")  # the hand-type mix is over every win
    assert mix["n_a"] == len(wins) and mix["a"] == pytest.approx(len(zimo) / len(wins))
    assert res.rulesets == {"tongcheng_gezi-default": GAMES}


def test_filters(tmp_path_factory):
    wh, lines = _warehouse(tmp_path_factory, "tongcheng_gezi", {})
    b = "zimo_pay=triple"
    assert rescore.run(wh, "tongcheng_gezi", b, since=date(2026, 11, 2), workers=1).games == 2 * GAMES // 3
    assert rescore.run(wh, "tongcheng_gezi", b, until=date(2026, 11, 1), workers=1).games == GAMES // 3
    one = rescore.run(wh, "tongcheng_gezi", b, since=date(2026, 11, 2), until=date(2026, 11, 2), workers=1)
    assert {p.game_id for p in one.pairs} == {json.loads(ln)["game_id"] for ln in lines[1::3]}
    assert rescore.run(wh, "tongcheng_gezi", b, players=3, workers=1).games == 0
    assert rescore.run(wh, "tongcheng_gezi", b, ruleset="tongcheng_gezi-default", workers=1).games == GAMES
    assert rescore.run(wh, "tongcheng_gezi", b, ruleset="tongcheng_gezi-0123456789", workers=1).games == 0


def test_play_changing_option_is_refused_with_a_pointer_to_tune(tmp_path_factory):
    wh, _ = _warehouse(tmp_path_factory, "tongcheng_gezi", {})
    with pytest.raises(rescore.PlayChanging, match=r"bu_pai of tongcheng_gezi changes play.*paipu tune "
                                                    r"--variant tongcheng_gezi --b bu_pai=tail"):
        rescore.run(wh, "tongcheng_gezi", "zimo_pay=triple,bu_pai=tail", workers=1)
    with pytest.raises(rescore.PlayChanging, match="Scoring-only options of sanjing_huapai: none"):
        rescore.check_overrides("sanjing_huapai", {"dui_hu": "half"})
    with pytest.raises(ValueError, match="names no option"):
        rescore.check_overrides("tongcheng_gezi", {})


def test_cli(tmp_path_factory):
    from paipu.cli import app

    wh, _ = _warehouse(tmp_path_factory, "tongcheng_gezi", {})
    r = CliRunner().invoke(app, ["rescore", "--warehouse", str(wh), "--variant", "tongcheng_gezi",
                                 "--b", "zimo_pay=triple", "--workers", "1", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["games"] == out["paired"] == GAMES and out["b"] == {"zimo_pay": "triple"}
    assert {f["metric"] for f in out["figures"]} >= {"units_per_game", "seat0_score", "dealer_score", "score_sq",
                                                     "big_loss", "big_loss_p90", "hand_type:plain"}
    r = CliRunner().invoke(app, ["rescore", "--warehouse", str(wh), "--variant", "tongcheng_gezi",
                                 "--b", "claim_order=seat_order"])
    assert r.exit_code == 2 and "paipu tune" in r.output
    r = CliRunner().invoke(app, ["rescore", "--warehouse", str(wh), "--variant", "tongcheng_gezi",
                                 "--b", "zimo_pay=triple", "--workers", "1"])
    assert r.exit_code == 0 and "settlement alone" in r.output


def test_tuning_page_real_logs_source(monkeypatch, tmp_path_factory):
    """The Rule tuning page's "real logs" source: the logged games re-settled under B's scoring
    options, who played (the logged players, no bot), each figure's source (the settlement alone)."""
    from apptest_util import open_page, page_text

    wh, lines = _warehouse(tmp_path_factory, "tongcheng_gezi", {})
    at = open_page(monkeypatch, wh, "screens/tuning.py", variant="tongcheng_gezi", mode="logs")
    assert "Pick at least one option value for B" in page_text(at)
    assert "`bu_pai`" in page_text(at)  # play options are named as not re-settled
    at.selectbox(key="tune_logs_b_zimo_pay").set_value("triple").run()
    assert not at.exception, [e.value for e in at.exception]
    m = {x.label: x.value for x in at.metric}
    assert m["重算对局 games re-settled"] == f"{GAMES} / {GAMES}"
    players = {s for ln in lines for s in json.loads(ln)["seats"]}
    assert m["记录中的牌手 logged players"] == str(len(players))
    text = page_text(at)
    assert "no bot replays them" in text and "settlement alone" in text
    score = next(df.value for df in at.dataframe if "来源 source" in df.value.columns)
    assert set(score["来源 source"]) == {"只来自结算 settlement alone"}
    res = rescore.run(wh, "tongcheng_gezi", "zimo_pay=triple", workers=1)
    r = res.row("units_per_game")
    row = score[score["指标 figure"] == "每局分 units per game (荒庄 = 0)"].iloc[0]
    assert row["A − B (95%)"] == f"{r['diff']:+.2f} [{r['lo']:+.2f}, {r['hi']:+.2f}]"
    # the page opens with paipu rescore's sentence, as plain text
    assert [t.value for t in at.text] == [res.answer().text]
    assert res.answer().text.startswith(f"Over {GAMES} logged games, B against A: who wins does not change")


# --- the answer on hand-made games -------------------------------------------------------------
#
# 40 guilin games of the players p:a, p:b, p:c: the worked example (data/guilin-short.jsonl: seat 1
# wins by 自摸 with 21 胡 — 舵 1 + ⌊(21 − 10)/5⌋ = 3, + 自摸 1 + 醒 2 = 6 units, each other seat pays 6)
# 30 times, p:b at seat 1 in 15 of them, p:c in 10, p:a in 5; and a 荒庄 (simulated guilin game 3 of
# seed 1: it pays nothing under any rule) 10 times. Under tuo_step=3 the example's 舵 is
# 1 + ⌊11/3⌋ = 4: 7 units, the winner +14, the others −7 each.
#   units per game: A 30·6/40 = 4.50, B 30·7/40 = 5.25; A − B = −0.75, per game −1 (30 games) or 0
#   (10): sd = √((30·0.25² + 10·0.75²)/39) = √(7.5/39) = 0.43853, ± 1.96·0.43853/√40 = ± 0.1359:
#   [−0.886, −0.614]; B pays 0.75/4.50 = 16.7 % more.
#   players over their 40 games: p:b wins 15 (+12 → +14), loses 15 (−6 → −7): A 90, B 105, +15;
#   p:c wins 10, loses 20: A 0, B 0; p:a wins 5, loses 25: A −90, B −105, −15.

HAND = ["p:a", "p:b", "p:c"]


@pytest.fixture(scope="module")
def hand(tmp_path_factory):
    from pathlib import Path

    short = json.loads((Path(__file__).resolve().parent.parent / "data" / "guilin-short.jsonl").read_text("utf-8"))
    draw = msgspec.to_builtins(list(simulate("guilin", 4, 1, "heuristic", {}))[3])
    assert draw["result"]["outcome"] == "draw" and draw["result"]["scores"] == [0, 0, 0]
    lines = []
    for i in range(30):
        r = 0 if i < 15 else 1 if i < 25 else 2  # seat 1 (the winner) is p:b, then p:c, then p:a
        lines.append(json.dumps({**short, "game_id": f"short-{i:02d}", "seats": HAND[r:] + HAND[:r]}))
    lines += [json.dumps({**draw, "game_id": f"draw-{i}", "seats": HAND}) for i in range(10)]
    root = tmp_path_factory.mktemp("rescore-hand")
    (root / "games.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    ingest([root / "games.jsonl"], root / "wh", workers=1, progress=False)
    return root / "wh"


SENTENCE = ("Over 40 logged games, B against A: who wins does not change (each game has the same winner under A "
            "and B: the same actions); each game pays 0.75 units (≈ 17%) more under B: 5.25 against 4.50 under A "
            "(A − B -0.75 [-0.89, -0.61], excludes 0); p:b gains most under B (+15 units over 40 games) and p:a "
            "loses most (-15 over 40).")


def test_the_answer_on_hand_made_games(hand):
    res = rescore.run(hand, "guilin", "tuo_step=3", workers=1)
    ans = res.answer()
    assert ans.text == SENTENCE
    pays = ans.units_per_game
    assert (pays["a"], pays["b"], pays["diff"], pays["n"]) == pytest.approx((4.5, 5.25, -0.75, 40))
    assert (pays["lo"], pays["hi"]) == pytest.approx((-0.75 - 0.1359, -0.75 + 0.1359), abs=1e-4)
    assert pays["excludes_zero"] and pays["b_minus_a"] == pytest.approx(0.75)
    assert pays["share_of_a"] == pytest.approx(1 / 6)
    assert ans.who_wins == {"changed": False, "games": 40, "winner_changed": 0}


def test_players_gain_and_lose_on_hand_made_games(hand):
    """p:b's gain a game: +2 in 15 games, −1 in 15, 0 in 10 — mean 0.375, sd √(69.375/39) = 1.33373,
    ± 1.96·1.33373/√40 = ± 0.4133: [−0.038, +0.788], which holds 0 (15 units over 40 games is not
    yet a clear gain a game)."""
    got = rescore.run(hand, "guilin", "tuo_step=3", workers=1).players()
    assert [(p["player"], p["games"], p["a"], p["b"], p["gain"]) for p in got] == [
        ("p:b", 40, 90, 105, 15), ("p:c", 40, 0, 0, 0), ("p:a", 40, -90, -105, -15)]
    b = got[0]
    assert b["gain_per_game"] == pytest.approx(0.375)
    assert (b["lo"], b["hi"]) == pytest.approx((0.375 - 0.4133, 0.375 + 0.4133), abs=1e-4)


def test_cli_leads_with_the_answer_and_fits_80_columns(hand, monkeypatch):
    from rich.cells import cell_len

    from paipu.cli import app

    monkeypatch.setenv("COLUMNS", "80")
    args = ["rescore", "--warehouse", str(hand), "--variant", "guilin", "--b", "tuo_step=3", "--workers", "1"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    out = [ln.rstrip() for ln in r.stdout.splitlines()]
    assert max(cell_len(ln) for ln in out) <= 80
    n = next(i for i, ln in enumerate(out) if ln.endswith("over 40)."))
    assert " ".join(out[: n + 1]) == SENTENCE  # the first lines: the sentence, wrapped at its words
    assert "by ruleset: guilin-default (defaults) 40" in " ".join(out)
    (units,) = [ln for ln in out if ln.startswith("每局分 units per game")]
    assert units.split()[-7:] == ["40", "4.50", "5.25", "-0.75", "[-0.89,", "-0.61]", "differs"]
    players = [ln.split() for ln in out if ln.startswith(("p:", "…"))]
    assert players == [["p:b", "40", "90", "105", "+15"], ["…", "1", "more", "player,", "between", "these", "in", "B", "−", "A"],
                       ["p:a", "40", "-90", "-105", "-15"]]
    got = json.loads(CliRunner().invoke(app, [*args, "--json"]).stdout)
    assert got["answer"]["text"] == SENTENCE
    assert got["answer"]["units_per_game"]["note"] == "differs"
    assert [(p["player"], p["gain"]) for p in got["players"]] == [("p:b", 15), ("p:c", 0), ("p:a", -15)]
    assert got["ruleset_options"] == {"guilin-default": "defaults"}


def test_nothing_re_settled_says_no_ruleset():
    import io

    import polars as pl
    from rich.console import Console

    out = io.StringIO()
    rescore.print_result(rescore.RescoreResult("guilin", {"tuo_step": 3}, 0, pl.DataFrame()), Console(file=out, width=200))
    assert out.getvalue().splitlines()[2] == "rescore · guilin · 0 logged games re-settled (of 0 valid games)"
