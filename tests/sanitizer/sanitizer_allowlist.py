"""The sanitizer tier's allow-list (tests/sanitizer/allowlist.txt): which compute-sanitizer reports
are benign, each with the reason. One entry per line, in one of two forms:

    <tools> :: <regex> :: <reason>
        the regex form: allows every report of one of its tools whose text the regex matches
        (re.search), e.g. anchored on source line numbers;
    <tools> :: access Read fn=ldsm4 ; access Write text=<regex> ; file=<basename> :: <reason>
        the source form: matches each access's kind, function and the TEXT of its source line
        (read from the file the record names), so it survives lines moving in the file.

Source-form clauses, separated by ' ; ' (values end at whitespace: write a space as \\s):
    access [Read|Write|Atomic] [fn=<regex>] [text=<regex>] [file=<basename>]
        one access of the record: its kind; fn fullmatches the bare function name ("ldsm4",
        "tc::device::marlin_w4a16") or its last '::' part; text is searched in the source line;
        file is the source file's basename. Each access clause needs a distinct access of the record.
    file=<basename>        every access of the record is in that file
    hazard=<regex>         fullmatches racecheck's hazard kind (WAR, RAW, WAW; "race" in analysis reports)
    memcpy_async           the entry is for records marked "(invalid memcpy_async synchronization)":
                           without it such records never match a source-form entry, with it only they do
A text clause whose source file cannot be read does not match; the record is then not allowed and
the verdict says "source not readable: <path>".

Python 3 standard library only. docs/sanitizer.md describes the tier.
"""
from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

if TYPE_CHECKING:
    from sanitizer_report import Access, RecordKey, SanitizerReport

# The compute-sanitizer tools the tier runs (an entry names some of them, or "*" for all).
TOOLS = ("racecheck", "synccheck", "memcheck", "initcheck")
ACCESS_KINDS = ("Read", "Write", "Atomic")


class AllowlistError(Exception):
    pass


class SourceCache:
    """Source files read once each (None: not readable), shared by the records of a run. A path the
    tool printed relative (as the kernel was compiled: "marlin_cuda_kernel.cu") is looked up as it
    is, then in each of `dirs` (--source-dir) in order."""

    def __init__(self, dirs: Sequence[str] = ()) -> None:
        self._dirs = list(dirs)
        self._files: Dict[str, Optional[List[str]]] = {}

    def _read(self, path: str) -> Optional[List[str]]:
        candidates = [path] if os.path.isabs(path) else [path] + [os.path.join(d, path) for d in self._dirs]
        for candidate in candidates:
            try:
                with open(candidate, encoding="utf-8", errors="replace") as f:
                    return f.read().splitlines()
            except OSError:
                continue
        return None

    def line(self, path: str, number: int) -> Tuple[Optional[str], str]:
        """(the text of line `number` of `path`, "") or (None, why it cannot be had)."""
        if path not in self._files:
            self._files[path] = self._read(path)
        lines = self._files[path]
        if lines is None:
            return None, f"source not readable: {path}"
        if not 1 <= number <= len(lines):
            return None, f"source line not found: {path}:{number} (the file has {len(lines)} lines)"
        return lines[number - 1], ""


@dataclass
class AccessClause:
    kind: Optional[str] = None                    # None: any kind
    fn: Optional["re.Pattern[str]"] = None
    text: Optional["re.Pattern[str]"] = None
    file: Optional[str] = None

    def check(self, access: "Access", sources: SourceCache) -> Tuple[Optional[bool], str]:
        """(True or False, "") when decided; (None, why) when the source line could not be read."""
        if self.kind is not None and access.kind != self.kind:
            return False, ""
        if self.file is not None and basename(access.path) != self.file:
            return False, ""
        if self.fn is not None and not (self.fn.fullmatch(access.function)
                                        or self.fn.fullmatch(access.function.rsplit("::", 1)[-1])):
            return False, ""
        if self.text is None:
            return True, ""
        text, why = sources.line(access.path, access.line)
        if text is None:
            return None, why
        return bool(self.text.search(text)), ""


@dataclass
class SourceForm:
    accesses: List[AccessClause] = field(default_factory=list)
    file: Optional[str] = None
    hazard: Optional["re.Pattern[str]"] = None
    memcpy_async: bool = False

    def match(self, key: "RecordKey", sources: SourceCache) -> Tuple[bool, Tuple[str, ...]]:
        """(matched, notes): the notes say why a record that could have matched was not checked."""
        if key.memcpy_async != self.memcpy_async or len(self.accesses) > len(key.accesses):
            return False, ()
        if self.hazard is not None and not self.hazard.fullmatch(key.hazard):
            return False, ()
        if self.file is not None and not all(basename(a.path) == self.file for a in key.accesses):
            return False, ()
        table = [[c.check(a, sources) for a in key.accesses] for c in self.accesses]
        notes: List[str] = []
        for chosen in itertools.permutations(range(len(key.accesses)), len(self.accesses)):
            states = [table[i][j] for i, j in enumerate(chosen)]
            if all(ok for ok, _ in states):
                return True, ()
            if not notes and all(ok is not False for ok, _ in states):  # only the unread source stands in the way
                notes = [why for ok, why in states if ok is None]
        return False, tuple(dict.fromkeys(notes))


@dataclass
class AllowEntry:
    line: int                # line number in the file
    tools: Tuple[str, ...]   # tools it applies to ("*": all)
    pattern: Optional["re.Pattern[str]"]   # the regex form (None: the source form)
    reason: str
    source: Optional[SourceForm] = None     # the source form

    def applies_to(self, tool: str) -> bool:
        return "*" in self.tools or tool in self.tools


