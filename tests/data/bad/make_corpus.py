"""Write the bad-input corpus of tests/test_warehouse_bad_input.py (run from anywhere:
``python tests/data/bad/make_corpus.py``). Deterministic: rerunning gives the same bytes.

Each case is one file or folder under ``cases/`` and one entry of ``manifest.json`` with the
outcome expected from ``paipu ingest`` — written here by hand from docs/warehouse.md and the spec,
never copied from a run: per-file counts, every reject (line, code, rule, a message fragment) and
every stored game (line, valid, first error code).
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import zstandard

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
SHORT = json.loads((HERE.parent.parent.parent / "data" / "guilin-short.jsonl").read_bytes())


def rec(gid: str = "g", **changes) -> dict:
    """The worked example (a valid guilin game) under ``gid`` with top-level fields changed;
    a value ``...`` removes the field."""
    obj = {**SHORT, "game_id": gid}
    for k, v in changes.items():
        if v is ...:
            obj.pop(k)
        else:
            obj[k] = v
    return obj


def line(obj: dict) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode()


GOOD = line(rec("good-1"))
GOOD2 = line(rec("good-2"))


def many_good(prefix: str, n: int) -> list[bytes]:
    return [line(rec(f"{prefix}-{i}", x_pad=f"{i:06d}" * 40)) for i in range(n)]


def counts(lines, blank, valid, invalid, rejected, duplicate=0):
    return {"lines": lines, "blank": blank, "valid": valid, "invalid": invalid, "rejected": rejected,
            "duplicate": duplicate}


def reject(ln: int, code: str, rule: str, message: str, **more) -> dict:
    return {"line": ln, "code": code, "rule": rule, "message": message, **more}


def game(ln: int, valid: bool, error_code: str | None = None, **more) -> dict:
    return {"line": ln, "valid": valid, "error_code": error_code, **more}


CASES_OUT: list[dict] = []


def case(name: str, about: str, data: bytes | None, expect: dict, *, suffix: str = ".jsonl",
         max_line_bytes: int | None = None, files: dict[str, bytes] | None = None) -> None:
    """One case: a file ``cases/<name><suffix>`` holding ``data``, or a folder ``cases/<name>/``
    holding ``files`` (relative path → bytes)."""
    if files is not None:
        folder = CASES / name
        for rel, blob in files.items():
            p = folder / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(blob)
        path = name
    else:
        assert data is not None
        path = name + suffix
        (CASES / path).write_bytes(data)
    CASES_OUT.append({"name": name, "about": about, "path": path, "max_line_bytes": max_line_bytes,
                      "expect": expect})


def gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def zst(data: bytes) -> bytes:
    return zstandard.ZstdCompressor(level=3).compress(data)


def build() -> None:
    shutil.rmtree(CASES, ignore_errors=True)
    CASES.mkdir()

    # -- compression and files ----------------------------------------------------------------
    body = b"\n".join(many_good("tg", 300)) + b"\n"
    case("truncated_gz", "a .jsonl.gz cut at two thirds: the complete lines before the cut are kept, "
         "then one compression reject", gz(body)[: len(gz(body)) * 2 // 3],
         {"complete_prefix": True, "last_reject": reject(-1, "bad_json", "paipu.compression",
                                                         "truncated or corrupt compressed stream")},
         suffix=".jsonl.gz")
    case("truncated_zst", "a .jsonl.zst cut at two thirds (zstd decodes whole 128 KiB blocks, so the "
         "lines of the finished blocks are kept)", zst(body)[: len(zst(body)) * 2 // 3],
         {"complete_prefix": True, "last_reject": reject(-1, "bad_json", "paipu.compression",
                                                         "truncated or corrupt compressed stream")},
         suffix=".jsonl.zst")
    small = gz(GOOD + b"\n" + GOOD2 + b"\n")
    case("truncated_gz_header", "only the first 5 bytes of a gzip file", small[:5],
         {"counts": counts(1, 0, 0, 0, 1), "rejects": [reject(1, "bad_json", "paipu.compression", "truncated")]},
         suffix=".jsonl.gz")
    flipped = bytearray(small)
    flipped[len(flipped) - 6] ^= 0xFF  # inside the CRC32 / size trailer
    case("gz_bad_crc", "a gzip file whose CRC does not match: both lines decode, then the check fails",
         bytes(flipped), {"counts": counts(3, 0, 2, 0, 1),
                          "rejects": [reject(3, "bad_json", "paipu.compression", "CRC check failed")],
                          "games": [game(1, True), game(2, True)]}, suffix=".jsonl.gz")
    case("not_gzip", "plain text named .jsonl.gz", GOOD + b"\n", {
        "counts": counts(1, 0, 0, 0, 1), "rejects": [reject(1, "bad_json", "paipu.compression", "Not a gzipped file")]},
        suffix=".jsonl.gz")
    case("not_zstd", "plain text named .jsonl.zst", GOOD + b"\n", {
        "counts": counts(1, 0, 0, 0, 1), "rejects": [reject(1, "bad_json", "paipu.compression", "zstd")]},
        suffix=".jsonl.zst")
    case("zst_garbage_frame", "a good zstd frame, then bytes that are not a frame",
         zst(GOOD + b"\n") + b"\x00garbage-after-the-frame\x00",
         {"counts": counts(2, 0, 1, 0, 1), "rejects": [reject(2, "bad_json", "paipu.compression", "input stops after line 1")],
          "games": [game(1, True)]}, suffix=".jsonl.zst")
    case("empty_file", "a file of zero bytes", b"", {"counts": counts(0, 0, 0, 0, 0)})
    case("empty_gz", "a gzip stream of nothing", gz(b""), {"counts": counts(0, 0, 0, 0, 0)}, suffix=".jsonl.gz")
    case("only_blank_lines", "spaces, tabs, CRLF: blank lines are counted, not read", b"\n  \n\t\r\n\n",
         {"counts": counts(4, 4, 0, 0, 0)})
    case("crlf_bom_no_final_newline", "UTF-8 BOM, CRLF endings, no newline at the end: two valid games",
         b"\xef\xbb\xbf" + GOOD + b"\r\n" + GOOD2, {"counts": counts(2, 0, 2, 0, 0),
                                                   "games": [game(1, True), game(2, True)]})
    case("dir_with_other_files", "a folder with logs in subfolders and other files beside them; only "
         ".jsonl/.jsonl.gz/.jsonl.zst are read", None,
         {"counts": counts(2, 0, 2, 0, 0), "skipped": ["README.md", "data.json", "old.jsonl.bak", "sub/notes.txt"]},
         files={"README.md": b"# logs\n", "data.json": GOOD, "old.jsonl.bak": GOOD + b"\n",
                "sub/notes.txt": b"x", "sub/a.jsonl": GOOD + b"\n", "sub/deeper/b.jsonl.zst": zst(GOOD2 + b"\n")})

    # -- bytes and sizes ----------------------------------------------------------------------
    case("invalid_utf8", "a Latin-1 byte inside a string", line(rec("bad-é")).replace("é".encode(), b"\xe9"),
         {"counts": counts(1, 0, 0, 0, 1), "rejects": [reject(1, "bad_json", "paipu.utf8", "not UTF-8")]})
    case("utf16_file", "a whole file in UTF-16 (with its BOM): its newline is b'\\n\\x00', so the NUL "
         "after it is a second line", (json.dumps(rec("u16")) + "\n").encode("utf-16"),
         {"counts": counts(2, 0, 0, 0, 2), "rejects": [reject(1, "bad_json", "paipu.utf8", "not UTF-8"),
                                                       reject(2, "bad_json", "paipu.json", "not valid JSON")]})
    case("nul_bytes", "a raw NUL byte inside a JSON string", GOOD.replace(b"t-example", b"t-\x00example"),
         {"counts": counts(1, 0, 0, 0, 1), "rejects": [reject(1, "bad_json", "paipu.json", "invalid character")]})
    case("overlong_line", "a line over --max-line-bytes (4096 here) is rejected unparsed",
         GOOD + b"\n" + line(rec("long", x_pad="x" * 6000)) + b"\n" + GOOD2 + b"\n",
         {"counts": counts(3, 0, 2, 0, 1),
          "rejects": [reject(2, "schema", "paipu.line_size", "longer than the 4096-byte limit", raw_bytes=len(line(rec("long", x_pad="x" * 6000))))],
          "games": [game(1, True), game(3, True)]}, max_line_bytes=4096)
    case("deep_nesting", "an extension field nested 50,000 arrays deep",
         GOOD[:-1] + b', "x_deep": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
         {"counts": counts(1, 0, 0, 0, 1), "rejects": [reject(1, "bad_json", "paipu.json_depth", "nested too deeply")]})

    # -- JSON that is not one object ----------------------------------------------------------
    case("nan", "NaN is not JSON", GOOD.replace(b'"round": 1', b'"round": NaN'),
         {"counts": counts(1, 0, 0, 0, 1), "rejects": [reject(1, "bad_json", "paipu.json", "not valid JSON")]})
    case("infinity", "Infinity is not JSON", GOOD.replace(b'"stake": 1', b'"stake": -Infinity'),
         {"counts": counts(1, 0, 0, 0, 1), "rejects": [reject(1, "bad_json", "paipu.json", "not valid JSON")]})
    case("huge_float", "1e400 overflows a double", GOOD.replace(b'"round": 1', b'"round": 1e400'),
         {"counts": counts(1, 0, 0, 0, 1), "rejects": [reject(1, "bad_json", "paipu.json", "out of range")]})
    case("not_an_object", "a JSON array, a string and null, one per line", b'[1, 2, 3]\n"hello"\nnull\n',
         {"counts": counts(3, 0, 0, 0, 3), "rejects": [
             reject(1, "bad_json", "paipu.json", "one JSON object, got list"),
             reject(2, "bad_json", "paipu.json", "one JSON object, got str"),
             reject(3, "bad_json", "paipu.json", "one JSON object, got NoneType")]})
    case("two_objects_one_line", "two records on one line", GOOD + b" " + GOOD2,
         {"counts": counts(1, 0, 0, 0, 1), "rejects": [reject(1, "bad_json", "paipu.json", "trailing characters")]})
    case("cut_line", "a record cut in the middle, then a good one", GOOD[:200] + b"\n" + GOOD2 + b"\n",
         {"counts": counts(2, 0, 1, 0, 1),
          "rejects": [reject(1, "bad_json", "paipu.json", "not valid JSON", game_id="good-1")],
          "games": [game(2, True)]})
    case("lone_surrogate", r'a lone UTF-16 surrogate escape (\ud800) in a player id',
         GOOD.replace(b'"p:a"', b'"p:\\ud800"'),
         {"counts": counts(1, 0, 0, 0, 1), "rejects": [reject(1, "bad_json", "paipu.json", "surrogate")]})
    case("duplicate_key_top", "game_id twice in the record: parsers disagree on which one counts",
         b'{"game_id": "first", ' + GOOD[1:],
         {"counts": counts(1, 0, 0, 0, 1), "rejects": [reject(1, "bad_json", "paipu.duplicate_key", "key `game_id`")]})
    case("duplicate_key_event", "an event with `seat` twice",
         GOOD.replace(b'{"seat": 0, "act": "discard"', b'{"seat": 0, "seat": 1, "act": "discard"'),
         {"counts": counts(1, 0, 0, 0, 1), "rejects": [reject(1, "bad_json", "paipu.duplicate_key", "key `seat`")]})

    # -- schema ----------------------------------------------------------------------------------
    def schema(name: str, about: str, obj: dict | bytes, fragment: str, game_id: str | None = "g",
               rule: str = "paipu.schema", code: str = "schema") -> None:
        data = obj if isinstance(obj, bytes) else line(obj)
        case(name, about, data, {"counts": counts(1, 0, 0, 0, 1),
                                 "rejects": [reject(1, code, rule, fragment, game_id=game_id)]})

    schema("missing_deal", "no `deal`", rec(deal=...), "deal")
    schema("missing_game_id", "no `game_id` (the reject has none either)", rec(game_id=...), "game_id", None)
    schema("missing_actions", "no `actions`", rec(actions=...), "actions")
    schema("wrong_type_seats", "`seats` a string", rec(seats="p:a,p:b,p:c"), "$.seats")
    schema("wrong_type_dealer", "`dealer` a string", rec(dealer="0"), "$.dealer")
    schema("wrong_type_bool_seat", "an event's seat `true`",
           rec(actions=[{**SHORT["actions"][0], "seat": True}, *SHORT["actions"][1:]]), "$.actions[0].seat")
    schema("wrong_type_stake_float", "`stake` 1.5", rec(stake=1.5), "$.stake")
    schema("stake_zero", "`stake` 0 (must be ≥ 1)", rec(stake=0), "$.stake")
    schema("format_other", "`format` paipu/2", rec(format="paipu/2"), "$.format")
    schema("game_id_empty", "`game_id` empty", rec(""), "$.game_id", "")
    schema("game_id_too_long", "`game_id` of 129 characters", rec("x" * 129), "$.game_id", "x" * 129)
    schema("unknown_field_top", "an unknown field without the x_ prefix", rec(colour="red"), "unknown field `colour`")
    schema("unknown_field_event", "an unknown field in an event",
           rec(actions=[{**SHORT["actions"][0], "why": "x"}, *SHORT["actions"][1:]]), "$.actions[0]")
    schema("huge_int_round", "`round` 2**70: valid JSON, out of any 64-bit column", rec(round=2 ** 70),
           "round = 1180591620717411303424", rule="paipu.int_range")
    schema("huge_int_t", "an event time 2**63", rec(actions=[{**SHORT["actions"][0], "t": 2 ** 63},
                                                            *SHORT["actions"][1:]]),
           "actions[0].t", rule="paipu.int_range")
    schema("huge_int_seat", "an event's seat 10**30", rec(actions=[{**SHORT["actions"][0], "seat": 10 ** 30},
                                                                  *SHORT["actions"][1:]]), "$.actions[0].seat")
    schema("unknown_variant", "a variant no paipu/1 id names", rec(variant="mahjong"), "not a paipu/1 id",
           code="unknown_variant", rule="paipu.variant")

    # -- decodable records that are invalid games (stored with valid = false) --------------------
    hands = [list(h) for h in SHORT["deal"]["hands"]]
    hands[0][0] = "x11"
    case("unknown_card", "a card code guilin does not know", line(rec(deal={**SHORT["deal"], "hands": hands})),
         {"counts": counts(1, 0, 0, 1, 0), "games": [game(1, False, "unknown_card")]})
    case("extension_fields", "x_ fields of every JSON type are kept and ignored",
         line(rec(x_obj={"a": [1, {"b": None}]}, x_num=1e300, x_big=2 ** 80, x_s="字")),
         {"counts": counts(1, 0, 1, 0, 0), "games": [game(1, True)]})
    case("odd_started_at", "started_at without an offset, before year 1 in UTC, and not a date: the games "
         "are valid, the column is null", b"\n".join([
             line(rec("s1", started_at="2026-11-29T20:15:00")),
             line(rec("s2", started_at="0001-01-01T00:00:00+01:00")),
             line(rec("s3", started_at="yesterday"))]),
         {"counts": counts(3, 0, 3, 0, 0), "games": [game(1, True, started_at=None), game(2, True, started_at=None),
                                                      game(3, True, started_at=None)]})
    case("many_passes", "10,000 explicit passes after the first discard (nobody may pass there twice)",
         line(rec(actions=[SHORT["actions"][0], *[{"seat": 1, "act": "pass"}] * 10_000])),
         {"counts": counts(1, 0, 0, 1, 0), "games": [game(1, False)]})

    (HERE / "manifest.json").write_text(json.dumps({"cases": CASES_OUT}, ensure_ascii=False, indent=1) + "\n",
                                        encoding="utf-8")


if __name__ == "__main__":
    build()
    print(f"{len(CASES_OUT)} cases in {CASES}")
