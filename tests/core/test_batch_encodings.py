"""Batch files in the encodings operators' tools write (Excel on Chinese Windows: GB18030; Notepad: UTF-16 or
UTF-8 with a BOM), read from real files: the right text, the encoding said, a bad row costing only itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mediadesk.core.batch import BatchFileError, detect_encoding, parse_batch, parse_batch_file

PROFILES = ["writer", "写手"]
PROMPTS = ["写一首关于秋天的诗", "翻译：你好，世界", "总结这篇文章 😀"]  # the emoji: astral, 4 bytes in GB18030 too


def csv_text(prompts: list[str], profile: str = "writer") -> str:
    return "profile,prompt\r\n" + "".join(f"{profile},{p}\r\n" for p in prompts)


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_a_gb18030_csv_from_excel_reads_as_chinese(tmp_path: Path) -> None:
    path = write(tmp_path / "excel.csv", csv_text(PROMPTS, "写手").encode("gb18030"))
    pb = parse_batch_file(path, known_profiles=PROFILES)
    assert pb.errors == []
    assert [(r.line, r.profile, r.prompt) for r in pb.rows] == [(2, "写手", PROMPTS[0]), (3, "写手", PROMPTS[1]),
                                                              (4, "写手", PROMPTS[2])]
    assert pb.encoding == "GB18030"


def test_gbk_lines_that_happen_to_be_valid_utf8_follow_the_file(tmp_path: Path) -> None:
    """``说学`` in GBK is CB B5 D1 A7, valid UTF-8 too; the other lines make the file GB18030, and it reads right."""
    assert "说学".encode("gbk").decode("utf-8") != "说学"
    path = write(tmp_path / "gbk.csv", csv_text(["说学", *PROMPTS[:2]]).encode("gbk"))
    pb = parse_batch_file(path, known_profiles=PROFILES)
    assert pb.encoding == "GB18030" and pb.errors == []
    assert [r.prompt for r in pb.rows] == ["说学", *PROMPTS[:2]]


@pytest.mark.parametrize(("bom", "codec", "name"), [
    (b"\xff\xfe", "utf-16-le", "UTF-16 LE"),
    (b"\xfe\xff", "utf-16-be", "UTF-16 BE"),
    (b"\xef\xbb\xbf", "utf-8", "UTF-8"),
    (b"\xff\xfe\x00\x00", "utf-32-le", "UTF-32 LE"),
])
def test_a_bom_says_the_encoding(tmp_path: Path, bom: bytes, codec: str, name: str) -> None:
    path = write(tmp_path / "b.csv", bom + csv_text(PROMPTS).encode(codec))
    pb = parse_batch_file(path, known_profiles=PROFILES)
    assert pb.errors == [], pb.errors
    assert [r.prompt for r in pb.rows] == PROMPTS  # the BOM is not part of the header's first name
    assert pb.encoding == name


def test_utf16_le_with_bom_jsonl_keeps_its_lines(tmp_path: Path) -> None:
    lines = [json.dumps({"profile": "writer", "prompt": p}, ensure_ascii=False) for p in PROMPTS]
    lines.insert(1, "{broken")
    path = write(tmp_path / "notepad.jsonl", b"\xff\xfe" + "\r\n".join(lines).encode("utf-16-le"))
    pb = parse_batch_file(path, known_profiles=PROFILES)
    assert [(r.line, r.prompt) for r in pb.rows] == [(1, PROMPTS[0]), (3, PROMPTS[1]), (4, PROMPTS[2])]
    assert [e.line for e in pb.errors] == [2] and "invalid JSON" in pb.errors[0].message
    assert pb.encoding == "UTF-16 LE"


@pytest.mark.parametrize(("codec", "name"), [("utf-16-le", "UTF-16 LE"), ("utf-16-be", "UTF-16 BE")])
def test_utf16_without_bom_is_known_by_its_nul_bytes(tmp_path: Path, codec: str, name: str) -> None:
    data = csv_text(PROMPTS).encode(codec)
    pb = parse_batch_file(write(tmp_path / "u16.csv", data), known_profiles=PROFILES)
    assert pb.encoding == name and pb.errors == []
    assert [r.prompt for r in pb.rows] == PROMPTS
    ascii_only = csv_text(["hello", "world"]).encode(codec)
    ascii_only.decode("utf-8")  # valid UTF-8 as well, NULs and all: only the NUL pattern tells
    pb = parse_batch_file(write(tmp_path / "ascii16.csv", ascii_only), known_profiles=PROFILES)
    assert pb.encoding == name and [r.prompt for r in pb.rows] == ["hello", "world"]


def test_plain_and_damaged_utf8_stay_utf8(tmp_path: Path) -> None:
    good = csv_text(PROMPTS).encode("utf-8")
    assert parse_batch_file(write(tmp_path / "u8.csv", good), known_profiles=PROFILES).encoding == "UTF-8"
    # one damaged line (bytes GB18030 would read) among UTF-8 Chinese: still UTF-8, that line alone reported
    damaged = good.replace("翻译".encode(), b"\xb7\xad\xd2\xeb")
    pb = parse_batch_file(write(tmp_path / "damaged.csv", damaged), known_profiles=PROFILES)
    assert pb.encoding == "UTF-8"
    assert [r.prompt for r in pb.rows] == [PROMPTS[0], PROMPTS[2]]
    assert [(e.line, e.message) for e in pb.errors] == [(3, "invalid UTF-8 on this line")]
    assert "\\xb7\\xad" in pb.errors[0].excerpt


def test_a_gb18030_file_with_one_bad_row_loads_its_good_rows(tmp_path: Path) -> None:
    data = csv_text(PROMPTS).encode("gb18030")
    bad = "writer,坏行".encode("gb18030") + b"\xff\r\n"  # 0xFF starts nothing in GB18030
    path = write(tmp_path / "one_bad.csv", data + bad + "writer,最后一行\r\n".encode("gb18030"))
    pb = parse_batch_file(path, known_profiles=PROFILES)
    assert pb.encoding == "GB18030"
    assert [(r.line, r.prompt) for r in pb.rows] == [(2, PROMPTS[0]), (3, PROMPTS[1]), (4, PROMPTS[2]),
                                                     (6, "最后一行")]
    assert [(e.line, e.message) for e in pb.errors] == [(5, "invalid GB18030 on this line")]
    assert pb.errors[0].excerpt == "writer,坏行\\xff"


def test_a_gb18030_jsonl_bad_row_names_its_byte(tmp_path: Path) -> None:
    rows = [json.dumps({"profile": "writer", "prompt": p}, ensure_ascii=False).encode("gb18030") for p in PROMPTS]
    rows[1] = rows[1][:20] + b"\x80" + rows[1][20:]
    pb = parse_batch_file(write(tmp_path / "gb.jsonl", b"\n".join(rows)), known_profiles=PROFILES)
    assert pb.encoding == "GB18030"
    assert [r.prompt for r in pb.rows] == [PROMPTS[0], PROMPTS[2]]
    assert [(e.line, e.message) for e in pb.errors] == [(2, "invalid GB18030 at byte 21 of the line")]


def test_a_file_in_no_encoding_we_read_is_one_error_with_the_offset(tmp_path: Path) -> None:
    """An Excel workbook saved under a .csv name: one error naming the file and the first unreadable byte."""
    data = b"PK\x03\x04\x14\x00\x06\x00" + bytes(range(0x80, 0x100)) * 3
    path = write(tmp_path / "workbook.csv", data)
    with pytest.raises(BatchFileError) as err:
        parse_batch_file(path, known_profiles=PROFILES)
    text = str(err.value)
    assert str(path) in text and "UTF-8, UTF-16 or GB18030" in text
    assert "offset 8 (0x8)" in text  # 0x80 follows the 8 bytes of the zip header
    # the bytes themselves never raise: the same data given directly is rows of errors, as before
    assert parse_batch(data, fmt="csv").rows == []


def test_detection_rules_on_bytes() -> None:
    assert detect_encoding(b"") == detect_encoding(b"profile,prompt\n")
    assert detect_encoding(b"profile,prompt\n").name == "UTF-8"
    assert detect_encoding("profile,prompt\nw,中文\n".encode("gb18030")).name == "GB18030"
    assert detect_encoding(b"\xef\xbb\xbf\xff").bom == 3  # a BOM wins even over bytes it cannot read
    # a few stray NULs are no UTF-16
    assert detect_encoding(b'{"profile":"w","prompt":"a\x00b"}\n' * 3).name == "UTF-8"
