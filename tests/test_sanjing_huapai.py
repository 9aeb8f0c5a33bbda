"""三精花牌 (sanjing_huapai) and the 花牌 family code it shares with wujing / shuangbiegan.

Known answers are worked out by hand from seed 002_f9a80b28e0fcbf1a.txt (§3 計胡規則, §4 胡牌規則,
§5 計分規則, §2 操作規則); docs/rules/huapai.md gives the readings. The helpers here are imported by
test_wujing_huapai.py and test_shuangbiegan_huapai.py.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay import simulator, variants
from replay.errors import RuleViolation
from replay.options import make_ruleset
from replay.record import Deal, Event, Record
from replay.replayer import replay_line
from replay.score import score_case
from replay.variants.huapai import scoring as sc
from replay.variants.huapai.bots import HeuristicBot

V = "sanjing_huapai"


# -- helpers shared by the family's test files ------------------------------------------------
def sim(variant: str, n: int, seed: int, bots: str = "heuristic", rules: dict | None = None) -> list[Record]:
    return list(simulator.simulate(variant, n, seed, bots, rules))


# every option away from its default (docs/rules/huapai.md §Options)
OFF_DEFAULT = {"zhu_jing_tie": "deck_order", "dui_hu": "half", "tingtou_jing": "count", "zha_in_hand": "eight_groups",
               "fan_from_hand": "yes", "bu_pai_empty": "huang", "lai_hu": "gongan", "zhao_bu_from": "tail",
               "dui_limit": 2, "mashang_dui": "before_hu", "qing_tong_kai_fan": "yes"}


def verdict(rec: Record):
    return replay_line(msgspec.json.encode(rec)).verdict


def check_sims(recs: list[Record]) -> float:
    """Every record replays clean; returns the share of games ending in a win."""
    bad = [(r.game_id, verdict(r).errors) for r in recs if not verdict(r).valid]
    assert not bad, bad[:3]
    return sum(r.result.outcome == "win" for r in recs) / len(recs)


def first_error(rec: Record) -> tuple[str, int | None, str]:
    v = verdict(rec)
    assert not v.valid, "expected an invalid record"
    e = v.errors[0]
    return e.code, e.step, e.rule


def with_actions(rec: Record, actions: list[Event]) -> Record:
    return msgspec.structs.replace(rec, actions=actions)


def crafted(variant: str, hands: dict[int, list[str]], front: list[str] = (), back: list[str] = (),
            dealer: int = 0, seed: int = 0, no_four_but: set[int] | None = None) -> Record:
    """A deal with the given cards in the given seats, ``front`` first and ``back`` last in the wall,
    the rest shuffled with ``seed``; seats outside ``no_four_but`` hold no four alike (for 請統 tests)."""
    spec = variants.get(variant)
    for attempt in range(200):
        pool = Counter(spec.deck.all_cards())
        for cards in [*hands.values(), front, back]:
            pool.subtract(cards)
        assert min(pool.values()) >= 0
        rest = list(pool.elements())
        random.Random(f"{seed}:{attempt}").shuffle(rest)
        out = []
        for s in range(3):
            want = 26 if s == dealer else 25
            h = list(hands.get(s, []))
            h += [rest.pop() for _ in range(want - len(h))]
            out.append(h)
        if no_four_but is not None:
            def fours(h):
                c = Counter(x[-1] for x in h if x != "賴")
                return any(n >= 4 for n in c.values())
            if any(fours(out[s]) for s in range(3) if s not in no_four_but):
                continue
        return Record(format="paipu/1", game_id=f"crafted-{variant}-{seed}", variant=variant,
                      seats=["a", "b", "c"], dealer=dealer, deal=Deal(hands=out, wall=list(front) + rest + list(back)),
                      actions=[])
    raise AssertionError("could not craft the deal")


def run(rec: Record, events: list[Event]):
    """Apply ``events`` to a fresh state; returns (state, None) or (state, RuleViolation) at its step."""
    spec = variants.get(rec.variant)
    st_ = spec.state(rec, make_ruleset(spec.id, spec.options, rec.rules))
    for i, ev in enumerate(events):
        st_.step = i
        try:
            st_.apply(ev)
        except RuleViolation as e:
            e.step = i
            return st_, e
    return st_, None


def case(variant: str = V, **kw) -> dict:
    c = {"variant": variant, "rules": {}, "win_from": "discard"}
    c.update(kw)
    return score_case(c)


def group(out: dict, kind: str, cards: list[str]) -> dict:
    return next(g for g in out["groups"] if g["kind"] == kind and sorted(g["cards"]) == sorted(cards))


# -- 1. simulation ---------------------------------------------------------------------------
@lru_cache(maxsize=None)
def games() -> tuple[Record, ...]:
    """300 heuristic games of this variant, simulated once per test run."""
    return tuple(sim(V, 300, 11))


@pytest.fixture(scope="module")
def heuristic_games() -> tuple[Record, ...]:
    return games()


def test_heuristic_simulation_valid_and_mostly_won(heuristic_games):
    share = check_sims(heuristic_games)
    assert share >= 0.5, share
    acts = Counter(e.act for r in heuristic_games for e in r.actions)
    assert all(acts[a] for a in ("dui", "zhao", "zha", "kai_fan", "hu", "pass"))  # every act is exercised


def test_random_simulation_valid():
    check_sims(sim(V, 100, 12, "random"))


def test_off_default_simulation_valid():
    assert check_sims(sim(V, 80, 13, rules=OFF_DEFAULT)) >= 0.5
    check_sims(sim(V, 80, 14, "random", rules=OFF_DEFAULT))


# -- 2. known answers: 精 figures (002 §3 計胡規則) -------------------------------------------
# (group cards, kind, 胡 as 主精, 胡 as a non-主精 character)
JING_FIGURES = [
    (["三", "三", "三"], "kan", 10, 5),  # 精坎 3素 = 5
    (["三", "三", "花三"], "kan", 12, 6),  # 2素1花 = 6
    (["三", "花三", "花三"], "kan", 14, 7),  # 1素2花 = 7
    (["三", "三", "三", "花三"], "zha", 24, 12),  # 精扎 3素1花 = 6*2
    (["三", "三", "花三", "花三"], "zha", 28, 14),  # 2素2花 = 7*2
]


@pytest.mark.parametrize("cards,kind,main_pts,other_pts", JING_FIGURES)
def test_jing_alike_figures(cards, kind, main_pts, other_pts):
    # 主精: 三 is the only 精 held; the 聽頭 上上 brings nothing.
    out = case(hand=cards + ["上"], win_card="上")
    assert group(out, kind, cards)["points"] == main_pts and out["points"] == main_pts
    # not 主精: a 招 of 七 (five held, 3素2花 = 14·2 = 28 as 主精) outnumbers 三.
    out = case(hand=cards + ["上"], win_card="上", melds=[{"kind": "kai_fan", "cards": ["七", "七", "七", "花七", "花七"]}])
    assert group(out, kind, cards)["points"] == other_pts
    assert out["points"] == other_pts + 56


def test_jing_fan_figures():
    # 精泛 5 cards = 7*2*2 = 28; doubled as 主精 (three 精 of 五精 held: 乙 泛 ties 三 泛, deck order → 乙).
    fan = ["三", "三", "三", "花三", "花三"]
    out = case("wujing_huapai", hand=fan + ["上"], win_card="上")
    assert group(out, "fan", fan)["points"] == 56
    out = case("wujing_huapai", rules={"zhu_jing_tie": "deck_order"}, hand=fan + ["上"], win_card="上",
               melds=[{"kind": "kai_fan", "cards": ["乙", "乙", "乙", "花乙", "花乙"]}])
    assert group(out, "fan", fan)["points"] == 28 and out["points"] == 28 + 56


@pytest.mark.parametrize("ju,main_pts,other_pts", [(["化", "三", "千"], 2, 1), (["化", "花三", "千"], 4, 2)])
def test_jing_in_ju(ju, main_pts, other_pts):
    # a 精 in a 句 counts 1 (素) or 2 (花); 化三千 itself is not a red 句 (化, 千 are black).
    out = case(hand=ju + ["上"], win_card="上")
    assert group(out, "ju", ju)["points"] == main_pts
    out = case(hand=ju + ["上"], win_card="上", melds=[{"kind": "zha", "cards": ["七", "七", "七", "花七"]}])
    assert group(out, "ju", ju)["points"] == other_pts and out["points"] == other_pts + 24


def test_plain_figures():
    # red 坎 2 / 扎 4 / 泛 8, black half; red 句 1, black 句 0 (002 §3)
    assert [sc.alike_points(sc.HUAPAI_CHARS.index("上"), n, 0, None, frozenset()) for n in (3, 4, 5)] == [2, 4, 8]
    assert [sc.alike_points(sc.HUAPAI_CHARS.index("孔"), n, 0, None, frozenset()) for n in (3, 4, 5)] == [1, 2, 4]
    out = case(hand=list("上大人可知禮孔乙己") + ["二"], win_card="二")
    assert [g["points"] for g in out["groups"] if g["kind"] == "ju"] == [1, 0, 1]


def test_dui_points_option():
    # 對 of 三 三 花三: as a 坎 shown, 2素1花 = 6, ×2 as 主精 (default); or half of that (dui_hu=half)
    melds = [{"kind": "dui", "cards": ["三", "三", "花三"]}]
    assert case(hand=["上"], win_card="上", melds=melds)["points"] == 12  # 2素1花 坎 6, 主精 ×2
    assert case(hand=["上"], win_card="上", melds=melds, rules={"dui_hu": "half"})["points"] == 6


# -- 2. known answers: the 17-胡 threshold and 分 (002 §4, §5) -------------------------------
def test_threshold_16_and_17():
    # 七七七 主精 坎 10 + 上/大/人 坎 2+2+2 = 16; 聽頭 孔孔
    out = case(hand=list("七七七上上上大大大人人人孔"), win_card="孔")
    assert out["points"] == 16 and out["win"] is False and "17" in out["reason"]
    # the refusal carries its best split (RuleViolation.detail): groups as for a win
    assert sum(g["points"] for g in out["groups"]) == 16 and group(out, "kan", ["七", "七", "七"])["points"] == 10
    out = case(hand=list("七七七上上上大大大人人人可知禮孔"), win_card="孔")  # + red 句 可知禮 1
    assert out["points"] == 17 and out["win"] is True and out["units"] == 1


def test_fen():
    assert [sc.fen(p) for p in (17, 21, 22, 26, 27, 32)] == [1, 1, 2, 2, 3, 4]
    with pytest.raises(ValueError):
        sc.fen(16)


def test_zhu_jing_tie_option():
    # 三 坎 (3素) and 七 坎 (2素1花) tie at three held: best → 七 主精: 5 + 12 = 17; deck order → 三: 10 + 6
    hand = ["三", "三", "三", "七", "七", "花七", "孔"]
    assert case(hand=hand, win_card="孔")["points"] == 17
    assert case(hand=hand, win_card="孔", rules={"zhu_jing_tie": "deck_order"})["points"] == 16


def test_tingtou_jing_option():
    assert case(hand=["七"], win_card="花七")["points"] == 0
    assert case(hand=["七"], win_card="花七", rules={"tingtou_jing": "count"})["points"] == 6  # (1 + 2) × 主精


# -- 2/5. waits (002 §4 拿撂, 推攤, 卡卡) via paipu score ---------------------------------------
@pytest.mark.parametrize("hand,want", [
    (["七"], ["七", "花七", "十", "士", "八", "九", "花九", "五", "花五", "六"]),  # 拿撂: 五六七八九十士
    (["孔", "孔", "乙", "乙"], ["孔", "乙", "花乙", "己"]),  # 推攤
    (["三", "三", "四", "四"], ["三", "花三", "二", "四", "五", "花五"]),  # 推攤: 二三四五
    (["孔", "己", "六", "七"], ["乙", "花乙", "八", "五", "花五"]),  # 卡卡 / 胡兩頭: 乙五八
])
def test_waits(hand, want):
    out = case(hand=hand)
    assert [w["card"] for w in out["waits"]] == want


def test_waits_points_and_exhausted_copies():
    # 21 cards in groups around 三三四四: 上上上 大大大 人人人 (6) + 七七七 主精 (10) + 可知禮 (1) = 17
    hand = list("上上上大大大人人人七七七可知禮三三四四")
    waits = {w["card"]: (w["points"], w["win"]) for w in case(hand=hand)["waits"]}
    # +三: 三三三 坎 5 and 七七七 坎 tie at three: either 主精 gives 5 + 10 → 6 + 15 + 1 = 22
    # +花三: 三 主精: 2素1花 坎 6·2 = 12, 七 坎 5 → 17 (better than 6 + 10) → 24
    # +二: 二三四 (素三 1) → 6 + 10 + 1 + 1 = 18; +四: 四四四 (black 坎 1) → 18
    # +五: 三四五 (三 1 + 五 1) → 19; +花五: 三四花五 (1 + 2) → 20
    assert waits == {"三": (22, True), "花三": (24, True), "二": (18, True), "四": (18, True),
                     "五": (19, True), "花五": (20, True)}
    # all five 孔 seen (two in hand, three in a 對): 孔 is no longer a wait
    out = case(hand=["孔", "孔", "乙", "乙"], melds=[{"kind": "dui", "cards": ["孔", "孔", "孔"]}])
    assert [w["card"] for w in out["waits"]] == ["乙", "花乙", "己"]


def test_score_case_errors_and_zimo():
    assert "error" in case(hand=["七"] * 6, win_card="七")
    assert "error" in case(hand=["七"], melds=[{"kind": "dui", "cards": ["七", "七", "八"]}], win_card="七")
    out = case(hand=list("七七七上上上大大大人人人可知禮孔"), win_card="孔", win_from="self")
    assert out["hand_types"] == ["zimo"] and out["units"] == 1


def test_score_cli(tmp_path):
    from typer.testing import CliRunner

    from paipu.cli import app

    p = tmp_path / "cases.jsonl"
    p.write_text(msgspec.json.encode({"variant": V, "hand": ["孔", "己", "六", "七"]}).decode() + "\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["score", str(p)])
    assert res.exit_code == 0
    assert [w["card"] for w in msgspec.json.decode(res.stdout.strip())["waits"]] == ["乙", "花乙", "八", "五", "花五"]


# -- 2. known answers: 請統 order, replacements, 對 order, 承包 --------------------------------
def qingtong_deal(variant: str = V) -> Record:
    # dealer 0; 二家 = seat 1; 末家 = seat 2. Seat 2 holds four 孔, the dealer four 九; the wall
    # starts with 大 and ends with 上 (so a wrong-end replacement is visible).
    return crafted(variant, {2: ["孔"] * 4, 0: ["九", "九", "九", "花九"]}, front=["大"], back=["上", "上"],
                   no_four_but={0, 2})


def test_qingtong_order():
    rec = qingtong_deal()
    zha0 = Event(seat=0, act="zha", cards=["九", "九", "九", "花九"])
    zha2 = Event(seat=2, act="zha", cards=["孔"] * 4)
    tail = lambda s: Event(seat=s, act="draw", card="上", tail=True)  # noqa: E731
    # the dealer first while 末家 has not passed: 末家先扎，二家次扎，莊家最後扎
    _, err = run(rec, [zha0])
    assert (err.code, err.step, err.rule) == ("priority_violation", 0, "paipu.priority")
    # 末家 passes explicitly, then the dealer may 扎, and draws from the tail
    st_, err = run(rec, [Event(seat=2, act="pass"), zha0, tail(0)])
    assert err is None and st_.melds[0] == [("zha", tuple(sorted(rec_kinds(rec, ["九", "九", "九", "花九"]))))]
    # in order: 末家 扎 + tail draw, then the dealer 扎 + tail draw, then the dealer discards
    st_, err = run(rec, [zha2, tail(2), zha0, tail(0), Event(seat=0, act="discard", card="上")])
    assert err is None and st_.wall_left == 34 - 2 and st_.phase.value == "window"
    # after 末家's 扎 it cannot 扎 again out of order once the dealer has
    _, err = run(rec, [Event(seat=2, act="pass"), zha0, tail(0), zha2])
    assert (err.code, err.step) == ("illegal_action", 3)


def rec_kinds(rec: Record, cards: list[str]) -> list[int]:
    deck = variants.get(rec.variant).deck
    return [deck.index(c) for c in cards]


def test_replacement_from_wrong_end():
    rec = qingtong_deal()
    zha2 = Event(seat=2, act="zha", cards=["孔"] * 4)
    # 扎's replacement comes from the 牌底: a front draw is illegal_action (rule bu_pai_end)
    _, err = run(rec, [zha2, Event(seat=2, act="draw", card="大")])
    assert (err.code, err.step, err.rule) == ("illegal_action", 1, f"{V}.bu_pai_end")
    # marked as a tail draw but naming the front card: wall_mismatch
    _, err = run(rec, [zha2, Event(seat=2, act="draw", card="大", tail=True)])
    assert (err.code, err.step) == ("wall_mismatch", 1)
    # skipping the owed replacement (a forced act, spec §6), by the seat or by another seat
    _, err = run(rec, [zha2, Event(seat=2, act="discard", card="孔")])
    assert (err.code, err.step, err.rule) == ("missing_forced_action", 1, f"{V}.bu_pai")
    _, err = run(rec, [zha2, Event(seat=0, act="draw", card="大")])
    assert (err.code, err.step, err.rule) == ("missing_forced_action", 1, f"{V}.bu_pai")
    assert "owes the replacement draw from the 牌底 (tail) of the wall after its `zha`, not `draw` by seat 0" in err.message
    # an ordinary draw from the tail
    rec2 = crafted(V, {0: ["上"]}, front=["大"], back=["人"], no_four_but=set())
    _, err = run(rec2, [Event(seat=0, act="discard", card="上"), Event(seat=1, act="draw", card="人", tail=True)])
    assert (err.code, err.step, err.rule) == ("illegal_action", 1, f"{V}.bu_pai_end")


def test_dui_order():
    # the dealer (0) discards 孔; its 下家 (1) and seat 2 both hold 孔孔: seat 1 decides first
    rec = crafted(V, {0: ["孔"], 1: ["孔", "孔"], 2: ["孔", "孔"]}, no_four_but=set())
    dis = Event(seat=0, act="discard", card="孔")
    dui2 = Event(seat=2, act="dui", card="孔", cards=["孔", "孔"])
    _, err = run(rec, [dis, dui2])
    assert (err.code, err.step, err.rule) == ("priority_violation", 1, "paipu.priority")
    st_, err = run(rec, [dis, Event(seat=1, act="pass"), dui2])
    assert err is None and st_.turn == 2 and st_.phase.value == "discard" and st_.dui_count == [0, 0, 1]
    # seat 1 may 對 at once (上家打出可以馬上對)
    st_, err = run(rec, [dis, Event(seat=1, act="dui", card="孔", cards=["孔", "孔"])])
    assert err is None and st_.melds[1][0][0] == "dui"
    # a 對 without the pair is illegal
    _, err = run(rec, [dis, Event(seat=1, act="dui", card="孔", cards=["孔", "己"])])
    assert err.code == "illegal_action" and err.step == 1


class DuiBot(HeuristicBot):
    """Takes every 對 (to reach the 3rd)."""

    def claim(self, state, seat, opt):
        return opt.events[0] if opt.act == "dui" else super().claim(state, seat, opt)


def test_third_dui_makes_its_seat_pay(monkeypatch):
    monkeypatch.setattr(simulator, "_bots", lambda v, name: DuiBot)
    recs = list(simulator.simulate(V, 12, 7))
    found = 0
    for r in recs:
        duis = Counter(e.seat for e in r.actions if e.act == "dui")
        res = r.result
        if res.outcome != "win":
            continue
        bao_seats = [s for s, n in duis.items() if n >= 3 and s != res.winner]
        if not bao_seats:
            assert res.bao is None
            continue
        found += 1
        # the first seat to make its 3rd 對 pays both losers' shares (承包)
        third = {}
        for i, e in enumerate(r.actions):
            if e.act == "dui":
                third.setdefault(e.seat, []).append(i)
        first = min(bao_seats, key=lambda s: third[s][2])
        assert res.bao == first
        other = 3 - res.winner - first
        assert res.scores[first] == -2 * res.units and res.scores[other] == 0 and res.scores[res.winner] == 2 * res.units
        assert verdict(r).valid
        bad = msgspec.structs.replace(r, result=msgspec.structs.replace(res, bao=other))
        assert first_error(bad)[0] == "result_mismatch"
    assert found >= 3


# -- 2. open readings as rule options (docs/rules/huapai.md §Options) -------------------------
QI_FAN = ["七", "七", "七", "花七", "花七"]  # 七 泛 3素2花: 精泛 28, 56 as 主精


def test_zha_in_hand_option():
    # an undeclared 泛 of 七 counts 56 (group) ...
    out = case(hand=QI_FAN + ["上"], win_card="上")
    assert (out["win"], out["points"], out["units"]) == (True, 56, 8) and group(out, "fan", QI_FAN)["points"] == 56
    # ... or is no group, and 七七七 坎 + 花七花七 + 上上 leave two 聽頭: no split at all
    out = case(hand=QI_FAN + ["上"], win_card="上", rules={"zha_in_hand": "eight_groups"})
    assert (out["win"], out["points"], out["groups"]) == (False, None, []) and "句 or 坎" in out["reason"]
    # a 26-card hand of 7 groups: 七 泛 56 + 九 扎 (black) 2 + 上/大/人 坎 2 each + 可知禮 1 + 孔孔孔 坎 1,
    # 聽頭 乙己 (better than 孔乙己 0 + 聽頭 孔孔)
    hand = QI_FAN + ["九", "九", "九", "花九"] + list("上上上大大大人人人可知禮孔乙己孔")
    assert len(hand) + 1 == 26
    out = case(hand=hand, win_card="孔")
    assert (out["points"], out["units"]) == (66, 10) and group(out, "zha", ["九", "九", "九", "花九"])["points"] == 2
    assert case(hand=hand, win_card="孔", rules={"zha_in_hand": "eight_groups"})["win"] is False
    # a declared 泛 is a group under either reading: 7 groups of 3 + the 開泛 on the table
    melds = [{"kind": "kai_fan", "cards": QI_FAN}]
    for mode in ("group", "eight_groups"):
        out = case(hand=["上"], win_card="上", melds=melds, rules={"zha_in_hand": mode})
        assert (out["win"], out["points"]) == (True, 56)


def test_dui_hu_default_is_a_kan():
    # 對 of 上上上 (red): a 坎 shown, 2 (kan) or 1 (half); 主精 七 坎 10 + 上大人 1 + 可知禮 1 + 聽頭 beside
    melds = [{"kind": "dui", "cards": ["上", "上", "上"]}]
    hand = list("七七七大大大人人人可知禮孔")
    assert case(hand=hand, win_card="孔", melds=melds)["points"] == 10 + 2 + 2 + 2 + 1
    out = case(hand=hand, win_card="孔", melds=melds, rules={"dui_hu": "half"})
    assert (out["points"], out["win"]) == (16, False)


def play(rec: Record, events: list[Event], before=None):
    """Apply ``events`` to a fresh state; ``before(state, i)`` runs before event ``i``. Returns
    (state, None) or (state, RuleViolation)."""
    spec = variants.get(rec.variant)
    st_ = spec.state(rec, make_ruleset(spec.id, spec.options, rec.rules))
    for i, ev in enumerate(events):
        if before is not None:
            before(st_, i)
        st_.step = i
        try:
            st_.apply(ev)
        except RuleViolation as e:
            return st_, e
    return st_, None


def test_fan_from_hand_option_drawn_fifth():
    # seat 1 holds 七七七花七 (never declared: 請統 passed) and draws the 5th
    rec = crafted(V, {0: ["上"], 1: ["七", "七", "七", "花七"]}, front=["花七"], back=["大", "人"], no_four_but={1})
    head = [Event(seat=1, act="pass"), Event(seat=0, act="discard", card="上"), Event(seat=1, act="draw", card="花七")]
    kai_fan = Event(seat=1, act="kai_fan", card="花七", cards=["七", "七", "七", "花七"])
    tails = [Event(seat=1, act="draw", card="人", tail=True), Event(seat=1, act="draw", card="大", tail=True)]
    st_, err = run(rec, head[:3])
    assert err is None and not [e for e in st_.legal_events() if e.act == "kai_fan"]  # default: 扎 only
    assert [e.cards for e in st_.legal_events() if e.act == "zha"]
    _, err = run(rec, head + [kai_fan])
    assert (err.code, err.step, err.rule) == ("illegal_action", 3, f"{V}.kai_fan")
    yes = msgspec.structs.replace(rec, rules={"fan_from_hand": "yes"})
    st_, err = run(yes, head + [kai_fan] + tails)
    qi = rec_kinds(rec, QI_FAN)
    assert err is None and st_.melds[1] == [("kai_fan", tuple(sorted(qi)))] and st_.phase.value == "discard"
    assert st_.wall_left == 34 - 1 - 2 and not any(st_.hands[1][k] for k in qi)
    # the second replacement is owed too: a discard after one is missing_forced_action bu_pai
    _, err = run(yes, head + [kai_fan, tails[0], Event(seat=1, act="discard", card="人")])
    assert (err.code, err.step, err.rule) == ("missing_forced_action", 5, f"{V}.bu_pai")


def test_fan_from_hand_option_dealt_five():
    # 末家 (seat 2) is dealt 七 ×5: 請統 開泛 of the five, two replacements from the 牌底
    rec = crafted(V, {2: QI_FAN}, back=["大", "人"], no_four_but={2})
    kai_fan = Event(seat=2, act="kai_fan", cards=QI_FAN)
    _, err = run(rec, [kai_fan])
    assert (err.code, err.step, err.rule) == ("illegal_action", 0, f"{V}.qing_tong")
    st_, err = run(msgspec.structs.replace(rec, rules={"fan_from_hand": "yes"}), [
        kai_fan, Event(seat=2, act="draw", card="人", tail=True), Event(seat=2, act="draw", card="大", tail=True),
        Event(seat=0, act="discard", card=rec.deal.hands[0][0])])
    assert err is None and st_.melds[2] == [("kai_fan", tuple(sorted(rec_kinds(rec, QI_FAN))))]


def empty_wall(at: int):
    """A ``before`` hook that empties the wall but for its last card (drawn at step ``at``), or
    wholly from step ``at`` when ``at`` < 0 (its absolute value)."""
    def hook(st_, i):
        if i == abs(at):
            st_.front = st_.back - (1 if at > 0 else 0)
    return hook


def test_bu_pai_empty_option_zha():
    # seat 1 holds 孔孔孔 and draws the wall's last card, a 孔: 扎 needs a replacement from the 牌底
    rec = crafted(V, {0: ["上"], 1: ["孔", "孔", "孔"]}, back=["孔"], no_four_but=set())
    evs = [Event(seat=0, act="discard", card="上"), Event(seat=1, act="draw", card="孔"),
           Event(seat=1, act="zha", card="孔", cards=["孔", "孔", "孔"])]
    st_, err = play(rec, evs[:2], empty_wall(1))
    assert err is None and st_.wall_left == 0 and not [e for e in st_.legal_events() if e.act == "zha"]
    st_, err = play(rec, evs, empty_wall(1))
    assert (err.code, err.step, err.rule) == ("illegal_action", 2, f"{V}.bu_pai_empty")
    st_, err = play(msgspec.structs.replace(rec, rules={"bu_pai_empty": "huang"}), evs, empty_wall(1))
    assert err is None and st_.result()["outcome"] == "draw" and st_.melds[1][0][0] == "zha"


def test_bu_pai_empty_option_zhao():
    # the dealer's discard of 孔 with the wall empty: seat 1's 招 owes a front replacement
    rec = crafted(V, {0: ["孔"], 1: ["孔", "孔", "孔"]}, no_four_but=set())
    evs = [Event(seat=0, act="discard", card="孔"), Event(seat=1, act="zhao", card="孔", cards=["孔", "孔", "孔"])]
    st_, err = play(rec, evs, empty_wall(-1))
    assert (err.code, err.step, err.rule) == ("illegal_action", 1, f"{V}.bu_pai_empty")
    st_, err = play(msgspec.structs.replace(rec, rules={"bu_pai_empty": "huang"}), evs, empty_wall(-1))
    assert err is None and st_.result()["outcome"] == "draw" and st_.melds[1][0][0] == "zhao"


def test_no_win_on_the_dealt_hand():
    # 天胡 is not in the seed (decision 6): a `win_card: null` case is the dealer's start window
    out = case(hand=list("七七七上上上大大大人人人可知禮孔孔"), win_card=None)
    assert out["win"] is False and "自摸 and 放銃" in out["reason"]


# -- 3. tamper tests on valid simulated logs ---------------------------------------------------
def find(recs, pred):
    for r in recs:
        for i, e in enumerate(r.actions):
            if pred(r, i, e):
                return r, i
    raise AssertionError("no such event in the simulated games")


def test_tamper_drawn_card(heuristic_games):
    r, i = find(heuristic_games, lambda r, i, e: e.act == "draw" and not e.tail and i > 5)
    acts = list(r.actions)
    other = next(c for c in ("上", "大", "人", "孔") if c != acts[i].card)
    acts[i] = msgspec.structs.replace(acts[i], card=other)
    assert first_error(with_actions(r, acts))[:2] == ("wall_mismatch", i)


def test_tamper_swap_events(heuristic_games):
    # swap a discard with the next seat's draw: that draw comes while the discarder must play
    r, i = find(heuristic_games, lambda r, i, e: e.act == "discard" and r.actions[i + 1].act == "draw" and i > 3)
    acts = list(r.actions)
    acts[i], acts[i + 1] = acts[i + 1], acts[i]
    assert first_error(with_actions(r, acts))[:2] == ("out_of_turn", i)


def test_tamper_result(heuristic_games):
    r = next(x for x in heuristic_games if x.result.outcome == "win")
    last = len(r.actions) - 1
    for field, val in (("points", r.result.points + 1), ("units", r.result.units + 1),
                       ("scores", [x + d for x, d in zip(r.result.scores, (1, -1, 0))])):
        bad = msgspec.structs.replace(r, result=msgspec.structs.replace(r.result, **{field: val}))
        v = verdict(bad)
        assert [(e.code, e.step) for e in v.errors] == [("result_mismatch", last)]
        assert f"result.{field}" in v.errors[0].message


def test_tamper_wrong_seat(heuristic_games):
    r, i = find(heuristic_games, lambda r, i, e: e.act == "discard" and i > 3)
    acts = list(r.actions)
    acts[i] = msgspec.structs.replace(acts[i], seat=(acts[i].seat + 1) % 3)
    assert first_error(with_actions(r, acts))[:2] == ("out_of_turn", i)


def test_tamper_priority(heuristic_games):
    # drop the explicit pass that let a lower seat claim
    r, i = find(heuristic_games, lambda r, i, e: e.act == "pass" and r.actions[i + 1].act in ("dui", "zhao", "hu"))
    acts = list(r.actions)
    del acts[i]
    assert first_error(with_actions(r, acts))[:2] == ("priority_violation", i)


def test_tamper_truncated_and_trailing(heuristic_games):
    r = next(x for x in heuristic_games if x.result.outcome == "win" and x.result.from_ is None)
    n = len(r.actions)
    assert first_error(with_actions(r, list(r.actions[:-1])))[:2] == ("truncated", n - 1)
    extra = list(r.actions) + [Event(seat=0, act="discard", card="上")]
    assert first_error(with_actions(r, extra))[:2] == ("trailing_actions", n)
    d = next(x for x in heuristic_games if x.result.outcome == "draw")
    extra = list(d.actions) + [Event(seat=0, act="draw", card="上")]
    assert first_error(with_actions(d, extra))[:2] == ("trailing_actions", len(d.actions))


def test_tamper_hu_incomplete(heuristic_games):
    # a 自摸 claimed on the 6th draw of a game: no hand is complete that early here
    r, i = find(heuristic_games, lambda r, i, e: e.act == "discard" and i > 12 and r.actions[i - 1].act == "draw"
                and not r.actions[i - 1].tail)
    acts = list(r.actions)
    acts[i] = Event(seat=acts[i].seat, act="hu", card=acts[i - 1].card)
    code, step, rule = first_error(with_actions(r, acts))
    assert (code, step, rule) == ("not_a_win", i, f"{V}.hu_shape")


def test_tamper_replacement_end(heuristic_games):
    # the draw after an in-turn 扎 (tail) logged as a front draw; the draw after a 招 (front) as tail
    r, i = find(heuristic_games, lambda r, i, e: e.act == "zha" and e.card is not None)
    acts = list(r.actions)
    assert acts[i + 1].tail
    acts[i + 1] = msgspec.structs.replace(acts[i + 1], tail=False)
    assert first_error(with_actions(r, acts)) == ("illegal_action", i + 1, f"{V}.bu_pai_end")
    r, i = find(heuristic_games, lambda r, i, e: e.act == "zhao")
    acts = list(r.actions)
    assert acts[i + 1].act == "draw" and not acts[i + 1].tail
    acts[i + 1] = msgspec.structs.replace(acts[i + 1], tail=True)
    assert first_error(with_actions(r, acts)) == ("illegal_action", i + 1, f"{V}.bu_pai_end")


def test_tamper_missing_replacement(heuristic_games):
    # the owed replacement after 開泛 dropped
    r, i = find(heuristic_games, lambda r, i, e: e.act == "kai_fan")
    acts = list(r.actions)
    del acts[i + 1]
    code, step, rule = first_error(with_actions(r, acts))
    assert (code, step) == ("missing_forced_action", i + 1) and rule == f"{V}.bu_pai"


# -- 4. card order never changes a score -------------------------------------------------------
def win_cases(recs: list[Record], n: int) -> list[tuple[dict, Record]]:
    """Score cases (spec §8) of the first ``n`` won games: the winner's hand before the winning card."""
    out = []
    for r in recs:
        if r.result.outcome != "win" or len(out) >= n:
            continue
        spec = variants.get(r.variant)
        o = replay_line(msgspec.json.encode(r))
        st_ = o.state
        w = r.result.winner
        hand = spec.deck.expand(st_.hands[w])
        hand.remove(r.result.win_card)
        melds = [{"kind": k, "cards": [spec.deck.codes[x] for x in cards]} for k, cards in st_.melds[w]]
        c = {"variant": r.variant, "rules": {}, "hand": hand, "melds": melds, "win_card": r.result.win_card,
             "win_from": "discard" if r.result.from_ is not None else "self"}
        out.append((c, r))
    return out


