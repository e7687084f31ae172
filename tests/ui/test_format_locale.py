"""Numbers in the console follow the user's locale (QLocale's default), not Python's fixed style."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import QLocale

from mediadesk.ui.format import fmt_count, fmt_rate, fmt_seconds


@pytest.fixture
def use_locale() -> Iterator[Callable[[str], None]]:
    """Set QLocale's process default for one test; the previous default comes back after."""
    before = QLocale()
    yield lambda name: QLocale.setDefault(QLocale(name))
    QLocale.setDefault(before)


@pytest.mark.parametrize(("name", "count", "rate", "seconds"), [
    ("de_DE", "1.234.567", "1.234,6", "12,3 s"),
    ("zh_CN", "1,234,567", "1,234.6", "12.3 s"),
    ("en_US", "1,234,567", "1,234.6", "12.3 s"),
])
def test_counts_rates_and_seconds_use_the_locale(use_locale: Callable[[str], None], name: str, count: str,
                                                 rate: str, seconds: str) -> None:
    use_locale(name)
    assert (fmt_count(1_234_567), fmt_rate(1234.56), fmt_seconds(12.34)) == (count, rate, seconds)


def test_rate_keeps_one_decimal_and_small_counts_are_plain(use_locale: Callable[[str], None]) -> None:
    use_locale("de_DE")
    assert (fmt_rate(0.0), fmt_rate(2), fmt_count(7)) == ("0,0", "2,0", "7")
