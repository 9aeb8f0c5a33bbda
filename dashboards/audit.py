"""One game's audit, shared by the dashboard's audit page and ``paipu audit``: the verdict, the
state at every step, and the claimed result against the computed one.

The steps come from the engine (``replay.audit.audit_trail``). While that module is missing or
fails on a record, :func:`naive_trail` stands in: it moves cards as the log says, without
checking a rule and without legal options, and takes the verdict from the warehouse row.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import polars as pl

from dashboards import labels
from dashboards.data import computed_from_row
from ingest.views import as_judged
from replay import explain as explain_mod
from replay.cards import Deck

# Acts that lay a meld from the acting seat's hand plus ``card`` (spec §4).
_MELD_ACTS = {"chi", "peng", "sao", "guo_sao", "sao_chuan", "kai_duo", "wai", "liu", "piao", "jian",
              "zhao", "guan_sheng", "hua", "dui", "zha", "kai_fan", "kai_mao", "mao"}


def engine_audit() -> Callable[[bytes], dict[str, Any]] | None:
    """``replay.audit.audit_trail`` when the engine provides it, else None."""
    try:
        from replay.audit import audit_trail
    except Exception:  # ImportError, or the engine half-written: the page must still render
        return None
    return audit_trail


def verdict_from_row(row: dict[str, Any], seats: pl.DataFrame | None = None) -> dict[str, Any]:
    """A spec §6 verdict rebuilt from a ``games`` row (only its first error is stored)."""
    errors = []
    if row.get("error_code"):
        errors.append({"step": row.get("error_step"), "code": row["error_code"],
                       "rule": row.get("error_rule"), "message": row.get("error_message")})
    return {"game_id": row.get("game_id"), "valid": bool(row.get("valid")), "errors": errors,
            "computed": computed_from_row(row, seats), "ruleset_id": row.get("ruleset_id"),
            "engine_version": row.get("engine_version"), "record_sha256": row.get("record_sha256")}


def _canon(code: Any, deck: Deck) -> Any:
    try:
        return deck.canonical(code)
    except Exception:
        return code


def naive_trail(record: dict[str, Any], verdict: dict[str, Any]) -> dict[str, Any]:
    """Steps in the shape of ``audit_trail`` by moving cards as logged (no rule checks, no options).

    Stops at the verdict's first event error (spec §6: the state after it is unknown), and after
    the deal when the error is record-level (replay never started).
    """
    deck = labels.deck_for(record.get("variant"))
    flips = deck.family == "zipai"  # 字牌: a draw is a public flip; 花牌: it goes into the hand
    names = [str(p) for p in record.get("seats") or []]
    deal = record.get("deal") or {}
    hands = [[_canon(c, deck) for c in h] for h in deal.get("hands") or []]
    n = max(len(names), len(hands))
    names += [""] * (n - len(names))
    hands += [[] for _ in range(n - len(hands))]
    wall = [_canon(c, deck) for c in deal.get("wall") or []]
    melds: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    discards: list[list[str]] = [[] for _ in range(n)]
    pending: tuple[int, str, str] | None = None  # (seat, card, "flip"|"discard") still claimable

    errs = [e for e in verdict.get("errors") or [] if e]
    first = errs[0] if errs else None
    stop = None if first is None else first.get("step")

    def take(hand: list[str], card: str) -> None:
        if card in hand:
            hand.remove(card)

    def settle() -> None:
        nonlocal pending
        if pending and pending[2] == "flip" and 0 <= pending[0] < n:
            discards[pending[0]].append(pending[1])  # an unclaimed flip counts as the drawer's discard
        pending = None

    def claim(card: str, seat: int) -> None:
        """The claimed card leaves the table (pending flip/discard) or else the seat's own hand."""
        nonlocal pending
        if pending and pending[1] == card:
            if pending[2] == "discard" and card in discards[pending[0]]:
                idx = len(discards[pending[0]]) - 1 - discards[pending[0]][::-1].index(card)
                discards[pending[0]].pop(idx)
            pending = None
        elif 0 <= seat < n:
            take(hands[seat], card)

    def snap(step: int, ev: dict[str, Any] | None, error: dict[str, Any] | None) -> dict[str, Any]:
        return {"step": step, "event": ev, "wall_left": len(wall), "error": error,
                "seats": [{"seat": i, "player": names[i], "hand": list(hands[i]),
                           "melds": [dict(m, cards=list(m["cards"])) for m in melds[i]],
                           "discards": list(discards[i]), "options": []} for i in range(n)]}

    steps = [snap(-1, None, first if (first and stop is None and not verdict.get("valid")) else None)]
    if first is not None and stop is None and first.get("code") != "result_mismatch":
        return {"verdict": verdict, "steps": steps}
    for i, ev in enumerate(record.get("actions") or []):
        if stop is not None and i > stop:
            break
        ev = ev if isinstance(ev, dict) else {}
        s = ev.get("seat") if isinstance(ev.get("seat"), int) else -1
        act = ev.get("act")
        card = _canon(ev.get("card"), deck) if ev.get("card") is not None else None
        own = [_canon(c, deck) for c in ev.get("cards") or []]
        if act == "draw":
            settle()
            if wall:
                if ev.get("tail"):
                    wall.pop()
                elif card in wall and wall[0] != card:
                    wall.remove(card)  # a wall_mismatch: show the logged card gone
                else:
                    wall.pop(0)
            if card is not None and 0 <= s < n:
                if not flips or ev.get("to_hand"):
                    hands[s].append(card)
                else:
                    pending = (s, card, "flip")
        elif act == "discard" and card is not None and 0 <= s < n:
            settle()
            take(hands[s], card)
            discards[s].append(card)
            pending = (s, card, "discard")
        elif act in _MELD_ACTS and card is not None and 0 <= s < n:
            if ev.get("cards") is None:  # upgrade of a meld on the table (扫→扫穿, 碰→开舵, …)
                claim(card, s)
                for m in melds[s]:
                    if card in m["cards"]:
                        m["cards"].append(card)
                        m["kind"] = act
                        break
                else:
                    melds[s].append({"kind": act, "cards": [card], "points": None})
            else:
                for c in own:
                    take(hands[s], c)
                claim(card, s)
                melds[s].append({"kind": act, "cards": own + [card], "points": None})
                for group in ev.get("bi") or []:
                    g = [_canon(c, deck) for c in group]
                    for c in g:
                        take(hands[s], c)
                    melds[s].append({"kind": "bi", "cards": g, "points": None})
        elif act == "hu" and card is not None:
            if pending and pending[1] == card:
                pending = None
        steps.append(snap(i, ev, first if stop == i else None))
    return {"verdict": verdict, "steps": steps}


