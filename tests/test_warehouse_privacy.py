"""``paipu ingest --pseudonymize SALT_FILE``: player ids become keyed hashes in every
table, the same for the same salt in every run, and a warehouse never mixes salts."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ingest.run import ingest
from ingest.warehouse import WarehouseMismatch, read_rows
from replay.replayer import replay_line

DATA = Path(__file__).resolve().parent.parent / "data"
SHORT = json.loads((DATA / "guilin-short.jsonl").read_bytes())
SALT = b"0123456789abcdef-test-salt\n"
TABLES = ("games", "seats", "actions", "melds", "xing", "rejects")


def rec(gid: str, **extra) -> bytes:
    return json.dumps({**SHORT, "game_id": gid, **extra}, ensure_ascii=False).encode()


def pid(player: str, salt: bytes = SALT) -> str:
    return "h:" + hmac.new(salt.strip(), player.encode(), hashlib.sha256).hexdigest()[:20]


def logs(tmp_path: Path) -> Path:
    p = tmp_path / "a.jsonl"
    p.write_bytes(b"\n".join([
        rec("g1"),
        rec("g2", seats=["王小明", "p:b", "alice@example.com"]),
        rec("g3", variant="mahjong", seats=["secret-1", "p:b", "p:c"]),  # a reject that parses
        b'{"game_id": "g4", "seats": ["secret-2", "p:b"], ',  # a reject that does not
    ]) + b"\n")
    return p


def every_string(wh: Path) -> str:
    return json.dumps({t: read_rows(wh, t) for t in TABLES}, ensure_ascii=False, default=str)


def test_player_ids_are_keyed_hashes_everywhere(tmp_path):
    src = logs(tmp_path)
    wh = tmp_path / "wh"
    rep = ingest([src], wh, workers=1, progress=False, pseudonym_salt=SALT)
    assert rep.pseudonymized and (rep.total().valid, rep.total().rejected) == (2, 2)
    seats = {(s["game_id"], s["seat"]): s["player_id"] for s in read_rows(wh, "seats")}
    assert seats == {("g1", 0): pid("p:a"), ("g1", 1): pid("p:b"), ("g1", 2): pid("p:c"),
                     ("g2", 0): pid("王小明"), ("g2", 1): pid("p:b"), ("g2", 2): pid("alice@example.com")}
    text = every_string(wh)
    for plain in ("p:a", "p:b", "p:c", "王小明", "alice@example.com", "secret-1", "secret-2"):
        assert plain not in text, plain
    games = {g["game_id"]: g for g in read_rows(wh, "games")}
    g1 = json.loads(games["g1"]["record_json"])
    assert g1["seats"] == [pid("p:a"), pid("p:b"), pid("p:c")]
    assert replay_line(games["g1"]["record_json"]).verdict.valid  # the audit replay still works
    assert games["g1"]["record_sha256"] == hashlib.sha256(rec("g1")).hexdigest()  # of the line as read
    rej = {r["game_id"]: r for r in read_rows(wh, "rejects")}
    assert json.loads(rej["g3"]["raw"])["seats"] == [pid("secret-1"), pid("p:b"), pid("p:c")]
    assert rej["g4"]["raw"] == "" and rej["g4"]["raw_bytes"] > 40 and len(rej["g4"]["raw_sha256"]) == 64
    (row,) = read_rows(wh, "ingest_runs")
    assert row["pseudonymized"] is True


def test_stable_across_runs_and_different_per_salt(tmp_path):
    src = logs(tmp_path)
    ingest([src], tmp_path / "w1", workers=1, progress=False, pseudonym_salt=SALT)
    ingest([src], tmp_path / "w2", workers=1, progress=False, pseudonym_salt=b"  " + SALT.strip() + b"\r\n")
    ingest([src], tmp_path / "w3", workers=1, progress=False, pseudonym_salt=b"another-salt-of-16+bytes")
    ids = {w: sorted(s["player_id"] for s in read_rows(tmp_path / w, "seats")) for w in ("w1", "w2", "w3")}
    assert ids["w1"] == ids["w2"]  # surrounding whitespace of the salt file does not count
    assert not set(ids["w1"]) & set(ids["w3"])


def test_a_warehouse_never_mixes_salts(tmp_path):
    src = logs(tmp_path)
    wh = tmp_path / "wh"
    ingest([src], wh, workers=1, progress=False, pseudonym_salt=SALT)
    with pytest.raises(WarehouseMismatch, match="another salt|plain"):
        ingest([src], wh, workers=1, progress=False)
    with pytest.raises(WarehouseMismatch, match="another salt"):
        ingest([src], wh, workers=1, progress=False, pseudonym_salt=b"another-salt-of-16+bytes")
    plain = tmp_path / "plain"
    ingest([src], plain, workers=1, progress=False)
    with pytest.raises(WarehouseMismatch, match="plain player ids"):
        ingest([src], plain, workers=1, progress=False, pseudonym_salt=SALT)
    rep = ingest([src], wh, workers=1, progress=False, pseudonym_salt=SALT)  # the same salt: fine
    assert rep.total().read == 4


def test_cli_pseudonymize(tmp_path):
    from paipu.cli import app

    src = logs(tmp_path)
    salt = tmp_path / "salt"
    salt.write_bytes(SALT)
    runner = CliRunner()
    res = runner.invoke(app, ["ingest", str(src), "--warehouse", str(tmp_path / "wh"), "--workers", "1",
                              "--pseudonymize", str(salt)])
    assert res.exit_code == 0, res.output
    assert "pseudonymized" in res.output
    assert sorted({s["player_id"] for s in read_rows(tmp_path / "wh", "seats")})[0].startswith("h:")
    res = runner.invoke(app, ["ingest", str(src), "--warehouse", str(tmp_path / "wh"), "--workers", "1"])
    assert res.exit_code == 1 and "refusing" in res.output
    short = tmp_path / "short"
    short.write_bytes(b"abc\n")
    res = runner.invoke(app, ["ingest", str(src), "--warehouse", str(tmp_path / "w2"), "--pseudonymize", str(short)])
    assert res.exit_code == 2
    res = runner.invoke(app, ["ingest", str(src), "--warehouse", str(tmp_path / "w2"),
                              "--pseudonymize", str(tmp_path / "missing")])
    assert res.exit_code == 2
