"""Batch parsing: every problem a row error with the right line, every good row through."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mediadesk.core.batch import (
    BatchFileError,
    BatchRow,
    ParsedBatch,
    assign_task_ids,
    derive_task_id,
    detect_encoding,
    detect_format,
    parse_batch,
    parse_batch_file,
    parse_pasted,
)

PROFILES = ["writer", "reasoner", "web-acct_1", "中文模型"]


def jl(*objs: Any) -> bytes:
    return "\n".join(o if isinstance(o, str) else json.dumps(o, ensure_ascii=False) for o in objs).encode()


def row(prompt: Any = "hello", profile: Any = "writer", **kw: Any) -> dict[str, Any]:
    return {"profile": profile, "prompt": prompt, **kw}


def errors_by_line(pb: ParsedBatch) -> dict[int, str]:
    out = {e.line: e.message for e in pb.errors}
    assert len(out) == len(pb.errors), "one error per line"
    return out


# --------------------------------------------------------------------------- JSONL

def test_jsonl_good_rows_with_every_field() -> None:
    pb = parse_batch(jl(
        row("a"),
        row("b", id=7, system="be brief", priority=-5, route_key="k1"),
        row("c", id="x-1", system="", priority=1000, route_key=None),
    ))
    assert pb.format == "jsonl" and pb.errors == []
    assert pb.rows == [
        BatchRow(1, "writer", "a", None, None, 0, None),
        BatchRow(2, "writer", "b", "7", "be brief", -5, "k1"),
        BatchRow(3, "writer", "c", "x-1", "", 1000, None),
    ]


def test_jsonl_unknown_key_typo_is_caught_with_a_suggestion() -> None:
    pb = parse_batch(jl(row("ok"), {"profile": "writer", "promt": "typo"}, row("ok2", sytem="x")))
    errs = errors_by_line(pb)
    assert set(errs) == {2, 3}
    assert "unknown key 'promt'" in errs[2] and "did you mean 'prompt'" in errs[2]
    assert "unknown key 'sytem'" in errs[3] and "did you mean 'system'" in errs[3]
    assert [r.line for r in pb.rows] == [1]


@pytest.mark.parametrize(
    ("obj", "needle"),
    [
        (row(123), "field 'prompt' must be a string, got integer"),
        (row("x", profile=["w"]), "field 'profile' must be a string, got array"),
        (row("x", priority="5"), "field 'priority' must be an integer, got string"),
        (row("x", priority=2.0), "field 'priority' must be an integer, got number"),
        (row("x", priority=True), "field 'priority' must be an integer, got boolean"),
        (row("x", id=True), "field 'id' must be a string or an integer, got boolean"),
        (row("x", id=1.5), "field 'id' must be a string or an integer, got number"),
        (row("x", system={"a": 1}), "field 'system' must be a string, got object"),
        (row("x", route_key=5), "field 'route_key' must be a string, got integer"),
        (row("x", priority=1001), "priority 1001 is out of range -1000..1000"),
        (row("x", priority=-1001), "priority -1001 is out of range"),
        (row("x", priority=10**30), "out of range"),
        (row("x", id=""), "id is empty"),
        (row("x", id="   "), "id is empty"),
        (row("x", id="a" * 201), "id is 201 chars"),
        (row("x", id="a\tb"), "id contains a control"),
        (row("x", route_key="k" * 201), "route_key is 201 chars"),
        ({"prompt": "x"}, "missing required field 'profile'"),
        ({"profile": "writer"}, "missing required field 'prompt'"),
        (row("x", profile="  "), "profile is empty"),
        (row(""), "prompt is empty"),
        (row(" \n\t "), "prompt is empty"),
        (row(None), "missing required field 'prompt'"),
    ],
)
def test_jsonl_row_errors_name_the_field_and_type(obj: dict[str, Any], needle: str) -> None:
    pb = parse_batch(jl(row("before"), obj, row("after")))
    assert [r.prompt for r in pb.rows] == ["before", "after"]
    assert [e.line for e in pb.errors] == [2]
    assert needle in pb.errors[0].message


def test_many_unknown_keys_make_a_bounded_message() -> None:
    pb = parse_batch(jl(row("x", **{f"k{i}" * 50: 1 for i in range(1000)})))
    (err,) = pb.errors
    assert "and 995 more unknown keys" in err.message and len(err.message) < 1000


def test_jsonl_id_accepts_boundary_values() -> None:
    pb = parse_batch(jl(row(id="a" * 200), row(id=0), row(id="with space ü")))
    assert pb.errors == []
    assert [r.id for r in pb.rows] == ["a" * 200, "0", "with space ü"]


def test_jsonl_not_an_object_and_bad_json() -> None:
    pb = parse_batch(jl(row("ok"), "[1, 2]", "42", '"text"', "null", "{bad json", '{"a":1,"a":2}', row("ok2")))
    errs = errors_by_line(pb)
    assert errs[2] == "expected a JSON object, got array"
    assert errs[3] == "expected a JSON object, got integer"
    assert errs[4] == "expected a JSON object, got string"
    assert errs[5] == "expected a JSON object, got null"
    assert errs[6].startswith("invalid JSON:")
    assert errs[7] == "duplicate key 'a'"
    assert [r.line for r in pb.rows] == [1, 8]


def test_jsonl_unknown_profile_suggests_a_close_match() -> None:
    pb = parse_batch(jl(row(profile="writr"), row(profile="zzz"), row(profile="writer")),
                     known_profiles=["writer", "reasoner"])
    errs = errors_by_line(pb)
    assert errs[1] == "unknown profile 'writr' (did you mean 'writer'?)"
    assert "unknown profile 'zzz'" in errs[2] and "known: reasoner, writer" in errs[2]
    assert [r.line for r in pb.rows] == [3]


def test_profile_is_trimmed_and_unchecked_without_known_profiles() -> None:
    pb = parse_batch(jl(row(profile=" anything ")))
    assert pb.rows[0].profile == "anything"


def test_huge_prompt_is_an_error_with_its_size_not_its_text() -> None:
    big = "x" * 10_000_000
    pb = parse_batch(jl(row("small"), row(big), row("small2")))
    assert [r.line for r in pb.rows] == [1, 3]
    (err,) = pb.errors
    assert err.line == 2
    assert "10,000,000 chars" in err.message and "200,000" in err.message
    assert len(err.message) < 200 and len(err.excerpt) <= 80


def test_max_prompt_chars_is_configurable() -> None:
    pb = parse_batch(jl(row("12345"), row("123456")), max_prompt_chars=5)
    assert [r.prompt for r in pb.rows] == ["12345"]
    assert pb.errors[0].line == 2


def test_duplicate_id_is_reported_on_the_later_line() -> None:
    pb = parse_batch(jl(row("a", id="q"), row("b"), row("c", id="x"), row("d", id="x"), row("e", id="y")))
    assert errors_by_line(pb) == {4: "duplicate id 'x' (first on line 3)"}
    assert [r.prompt for r in pb.rows] == ["a", "b", "c", "e"]


def test_duplicate_id_int_and_string_collide() -> None:
    pb = parse_batch(jl(row(id=5), row(id="5")))
    assert errors_by_line(pb) == {2: "duplicate id '5' (first on line 1)"}


def test_blank_and_comment_lines_are_skipped_but_counted() -> None:
    data = b"\n   \n# a comment\n  # indented comment\n" + jl(row("a")) + b"\n\n" + jl({"x": 1})
    pb = parse_batch(data)
    assert [r.line for r in pb.rows] == [5]
    assert [e.line for e in pb.errors] == [7]


def test_bom_crlf_cr_lf_mix_and_trailing_newline() -> None:
    a, b, c, d = (jl(row(p)) for p in "abcd")
    data = b"\xef\xbb\xbf" + a + b"\r\n" + b + b"\r" + c + b"\n" + d + b"\r\n"
    pb = parse_batch(data)
    assert pb.errors == []
    assert [(r.line, r.prompt) for r in pb.rows] == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]
    assert detect_format(data) == "jsonl"


def test_invalid_utf8_costs_only_its_line() -> None:
    data = jl(row("a")) + b'\n{"profile":"writer","prompt":"\xff\xfe"}\n' + jl(row("c"))
    pb = parse_batch(data)
    assert [r.line for r in pb.rows] == [1, 3]
    (err,) = pb.errors
    assert err.line == 2 and "invalid UTF-8" in err.message
    assert "\\xff" in err.excerpt


def test_nul_bytes_and_very_long_lines_do_not_crash() -> None:
    data = jl(row("a")) + b"\n\x00\x00{\x00}\n" + b"{" * 2_000_000 + b"\n" + b"z" * 3_000_000 + b"\n" + jl(row("e"))
    pb = parse_batch(data)
    assert [r.line for r in pb.rows] == [1, 5]
    assert [e.line for e in pb.errors] == [2, 3, 4]
    assert all(len(e.excerpt) <= 4 * 80 for e in pb.errors)


def test_lone_surrogate_escape_is_rejected() -> None:
    pb = parse_batch(b'{"profile":"writer","prompt":"a\\ud800b"}\n{"profile":"writer","prompt":"\\ud83d\\ude00"}')
    assert errors_by_line(pb)[1].startswith("prompt contains an unpaired surrogate")
    assert pb.rows[0].prompt == "😀"


def test_null_optional_values_mean_absent() -> None:
    pb = parse_batch(jl(row(id=None, system=None, priority=None, route_key=None)))
    assert pb.rows[0] == BatchRow(1, "writer", "hello", None, None, 0, None)


def test_excerpt_is_first_80_chars_with_control_chars_escaped() -> None:
    line = '{"profile": 1, "prompt": "a\\u0000b", "x": "' + "y" * 200 + '"}'
    pb = parse_batch(line.encode())
    assert pb.errors[0].excerpt == line[:80]
    pb = parse_batch(b"\x01bad\x1b[31m\tjson\xe2\x80\xaeX", fmt="jsonl")
    assert pb.errors[0].excerpt == "\\x01bad\\x1b[31m\\tjson\\u202eX"


def test_empty_jsonl_is_no_rows_no_errors() -> None:
    assert parse_batch(b"", fmt="jsonl") == ParsedBatch([], [], "jsonl", encoding="UTF-8")


# --------------------------------------------------------------------------- CSV

def test_csv_good_rows_and_priority_text() -> None:
    data = (b"id,profile,prompt,system,priority,route_key\n"
            b"t1,writer,hello,,5,\n"
            b",writer,\"a, b\",sys, -7 ,rk\n")
    pb = parse_batch(data)
    assert pb.format == "csv" and pb.errors == []
    assert pb.rows == [
        BatchRow(2, "writer", "hello", "t1", None, 5, None),
        BatchRow(3, "writer", "a, b", None, "sys", -7, "rk"),
    ]


def test_csv_multiline_quoted_fields_keep_line_numbers() -> None:
    data = ('profile,prompt\n'
            'writer,"line one\nline two\r\nline ""three"""\n'   # lines 2-4
            'writer,"x"y\n'                                       # 5: text after a closing quote
            'writer,a "quoted" word\n'                            # 6: quotes inside a bare field are text
            'writer,"后面, 还有 😀"\n'                              # 7
            'writer,\n').encode()                                 # 8: empty prompt
    pb = parse_batch(data)
    assert [(r.line, r.prompt) for r in pb.rows] == [
        (2, 'line one\nline two\r\nline "three"'),
        (6, 'a "quoted" word'),
        (7, "后面, 还有 😀"),
    ]
    errs = errors_by_line(pb)
    assert set(errs) == {5, 8}
    assert errs[5].startswith("malformed CSV") and errs[8] == "prompt is empty"


