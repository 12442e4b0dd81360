"""The description of a peer kernel's mutants and fixes (plugins/ist-marlin/mutants.txt for upstream
Marlin, plugins/vllm-marlin/mutants.txt for vLLM's; the format is documented at the top of the first, and
what a description of several files adds at the top of the second): its parser and data types, for the
writer (ist-marlin-mutants.py) and the kill matrix (mutation-matrix.py). Standard library only."""
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DESCRIPTION = os.path.join(ROOT, "plugins", "ist-marlin", "mutants.txt")
# The alarms an `expect:` line may name: the kill matrix's columns (scripts/mutation-matrix.py).
ALARMS = ("bound", "exact", "stats", "nonfinite", "unwritten", "guard", "workspace", "fault", "error", "hang",
          "crash", "determinism", "racecheck", "memcheck")
# One token of upstream's text: an identifier (optionally called with no arguments), a number (a float
# literal such as 8388736.f included), or a short operator. Nothing longer may be named, so that no
# statement of upstream's is ever stored.
TOKEN = re.compile(r"[A-Za-z_]\w*(\(\))?|0[xX][0-9A-Fa-f]+|[0-9]+\.[0-9]*[fF]?|[0-9]+|[-+*/%<>=!&|^~?:]{1,3}")
MAX_TOKEN = 32
MAX_TEXT = 100
# A format a mutant acts on (`formats:`), as plugin ABI 2 names it: fp16-uint8b128, bf16-uint4.
FORMAT = re.compile(r"[a-z0-9]+(-[a-z0-9]+)+")
# A fix's list fields: what each word must be.
FIX_LISTS = {"race": (r"H\d+", "a list of the case study's names (H1, H3)"), "combines": (r"f\d{2}", "a list of fix ids")}
OPERATOR_CHARS = "-+*/%<>=!&|^~?:"
EDIT = re.compile(r"edit\s+(\d+)\s*:\s*(.*)$")
QUOTED = r"`([^`]*)`"
EDIT_FORMS = [
    ("replace_all", re.compile(rf"replace\s+all\s+{QUOTED}\s+with\s+{QUOTED}$")),
    ("replace", re.compile(rf"replace\s+{QUOTED}\s+with\s+{QUOTED}$")),
    ("delete", re.compile(r"delete$")),
    ("prepend", re.compile(rf"prepend\s+{QUOTED}$")),
    ("append", re.compile(rf"append\s+{QUOTED}$")),
]


class MutantError(Exception):
    """Anything that stops the writer; the message is one line."""


@dataclass
class Edit:
    line: int          # line of upstream's file, from 1
    kind: str          # replace, replace_all, delete, prepend, append
    token: str = ""    # replace*: the token of upstream's line
    text: str = ""     # replace*: what replaces it; prepend/append: what is added
    at: str = ""       # description file:line, for messages
    file: str = ""     # the upstream file it edits (its path in upstream's repository)

    def __str__(self) -> str:
        if self.kind in ("replace", "replace_all"):
            which = "replace all" if self.kind == "replace_all" else "replace"
            return f"line {self.line}: {which} `{self.token}` with `{self.text}`"
        return f"line {self.line}: {self.kind}" + (f" `{self.text}`" if self.text else "")


class EditedLines:
    def lines(self) -> List[int]:
        return sorted({e.line for e in self.edits})

    def lines_by_file(self) -> Dict[str, List[int]]:
        """The edited lines of each file, files in the order of their first edit."""
        out: Dict[str, List[int]] = {}
        for e in self.edits:
            out.setdefault(e.file, [])
        return {f: sorted({e.line for e in self.edits if e.file == f}) for f in out}


@dataclass
class Mutant(EditedLines):
    id: str
    slug: str
    at: str
    klass: str = ""
    what: str = ""
    cause: set = field(default_factory=set)
    tiles: set = field(default_factory=set)
    expect: List[str] = field(default_factory=list)
    edits: List[Edit] = field(default_factory=list)
    formats: List[str] = field(default_factory=list)  # the formats it acts on (optional; vLLM's kit builds only those)


@dataclass
class Fix(EditedLines):
    """Upstream with one of its real races fixed, or several (`combines`); written like a mutant."""
    id: str
    slug: str
    at: str
    what: str = ""
    races: List[str] = field(default_factory=list)     # the case study's names: H1, H3
    combines: List[str] = field(default_factory=list)  # other fixes whose edits come first
    edits: List[Edit] = field(default_factory=list)


