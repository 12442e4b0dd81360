"""Bad-input cases: the reasons for bad option values (m-blocks, tiles, timeouts, bench sizes),
exclusive options, no GPU driver, and the checks that already held before."""
import os

from harness import MUT_CELL, SMALL, TINY, Skip, case, failing_recording, has_gpu_driver


# ==== wrong or missing reasons: options ========================================================

@case("message")
def compare_m_blocks_zero(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--m-blocks", "0"], "--m-blocks", "1..4")


@case("message")
def compare_m_blocks_five(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--m-blocks", "5"], "--m-blocks", "1..4")


@case("message")
def compare_tile_64x16(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--tile", "64x16"], "--tile", "64x16",
                "128x128, 256x64")


@case("message")
def compare_tile_256x128(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--tile", "256x128"], "--tile", "256x128",
                "128x128, 256x64")


@case("message")
def compare_tile_not_a_shape(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--tile", "big"], "--tile", "big")


@case("message")
def tiles_output_and_recording_together(c):
    out = c.output(MUT_CELL)
    rec = failing_recording(c)
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "3", "--output", out,
                 "--recording", rec], "--output", "--recording")


@case("message")
def tiles_without_a_gpu_driver(c):
    if has_gpu_driver():
        raise Skip("this machine has a GPU driver")
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol"], "no NVIDIA GPU driver")


@case("message")
def run_without_a_gpu_driver(c):
    if has_gpu_driver():
        raise Skip("this machine has a GPU driver")
    c.expect(c.run(["run", "--filter", TINY + "_m1n8k8g8_marlin_upstream_sms3$", "--errmaps", ""]), 0,
             "no NVIDIA GPU driver")


@case("message")
def bench_k_not_a_multiple_of_16(c):
    c.bad_input(["bench", "-K", "100"], "-K", "multiple of 16")


@case("message")
def bench_n_int_max(c):
    c.bad_input(["bench", "-N", "2147483647"], "-N", "multiple of 64")


@case("message")
def bench_m_negative(c):
    c.bad_input(["bench", "-M", "-5"], "-M")


@case("message")
def bench_problem_too_large(c):
    c.bad_input(["bench", "-M", "65536", "-K", "65536", "-N", "128"], "M*K")


@case("message")
def bench_config_auto_without_m(c):
    c.bad_input(["bench", "--config", "auto"], "--config auto", "-M")


@case("message")
def bench_group_not_a_group(c):
    c.bad_input(["bench", "--config", "auto", "-M", "16", "--group", "48"], "--group", "48")


@case("message")
def run_cell_timeout_huge(c):
    rec = c.recording()
    c.bad_input(["run", "--recording", rec, "--cell-timeout", "1e300", "--errmaps", ""], "--cell-timeout")


@case("message")
def run_cell_timeout_infinite(c):
    rec = c.recording()
    c.bad_input(["run", "--recording", rec, "--cell-timeout", "inf", "--errmaps", ""], "--cell-timeout")


@case("message")
def tiles_cell_timeout_nan(c):
    out = c.output(MUT_CELL)
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "3", "--output", out,
                 "--cell-timeout", "nan"], "--cell-timeout")


@case("message")
def bench_config_timeout_huge(c):
    c.bad_input(["bench", "--config-timeout", "1e12"], "--config-timeout")


@case("message")
def run_fault_limit_zero(c):
    rec = c.recording()
    c.bad_input(["run", "--recording", rec, "--fault-limit", "0", "--errmaps", ""], "--fault-limit")


@case("message")
def compare_unknown_contract(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--contract", "bf16"], "bf16")


@case("message")
def compare_output_missing(c):
    c.bad_input(["compare", "--fixture", SMALL, "--output", "absent.h5"], "absent.h5", "no such file")


@case("message")
def compare_fixture_is_a_text_file(c):
    fx, out = c.file("fx.h5"), c.output()
    c.bad_input(["compare", "--fixture", fx, "--output", out], "fx.h5", "not an HDF5 file")


@case("message")
def compare_output_of_the_wrong_shape(c):
    out = c.output(rows=16)
    c.bad_input(["compare", "--fixture", SMALL, "--output", out], "out.h5", "(16, 128)")


@case("message")
def compare_output_truncated(c):
    out = c.output()
    with open(out, "r+b") as f:
        f.truncate(os.path.getsize(out) // 2)
    c.give(out)
    c.bad_input(["compare", "--fixture", SMALL, "--output", out], "out.h5", "truncated")


@case("message")
def compare_unknown_case_id(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", "no_such_case", "--output", out], "no_such_case", "not a case id")


@case("message")
def run_recording_missing(c):
    c.bad_input(["run", "--recording", "absent.h5", "--errmaps", ""], "absent.h5", "no such file")


@case("message")
def run_filter_not_a_regex(c):
    rec = c.recording()
    c.bad_input(["run", "--recording", rec, "--filter", "(", "--errmaps", ""], "not a valid regular expression")


@case("message")
def run_record_without_a_gpu(c):
    if has_gpu_driver():
        raise Skip("this machine has a GPU driver")
    c.bad_input(["run", "--record", "r.h5", "--errmaps", ""], "--record needs a GPU")
    c.check(not os.path.exists(c.path("r.h5")), "--record wrote a file")


@case("message")
def regenerate_unknown_case(c):
    fx = c.give(c.fixtures_copy(golden=False))
    c.bad_input(["golden", "regenerate", "--fixtures", fx, "--case", "no_such_case"], "no_such_case")


@case("message")
def check_missing_fixtures_directory(c):
    c.bad_input(["golden", "check", "--fixtures", "absent"], "absent")


@case("message")
def tiles_unknown_config(c):
    out = c.output(MUT_CELL)
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m9n8k8gcol", "--sms", "3", "--output", out], "m9n8k8gcol")


@case("message")
def tiles_tile_outside_the_grid(c):
    out = c.output(MUT_CELL)
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "3", "--output", out,
                 "--tile", "0,9"], "--tile 0,9", "outside")


@case("message")
def unknown_option(c):
    c.bad_input(["compare", "--fixture", SMALL, "--output", "x.h5", "--frobnicate"], "--frobnicate")