SEPARATOR = " :: "
CLAUSE_SEPARATOR = " ; "


def basename(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def is_source_form(field_text: str) -> bool:
    words = field_text.split()
    return bool(words) and (words[0] in ("access", "memcpy_async") or words[0].startswith(("file=", "hazard=")))


def compile_value(value: str, what: str, where: str) -> "re.Pattern[str]":
    if not value:
        raise AllowlistError(f"{where}: empty {what}=")
    try:
        return re.compile(value)
    except re.error as e:
        raise AllowlistError(f"{where}: bad regex in {what}={value}: {e}") from None


def parse_source_form(text: str, where: str) -> SourceForm:
    form = SourceForm()
    for clause in (c.strip() for c in text.split(CLAUSE_SEPARATOR)):
        words = clause.split()
        if not words:
            raise AllowlistError(f"{where}: empty clause in '{text}'")
        if words[0] == "access":
            access = AccessClause()
            rest = words[1:]
            if rest and "=" not in rest[0]:
                kind = rest.pop(0)
                known = [k for k in ACCESS_KINDS if k.lower() == kind.lower()]
                if not known:
                    raise AllowlistError(f"{where}: access kind '{kind}': expected {', '.join(ACCESS_KINDS)}")
                access.kind = known[0]
            for word in rest:
                name, _, value = word.partition("=")
                if name not in ("fn", "text", "file") or getattr(access, name) is not None:
                    raise AllowlistError(f"{where}: '{word}' in '{clause}': expected one each of fn=, text=, file= "
                                         r"(write a space in a regex as \s)")
                if name == "file":
                    if not value:
                        raise AllowlistError(f"{where}: empty file=")
                    access.file = value
                else:
                    setattr(access, name, compile_value(value, name, where))
            form.accesses.append(access)
        elif len(words) == 1 and words[0].startswith("file=") and len(words[0]) > 5 and form.file is None:
            form.file = words[0][5:]
        elif len(words) == 1 and words[0].startswith("hazard=") and form.hazard is None:
            form.hazard = compile_value(words[0][7:], "hazard", where)
        elif words == ["memcpy_async"]:
            form.memcpy_async = True
        else:
            raise AllowlistError(f"{where}: unknown clause '{clause}': expected 'access [Read|Write|Atomic] "
                                 "[fn=..] [text=..] [file=..]', 'file=..', 'hazard=..' or 'memcpy_async', "
                                 "separated by ' ; ', each once")
    if not form.accesses:
        raise AllowlistError(f"{where}: a source-form entry needs at least one 'access' clause")
    return form


def parse_allowlist(text: str, source: str = "allowlist") -> List[AllowEntry]:
    """`<tools> :: <regex or source clauses> :: <reason>` per line; '#' comments and blank lines are skipped."""
    entries = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{source}:{number}"
        parts = line.split(SEPARATOR, 2)
        if len(parts) != 3:
            raise AllowlistError(f"{where}: expected '<tools> :: <regex> :: <reason>' or "
                                 f"'<tools> :: access ... ; access ... :: <reason>', got: {line}")
        tools_text, match, reason = (p.strip() for p in parts)
        tools = tuple(t.strip() for t in tools_text.split(",") if t.strip())
        unknown = [t for t in tools if t != "*" and t not in TOOLS]
        if not tools or unknown:
            raise AllowlistError(f"{where}: tools must be '*' or a comma-separated list of "
                                 f"{', '.join(TOOLS)}; got '{tools_text}'")
        if not match:
            raise AllowlistError(f"{where}: empty regex")
        pattern, form = None, None
        if is_source_form(match):
            form = parse_source_form(match, where)
        else:
            try:
                pattern = re.compile(match)
            except re.error as e:
                raise AllowlistError(f"{where}: bad regex '{match}': {e}") from None
        if not reason:
            raise AllowlistError(f"{where}: an entry needs the reason it is benign")
        entries.append(AllowEntry(number, tools, pattern, reason, form))
    return entries


def load_allowlist(path: Optional[str]) -> List[AllowEntry]:
    if not path:
        return []
    try:
        with open(path, encoding="utf-8") as f:
            return parse_allowlist(f.read(), path)
    except OSError as e:
        raise AllowlistError(f"cannot read the allow-list {path}: {e}") from None


def apply_allowlist(report: SanitizerReport, tool: str, entries: Sequence[AllowEntry],
                    sources: Optional[SourceCache] = None) -> None:
    """Marks each finding of `report` with the first entry that allows it (None: not allowed). A
    source-form entry is decided once per distinct record (RecordKey); a record no entry allows keeps
    the notes of source-form entries that could not read its source (record.source_notes)."""
    sources = sources if sources is not None else SourceCache()
    applicable = [e for e in entries if e.applies_to(tool)]
    decided: Dict[Tuple[int, "RecordKey"], Tuple[bool, Tuple[str, ...]]] = {}
    for record in report.findings:
        record.allowed_by, record.source_notes = None, ()
        notes: Tuple[str, ...] = ()
        for index, entry in enumerate(applicable):
            if entry.pattern is not None:
                matched = entry.pattern.search(record.text) is not None
            else:
                assert entry.source is not None
                key = record.key()
                result = decided.get((index, key))
                if result is None:
                    matched, why = entry.source.match(key, sources)
                    result = decided[(index, key)] = (matched, tuple(f"{w} (allow-list line {entry.line} has a "
                                                                     "text= clause for it)" for w in why))
                matched, why = result
                notes += why
            if matched:
                record.allowed_by = entry
                break
        if record.allowed_by is None and notes:
            record.source_notes = notes