@dataclass
class Description:
    path: str
    upstream_path: str = ""
    commit: str = ""
    sha256: str = ""
    base: str = ""  # the fix every mutant is planted on ("" : upstream as it is)
    mutants: Dict[str, Mutant] = field(default_factory=dict)   # in the file's order
    fixes: Dict[str, Fix] = field(default_factory=dict)       # in the file's order
    # Every upstream file described: path -> (commit, sha256), in the file's order; the first is also
    # upstream_path, commit and sha256 (a description of one file, as upstream Marlin's, has only it).
    files: Dict[str, Tuple[str, str]] = field(default_factory=dict)

    @property
    def prefix(self) -> str:
        """The letter of the mutants' ids: u (upstream Marlin), v (vLLM's)."""
        return next(iter(self.mutants))[0] if self.mutants else "u"


def parse_edit(rest: str, line: int, at: str) -> Edit:
    for kind, form in EDIT_FORMS:
        m = form.match(rest)
        if not m:
            continue
        groups = m.groups()
        if kind in ("replace", "replace_all"):
            token, text = groups
            if not TOKEN.fullmatch(token) or len(token) > MAX_TOKEN:
                raise MutantError(f"{at}: `{token}` is not one token (an identifier, number, short operator or name()); "
                                  "an edit names at most one token of upstream's line")
            edit = Edit(line, kind, token, text, at)
        else:
            edit = Edit(line, kind, "", groups[0] if groups else "", at)
            if kind != "delete" and not edit.text.strip():
                raise MutantError(f"{at}: {kind} needs a non-empty text")
        if len(edit.text) > MAX_TEXT:
            raise MutantError(f"{at}: the text is {len(edit.text)} characters; at most {MAX_TEXT}")
        return edit
    raise MutantError(f"{at}: cannot read the edit '{rest}' (expected replace [all] `A` with `B`, delete, "
                      "prepend `T` or append `T`)")


def parse_words(value: str, at: str, allowed: Optional[Sequence[str]] = None) -> List[str]:
    words = [] if value.strip() == "-" else value.split()
    for w in words:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", w) or (allowed is not None and w not in allowed):
            raise MutantError(f"{at}: '{w}' is not " + (f"one of {', '.join(allowed)}" if allowed else "a hint kind"))
    return words


def parse_fix_field(current: Fix, key: str, value: str, at: str) -> None:
    if key not in ("what", *FIX_LISTS):
        raise MutantError(f"{at}: a fix takes what:, race:, combines: and edits, not {key}:")
    if key == "what":
        current.what = value
        return
    pattern, expected = FIX_LISTS[key]
    if not value.split() or not all(re.fullmatch(pattern, w) for w in value.split()):
        raise MutantError(f"{at}: {key}: '{value}' is not {expected}")
    setattr(current, "races" if key == "race" else "combines", value.split())


def resolve_fixes(d: Description) -> None:
    """Every fix complete; a combined fix gets the edits of the fixes it combines, in order, first."""
    for f in d.fixes.values():
        own, f.edits = f.edits, []
        for other in f.combines:
            if other not in d.fixes or other == f.id:
                raise MutantError(f"{f.at}: fix {f.id} combines {other}, which is not another fix described here")
            if d.fixes[other].combines:
                raise MutantError(f"{f.at}: fix {f.id} combines {other}, which combines others itself")
            f.edits += d.fixes[other].edits
        f.edits += own
        missing = [k for k, v in (("what", f.what), ("race", f.races), ("edit or combines", f.edits)) if not v]
        if missing:
            raise MutantError(f"{f.at}: fix {f.id} has no {', '.join(missing)}")


