"""`paipu fit` and `--rules` defaults: logs that carry no `rules` object, judged under the ruleset a
server plays; fit finds that ruleset from the games alone (analytics/fit.py)."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from rulesets import random_ruleset
from typer.testing import CliRunner

from analytics.fit import fit
from paipu.cli import app
from replay.replayer import replay_line
from replay.simulator import simulate
from replay.variants import VARIANTS, default_rules

pytestmark = pytest.mark.long  # started first (tests/conftest.py)

runner = CliRunner()
IMPLEMENTED = sorted(v.id for v in VARIANTS.values() if v.implemented)


def _stripped(records) -> list[bytes]:
    """The records as a server that never writes `rules` would log them."""
    out = []
    for r in records:
        obj = msgspec.to_builtins(r)
        obj.pop("rules", None)
        out.append(msgspec.json.encode(obj))
    return out


def _valid(lines: list[bytes], rules: dict) -> int:
    """Games valid with `rules` written into each record: the engine's plain verdict, no fit."""
    n = 0
    for raw in lines:
        obj = msgspec.json.decode(raw)
        obj["rules"] = rules
        n += replay_line(msgspec.json.encode(obj)).verdict.valid
    return n


@pytest.mark.parametrize("variant", IMPLEMENTED)
def test_fit_recovers_the_ruleset_the_games_were_played_under(variant):
    rules = random_ruleset(variant)
    lines = _stripped(simulate(variant, 60, 7, rules=rules))
    assert _valid(lines, rules) == 60
    res = fit(lines, variant)
    assert res.valid_found == 60
    by_name = {o.name: o for o in res.options}
    told = 0
    for o in VARIANTS[variant].options:
        if len(o.allowed) < 2 or o.name == "players":  # players: each game's own seat count
            continue
        got = by_name[o.name]
        # the games tell an option's value apart when another value (the rest as played) loses one:
        # fit finds the value played
        if any(_valid(lines, {**rules, o.name: v}) < 60 for v in o.allowed if v != rules[o.name]):
            assert (got.status, got.value) == ("determined", rules[o.name]), o.name
            told += 1
        # and never calls another value determined (an option that only matters under another
        # option's value may be determined by fit's other values: then it is the value played too)
        if got.status == "determined":
            assert got.value == rules[o.name], o.name
    assert told >= 2  # the games decide something: a fit that found nothing would fail here


def test_planted_settlement_faults_are_one_suspected_server_fault_class_each():
    rules = {"tuo_step": 3, "zimo_bonus": "double"}
    recs = [msgspec.to_builtins(r) for r in simulate("guilin", 80, 11, rules=rules)]
    wins = [i for i, r in enumerate(recs) if r["result"]["outcome"] == "win"]
    for i in wins[:2]:
        recs[i]["result"]["points"] += 7
    for i in wins[2:5]:
        r = recs[i]["result"]
        r["winner"] = (r["winner"] + 1) % 3
    lines = _stripped(recs)
    res = fit(lines, "guilin")
    assert res.ruleset == rules
    assert res.valid_found == 75
    classes = {(f.code, f.field): f for f in res.faults}
    assert set(classes) == {("result_mismatch", "points"), ("result_mismatch", "winner")}
    assert classes["result_mismatch", "points"].games == 2
    assert classes["result_mismatch", "winner"].games == 3
    assert all(f.suspected_server_fault and f.rule == "paipu.result" for f in res.faults)
    assert classes["result_mismatch", "points"].example_game == recs[wins[0]]["game_id"]


def test_a_fault_an_option_explains_is_not_a_server_fault():
    # played under 逢3进1 but one option held at the default by --rules: the units differ, and the
    # class names the option value that makes its games valid
    lines = _stripped(simulate("guilin", 40, 5, rules={"tuo_step": 3}))
    res = fit(lines, "guilin", fixed={"tuo_step": 5})
    assert res.ruleset == {}
    assert {o.name: o.status for o in res.options}["tuo_step"] == "fixed"
    assert res.faults and not any(f.suspected_server_fault for f in res.faults)
    for f in res.faults:  # 逢3进1 makes every one of them valid
        assert next(c for c in f.option_changes if c.value == "tuo_step=3").valid == f.games


def test_default_rules_apply_to_each_variant_that_has_the_option():
    assert default_rules("tuo_step=3,xing_mode=fanxing") == {
        "guilin": {"tuo_step": 3, "xing_mode": "fanxing"}, "zipai": {"tuo_step": 3, "xing_mode": "fanxing"}}
    assert default_rules("tuo_step=3", "guilin") == {"guilin": {"tuo_step": 3}}
    assert default_rules(None) is None and default_rules(" ") is None
    with pytest.raises(ValueError, match="unknown option 'jing_count'"):
        default_rules("jing_count=2")
    with pytest.raises(ValueError, match="not allowed"):
        default_rules("tuo_step=4")


