"""Bad-input cases: an output that is an input (also through a link), a directory or a missing
directory; regenerate --out and --force."""
import os
import re
import shutil

from harness import MUT_CELL, SMALL, TINY, case, tree_hashes


# ==== given files overwritten ==================================================================

@case("overwrite")
def compare_report_is_the_fixture(c):
    fx, out = c.fixture_copy(), c.output()
    c.bad_input(["compare", "--fixture", fx, "--output", out, "--report", fx], "--report", "--fixture", "refusing")


@case("overwrite")
def compare_report_is_the_output(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--report", out], "--report", "--output", "refusing")


@case("overwrite")
def compare_report_is_the_second_output(c):
    out, out2 = c.output(), c.output(name="out2.h5")
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, out2, "--report", out2], "--report", "refusing")


@case("overwrite")
def compare_report_is_a_hard_link_of_the_output(c):
    out = c.output()
    os.link(out, c.path("link.h5"))
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--report", c.path("link.h5")], "--report", "refusing")


@case("overwrite")
def compare_report_is_a_symbolic_link_to_the_fixture(c):
    fx, out = c.fixture_copy(), c.output()
    os.symlink(fx, c.path("link.h5"))
    c.bad_input(["compare", "--fixture", fx, "--output", out, "--report", "link.h5"], "--report", "refusing")


@case("overwrite")
def compare_report_is_the_output_by_another_path(c):
    out = c.output()
    c.directory("sub")
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--report", "sub/../out.h5"], "--report", "refusing")


@case("overwrite")
def run_json_is_the_recording(c):
    rec = c.recording()
    c.bad_input(["run", "--recording", rec, "--json", rec, "--errmaps", ""], "--json", "--recording", "refusing")


@case("overwrite")
def run_json_is_a_hard_link_of_the_recording(c):
    rec = c.recording()
    os.link(rec, c.path("cells.json"))
    c.bad_input(["run", "--recording", rec, "--json", "cells.json", "--errmaps", ""], "--json", "refusing")


@case("overwrite")
def run_json_is_a_symbolic_link_to_the_recording(c):
    rec = c.recording()
    os.symlink(rec, c.path("cells.json"))
    c.bad_input(["run", "--recording", rec, "--json", "cells.json", "--errmaps", ""], "--json", "refusing")


@case("overwrite")
def tiles_report_is_the_output(c):
    out = c.output(MUT_CELL)
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "3", "--output", out,
                 "--report", out], "--report", "--output", "refusing")


@case("overwrite")
def tiles_report_is_the_recording(c):
    rec = c.recording(source="h200-mut01-scales-in-scratch.h5", keep=3)
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "3", "--recording", rec,
                 "--report", rec], "--report", "--recording", "refusing")


def guarded(c, path, args, *phrases):
    """Runs a case whose output is a file of the source tree: kept aside and put back whatever the
    binary does (an old build overwrites it), and hashed as a given input."""
    keep = c.path("kept-aside")
    shutil.copy2(path, keep)
    c.give(path)
    try:
        c.bad_input(args, *phrases)
    finally:
        if tree_hashes(path) != c.given[path]:
            shutil.copy2(keep, path)
            c.failures.append(f"{path} was overwritten (put back)")
            c.given.pop(path)
        os.remove(keep)


@case("overwrite")
def compare_report_is_the_golden_file_of_the_case_id(c):
    out = c.output()
    guarded(c, c.golden(SMALL), ["compare", "--fixture", SMALL, "--output", out, "--report", c.golden(SMALL)],
            "--report", "refusing")


@case("overwrite")
def run_json_is_the_manifest(c):
    rec = c.recording()
    manifest = os.path.join(c.args.source, "fixtures", "MANIFEST.json")
    guarded(c, manifest, ["run", "--recording", rec, "--json", manifest, "--errmaps", ""], "--json", "refusing")


