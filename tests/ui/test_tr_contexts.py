"""Every console string lands in a named translation context.

``self.tr("...")`` looks its translation up under the class's name at run time; lupdate files a
string under that name only when it sees the call as ``self.tr`` or ``QCoreApplication.translate``.
An alias (``tr = self.tr`` then ``tr("Base URL")``) is filed under an EMPTY context, which no
lookup ever reads: the Setup editor's tabs, labels and Test buttons stayed English under zh_CN
while the catalog held their Chinese. lupdate is run here on the real sources into a scratch file.
"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.support import require

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging"))


def test_no_console_string_is_filed_under_an_empty_context(tmp_path: Path) -> None:
    import i18n  # packaging/i18n.py: the same tool and sources as the real refresh

    try:
        tool = i18n.find_tool("lupdate")
    except SystemExit as exc:
        require(False, str(exc))
        return
    ts = tmp_path / "scratch_zh_CN.ts"
    sources = [str(p.relative_to(ROOT)) for p in i18n.source_files()]
    subprocess.run([tool, *sources, "-ts", str(ts)], check=True, cwd=ROOT, capture_output=True)
    contexts = {c.findtext("name") or "": [m.findtext("source") for m in c.iter("message")]
                for c in ET.parse(ts).getroot().iter("context")}
    assert contexts.get("", []) == [], contexts.get("")
    assert "Base URL" in contexts["SetupEditor"] and "Test" in contexts["SetupEditor"]
    assert "could not reach the service (nothing answered at its address: is it running, is the address " \
           "right?)" in contexts["PlainErrors"]
