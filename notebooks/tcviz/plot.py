"""Small matplotlib helpers: each takes an Axes and draws one view of a Fixture or an ErrorMap
(tcviz.read). They only draw what the files hold."""
import numpy as np

from .read import ErrorMap, Fixture, comparable, conditioning, utilization

# Colours of the tile-map marks . 1 b X N U G (codes 0..6): greens pass, warm colours fail.
MARK_COLORS = ("#e8f5e9", "#a5d6a7", "#43a047", "#d32f2f", "#7b1fa2", "#212121", "#ff9800")
VERDICT_COLORS = ("#81c784", "#d32f2f", "#7b1fa2", "#212121")


def _mpl():
    import matplotlib.pyplot as plt  # imported late: reading needs no matplotlib
    from matplotlib import colors
    return plt, colors


def _tile_grid_axes(ax, em: ErrorMap):
    rows, cols = em.grid
    ax.set_xticks(range(cols))
    ax.set_yticks(range(rows))
    if cols > 24:
        ax.set_xticks(range(0, cols, max(1, cols // 16)))
    if rows > 24:
        ax.set_yticks(range(0, rows, max(1, rows // 16)))
    ax.set_xlabel("tile column")
    ax.set_ylabel("tile row")


def _annotate(ax, values, fmt, color="black", max_cells=400):
    if values.size > max_cells:
        return
    for (r, c), v in np.ndenumerate(values):
        ax.text(c, r, fmt(v), ha="center", va="center", fontsize=8, color=color)


def plot_tile_map(ax, em: ErrorMap, annotate: bool = True):
    """The tile map of the report: each tile's most severe mark (/tiles/worst), with its failing
    element count."""
    plt, colors = _mpl()
    codes = sorted(em.mark_codes)
    cmap = colors.ListedColormap([MARK_COLORS[c] for c in codes])
    norm = colors.BoundaryNorm(np.arange(len(codes) + 1) - 0.5, len(codes))
    im = ax.imshow(em.tiles["worst"], cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
    failing = em.tiles["fail_bound"] + em.tiles["nonfinite"] + em.tiles["unwritten"]
    if annotate:
        chars = {c: ch for c, (ch, _) in em.mark_codes.items()}
        labels = np.vectorize(lambda w, n: f"{chars[int(w)]}\n{n}" if n else chars[int(w)])(
            em.tiles["worst"], failing)
        _annotate(ax, labels, str)
    cb = plt.colorbar(im, ax=ax, ticks=codes)
    cb.ax.set_yticklabels([f"{ch} {meaning}" for _, (ch, meaning) in sorted(em.mark_codes.items())],
                          fontsize=7)
    _tile_grid_axes(ax, em)
    ax.set_title("tile map: worst mark\n(and failing elements)", fontsize=10)
    return im


def plot_tile_values(ax, em: ErrorMap, values, title: str | None = None, cmap="viridis",
                     fmt=lambda v: f"{v:g}", norm=None):
    """A /tiles dataset (by name) or any (grid_rows, grid_cols) array as an annotated heatmap."""
    plt, _ = _mpl()
    name = values if isinstance(values, str) else None
    values = em.tiles[name] if name else np.asarray(values)
    shown = np.where(np.isfinite(values), values, np.nan) if values.dtype.kind == "f" else values
    im = ax.imshow(shown, cmap=cmap, aspect="auto", interpolation="nearest", norm=norm)
    _annotate(ax, values, fmt, color="white")
    plt.colorbar(im, ax=ax)
    _tile_grid_axes(ax, em)
    ax.set_title(title or f"/tiles/{name}", fontsize=10)
    return im


def draw_tile_borders(ax, em: ErrorMap, color="black", lw=0.8):
    """Tile boundaries over an element-level image (element coordinates)."""
    for r in np.unique(em.tiles["row0"]):
        ax.axhline(r - 0.5, color=color, lw=lw)
    for c in np.unique(em.tiles["col0"]):
        ax.axvline(c - 0.5, color=color, lw=lw)


def plot_verdict_map(ax, em: ErrorMap, rows=None, cols=None):
    """Per-element verdict (/elements/verdict), tile borders drawn."""
    plt, colors = _mpl()
    codes = sorted(em.verdict_codes)
    cmap = colors.ListedColormap([VERDICT_COLORS[c] for c in codes])
    norm = colors.BoundaryNorm(np.arange(len(codes) + 1) - 0.5, len(codes))
    v = em.el["verdict"]
    im = ax.imshow(v, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
    cb = plt.colorbar(im, ax=ax, ticks=codes)
    cb.ax.set_yticklabels([em.verdict_codes[c][0] for c in codes], fontsize=7)
    draw_tile_borders(ax, em)
    _zoom(ax, rows, cols)
    ax.set_title("verdict per element")
    ax.set_xlabel("column n")
    ax.set_ylabel("row m")
    return im


def plot_ulp_map(ax, em: ErrorMap, rows=None, cols=None):
    """Signed ULP distance per element on a symmetric log scale; not comparable elements grey."""
    plt, colors = _mpl()
    ulp = em.el["ulp"].astype(float)
    ok = comparable(em)
    shown = np.ma.masked_where(~ok, ulp)
    lim = max(1.0, float(np.abs(ulp[ok]).max()) if ok.any() else 1.0)
    cmap = plt.get_cmap("RdBu_r").copy()
    cmap.set_bad("#9e9e9e")
    im = ax.imshow(shown, cmap=cmap, norm=colors.SymLogNorm(linthresh=1, vmin=-lim, vmax=lim, base=2),
                   aspect="auto", interpolation="nearest")
    top = int(np.ceil(np.log2(lim)))
    powers = [2 ** e for e in range(0, top + 1, max(1, -(-top // 4)))]
    plt.colorbar(im, ax=ax, label="ULP distance got - expected",
                 ticks=[-p for p in reversed(powers)] + [0] + powers)
    draw_tile_borders(ax, em)
    _zoom(ax, rows, cols)
    ax.set_title("ULP distance (grey: not comparable or not stored)")
    ax.set_xlabel("column n")
    ax.set_ylabel("row m")
    return im


def _zoom(ax, rows, cols):
    if rows is not None:
        ax.set_ylim(rows[1] - 0.5, rows[0] - 0.5)
    if cols is not None:
        ax.set_xlim(cols[0] - 0.5, cols[1] - 0.5)


def plot_slices(ax, em: ErrorMap):
    """The schedule the comparator attributed with (/tiles/slices): one bar per slice. y: thread
    block (launches stacked); x: the launch's columns side by side (a column is one output tile),
    each as wide as its k-tiles, the bar covering the slice's k-tile range. Colour: the tile's worst
    mark; a thick edge marks the last slice, whose block writes the tile."""
    tr, tc, blk = em.column("tile_row"), em.column("tile_col"), em.column("block")
    idx, cnt = em.column("slice_index"), em.column("slice_count")
    k0, k1 = em.column("k_tile_begin"), em.column("k_tile_end")
    launch, column = em.tiles["launch"][tr, tc], em.tiles["column"][tr, tc]
    k_tiles = int(k1.max()) if len(k1) else 1
    lane = k_tiles + 1  # one k-tile of space between columns
    rows = sorted(set(zip(launch.tolist(), blk.tolist())))
    y_of = {r: i for i, r in enumerate(rows)}
    for i in range(len(blk)):
        x0 = column[i] * lane + k0[i]
        y = y_of[(int(launch[i]), int(blk[i]))]
        worst = int(em.tiles["worst"][tr[i], tc[i]])
        ax.barh(y, k1[i] - k0[i], left=x0, height=0.8, color=MARK_COLORS[worst], edgecolor="black",
                linewidth=2.0 if idx[i] == cnt[i] - 1 else 0.5)
        if len(blk) <= 48:
            ax.text(x0 + (k1[i] - k0[i]) / 2, y, f"({tr[i]},{tc[i]})\n{idx[i] + 1}/{cnt[i]}",
                    ha="center", va="center", fontsize=7)
    columns = int(column.max()) + 1 if len(column) else 1
    for c in range(columns + 1):
        ax.axvline(c * lane - 0.5, color="grey", lw=0.5)
    step = max(1, columns // 16)
    ax.set_xticks([c * lane + k_tiles / 2 for c in range(0, columns, step)])
    ax.set_xticklabels([f"column {c}" for c in range(0, columns, step)], fontsize=8)
    ax.set_xlim(-0.5, columns * lane - 0.5)
    several = len(set(launch.tolist())) > 1
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"L{l} b{b}" if several else f"b{b}" for l, b in rows], fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel(f"schedule columns (one output tile each), k-tiles of {em.attrs['tile_k']} within each")
    ax.set_ylabel("thread block")
    ax.set_title("slices: (tile) and slice i/count; thick edge: last slice, its block writes the tile",
                 fontsize=10)


def plot_histogram(ax, em: ErrorMap, label: str | None = None, offset=0.0, width=0.8):
    """/summary/histogram: |ulp| counts per bin plus the not comparable count, log scale."""
    x = np.arange(len(em.histogram)) + offset
    bars = ax.bar(x, np.maximum(em.histogram, 0), width=width, label=label)
    ax.set_xticks(np.arange(len(em.histogram)))
    ax.set_xticklabels([b.replace("not_comparable", "n/c") for b in em.histogram_bins], rotation=0)
    ax.set_yscale("symlog", linthresh=1)
    ax.set_xlabel("|ULP distance|")
    ax.set_ylabel("elements")
    return bars


def plot_signed_ulp_hist(ax, em: ErrorMap, mask=None, label=None, max_abs=None):
    """Histogram of signed ULP distances over comparable elements (optionally a subset)."""
    ok = comparable(em) if mask is None else (comparable(em) & mask)
    ulp = em.el["ulp"][ok]
    if ulp.size == 0:
        ax.text(0.5, 0.5, "no comparable elements", transform=ax.transAxes, ha="center")
        return
    lim = int(max_abs if max_abs is not None else max(1, np.abs(ulp).max()))
    if lim <= 32:
        bins = np.arange(-lim, lim + 2) - 0.5
    else:
        bins = np.linspace(-lim, lim, 65)
    ax.hist(np.clip(ulp, -lim, lim), bins=bins, histtype="step" if label else "bar", label=label)
    ax.set_yscale("symlog", linthresh=1)
    ax.set_xlabel("ULP distance got - expected")
    ax.set_ylabel("elements")


def plot_util_vs_conditioning(ax, em: ErrorMap, label=None, s=4, alpha=0.5):
    """Utilisation of the bound against S / |y*|, log-log; the line at 1 is the bound. Elements at
    0 ULP are drawn at the floor so they are visible; not comparable ones are left out."""
    util = utilization(em)
    k = conditioning(em.el["S"], em.el["y_exact"])
    keep = np.isfinite(util) & np.isfinite(k)
    floor = 1e-3
    u = np.maximum(util[keep], floor)
    ax.scatter(k[keep], u, s=s, alpha=alpha, label=label, rasterized=True)
    ax.axhline(1.0, color="red", lw=1, ls="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(bottom=floor / 2)
    ax.set_xlabel("conditioning S / |y*|")
    ax.set_ylabel(f"|ulp| / max(1, allowance); 0 at {floor:g}")


def thumbnail(values, max_side=512):
    """Every s-th row and column so that neither side exceeds max_side; returns (array, s_r, s_c)."""
    rows, cols = values.shape
    sr, sc = max(1, -(-rows // max_side)), max(1, -(-cols // max_side))
    return values[::sr, ::sc], sr, sc


def plot_matrix(ax, values, title, cmap="RdBu_r", symmetric=True, log=False, xlabel="", ylabel=""):
    """A 2-D array as an image, NaN/Inf shown grey; symmetric colour range around 0 by default.
    Large arrays are shown strided (the title says so): an image has no more pixels anyway."""
    plt, colors = _mpl()
    values, sr, sc = thumbnail(np.asarray(values))
    if sr > 1 or sc > 1:
        title += f" (every {sr}th row, {sc}th column)"
    v = values.astype(np.float64)
    finite = np.isfinite(v)
    # masked cells hold 0, not Inf/NaN: matplotlib rescales the data under the mask too
    shown = np.ma.masked_array(np.where(finite, v, 0.0), mask=~finite)
    cm = plt.get_cmap(cmap).copy()
    cm.set_bad("#9e9e9e")
    norm = None
    if log:
        pos = v[finite & (v > 0)]
        if pos.size:
            norm = colors.LogNorm(vmin=pos.min(), vmax=pos.max())
        shown = np.ma.masked_array(np.where(finite & (v > 0), v, 1.0), mask=~finite | (v <= 0))
    elif symmetric and finite.any():
        lim = float(np.abs(v[finite]).max()) or 1.0
        norm = colors.Normalize(vmin=-lim, vmax=lim)
    im = ax.imshow(shown, cmap=cm, norm=norm, aspect="auto", interpolation="nearest")
    plt.colorbar(im, ax=ax)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return im


def plot_code_histogram(ax, fx: Fixture):
    """Counts of each code 0..15 (0..255 for 8-bit codes); code q stands for q - zero_point, the
    line, or q - z with z per group and column (uint4: no single line)."""
    levels = 256 if int(fx.attrs.get("bits", 4)) == 8 else 16
    counts = np.bincount(fx.codes.reshape(-1), minlength=levels)
    ax.bar(np.arange(levels), counts, color="#546e7a")
    zp = int(fx.attrs.get("zero_point", 8))
    if zp >= 0:
        ax.axvline(zp, color="red", lw=1, ls="--", label=f"zero point {zp}")
        ax.legend()
    ax.set_xticks(range(0, levels, 1 if levels == 16 else 32))
    ax.set_xlabel("code q")
    ax.set_ylabel("count")
    ax.set_title(f"{int(np.log2(levels))}-bit codes ({fx.codes.size} weights)")