def test_a_records_own_rules_win_over_the_defaults():
    rec = msgspec.to_builtins(next(simulate("guilin", 1, 3, rules={"tuo_step": 3})))
    if rec["result"]["outcome"] != "win":  # pragma: no cover - seed 3's first game is a win
        raise AssertionError("the case needs a win")
    defaults = {"guilin": {"tuo_step": 3}}
    without = dict(rec)
    without.pop("rules")
    out = replay_line(msgspec.json.encode(without), defaults=defaults)
    assert out.verdict.valid and out.defaulted and out.verdict.ruleset_id == rec_id(rec)
    # an explicit empty `rules` is the defaults, spelled out: --rules does not touch it
    out = replay_line(msgspec.json.encode({**rec, "rules": {}}), defaults=defaults)
    assert not out.defaulted and out.verdict.ruleset_id == "guilin-default"
    assert not replay_line(msgspec.json.encode(without)).defaulted


def rec_id(rec: dict) -> str:
    return replay_line(msgspec.json.encode(rec)).verdict.ruleset_id


@pytest.fixture(scope="module")
def server_logs(tmp_path_factory) -> Path:
    """40 guilin games of a server playing 逢3进1 that never writes `rules`."""
    d = tmp_path_factory.mktemp("server")
    lines = _stripped(simulate("guilin", 40, 5, rules={"tuo_step": 3}))
    (d / "server.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return d / "server.jsonl"


def test_validate_with_rules_defaults(server_logs):
    plain = runner.invoke(app, ["validate", "--quiet", str(server_logs)])
    assert plain.exit_code == 1
    got = runner.invoke(app, ["validate", "--quiet", str(server_logs), "--rules", "tuo_step=3"])
    assert got.exit_code == 0, got.output
    assert "read 40: 40 valid, 0 invalid" in got.output
    assert ("40 of the 40 games carried no `rules` object and were judged under --rules "
            "(guilin: tuo_step=3; zipai: tuo_step=3)") in got.output
    # a repeated line is a duplicate, not a game judged: not counted
    twice = server_logs.with_name("twice.jsonl")
    twice.write_bytes(server_logs.read_bytes() + server_logs.read_bytes().split(b"\n", 1)[0] + b"\n")
    got = runner.invoke(app, ["validate", "--quiet", str(twice), "--rules", "tuo_step=3"])
    assert "1 duplicate" in got.output and "40 of the 40 games carried no `rules`" in got.output
    bad = runner.invoke(app, ["validate", str(server_logs), "--rules", "tuo_step=4"])
    assert bad.exit_code == 2 and "tuo_step='4' not allowed" in bad.output


def test_ingest_with_rules_defaults_then_rescore_uses_the_stored_rules(server_logs, tmp_path):
    wh = tmp_path / "wh"
    got = runner.invoke(app, ["ingest", str(server_logs), "--warehouse", str(wh), "--workers", "1", "--json",
                              "--rules", "tuo_step=3"])
    assert got.exit_code == 0, got.output
    rep = json.loads(got.output.strip().splitlines()[-1])
    assert (rep["total"]["valid"], rep["total"]["defaulted"]) == (40, 40)
    assert rep["default_rules"] == {"guilin": {"tuo_step": 3}, "zipai": {"tuo_step": 3}}
    # rescore replays each stored game under the rules it was judged by: arm A refuses none
    res = runner.invoke(app, ["rescore", "--warehouse", str(wh), "--variant", "guilin", "--b", "zimo_bonus=double",
                              "--json", "--workers", "1"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["games"] == 40 and out["refused"] == []
    # the audit replays a stored game under the rules it was ingested under, as the ingest judged it
    raw = next(ln for ln in server_logs.read_bytes().splitlines() if not replay_line(ln).verdict.valid)
    gid = json.loads(raw)["game_id"]  # a game the defaults find invalid
    audit = runner.invoke(app, ["audit", gid, "--warehouse", str(wh)])
    assert audit.exit_code == 0, audit.output
    assert "有效 valid" in audit.output and "result_mismatch" not in audit.output and "无效" not in audit.output
    fitted = runner.invoke(app, ["fit", "--warehouse", str(wh), "--variant", "guilin", "--json", "--workers", "1"])
    assert fitted.exit_code == 0, fitted.output
    assert json.loads(fitted.output)["rules"] == {"tuo_step": 3}


def test_fit_command_text_and_json(server_logs):
    got = runner.invoke(app, ["fit", str(server_logs), "--variant", "guilin", "--workers", "1"])
    assert got.exit_code == 0, got.output
    assert "ruleset found: --rules tuo_step=3" in got.output
    assert "valid under the defaults:" in got.output and "under the ruleset found: 40 of 40" in got.output
    assert "every game replays valid under the ruleset found" in got.output
    js = runner.invoke(app, ["fit", str(server_logs), "--variant", "guilin", "--json", "--workers", "2"])
    data = json.loads(js.output)
    assert data["rules"] == {"tuo_step": 3} and data["valid_found"] == 40 and data["faults"] == []
    tuo = next(o for o in data["options"] if o["name"] == "tuo_step")
    assert tuo["status"] == "determined" and tuo["evidence"] == 40 - tuo["valid_by_value"]["5"]
    for args, msg in ((["--variant", "nope"], "not implemented"), (["--variant", "guilin", "--rules", "x=1"], "unknown option"),
                      (["--variant", "shangdaren"], "no shangdaren games")):
        bad = runner.invoke(app, ["fit", str(server_logs), *args])
        assert bad.exit_code == 2 and msg in bad.output, bad.output


def test_rescore_rules_takes_the_games_stored_without_them(server_logs, tmp_path):
    wh = tmp_path / "wh"
    assert runner.invoke(app, ["ingest", str(server_logs), "--warehouse", str(wh), "--workers", "1"]).exit_code == 0
    valid_default = _valid([ln for ln in server_logs.read_bytes().splitlines()], {})
    assert valid_default < 40
    base = ["rescore", "--warehouse", str(wh), "--variant", "guilin", "--b", "zimo_bonus=double", "--json",
            "--workers", "1"]
    plain = json.loads(runner.invoke(app, base).output)
    assert plain["games"] == valid_default  # only the games valid as they were stored
    got = runner.invoke(app, [*base, "--rules", "tuo_step=3"])
    assert got.exit_code == 0, got.output
    out = json.loads(got.output)
    assert out["games"] == 40 and out["refused"] == []


def test_records_whose_own_rules_name_the_wrong_readings_are_not_server_faults():
    server = {"tuo_step": 3}
    recs = [msgspec.to_builtins(r) for r in simulate("guilin", 40, 5, rules=server)]
    lines = _stripped(recs[:30]) + [msgspec.json.encode({**r, "rules": {}}) for r in recs[30:]]
    wrong = sum(not replay_line(ln).verdict.valid for ln in lines[30:])  # {} is the defaults: 逢5进1
    assert wrong
    res = fit(lines, "guilin")
    assert res.ruleset == server and res.own_rules == 10
    assert res.games - res.valid_found == wrong
    assert sum(f.own_rules_wrong for f in res.faults) == wrong
    assert not any(f.suspected_server_fault for f in res.faults)


def test_a_server_dealing_three_and_four_seats_is_fitted_by_each_games_seats():
    import io

    from rich.console import Console

    from analytics.fit import print_result

    rules = {"zimo_pay": "triple", "gezi_per_fen_3p": 9}
    lines = (_stripped(simulate("tongcheng_gezi", 30, 2, rules=rules))
             + _stripped(simulate("tongcheng_gezi", 30, 3, rules={**rules, "players": 3})))
    res = fit(lines, "tongcheng_gezi")
    assert res.valid_found == 60 and res.by_seats and res.seat_counts == [3, 4]
    assert "players" not in res.ruleset and "players" not in {o.name for o in res.options}
    assert res.ruleset == rules  # 9 個子 a 分 at 3 seats is told by the 3-seat games
    out = io.StringIO()
    print_result(res, Console(file=out, width=200))
    assert ("players: each game's own seat count, 3 and 4 (validate and ingest each count's logs apart, with "
            "--rules players=N)") in out.getvalue().splitlines()
    three = fit(lines[30:], "tongcheng_gezi")  # the 3-seat tables alone: one count, said as the --rules value
    assert three.seat_counts == [3]
    out = io.StringIO()
    print_result(three, Console(file=out, width=200))
    assert "players: every game has 3 seats (--rules players=3 for logs without a rules object)" in out.getvalue()


def test_a_value_the_games_do_not_decide_stays_out_of_the_rules_text():
    from analytics.fit import FitResult, OptionFit

    options = [OptionFit("tuo_step", "scoring", 5, 3, False, {"5": 10, "3": 40}),
               OptionFit("xing_mode", "scoring", "shangzhongxia", "shangxia", False,
                         {"shangzhongxia": 40, "fanxing": 12, "shangxia": 40}),
               OptionFit("chi_discard", "play", True, False, True, {"true": 30, "false": 40})]
    res = FitResult("guilin", 40, 0, {}, 10, 40, {"tuo_step": 3, "xing_mode": "shangxia", "chi_discard": False},
                    {}, options, [], 9)
    assert [o.status for o in options] == ["determined", "undetermined", "fixed"]
    assert res.rules_text == "tuo_step=3,chi_discard=false"
    assert [o.name for o in res.tied] == ["xing_mode"]
    assert res.to_json()["tied"] == {"xing_mode": ["shangzhongxia", "shangxia"]}


def test_games_that_all_carry_their_own_rules_stop_at_nothing_to_fit(tmp_path):
    f = tmp_path / "own.jsonl"
    f.write_bytes(b"\n".join(msgspec.json.encode(r) for r in simulate("guilin", 3, 5, rules={"tuo_step": 3})) + b"\n")
    got = runner.invoke(app, ["fit", str(f), "--variant", "guilin", "--workers", "1"])
    assert got.exit_code == 0
    assert got.stdout == (
        "fit guilin: 3 games (3 carry their own `rules` object and are judged by it)\n"
        "every game carries its own `rules` object and is judged by it: there is nothing to fit (--without-rules "
        "fits them as if they carried none)\n")
    js = runner.invoke(app, ["fit", str(f), "--variant", "guilin", "--json", "--workers", "1"])
    got = json.loads(js.stdout)
    assert {k: got[k] for k in ("variant", "games", "own_rules", "not_fitted", "nothing_to_fit")} == {
        "variant": "guilin", "games": 3, "own_rules": 3, "not_fitted": {}, "nothing_to_fit": True}
    assert (got["valid_default"], got["valid_found"]) == (3, 3)  # each judged by its own rules


def test_without_rules_fits_the_play_whatever_rules_the_records_carry(tmp_path):
    """40 games of 逢3进1 whose records say the defaults: judged by what they carry, those whose 胡
    settles apart under 逢5进1 are invalid; fitted --without-rules, the play says tuo_step=3 and every
    game is valid under it."""
    lines = _stripped(simulate("guilin", 40, 5, rules={"tuo_step": 3}))
    told = [msgspec.json.encode({**msgspec.json.decode(raw), "rules": {}}) for raw in lines]
    f = tmp_path / "told.jsonl"
    f.write_bytes(b"\n".join(told) + b"\n")
    own = json.loads(runner.invoke(app, ["fit", str(f), "--variant", "guilin", "--json", "--workers", "1"]).stdout)
    assert (own["own_rules"], own["nothing_to_fit"]) == (40, True) and own["valid_found"] < 40
    got = runner.invoke(app, ["fit", str(f), "--variant", "guilin", "--json", "--workers", "1", "--without-rules"])
    res = json.loads(got.stdout)
    assert (res["games"], res["own_rules"], res["valid_found"], res["rules_text"]) == (40, 0, 40, "tuo_step=3")
    assert res["without_rules"] and not own["without_rules"]


def test_one_game_with_its_own_rules_is_said_in_the_singular():
    import io

    from rich.console import Console

    from analytics.fit import print_result

    recs = [msgspec.to_builtins(r) for r in simulate("guilin", 3, 5, rules={"tuo_step": 3})]
    res = fit(_stripped(recs[:2]) + [msgspec.json.encode(recs[2])], "guilin")
    assert res.own_rules == 1 and not res.nothing_to_fit and "nothing_to_fit" in res.to_json()
    out = io.StringIO()
    print_result(res, Console(file=out, width=200))
    assert out.getvalue().splitlines()[0] == "fit guilin: 3 games (1 carries its own `rules` object and is judged by it)"


def test_input_of_rejected_lines_only_says_so(tmp_path):
    """Two guilin lines whose `rules` is not an object are rejected (spec §3): nothing to fit, and
    the message counts them and names the command that says why."""
    f = tmp_path / "rej.jsonl"
    f.write_text('{"format": "paipu/1", "game_id": "g1", "variant": "guilin", "rules": 5}\n'
                 '{"format": "paipu/1", "game_id": "g2", "variant": "guilin", "rules": null}\n', encoding="utf-8")
    got = runner.invoke(app, ["fit", str(f), "--variant", "guilin", "--without-rules"])
    assert got.exit_code == 2
    assert " ".join(got.output.split()) == ("paipu fit: no guilin games in the input (it holds: 2 rejected lines "
                                            "(`paipu validate` says why))")
