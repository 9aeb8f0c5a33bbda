"""A variant's ``SPEC`` declares its state and score-case entry points (``replay.variants.Entry``):
the registry imports no engine until one is called, and a call is the named callable's with the
declared keyword arguments bound (the 花牌 variants' deck and 精)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from replay import variants
from replay.cards import HUAPAI_CHARS
from replay.options import make_ruleset
from replay.record import Deal, Record
from replay.variants import Entry

ROOT = Path(__file__).resolve().parent.parent


def test_the_registry_loads_no_engine_until_an_entry_is_called():
    code = ("import sys; from replay import variants; "
            "loaded = lambda: sorted(m for m in sys.modules if m.endswith(('.state', '.cases'))); "
            "print(loaded()); variants.get('zipai').position; print(loaded()); "
            "variants.get('wujing_huapai').state.resolve(); print(loaded())")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[]", "[]", "['replay.variants.huapai.state']"]


def test_each_variant_names_its_own_folder():
    for vid, spec in variants.VARIANTS.items():
        assert spec.implemented, vid
        folder = "guilin" if vid == "zipai" else "huapai" if vid.endswith("_huapai") else vid
        assert spec.state.target.startswith(f"replay.variants.{folder}.state:"), vid
        assert spec.position.target == f"replay.variants.{folder}.cases:position", vid


def test_a_call_binds_the_declared_arguments():
    spec = variants.get("wujing_huapai")
    ruleset = make_ruleset(spec.id, spec.options, {})
    rec = Record(format="paipu/1", game_id="g", variant=spec.id, seats=["a", "b", "c"], dealer=0,
                 deal=Deal(hands=[[], [], []], wall=[]), actions=[], rules={})
    st = spec.state(rec, ruleset)
    assert type(st).__name__ == "HuapaiState" and st.variant == "wujing_huapai"
    assert sorted(HUAPAI_CHARS[c] for c in st.cfg.jing) == sorted("乙三五七九")  # 五精 (002 §五精花牌)
    assert spec.position.bound["make_state"] is spec.state  # a case is judged on the same state


def test_an_entry_is_module_colon_name():
    assert Entry("replay.cards:ZIPAI").resolve().family == "zipai"
    assert repr(Entry("replay.variants.guilin.cases:position")) == "Entry('replay.variants.guilin.cases:position')"
    for bad in ("replay.cards", "replay.cards:", ":ZIPAI"):
        with pytest.raises(ValueError, match="package.module:name"):
            Entry(bad)
