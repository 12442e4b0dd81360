"""The sanitizer tier's allow-list (tests/sanitizer/allowlist.txt): which compute-sanitizer reports
are benign, each with the reason. One entry per line, `<tools> :: <regex> :: <reason>`; an entry
allows every report of one of its tools whose text the regex matches (re.search).

Python 3 standard library only. docs/sanitizer.md describes the tier.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple

if TYPE_CHECKING:
    from sanitizer_report import SanitizerReport

# The compute-sanitizer tools the tier runs (an entry names some of them, or "*" for all).
TOOLS = ("racecheck", "synccheck", "memcheck", "initcheck")


class AllowlistError(Exception):
    pass


@dataclass
class AllowEntry:
    line: int                # line number in the file
    tools: Tuple[str, ...]   # tools it applies to ("*": all)
    pattern: "re.Pattern[str]"
    reason: str

    def applies_to(self, tool: str) -> bool:
        return "*" in self.tools or tool in self.tools


SEPARATOR = " :: "


def parse_allowlist(text: str, source: str = "allowlist") -> List[AllowEntry]:
    """`<tools> :: <regex> :: <reason>` per line; '#' comments and blank lines are skipped."""
    entries = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(SEPARATOR, 2)
        if len(parts) != 3:
            raise AllowlistError(f"{source}:{number}: expected '<tools> :: <regex> :: <reason>', got: {line}")
        tools_text, regex, reason = (p.strip() for p in parts)
        tools = tuple(t.strip() for t in tools_text.split(",") if t.strip())
        unknown = [t for t in tools if t != "*" and t not in TOOLS]
        if not tools or unknown:
            raise AllowlistError(f"{source}:{number}: tools must be '*' or a comma-separated list of "
                                 f"{', '.join(TOOLS)}; got '{tools_text}'")
        if not regex:
            raise AllowlistError(f"{source}:{number}: empty regex")
        try:
            pattern = re.compile(regex)
        except re.error as e:
            raise AllowlistError(f"{source}:{number}: bad regex '{regex}': {e}") from None
        if not reason:
            raise AllowlistError(f"{source}:{number}: an entry needs the reason it is benign")
        entries.append(AllowEntry(number, tools, pattern, reason))
    return entries


def load_allowlist(path: Optional[str]) -> List[AllowEntry]:
    if not path:
        return []
    try:
        with open(path, encoding="utf-8") as f:
            return parse_allowlist(f.read(), path)
    except OSError as e:
        raise AllowlistError(f"cannot read the allow-list {path}: {e}") from None


def apply_allowlist(report: SanitizerReport, tool: str, entries: Sequence[AllowEntry]) -> None:
    """Marks each finding of `report` with the first entry that allows it (None: not allowed)."""
    for record in report.findings:
        record.allowed_by = next((e for e in entries if e.applies_to(tool) and e.pattern.search(record.text)), None)