def parse_description(text: str, path: str) -> Description:
    d = Description(path)
    current = None  # the Mutant or Fix being read
    edited_file = ""  # the file its edits apply to (set by the entry, or its `file` lines)
    for number, raw in enumerate(text.splitlines(), 1):
        at = f"{path}:{number}"
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        words = line.split()
        if words[0] == "upstream":  # one per file described: a kernel of several files has several
            if len(words) != 5 or words[3] != "sha256" or not re.fullmatch(r"[0-9a-f]{64}", words[4]):
                raise MutantError(f"{at}: expected 'upstream <path> <commit> sha256 <64 lower-case hex digits>'")
            if words[1] in d.files:
                raise MutantError(f"{at}: a second 'upstream' line for {words[1]}")
            if d.mutants or d.fixes:
                raise MutantError(f"{at}: 'upstream' lines must come before the first entry")
            d.files[words[1]] = (words[2], words[4])
            if not d.sha256:
                d.upstream_path, d.commit, d.sha256 = words[1], words[2], words[4]
        elif words[0] == "base":
            if len(words) != 2 or not re.fullmatch(r"f\d{2}", words[1]):
                raise MutantError(f"{at}: expected 'base fNN' (the fix every mutant is planted on)")
            if d.base:
                raise MutantError(f"{at}: a second 'base' line")
            if d.mutants:
                raise MutantError(f"{at}: 'base' must come before the first mutant")
            d.base, base_at = words[1], at
        elif words[0] in ("mutant", "fix"):  # an entry: mutant uNN <slug> (any letter but f: vNN) or fix fNN <slug>
            kind = words[0]
            prefix = "f" if kind == "fix" else d.prefix if d.mutants else "[a-eg-z]"  # one letter for all mutants
            entries, entry_type = (d.mutants, Mutant) if kind == "mutant" else (d.fixes, Fix)
            if not d.sha256:
                raise MutantError(f"{at}: a {kind} before the 'upstream' line that identifies the file")
            if len(words) != 3 or not re.fullmatch(prefix + r"\d{2}", words[1]) or not re.fullmatch(r"[a-z0-9-]+", words[2]):
                letter = "f" if kind == "fix" else "u"
                raise MutantError(f"{at}: expected '{kind} {letter}NN <slug of a-z, 0-9, ->'" +
                                  (f" (every mutant's id here starts with {d.prefix})" if kind == "mutant" and d.mutants else ""))
            if words[1] in entries:
                raise MutantError(f"{at}: {kind} {words[1]} is described twice")
            current = entries[words[1]] = entry_type(words[1], words[2], at)
            edited_file = d.upstream_path if len(d.files) == 1 else ""
        elif current is None:
            raise MutantError(f"{at}: '{words[0]}' outside a mutant entry")
        elif words[0] == "file":  # the file the entry's next edits apply to
            if len(words) != 2 or words[1] not in d.files:
                raise MutantError(f"{at}: expected 'file <path>' naming an upstream line's file ({', '.join(d.files)})")
            edited_file = words[1]
        elif EDIT.match(line):
            m = EDIT.match(line)
            if not edited_file:
                raise MutantError(f"{at}: this description has several files: 'file <path>' must precede the edits")
            current.edits.append(parse_edit(m.group(2).strip(), int(m.group(1)), at))
            current.edits[-1].file = edited_file
        elif isinstance(current, Fix) and ":" in line:
            key, value = (s.strip() for s in line.split(":", 1))
            parse_fix_field(current, key, value, at)
        elif ":" in line and line.split(":", 1)[0] in ("class", "what", "cause", "tiles", "expect", "formats"):
            key, value = (s.strip() for s in line.split(":", 1))
            if key in ("class", "what"):
                setattr(current, "klass" if key == "class" else "what", value)
            elif key == "expect":
                current.expect = parse_words(value, at, ALARMS)
            elif key == "formats":
                current.formats = value.split()
                if not current.formats or not all(FORMAT.fullmatch(f) for f in current.formats):
                    raise MutantError(f"{at}: formats: '{value}' is not a list of formats such as fp16-uint8b128")
            else:
                setattr(current, key, set(parse_words(value, at)))
        else:
            raise MutantError(f"{at}: cannot read '{line}' (expected class:, what:, cause:, tiles:, expect:, formats:, "
                              "file or edit N:)")
    if not d.sha256:
        raise MutantError(f"{path}: no 'upstream <path> <commit> sha256 <hash>' line")
    for m in d.mutants.values():
        missing = [k for k, v in (("class", m.klass), ("what", m.what), ("expect", m.expect), ("edit", m.edits)) if not v]
        if missing:
            raise MutantError(f"{m.at}: mutant {m.id} has no {', '.join(missing)}")
    resolve_fixes(d)
    if d.base:
        if d.base not in d.fixes:
            raise MutantError(f"{base_at}: base {d.base} is not a fix described here ({', '.join(d.fixes) or 'none'})")
        fixed = {(e.file, e.line) for e in d.fixes[d.base].edits}
        for m in d.mutants.values():
            for e in m.edits:
                if (e.file, e.line) in fixed:
                    raise MutantError(f"{e.at}: mutant {m.id} edits line {e.line}, which its base {d.base} edits too: "
                                      "plant it on another line")
    for m in list(d.mutants.values()) + list(d.fixes.values()):
        for e in m.edits:
            if e.kind == "delete" and any((o.file, o.line) == (e.file, e.line) and o is not e for o in m.edits):
                raise MutantError(f"{e.at}: a deleted line takes no other edit")
    return d


def load_description(path: str = DEFAULT_DESCRIPTION) -> Description:
    try:
        with open(path, encoding="utf-8") as f:
            return parse_description(f.read(), path)
    except OSError as e:
        raise MutantError(f"cannot read the description {path}: {e.strerror}")
