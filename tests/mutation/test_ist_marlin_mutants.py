"""The upstream-Marlin mutant writer (scripts/ist-marlin-mutants.py) without a GPU: the description
parser, every edit kind and every refusal on a synthetic file, the fixes of upstream's real races (never
mutants), the repository's description, and - only where $TC_IST_MARLIN_SRC names upstream's checkout
(or file) - that every mutant and fix applies to it."""
import hashlib
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WRITER = os.path.join(ROOT, "scripts", "ist-marlin-mutants.py")
SPEC = importlib.util.spec_from_file_location("kit", WRITER)
kit = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(kit)

# A made-up kernel file: nothing of upstream's.
SOURCE = (b"int a = 1;\n"
          b"  int sh_s_stage = sh_s + 2;   // two\n"
          b"if (x <= y && x < y) go();\n"
          b"f(q, q) + q2;\r\n"
          b"  tail();\n")
SHA = hashlib.sha256(SOURCE).hexdigest()


def description(body: str, sha: str = SHA) -> str:
    return f"# test\nupstream k/kernel.cu abc1234 sha256 {sha}\n" + body


ENTRY = """
mutant u01 every-kind
  class: a class
  what: Every edit kind (lines 1-5).
  cause: multi_slice
  tiles: -
  expect: bound racecheck
  edit 1: replace `1` with `2`
  edit 2: replace `sh_s` with `sh`
  edit 3: replace `<` with `>`
  edit 4: replace all `q` with `r`
  edit 5: prepend `pre(); `
  edit 1: append ` // ours`
mutant u02 delete-one
  class: another
  what: Line 2 goes.
  cause: -
  tiles: -
  expect: guard
  edit 2: delete
"""


class Parser(unittest.TestCase):
    def test_entries_and_every_field(self):
        d = kit.parse_description(description(ENTRY), "t.txt")
        self.assertEqual((d.upstream_path, d.commit, d.sha256), ("k/kernel.cu", "abc1234", SHA))
        self.assertEqual(list(d.mutants), ["u01", "u02"])
        m = d.mutants["u01"]
        self.assertEqual((m.slug, m.klass, m.cause, m.tiles, m.expect), ("every-kind", "a class", {"multi_slice"}, set(),
                                                                        ["bound", "racecheck"]))
        self.assertEqual([e.kind for e in m.edits], ["replace", "replace", "replace", "replace_all", "prepend", "append"])
        self.assertEqual(m.lines(), [1, 2, 3, 4, 5])
        self.assertEqual(str(m.edits[3]), "line 4: replace all `q` with `r`")

    def refused(self, body: str, pattern: str, sha: str = SHA):
        with self.assertRaises(kit.MutantError) as e:
            kit.parse_description(description(body, sha) if sha else body, "t.txt")
        self.assertRegex(str(e.exception), pattern)
        self.assertNotIn("\n", str(e.exception))

    def test_malformed_descriptions_are_refused_with_file_and_line(self):
        entry = "mutant u01 s\n class: c\n what: w\n expect: bound\n"
        self.refused(entry + " edit 1: replace `a = 1` with `b`\n", r"t\.txt:\d+: `a = 1` is not one token")
        self.refused(entry + " edit 1: replace `int a = 1;` with `b`\n", "not one token")
        self.refused(entry + " edit 1: swap `a` and `b`\n", "cannot read the edit")
        self.refused(entry + " edit 1: prepend ``\n", "non-empty text")
        self.refused(entry + " edit 1: append `" + "x" * 101 + "`\n", "at most 100")
        self.refused(entry.replace("bound", "bounds") + " edit 1: delete\n", "'bounds' is not one of")
        self.refused(entry + " cause: Scale-Fetch\n edit 1: delete\n", "not a hint kind")
        self.refused(entry + " edit 1: delete\n edit 1: append `x`\n", "a deleted line takes no other edit")
        self.refused(entry + " edit 1: delete\n" + entry + " edit 1: delete\n", "u01 is described twice")
        self.refused(entry, "has no edit")
        self.refused("mutant u01 s\n edit 1: delete\n", "has no class, what, expect")
        self.refused(entry + " colour: red\n", "cannot read 'colour: red'")
        self.refused("mutant u01 s\n", "before the 'upstream' line", sha="")
        self.refused("# nothing\n", "no 'upstream", sha="")
        self.refused("upstream k.cu abc sha256 XYZ\n", "64 lower-case hex", sha="")
        self.refused(" class: c\n", "outside a mutant entry")
        self.refused("mutant 1 s\n", "expected 'mutant uNN")


