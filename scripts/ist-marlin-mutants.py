#!/usr/bin/env python3
"""Writes mutants of upstream IST-DASLab Marlin's kernel file (marlin_cuda_kernel.cu) into a build tree,
from the descriptions in plugins/ist-marlin/mutants.txt (the format is documented at its top), and the
fixes of upstream's two real races described there the same way (fNN: docs/perturb.md). Mutants are
planted on the description's base: upstream with the fix its `base` line names applied first, so that
each mutant's only bug is its own and the kill matrix's control (the base) raises no alarm of
upstream's real races (docs/mutation-upstream.md).

    ist-marlin-mutants.py --upstream DIR|FILE --out DIR [--mutants all|u01,3,...] [--fixes all|f01,...]
    ist-marlin-mutants.py --list [--description FILE]
    ist-marlin-mutants.py --check --upstream DIR|FILE [--mutants ...] [--fixes ...]

--upstream names upstream's checkout directory (what -DTC_IST_MARLIN_SRC names) or the file itself;
its SHA-256 must be the one the description records, or nothing is written. Each selected mutant is
written to <out>/<id>/marlin_cuda_kernel.cu, only when its content changed (so that a build tool
recompiles only the mutants whose edits changed). --out must not lie in the repository's source tree
(a build tree inside it, with its CMakeCache.txt, is fine): upstream's text never enters the
repository. --fixes selects fixes (written like mutants; alone, it writes no mutant). --check
applies the selected mutants and fixes (all by default) without writing anything. --list prints the
mutants, then the fixes. A fix is never a mutant: scripts/mutation-matrix.py reads only the mutants.

Exit status: 0 done; 2 anything that stops it (a malformed description, another hash, an edit that does not apply,
a bad argument), with a one-line message naming file and line. Standard library only; docs/mutation-upstream.md.
"""
import argparse
import hashlib
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DESCRIPTION = os.path.join(ROOT, "plugins", "ist-marlin", "mutants.txt")
UPSTREAM_FILE = "marlin_cuda_kernel.cu"
# The alarms an `expect:` line may name: the kill matrix's columns (scripts/mutation-matrix.py).
ALARMS = ("bound", "exact", "stats", "nonfinite", "unwritten", "guard", "workspace", "fault", "error", "hang",
          "crash", "determinism", "racecheck", "memcheck")
# One token of upstream's text: an identifier (optionally called with no arguments), a number, or a
# short operator. Nothing longer may be named, so that no statement of upstream's is ever stored.
TOKEN = re.compile(r"[A-Za-z_]\w*(\(\))?|0[xX][0-9A-Fa-f]+|[0-9]+|[-+*/%<>=!&|^~?:]{1,3}")
MAX_TOKEN = 32
MAX_TEXT = 100
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

    def __str__(self) -> str:
        if self.kind in ("replace", "replace_all"):
            which = "replace all" if self.kind == "replace_all" else "replace"
            return f"line {self.line}: {which} `{self.token}` with `{self.text}`"
        return f"line {self.line}: {self.kind}" + (f" `{self.text}`" if self.text else "")


class EditedLines:
    def lines(self) -> List[int]:
        return sorted({e.line for e in self.edits})


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
    for number, raw in enumerate(text.splitlines(), 1):
        at = f"{path}:{number}"
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        words = line.split()
        if words[0] == "upstream":
            if len(words) != 5 or words[3] != "sha256" or not re.fullmatch(r"[0-9a-f]{64}", words[4]):
                raise MutantError(f"{at}: expected 'upstream <path> <commit> sha256 <64 lower-case hex digits>'")
            if d.sha256:
                raise MutantError(f"{at}: a second 'upstream' line")
            d.upstream_path, d.commit, d.sha256 = words[1], words[2], words[4]
        elif words[0] == "base":
            if len(words) != 2 or not re.fullmatch(r"f\d{2}", words[1]):
                raise MutantError(f"{at}: expected 'base fNN' (the fix every mutant is planted on)")
            if d.base:
                raise MutantError(f"{at}: a second 'base' line")
            if d.mutants:
                raise MutantError(f"{at}: 'base' must come before the first mutant")
            d.base, base_at = words[1], at
        elif words[0] in ("mutant", "fix"):  # an entry: mutant uNN <slug> or fix fNN <slug>
            kind, prefix = words[0], "u" if words[0] == "mutant" else "f"
            entries, entry_type = (d.mutants, Mutant) if kind == "mutant" else (d.fixes, Fix)
            if not d.sha256:
                raise MutantError(f"{at}: a {kind} before the 'upstream' line that identifies the file")
            if len(words) != 3 or not re.fullmatch(prefix + r"\d{2}", words[1]) or not re.fullmatch(r"[a-z0-9-]+", words[2]):
                raise MutantError(f"{at}: expected '{kind} {prefix}NN <slug of a-z, 0-9, ->'")
            if words[1] in entries:
                raise MutantError(f"{at}: {kind} {words[1]} is described twice")
            current = entries[words[1]] = entry_type(words[1], words[2], at)
        elif current is None:
            raise MutantError(f"{at}: '{words[0]}' outside a mutant entry")
        elif EDIT.match(line):
            m = EDIT.match(line)
            current.edits.append(parse_edit(m.group(2).strip(), int(m.group(1)), at))
        elif isinstance(current, Fix) and ":" in line:
            key, value = (s.strip() for s in line.split(":", 1))
            parse_fix_field(current, key, value, at)
        elif ":" in line and line.split(":", 1)[0] in ("class", "what", "cause", "tiles", "expect"):
            key, value = (s.strip() for s in line.split(":", 1))
            if key in ("class", "what"):
                setattr(current, "klass" if key == "class" else "what", value)
            elif key == "expect":
                current.expect = parse_words(value, at, ALARMS)
            else:
                setattr(current, key, set(parse_words(value, at)))
        else:
            raise MutantError(f"{at}: cannot read '{line}' (expected class:, what:, cause:, tiles:, expect: or edit N:)")
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
        fixed = set(d.fixes[d.base].lines())
        for m in d.mutants.values():
            for e in m.edits:
                if e.line in fixed:
                    raise MutantError(f"{e.at}: mutant {m.id} edits line {e.line}, which its base {d.base} edits too: "
                                      "plant it on another line")
    for m in list(d.mutants.values()) + list(d.fixes.values()):
        for e in m.edits:
            if e.kind == "delete" and any(o.line == e.line and o is not e for o in m.edits):
                raise MutantError(f"{e.at}: a deleted line takes no other edit")
    return d


