#!/usr/bin/env python3
"""Tests of the sanitizer tier on many records (no GPU): reports past compute-sanitizer's default
print limit of 100, the check that every hazard was displayed and parsed, records grouped by
distinct report (racecheck: the pair of source locations) with counts, in one run and over
configurations, the allow-list's source form (function and source text instead of line numbers)
against a source file whose lines move, an unreadable source, and the time it takes on 50,000
records. The reports and source files are generated (the sources are invented, not upstream's).
test_run_sanitizer.py, the ctest entry point (sanitizer_runner_tests, label cpu), runs these too.
"""
import os
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # ctest runs this from the source tree
sys.path.insert(0, HERE)
import sanitizer_allowlist  # noqa: E402
import sanitizer_configs  # noqa: E402
import sanitizer_per_config  # noqa: E402
import sanitizer_process  # noqa: E402
import sanitizer_report  # noqa: E402
import sanitizer_verdict  # noqa: E402
from sanitizer_process import Run  # noqa: E402

GTEST_PASS = "[==========] 8 tests from 1 test suite ran. (5 ms total)\n[  PASSED  ] 8 tests.\n"
READ_FN = "ldsm4(Vec<half2, 4> &, const void *)"
KERNEL_FN = "void Marlin<256, 1, 8, 8, 4, 8>(const int4 *, const int4 *, int4 *, const int4 *, int, int, int, int *)"
# (hazard, (access, function, line), (access, function, line), marked memcpy_async)
H2 = ("WAR", ("Read", READ_FN, 112), ("Write", KERNEL_FN, 492), False)
H3 = ("WAR", ("Read", "write_result(int4 *, int4 *)", 613), ("Write", "cp_async4_pred(void *, const void *, bool)", 62),
      False)
ASYNC = ("RAW", ("Write", "cp_async4_stream(void *, const void *)", 77), ("Read", READ_FN, 112), True)


def fake_source(inserted=0):
    """An invented kernel source with the lines the records name; `inserted` lines added on top."""
    lines = [f"// fake kernel source for the sanitizer tier's tests, filler line {i}" for i in range(1, 701)]
    lines[62 - 1] = "  fake_copy_async(stage_a, src, pred);"
    lines[77 - 1] = "  fake_copy_async_stream(stage_b, src);"
    lines[112 - 1] = "  fake_ldmatrix(frag_a, smem_ptr);"
    lines[492 - 1] = "      sh[red_sh_wr] = partial[j];"
    lines[613 - 1] = "    out_tile[o] = staged[i];"
    return "\n".join(["// inserted above"] * inserted + lines) + "\n"


def hazard_record(pair, path, n, shift=0):
    """One racecheck record (hazard report) of `pair`; threads, blocks, addresses and values vary with n."""
    kind, first, second, marked = pair
    mark = " (invalid memcpy_async synchronization)" if marked else ""
    lines = [f"========= Error: Potential {kind} hazard detected at __shared__ 0x{(n * 16) % 65536:x} in block "
             f"({n % 7},0,0){mark} :"]
    for i, (access, function, line) in enumerate((first, second)):
        thread, offset = (n + 33 * i) % 256, 0x1c40 + 16 * (n % 5)
        lines.append(f"=========     {access} Thread ({thread},0,0) at {function}+0x{offset:x} in {path}:{line + shift}")
    lines += [f"=========     Current Value : {n % 3}, Incoming Value : {n * 7}", "========="]
    return lines


def racecheck_report(pairs, path, shift=0, displayed=None, errors=None, warnings=0):
    """A report of len(pairs) records (pairs[i] for the i-th) and its summary (by default: all displayed)."""
    lines = ["========= COMPUTE-SANITIZER"]
    for n, pair in enumerate(pairs):
        lines += hazard_record(pair, path, n, shift)
    displayed = len(pairs) if displayed is None else displayed
    errors = displayed - warnings if errors is None else errors
    lines.append(f"========= RACECHECK SUMMARY: {displayed} hazards displayed ({errors} errors, {warnings} warnings)")
    return "\n".join(lines) + "\n"


def committed_entries():
    return sanitizer_allowlist.load_allowlist(os.path.join(HERE, "allowlist.txt"))


def h2_line():
    return next(e.line for e in committed_entries() if e.source is not None and "upstream Marlin H2" in e.reason)


