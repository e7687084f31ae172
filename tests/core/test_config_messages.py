"""Config error messages as data: every template the loader uses is in the catalog (so it reaches
the .ts and gets a Chinese translation), and rendering keeps the English text identical."""

from __future__ import annotations

import ast
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mediadesk.config import errors as config_errors
from mediadesk.config import model as config_mod
from mediadesk.config import names as config_names
from mediadesk.config.messages import CONTEXT, TEMPLATES, msg
from mediadesk.config.model import ConfigError, parse_config
from mediadesk.core.log_lines import CONTEXT as LOG_CONTEXT
from mediadesk.core.log_lines import PHRASES

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "resources" / "i18n" / "mediadesk_zh_CN.ts"


def _loader_templates() -> set[str]:
    """The first argument of every ``msg(...)`` / ``problem(...)`` in the loader (the model and how its
    errors are told), and the error module's tables."""
    out: set[str] = set()
    for mod in (config_mod, config_errors, config_names):
        tree = ast.parse(Path(mod.__file__).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("msg", "problem", "fail"):
                first = node.args[0] if node.args else None
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    out.add(first.value)
                else:  # a helper passing its argument on, or a table below
                    assert isinstance(first, ast.Name | ast.Subscript), \
                        f"{mod.__name__}:{node.lineno}: a template from where?"
    out.update(config_errors._EXPECTED.values())
    out.update(t for t, _keys in config_errors._PYDANTIC.values())
    return out


def test_every_template_the_loader_uses_is_in_the_catalog() -> None:
    used = _loader_templates()
    assert len(used) > 40
    missing = sorted(used - set(TEMPLATES))
    assert not missing, f"add these to mediadesk/config/messages.py TEMPLATES: {missing}"


def _translations(context: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for ctx in ET.parse(TS).getroot().iter("context"):
        if ctx.findtext("name") != context:
            continue
        for m in ctx.iter("message"):
            tr = m.find("translation")
            if tr is not None and tr.get("type") is None and tr.text:
                out[m.findtext("source") or ""] = tr.text
    return out


def test_every_config_template_and_log_phrase_has_chinese_in_the_ts() -> None:
    config_zh = _translations(CONTEXT)
    log_zh = _translations(LOG_CONTEXT)
    missing = [t for t in TEMPLATES if t not in config_zh] + [p.template for p in PHRASES.values()
                                                               if p.template not in log_zh]
    assert not missing, f"no Chinese in {TS.name} for: {missing}"
    # real translations, not copies (values-only templates such as "{message}" excepted)
    same = [t for t in TEMPLATES if config_zh[t] == t and t not in ("{message}",)]
    same += [p.template for p in PHRASES.values() if log_zh[p.template] == p.template
             and p.template not in ("POST {path} stream={flag}", "HTTP {status}", "{text}")]
    assert not same, f"left in English: {same}"


@pytest.mark.parametrize(("data", "template"), [
    ({"retry": {"max_retries": -1}}, "Input should be greater than or equal to {ge}"),
    ({"retry": {"backoff_base_s": 0}}, "Input should be greater than {gt}"),
    ({"breaker": {"min_calls": 30, "window": 10}}, "min_calls ({min_calls}) must not exceed window ({window})"),
    ({"profiles": [{"name": "a", "kind": "x"}]}, "Input should be {expected}"),
    ({"profiles": [{"kind": "api"}]}, "Field required"),
    ({"accounts": [{"name": "x", "profile": "nope"}]}, "no profile named {name}"),
])
def test_issues_keep_the_english_text_and_carry_the_template(data: dict[str, object], template: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(data, source="c.toml")
    issues = info.value.issues
    assert "\n".join(i.line() for i in issues) == str(info.value)
    assert issues[0].message.template == template
    assert issues[0].source == "c.toml"


def test_render_translates_nested_messages_and_keeps_values() -> None:
    m = msg("expected {expected}, got {got}{hint}", expected=msg("an integer"),
            got=msg('a string ("{value}")', value="{x}"), hint="")
    assert m.english() == 'expected an integer, got a string ("{x}")'
    zh = {"expected {expected}, got {got}{hint}": "应为{expected}，实际是{got}{hint}", "an integer": "整数",
          'a string ("{value}")': '字符串（"{value}"）'}
    assert m.render(lambda t: zh.get(t, "")) == '应为整数，实际是字符串（"{x}"）'