def test_csv_missing_required_column_is_one_error_and_no_rows() -> None:
    pb = parse_batch(b"profile,text\nwriter,hello\nwriter,again\n", fmt="csv")
    assert pb.rows == []
    (err,) = pb.errors
    assert err.line == 1
    assert "missing required column 'prompt'" in err.message
    assert "unknown column 'text'" in err.message


def test_csv_unknown_and_duplicate_columns() -> None:
    pb = parse_batch(b"profile,promt,prompt,prompt,\nw,x,y,z,\n", fmt="csv")
    assert pb.rows == []
    msg = pb.errors[0].message
    assert "unknown column 'promt' (did you mean 'prompt'?)" in msg
    assert "duplicate column 'prompt'" in msg
    assert "empty column name in column 5" in msg


def test_csv_header_is_trimmed_and_case_insensitive() -> None:
    pb = parse_batch(b"\xef\xbb\xbf Profile ,PROMPT,Priority\r\nwriter,hi,3\r\n")
    assert pb.errors == []
    assert pb.rows == [BatchRow(2, "writer", "hi", None, None, 3, None)]


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("writer,hi,1.5", "field 'priority' must be an integer, got '1.5'"),
        ("writer,hi,abc", "field 'priority' must be an integer, got 'abc'"),
        ("writer,hi,2000", "priority 2000 is out of range"),
        ("writer,hi", "row has 2 fields, the header has 3"),
        ("writer,hi,1,extra", "row has 4 fields, the header has 3"),
        ("nope,hi,1", "unknown profile 'nope'"),
    ],
)
def test_csv_row_errors(line: str, needle: str) -> None:
    data = f"profile,prompt,priority\nwriter,first,0\n{line}\nwriter,last,\n".encode()
    pb = parse_batch(data, known_profiles=["writer"])
    assert [r.prompt for r in pb.rows] == ["first", "last"]
    assert [e.line for e in pb.errors] == [3]
    assert needle in pb.errors[0].message