def result_diff(claimed: dict[str, Any] | None, computed: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Claimed vs computed, field by field (spec §5 order): ``field``, ``claimed``, ``computed``,
    ``same`` (None where there is nothing to compare: not claimed, or not computed)."""
    claimed = claimed if isinstance(claimed, dict) else {}
    computed = computed if isinstance(computed, dict) else {}
    keys = [k for k in labels.RESULT_FIELDS if k in claimed or k in computed]
    keys += sorted(k for k in {*claimed, *computed} if k not in labels.RESULT_FIELDS)
    rows = []
    for k in keys:
        both = k in claimed and k in computed
        rows.append({"field": k, "claimed": claimed.get(k), "computed": computed.get(k),
                     "claimed_present": k in claimed, "computed_present": k in computed,
                     "same": explain_mod.same(k, claimed[k], computed[k]) if both else None})
    return rows


Esc = Callable[[Any], str]
"""How a caller shows a piece of log text: ``str`` for the terminal (``paipu audit`` escapes the whole
line), :func:`dashboards.labels.text` on a page, where every table cell is read as Markdown."""


def _known(table: dict[str, str], key: Any, esc: Esc) -> str:
    """``中文 (key)`` of a key ``table`` knows; any other key is log text, passed through ``esc``."""
    return labels.zh(table, key) if isinstance(key, str) and key in table else esc(key)


def _card(code: Any, deck: Deck, esc: Esc) -> str:
    """A card's Chinese label; a code the deck does not know is log text."""
    label, colour = labels.card_info(code, deck)
    return label if colour is not None else esc(code)


def _cards(codes: Any, deck: Deck, esc: Esc) -> str:
    if codes is None:
        return ""
    if not isinstance(codes, list):
        return esc(codes)
    return " ".join(_card(c, deck, esc) for c in codes)


def _num(v: Any, esc: Esc = str) -> str:
    """A number as it is (``—`` for None); anything else is log text."""
    if v is None:
        return "—"
    return str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else esc(v)


def term(t: Any, variant: str | None = None, esc: Esc = str) -> str:
    """:func:`analytics.names.term` of a result field or ``breakdown.<key>``; a field or key it
    does not know (named by the log) passed through ``esc``."""
    k = str(t)
    sub = k.split(".", 1)[1] if k.startswith("breakdown.") else None
    if (sub in labels.BREAKDOWN) if sub is not None else (k in labels.RESULT_FIELDS):
        return labels.term(k, variant)
    return esc(sub if sub is not None else k)


def fmt_value(field: str, value: Any, deck: Deck, present: bool = True, esc: Esc = str) -> str:
    """A result value in words: cards as labels, seats as 座位 N, hand types in Chinese. Every piece
    that is not a label or a number (an unknown card or hand type, a breakdown key) goes through
    ``esc``: on a page a claimed result is text, never Markdown."""
    if not present:
        return "—"
    if value is None:
        return "无 none"
    if field == "win_card":
        return _card(value, deck, esc)
    if field in ("winner", "from", "bao") and isinstance(value, int) and not isinstance(value, bool):
        return f"座位 seat {value}"
    if field == "outcome" and isinstance(value, str) and value in labels.OUTCOMES:
        return labels.OUTCOMES[value]
    if field == "hand_types" and isinstance(value, list):
        return "、".join(_known(labels.HAND_TYPES, t, esc) for t in value) or "无 none"
    if field == "xing" and isinstance(value, dict):
        parts = []
        if "cards" in value:
            parts.append(_cards(value.get("cards"), deck, esc) or "—")
        parts.append(f"{_num(value.get('count'), esc)} 个")
        return " · ".join(parts)
    if field == "scores" and isinstance(value, list):
        return ", ".join(f"{v:+d}" if isinstance(v, int) and not isinstance(v, bool) else esc(v) for v in value)
    if field == "breakdown" and isinstance(value, dict):
        return ", ".join(f"{labels.BREAKDOWN[k] if k in labels.BREAKDOWN else esc(k)} {_num(v, esc)}"
                         for k, v in value.items())
    if field == "jing" and isinstance(value, dict):
        main = value.get("main")
        return f"主精 {_card(main, deck, esc) if main else '—'} · 精 {_num(value.get('count'), esc)}"
    if isinstance(value, dict):
        return ", ".join(f"{esc(k)} {_num(v, esc)}" for k, v in value.items())
    return _num(value, esc)


def build(row: dict[str, Any], seats: pl.DataFrame | None = None) -> dict[str, Any]:
    """The whole audit of a ``games`` row.

    :returns: ``{"verdict", "steps", "engine": bool, "note": str | None, "record": dict | None,
        "claimed", "computed", "explain", "diff", "stored_differs": bool}``; ``engine`` False means
        :func:`naive_trail` was used; ``explain`` is :func:`replay.explain.explain` of a disputed
        settlement (``result_mismatch`` / ``not_a_win``), else None.
    """
    raw = as_judged(row.get("record_json") or "", row.get("rules_json"))  # the rules the ingest judged it by
    try:
        record = json.loads(raw)
        record = record if isinstance(record, dict) else None
    except ValueError:
        record = None
    fallback_verdict = verdict_from_row(row, seats)
    trail, engine, note = None, False, None
    fn = engine_audit()
    if fn is not None:
        try:
            trail = fn(raw.encode("utf-8", "surrogatepass"))
            engine = True
        except Exception as e:  # show what the engine said and carry on with the simple view
            note = f"引擎审计失败 engine audit failed: {type(e).__name__}: {e}"
    else:
        note = "引擎审计模块未就绪 replay.audit not available: 简易回放 simple card tracking, no rule checks or options"
    if trail is None:
        trail = naive_trail(record or {}, fallback_verdict)
    elif not trail.get("steps") and record is not None:
        # the engine shows no steps for a record-level error; the deal alone still helps an auditor
        trail = {**trail, "steps": naive_trail(record, trail.get("verdict") or fallback_verdict)["steps"]}
    verdict = trail.get("verdict") or fallback_verdict
    computed = verdict.get("computed") if engine else fallback_verdict["computed"]
    if computed is None:
        computed = fallback_verdict["computed"]
    claimed = (record or {}).get("result")
    disputed = any((e or {}).get("code") in explain_mod.DISPUTES for e in verdict.get("errors") or [])
    ex = None
    if disputed and engine:
        try:
            ex = explain_mod.explain(raw.encode("utf-8", "surrogatepass"))
        except Exception as e:  # the page must render; say what the engine said
            note = (note + "; " if note else "") + f"引擎解释失败 explanation failed: {type(e).__name__}: {e}"
    return {"verdict": verdict, "steps": trail.get("steps") or [], "engine": engine, "note": note,
            "record": record, "claimed": claimed, "computed": computed, "explain": ex,
            "diff": result_diff(claimed, computed), "stored_differs": engine and _differs(verdict, fallback_verdict)}


def _differs(now: dict[str, Any], stored: dict[str, Any]) -> bool:
    """True when today's engine judges the game differently from the verdict stored at ingest
    (validity or first error code): the warehouse was written by another engine version."""
    def key(v: dict[str, Any]) -> tuple[bool, str | None]:
        errs = [e for e in v.get("errors") or [] if e]
        return bool(v.get("valid")), errs[0].get("code") if errs else None
    return key(now) != key(stored)


def first_error_step(audit: dict[str, Any]) -> int | None:
    """Index into ``audit["steps"]`` of the first failing step: the first step carrying an event
    error, else the step the verdict's first error names (``result_mismatch`` is judged after the
    last event, so no step carries it); None when neither exists."""
    steps = audit["steps"]
    for i, st in enumerate(steps):
        if st.get("error"):
            return i
    errs = [e for e in (audit.get("verdict") or {}).get("errors") or [] if e]
    want = errs[0].get("step") if errs else None
    if want is None:
        return None
    return next((i for i, st in enumerate(steps) if st.get("step") == want), None)


# --- what the audit shows beside the steps ------------------------------------------------------

def wall_after(record: dict[str, Any] | None, step: int, wall_left: Any = None) -> list[str] | None:
    """The cards left in the wall after ``step`` (-1: after the deal), in draw order: the dealt wall
    less the draws logged so far (from the front, or the back for ``"tail": true``). None when that
    count disagrees with the engine's ``wall_left`` (a draw the log got wrong) or there is no wall."""
    if not isinstance(record, dict):
        return None
    wall = list((record.get("deal") or {}).get("wall") or []) if isinstance(record.get("deal"), dict) else []
    if not isinstance(wall, list) or not wall:
        return None
    front = back = 0
    for ev in (record.get("actions") or [])[: max(step + 1, 0)]:
        if isinstance(ev, dict) and ev.get("act") == "draw":
            if ev.get("tail"):
                back += 1
            else:
                front += 1
    rest = wall[front: len(wall) - back] if front + back <= len(wall) else []
    if isinstance(wall_left, int) and wall_left != len(rest):
        return None
    return rest


def action_rows(record: dict[str, Any] | None, deck: Deck, variant: str | None = None,
                viewer: int | None = None) -> list[dict[str, Any]]:
    """The game's logged actions as rows (step, seat, player, act in words, cards in words); with
    ``viewer`` (a seat), the card of a draw that seat could not see is left out (:func:`hides_draw`)."""
    if not isinstance(record, dict):
        return []
    names = record.get("seats") if isinstance(record.get("seats"), list) else []
    out = []
    for i, ev in enumerate(record.get("actions") or []):
        ev = ev if isinstance(ev, dict) else {}
        seat = ev.get("seat")
        cards = []
        if hides_draw(ev, viewer, deck):
            cards.append("？ (not visible)")
        elif ev.get("card") is not None:
            cards.append(labels.card_text(ev["card"], deck))
        if isinstance(ev.get("cards"), list) and ev["cards"]:
            cards.append("+ " + labels.cards_text(ev["cards"], deck))
        for g in ev.get("bi") or [] if isinstance(ev.get("bi"), list) else []:
            cards.append("比 " + labels.cards_text(g if isinstance(g, list) else [g], deck))
        if ev.get("from") is not None:
            cards.append(f"← {ev['from']}")
        if ev.get("tail"):
            cards.append("(牌底 tail)")
        act = str(ev.get("act"))
        out.append({"step": i, "seat": seat if isinstance(seat, int) else None,
                    "player": str(names[seat]) if isinstance(seat, int) and 0 <= seat < len(names) else "",
                    "act": f"{labels.ACTS[act]} {act}" if act in labels.ACTS else act, "cards": " ".join(cards)})
    return out


def explanation(ex: dict[str, Any], deck: Deck, esc: Esc = str, record: dict[str, Any] | None = None) -> dict[str, Any]:
    """:func:`replay.explain.explain` in words, for the audit page and ``paipu audit``.

    :returns: ``{"groups": rows (种类 kind, 牌 cards, 胡 points, 来自 from — with ``record``, the card another
        seat gave and which seat: :func:`group_sources` —, 规则 rule line), "points_sum": "3 + 6 + … = 21 胡",
        "units_sum": "舵 3 + 自摸 1 + 醒 2 = 6 舵", "claimed_units": the claimed breakdown in the same
        form (or None), "terms": rows (项 term, 计算 computed, 申报 claimed, 一致 match), "part": the
        sentence saying where claim and engine part (None when they agree), "refused": the engine's
        reason when it refuses the claimed 胡}``. Log text in the rows of ``groups`` and ``terms`` goes
        through ``esc`` (see :func:`fmt_value`); the sentences are raw: callers escape them whole.
    """
    variant = ex.get("variant")
    pu, uu = labels.points_unit(variant), labels.units_unit(variant)
    where = {"table": "桌面 table", "hand": "手牌 hand"}
    groups = [{"kind": f"{labels.group_kind(g.get('kind'), variant)} {g.get('kind')}",
               "cards": _cards(g.get("cards"), deck, esc), "points": g.get("points"),
               "from": where.get(str(g.get("origin")), str(g.get("origin") or "")) + (f" · {src}" if src else ""),
               "source": src, "rule": g.get("rule") or "—"}
              for g, src in zip(ex.get("groups") or [], group_sources(ex, record, deck, esc))]
    pts = [g.get("points") for g in ex.get("groups") or [] if isinstance(g.get("points"), int)]
    points_sum = None
    if pts:
        points_sum = " + ".join(map(str, pts)) + f" = {sum(pts)} {pu}"
        if ex.get("points_from") == "units":
            points_sum += f" (各组{pu}; 结算{pu}按明细计 the settled {pu} follow the breakdown below)"

    def worked(w: dict[str, Any] | None) -> str | None:
        if not w:
            return None
        add = " + ".join(f"{labels.name(labels.BREAKDOWN, k)} {v}" for k, v in w["add"])
        mul = " × ".join(f"{labels.name(labels.BREAKDOWN, k)} {v}" for k, v in w["mul"])
        body = (f"({add})" if add and mul and len(w["add"]) > 1 else add) + (" × " + mul if mul else "")
        if "cap" in w:
            return f"{body} = {w['uncapped']} → 封顶 cap {w['cap']} = {w['total']} {uu}"
        return f"{body} = {w['total']} {uu}"

    claimed_bd = next((t for t in ex.get("terms") or [] if t["term"].startswith("breakdown.")), None)
    claimed_units = None
    if claimed_bd is not None:
        cb = {t["term"].split(".", 1)[1]: t["claimed"] for t in ex["terms"]
              if t["term"].startswith("breakdown.") and t.get("claimed_present") and isinstance(t["claimed"], int)}
        if cb:
            claimed_units = worked(explain_mod.worked_units(variant or "", cb))

    def row(t: dict[str, Any], e: Esc) -> dict[str, Any]:
        key = t["term"]
        field = key.split(".", 1)[0]
        return {"term": term(key, variant, e), "id": key,
                "computed": fmt_value(field, t["computed"], deck, t.get("computed_present", True), e)
                if not key.startswith("breakdown.") else _num(t["computed"], e),
                "claimed": fmt_value(field, t["claimed"], deck, t["claimed_present"], e)
                if not key.startswith("breakdown.") else (_num(t["claimed"], e) if t["claimed_present"] else "—"),
                "same": t["same"], "rule": t.get("rule") or ""}

    terms = [row(t, esc) for t in ex.get("terms") or []]
    part = None
    if ex.get("first"):
        t = row(next(x for x in ex["terms"] if x["term"] == ex["first"]), str)
        part = f"{t['term']}: 申报 claimed {t['claimed']}, 计算 computed {t['computed']}"
        if len(ex["differs"]) > 1:
            part += " — 另有 also: " + "、".join(labels.term(d, variant) for d in ex["differs"][1:])
    return {"groups": groups, "points_sum": points_sum, "units_sum": worked((ex.get("units") or {}).get("worked")),
            "claimed_units": claimed_units, "terms": terms, "part": part,
            "refused": ex.get("reason") if ex.get("win") is False else None, "rule": ex.get("rule")}


# --- where a card came from, a seat's view, the dispute in plain words ------------------------------

def card_source(record: dict[str, Any] | None, step: int, card: Any, deck: Deck) -> dict[str, Any] | None:
    """Where the card an act at ``step`` takes (``card``) came from: the latest flip (``draw``) or
    discard of that card before ``step`` — ``{"seat", "act": "draw"|"discard", "step"}`` — or None
    when the log shows none (the card was dealt)."""
    if not isinstance(record, dict) or card is None:
        return None
    want = _canon(card, deck)
    acts = record.get("actions") or []
    for i in range(min(step, len(acts)) - 1, -1, -1):
        ev = acts[i] if isinstance(acts[i], dict) else {}
        if ev.get("act") in ("draw", "discard") and ev.get("card") is not None and _canon(ev["card"], deck) == want:
            return {"seat": ev.get("seat"), "act": ev["act"], "step": i}
    return None


def _seat_name(record: dict[str, Any] | None, seat: Any, esc: Esc) -> str:
    names = (record or {}).get("seats") if isinstance((record or {}).get("seats"), list) else []
    who = names[seat] if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(names) else None
    return f"座位 seat {_num(seat, esc)}" + (f" {esc(who)}" if who is not None else "")


def _source_words(src: dict[str, Any], record: dict[str, Any] | None, esc: Esc) -> str:
    how = "翻出 flip" if src["act"] == "draw" else "打出 discard"
    return f"{_seat_name(record, src['seat'], esc)} {how}, step {src['step']}"


def group_sources(ex: dict[str, Any], record: dict[str, Any] | None, deck: Deck, esc: Esc = str) -> list[str | None]:
    """For each group of the explanation's winning split, the card in it that came from another seat
    and which seat, in words (None: every card the winner's own: dealt, or its own flip). A meld laid in play names the card
    its act took; a group formed at the win (``origin`` ``hand``) names the winning card when that
    group is the only one it can be in (a 4-of-a-kind of it — a 开舵 the 胡 took the place of — or the
    one group holding that card)."""
    groups = ex.get("groups") or []
    out: list[str | None] = [None] * len(groups)
    if not isinstance(record, dict):
        return out
    seat, hu = ex.get("seat"), ex.get("step")
    acts = record.get("actions") or []
    used: set[int] = set()
    for gi, g in enumerate(groups):
        cards = [_canon(c, deck) for c in g.get("cards") or []]
        if g.get("origin") != "table" or not isinstance(hu, int):
            continue
        for i in range(min(hu, len(acts)) - 1, -1, -1):  # the latest act of that kind by the winner on one of its cards
            ev = acts[i] if isinstance(acts[i], dict) else {}
            if (i not in used and ev.get("seat") == seat and ev.get("act") == g.get("kind")
                    and ev.get("card") is not None and _canon(ev["card"], deck) in cards):
                used.add(i)
                src = card_source(record, i, ev["card"], deck)
                if src is not None and src["seat"] != seat:
                    out[gi] = f"{_card(ev['card'], deck, esc)} ← {_source_words(src, record, esc)}"
                break
    ev = acts[hu] if isinstance(hu, int) and 0 <= hu < len(acts) and isinstance(acts[hu], dict) else {}
    win = _canon(ev.get("card"), deck) if ev.get("card") is not None else None
    src = card_source(record, hu, win, deck) if win is not None and isinstance(hu, int) else None
    if src is None or src["seat"] == seat:
        return out
    holding = [gi for gi, g in enumerate(groups) if g.get("origin") != "table"
               and win in [_canon(c, deck) for c in g.get("cards") or []]]
    four = [gi for gi in holding if [_canon(c, deck) for c in groups[gi].get("cards") or []] == [win] * 4]
    pick = four[0] if four else (holding[0] if len(holding) == 1 else None)
    if pick is not None:
        out[pick] = f"{_card(win, deck, esc)} (胡牌 the winning card) ← {_source_words(src, record, esc)}"
    return out


def hides_draw(ev: dict[str, Any] | None, viewer: int | None, deck: Deck) -> bool:
    """True when ``viewer`` (a seat; None: the auditor, who sees everything) cannot see the card of
    event ``ev``: another seat's draw into its hand (花牌 and 上大人 draws, a 字牌 ``to_hand``
    replacement). A 字牌 draw is a public flip."""
    if viewer is None or not isinstance(ev, dict) or ev.get("act") != "draw" or ev.get("seat") == viewer:
        return False
    return deck.family != "zipai" or bool(ev.get("to_hand"))


def seat_view(snap: dict[str, Any], viewer: int | None, deck: Deck) -> dict[str, Any]:
    """A step as ``viewer`` saw it at the table: its own hand and options, every seat's melds and
    discards; the other hands only as counts (``hand`` emptied, ``hand_count`` kept), their
    options dropped (they would show the hand), the card of a draw it could not see blanked and the
    wall's order unknown (``wall_hidden``). ``viewer`` None returns ``snap`` unchanged."""
    if viewer is None:
        return snap
    seats = []
    for s in snap.get("seats") or []:
        if s.get("seat") == viewer:
            seats.append(s)
        else:
            seats.append({**s, "hand": [], "hand_count": len(s.get("hand") or []), "options": [], "hidden": True})
    ev = snap.get("event")
    if hides_draw(ev, viewer, deck):
        ev = {k: v for k, v in ev.items() if k != "card"}
    return {**snap, "seats": seats, "event": ev, "wall_hidden": True}


def dispute_summary(ex: dict[str, Any], record: dict[str, Any] | None, esc: Esc = str) -> str | None:
    """The dispute in a player's words: what the server counted, what the hand makes, and what
    that changes in the payments — e.g. ``the server counted 25 胡; the hand makes 21 胡, so it is
    worth 8 舵, not 9: p008 (seat 1) should get +16, not +18; p032 and p015 each overpaid 1``. Every
    name and claimed value from the log passes through ``esc``; None when nothing differs."""
    variant = ex.get("variant")
    pu, uu = labels.points_unit(variant), labels.units_unit(variant)
    seat = ex.get("seat")
    winner = _seat_name(record, seat, esc)
    terms = {t["term"]: t for t in ex.get("terms") or []}
    if ex.get("win") is False:
        out = (f"服务器把这局判给 {winner} 胡牌，但按规则这手牌胡不了 — the server settled a win for {winner}, but "
               f"under the rules this hand does not win ({esc(ex.get('reason') or ex.get('rule') or '—')})")
        sc = terms.get("scores") or {}
        claimed = sc.get("claimed") if sc.get("claimed_present", True) else None
        if isinstance(claimed, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in claimed):
            paid = [f"{_seat_name(record, i, esc)} {-v}" for i, v in enumerate(claimed) if v < 0]
            if paid:
                out += "; nobody owed anything, yet " + ", ".join(paid) + " paid"
        return out + "."
    first = ex.get("first")
    if not first:
        return None
    pts = ex.get("points") or {}
    if "points" in (ex.get("differs") or []):
        head = (f"服务器算 {_num(pts.get('claimed'), esc)} {pu}，这手牌是 {_num(pts.get('computed'), esc)} {pu} — "
                f"the server counted {_num(pts.get('claimed'), esc)} {pu}; the hand makes "
                f"{_num(pts.get('computed'), esc)} {pu}")
    else:
        t = terms.get(first) or {}
        name = term(first, variant, esc)
        field = first.split(".", 1)[0]
        c = fmt_value(field, t.get("claimed"), labels.deck_for(variant), t.get("claimed_present", True), esc) \
            if not first.startswith("breakdown.") else _num(t.get("claimed"), esc)
        k = fmt_value(field, t.get("computed"), labels.deck_for(variant), True, esc) \
            if not first.startswith("breakdown.") else _num(t.get("computed"), esc)
        head = f"服务器的 {name} 是 {c}，规则给 {k} — the server counted {name} {c}; the rules give {k}"
    units = ex.get("units") or {}
    if "units" in (ex.get("differs") or []):
        head += f", so it is worth {_num(units.get('computed'), esc)} {uu}, not {_num(units.get('claimed'), esc)}"
    sc = terms.get("scores") or {}
    c, k = sc.get("claimed"), sc.get("computed")
    ints = (isinstance(x, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in x) for x in (c, k))
    if sc.get("same") is False and all(ints) and len(c) == len(k):
        pay = []
        if isinstance(seat, int) and 0 <= seat < len(k) and c[seat] != k[seat]:
            pay.append(f"{winner} should get {k[seat]:+d}, not {c[seat]:+d}")
        by: dict[int, list[str]] = {}
        for i, (cv, kv) in enumerate(zip(c, k)):
            if i != seat and cv != kv:
                by.setdefault(kv - cv, []).append(_seat_name(record, i, esc))
        for d, who in sorted(by.items(), key=lambda x: -x[0]):
            verb = "overpaid" if d > 0 else "underpaid"
            pay.append(f"{' and '.join(who)} {'each ' if len(who) > 1 else ''}{verb} {abs(d)}")
        if pay:
            head += ": " + "; ".join(pay)
    return head + "."
