"""Reading tilecheck's HDF5 files into numpy arrays held by dataclasses; notebook parameters.

  golden fixtures  (docs/fixtures-schema.md, schema_version 2, and 1) -> read_fixture(path)
  error maps       (docs/errormap-schema.md, errmap_schema_version 2, and 1) -> read_errmap(path)

Nothing here judges anything: verdicts, ULP distances, allowances, bounds, tile attribution and
the schedule's slices all come from the files (the C++ libraries computed them). The only derived
quantities are the three the schemas define for display: utilisation |ulp| / max(1, allowance),
the conditioning S / |y*|, and the value v a weight code stands for (q - z, code_values).

A v2 error map may hold per-element values for some tiles only (its failing ones): `ErrorMap.stored`
says which elements are real; elsewhere /elements reads as fill values, which comparable(),
utilization() and tile_of() never use.

Shapes: A (M, K) fp16, codes (K, N) uint8, scales (G, N) fp16, zero points (G, N) uint8 (uint4
only), every /ref and /elements array (M, N), every /tiles array (grid_rows, grid_cols). A bf16
case's A, scales and expected output are float32 (every bf16 value is one).
"""
from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field

import h5py
import numpy as np

FIXTURE_SCHEMAS = (1, 2)  # v2 adds formats; a v1 file is fp16-uint4b8
ERRMAP_SCHEMAS = (1, 2)  # v1: every element stored; v2: /tiles/stored says which tiles are
ELEMENT_DATASETS = ("verdict", "mark", "ulp", "allowance", "got", "expected", "y_exact", "S", "E",
                    "tile", "warp", "lane", "reg")
TILE_DATASETS = ("pass", "fail_bound", "nonfinite", "unwritten", "guard", "worst", "max_abs_ulp",
                 "max_utilization", "row0", "rows", "col0", "cols", "partial", "launch", "column",
                 "writer", "slice_count")


# ----------------------------------------------------------------------------------------- params
def param(name: str, default: str) -> str:
    """A notebook parameter: environment variable `name` if set and non-empty, else `default`."""
    value = os.environ.get(name, "")
    return value if value else default


def param_paths(name: str, default: str) -> list[str]:
    """Several paths: `name` (or `default`) holds paths or glob patterns separated by ':' or ','.
    Each pattern must match at least one file, so a typo fails loudly instead of plotting less."""
    paths = []
    for pattern in re.split(r"[:,]", param(name, default)):
        pattern = pattern.strip()
        if not pattern:
            continue
        matches = sorted(glob.glob(pattern))
        if not matches:
            raise FileNotFoundError(f"{name}: no file matches {pattern!r} (cwd {os.getcwd()})")
        paths += matches
    return paths


# ------------------------------------------------------------------------------------ reading
def _attr(value):
    """HDF5 attribute -> plain Python: fixed-length strings come back from h5py as bytes."""
    if isinstance(value, bytes):
        return value.decode("ascii")
    if isinstance(value, np.generic):
        return value.item()
    return value


def _values(ds) -> np.ndarray:
    """A dataset's values; bf16 (a bf16 case's got and expected) as float32, which holds every
    bf16 value, whatever 2-byte type this h5py would pick for it."""
    t = ds.id.get_type()
    bf16 = isinstance(t, h5py.h5t.TypeFloatID) and t.get_size() == 2 and t.get_ebias() == 127
    return ds.astype(np.float32)[()] if bf16 else ds[()]


def _attrs(obj) -> dict:
    return {k: _attr(v) for k, v in obj.attrs.items()}


def parse_codes(text: str) -> dict[int, tuple[str, str]]:
    """"0 '.' exact, 1 '1' one ULP" -> {0: ('.', 'exact'), 1: ('1', 'one ULP')} (mark_codes);
    "0 PASS, 1 FAIL_BOUND" -> {0: ('PASS', 'PASS'), ...} (verdict_codes)."""
    codes = {}
    for item in text.split(","):
        m = re.match(r"\s*(\d+)\s+(?:'(.)'\s*(.*)|(\S+))\s*$", item)
        if not m:
            raise ValueError(f"cannot parse code list item {item!r} in {text!r}")
        if m.group(2) is not None:
            codes[int(m.group(1))] = (m.group(2), m.group(3))
        else:
            codes[int(m.group(1))] = (m.group(4), m.group(4))
    return codes


