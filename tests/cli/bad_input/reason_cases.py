"""Bad-input cases: crashes (out-of-range grid sizes and thread counts) and the reasons for bad
files, commands, output directories and recordings."""
import os

import numpy as np

from harness import MUT_CELL, SMALL, TINY, case, failing_recording


# ==== crashes ==================================================================================

@case("crash")
def compare_sms_int_max(c):
    out = c.output(zero_tile=True)
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--sms", "2147483647"], "--sms", "65535")


@case("crash")
def tiles_sms_int_max(c):
    rec = c.recording(source="h200-mut01-scales-in-scratch.h5", keep=3)
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "2147483647", "--recording", rec],
                "--sms", "65535")


@case("crash")
def compare_sms_above_the_abi(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--sms", "65536"], "--sms", "65535")


@case("crash")
def compare_sms_negative(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--sms", "-1"], "--sms")


@case("crash")
def run_threads_100000(c):
    rec = c.recording()
    c.bad_input(["run", "--recording", rec, "--threads", "100000", "--errmaps", ""], "--threads", "hardware threads")


@case("crash")
def run_threads_negative(c):
    rec = c.recording()
    c.bad_input(["run", "--recording", rec, "--threads", "-3", "--errmaps", ""], "--threads")


@case("crash")
def tiles_sms_huge_on_an_output(c):
    out = c.output(MUT_CELL, zero_tile=True)
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "1000000000", "--output", out],
                "--sms", "65535")


# ==== wrong or missing reasons =================================================================

@case("message")
def compare_fixture_is_a_directory(c):
    out = c.output()
    c.directory("fx")
    c.bad_input(["compare", "--fixture", "fx", "--output", out], "fx", "is a directory")


@case("message")
def compare_output_is_a_directory(c):
    c.directory("out.h5")
    c.bad_input(["compare", "--fixture", SMALL, "--output", "out.h5"], "out.h5", "is a directory")


@case("message")
def run_recording_is_a_directory(c):
    c.directory("rec.h5")
    c.bad_input(["run", "--recording", "rec.h5", "--errmaps", ""], "rec.h5", "is a directory")


@case("message")
def compare_output_unreadable(c):
    out = c.output()
    os.chmod(out, 0)
    c.bad_input(["compare", "--fixture", SMALL, "--output", out], "out.h5", "Permission denied", as_nobody=True)
    os.chmod(out, 0o644)


@case("message")
def compare_fixture_unreadable(c):
    fx, out = c.fixture_copy(), c.output()
    os.chmod(fx, 0)
    c.bad_input(["compare", "--fixture", fx, "--output", out], "fixture.h5", "Permission denied", as_nobody=True)
    os.chmod(fx, 0o644)


@case("message")
def run_recording_unreadable(c):
    rec = c.recording()
    os.chmod(rec, 0)
    c.bad_input(["run", "--recording", rec, "--errmaps", ""], "rec.h5", "Permission denied", as_nobody=True)
    os.chmod(rec, 0o644)


@case("message")
def unknown_command(c):
    c.bad_input(["frobnicate"], "unknown command 'frobnicate'", "compare", "golden")


@case("message")
def unknown_golden_command(c):
    c.bad_input(["golden", "refresh"], "unknown command 'refresh'", "regenerate")


@case("message")
def no_command(c):
    c.bad_input([], "no command given", "run, golden")


@case("message")
def tiles_repro_is_a_file(c):
    rec = c.recording(source="h200-mut01-scales-in-scratch.h5", keep=3)
    c.file("repro")
    p = c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "3", "--recording", rec,
                     "--repro", "repro"], "--repro", "not a directory")
    c.check("tile map" not in p.stdout and "Mismatched" not in p.stdout, "the work ran before --repro was checked")


@case("message")
def tiles_repro_under_a_file(c):
    rec = c.recording(source="h200-mut01-scales-in-scratch.h5", keep=3)
    c.file("repro")
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "3", "--recording", rec,
                 "--repro", "repro/sub"], "--repro", "not a directory")


@case("message")
def run_errmaps_on_a_read_only_file_system(c):
    rec = failing_recording(c)
    p = c.bad_input(["run", "--recording", rec, "--errmaps", "/proc/tilecheck-errmaps"], "--errmaps", "cannot write")
    c.check("cells:" not in p.stdout, "the work ran before --errmaps was checked")


@case("message")
def run_errmaps_is_a_file(c):
    rec = failing_recording(c)
    c.file("maps")
    c.bad_input(["run", "--recording", rec, "--errmaps", "maps"], "--errmaps", "not a directory")


@case("message")
def run_errmaps_in_an_unwritable_directory(c):
    rec = failing_recording(c)
    c.directory("locked")
    os.chmod(c.path("locked"), 0o555)
    c.bad_input(["run", "--recording", rec, "--errmaps", "locked/maps"], "--errmaps", "Permission denied",
                as_nobody=True)


def edit_attr(name, value):
    def edit(g):
        g.attrs[name] = value
    return edit


@case("message")
def recording_cell_sms_zero(c):
    rec = c.recording(edit=edit_attr("sms", np.int64(0)))
    c.bad_input(["run", "--recording", rec, "--errmaps", ""], "rec.h5", "sms=0", TINY)


@case("message")
def recording_cell_sms_int_max(c):
    rec = c.recording(edit=edit_attr("sms", np.int64(2147483647)))
    c.bad_input(["run", "--recording", rec, "--errmaps", ""], "rec.h5", "sms=2147483647")


@case("message")
def recording_cell_config_that_cannot_run_its_case(c):
    rec = c.recording(edit=edit_attr("config", np.bytes_(b"m1n8k8g4")))
    c.bad_input(["run", "--recording", rec, "--errmaps", ""], "rec.h5", "group_blocks=4")


@case("message")
def recording_cell_of_an_unknown_case(c):
    rec = c.recording(edit=edit_attr("case_id", np.bytes_(b"normal_m1_n128_k128_g128_marlix")))
    c.bad_input(["run", "--recording", rec, "--errmaps", ""], "rec.h5", "not in the catalogue")


@case("message")
def recording_cell_output_of_the_wrong_shape(c):
    def edit(g):
        del g["C"]
        g["C"] = np.zeros((2, 128), np.float16)
    rec = c.recording(edit=edit)
    c.bad_input(["run", "--recording", rec, "--errmaps", ""], "rec.h5", "(2, 128)")