def test_csv_duplicate_id() -> None:
    pb = parse_batch(b"id,profile,prompt\na,w,1\nb,w,2\na,w,3\n")
    assert errors_by_line(pb) == {4: "duplicate id 'a' (first on line 2)"}


def test_csv_unterminated_quote_is_reported_where_it_starts() -> None:
    pb = parse_batch(b'profile,prompt\nw,ok\nw,"never closed\nw,eaten\n')
    assert [r.prompt for r in pb.rows] == ["ok"]
    (err,) = pb.errors
    assert err.line == 3 and "unterminated quoted field" in err.message


def test_csv_big_field_is_a_row_error_not_a_crash() -> None:
    big = "y" * 1_000_000  # far over csv's default 128 KiB field limit
    data = f'profile,prompt\nw,"{big}"\nw,after\n'.encode()
    pb = parse_batch(data)
    assert [r.prompt for r in pb.rows] == ["after"]
    assert pb.errors[0].line == 2 and "1,000,000 chars" in pb.errors[0].message


def test_csv_invalid_utf8_reports_only_the_bad_lines() -> None:
    data = b"profile,prompt\nw,good\nw,bad \xff here\nw,\"multi\nline \xfe\"\nw,fine\n"
    pb = parse_batch(data, fmt="csv")
    assert [(r.line, r.prompt) for r in pb.rows] == [(2, "good"), (6, "fine")]
    errs = errors_by_line(pb)
    assert set(errs) == {3, 4}
    assert all("invalid UTF-8" in m for m in errs.values())


