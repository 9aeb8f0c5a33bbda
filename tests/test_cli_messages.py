"""Messages a person reads: a card is named by its name and its code (``小十 (x10)``), a
card code no deck has is told which deck (``字牌``, not the family id ``zipai`` that reads as a
variant), ``paipu score`` names the case (file, and line of a .jsonl) of each error, a path a command
cannot use is one line in one wording in every stage's commands (``paipu <command>: <what> <path>:
<why>``; ``paipu migrate`` suggested only for a warehouse of the layout before it), and an option's
allowed values are spelled as the rules take them (``false, true``)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from paipu.cli import app

ROOT = Path(__file__).resolve().parent.parent
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_text(encoding="utf-8"))


def test_a_discard_not_held_names_the_card_and_its_code(tmp_path):
    rec = json.loads(json.dumps(SHORT))
    rec["actions"][2]["card"] = "x10"  # seat 1 holds no 小十
    f = tmp_path / "a.jsonl"
    f.write_text(json.dumps(rec, ensure_ascii=False) + "\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["validate", "--json", str(f)])
    (v,) = [json.loads(ln) for ln in r.stdout.splitlines()]
    assert [(e["step"], e["code"], e["rule"], e["message"]) for e in v["errors"]] == [
        (2, "illegal_action", "guilin.discard", "seat 1 holds no 小十 (x10) to discard")]


def test_score_errors_name_the_case_and_the_deck(tmp_path):
    f = tmp_path / "cases.jsonl"
    f.write_text("\n".join([json.dumps({"variant": "guilin", "hand": ["x1", "x2"], "win_card": "q9"}), "",
                            json.dumps({"variant": "guilin", "hand": "x1"}),
                            json.dumps({"variant": "guilin", "hand": ["x1"] * 5, "win_card": "x1"})]) + "\n",
                 encoding="utf-8")
    r = CliRunner().invoke(app, ["score", str(f)])
    assert r.exit_code == 1
    got = [json.loads(ln) for ln in r.stdout.splitlines()]
    assert [(g["case"], g["error"]) for g in got] == [
        (f"{f}:1", "`q9` is not a card code of the 80-card 字牌 deck (x1, x2, x3 … d10; spec §3)"),
        (f"{f}:3", "hand is a list of cards"),
        (f"{f}:4", got[2]["error"])]
    assert "x1" in got[2]["error"]
    assert f"paipu score: {f}:1: `q9` is not a card code" in r.stderr
    assert "zipai" not in r.output


# --- a path a command cannot use: one line, `paipu <command>: <what> <path>: <why>`, exit 2 ----------

def _say(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, list(args))
    return r.exit_code, r.stderr


def test_replay_commands_name_a_missing_file(tmp_path):
    gone = tmp_path / "gone.json"
    assert _say("score", str(gone)) == (2, f"paipu score: file {gone}: does not exist\n")
    assert _say("score", str(tmp_path)) == (2, f"paipu score: file {tmp_path}: not a file\n")
    assert _say("simulate", "--variant", "guilin", "--out", str(tmp_path / "o.jsonl"), "--deals", str(gone)) == (
        2, f"paipu simulate: deals file {gone}: does not exist\n")
    assert not (tmp_path / "o.jsonl").exists()


def test_warehouse_commands_name_a_missing_path_and_warehouse(tmp_path):
    gone, wh = tmp_path / "gone.jsonl", tmp_path / "wh"
    assert _say("validate", str(gone)) == (2, f"paipu validate: file or folder {gone}: does not exist\n")
    assert _say("ingest", str(gone), "--warehouse", str(wh)) == (
        2, f"paipu ingest: file or folder {gone}: does not exist\n")
    flat = tmp_path / "flat"
    flat.write_text("")
    assert _say("ingest", str(ROOT / "data" / "guilin-short.jsonl"), "--warehouse", str(flat)) == (
        2, f"paipu ingest: warehouse {flat}: not a folder\n")
    for command in ("compact", "snapshots", "check"):
        assert _say(command, "--warehouse", str(wh)) == (2, f"paipu {command}: warehouse {wh}: does not exist\n")
    assert _say("migrate", str(wh)) == (2, f"paipu migrate: warehouse {wh}: does not exist\n")
    assert not wh.exists()


def test_migrate_is_suggested_only_for_the_layout_before_ducklake(tmp_path):
    empty, old = tmp_path / "empty", tmp_path / "old"
    empty.mkdir()
    (old / "games" / "variant=guilin").mkdir(parents=True)
    (old / "games" / "variant=guilin" / "part-0.parquet").write_bytes(b"")
    for command in ("compact", "snapshots", "check"):
        assert _say(command, "--warehouse", str(empty)) == (
            2, f"paipu {command}: warehouse {empty}: no DuckLake catalog in it (`paipu ingest` writes one)\n")
        assert _say(command, "--warehouse", str(old)) == (
            2, f"paipu {command}: warehouse {old}: the plain-Parquet layout before DuckLake: `paipu migrate {old}` "
               "converts it in place\n")


def test_analytics_commands_name_a_missing_path_and_warehouse(tmp_path):
    gone, wh = tmp_path / "gone.jsonl", tmp_path / "wh"
    assert _say("report", "--warehouse", str(wh)) == (2, f"paipu report: warehouse {wh}: does not exist\n")
    assert _say("rescore", "--warehouse", str(wh), "--variant", "guilin", "--b", "tuo_step=3") == (
        2, f"paipu rescore: warehouse {wh}: does not exist\n")
    assert _say("fit", "--warehouse", str(wh), "--variant", "guilin") == (
        2, f"paipu fit: warehouse {wh}: does not exist\n")
    assert _say("fit", str(gone), "--variant", "guilin") == (2, f"paipu fit: file or folder {gone}: does not exist\n")
    assert _say("review", "g1", "--seat", "0", "--warehouse", str(wh)) == (
        2, f"paipu review: warehouse {wh}: does not exist\n")
    assert _say("audit", "g1", "--warehouse", str(wh)) == (2, f"paipu audit: warehouse {wh}: does not exist\n")
    assert _say("dashboard", "--warehouse", str(wh)) == (2, f"paipu dashboard: warehouse {wh}: does not exist\n")
    assert _say("review", str(gone), "--seat", "0") == (
        2, f"paipu review: file {gone}: does not exist (to review a game stored in a warehouse, give --warehouse DIR)\n")
    assert not wh.exists()


def test_allowed_values_are_spelled_as_the_rules_take_them(tmp_path):
    """A boolean option's values are ``false, true`` (as ``--rules`` and a record's JSON spell them),
    never Python's ``[False, True]``."""
    r = CliRunner().invoke(app, ["validate", str(ROOT / "data" / "guilin-short.jsonl"),
                                 "--rules", "peng_kai_duo_on_other_flip=maybe"])
    assert r.exit_code == 2
    assert "peng_kai_duo_on_other_flip='maybe' not allowed; allowed: false, true" in " ".join(
        r.stderr.replace("│", " ").split())
    rec = {**SHORT, "rules": {"peng_kai_duo_on_other_flip": "yes"}}
    f = tmp_path / "a.jsonl"
    f.write_text(json.dumps(rec, ensure_ascii=False) + "\n", encoding="utf-8")
    (v,) = [json.loads(ln) for ln in CliRunner().invoke(app, ["validate", "--json", str(f)]).stdout.splitlines()]
    assert [e["message"] for e in v["errors"]] == [
        'rule option `peng_kai_duo_on_other_flip` = "yes" not allowed; allowed: false, true']


