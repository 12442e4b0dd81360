// _tilecheck: the nanobind module under the Python package `tilecheck` (docs/python.md). It binds
// the libraries' own functions (judging.h); the package's Python layer (tilecheck/_api.py) finds the
// data, converts arrays and tensors, and gives the API its keyword arguments.
//   A: (M, K) dtype   B_marlin: (K/16, 2N) int32   scales: (G, N) dtype   C: (M, N) dtype
// dtype is the case's, fp16 or bf16 (NumPy float16, or float32 holding bf16 values: arrays.h).
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "arrays.h"
#include "judging.h"
#include "kernels.h"
#include "tilecheck/compare/errormap.h"
#include "tilecheck/core/error.h"
#include "tilecheck/reference/dtype.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace tc::py {
namespace {

nb::dict dict_of(std::initializer_list<std::pair<const char*, nb::object>> items) {
  nb::dict d;
  for (const auto& [key, value] : items) d[key] = value;
  return d;
}

GoldenPaths paths(const std::string& fixtures_dir, const std::string& generated_dir) {
  return GoldenPaths{fixtures_dir, generated_dir};
}

nb::dict entry_dict(const CatalogueEntry& e) {
  nb::dict d;
  d["id"] = e.spec.id;
  d["M"] = e.spec.shape.M;
  d["N"] = e.spec.shape.N;
  d["K"] = e.spec.shape.K;
  d["group"] = e.spec.shape.group;
  d["contract"] = std::string(name(e.spec.contract));
  d["distribution"] = std::string(name(e.spec.distribution));
  d["seed"] = e.spec.seed;
  d["storage"] = std::string(name(e.storage));
  d["tiles"] = runnable_tiles(e.spec.shape);
  d["format"] = name(e.spec.format);  // "fp16-uint4b8", "bf16-uint4-actrandom", ...
  return d;
}

// Element (i, j) of a judgement: verdict, values and where the schedule computed it (report.cpp's
// "worst element" paragraph, as data).
nb::dict element_dict(const Judgement& j, int i, int j_col) {
  const Expectation& e = j.expectation;
  const Comparison& c = j.comparison;
  const ElementPlace p = locate(e.schedule, i, j_col);
  const std::vector<Slice> slices = slices_of(e.schedule, p);
  const TileInfo& t = e.grid.at(i, j_col);
  nb::dict d;
  d["row"] = i;
  d["col"] = j_col;
  d["verdict"] = std::string(name(Verdict(c.verdict(i, j_col))));
  d["got"] = to_double(e.dtype, c.got(i, j_col));
  d["expected"] = to_double(e.dtype, e.ref.expected(i, j_col));
  // None where there is no number; nb::object on both sides, since nanobind's none and int_ have no
  // common type in newer releases (the GPU machine's nanobind refused the mixed conditional).
  const auto int_or_none = [](bool none, int value) { return none ? nb::object(nb::none()) : nb::object(nb::int_(value)); };
  d["ulp"] = int_or_none(c.ulp(i, j_col) == kNotComparable, c.ulp(i, j_col));
  d["allowance"] = int_or_none(c.allowance(i, j_col) == kUnbounded, c.allowance(i, j_col));
  d["y_exact"] = e.ref.y_exact(i, j_col);
  d["S"] = e.ref.S(i, j_col);
  d["E"] = e.bounds.E(i, j_col);
  d["tile"] = nb::make_tuple(p.tile_row, p.tile_col);
  d["tile_rows"] = nb::make_tuple(t.row0, t.row0 + t.rows);
  d["tile_cols"] = nb::make_tuple(t.col0, t.col0 + t.cols);
  d["launch"] = p.launch;
  d["block"] = slices.back().block;  // the writer: the last slice's block
  d["slice_count"] = slices.back().slice_count;
  nb::list blocks;
  for (const Slice& s : slices)
    blocks.append(dict_of({{"block", nb::cast(s.block)},
                           {"slice", nb::cast(s.slice_index)},
                           {"k_tiles", nb::make_tuple(s.k_tile_begin, s.k_tile_end)}}));
  d["slices"] = blocks;
  d["warp"] = p.warp;
  d["lane"] = p.lane;
  d["register"] = p.reg;
  return d;
}

// lo and hi: the admissible interval of every element in the case's dtype (NaN: only NaN passes;
// -inf, +inf: anything does, an fp16 partial sum may overflow).
nb::dict bounds_dict(std::shared_ptr<const Expectation> e) {
  const OutputBounds& b = e->bounds;
  const Dtype dtype = e->dtype;
  const std::uint16_t nan_bits = canonical_nan(dtype), minus_inf = from_key(dtype, -inf_key(dtype)),
                      plus_inf = from_key(dtype, inf_key(dtype));
  auto lo_hi = std::make_shared<std::pair<HalfMatrix, HalfMatrix>>(HalfMatrix(b.key_lo.rows(), b.key_lo.cols()),
                                                                   HalfMatrix(b.key_lo.rows(), b.key_lo.cols()));
  for (Eigen::Index i = 0; i < b.key_lo.size(); ++i) {
    const std::uint8_t flags = b.flags.data()[i];
    const bool nan = flags & 1, unbounded = flags & 2;
    const std::uint16_t lo = from_key(dtype, b.key_lo.data()[i]), hi = from_key(dtype, b.key_hi.data()[i]);
    lo_hi->first.data()[i] = nan ? nan_bits : unbounded ? minus_inf : lo;
    lo_hi->second.data()[i] = nan ? nan_bits : unbounded ? plus_inf : hi;
  }
  const nb::capsule owner = keep_alive(e), pair_owner = keep_alive(lo_hi);
  nb::dict d;
  d["lo"] = view_dtype(lo_hi->first, dtype, pair_owner);
  d["hi"] = view_dtype(lo_hi->second, dtype, pair_owner);
  d["E"] = view(b.E, owner);
  d["flags"] = view(b.flags, owner);
  d["numerics"] = name(e->numerics);
  d["config"] = name(e->schedule.launches.front().config);
  return d;
}

// A property that is a view of one of the fixture's arrays, keeping the fixture alive. The view has its
// owner already: the policy must not make the Case its owner too (nanobind refuses both).
template <typename Get>
void array_property(nb::class_<Case>& cls, const char* name, Get get) {
  cls.def_prop_ro(name, [get](const Case& c) { return get(*c.fixture, keep_alive(c.fixture)); },
                  nb::rv_policy::automatic);
}

void bind_case(nb::module_& m) {
  nb::class_<Case> cls(m, "Case");
  cls.def_prop_ro("id", [](const Case& c) { return c.fixture->spec.id; })
      .def_prop_ro("source", [](const Case& c) { return c.source; })
      .def_prop_ro("M", [](const Case& c) { return c.fixture->spec.shape.M; })
      .def_prop_ro("N", [](const Case& c) { return c.fixture->spec.shape.N; })
      .def_prop_ro("K", [](const Case& c) { return c.fixture->spec.shape.K; })
      .def_prop_ro("group", [](const Case& c) { return c.fixture->spec.shape.group; })
      .def_prop_ro("contract", [](const Case& c) { return std::string(name(c.fixture->spec.contract)); })
      .def_prop_ro("distribution", [](const Case& c) { return std::string(name(c.fixture->spec.distribution)); })
      .def_prop_ro("seed", [](const Case& c) { return c.fixture->spec.seed; })
      .def_prop_ro("tiles", [](const Case& c) { return runnable_tiles(c.fixture->spec.shape); })
      .def_prop_ro("format", [](const Case& c) { return name(c.fixture->spec.format); })
      .def_prop_ro("dtype", [](const Case& c) { return std::string(name(c.fixture->spec.format.dtype)); })
      .def_prop_ro("weight_type", [](const Case& c) { return std::string(name(c.fixture->spec.format.weights)); })
      .def_prop_ro("act_order", [](const Case& c) { return std::string(name(c.fixture->spec.format.act_order)); })
      .def_prop_ro("is_k_full", [](const Case& c) { return c.fixture->spec.format.k_full; });
  using Owner = const nb::capsule&;
  using Optional = nb::object;  // None where the case's format has no such array
  array_property(cls, "A", [](const Fixture& f, Owner o) { return view_dtype(f.A, f.spec.format.dtype, o); });
  array_property(cls, "codes", [](const Fixture& f, Owner o) { return view(f.weights.codes, o); });
  array_property(cls, "scales",
                 [](const Fixture& f, Owner o) { return view_dtype(f.weights.scales, f.spec.format.dtype, o); });
  array_property(cls, "zero_points", [](const Fixture& f, Owner o) {
    return f.zero_points.size() == 0 ? Optional(nb::none()) : nb::cast(view(f.zero_points, o));
  });
  array_property(cls, "g_idx", [](const Fixture& f, Owner o) {
    return f.g_idx.empty() ? Optional(nb::none()) : nb::cast(view_vector(f.g_idx, o));
  });
  array_property(cls, "perm", [](const Fixture& f, Owner o) {
    return f.perm.empty() ? Optional(nb::none()) : nb::cast(view_vector(f.perm, o));
  });
  array_property(cls, "B_marlin", [](const Fixture& f, Owner o) {  // none yet for 8-bit codes (fixtures-schema.md)
    return f.B_marlin.size() == 0 ? Optional(nb::none()) : nb::cast(view(f.B_marlin, o));
  });
  array_property(cls, "scales_marlin",
                 [](const Fixture& f, Owner o) { return view_dtype(f.scales_marlin, f.spec.format.dtype, o); });
  array_property(cls, "y_exact", [](const Fixture& f, Owner o) { return view(f.ref.y_exact, o); });
  array_property(cls, "S", [](const Fixture& f, Owner o) { return view(f.ref.S, o); });
  array_property(cls, "expected",
                 [](const Fixture& f, Owner o) { return view_dtype(f.ref.expected, f.spec.format.dtype, o); });
}

void bind_result(nb::module_& m) {
  nb::class_<Result>(m, "Result")
      .def_prop_ro("passed", [](const Result& r) { return r.judgement->outcome.status == CellStatus::pass; })
      .def_prop_ro("verdict", [](const Result& r) { return std::string(name(r.judgement->outcome.status)); })
      .def_prop_ro("message", [](const Result& r) { return r.judgement->outcome.message; })
      .def_prop_ro("report", [](const Result& r) { return r.report; })
      .def_prop_ro("cell", [](const Result& r) { return r.judgement->outcome.cell.name(); })
      .def_prop_ro("config", [](const Result& r) { return name(r.judgement->outcome.cell.config); })
      .def_prop_ro("numerics", [](const Result& r) { return r.judgement->outcome.numerics; })
      .def_prop_ro("error_map_name", [](const Result& r) { return error_map_name(r.judgement->expectation); })
      .def_prop_ro("tiers", [](const Result& r) {
        nb::list tiers;
        for (const TierResult& t : r.judgement->comparison.tiers)
          tiers.append(dict_of({{"key", nb::cast(t.key)},
                                {"title", nb::cast(t.title)},
                                {"status", nb::cast(std::string(name(t.status)))},
                                {"detail", nb::cast(t.detail)}}));
        return tiers;
      })
      .def_prop_ro("counts", [](const Result& r) {
        const Counts& c = r.judgement->comparison.counts;
        return dict_of({{"elements", nb::cast(c.elements)},
                        {"mismatched", nb::cast(c.mismatched())},
                        {"bound", nb::cast(c.bound)},
                        {"nonfinite", nb::cast(c.nonfinite)},
                        {"unwritten", nb::cast(c.unwritten)},
                        {"guard", nb::cast(c.guard)},
                        {"not_exact", nb::cast(c.not_exact)}});
      })
      .def_prop_ro("worst", [](const Result& r) -> nb::object {
        const Comparison& c = r.judgement->comparison;
        if (c.worst.empty()) return nb::none();
        return element_dict(*r.judgement, c.worst.front().first, c.worst.front().second);
      })
      .def("element", [](const Result& r, int i, int j) {
        const Comparison& c = r.judgement->comparison;
        require(i >= 0 && i < c.M && j >= 0 && j < c.N, "element (", i, ", ", j, ") is outside C (", c.M, ", ",
                c.N, ")");
        return element_dict(*r.judgement, i, j);
      }, "row"_a, "col"_a)
      .def("maps", [](const Result& r) {
        const nb::capsule o = keep_alive(r.judgement);
        const Comparison& c = r.judgement->comparison;
        const Dtype dtype = r.judgement->expectation.dtype;
        return dict_of({{"verdict", nb::cast(view(c.verdict, o))},
                        {"mark", nb::cast(view(c.mark, o))},
                        {"ulp", nb::cast(view(c.ulp, o))},
                        {"allowance", nb::cast(view(c.allowance, o))},
                        {"got", nb::cast(view_dtype(c.got, dtype, o))},
                        {"expected", nb::cast(view_dtype(r.judgement->expectation.ref.expected, dtype, o))}});
      })
      .def("bounds", [](const Result& r) {
        return bounds_dict(std::shared_ptr<const Expectation>(r.judgement, &r.judgement->expectation));
      });
}

}  // namespace
}  // namespace tc::py