def load_description(path: str = DEFAULT_DESCRIPTION) -> Description:
    try:
        with open(path, encoding="utf-8") as f:
            return parse_description(f.read(), path)
    except OSError as e:
        raise MutantError(f"cannot read the description {path}: {e.strerror}")


def token_pattern(token: str) -> "re.Pattern[str]":
    """The token as a whole: not inside a longer identifier or number, nor a longer operator."""
    if token[0] in OPERATOR_CHARS:
        edge = re.escape(OPERATOR_CHARS)
        return re.compile(rf"(?<![{edge}]){re.escape(token)}(?![{edge}])")
    tail = "" if token.endswith("()") else r"(?![\w.])"
    return re.compile(rf"(?<![\w.]){re.escape(token)}{tail}")


def apply_edit(content: str, edit: Edit) -> str:
    """The line's content (without its line ending) after the edit."""
    if edit.kind == "delete":
        return ""
    if edit.kind == "prepend":  # after the indentation, so that the line still reads as code
        indent = len(content) - len(content.lstrip())
        return content[:indent] + edit.text + content[indent:]
    if edit.kind == "append":
        if "//" in content:
            raise MutantError(f"{edit.at}: cannot append to line {edit.line}: "
                              "it holds a // comment that would swallow the text")
        return content + edit.text
    found = len(token_pattern(edit.token).findall(content))
    if found == 0 or (edit.kind == "replace" and found > 1):
        what = "not found" if found == 0 else f"found {found} times (use 'replace all', or another token)"
        raise MutantError(f"{edit.at}: token `{edit.token}` {what} on line {edit.line} of upstream's file")
    return token_pattern(edit.token).sub(lambda _: edit.text, content)


def check_hash(data: bytes, d: Description, where: str) -> None:
    got = hashlib.sha256(data).hexdigest()
    if got != d.sha256:
        raise MutantError(f"{where} has sha256 {got}, but {d.path} describes {d.upstream_path} at {d.commit}, "
                          f"sha256 {d.sha256}: refusing a file its line numbers do not describe")


def edited(data: bytes, edits: Sequence[Edit]) -> bytes:
    """Upstream's file with `edits`; every line keeps its number (and its line ending)."""
    lines = data.decode("utf-8").splitlines(keepends=True)
    for edit in edits:
        if not 1 <= edit.line <= len(lines):
            raise MutantError(f"{edit.at}: line {edit.line} is out of range: upstream's file has {len(lines)} lines")
        line = lines[edit.line - 1]
        body = line.rstrip("\r\n")
        lines[edit.line - 1] = apply_edit(body, edit) + line[len(body):]
    return "".join(lines).encode("utf-8")


def mutate(data: bytes, mutant, base: Optional[Fix] = None) -> bytes:
    """Upstream's file with a fix's edits, or a mutant's on top of `base` (a fix, or None: upstream as it is)."""
    start = edited(data, base.edits) if base is not None and isinstance(mutant, Mutant) else data
    out = edited(start, mutant.edits)
    if out == start:
        kind = "fix" if isinstance(mutant, Fix) else "mutant"
        raise MutantError(f"{mutant.at}: {kind} {mutant.id} changes nothing")
    return out


