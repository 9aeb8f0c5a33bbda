"""paipu/1 contract surface: schema file in sync, ruleset ids, simulator determinism, real deals."""

from __future__ import annotations

import json
import random
from pathlib import Path

import msgspec
import pytest

from replay.cards import ZIPAI
from replay.options import make_ruleset
from replay.record import json_schema
from replay.replayer import replay_line
from replay.simulator import simulate
from replay.variants import VARIANTS, get

ROOT = Path(__file__).resolve().parents[1]


def test_published_schema_is_generated_from_the_types():
    on_disk = json.loads((ROOT / "docs/paipu-1.schema.json").read_text(encoding="utf-8"))
    assert on_disk == json.loads(json.dumps(json_schema()))


@pytest.mark.parametrize("variant", sorted(v for v in VARIANTS if VARIANTS[v].implemented))
def test_the_schema_takes_every_variants_logs_and_refuses_what_validate_would(variant):
    import copy

    import jsonschema

    check = jsonschema.Draft202012Validator(json_schema())
    rec = msgspec.to_builtins(next(simulate(variant, 1, 3)))
    assert not list(check.iter_errors(rec))
    card = rec["deal"]["wall"][0]
    for path, value in ((("variant",), "mahjong"), (("deal", "wall", 0), "x11"), (("deal", "hands", 0, 0), "5m"),
                        (("actions", 0, "act"), "gang"), (("actions", 0, "card"), "X4")):
        bad = copy.deepcopy(rec)
        obj = bad
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
        assert list(check.iter_errors(bad)), (path, value)
    assert card in json_schema()["$defs"]["Record"]["allOf"][list(VARIANTS).index(variant)]["then"]["properties"][
        "deal"]["properties"]["wall"]["items"]["enum"]


def test_ruleset_id_groups_spelled_out_defaults_with_absent_ones():
    opts = get("guilin").options
    assert make_ruleset("guilin", opts, {}).id == "guilin-default"
    assert make_ruleset("guilin", opts, {"tuo_step": 5, "zimo_bonus": "plus1"}).id == "guilin-default"
    a = make_ruleset("guilin", opts, {"tuo_step": 3}).id
    b = make_ruleset("guilin", opts, {"tuo_step": 3, "zimo_bonus": "plus1"}).id
    assert a == b != "guilin-default" and a.startswith("guilin-")
    assert make_ruleset("guilin", opts, {"zimo_bonus": "double"}).id != a


def test_simulation_is_deterministic_and_ignores_global_random_state():
    random.seed(1)
    one = [msgspec.json.encode(r) for r in simulate("guilin", 5, 42)]
    random.seed(999)
    random.random()
    two = [msgspec.json.encode(r) for r in simulate("guilin", 5, 42)]
    assert one == two
    assert one != [msgspec.json.encode(r) for r in simulate("guilin", 5, 43)]


def test_real_2017_deals_are_the_80_card_deck_and_play_out_valid():
    deals = [json.loads(x) for x in (ROOT / "data/guilin-deals-2017.jsonl").read_text().splitlines() if x.strip()]
    assert len(deals) == 8
    for d in deals:
        cards = [c for h in d["hands"] for c in h] + d["wall"]
        assert sorted(cards) == sorted(ZIPAI.all_cards())
        assert [len(h) for h in d["hands"]] == [21, 20, 20] and len(d["wall"]) == 19
    recs = list(simulate("guilin", len(deals), 1, deals=deals))
    assert [r.game_id for r in recs] == [f"guilin-2017-{i}-s1" for i in range(1, 9)]
    for r, d in zip(recs, deals):
        assert r.deal.hands == d["hands"] and r.deal.wall == d["wall"]
        assert replay_line(msgspec.json.encode(r)).verdict.valid


def test_a_repeated_key_is_bad_json_whether_compact_or_spaced():
    """spec §6: a key twice in one object makes the record ambiguous → ``bad_json`` with rule
    ``paipu.duplicate_key``, in compact lines (the fast re-encode check) and spaced ones (the
    stdlib re-parse) alike; the same record without the repeat replays valid."""
    rec = next(iter(simulate("guilin", 1, 3, bots="random")))
    compact = msgspec.json.encode(rec)
    assert replay_line(compact).verdict.valid
    dup_top = compact.replace(b'"dealer":', b'"dealer":0,"dealer":', 1)
    spaced = json.dumps(json.loads(compact), separators=(", ", ": ")).encode()
    dup_event = compact.replace(b'{"seat":', b'{"seat":0,"seat":', 1)
    for line, key in ((dup_top, "dealer"), (dup_event, "seat"),
                      (spaced.replace(b'"dealer": ', b'"dealer": 0, "dealer": ', 1), "dealer")):
        v = replay_line(line).verdict
        assert not v.valid and [e.code for e in v.errors] == ["bad_json"], line[:120]
        assert v.errors[0].rule == "paipu.duplicate_key"
        assert f"`{key}`" in v.errors[0].message


def _two_ways(raw: bytes):
    """``decode_record``'s answer for ``raw`` by its shortcut path (``obj`` None) and by the
    two-stage path (``obj`` given): the record, or the refusal's (code, rule, message)."""
    from replay.errors import RuleViolation
    from replay.record import decode_record, parse_object

    out = []
    for given in (False, True):
        try:
            out.append(decode_record(raw, parse_object(raw)) if given else decode_record(raw))
        except RuleViolation as e:
            out.append((e.code, e.rule, e.message))
    return out


