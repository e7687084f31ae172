"""A batch file's bytes as text lines: which encoding it is in, and which lines that encoding cannot read.

Excel on Chinese Windows saves CSV in GB18030 (GBK), Notepad offers UTF-16, and everything else writes UTF-8, so
the encoding is found, never assumed, by small explicit rules in this order (tests/core/test_batch_encodings.py):

1. a BOM says UTF-8, UTF-16 LE/BE or UTF-32 LE/BE;
2. UTF-16 without a BOM when its NUL bytes show it (ASCII in UTF-16 is one NUL byte every other byte, on the
   same side of each pair; it is also valid UTF-8, which is why this rule comes before the next one);
3. UTF-8 when the whole file is strict UTF-8;
4. otherwise GB18030 (a superset of GBK and GB2312) when more of its lines read only as GB18030 than read as
   UTF-8 (of the first thousand lines that hold bytes above 0x7F); else UTF-8 still (a UTF-8 file with a damaged
   line stays UTF-8, and that line alone is reported).

A byte the chosen encoding cannot read marks its line bad (reported by line, the rest still read) and shows as
``\\xNN`` in the line's text. A file with more bad lines than good ones is no text at all (a spreadsheet saved
under a .csv name, an encoding we do not read): :meth:`BatchText.unreadable`.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from mediadesk.core.batch.rows import split_lines

__all__ = ["ASCII_SPACE", "BatchText", "Encoding", "decode_batch", "detect_encoding"]

#: The whitespace of ``bytes.strip()``: a line of only these is blank (``str.strip()`` would also take
#: U+3000, U+0085 ... which a row may hold).
ASCII_SPACE = " \t\n\r\x0b\x0c"


@dataclass(frozen=True)
class Encoding:
    codec: str
    #: For people: "UTF-8", "GB18030", "UTF-16 LE" ...
    name: str
    #: Bytes of byte order mark at the start of the data (0: none).
    bom: int = 0


UTF8 = Encoding("utf-8", "UTF-8")
GB18030 = Encoding("gb18030", "GB18030")
# UTF-32 LE before UTF-16 LE: its BOM starts with UTF-16 LE's.
_BOMS = (
    (b"\xff\xfe\x00\x00", Encoding("utf-32-le", "UTF-32 LE", 4)),
    (b"\x00\x00\xfe\xff", Encoding("utf-32-be", "UTF-32 BE", 4)),
    (b"\xef\xbb\xbf", Encoding("utf-8", "UTF-8", 3)),
    (b"\xff\xfe", Encoding("utf-16-le", "UTF-16 LE", 2)),
    (b"\xfe\xff", Encoding("utf-16-be", "UTF-16 BE", 2)),
)
_UTF16_LE = Encoding("utf-16-le", "UTF-16 LE")
_UTF16_BE = Encoding("utf-16-be", "UTF-16 BE")
#: Bytes looked at for the NUL pattern of UTF-16 without a BOM, and the fewest characters that can show it
#: (the shortest batch row, ``{"profile":"w","prompt":"p"}``, has 28).
_NUL_SAMPLE = 4096
_NUL_MIN_CHARS = 16

#: Lines with bytes above 0x7F that rule 4 looks at: plenty to tell, and cheap on a 256 MiB file.
_SAMPLE_LINES = 1000

_BYTE_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_HIGH_BYTE = re.compile(rb"[\x80-\xff]")

# An unreadable byte decodes to a lone surrogate U+DC00+byte, which no strict decode of these encodings ever
# yields (unlike "surrogateescape", this takes bytes below 0x80 too: UTF-16's bad units hold them).
_MARK_ERRORS = "mediadesk.batch-bytes"
_MARKED = re.compile("[\udc00-\udcff]")


def _mark(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    return "".join(chr(0xDC00 + b) for b in exc.object[exc.start : exc.end]), exc.end


codecs.register_error(_MARK_ERRORS, _mark)


@dataclass
class BatchText:
    encoding: Encoding
    #: The lines, their ends kept; an unreadable byte shows as ``\xNN``.
    lines: list[str]
    #: Line (1-based) -> the position (1-based, in bytes) in that line of its first unreadable byte.
    bad: dict[int, int]
    #: Offset in the data (0-based) of the first unreadable byte; None when every byte was read.
    first_bad: int | None

    def unreadable(self) -> bool:
        """More lines cannot be read than can: not text in any encoding we read."""
        good = sum(1 for n, line in enumerate(self.lines, start=1)
                   if n not in self.bad and line.strip(ASCII_SPACE))
        return len(self.bad) > good


def _utf16_by_nuls(data: bytes) -> Encoding | None:
    sample = data[:_NUL_SAMPLE]
    pairs = len(sample) // 2
    if pairs < _NUL_MIN_CHARS or len(data) % 2:
        return None
    even, odd = sample[0 : 2 * pairs : 2].count(0), sample[1 : 2 * pairs : 2].count(0)
    # a quarter of the characters are ASCII (a CSV's commas and header, JSON's punctuation), and NULs are
    # almost all on that one side (U+4E00 and the like put a few on the other)
    if odd * 4 >= pairs and even * 8 <= odd:
        return _UTF16_LE
    if even * 4 >= pairs and odd * 8 <= even:
        return _UTF16_BE
    return None


def _reads(line: bytes, codec: str) -> bool:
    try:
        line.decode(codec)
    except UnicodeDecodeError:
        return False
    return True


def detect_encoding(data: bytes) -> Encoding:
    """The encoding of a batch's bytes, by the rules of this module's doc."""
    for bom, enc in _BOMS:
        if data.startswith(bom):
            return enc
    by_nuls = _utf16_by_nuls(data)
    if by_nuls is not None:
        return by_nuls
    if _reads(data, "utf-8"):
        return UTF8
    utf8 = gb_only = seen = 0
    for m in _BYTE_LINE.finditer(data):
        line = m.group()
        if not _HIGH_BYTE.search(line):
            continue  # ASCII reads the same in both
        if _reads(line, "utf-8"):
            utf8 += 1
        elif _reads(line, "gb18030"):
            gb_only += 1
        seen += 1
        if seen >= _SAMPLE_LINES:
            break
    return GB18030 if gb_only > utf8 else UTF8


def decode_batch(data: bytes) -> BatchText:
    """``data`` as lines of text in its detected encoding; never raises."""
    enc = detect_encoding(data)
    body = data[enc.bom :]
    text = body.decode(enc.codec, errors=_MARK_ERRORS)
    lines = split_lines(text)
    bad: dict[int, int] = {}
    for n, line in enumerate(lines if _MARKED.search(text) else (), start=1):
        m = _MARKED.search(line)
        if m is None:
            continue
        bad[n] = len(line[: m.start()].encode(enc.codec)) + 1
        lines[n - 1] = _MARKED.sub(lambda c: f"\\x{ord(c.group()) - 0xDC00:02x}", line)
    first_bad = None
    if bad:
        try:
            body.decode(enc.codec)
        except UnicodeDecodeError as exc:
            first_bad = enc.bom + exc.start
    return BatchText(enc, lines, bad, first_bad)
