"""The mutation kit on a kernel of several files (vLLM's Marlin: plugins/vllm-marlin/mutants.txt) without
a GPU: `upstream` lines for several files, an entry's `file` lines, `formats:`, mutant ids of another
letter, the writer's tree of every described file, and the refusals, on made-up files; the repository's
description; and - only where $TC_VLLM_MARLIN_SRC names a directory of vLLM's files - that every mutant
applies to vLLM's own files and changes only its lines."""
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
DESCRIPTION = os.path.join(ROOT, "plugins", "vllm-marlin", "mutants.txt")

# Two made-up files: nothing of vLLM's.
HEADER = b"const int K = 0x64806480;\nx -= 8388736.f;\n"
TEMPLATE = b'#include "h.h"\nint z = zp;\n  use(z);\n'
FILES = {"src/k/h.h": HEADER, "src/k/t.h": TEMPLATE}


def upstream_lines() -> str:
    return "".join(f"upstream {p} abc{i} sha256 {hashlib.sha256(d).hexdigest()}\n" for i, (p, d) in enumerate(FILES.items()))


ENTRIES = """
mutant v01 bias
  class: a bias
  what: Lines 1 and 2 of h.h.
  cause: -
  tiles: whole_tiles
  expect: bound
  formats: fp16-uint8b128 bf16-uint8b128
  file src/k/h.h
  edit 1: replace `0x64806480` with `0x64086408`
  edit 2: replace `8388736.f` with `8388616.f`
mutant v02 both-files
  class: two files
  what: Line 2 of t.h, then line 1 of h.h.
  cause: -
  tiles: -
  expect: bound
  file src/k/t.h
  edit 2: append ` z += 1;`
  file src/k/h.h
  edit 1: replace `K` with `L`
"""


class SeveralFiles(unittest.TestCase):
    def setUp(self):
        self.d = kit.parse_description(upstream_lines() + ENTRIES, "t.txt")

    def test_files_formats_and_edits_by_file(self):
        self.assertEqual(list(self.d.files), ["src/k/h.h", "src/k/t.h"])
        self.assertEqual((self.d.upstream_path, self.d.commit), ("src/k/h.h", "abc0"))  # the first file's
        self.assertEqual(self.d.prefix, "v")
        v01, v02 = self.d.mutants["v01"], self.d.mutants["v02"]
        self.assertEqual(v01.formats, ["fp16-uint8b128", "bf16-uint8b128"])
        self.assertEqual(v02.formats, [])
        self.assertEqual(v02.lines_by_file(), {"src/k/t.h": [2], "src/k/h.h": [1]})
        self.assertIn("v02  both-files", kit.listing(self.d))
        self.assertIn("t.h lines 2; h.h lines 1", kit.listing(self.d))
        self.assertEqual([m.id for m in kit.select(self.d, "2,v01")], ["v02", "v01"])
        with self.assertRaisesRegex(kit.MutantError, "unknown mutant 'u01'"):
            kit.select(self.d, "u01")

    def test_each_edit_applies_to_its_own_file(self):
        out = kit.mutate_files(FILES, self.d.mutants["v01"])
        self.assertEqual(out["src/k/h.h"], b"const int K = 0x64086408;\nx -= 8388616.f;\n")
        self.assertEqual(out["src/k/t.h"], TEMPLATE)
        out = kit.mutate_files(FILES, self.d.mutants["v02"])
        self.assertEqual(out["src/k/t.h"], b'#include "h.h"\nint z = zp; z += 1;\n  use(z);\n')
        self.assertTrue(out["src/k/h.h"].startswith(b"const int L ="))

    def test_a_float_literal_is_one_token_and_matches_whole(self):
        self.assertEqual(kit.token_pattern("8388736.f").findall("a -= 8388736.f; b = 18388736.f; 8388736.ff"),
                         ["8388736.f"])
        self.assertEqual(kit.token_pattern("8388736").findall("8388736.f"), [], "a number is not a float's prefix")

    def refused(self, text: str, pattern: str):
        with self.assertRaises(kit.MutantError) as e:
            kit.parse_description(text, "t.txt")
        self.assertRegex(str(e.exception), pattern)
        self.assertNotIn("\n", str(e.exception))

    def test_malformed_descriptions_are_refused(self):
        head = upstream_lines()
        entry = "mutant v01 s\n class: c\n what: w\n expect: bound\n"
        self.refused(head + entry + " edit 1: delete\n", r"t\.txt:\d+: this description has several files: 'file <path>'")
        self.refused(head + entry + " file src/k/x.h\n", "naming an upstream line's file .src/k/h.h, src/k/t.h")
        self.refused(head + entry + " file src/k/h.h\n edit 1: delete\nupstream src/k/y.h c sha256 " + "0" * 64 + "\n",
                     "'upstream' lines must come before the first entry")
        self.refused(head + head, "a second 'upstream' line for src/k/h.h")
        self.refused(head + entry + " formats: fp16\n", "not a list of formats")
        self.refused(head + ENTRIES + "mutant u03 other-letter\n", "every mutant's id here starts with v")
        self.refused(head + "mutant f01 s\n", "expected 'mutant uNN")