def test_score_case_agrees_with_replay(heuristic_games):
    for c, r in win_cases(heuristic_games, 25):
        out = score_case(c)
        assert (out["win"], out["points"], out["units"]) == (True, r.result.points, r.result.units)


@lru_cache(maxsize=None)
def first_win_cases() -> list[tuple[dict, Record]]:
    return win_cases(games(), 8)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_card_order_never_changes_a_score(data):
    cases = first_win_cases()
    c, r = cases[data.draw(st.integers(0, len(cases) - 1), label="case")]
    melds = [dict(m, cards=data.draw(st.permutations(m["cards"]), label="meld")) for m in c["melds"]]
    perm = dict(c, hand=data.draw(st.permutations(c["hand"]), label="hand"), melds=melds)
    assert score_case(perm) == score_case(c)
    # a whole record with every dealt hand reordered replays to the same result
    hands = [data.draw(st.permutations(h), label="dealt") for h in r.deal.hands]
    r2 = msgspec.structs.replace(r, deal=Deal(hands=hands, wall=r.deal.wall), shuffle=None)
    v = verdict(r2)
    assert v.valid and v.computed == verdict(r).computed


# -- facts, audit ------------------------------------------------------------------------------
def test_facts_and_snapshot(heuristic_games):
    r = next(x for x in heuristic_games if x.result.outcome == "win" and x.result.jing.count)
    o = replay_line(msgspec.json.encode(r))
    f = o.facts
    assert f["win_kind"] == ("zimo" if r.result.from_ is None else "dianpao")
    jing = f["jing"]
    assert jing["main"] == r.result.jing.main
    assert sum(v["hua"] + v["su"] for v in jing["per_char"].values()) == r.result.jing.count
    mine = [m for m in f["melds"] if m["seat"] == r.result.winner]
    assert sum(m["points"] for m in mine) == r.result.points
    assert sum(v["hu"] for v in jing["per_char"].values()) <= r.result.points
    from replay.audit import audit_trail

    trail = audit_trail(msgspec.json.encode(r))
    assert trail["verdict"]["valid"] and len(trail["steps"]) == len(r.actions) + 1
    d = next(x for x in heuristic_games if x.result.outcome == "draw")
    assert replay_line(msgspec.json.encode(d)).facts["jing"] is None


def test_dui_half_halves_after_the_zhu_jing_doubling():
    # docs/rules/huapai.md decision 1: a 對 of three 素 乙 (a 精, 坎 5 胡, 002 §3) that is the 主精 is
    # 10 as a 坎; dui_hu=half gives 10 // 2 = 5 (halving first would give 5 // 2 × 2 = 4); not the
    # 主精: 5 // 2 = 2; dui_hu=kan: 10.
    from replay.cards import HUAPAI
    from replay.variants.huapai import scoring as hsc

    yi = hsc.HUAPAI_CHARS.index("乙")
    kinds = (hsc.KCHAR.index(yi),) * 3
    assert not any(hsc.KHUA[k] for k in kinds)
    half = hsc.Cfg(deck=HUAPAI, jing=frozenset({yi}), dui_hu="half")
    assert hsc.meld_points("dui", kinds, yi, half) == 5
    assert hsc.meld_points("dui", kinds, None, half) == 2
    assert hsc.meld_points("dui", kinds, yi, hsc.Cfg(deck=HUAPAI, jing=frozenset({yi}))) == 10