def test_csv_blank_lines_skipped_and_nul_survives() -> None:
    pb = parse_batch(b"profile,prompt\n\n  \nw,a\x00b\n")
    assert pb.errors == []
    assert [(r.line, r.prompt) for r in pb.rows] == [(4, "a\x00b")]


def test_csv_empty_file_needs_a_header() -> None:
    pb = parse_batch(b"", fmt="csv")
    assert pb.rows == [] and [e.line for e in pb.errors] == [1]
    assert "header" in pb.errors[0].message


# --------------------------------------------------------------------------- detection, files, pasted

@pytest.mark.parametrize(
    ("data", "name", "expected"),
    [
        (b"profile,prompt\n", "batch.jsonl", "jsonl"),
        (b'{"profile":1}', "BATCH.CSV", "csv"),
        (b'{"profile":1}', "x.ndjson", "jsonl"),
        (b'\xef\xbb\xbf  \n\n {"a":1}', None, "jsonl"),
        (b"# comment\n{}", None, "jsonl"),
        (b"profile,prompt\n", None, "csv"),
        (b"\xef\xbb\xbfprofile,prompt\n", "data.txt", "csv"),
    ],
)
def test_detect_format(data: bytes, name: str | None, expected: str) -> None:
    assert detect_format(data, name) == expected