def test_the_typed_shortcut_takes_only_canonical_lines_and_decides_as_the_two_stage_decode():
    """decode_record's one typed decode (``canonical_record``) takes a line only when the record
    encodes back to it byte for byte; every other line, and every refusal, is the two-stage
    decode's. Both paths give the same record or the same error on each line here, and the
    shortcut turns away each line that carries what the typed decode would drop or refuse."""
    from replay.record import canonical_record

    rec = next(iter(simulate("guilin", 1, 3, bots="random")))
    compact = msgspec.json.encode(rec)
    lines = {
        "canonical": (compact, True, None),
        "trailing CRLF": (compact + b"\r\n", True, None),
        "x_ field": (compact[:-1] + b',"x_server":{"v":1}}', False, None),
        "unknown field": (compact[:-1] + b',"server":1}', False, ("schema", "paipu.schema")),
        "unknown event field": (compact.replace(b'{"seat":', b'{"foo":1,"seat":', 1), False, ("schema", "paipu.schema")),
        "repeated key": (compact.replace(b'"dealer":', b'"dealer":0,"dealer":', 1), False,
                         ("bad_json", "paipu.duplicate_key")),
        "seat out of range": (compact.replace(b'"dealer":0', b'"dealer":9', 1).replace(b'"dealer":1', b'"dealer":9', 1)
                              .replace(b'"dealer":2', b'"dealer":9', 1), False, ("schema", "paipu.schema")),
        "escaped text": (compact.replace(b'"variant":"guilin"', b'"variant":"gui\\u006cin"', 1), False, None),
        "not an object": (b"[1,2]", False, ("bad_json", "paipu.json")),
        "not JSON": (compact[:-5], False, ("bad_json", "paipu.json")),
    }
    for name, (line, canonical, refused) in lines.items():
        assert (canonical_record(line) is not None) == canonical, name
        fast, slow = _two_ways(line)
        assert fast == slow, name
        if refused is None:
            assert fast == rec, name  # the x_ field and the escape decode to the same record
        else:
            assert fast[:2] == refused, (name, fast)
    for case in sorted((ROOT / "tests/data/bad/cases").glob("*.jsonl")):  # every bad-input case's lines
        for i, line in enumerate(case.read_bytes().splitlines()):
            fast, slow = _two_ways(line)
            assert fast == slow, (case.name, i + 1)


def test_simulated_game_ids_differ_by_bot_kind():
    """Two runs with the same variant and seed but other bots never share a ``game_id`` (spec §2:
    unique across all files); heuristic runs keep the ids they always had."""
    h = [r.game_id for r in simulate("guilin", 2, 5)]
    r = [r.game_id for r in simulate("guilin", 2, 5, bots="random")]
    assert h == ["sim-guilin-5-0000000", "sim-guilin-5-0000001"]
    assert r == ["sim-guilin-random-5-0000000", "sim-guilin-random-5-0000001"]


def test_python_dash_m_runs_the_command():
    """``python -m paipu`` and ``python -m paipu.cli`` run the command (they exited 0 silently)."""
    import subprocess
    import sys

    for mod in ("paipu", "paipu.cli"):
        out = subprocess.run([sys.executable, "-m", mod, "--help"], capture_output=True, text=True)
        assert out.returncode == 0 and "validate" in out.stdout, (mod, out)


@pytest.mark.parametrize("variant,field,value", [
    ("tongcheng_gezi", "bao", 1), ("tongcheng_gezi", "jing", {"main": "上", "count": 1}),
    ("guilin", "bao", 2), ("guilin", "jing", {"main": "x1", "count": 1}),
    ("sanjing_huapai", "xing", {"cards": ["上"], "count": 1}),
])
def test_a_claimed_field_the_variant_never_computes_differs(variant, field, value):
    """A claimed ``bao``/``jing``/``xing`` the variant has no such thing of is ``result_mismatch``
    (it was never compared: the game validated); claimed null, it is the same."""
    rec = msgspec.to_builtins(next(iter(simulate(variant, 1, 3))))
    rec["result"][field] = value
    errs = replay_line(msgspec.json.encode(rec)).verdict.errors
    assert [(e.code, e.rule) for e in errs] == [("result_mismatch", "paipu.result")], errs
    assert f"result.{field}" in errs[0].message
    rec["result"][field] = None
    assert replay_line(msgspec.json.encode(rec)).verdict.valid


@pytest.mark.parametrize("variant", ["guilin", "zipai", "yuanjiang_guihuzi", "tongcheng_gezi", "sanjing_huapai",
                                     "wujing_huapai", "shuangbiegan_huapai", "shangdaren"])
def test_a_replay_leaves_no_cycle_for_the_collector(variant):
    """A replayed game's objects are freed by their reference counts alone: nothing a replay makes
    refers back to itself (沅江's state kept its own bound window builder, so every replayed state
    waited for the cyclic collector, which rescanned the records a batch keeps alive;
    compiled, the inner functions of the 通城 and 花牌 scorers made a cycle a judged hand)."""
    import gc

    lines = [msgspec.json.encode(r) for r in simulate(variant, 30, 11, bots="random")]
    replay_line(lines[0])
    gc.collect()
    gc.disable()
    try:
        for line in lines:
            out = replay_line(line)
            assert out.verdict.valid
        del out
        assert gc.collect() == 0
    finally:
        gc.enable()
