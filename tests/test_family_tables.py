"""The families' own warehouse tables and report figures: jing (花牌, 上大人), gezi (個子), 定庄."""

from __future__ import annotations

import msgspec
import pytest
from apptest_util import open_page

from analytics import family
from ingest.run import ingest
from ingest.views import connect
from replay.replayer import replay_line
from replay.simulator import simulate


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    src = tmp_path_factory.mktemp("in")
    recs = {}
    for v, rules in (("sanjing_huapai", {}), ("tongcheng_gezi", {}), ("tongcheng_gezi", {"players": 3}),
                     ("yuanjiang_guihuzi", {})):
        rs = list(simulate(v, 16, 4, rules=rules))
        recs.setdefault(v, []).extend(rs)
        (src / f"{v}-{len(rules)}.jsonl").write_bytes(b"\n".join(msgspec.json.encode(r) for r in rs) + b"\n")
    out = tmp_path_factory.mktemp("wh")
    ingest([src], out, workers=1, progress=False)
    return connect(out), recs, out


def test_jing_rows_match_the_engine_facts(wh):
    con, recs, _ = wh
    wins = [r for r in recs["sanjing_huapai"] if r.result.outcome == "win"]
    want = {}
    for r in wins:
        facts = replay_line(msgspec.json.encode(r)).facts
        for ch, d in facts["jing"]["per_char"].items():
            want[(r.game_id, ch)] = (d["hua"], d["su"], d["hu"], ch == facts["jing"]["main"])
    cur = con.cursor()
    got = {(g, c): (h, s, hu, m) for g, c, h, s, hu, m in
           cur.sql("SELECT game_id, char, hua, su, hu, is_main FROM jing WHERE variant = 'sanjing_huapai'").fetchall()}
    assert got == want and want
    zj = family.zhu_jing(con, "sanjing_huapai")
    assert zj["wins"].sum() == len({g for g, _ in want}) and abs(zj["share"].sum() - 1) < 1e-9


def test_gezi_rows_split_by_seats(wh):
    con, recs, _ = wh
    summary = family.gezi_summary(con)
    assert summary["n_seats"].to_list() == [3, 4]
    assert summary["games"].to_list() == [16, 16]
    wins = [r for r in recs["tongcheng_gezi"] if r.result.outcome == "win"]
    cur = con.cursor()
    pts = sorted(x for (x,) in cur.sql("SELECT points FROM gezi").fetchall())
    assert pts == sorted(r.result.points for r in wins)
    # 個子 from cards + from melds is the hand's 個子 (000 §計胡規則)
    assert cur.sql("SELECT count(*) FROM gezi WHERE from_cards + from_melds <> points").fetchall()[0][0] == 0


def test_simulated_yuanjiang_tables_have_no_dingzhuang_break(wh):
    con, _, _ = wh
    assert family.dingzhuang_breaks(con) == []


def test_family_page_shows_jing_gezi_and_dingzhuang(wh, monkeypatch):
    con, recs, warehouse = wh
    def page(**params):  # the page shows the family figures of the one variant in scope
        at = open_page(monkeypatch, warehouse, "screens/families.py", **params)
        return at, [d.value for d in at.dataframe]

    _, frames = page(variant="sanjing_huapai")
    mains = frames[0]
    assert set(mains["主精 main"]) <= {"三", "五", "七"} and mains["胡 wins"].sum() == sum(
        r.result.outcome == "win" for r in recs["sanjing_huapai"])
    for n in (3, 4):
        _, frames = page(variant="tongcheng_gezi", seats=str(n))
        gezi = next(f for f in frames if "人数 players" in f.columns)
        assert gezi["人数 players"].tolist() == [n] and gezi["局 games"].tolist() == [16]
    at, _ = page(variant="yuanjiang_guihuzi")
    assert any("No breaks" in s.value for s in at.success)
