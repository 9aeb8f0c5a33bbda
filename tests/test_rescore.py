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
    r = rescore.run(wh, "tongcheng_gezi", "zimo_pay=triple", workers=1).row("units_per_game")
    row = score[score["指标 figure"] == "每局分 units per game (荒庄 = 0)"].iloc[0]
    assert row["A − B (95%)"] == f"{r['diff']:+.2f} [{r['lo']:+.2f}, {r['hi']:+.2f}]"
