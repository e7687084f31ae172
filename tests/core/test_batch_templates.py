"""Prompt templates in a batch: ``{placeholder}`` rendering through Jinja2's sandbox, a missing variable as an
error of its row (naming the line and the variable or column), literal braces and JSON examples, several
profiles and samples per row."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from mediadesk.core.batch import (
    TemplateLibrary,
    TemplateProblem,
    assign_task_ids,
    parse_batch,
    parse_batch_file,
    row_tasks,
    templates_dir,
)

PROFILES = ("writer", "critic", "poet")
BLURB = "Write a product blurb for {product} in the tone of {tone}, under {words} characters."


@pytest.fixture
def tdir(tmp_path: Path) -> Path:
    folder = templates_dir(tmp_path / "data")
    folder.mkdir(parents=True)
    (folder / "blurb.txt").write_text(BLURB, encoding="utf-8")
    return folder


def jl(*rows: Mapping[str, object]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


def test_the_templates_folder_is_in_the_data_dir_not_the_bundled_resources(tmp_path: Path) -> None:
    assert templates_dir(tmp_path) == tmp_path / "templates"
    assert TemplateLibrary(tmp_path / "missing").names() == []


def test_a_jsonl_row_renders_its_template_and_keeps_name_and_vars(tdir: Path) -> None:
    parsed = parse_batch(jl(
        {"template": "blurb", "vars": {"product": "茶壶", "tone": "warm", "words": 120}, "profile": "writer"},
        {"prompt": "literal", "profile": "critic"},
    ), known_profiles=PROFILES, templates_dir=tdir)
    assert parsed.errors == []
    first, second = parsed.rows
    assert first.prompt == "Write a product blurb for 茶壶 in the tone of warm, under 120 characters."
    assert (first.template, dict(first.template_vars)) == ("blurb", {"product": "茶壶", "tone": "warm", "words": 120})
    assert (second.prompt, second.template, second.template_vars) == ("literal", None, ())
    assert TemplateLibrary(tdir).names() == ["blurb"]


def test_a_missing_variable_is_an_error_of_its_row_naming_line_and_variable(tdir: Path) -> None:
    parsed = parse_batch(jl(
        {"template": "blurb", "vars": {"product": "a", "tone": "t", "words": 1}, "profile": "writer"},
        {"template": "blurb", "vars": {"product": "b", "words": 1}, "profile": "writer"},
        {"template": "blurb", "vars": {"product": "c", "tone": "t", "words": 3}, "profile": "writer"},
    ), known_profiles=PROFILES, templates_dir=tdir)
    assert [r.line for r in parsed.rows] == [1, 3]  # the good rows still go in
    (err,) = parsed.errors
    assert err.line == 2 and "missing variable 'tone'" in err.message and "'blurb'" in err.message


def test_a_csv_header_names_the_variables_and_an_empty_cell_names_its_column(tdir: Path) -> None:
    data = b"product,tone,words\nkettle,calm,80\nlamp,,90\n"
    parsed = parse_batch(data, fmt="csv", known_profiles=PROFILES, templates_dir=tdir, template="blurb",
                         profile="critic")
    assert parsed.variables == ("product", "tone", "words")
    (good,) = parsed.rows
    assert good.prompt == "Write a product blurb for kettle in the tone of calm, under 80 characters."
    assert good.profile == "critic" and good.template == "blurb"
    (err,) = parsed.errors
    assert err.line == 3 and "missing variable 'tone' (column 2 is empty)" in err.message
    # without a template the same header is what it always was: unknown columns
    plain = parse_batch(data, fmt="csv", known_profiles=PROFILES)
    assert plain.rows == [] and "unknown column 'product'" in plain.errors[0].message


def test_template_and_profile_columns_choose_per_row(tdir: Path) -> None:
    (tdir / "short.txt").write_text("{product}!", encoding="utf-8")
    data = b"template,profile,product,tone,words\nblurb,writer,a,b,1\nshort,poet,x,,\n"
    parsed = parse_batch(data, fmt="csv", known_profiles=PROFILES, templates_dir=tdir)
    assert parsed.errors == []
    assert [(r.template, r.profile, r.prompt) for r in parsed.rows] == [
        ("blurb", "writer", "Write a product blurb for a in the tone of b, under 1 characters."),
        ("short", "poet", "x!")]


def test_a_json_example_in_a_template_renders_when_raw_and_names_its_line_when_bare(tdir: Path) -> None:
    (tdir / "raw.txt").write_text(
        'Answer as JSON like\n{% raw %}{"name": "x", "tags": ["a"]}{% endraw %}\nfor {product}.', encoding="utf-8")
    (tdir / "brace.txt").write_text('A literal {"{"} brace and } for {product}', encoding="utf-8")
    (tdir / "bare.txt").write_text('Answer as JSON like\n\n{"name": "x"}\nfor {product}.', encoding="utf-8")
    parsed = parse_batch(jl(*({"template": t, "vars": {"product": "P"}, "profile": "writer"}
                              for t in ("raw", "brace", "bare"))), known_profiles=PROFILES, templates_dir=tdir)
    assert [r.prompt for r in parsed.rows] == [
        'Answer as JSON like\n{"name": "x", "tags": ["a"]}\nfor P.', "A literal { brace and } for P"]
    (err,) = parsed.errors
    assert err.line == 3
    assert "template 'bare' line 3:" in err.message and '{"{"}' in err.message and "{% raw %}" in err.message


def test_the_sandbox_refuses_attribute_tricks(tdir: Path) -> None:
    (tdir / "evil.txt").write_text("{product.__class__.__mro__}", encoding="utf-8")
    (tdir / "evil2.txt").write_text("{product.__class__}", encoding="utf-8")
    lib = TemplateLibrary(tdir)
    for name in ("evil", "evil2"):
        with pytest.raises(TemplateProblem, match="unsafe"):
            lib.render(name, {"product": "x"})
    parsed = parse_batch(jl({"template": "evil2", "vars": {"product": "x"}, "profile": "writer"}),
                         known_profiles=PROFILES, templates_dir=tdir)
    assert parsed.rows == [] and "unsafe" in parsed.errors[0].message
    # a path is no template name: nothing outside the folder is read
    with pytest.raises(TemplateProblem, match="bad template name"):
        lib.render("../blurb", {})


def test_template_and_prompt_problems_are_row_errors(tdir: Path) -> None:
    parsed = parse_batch(jl(
        {"template": "nope", "vars": {}, "profile": "writer"},
        {"template": "blurb", "prompt": "p", "profile": "writer"},
        {"prompt": "p", "vars": {"a": 1}, "profile": "writer"},
        {"template": "blurb", "vars": {"product": [1]}, "profile": "writer"},
    ), known_profiles=PROFILES, templates_dir=tdir)
    assert parsed.rows == []
    msgs = {e.line: e.message for e in parsed.errors}
    assert "no template 'nope'" in msgs[1]
    assert "not both" in msgs[2]
    assert "'vars' given without a 'template'" in msgs[3]
    assert "vars['product'] must be" in msgs[4]


def test_several_profiles_and_samples_make_distinct_tasks_in_one_group(tdir: Path) -> None:
    parsed = parse_batch(jl(
        {"prompt": "same", "profiles": ["writer", "critic", "poet"], "n": 2},
        {"prompt": "same", "profile": "writer"},
        {"prompt": "mine", "profiles": ["writer", "critic"], "id": "r1"},
        {"prompt": "x", "profiles": ["writer", "writer"]},
        {"prompt": "x", "profile": "writer", "n": 21},
        {"prompt": "x", "profiles": ["writer", "critic"], "route_key": "conv"},
    ), known_profiles=PROFILES)
    rows = parsed.rows
    assert [r.task_count for r in rows] == [6, 1, 2]
    assert {e.line: e.message for e in parsed.errors} == {
        4: "profile 'writer' is named twice in 'profiles'", 5: "n 21 is out of range 1..20",
        6: "route_key cannot go with several profiles or samples (one conversation, one task per turn)"}
    tasks = [row_tasks(base, r) for base, r in assign_task_ids(rows)]
    six = tasks[0]
    assert len({t.task_id for t in six}) == 6 and len({t.group_id for t in six}) == 1
    assert [(t.profile, t.sample) for t in six] == [(p, s) for p in ("writer", "critic", "poet") for s in (1, 2)]
    (single,) = tasks[1]
    assert (single.sample, single.group_id) == (None, None) and single.task_id not in {t.task_id for t in six}
    assert [t.task_id for t in tasks[2]] == ["r1:writer:1", "r1:critic:1"] and tasks[2][0].group_id == "r1"
    # deterministic: the same file gives the same ids
    again = [row_tasks(base, r) for base, r in assign_task_ids(parse_batch(jl(
        {"prompt": "same", "profiles": ["writer", "critic", "poet"], "n": 2})).rows)]
    assert [t.task_id for t in again[0]] == [t.task_id for t in six]


def test_a_profiles_cell_splits_on_commas_and_bars(tmp_path: Path) -> None:
    f = tmp_path / "b.csv"
    f.write_text("prompt,profiles,n\nhello,\"writer, critic\",3\nbye,poet|writer,\n", encoding="utf-8")
    parsed = parse_batch_file(f, known_profiles=PROFILES)
    assert parsed.errors == []
    assert [(r.targets, r.samples) for r in parsed.rows] == [(("writer", "critic"), 3), (("poet", "writer"), 1)]
    assert parsed.task_count == 8
