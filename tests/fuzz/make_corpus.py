#!/usr/bin/env python3
"""Writes the fuzz harnesses' seed corpus, tests/fuzz/corpus/<harness>/ (README.md here).

Per harness a few small valid inputs and a few edge ones, each a step away from valid (a wrong type,
a missing piece, a value out of range, an extent the file does not store, a truncated file). The
valid fixtures come from `tilecheck golden regenerate` over a two-case catalogue; the rest is derived
here with h5py. Every HDF5 seed uses the object formats of HDF5 1.8 (as tilecheck writes them:
superblock 2, checksummed object headers), and strings are fixed-length: README.md says why (HDF5
1.10's own decoders crash or hang on corrupt files of the older, unchecksummed formats). The
committed corpus is this script's output; run it again only to change it:

    .venv/bin/python tests/fuzz/make_corpus.py build/default/cli/tilecheck

Crashing inputs the fuzzers found are added to the corpus by hand (README.md), not by this script.
"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
CATALOGUE = """\
# two tiny cases: per-column scales under marlin, groups of 32 with NaN/Inf/subnormal inputs under fp32
normal_m1_n64_k16_gcol_marlin 1 64 16 -1 marlin normal 1 committed
specials_m2_n64_k32_g32_fp32 2 64 32 32 fp32 specials 7 committed
"""
SMALL = "normal_m1_n64_k16_gcol_marlin"
DATASETS = ["inputs/A", "inputs/codes", "inputs/scales", "inputs/B_marlin", "inputs/scales_marlin",
            "ref/y_exact", "ref/S", "ref/expected"]
POISON = 0x7E5A  # tc::kPoison: the sentinel the harness fills C with


LIBVER = "v108"  # HDF5 1.8 object formats, checksummed: what tilecheck's own writer uses


def edited(src, dst, edit):
    """Copies a file and lets `edit` change the copy in place (same formats; new objects v1.8)."""
    shutil.copy(src, dst)
    with h5py.File(dst, "r+", libver=LIBVER) as f:
        edit(f)


def text(value):
    """A fixed-length ASCII string attribute value, as tilecheck writes strings (h5py: np.bytes_)."""
    return np.bytes_(value.encode())


def write_bytes(path, data):
    pathlib.Path(path).write_bytes(data)


def fixtures(out, work):
    small = work / "golden" / f"{SMALL}.h5"
    shutil.copy(small, out / "valid_m1_n64_k16_gcol_marlin.h5")
    shutil.copy(work / "golden" / "specials_m2_n64_k32_g32_fp32.h5", out / "valid_m2_n64_k32_g32_fp32_specials.h5")

    def code_16(f):
        codes = f["inputs/codes"][()]
        codes[0, 0] = 16
        f["inputs/codes"][...] = codes
    edited(small, out / "edge_code_out_of_range.h5", code_16)

    def a_float32(f):
        a = f["inputs/A"][()].astype(np.float32)
        del f["inputs/A"]
        f.create_dataset("inputs/A", data=a)
    edited(small, out / "edge_A_float32.h5", a_float32)

    def unstored_extent(f):
        # Shape attributes that pass every range check with a chunked /inputs/A of that extent and
        # no chunk written: a few bytes on disk that claim 2^44 elements.
        f.attrs["M"] = np.int64(1 << 30)
        f.attrs["K"] = np.int64(1 << 14)
        del f["inputs/A"]
        f.create_dataset("inputs/A", shape=(1 << 30, 1 << 14), dtype=np.float16, chunks=(1, 64))
    edited(small, out / "edge_A_unstored_huge_extent.h5", unstored_extent)

    def str_case_id(f):
        f.attrs["case_id"] = SMALL  # a Python str: h5py writes a variable-length string
    edited(small, out / "edge_case_id_variable_length_string.h5", str_case_id)

    data = small.read_bytes()
    write_bytes(out / "edge_truncated.h5", data[: len(data) * 2 // 3])
    write_bytes(out / "edge_signature_only.h5", data[:8])
    write_bytes(out / "edge_empty.h5", b"")


def outputs(out, work):
    expected = None
    with h5py.File(work / "golden" / f"{SMALL}.h5", "r") as f:
        expected = f["ref/expected"][()]  # (1, 64) float16

    def output(name, **create):
        with h5py.File(out / name, "w", libver=LIBVER) as f:
            f.create_dataset("C", **create)

    output("valid_C_1x64.h5", data=expected)
    specials = np.tile(expected, (16, 1))
    bits = specials.view(np.uint16)
    bits[1, :4] = [0x7C00, 0xFC00, 0x7E00, 0x8000]  # +Inf, -Inf, NaN, -0
    bits[2, :] = POISON
    output("valid_C_16x64_specials.h5", data=specials)
    output("valid_C_chunked_gzip.h5", data=specials, chunks=(4, 64), compression="gzip")
    output("edge_C_float32.h5", data=expected.astype(np.float32))
    output("edge_C_rank1.h5", data=expected.reshape(-1))
    output("edge_C_0x64.h5", data=np.zeros((0, 64), np.float16))
    output("edge_C_unstored_huge_extent.h5", shape=(1 << 24, 1 << 24), dtype=np.float16, chunks=(1, 64))
    output("edge_C_extent_overflows.h5", shape=(1 << 31, 1 << 31), dtype=np.float16, chunks=(1, 64))
    with h5py.File(out / "edge_C_is_a_group.h5", "w", libver=LIBVER) as f:
        f.create_group("C")
    with h5py.File(out / "edge_no_C.h5", "w", libver=LIBVER) as f:
        f.create_dataset("D", data=expected)


def recordings(out, work):
    expected = None
    with h5py.File(work / "golden" / f"{SMALL}.h5", "r") as f:
        expected = f["ref/expected"][()]

    def recording(name, version=2, variant_key="variant", cells=2, edit=None):
        with h5py.File(out / name, "w", libver=LIBVER) as f:
            f.attrs["recording_schema_version"] = np.int64(version)
            f.attrs["device"] = text("NVIDIA H200, 132 SMs, driver 13.0")
            f.attrs["kernel"] = text("tilecheck-marlin")
            f.attrs["variant"] = text("upstream")
            f.attrs["tilecheck_version"] = text("fuzz seed")
            g = f.create_group("cells")
            for i in range(cells):
                c = g.create_group(str(i))
                c.attrs["case_id"] = text(SMALL)
                c.attrs["config"] = text("m1n8k8gcol" if i % 2 == 0 else "m4n16k4gcol")
                c.attrs["contract"] = text("marlin")
                c.attrs[variant_key] = text("upstream")
                c.attrs["sms"] = np.int64(1 + 6 * i)
                c.attrs["guard_cells"] = np.int64(256)
                c.create_dataset("C", data=expected)
                written = np.array([[1, 0, 0x3C00]] * i, dtype=np.int32).reshape(i, 3)
                c.create_dataset("guard_written", data=written)
            if edit:
                edit(f)

    recording("valid_v2_two_cells.h5")
    recording("valid_v1_order.h5", version=1, variant_key="order", cells=1)
    recording("edge_version_3.h5", version=3)
    recording("edge_gap_after_cell_0.h5", cells=3, edit=lambda f: f["cells"].move("1", "7"))
    recording("edge_unknown_config.h5", edit=lambda f: f["cells/0"].attrs.modify("config", text("m5n8k8gcol")))

    def guard_2_columns(f):
        del f["cells/1/guard_written"]
        f["cells/1"].create_dataset("guard_written", data=np.zeros((1, 2), np.int32))
    recording("edge_guard_written_2_columns.h5", edit=guard_2_columns)
    # A recording written by tilecheck itself (on the H200): schema version 1, three cells.
    shutil.copy(HERE.parents[1] / "fixtures" / "recordings" / "h200-mut01-scales-in-scratch.h5",
                out / "valid_tilecheck_h200_mut01.h5")


def manifests(out, work):
    text = (work / "MANIFEST.json").read_text()
    (out / "valid_two_cases.json").write_text(text)
    m = json.loads(text)
    (out / "valid_no_cases.json").write_text(json.dumps({"format": m["format"], "cases": {}}))
    bad = json.loads(text)
    bad["cases"][SMALL]["/inputs/A"] = bad["cases"][SMALL]["/inputs/A"].upper()
    (out / "edge_upper_case_hash.json").write_text(json.dumps(bad, indent=1))
    bad = json.loads(text)
    bad["format"] = "tilecheck-manifest-v2"
    (out / "edge_format_v2.json").write_text(json.dumps(bad))
    bad = json.loads(text)
    bad["cases"][SMALL] = ["/inputs/A"]
    (out / "edge_case_is_a_list.json").write_text(json.dumps(bad))
    (out / "edge_unicode_escapes.json").write_text(
        '{"format": "tilecheck-manifest-v1", "cases": {"\\u00e9\\ud83d\\ude00\\u0000": {}}}')
    (out / "edge_truncated.json").write_text(text[: len(text) // 2])
    (out / "edge_deep_nesting.json").write_text("[" * 5000 + "]" * 5000)


def catalogues(out):
    shutil.copy(HERE.parents[1] / "fixtures" / "catalogue.txt", out / "valid_committed_catalogue.txt")
    (out / "valid_two_cases.txt").write_text(CATALOGUE)
    line = "normal_m1_n64_k16_gcol_marlin 1 64 16 -1 marlin normal 1 committed"
    (out / "valid_crlf_tabs_no_final_newline.txt").write_bytes(
        ("# comment\r\n" + line.replace(" ", "\t") + "\r\n" + line.replace("normal_m1", "x") + "  # tail").encode())
    (out / "edge_eight_fields.txt").write_text(line.rsplit(" ", 1)[0] + "\n")
    (out / "edge_duplicate_id.txt").write_text(line + "\n" + line + "\n")
    (out / "edge_numbers.txt").write_text(
        "a 99999999999 64 16 -1 marlin normal 1 committed\n"
        "b 1 64 16 48 marlin normal 1 committed\n"
        "c 1 64 16 -1 marlin normal -1 committed\n"
        "d 1 64 16 -1 marlin normal 18446744073709551616 committed\n")
    (out / "edge_nul_bytes.txt").write_bytes(line.encode().replace(b"marlin normal", b"marlin\0normal") + b"\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tilecheck", help="the tilecheck binary (build/default/cli/tilecheck)")
    args = parser.parse_args()
    corpus = HERE / "corpus"
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        (work / "catalogue.txt").write_text(CATALOGUE)
        subprocess.run([args.tilecheck, "golden", "regenerate", "--fixtures", str(work)], check=True,
                       stdout=subprocess.DEVNULL)
        for harness in ["fixture", "output", "recording", "manifest", "catalogue"]:
            shutil.rmtree(corpus / harness, ignore_errors=True)
            (corpus / harness).mkdir(parents=True)
        fixtures(corpus / "fixture", work)
        outputs(corpus / "output", work)
        recordings(corpus / "recording", work)
        manifests(corpus / "manifest", work)
        catalogues(corpus / "catalogue")
    total = sum(p.stat().st_size for p in corpus.rglob("*") if p.is_file())
    print(f"make_corpus: {sum(1 for p in corpus.rglob('*') if p.is_file())} files, {total} bytes in {corpus}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
