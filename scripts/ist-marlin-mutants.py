#!/usr/bin/env python3
"""Writes mutants of upstream IST-DASLab Marlin's kernel file (marlin_cuda_kernel.cu) into a build tree,
from the descriptions in plugins/ist-marlin/mutants.txt (the format is documented at its top), and the
fixes of upstream's two real races described there the same way (fNN: docs/perturb.md). Mutants are
planted on the description's base: upstream with the fix its `base` line names applied first, so that
each mutant's only bug is its own and the kill matrix's control (the base) raises no alarm of
upstream's real races (docs/mutation-upstream.md).

    ist-marlin-mutants.py [--description FILE] --upstream DIR|FILE --out DIR [--mutants all|u01,3,...] [--fixes all|f01,...]
    ist-marlin-mutants.py --list [--description FILE]
    ist-marlin-mutants.py --check --upstream DIR|FILE [--mutants ...] [--fixes ...]

--upstream names upstream's checkout directory (what -DTC_IST_MARLIN_SRC names) or the file itself;
its SHA-256 must be the one the description records, or nothing is written. Each selected mutant is
written to <out>/<id>/marlin_cuda_kernel.cu, only when its content changed (so that a build tool
recompiles only the mutants whose edits changed).

A description of several files (--description plugins/vllm-marlin/mutants.txt: vLLM's Marlin, whose
kernel includes one file of it from another; docs/mutation-vllm.md) takes the directory that holds
them at their repository paths (what -DTC_VLLM_MARLIN_SRC names), checks every file's SHA-256, and
writes every described file, edited or not, to <out>/<id>/<its repository path>: a mutant's copies
then include one another. Its mutants' ids may start with another letter (vNN). --out must not lie in the repository's source tree
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
from typing import Dict, Optional, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from mutant_description import *  # noqa: E402,F401,F403 (the description's types and parser, re-exported)
from mutant_description import Description, Edit, Fix, Mutant, MutantError, OPERATOR_CHARS  # noqa: E402

UPSTREAM_FILE = "marlin_cuda_kernel.cu"


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


def check_hash(data: bytes, d: Description, where: str, path: str = "") -> None:
    """`path`: which described file (default: the first, upstream_path)."""
    path = path or d.upstream_path
    commit, sha256 = d.files.get(path, (d.commit, d.sha256))
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        raise MutantError(f"{where} has sha256 {got}, but {d.path} describes {path} at {commit}, "
                          f"sha256 {sha256}: refusing a file its line numbers do not describe")


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


def mutate_files(files: Dict[str, bytes], mutant, base: Optional[Fix] = None) -> Dict[str, bytes]:
    """Every described file (path -> content) with the edits that name it of a fix, or of a mutant on
    top of `base`'s; a file no edit names stays as it is."""
    on_base = base is not None and isinstance(mutant, Mutant)
    start = {p: edited(data, [e for e in base.edits if e.file == p]) if on_base else data for p, data in files.items()}
    out = {p: edited(data, [e for e in mutant.edits if e.file == p]) for p, data in start.items()}
    if out == start:
        kind = "fix" if isinstance(mutant, Fix) else "mutant"
        raise MutantError(f"{mutant.at}: {kind} {mutant.id} changes nothing")
    return out


def base_of(d: Description) -> Optional[Fix]:
    return d.fixes[d.base] if d.base else None


def select(d: Description, spec: str, kind: str = "mutant") -> list:
    """Mutants: 'all' (or empty), or ids separated by ',' or ';': u07, 7 and 07 name the same mutant.
    Fixes (kind "fix"): 'all', '' (none), or ids: f03, 3 and 03 name the same fix."""
    items, prefix = (d.fixes, "f") if kind == "fix" else (d.mutants, d.prefix)
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


def read_upstream(d: Description, where: str) -> Dict[str, bytes]:
    """Every described file's content, its hash checked. `where`: for a description of one file, the
    file or the directory holding it (as marlin_cuda_kernel.cu); for several, the directory holding them
    at their repository paths."""
    several = len(d.files) > 1
    if several and not os.path.isdir(where):
        raise MutantError(f"--upstream {where} is not a directory: {d.path} describes {len(d.files)} files, "
                          "found at their repository paths under it")
    out = {}
    for path in d.files:
        source = os.path.join(where, path) if several else upstream_file(where)
        try:
            with open(source, "rb") as f:
                out[path] = f.read()
        except OSError as e:
            raise MutantError(f"cannot read upstream's file {source}: {e.strerror}")
        check_hash(out[path], d, source, path)
    return out


def written_path(d: Description, out: str, entry_id: str, path: str) -> str:
    """Where a described file of a mutant or fix goes: <out>/<id>/marlin_cuda_kernel.cu for a
    description of one file, else <out>/<id>/<its repository path>."""
    return os.path.join(out, entry_id, path if len(d.files) > 1 else UPSTREAM_FILE)


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


def where(entry, several: bool) -> str:
    """"lines 1, 2", or with several files "dequant.h lines 245, 283"."""
    return "; ".join(f"{os.path.basename(f) + ' ' if several else ''}lines {', '.join(map(str, lines))}"
                     for f, lines in entry.lines_by_file().items())


def listing(d: Description) -> str:
    on = f" planted on fix {d.base}" if d.base else ""
    several = len(d.files) > 1
    rows = [f"{p} at {c} (sha256 {h})" for p, (c, h) in d.files.items()]
    rows[-1] += f", {len(d.mutants)} mutants{on}:"
    for m in d.mutants.values():
        rows.append(f"{m.id}  {m.slug:<26} {m.klass}; {where(m, several)}; expect {' '.join(m.expect)}" +
                    (f"; formats {' '.join(m.formats)}" if m.formats else ""))
    if d.fixes:
        rows.append(f"{len(d.fixes)} fixes (upstream with its real races fixed; not mutants):")
    for f in d.fixes.values():
        rows.append(f"{f.id}  {f.slug:<26} fixes {' '.join(f.races)}; {where(f, several)}")
    return "\n".join(rows)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--description", default=DEFAULT_DESCRIPTION, help="the mutant descriptions (default %(default)s)")
    parser.add_argument("--upstream", help="upstream's checkout directory (holding marlin_cuda_kernel.cu) or the file; "
                                           "for a description of several files, the directory holding them")
    parser.add_argument("--out", help="directory of the mutants: <out>/<id>/marlin_cuda_kernel.cu, or <out>/<id>/<path> "
                                      "for each file of a description of several (a build tree)")
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
        files = read_upstream(d, args.upstream)
        chosen = select(d, args.mutants or "all") if args.mutants is not None or args.fixes is None else []
        fixes = select(d, args.fixes if args.fixes is not None else ("all" if args.check else ""), "fix")
        rewritten = 0
        for m in chosen + fixes:
            mutated = mutate_files(files, m, base_of(d))
            if args.out:
                rewritten += sum(write_if_changed(written_path(d, args.out, m.id, p), data) for p, data in mutated.items())
        print(f"ist-marlin-mutants: {len(chosen)} mutant(s) and {len(fixes)} fix(es) apply" +
              (f"; {rewritten} file(s) (re)written in {args.out}, the others unchanged" if args.out else ""))
        return 0
    except MutantError as e:
        print(f"ist-marlin-mutants: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