IMPLEMENTED = ("guilin, zipai, yuanjiang_guihuzi, tongcheng_gezi, sanjing_huapai, wujing_huapai, "
               "shuangbiegan_huapai, shangdaren")


def test_report_and_rescore_refuse_an_unknown_variant_in_one_wording(tmp_path):
    wh = tmp_path / "wh"
    wh.mkdir()
    (wh / "catalog.sqlite").write_bytes(b"")  # a DuckLake catalog's file: the variant is refused before it is read
    from ingest.warehouse import catalog_of
    assert catalog_of(wh) is not None
    assert _say("report", "--warehouse", str(wh), "--variant", "guiln") == (
        2, f"paipu report: variant guiln: not implemented (implemented: {IMPLEMENTED})\n")
    assert _say("rescore", "--warehouse", str(wh), "--variant", "guiln", "--b", "tuo_step=3") == (
        2, f"paipu rescore: variant guiln: not implemented (implemented: {IMPLEMENTED})\n")


def test_report_and_rescore_refuse_a_folder_without_a_warehouse(tmp_path):
    from ingest.cli import need_warehouse

    empty, logs, old = tmp_path / "empty", tmp_path / "logs", tmp_path / "old"
    empty.mkdir()
    logs.mkdir()
    (logs / "guilin.jsonl").write_text((ROOT / "data" / "guilin-short.jsonl").read_text(encoding="utf-8"))
    for wh in (empty, logs):
        assert _say("report", "--warehouse", str(wh)) == (
            2, f"paipu report: warehouse {wh}: no warehouse in it (`paipu ingest` writes one)\n")
        assert _say("rescore", "--warehouse", str(wh), "--variant", "guilin", "--b", "tuo_step=3") == (
            2, f"paipu rescore: warehouse {wh}: no warehouse in it (`paipu ingest` writes one)\n")
    (old / "games" / "variant=guilin").mkdir(parents=True)
    (old / "games" / "variant=guilin" / "part-0.parquet").write_bytes(b"")
    assert need_warehouse("report", old, games=True) is None  # the plain-Parquet layout is read as it is