def test_parse_batch_uses_source_name_for_detection_and_rejects_bad_fmt() -> None:
    assert parse_batch(b"profile,prompt\nw,x\n", source="a.jsonl").format == "jsonl"
    with pytest.raises(ValueError, match="unknown batch format"):
        parse_batch(b"", fmt="xml")


def test_parse_batch_file(tmp_path: Path) -> None:
    f = tmp_path / "b.csv"
    f.write_bytes(b"profile,prompt\nwriter,hi\n")
    pb = parse_batch_file(f, known_profiles=["writer"])
    assert pb.format == "csv" and pb.source == str(f) and pb.rows[0].prompt == "hi"
    with pytest.raises(BatchFileError, match="not found"):
        parse_batch_file(tmp_path / "missing.jsonl")
    with pytest.raises(BatchFileError, match="is a directory"):
        parse_batch_file(tmp_path)
    f.write_bytes(b"x" * 2000)
    with pytest.raises(BatchFileError, match="over the size limit"):
        parse_batch_file(f, max_bytes=1000)


def test_parse_pasted() -> None:
    pb = parse_pasted("  first  \n\n\r\nsecond, with comma\r# not a comment\n  \n", profile="writer",
                      priority=3, system="sys")
    assert pb.format == "pasted" and pb.errors == []
    assert [(r.line, r.prompt) for r in pb.rows] == [(1, "first"), (4, "second, with comma"), (5, "# not a comment")]
    assert all(r.profile == "writer" and r.priority == 3 and r.system == "sys" and r.id is None for r in pb.rows)
    pb = parse_pasted("ok\n" + "z" * 11, profile="writer", max_prompt_chars=10)
    assert [r.prompt for r in pb.rows] == ["ok"] and pb.errors[0].line == 2
    with pytest.raises(ValueError, match=r"^priority 5000 is out of range"):
        parse_pasted("x", profile="writer", priority=5000)
    with pytest.raises(ValueError, match=r"^profile is empty$"):
        parse_pasted("x", profile=" ")


# --------------------------------------------------------------------------- task ids

def test_derive_task_id_is_pinned_and_distinguishes_occurrences() -> None:
    r = BatchRow(1, "writer", "hello", None, None, 0, None)
    # Pinned: changing the derivation would re-run every batch a user re-submits.
    assert derive_task_id(r, 0) == "b-" + __import__("hashlib").sha256(
        json.dumps(["writer", "", "hello", 0], ensure_ascii=False, separators=(",", ":")).encode()
    ).hexdigest()[:20]
    assert derive_task_id(r, 0) == derive_task_id(BatchRow(99, "writer", "hello", None, "", 5, "rk"), 0)
    assert derive_task_id(r, 0) != derive_task_id(r, 1)
    assert derive_task_id(r, 0) != derive_task_id(BatchRow(1, "writer", "hello", None, "s", 0, None), 0)
    assert derive_task_id(r, 0) != derive_task_id(BatchRow(1, "reasoner", "hello", None, None, 0, None), 0)
    assert derive_task_id(BatchRow(1, "w", "p", "mine", None, 0, None), 3) == "mine"
    assert len(derive_task_id(r, 0)) == 22