@case("overwrite")
def run_json_is_another_golden_file(c):
    rec = c.recording()
    golden = c.golden("normal_m2_n128_k128_gcol_fp32")
    guarded(c, golden, ["run", "--recording", rec, "--json", golden, "--errmaps", ""], "--json", "refusing")


@case("overwrite")
def compare_report_is_a_directory(c):
    out = c.output()
    c.directory("maps")
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--report", "maps"], "--report", "is a directory")


@case("overwrite")
def run_json_is_a_directory(c):
    rec = c.recording()
    c.directory("cells.json")
    c.bad_input(["run", "--recording", rec, "--json", "cells.json", "--errmaps", ""], "--json", "is a directory")


@case("overwrite")
def compare_report_in_a_missing_directory(c):
    out = c.output(zero_tile=True)
    p = c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--report", "no/such/dir/r.h5"], "--report",
                    "does not exist")
    c.check("Mismatched" not in p.stdout, "the work ran before the output path was checked")


@case("overwrite")
def run_json_in_a_missing_directory(c):
    rec = c.recording()
    p = c.bad_input(["run", "--recording", rec, "--json", "no/such/cells.json", "--errmaps", ""], "--json",
                    "does not exist")
    c.check("cells:" not in p.stdout, "the work ran before the output path was checked")


@case("overwrite")
def regenerate_out_leaves_the_manifest_alone(c):
    fx = c.fixtures_copy()
    manifest = os.path.join(fx, "MANIFEST.json")
    text = open(manifest).read()
    # A manifest entry the regeneration will disagree with, so that there is something to write.
    entry = re.search(r'"/inputs/A": "([0-9a-f]{64})"', text[text.index('"' + TINY + '"'):]).group(1)
    open(manifest, "w").write(text.replace(entry, "0" * 64, 1))
    c.give(fx)
    p = c.run(["golden", "regenerate", "--fixtures", fx, "--case", TINY, "--out", c.path("out")])
    c.expect(p, 0, "not updated (--out)")
    c.check(os.path.isfile(c.path("out/" + TINY + ".h5")), "--out DIR holds no regenerated file")


@case("overwrite")
def regenerate_out_is_a_file(c):
    fx = c.give(c.fixtures_copy(golden=False))
    c.file("out")
    c.bad_input(["golden", "regenerate", "--fixtures", fx, "--case", TINY, "--out", "out"], "--out", "not a directory")


def forced_twice(c, extra):
    """`regenerate --force` once (it may rewrite files whose bytes another HDF5 version writes
    differently), then again: the second has identical data and must rewrite nothing."""
    fx = c.fixtures_copy()
    c.expect(c.run(["golden", "regenerate", "--fixtures", fx, "--generated", c.path("gen"), "--force"] + extra), 0)
    c.give(fx)
    return c.run(["golden", "regenerate", "--fixtures", fx, "--generated", c.path("gen"), "--force"] + extra)


@case("overwrite")
def regenerate_force_keeps_identical_files(c):
    c.expect(forced_twice(c, []), 0, "0 files written")


@case("overwrite")
def regenerate_force_one_case_keeps_its_file(c):
    c.expect(forced_twice(c, ["--case", SMALL]), 0, "(unchanged, kept)")


@case("overwrite")
def regenerate_out_writes_nothing_outside_it(c):
    fx = c.give(c.fixtures_copy())
    c.expect(c.run(["golden", "regenerate", "--fixtures", fx, "--generated", c.path("gen"), "--out", c.path("o")]), 0)
    committed = [line.split()[0] for line in open(os.path.join(fx, "catalogue.txt"))
                 if line.strip() and not line.startswith("#") and line.split()[8] == "committed"]  # 9th: storage
    written = sorted(n[:-3] for n in os.listdir(c.path("o")) if n.endswith(".h5"))
    c.check(written == sorted(committed), f"--out holds {len(written)} files, not the {len(committed)} committed cases")
    c.check(not os.path.exists(c.path("gen")), "--generated was written although --out was given")