FIXES = """
fix f01 first
  race: H1
  what: Line 1 changes.
  edit 1: replace `1` with `3`
fix f02 second
  race: H3
  what: Line 5 gets a call.
  edit 5: append ` done();`
fix f03 both
  race: H1 H3
  what: Both.
  combines: f01 f02
"""


class Fixes(unittest.TestCase):
    def setUp(self):
        self.d = kit.parse_description(description(ENTRY + FIXES), "t.txt")

    def test_fixes_are_kept_apart_from_the_mutants(self):
        self.assertEqual(list(self.d.mutants), ["u01", "u02"])
        self.assertEqual(list(self.d.fixes), ["f01", "f02", "f03"])
        self.assertEqual([m.id for m in kit.select(self.d, "all")], ["u01", "u02"], "the kill matrix never sees a fix")
        with self.assertRaisesRegex(kit.MutantError, "unknown mutant 'f01'"):
            kit.select(self.d, "f01")

    def test_a_combined_fix_applies_the_others_edits_in_order(self):
        f = self.d.fixes["f03"]
        self.assertEqual(f.races, ["H1", "H3"])
        self.assertEqual([str(e) for e in f.edits], ["line 1: replace `1` with `3`", "line 5: append ` done();`"])
        self.assertEqual(f.lines(), [1, 5])
        out = kit.mutate(SOURCE, f).decode().splitlines(keepends=True)
        self.assertEqual(out[0], "int a = 3;\n")
        self.assertEqual(out[4], "  tail(); done();\n")
        self.assertEqual(len(out), 5)

    def test_selection(self):
        self.assertEqual([f.id for f in kit.select(self.d, "all", "fix")], ["f01", "f02", "f03"])
        self.assertEqual([f.id for f in kit.select(self.d, "3, f01", "fix")], ["f03", "f01"])
        self.assertEqual(kit.select(self.d, "", "fix"), [])
        with self.assertRaisesRegex(kit.MutantError, "unknown fix 'f09'.*f01, f02, f03"):
            kit.select(self.d, "f09", "fix")

    def refused(self, body: str, pattern: str):
        with self.assertRaises(kit.MutantError) as e:
            kit.parse_description(description(body), "t.txt")
        self.assertRegex(str(e.exception), pattern)

    def test_malformed_fixes_are_refused(self):
        fix = "fix f01 s\n race: H1\n what: w\n"
        self.refused("fix 1 s\n", "expected 'fix fNN")
        self.refused(fix + " edit 1: delete\n" + fix + " edit 1: delete\n", "fix f01 is described twice")
        self.refused(fix, "fix f01 has no edit or combines")
        self.refused("fix f01 s\n what: w\n edit 1: delete\n", "has no race")
        self.refused(fix.replace("H1", "race-one") + " edit 1: delete\n", "not a list of the case study's names")
        self.refused(fix + " expect: bound\n edit 1: delete\n", "a fix takes what:, race:, combines: and edits")
        self.refused(fix + " combines: f02\n", "combines f02, which is not another fix")
        self.refused(fix + " combines: f01\n", "combines f01, which is not another fix")
        self.refused(FIXES + "fix f04 s\n race: H1\n what: w\n combines: f03\n", "combines f03, which combines others")


# A mutant planted on the base fix f02 (which appends to line 5): one edit of its own, on line 3.
BASED = """base f02
mutant u01 on-the-base
  class: a class
  what: Line 3 flips.
  cause: -
  tiles: -
  expect: bound
  edit 3: replace `<=` with `>=`
""" + FIXES