NB_MODULE(_tilecheck, m) {
  using namespace tc::py;
  m.doc() = "tilecheck's C++ libraries (the judge chain, fixtures, reference); use the package tilecheck";
  nb::exception<tc::Error>(m, "Error", PyExc_ValueError);
  bind_case(m);
  bind_result(m);
  bind_kernel(m);
  m.def("parse_format", [](const std::string& text) { return name(tc::parse_format(text)); });
  m.def("catalogue", [](const std::string& fixtures, const std::string& generated) {
    nb::list entries;
    for (const tc::CatalogueEntry& e : catalogue(paths(fixtures, generated))) entries.append(entry_dict(e));
    return entries;
  });
  m.def("load", [](const std::string& fixtures, const std::string& generated, const std::string& id) {
    nb::gil_scoped_release unlocked;
    return load(paths(fixtures, generated), id);
  });
  m.def("make_reference", [](Input<std::uint16_t> A, Input<std::int32_t> B, Input<std::uint16_t> scales, int group,
                             bool permuted_scales, const std::string& contract) {
    tc::HalfMatrix a = copy(A), s = copy(scales);
    tc::PackedMatrix b = copy(B);
    nb::gil_scoped_release unlocked;
    return make_reference(std::move(a), b, s, group, permuted_scales, tc::parse_contract(contract));
  });
  m.def("bounds", [](const Case& c, const std::string& config, int sms, const std::string& contract,
                     const std::string& schedule) {
    JudgeOptions o;
    o.config = config;
    o.sms = sms;
    o.contract = contract;
    o.schedule = schedule;
    std::shared_ptr<const tc::Expectation> e;
    {
      nb::gil_scoped_release unlocked;
      e = expectation(c, o);
    }
    return bounds_dict(e);
  });
  m.def("judge", [](const Case& c, Input<std::uint16_t> C, const std::string& config, int sms,
                    const std::string& contract, const std::string& schedule, const std::string& error_map,
                    const std::string& error_map_elements, std::size_t max_chars) {
    const tc::HalfMatrix got = copy(C);
    nb::gil_scoped_release unlocked;
    JudgeOptions o;
    o.config = config;
    o.sms = sms;
    o.contract = contract;
    o.schedule = schedule;
    o.error_map = error_map;
    o.error_map_elements = error_map_elements;
    o.max_chars = max_chars;
    return judge(c, got, o);
  });
}