@dataclass
class Fixture:
    """One golden case (docs/fixtures-schema.md)."""
    path: str
    attrs: dict
    A: np.ndarray          # (M, K) float16 (float32 for a bf16 case)
    codes: np.ndarray      # (K, N) uint8, 0..15 (0..255 for uint8b128)
    scales: np.ndarray     # (G, N) float16 (float32 for a bf16 case)
    zero_points: np.ndarray | None  # (G, N) uint8 0..15 (/inputs/zero_points, uint4); else None
    y_exact: np.ndarray    # (M, N) float64, per-column scales not applied
    S: np.ndarray          # (M, N) float64, sum of |a * w|
    expected: np.ndarray   # (M, N) float16 (float32 for a bf16 case)

    case_id = property(lambda self: self.attrs["case_id"])
    M = property(lambda self: int(self.attrs["M"]))
    N = property(lambda self: int(self.attrs["N"]))
    K = property(lambda self: int(self.attrs["K"]))
    group_size = property(lambda self: int(self.attrs["group_size"]))
    contract = property(lambda self: self.attrs["contract"])
    distribution = property(lambda self: self.attrs["distribution"])
    dtype = property(lambda self: self.attrs.get("dtype", "fp16"))          # v1: fp16
    weight_type = property(lambda self: self.attrs.get("weight_type", "uint4b8"))

    @property
    def format(self) -> str:
        """The format's name as in case ids: `<dtype>-<weight_type>[-act<order>][-kpart]`."""
        a = self.attrs
        act = a.get("act_order", "none")
        return (f"{self.dtype}-{self.weight_type}" + ("" if act == "none" else f"-act{act}")
                + ("" if int(a.get("is_k_full", 1)) else "-kpart"))

    def describe(self) -> str:
        g = "per-column" if self.group_size == -1 else str(self.group_size)
        a = self.attrs
        return (f"{self.case_id}: M={self.M} N={self.N} K={self.K} group={g} format={self.format}"
                f" contract={self.contract} distribution={self.distribution} seed={a['seed']}"
                f" (generator {a['generator_version']}, rng {a['rng']})")


def read_fixture(path: str) -> Fixture:
    with h5py.File(path, "r") as f:
        attrs = _attrs(f)
        version = attrs.get("schema_version")
        if version not in FIXTURE_SCHEMAS:
            raise ValueError(f"{path}: schema_version {version!r}, this reader knows {FIXTURE_SCHEMAS}"
                             " (is it an error map? use read_errmap)")
        # bf16 (schema v2) has no numpy dtype: HDF5 converts it to float32 exactly.
        half = ((lambda d: d.astype(np.float32)[()]) if attrs.get("dtype") == "bf16" else (lambda d: d[()]))
        return Fixture(path=path, attrs=attrs, A=half(f["inputs/A"]), codes=f["inputs/codes"][()],
                       scales=half(f["inputs/scales"]),
                       zero_points=f["inputs/zero_points"][()] if "inputs/zero_points" in f else None,
                       y_exact=f["ref/y_exact"][()],
                       S=f["ref/S"][()], expected=half(f["ref/expected"]))