class Base(unittest.TestCase):
    def refused(self, body: str, pattern: str):
        with self.assertRaises(kit.MutantError) as e:
            kit.parse_description(description(body), "t.txt")
        self.assertRegex(str(e.exception), pattern)

    def test_a_mutant_is_planted_on_its_base(self):
        d = kit.parse_description(description(BASED), "t.txt")
        self.assertEqual(d.base, "f02")
        out = kit.mutate(SOURCE, d.mutants["u01"], kit.base_of(d)).decode().splitlines(keepends=True)
        self.assertEqual(out[2], "if (x >= y && x < y) go();\n")    # the mutant's edit
        self.assertEqual(out[4], "  tail(); done();\n")             # the base's
        self.assertEqual(kit.mutate(SOURCE, d.fixes["f01"], kit.base_of(d)), kit.mutate(SOURCE, d.fixes["f01"]),
                         "a fix is written as it is, never on the base")
        self.assertIn("planted on fix f02", kit.listing(d))

    def test_a_bad_base_is_refused(self):
        self.refused(BASED.replace("base f02", "base f09"), "base f09 is not a fix described here")
        self.refused(BASED.replace("base f02", "base 2"), "expected 'base fNN'")
        self.refused("base f01\n" + BASED, "a second 'base' line")
        self.refused(ENTRY + "base f01\n" + FIXES, "'base' must come before the first mutant")
        self.refused(BASED.replace("edit 3:", "edit 5:").replace("replace `<=` with `>=`", "prepend `x(); `"),
                     "mutant u01 edits line 5, which its base f02 edits too")


class Edits(unittest.TestCase):
    def setUp(self):
        self.d = kit.parse_description(description(ENTRY), "t.txt")

    def test_every_edit_kind_keeps_the_lines_and_their_endings(self):
        out = kit.mutate(SOURCE, self.d.mutants["u01"]).decode()
        self.assertEqual(out.splitlines(keepends=True), [
            "int a = 2; // ours\n",
            "  int sh_s_stage = sh + 2;   // two\n",       # sh_s inside sh_s_stage is not the token
            "if (x <= y && x > y) go();\n",               # < inside <= is not the token
            "f(r, r) + q2;\r\n",                          # every q, not q2; the CRLF stays
            "  pre(); tail();\n"])                        # after the indentation
        deleted = kit.mutate(SOURCE, self.d.mutants["u02"]).decode().splitlines(keepends=True)
        self.assertEqual(len(deleted), 5)
        self.assertEqual(deleted[1], "\n")

    def edit_fails(self, edit_line: str, pattern: str):
        d = kit.parse_description(description(f"mutant u03 x\n class: c\n what: w\n expect: bound\n {edit_line}\n"), "t.txt")
        with self.assertRaises(kit.MutantError) as e:
            kit.mutate(SOURCE, d.mutants["u03"])
        self.assertRegex(str(e.exception), pattern)

    def test_an_edit_that_does_not_apply_is_refused(self):
        self.edit_fails("edit 1: replace `b` with `c`", r"t\.txt:\d+: token `b` not found on line 1")
        self.edit_fails("edit 4: replace `q` with `r`", "found 2 times")
        self.edit_fails("edit 6: delete", "line 6 is out of range: upstream's file has 5 lines")
        self.edit_fails("edit 0: delete", "out of range")
        self.edit_fails("edit 2: append `x`", "// comment")
        self.edit_fails("edit 1: replace `1` with `1`", "changes nothing")

    def test_tokens_match_whole(self):
        self.assertEqual(kit.token_pattern("2").findall("0x2c 2.5 8.2 a2 (2)"), ["2"])
        self.assertEqual(kit.token_pattern("==").findall("a == b != c === d"), ["=="])
        self.assertEqual(kit.token_pattern("__syncthreads()").findall("__syncthreads(); x__syncthreads()"),
                         ["__syncthreads()"])

    def test_the_hash_names_both_files(self):
        with self.assertRaises(kit.MutantError) as e:
            kit.check_hash(SOURCE + b" ", self.d, "/x/kernel.cu")
        text = str(e.exception)
        self.assertIn(hashlib.sha256(SOURCE + b" ").hexdigest(), text)
        self.assertIn(SHA, text)
        self.assertIn("/x/kernel.cu", text)
        kit.check_hash(SOURCE, self.d, "/x/kernel.cu")

    def test_selection(self):
        self.assertEqual([m.id for m in kit.select(self.d, "all")], ["u01", "u02"])
        self.assertEqual([m.id for m in kit.select(self.d, "2;u01, 02")], ["u02", "u01"])
        with self.assertRaisesRegex(kit.MutantError, "unknown mutant 'u09'.*u01, u02"):
            kit.select(self.d, "u09")