def test_assign_task_ids_is_stable_across_runs_and_separates_duplicates() -> None:
    data = jl(row("same"), row("same", id="own"), row("other"), row("same"), row("same", system="s"))
    first = assign_task_ids(parse_batch(data).rows)
    again = assign_task_ids(parse_batch(data).rows)
    assert [i for i, _ in first] == [i for i, _ in again]
    ids = [i for i, _ in first]
    assert ids[1] == "own"
    assert len(set(ids)) == 5
    r0, r3 = first[0][1], first[3][1]
    assert ids[0] == derive_task_id(r0, 0) and ids[3] == derive_task_id(r3, 1)
    # an explicit id on one row never shifts the derived ids of the others
    without_own = assign_task_ids(parse_batch(jl(row("same"), row("other"), row("same"))).rows)
    assert [without_own[0][0], without_own[2][0]] == [ids[0], ids[3]]


# --------------------------------------------------------------------------- property-based

_SPECIAL = list('ab ,;"\'\\\t\n\r中文字😀🎉#{}[]:\u2028\u3000\x00é')
_any_text = st.one_of(
    st.text(alphabet=st.sampled_from(_SPECIAL), max_size=30),
    st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=30),
)
_prompt = _any_text.filter(lambda s: bool(s.strip()))
_id_text = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=20).filter(
    lambda s: s.isprintable() and bool(s.strip()))


@st.composite
def _row_dicts(draw: st.DrawFn, *, for_csv: bool) -> dict[str, Any]:
    opt_text = st.none() | (_any_text.filter(bool) if for_csv else _any_text)
    d: dict[str, Any] = {"profile": draw(st.sampled_from(PROFILES)), "prompt": draw(_prompt)}
    ident = draw(st.none() | _id_text | (st.none() if for_csv else st.integers(-10**6, 10**6)))
    optional = {"id": ident, "system": draw(opt_text), "priority": draw(st.none() | st.integers(-1000, 1000)),
                "route_key": draw(st.none() | (_any_text.filter(bool) if for_csv else _any_text))}
    for k, v in optional.items():
        if v is not None or (not for_csv and draw(st.booleans())):
            d[k] = v
    return d