@dataclass
class ErrorMap:
    """One comparison (docs/errormap-schema.md). `el` holds /elements, `tiles` holds /tiles."""
    path: str
    attrs: dict
    el: dict                      # name -> (M, N) array; ulp widened to int64; got and
                                  # expected float16 (float32 for a bf16 case)
    tiles: dict                   # name -> (grid_rows, grid_cols) array
    slices: np.ndarray            # (n, 7) int32, columns slice_columns
    slice_columns: tuple
    mark_codes: dict              # code -> (char, meaning)
    verdict_codes: dict           # code -> (name, name)
    ulp_not_comparable: int
    histogram: np.ndarray         # (9,) int
    histogram_bins: tuple
    worst: np.ndarray             # (n, 2) int: row, col, worst first
    stored: np.ndarray            # (M, N) bool: the element's values are in the file (v1: all)
    guard_cells: int
    guard_written: np.ndarray     # (n, 3) int: row, col, bits
    hints: list = field(default_factory=list)

    M = property(lambda self: int(self.attrs["M"]))
    N = property(lambda self: int(self.attrs["N"]))
    K = property(lambda self: int(self.attrs["K"]))
    sms = property(lambda self: int(self.attrs["sms"]))
    config = property(lambda self: self.attrs["config"])
    contract = property(lambda self: self.attrs["contract"])
    case_id = property(lambda self: self.attrs["case_id"])
    passed = property(lambda self: bool(self.attrs["passed"]))
    grid = property(lambda self: (int(self.attrs["grid_rows"]), int(self.attrs["grid_cols"])))

    @property
    def name(self) -> str:
        """The file's name without .errmap.h5 (it may say what produced the output)."""
        base = os.path.basename(self.path)
        return base[:-len(".errmap.h5")] if base.endswith(".errmap.h5") else base

    @property
    def series(self) -> str:
        """Folder and file name without the file name's `_sms<S>` part: maps of one output judged at
        several grid sizes share it (`<case>_<config>_<contract>_sms<S>`, `<case>_<tile>_sms<S>_<kernel>`);
        the folder keeps the same names from two builds apart."""
        folder = os.path.basename(os.path.dirname(os.path.abspath(self.path)))
        return f"{folder}/{re.sub(r'_sms[0-9]+', '', self.name)}"

    @property
    def label(self) -> str:
        """Short name for legends: case, config, contract and grid size."""
        return f"{self.case_id or '(ad hoc)'} {self.config} {self.contract} sms{self.sms}"

    def column(self, name: str) -> np.ndarray:
        """One column of /tiles/slices by its name (tile_row, block, k_tile_begin, ...)."""
        return self.slices[:, self.slice_columns.index(name)]

    def summary(self) -> str:
        """The file's own words: header, tiers and hints."""
        a = self.attrs
        lines = [a["header"], self.label + f" | M={self.M} N={self.N} K={self.K}"
                 f" group={a['group_size']} | {self.grid[0]} x {self.grid[1]} tiles of"
                 f" {a['tile_m']} x {a['tile_n']} (k-tiles of {a['tile_k']})"]
        for t in str(a.get("tiers", "t0,t1,t2")).split(","):  # the tiers the file holds, in order
            lines.append(f"{a.get(t + '_title', t.upper())} {a[t]}: {a[t + '_detail']}")
        lines += [f"hint: {h}" for h in self.hints] or ["hints: none"]
        return "\n".join(lines)


def read_errmap(path: str) -> ErrorMap:
    with h5py.File(path, "r") as f:
        attrs = _attrs(f)
        version = attrs.get("errmap_schema_version")
        if version not in ERRMAP_SCHEMAS:
            raise ValueError(f"{path}: errmap_schema_version {version!r}, this reader knows"
                             f" {ERRMAP_SCHEMAS} (is it a golden fixture? use read_fixture)")
        el = {name: _values(f["elements/" + name]) for name in ELEMENT_DATASETS}
        el["ulp"] = el["ulp"].astype(np.int64)  # abs(-2**31) overflows int32
        tiles = {name: f["tiles/" + name][()] for name in TILE_DATASETS}
        eattrs, tattrs = _attrs(f["elements"]), _attrs(f["tiles"])
        sattrs = _attrs(f["summary"])
        hints = [h for h in attrs.get("hints", "").split("\n") if h]
        stored_tiles = f["tiles/stored"][()] if version >= 2 else np.ones_like(tiles["rows"])
        stored = np.zeros(el["verdict"].shape, dtype=bool)
        for r, c in np.argwhere(stored_tiles != 0):
            r0, c0 = int(tiles["row0"][r, c]), int(tiles["col0"][r, c])
            stored[r0:r0 + int(tiles["rows"][r, c]), c0:c0 + int(tiles["cols"][r, c])] = True
        return ErrorMap(
            path=path, attrs=attrs, el=el, tiles=tiles, slices=f["tiles/slices"][()],
            slice_columns=tuple(tattrs["slices_columns"].split(",")),
            mark_codes=parse_codes(eattrs["mark_codes"]),
            verdict_codes=parse_codes(eattrs["verdict_codes"]),
            ulp_not_comparable=int(eattrs["ulp_not_comparable"]),
            histogram=f["summary/histogram"][()].reshape(-1),
            histogram_bins=tuple(sattrs["histogram_bins"].split(",")),
            worst=f["summary/worst"][()], guard_cells=int(_attrs(f["guard"])["cells"]),
            guard_written=f["guard/written"][()], stored=stored, hints=hints)