def base_of(d: Description) -> Optional[Fix]:
    return d.fixes[d.base] if d.base else None


def select(d: Description, spec: str, kind: str = "mutant") -> list:
    """Mutants: 'all' (or empty), or ids separated by ',' or ';': u07, 7 and 07 name the same mutant.
    Fixes (kind "fix"): 'all', '' (none), or ids: f03, 3 and 03 name the same fix."""
    items, prefix = (d.fixes, "f") if kind == "fix" else (d.mutants, "u")
    if spec.strip() == "all" or (kind == "mutant" and not spec.strip()):
        return list(items.values())
    chosen = []
    for item in filter(None, (s.strip() for s in re.split(r"[,;\s]+", spec))):
        m = re.fullmatch(rf"{prefix}?(\d+)", item)
        key = f"{prefix}{int(m.group(1)):02d}" if m else item
        if key not in items:
            raise MutantError(f"unknown {kind} '{item}': {d.path} describes {', '.join(items) or 'none'}")
        if items[key] not in chosen:
            chosen.append(items[key])
    return chosen


def upstream_file(path: str) -> str:
    return os.path.join(path, UPSTREAM_FILE) if os.path.isdir(path) else path


def inside_source_tree(out: str) -> bool:
    """True when `out` lies in the repository but in no build tree (a directory with CMakeCache.txt)."""
    root, here = os.path.realpath(ROOT), os.path.realpath(out)
    if os.path.commonpath([root, here]) != root:
        return False
    while here != root:
        if os.path.isfile(os.path.join(here, "CMakeCache.txt")):
            return False
        here = os.path.dirname(here)
    return True


def write_if_changed(path: str, data: bytes) -> bool:
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return False
    except OSError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return True


def listing(d: Description) -> str:
    on = f" planted on fix {d.base}" if d.base else ""
    rows = [f"{d.upstream_path} at {d.commit} (sha256 {d.sha256}), {len(d.mutants)} mutants{on}:"]
    for m in d.mutants.values():
        rows.append(f"{m.id}  {m.slug:<26} {m.klass}; lines {', '.join(map(str, m.lines()))}; "
                    f"expect {' '.join(m.expect)}")
    if d.fixes:
        rows.append(f"{len(d.fixes)} fixes (upstream with its real races fixed; not mutants):")
    for f in d.fixes.values():
        rows.append(f"{f.id}  {f.slug:<26} fixes {' '.join(f.races)}; lines {', '.join(map(str, f.lines()))}")
    return "\n".join(rows)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--description", default=DEFAULT_DESCRIPTION, help="the mutant descriptions (default %(default)s)")
    parser.add_argument("--upstream", help="upstream's checkout directory (holding marlin_cuda_kernel.cu) or the file")
    parser.add_argument("--out", help="directory of the mutants: <out>/<id>/marlin_cuda_kernel.cu (a build tree)")
    parser.add_argument("--mutants", default=None,
                        help="'all' or ids separated by ',' or ';' (u01, 1); default: all, or none when --fixes is given")
    parser.add_argument("--fixes", default=None,
                        help="'all' or ids separated by ',' or ';' (f03, 3); default: none (--check: all)")
    parser.add_argument("--list", action="store_true", help="print the mutants and exit")
    parser.add_argument("--check", action="store_true", help="apply the mutants without writing them")
    args = parser.parse_args(argv)
    try:
        d = load_description(args.description)
        if args.list:
            print(listing(d))
            return 0
        if not args.upstream or not (args.out or args.check):
            parser.print_usage(sys.stderr)
            raise MutantError("--upstream and one of --out or --check are needed (or --list)")
        if args.out and inside_source_tree(args.out):
            raise MutantError(f"--out {args.out} lies in the repository's source tree: mutants go into a build tree")
        source = upstream_file(args.upstream)
        try:
            with open(source, "rb") as f:
                data = f.read()
        except OSError as e:
            raise MutantError(f"cannot read upstream's file {source}: {e.strerror}")
        check_hash(data, d, source)
        chosen = select(d, args.mutants or "all") if args.mutants is not None or args.fixes is None else []
        fixes = select(d, args.fixes if args.fixes is not None else ("all" if args.check else ""), "fix")
        rewritten = 0
        for m in chosen + fixes:
            mutated = mutate(data, m, base_of(d))
            if args.out:
                rewritten += write_if_changed(os.path.join(args.out, m.id, UPSTREAM_FILE), mutated)
        print(f"ist-marlin-mutants: {len(chosen)} mutant(s) and {len(fixes)} fix(es) apply" +
              (f"; {rewritten} (re)written in {args.out}, the others unchanged" if args.out else ""))
        return 0
    except MutantError as e:
        print(f"ist-marlin-mutants: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