class Writer(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "vllm")
        for path, data in FILES.items():
            os.makedirs(os.path.dirname(os.path.join(self.root, path)), exist_ok=True)
            with open(os.path.join(self.root, path), "wb") as f:
                f.write(data)
        self.desc = os.path.join(self.tmp.name, "mutants.txt")
        with open(self.desc, "w") as f:
            f.write(upstream_lines() + ENTRIES)

    def tearDown(self):
        self.tmp.cleanup()

    def cli(self, *args):
        p = subprocess.run([sys.executable, WRITER, "--description", self.desc, *args], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def test_every_described_file_is_written_at_its_repository_path(self):
        out = os.path.join(self.tmp.name, "build", "mutants")
        code, printed, err = self.cli("--upstream", self.root, "--out", out, "--mutants", "v01")
        self.assertEqual(code, 0, err)
        self.assertIn("1 mutant(s) and 0 fix(es) apply; 2 file(s) (re)written", printed)
        with open(os.path.join(out, "v01", "src", "k", "h.h"), "rb") as f:
            self.assertIn(b"0x64086408", f.read())
        with open(os.path.join(out, "v01", "src", "k", "t.h"), "rb") as f:  # unedited, beside it
            self.assertEqual(f.read(), TEMPLATE)

    def test_refusals_name_the_file(self):
        with open(os.path.join(self.root, "src", "k", "t.h"), "ab") as f:
            f.write(b"// another version\n")
        code, _, err = self.cli("--upstream", self.root, "--check")
        self.assertEqual(code, 2)
        self.assertRegex(err, r"t\.h has sha256 [0-9a-f]{64}, but .* describes src/k/t\.h at abc1")
        code, _, err = self.cli("--upstream", os.path.join(self.root, "src", "k", "h.h"), "--check")
        self.assertEqual(code, 2)
        self.assertIn("is not a directory: ", err)


class RepositoryDescription(unittest.TestCase):
    """plugins/vllm-marlin/mutants.txt: what the kit is asked to cover (issue 29, item 6)."""

    def setUp(self):
        self.d = kit.load_description(DESCRIPTION)

    def test_the_files_and_their_commits_are_those_the_adapter_compiles(self):
        self.assertEqual(self.d.files["csrc/quantization/marlin/dequant.h"][0], "d0ac579")
        self.assertEqual(self.d.files["csrc/quantization/marlin/marlin_template.h"][0], "bc390b9")
        with open(os.path.join(ROOT, "docs", "vllm-marlin.md")) as f:
            table = f.read()
        for path, (commit, _) in self.d.files.items():
            self.assertRegex(table, rf"`{re.escape(path)}` \| {commit} \|")

    def test_the_8_bit_bias_mutant_acts_on_uint8b128_in_both_dtypes(self):
        v01 = self.d.mutants["v01"]
        self.assertEqual(v01.slug, "uint8-bias-8")
        self.assertEqual(v01.formats, ["fp16-uint8b128", "bf16-uint8b128"])
        self.assertEqual(list(v01.lines_by_file()), ["csrc/quantization/marlin/dequant.h"])
        self.assertIn("8 instead of 128", v01.what)

    def test_every_mutant_names_formats_the_adapter_builds_and_cites_its_lines(self):
        for m in self.d.mutants.values():
            self.assertTrue(m.id.startswith("v"))
            self.assertTrue(m.formats, m.id)
            for f in m.formats:
                self.assertRegex(f, r"^(fp16|bf16)-(uint4b8|uint4|uint8b128)$")
            cited = {int(n) for n in re.findall(r"\b(\d{2,3})\b", m.what)}
            spans = {n for a, b in re.findall(r"\b(\d{3})-(\d{3})\b", m.what) for n in range(int(a), int(b) + 1)}
            self.assertLessEqual(set(m.lines()), cited | spans, f"{m.id}: {m.what}")


    def test_hint_kinds_are_the_comparators(self):
        with open(os.path.join(ROOT, "compare", "include", "tilecheck", "compare", "hints.h")) as f:
            enum = f.read().split("enum class HintKind", 1)[1].split("};", 1)[0]
        kinds = set(re.findall(r"^\s*([a-z][a-z0-9_]*),", enum, re.M))
        for m in self.d.mutants.values():
            self.assertLessEqual(m.cause | m.tiles, kinds, m.id)


class RealVllm(unittest.TestCase):
    """Every mutant applies to vLLM's own files: only where TC_VLLM_MARLIN_SRC names them."""

    def test_every_mutant_applies_and_changes_only_its_lines(self):
        root = os.environ.get("TC_VLLM_MARLIN_SRC", "")
        d = kit.load_description(DESCRIPTION)
        if not root or not all(os.path.isfile(os.path.join(root, p)) for p in d.files):
            print("skipped: TC_VLLM_MARLIN_SRC does not name a directory of vLLM's files (CI has none)")
            self.skipTest("TC_VLLM_MARLIN_SRC does not name vLLM's files")
        try:
            files = kit.read_upstream(d, root)
        except kit.MutantError as e:
            print(f"skipped: {e}")
            self.skipTest("another version of vLLM's files")
        for m in d.mutants.values():
            out = kit.mutate_files(files, m)
            for path, data in files.items():
                lines, edited = data.splitlines(), out[path].splitlines()
                self.assertEqual(len(edited), len(lines), m.id)
                changed = [i + 1 for i, (a, b) in enumerate(zip(lines, edited)) if a != b]
                self.assertEqual(changed, m.lines_by_file().get(path, []), f"{m.id} {path}")


if __name__ == "__main__":
    sys.exit(unittest.main(verbosity=2))