def _dedupe_ids(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    for r in rows:
        if r.get("id") is not None:
            if str(r["id"]) in seen:
                r["id"] = None
            else:
                seen.add(str(r["id"]))
    return rows


def _expected(d: dict[str, Any], line: int) -> BatchRow:
    ident = d.get("id")
    return BatchRow(line, d["profile"], d["prompt"], None if ident is None else str(ident), d.get("system"),
                    d.get("priority") or 0, d.get("route_key"))


_FAST = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_bytes_soup = st.lists(st.sampled_from([b"{", b"}", b'"', b",", b"\n", b"\r", b"profile", b"prompt", b"\xff",
                                        b"\x00", b"#", b" ", b"id", b":", b"1", b"[", b"\\ud800", b"\xef\xbb\xbf",
                                        b'"writer"', b"priority"]), max_size=60).map(b"".join)


@_FAST
@given(data=st.binary(max_size=600) | _bytes_soup, fmt=st.sampled_from([None, "jsonl", "csv"]))
def test_arbitrary_bytes_never_raise_and_lines_are_in_range(data: bytes, fmt: str | None) -> None:
    pb = parse_batch(data, fmt=fmt, known_profiles=["writer"])
    n = len(data.splitlines())
    assert all(1 <= e.line <= n + 1 for e in pb.errors)
    assert all(1 <= r.line <= n for r in pb.rows)
    assert all(r.prompt.strip() for r in pb.rows)


@_FAST
@given(rows=st.lists(_row_dicts(for_csv=False), max_size=8), ascii_only=st.booleans(),
       crlf=st.booleans())
def test_jsonl_round_trips_exact_values(rows: list[dict[str, Any]], ascii_only: bool, crlf: bool) -> None:
    rows = _dedupe_ids(rows)
    sep = "\r\n" if crlf else "\n"
    data = sep.join(json.dumps(r, ensure_ascii=ascii_only) for r in rows).encode()
    pb = parse_batch(data, fmt="jsonl", known_profiles=PROFILES)
    assert pb.errors == []
    assert pb.rows == [_expected(r, i) for i, r in enumerate(rows, start=1)]


@_FAST
@given(rows=st.lists(_row_dicts(for_csv=True), max_size=8),
       style=st.sampled_from([(csv.QUOTE_MINIMAL, "\r\n"), (csv.QUOTE_ALL, "\n"), (csv.QUOTE_ALL, "\r\n")]),
       columns=st.permutations(["profile", "prompt", "id", "system", "priority", "route_key"]),
       bom=st.booleans())
def test_csv_round_trips_exact_values(rows: list[dict[str, Any]], style: tuple[Any, str],
                                      columns: list[str], bom: bool) -> None:
    rows = _dedupe_ids(rows)
    buf = io.StringIO()
    w = csv.writer(buf, quoting=style[0], lineterminator=style[1])
    w.writerow(columns)
    starts = []
    line = 1
    for r in rows:
        line += 1
        starts.append(line)
        cells = ["" if r.get(c) is None else str(r[c]) for c in columns]
        w.writerow(cells)
        # a record spans one physical line per line break inside its quoted cells
        line += sum(cell.count("\r\n") + cell.replace("\r\n", "").count("\r") + cell.replace("\r\n", "").count("\n")
                    for cell in cells)
    data = ("\ufeff" if bom else "").encode() + buf.getvalue().encode()
    pb = parse_batch(data, fmt="csv", known_profiles=PROFILES)
    assert pb.errors == []
    assert pb.rows == [_expected(r, s) for r, s in zip(rows, starts, strict=True)]


_garbage = st.one_of(
    st.text(alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=["Cs"]), min_size=1,
            max_size=40).map(lambda s: s.encode()),
    st.binary(min_size=1, max_size=40).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b"")),
)


def _is_garbage(line: bytes) -> bool:
    s = line.strip()
    if not s or s.startswith(b"#") or line.startswith(b"\xef\xbb\xbf"):
        return False  # skipped, not reported
    try:
        return not isinstance(json.loads(line.decode("utf-8")), dict)
    except (ValueError, RecursionError):
        return True


@_FAST
@given(items=st.lists(st.one_of(_row_dicts(for_csv=False).map(lambda d: ("row", d)),
                                _garbage.filter(_is_garbage).map(lambda b: ("junk", b))), max_size=12))
def test_garbage_lines_are_reported_and_valid_rows_kept(items: list[tuple[str, Any]]) -> None:
    _dedupe_ids([d for kind, d in items if kind == "row"])
    lines = [json.dumps(v, ensure_ascii=False).encode() if kind == "row" else v for kind, v in items]
    # junk that makes the whole file read as another encoding is test_batch_encodings.py's case
    assume(detect_encoding(b"\n".join(lines)).name == "UTF-8")
    pb = parse_batch(b"\n".join(lines), fmt="jsonl")
    expected_rows = [_expected(v, i) for i, (kind, v) in enumerate(items, start=1) if kind == "row"]
    junk_lines = [i for i, (kind, _) in enumerate(items, start=1) if kind == "junk"]
    assert pb.rows == expected_rows
    assert [e.line for e in pb.errors] == junk_lines