def read_errmaps(paths) -> list[ErrorMap]:
    """Several maps, ordered by case, config, contract and grid size."""
    maps = [read_errmap(p) for p in paths]
    return sorted(maps, key=lambda m: (m.case_id, m.config, m.contract, m.sms, m.path))


# ------------------------------------------------------------------- quantities the schemas define
def comparable(em: ErrorMap) -> np.ndarray:
    """(M, N) bool: the element is stored and its ULP distance is a number (not NaN vs number, not
    Inf vs finite)."""
    return em.stored & (em.el["ulp"] != em.ulp_not_comparable)


def utilization(em: ErrorMap) -> np.ndarray:
    """(M, N) |ulp| / max(1, allowance) (docs/errormap-schema.md): <= 1 inside the bound; 0 where
    the allowance is unbounded; inf where the ULP distance is not comparable; nan where the element
    is not stored."""
    ulp, allow = em.el["ulp"], em.el["allowance"].astype(np.int64)
    util = np.abs(ulp) / np.maximum(1, allow)
    util = np.where(allow < 0, 0.0, util)
    return np.where(em.stored, np.where(comparable(em), util, np.inf), np.nan)


def conditioning(S: np.ndarray, y_exact: np.ndarray) -> np.ndarray:
    """S / |y*|: 1 without cancellation, large under cancellation; inf where y* = 0 < S, 1 where
    both are 0 (an all-zero sum has nothing to cancel), nan where y* is not finite."""
    with np.errstate(divide="ignore", invalid="ignore"):
        k = S / np.abs(y_exact)
    k = np.where((S == 0) & (y_exact == 0), 1.0, k)
    return np.where(np.isfinite(y_exact), k, np.nan)


def code_values(fx: Fixture) -> np.ndarray:
    """(K, N) int32 v, the value each code stands for (docs/fixtures-schema.md, `weight_type`):
    q - z with z the row's group's zero point (uint4), q - 8 (uint4b8), q - 128 (uint8b128).
    Grouped without act-order: row k's group is k / group_size (act-order cases: use g_idx)."""
    q = fx.codes.astype(np.int32)
    if fx.zero_points is None:
        return q - int(fx.attrs.get("zero_point", 8))
    if fx.attrs.get("act_order", "none") != "none":
        raise ValueError(f"{fx.case_id}: act-order: the group of row k is g_idx[k], not k / group_size")
    rows = fx.group_size if fx.group_size > 0 else fx.K
    return q - np.repeat(fx.zero_points.astype(np.int32), rows, axis=0)


def tile_of(em: ErrorMap, row: int, col: int) -> tuple[int, int]:
    """The (tile_row, tile_col) of output element (row, col), from the tiles' extents in /tiles
    (so also for an element that is not stored)."""
    t = em.tiles
    inside = ((t["row0"] <= row) & (row < t["row0"] + t["rows"]) &
              (t["col0"] <= col) & (col < t["col0"] + t["cols"]))
    hits = np.argwhere(inside)
    if len(hits) != 1:
        raise ValueError(f"({row}, {col}) is in {len(hits)} tiles of {em.path} (expected 1)")
    return int(hits[0][0]), int(hits[0][1])


def slices_of(em: ErrorMap, tile_row: int, tile_col: int) -> np.ndarray:
    """Rows of /tiles/slices for one tile, in reduction order (as stored)."""
    s = em.slices
    return s[(em.column("tile_row") == tile_row) & (em.column("tile_col") == tile_col)]