def judge(text, entries, gtest=GTEST_PASS, returncode=1):
    report = sanitizer_report.parse_sanitizer_output(text)
    sanitizer_allowlist.apply_allowlist(report, "racecheck", entries)
    return report, sanitizer_verdict.judge("racecheck", report, sanitizer_report.parse_gtest_output(gtest), returncode)


class Sources(unittest.TestCase):
    """A private directory with the invented source, as compiled (v1) and with 7 lines inserted (v2)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="tc-sanitizer-records-")
        self.v1 = self.write("v1/marlin_cuda_kernel.cu", fake_source())
        self.v2 = self.write("v2/marlin_cuda_kernel.cu", fake_source(inserted=7))

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self.tmp.name, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path


class ManyRecords(Sources):
    def test_every_distinct_pair_is_listed_with_its_count_not_allow_listed_first(self):
        pairs = [H2] * 2400 + [H3] * 300 + [ASYNC] * 12
        pairs = [pairs[(i * 7) % len(pairs)] for i in range(len(pairs))]  # interleaved (7 is prime to 2712)
        report, v = judge(racecheck_report(pairs, self.v1), committed_entries())
        self.assertEqual(len(report.findings), 2712)
        self.assertEqual(v.code, sanitizer_verdict.EXIT_FAIL)
        src = self.v1
        self.assertEqual(v.lines, [
            "tests: 8 ran, 8 passed, 0 failed, 0 skipped (0 as n/a)",
            "summary: RACECHECK SUMMARY: 2712 hazards displayed (2712 errors, 0 warnings)",
            "records: 2712 (2400 allow-listed, 312 not), 3 distinct:",
            "  [NOT allow-listed] x300 WAR hazard",
            f"      Read {src}:613 in write_result",
            f"      Write {src}:62 in cp_async4_pred",
            "  [NOT allow-listed] x12 RAW hazard (invalid memcpy_async synchronization)",
            f"      Write {src}:77 in cp_async4_stream",
            f"      Read {src}:112 in ldsm4",
            f"  [allow-listed by line {h2_line()}] x2400 WAR hazard",
            f"      Read {src}:112 in ldsm4",
            f"      Write {src}:492 in Marlin",
            "FAIL:",
            "312 report(s) not in the allow-list, 2 distinct (listed above)",
            "  A benign one goes into tests/sanitizer/allowlist.txt with the reason (format in the file); anything "
            "else is a bug to fix."])
        _, clean = judge(racecheck_report([H2] * 150, self.v1), committed_entries(), returncode=1)
        self.assertEqual(clean.code, sanitizer_verdict.EXIT_PASS, clean.lines)
        self.assertIn(f"  [allow-listed by line {h2_line()}] x150 WAR hazard", clean.lines)

    def test_a_print_limit_in_force_fails_with_both_numbers(self):
        report, v = judge(racecheck_report([H2] * 100, self.v1, displayed=100, errors=33312, warnings=8840),
                          committed_entries())
        self.assertTrue(all(r.allowed_by for r in report.findings))
        self.assertEqual(v.code, sanitizer_verdict.EXIT_FAIL, v.lines)
        self.assertIn("racecheck displayed 100 of the 42152 hazards it found (33312 errors, 8840 warnings): a print "
                      "limit is in force (--print-limit), and the 42052 hazards not displayed were never judged",
                      v.lines)

    def test_displayed_must_equal_parsed(self):
        for displayed in (3, 1):
            _, v = judge(racecheck_report([H2] * 2, self.v1, displayed=displayed), committed_entries())
            self.assertEqual(v.code, sanitizer_verdict.EXIT_FAIL, v.lines)
            self.assertIn(f"racecheck's summary says {displayed} hazards displayed but 2 were parsed: a report format "
                          "this runner does not know, or a report cut short (see the log)", v.lines)

    def test_every_tool_prints_every_record_unless_told_otherwise(self):
        for tool in allowlist_tools():
            cmd = sanitizer_process.sanitizer_command("cs", tool, "log", "suite", ["--gtest_filter=x"], [])
            self.assertEqual(cmd[cmd.index("--print-limit") + 1], "0", tool)
            own = sanitizer_process.sanitizer_command("cs", tool, "log", "suite", [], ["--print-limit=500"])
            self.assertNotIn("--print-limit", own, tool)
            self.assertIn("--print-limit=500", own, tool)

    def test_fifty_thousand_records_take_seconds(self):
        pairs = [(H2, H3, ASYNC, H2)[i % 4] for i in range(50_000)]
        text = racecheck_report(pairs, self.v1)
        self.assertGreater(text.count("\n"), 250_000)
        for mode in ("one process", "per configuration"):
            start = time.monotonic()
            if mode == "one process":
                report, v = judge(text, committed_entries())
            else:
                merged = sanitizer_per_config.distinct_records([outcome("m1n8k8gcol", text, committed_entries())])
            seconds = time.monotonic() - start
            self.assertLess(seconds, 5.0, f"{mode}: {seconds:.1f} s to parse, allow-list and group 50,000 records")
        self.assertEqual(len(report.findings), 50_000)
        self.assertIn("records: 50000 (25000 allow-listed, 25000 not), 3 distinct:", v.lines)
        self.assertIn("  [NOT allow-listed] x12500 WAR hazard", v.lines)
        self.assertIn("      in m1n8k8gcol x25000", merged)


def allowlist_tools():
    return sanitizer_allowlist.TOOLS


OLD_FORM = ("racecheck :: Read Thread .* at ldsm4\\(.*marlin_cuda_kernel\\.cu:112\\nWrite Thread .*"
            "marlin_cuda_kernel\\.cu:492 :: the line-number form")


class SourceForm(Sources):
    def allowed(self, pairs, path, shift=0, entries=None):
        report, _ = judge(racecheck_report(pairs, path, shift), committed_entries() if entries is None else entries)
        return [r.allowed_by is not None for r in report.findings]

    def test_the_committed_h2_entry_is_in_the_source_form(self):
        (entry,) = [e for e in committed_entries() if "upstream Marlin H2" in e.reason]
        self.assertIsNone(entry.pattern)
        self.assertEqual([(c.kind, c.fn.pattern if c.fn else None) for c in entry.source.accesses],
                         [("Read", "ldsm4"), ("Write", None)])
        self.assertEqual(entry.source.file, "marlin_cuda_kernel.cu")

    def test_the_committed_vllm_entry_allows_its_two_pairs_and_nothing_else(self):
        # An invented stand-in for vLLM's marlin_template.h: the two lines the H200's records name
        # (docs/case-study-vllm-marlin-sanitizer.md) hold the identifiers the entry matches.
        lines = [f"// fake template line {i}" for i in range(1, 1501)]
        lines[938 - 1] = "          &sh_b_stage[fake_stride + fake_offset]);"
        lines[1433 - 1] = "                  &frag_c)[fake_index];"
        lines[500 - 1] = "    fake_other = sh_a_stage[fake_offset];"
        path = self.write("vllm/marlin_template.h", "\n".join(lines) + "\n")
        elsewhere = self.write("other/marlin_kernel.cuh", "\n".join(lines) + "\n")
        fn = "marlin::Marlin::lambda1::operator"
        war = ("WAR", ("Read", fn, 938), ("Write", fn, 1433), False)
        raw = ("RAW", ("Write", fn, 1433), ("Read", fn, 938), False)
        other_read = ("WAR", ("Read", fn, 500), ("Write", fn, 1433), False)
        self.assertEqual(self.allowed([war, raw, other_read], path), [True, True, False])
        self.assertEqual(self.allowed([war, raw], elsewhere), [False, False])

    def test_text_form_survives_a_line_shift_and_the_line_number_form_does_not(self):
        old = sanitizer_allowlist.parse_allowlist(OLD_FORM)
        self.assertEqual(self.allowed([H2] * 3, self.v1), [True] * 3)
        self.assertEqual(self.allowed([H2] * 3, self.v2, shift=7), [True] * 3)
        self.assertEqual(self.allowed([H2] * 3, self.v1, entries=old), [True] * 3)
        self.assertEqual(self.allowed([H2] * 3, self.v2, shift=7, entries=old), [False] * 3)
        # The same lines in the copy without the 7 inserted lines are other code: not allowed.
        self.assertEqual(self.allowed([H2], self.v1, shift=7), [False])

    def test_each_clause_needs_its_own_matching_access(self):
        swapped = ("RAW", H2[2], H2[1], False)                        # the write first: still the pair
        other_read = ("WAR", ("Read", "ldsm4_b(int)", 112), H2[2], False)  # fn fullmatches the bare name
        two_reads = ("RAR", H2[1], ("Read", KERNEL_FN, 492), False)
        marked = H2[:3] + (True,)                                     # a memcpy_async report is another finding
        self.assertEqual(self.allowed([swapped, other_read, two_reads, marked], self.v1), [True, False, False, False])
        elsewhere = self.write("v1/marlin_copy.cu", fake_source())
        self.assertEqual(self.allowed([H2], elsewhere), [False])
        clauses = sanitizer_allowlist.parse_allowlist(
            "racecheck :: hazard=RAW ; access Write fn=Marlin file=marlin_cuda_kernel.cu ; access :: r")
        self.assertEqual(self.allowed([H2, swapped], self.v1, entries=clauses), [False, True])
        async_only = sanitizer_allowlist.parse_allowlist("racecheck :: memcpy_async ; access Read fn=ldsm4 :: r")
        self.assertEqual(self.allowed([H2, marked], self.v1, entries=async_only), [False, True])

    def test_an_unreadable_source_is_not_allowed_and_says_so(self):
        missing = os.path.join(self.tmp.name, "gone", "marlin_cuda_kernel.cu")
        report, v = judge(racecheck_report([H2] * 4 + [H3], missing), committed_entries())
        self.assertEqual([r.allowed_by for r in report.findings], [None] * 5)
        self.assertEqual(v.code, sanitizer_verdict.EXIT_FAIL)
        note = f"      source not readable: {missing} (allow-list line {h2_line()} has a text= clause for it)"
        text = "\n".join(v.lines)
        self.assertIn(f"  [NOT allow-listed] x4 WAR hazard\n      Read {missing}:112 in ldsm4\n"
                      f"      Write {missing}:492 in Marlin\n{note}\n", text)
        self.assertEqual(text.count("source not readable"), 1, "H3 could never match the entry: no note")
        short = self.write("short/marlin_cuda_kernel.cu", "// three\n// lines\n// only\n")
        _, v = judge(racecheck_report([H2], short), committed_entries())
        self.assertIn(f"      source line not found: {short}:492 (the file has 3 lines) (allow-list line {h2_line()} "
                      "has a text= clause for it)", v.lines)

    def test_a_relative_source_path_is_found_in_the_source_dirs(self):
        # The tool names the file as it was compiled, here without a directory ("marlin_cuda_kernel.cu").
        text = racecheck_report([H2] * 3, "marlin_cuda_kernel.cu")
        report = sanitizer_report.parse_sanitizer_output(text)
        sanitizer_allowlist.apply_allowlist(report, "racecheck", committed_entries())
        self.assertEqual([r.allowed_by for r in report.findings], [None] * 3, "not found without a source dir")
        sources = sanitizer_allowlist.SourceCache([os.path.join(self.tmp.name, "nowhere"), os.path.dirname(self.v1)])
        sanitizer_allowlist.apply_allowlist(report, "racecheck", committed_entries(), sources)
        self.assertEqual([r.allowed_by.line for r in report.findings], [h2_line()] * 3)

    def test_malformed_source_form_entries_name_their_line(self):
        bad = {
            "racecheck :: access Read text=( :: r": "bad regex in text=",
            "racecheck :: access Reed fn=x :: r": "access kind 'Reed'",
            "racecheck :: access Read fn=a fn=b :: r": "expected one each of fn=, text=, file=",
            "racecheck :: access Read line=3 :: r": "expected one each",
            "racecheck :: file=a.cu :: r": "at least one 'access' clause",
            "racecheck :: access Read ; hazard=WAR ; whatever :: r": "unknown clause 'whatever'",
            "racecheck :: access Read text= :: r": "empty text=",
        }
        for line, message in bad.items():
            with self.assertRaises(sanitizer_allowlist.AllowlistError) as caught:
                sanitizer_allowlist.parse_allowlist("# header\n" + line + "\n", "list.txt")
            self.assertIn("list.txt:2:", str(caught.exception), line)
            self.assertIn(message, str(caught.exception), line)
        self.assertIsNotNone(sanitizer_allowlist.parse_allowlist("* :: accessor :: regex form")[0].pattern)

    def test_bare_function_names(self):
        bare = sanitizer_report.bare_function
        self.assertEqual(bare("void tc::device::marlin_w4a16<(int)1, (int)8, (int)8, (int)-1>(tc::device::KernelArgs)"
                              "+0x1c40"), "tc::device::marlin_w4a16")
        self.assertEqual(bare(KERNEL_FN + "+0x5d0"), "Marlin")
        self.assertEqual(bare(READ_FN), "ldsm4")
        self.assertEqual(bare("0x00001ab0"), "")
        # As racecheck printed upstream Marlin's reduction write on the H200: a lambda's call operator.
        self.assertEqual(bare("void Marlin<(int)256, (int)1, (int)8, (int)8, (int)4, (int)-1>(const int4 *, const int4 *, "
                              "int4 *, const int4 *, int, int, int, int *)::[lambda() (instance 4)]::operator ()() "
                              "const+0x3dc0"), "Marlin::lambda4::operator")
        self.assertEqual(bare("void Marlin<(int)256, (int)1, (int)16, (int)4, (int)4, (int)8>(const int4 *, int *)::"
                              "[lambda(int, int) (instance 1)]::operator ()(int, int) const+0x2550"),
                         "Marlin::lambda1::operator")
        docs = sanitizer_report.parse_sanitizer_output(
            "========= WARN:(Warp Level Programming) Potential RAW hazard detected at __shared__ 0xf4 in block "
            "(0, 0, 0) :\n"
            "=========     Write Thread (24, 0, 0) at 0x00001ab0 in warp_scan.cuh:146:Kernel\n")
        self.assertEqual(docs.findings[0].key().accesses[0],
                         sanitizer_report.Access("Write", "Kernel", "warp_scan.cuh", 146))


def outcome(config, text, entries):
    test = f"Sanitize/K.M/normal_m1_n128_k128_g128_marlin_{config}_marlin_x_sms1"
    group = sanitizer_configs.ConfigGroup(config, [test])
    run = Run(["compute-sanitizer"], "/k.so", 1, GTEST_PASS, text, 1.0, False)
    return sanitizer_per_config.judge_config("racecheck", group, run, entries, 600, False)


class AcrossConfigs(Sources):
    def test_distinct_records_over_configurations_with_per_configuration_counts(self):
        entries = committed_entries()
        outcomes = [outcome("m1n8k8gcol", racecheck_report([H2] * 2000 + [H3] * 250, self.v1), entries),
                    outcome("m1n16k4gcol", racecheck_report([H3] * 40 + [H2] * 500, self.v1), entries),
                    outcome("m2n16k4gcol", racecheck_report([H2] * 120, self.v1), entries)]
        v = sanitizer_per_config.merge("racecheck", outcomes)
        self.assertEqual(v.code, sanitizer_verdict.EXIT_FAIL)
        src = self.v1
        text = "\n".join(v.lines)
        self.assertIn("records over all configurations: 2910 (2620 allow-listed, 290 not), 2 distinct:\n"
                      "  [NOT allow-listed] x290 WAR hazard\n"
                      "      in m1n8k8gcol x250, m1n16k4gcol x40\n"
                      f"      Read {src}:613 in write_result\n"
                      f"      Write {src}:62 in cp_async4_pred\n"
                      f"  [allow-listed by line {h2_line()}] x2620 WAR hazard\n"
                      "      in m1n8k8gcol x2000, m1n16k4gcol x500, m2n16k4gcol x120\n"
                      f"      Read {src}:112 in ldsm4\n"
                      f"      Write {src}:492 in Marlin\n"
                      "FAIL: 2 of 3 configurations not clean: m1n8k8gcol (FAIL), m1n16k4gcol (FAIL)", text)
        self.assertRegex(text, r"m2n16k4gcol +PASS +.*records: 120 \(120 allow-listed, 0 not\)")
        # Each configuration's own verdict (the log's section) lists its pairs with counts too.
        self.assertIn("records: 540 (500 allow-listed, 40 not), 2 distinct:", outcomes[1].full.lines)
        self.assertIn("  [NOT allow-listed] x40 WAR hazard", outcomes[1].full.lines)


if __name__ == "__main__":
    unittest.main(verbosity=2)
