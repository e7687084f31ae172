"""Prompt templates: a named text with ``{placeholders}``, filled in per batch row.

A template is the file ``<data dir>/templates/<name>.txt`` (UTF-8; not ``resources/templates``, which holds
the bundled starter config). It is rendered by Jinja2's :class:`~jinja2.sandbox.SandboxedEnvironment` with
:class:`~jinja2.StrictUndefined` and the operator's one-brace form: ``{product}`` is a placeholder (a Jinja
expression, so ``{product|upper}`` works too), ``{% ... %}`` a statement, ``{# ... #}`` a comment. The sandbox
refuses ``{x.__class__}`` and the like; a variable the row does not give is an error, never an empty string.

A literal ``{`` is written ``{"{"}`` (an expression whose value is the brace); a ``}`` outside a placeholder is
plain text. A JSON example is best wrapped whole: ``{% raw %}{"name": "..."}{% endraw %}``. A JSON example
left bare is a syntax error naming the template's line (or, for ``{"a"}`` alone, renders as ``a``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Jinja2 is imported on the first template: a batch without one never loads it
    from jinja2 import Template
    from jinja2.sandbox import SandboxedEnvironment

__all__ = ["TEMPLATES_FOLDER", "TemplateLibrary", "TemplateProblem", "templates_dir"]

#: The folder of the data dir that holds the operator's templates.
TEMPLATES_FOLDER = "templates"
#: A template's name: its file's stem (no path, no dot first).
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")
#: Larger files are refused: a template is a prompt, not a data set.
MAX_TEMPLATE_BYTES = 1024 * 1024
_BRACE_HINT = ('a literal { is written {"{"}; wrap a JSON example in {% raw %}...{% endraw %}')


def templates_dir(data_dir: Path) -> Path:
    """Where the workspace at ``data_dir`` keeps its templates."""
    return data_dir / TEMPLATES_FOLDER


class TemplateProblem(Exception):
    """A template cannot be used (missing, unreadable, bad syntax) or a row cannot fill it in."""


@dataclass(frozen=True)
class _Compiled:
    template: Template
    #: The variables the template reads, sorted.
    needs: tuple[str, ...]


class TemplateLibrary:
    """The templates of one folder, each read and compiled once (a batch of 100k rows reads one file)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._env_made: SandboxedEnvironment | None = None
        self._cache: dict[str, _Compiled | TemplateProblem] = {}

    def _env(self) -> SandboxedEnvironment:
        if self._env_made is None:
            from jinja2 import StrictUndefined
            from jinja2.sandbox import SandboxedEnvironment

            self._env_made = SandboxedEnvironment(
                variable_start_string="{", variable_end_string="}", undefined=StrictUndefined,
                autoescape=False, keep_trailing_newline=True)
        return self._env_made

    def names(self) -> list[str]:
        """The templates in the folder, sorted (none when there is no folder)."""
        if self.folder is None or not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.txt") if p.is_file() and _NAME.fullmatch(p.stem))

    def needs(self, name: str) -> tuple[str, ...]:
        """The variables template ``name`` reads (raises :class:`TemplateProblem`)."""
        return self._get(name).needs

    def render(self, name: str, variables: Mapping[str, object]) -> str:
        """Template ``name`` filled in with ``variables``; raises :class:`TemplateProblem` saying what is
        wrong (the first missing variable by name, a sandbox refusal, a syntax error with its line)."""
        from jinja2 import TemplateError

        compiled = self._get(name)
        for var in compiled.needs:
            if var not in variables:
                raise TemplateProblem(f"missing variable {var!r} (template {name!r} uses it)")
        try:
            return compiled.template.render(variables)
        except TemplateError as exc:  # SecurityError and UndefinedError are TemplateErrors
            raise TemplateProblem(f"template {name!r}: {exc.message or exc}") from None
        except (TypeError, ValueError, ArithmeticError) as exc:  # {a + 1} with text in a, {a / 0} ...
            raise TemplateProblem(f"template {name!r}: {type(exc).__name__}: {exc}") from None

    def _get(self, name: str) -> _Compiled:
        found = self._cache.get(name)
        if found is None:
            try:
                found = self._compile(name)
            except TemplateProblem as exc:
                found = exc
            self._cache[name] = found
        if isinstance(found, TemplateProblem):
            raise found
        return found

    def _compile(self, name: str) -> _Compiled:
        if not _NAME.fullmatch(name):
            raise TemplateProblem(f"bad template name {name[:100]!r}: letters, digits, '_', '-' and '.' only")
        if self.folder is None:
            raise TemplateProblem(f"no templates folder to find template {name!r} in")
        path = self.folder / f"{name}.txt"
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_TEMPLATE_BYTES + 1)
        except FileNotFoundError:
            raise TemplateProblem(f"no template {name!r} (looked for {path})") from None
        except OSError as exc:
            raise TemplateProblem(f"cannot read template {name!r} ({path}): {exc.strerror or exc}") from None
        if len(data) > MAX_TEMPLATE_BYTES:
            raise TemplateProblem(f"template {name!r} is over {MAX_TEMPLATE_BYTES // 1024} KiB")
        try:
            source = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise TemplateProblem(f"template {name!r} is not UTF-8 (byte {exc.start + 1})") from None
        from jinja2 import TemplateSyntaxError, meta

        env = self._env()
        try:
            ast = env.parse(source)
            template = env.from_string(ast)
        except TemplateSyntaxError as exc:
            raise TemplateProblem(f"template {name!r} line {exc.lineno}: {exc.message}; {_BRACE_HINT}") from None
        needs = tuple(sorted(meta.find_undeclared_variables(ast) - set(env.globals)))
        return _Compiled(template, needs)