class CommandLine(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.upstream = os.path.join(self.dir, "up")
        os.makedirs(self.upstream)
        with open(os.path.join(self.upstream, kit.UPSTREAM_FILE), "wb") as f:
            f.write(SOURCE)
        self.desc = os.path.join(self.dir, "mutants.txt")
        with open(self.desc, "w") as f:
            f.write(description(ENTRY))

    def tearDown(self):
        self.tmp.cleanup()

    def cli(self, *args):
        p = subprocess.run([sys.executable, WRITER, "--description", self.desc, *args], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def test_help_and_list(self):
        code, out, _ = self.cli("--help")
        self.assertEqual(code, 0)
        self.assertIn("--upstream", out)
        code, out, _ = self.cli("--list")
        self.assertEqual(code, 0)
        self.assertRegex(out, r"u01\s+every-kind\s+a class; lines 1, 2, 3, 4, 5; expect bound racecheck")

    def test_fixes_alone_write_no_mutant(self):
        with open(self.desc, "a") as f:
            f.write(FIXES)
        out = os.path.join(self.dir, "build", "mutants")
        code, printed, err = self.cli("--upstream", self.upstream, "--out", out, "--fixes", "f03")
        self.assertEqual(code, 0, err)
        self.assertIn("0 mutant(s) and 1 fix(es) apply", printed)
        self.assertEqual(sorted(os.listdir(out)), ["f03"])
        code, printed, _ = self.cli("--upstream", self.upstream, "--check")
        self.assertEqual(code, 0)
        self.assertIn("2 mutant(s) and 3 fix(es) apply", printed)
        code, printed, _ = self.cli("--list")
        self.assertRegex(printed, r"f03\s+both\s+fixes H1 H3; lines 1, 5")

    def test_writes_the_mutants_and_rewrites_only_what_changed(self):
        out = os.path.join(self.dir, "build", "mutants")
        self.assertEqual(self.cli("--upstream", self.upstream, "--out", out)[0], 0)
        written = os.path.join(out, "u02", kit.UPSTREAM_FILE)
        with open(written, "rb") as f:
            self.assertEqual(f.read(), SOURCE.replace(b"  int sh_s_stage = sh_s + 2;   // two\n", b"\n"))
        os.utime(written, (1, 1))
        self.assertEqual(self.cli("--upstream", os.path.join(self.upstream, kit.UPSTREAM_FILE), "--out", out,
                                  "--mutants", "2")[0], 0)
        self.assertEqual(os.stat(written).st_mtime, 1)  # unchanged content: not rewritten

    def test_refusals_are_one_line_and_exit_2(self):
        with open(os.path.join(self.upstream, kit.UPSTREAM_FILE), "ab") as f:
            f.write(b"// another version\n")
        for args, pattern in [(("--upstream", self.upstream, "--check"), "has sha256 [0-9a-f]{64}, but .* sha256 " + SHA),
                              (("--upstream", self.upstream), "one of --out or --check"),
                              (("--upstream", "/nonexistent", "--check"), "cannot read upstream's file"),
                              (("--upstream", self.upstream, "--out", os.path.join(ROOT, "plugins")),
                               "lies in the repository's source tree")]:
            code, _, err = self.cli(*args)
            self.assertEqual(code, 2, args)
            lines = [line for line in err.splitlines() if line.startswith("ist-marlin-mutants: error:")]
            self.assertEqual(len(lines), 1, err)
            self.assertRegex(lines[0], pattern)


class RepositoryDescription(unittest.TestCase):
    """plugins/ist-marlin/mutants.txt: what the kit is asked to cover."""

    def setUp(self):
        self.d = kit.load_description()

    def test_upstream_2f6d7c1_and_at_least_twelve_mutants(self):
        self.assertEqual((self.d.upstream_path, self.d.commit), ("marlin/marlin_cuda_kernel.cu", "2f6d7c1"))
        self.assertEqual(self.d.sha256, "dd7ee08c62cb0ef6d6f905bc6bbd8adfb7808a95f62127eb52707c56f72eabae")
        self.assertGreaterEqual(len(self.d.mutants), 12)
        self.assertEqual(list(self.d.mutants), [f"u{i:02d}" for i in range(1, len(self.d.mutants) + 1)])

    def test_hint_kinds_are_the_comparators(self):
        with open(os.path.join(ROOT, "compare", "include", "tilecheck", "compare", "hints.h")) as f:
            enum = f.read().split("enum class HintKind", 1)[1].split("};", 1)[0]
        kinds = set(re.findall(r"^\s*([a-z][a-z0-9_]*),", enum, re.M))
        self.assertIn("scale_fetch", kinds)
        for m in self.d.mutants.values():
            self.assertLessEqual(m.cause | m.tiles, kinds, m.id)

    def test_the_brief_classes_are_covered(self):
        classes = " | ".join(m.klass for m in self.d.mutants.values())
        for words in ("scale slot inside the reduction scratch", "group boundaries", "row predication",
                      "first/last-slice", "lock acquire", "lock release", "lock reset", "barrier in the global reduction",
                      "cp.async wait depth", "reduction precision", "epilogue rounding", "zero point", "workspace sizing"):
            self.assertIn(words, classes)
        what = {m.slug: m.what for m in self.d.mutants.values()}
        self.assertIn("added in fp16 instead of fp32", what["fp16-reduction-add"])

    def test_every_mutant_cites_its_edited_lines(self):
        for m in self.d.mutants.values():
            cited = {int(n) for n in re.findall(r"\b(\d{2,3})\b", m.what)}
            spans = {n for a, b in re.findall(r"\b(\d{3})-(\d{3})\b", m.what) for n in range(int(a), int(b) + 1)}
            self.assertLessEqual(set(m.lines()), cited | spans, f"{m.id}: {m.what}")

    def test_mutants_are_planted_on_upstream_with_both_races_fixed(self):
        self.assertEqual(self.d.base, "f03")
        self.assertIn("planted on fix f03", kit.listing(self.d))

    def test_the_fixes_of_upstreams_two_real_races(self):
        self.assertEqual({f.id: f.races for f in self.d.fixes.values()}, {"f01": ["H1"], "f02": ["H3"], "f03": ["H1", "H3"]})
        self.assertEqual(self.d.fixes["f03"].edits, self.d.fixes["f01"].edits + self.d.fixes["f02"].edits)
        self.assertTrue(all(m.id.startswith("u") for m in kit.select(self.d, "all")), "no fix among the mutants")
        for f in self.d.fixes.values():
            cited = {int(n) for n in re.findall(r"\b(\d{2,3})\b", f.what)}
            self.assertLessEqual(set(f.lines()), cited, f"{f.id}: {f.what}")

class RealUpstream(unittest.TestCase):
    """Every mutant and fix applies to upstream's own file: only where TC_IST_MARLIN_SRC names it."""

    def upstream_dir(self) -> str:
        where = os.environ.get("TC_IST_MARLIN_SRC", "")
        if not where or not os.path.isfile(kit.upstream_file(where)):
            print("skipped: TC_IST_MARLIN_SRC does not name upstream's checkout (CI has none)")
            self.skipTest("TC_IST_MARLIN_SRC does not name upstream's checkout")
        return os.path.dirname(kit.upstream_file(where))

    def test_every_mutant_applies(self):
        where = os.environ.get("TC_IST_MARLIN_SRC", "")
        if not where:
            print("skipped: TC_IST_MARLIN_SRC is not set (upstream's checkout is not here; CI has none)")
            self.skipTest("TC_IST_MARLIN_SRC is not set")
        path = kit.upstream_file(where)
        if not os.path.isfile(path):
            print(f"skipped: {path} does not exist")
            self.skipTest(f"{path} does not exist")
        with open(path, "rb") as f:
            data = f.read()
        d = kit.load_description()
        if hashlib.sha256(data).hexdigest() != d.sha256:
            print(f"skipped: {path} is not upstream at {d.commit} (another sha256); the build refuses it too")
            self.skipTest("another version of upstream's file")
        lines = data.splitlines()
        base = kit.base_of(d)
        for m in list(d.mutants.values()) + list(d.fixes.values()):
            out = kit.mutate(data, m, base).splitlines()
            self.assertEqual(len(out), len(lines), m.id)
            changed = [i + 1 for i, (a, b) in enumerate(zip(lines, out)) if a != b]
            planted_on = base.lines() if base is not None and m.id.startswith("u") else []
            self.assertEqual(changed, sorted(set(m.lines()) | set(planted_on)), m.id)


if __name__ == "__main__":
    sys.exit(unittest.main(verbosity=2))
