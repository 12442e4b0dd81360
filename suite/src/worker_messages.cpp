#include "tilecheck/suite/worker_messages.h"

#include "tilecheck/plugin/formats.h"
#include "tilecheck/reference/weight_format.h"

namespace tc::worker {
namespace {

// A declaration travels as its plugin.h numbers (1-based enums), checked on arrival like any other
// field a worker sends.
void put_numerics(Message& m, const std::optional<KernelNumerics>& n) {
  m.put<std::uint8_t>(n ? 1 : 0);
  if (!n) return;
  m.put<std::int32_t>(1 + static_cast<int>(n->numerics.accumulator));
  m.put<std::int32_t>(1 + static_cast<int>(n->numerics.partials));
  m.put<std::int32_t>(1 + static_cast<int>(n->numerics.epilogue));
  m.put<std::int32_t>(1 + static_cast<int>(n->schedule));
  m.put<std::int32_t>(n->min_k_slice);
}

// `last`: the enum's last value; a value added after it changes the calls below and the values
// WorkerMessages.EveryDeclarableNumericsCrosses round-trips.
template <typename Enum>
Enum get_enum(Message& m, const char* what, Enum last) {
  const auto v = m.get<std::int32_t>();
  require(v >= 1 && v <= 1 + static_cast<int>(last), "worker message: ", what, "=", v, " (expected 1..",
          1 + static_cast<int>(last), ")");
  return static_cast<Enum>(v - 1);
}

// A perturbation round travels field by field and is checked on arrival (check_round).
void put_round(Message& m, const std::optional<PerturbRound>& r) {
  m.put<std::uint8_t>(r ? 1 : 0);
  if (!r) return;
  m.put<std::int32_t>(r->index);
  m.put<std::int32_t>(r->noise_sm_percent);
  m.put<std::int32_t>(r->noise_blocks_per_sm);
  m.put<std::int32_t>(r->noise_threads);
  m.put<std::int32_t>(r->noise_smem_kib);
  m.put<std::int32_t>(r->noise_crowd_warp);
  m.put<std::int32_t>(static_cast<std::int32_t>(r->order));
  m.put<std::int32_t>(static_cast<std::int32_t>(r->priority));
  m.put<std::uint32_t>(r->seed);
  m.put<double>(r->noise_limit_ms);
}

std::optional<PerturbRound> get_round(Message& m) {
  if (m.get<std::uint8_t>() == 0) return std::nullopt;
  PerturbRound r;
  r.index = m.get<std::int32_t>();
  r.noise_sm_percent = m.get<std::int32_t>();
  r.noise_blocks_per_sm = m.get<std::int32_t>();
  r.noise_threads = m.get<std::int32_t>();
  r.noise_smem_kib = m.get<std::int32_t>();
  r.noise_crowd_warp = m.get<std::int32_t>();
  r.order = static_cast<NoiseOrder>(m.get<std::int32_t>());
  r.priority = static_cast<StreamPriority>(m.get<std::int32_t>());
  r.seed = m.get<std::uint32_t>();
  r.noise_limit_ms = m.get<double>();
  check_round(r);
  return r;
}

void check_version(Message& m, const char* what) {
  const auto v = m.get<std::uint32_t>();
  require(v == kProtocolVersion, "worker message: ", what, " of worker protocol version ", v, ", expected ",
          kProtocolVersion, ": the worker and its parent are different builds of tilecheck (rebuild both)");
}

// A format travels as its plugin.h numbers (tc_format), checked on arrival like a library's list.
void put_format(Message& m, const tc_format& f) {
  for (const int field : {f.a_dtype, f.scale_dtype, f.c_dtype, f.weight_type, f.act_order, f.is_k_full})
    m.put<std::int32_t>(field);
}

tc_format get_format(Message& m) {
  tc_format f{};
  for (int* field : {&f.a_dtype, &f.scale_dtype, &f.c_dtype, &f.weight_type, &f.act_order, &f.is_k_full})
    *field = m.get<std::int32_t>();
  const std::string bad = format_problem(f);
  require(bad.empty(), "worker message: a format with ", bad);
  return f;
}

// A case's format as FixtureFormat's enums (their order in reference/weight_format.h and catalogue.h).
void put_fixture_format(Message& m, const FixtureFormat& f) {
  m.put<std::int32_t>(static_cast<std::int32_t>(f.dtype));
  m.put<std::int32_t>(static_cast<std::int32_t>(f.weights));
  m.put<std::int32_t>(static_cast<std::int32_t>(f.act_order));
  m.put<std::uint8_t>(f.k_full ? 1 : 0);
}

FixtureFormat get_fixture_format(Message& m) {
  FixtureFormat f;
  const auto dtype = m.get<std::int32_t>(), weights = m.get<std::int32_t>(), act = m.get<std::int32_t>();
  const auto k_full = m.get<std::uint8_t>();
  require(dtype >= 0 && dtype <= 1 && weights >= 0 && weights <= 2 && act >= 0 && act <= 2 && k_full <= 1,
          "worker message: a case's format dtype=", dtype, " weights=", weights, " act_order=", act,
          " k_full=", int(k_full));
  f.dtype = static_cast<Dtype>(dtype);
  f.weights = static_cast<WeightType>(weights);
  f.act_order = static_cast<ActOrder>(act);
  f.k_full = k_full != 0;
  return f;
}

template <typename Matrix>
void require_shape(const Matrix& x, Eigen::Index rows, Eigen::Index cols, const char* what, const FixtureFormat& f) {
  require(x.rows() == rows && x.cols() == cols, "worker message: a case's ", what, " is (", x.rows(), ", ", x.cols(),
          "); format ", name(f), " needs (", rows, ", ", cols, ")");
}

std::vector<int> get_ints(Message& m, const char* what) {
  const auto n = m.get<std::int64_t>();
  require(n >= 0 && static_cast<std::uint64_t>(n) <= m.bytes().size() / sizeof(std::int32_t), "worker message: ",
          what, " of ", n, " entries does not fit the message");
  std::vector<int> v(static_cast<std::size_t>(n));
  if (n > 0) m.get_bytes(v.data(), v.size() * sizeof(int));
  return v;
}

void put_ints(Message& m, const std::vector<int>& v) {
  static_assert(sizeof(int) == 4, "g_idx and perm are int32");
  m.put<std::int64_t>(static_cast<std::int64_t>(v.size()));
  if (!v.empty()) m.put_bytes(v.data(), v.size() * sizeof(int));
}

std::optional<KernelNumerics> get_numerics(Message& m) {
  if (m.get<std::uint8_t>() == 0) return std::nullopt;
  KernelNumerics n;
  n.numerics.accumulator = get_enum(m, "accumulator", Accumulator::fp16);
  n.numerics.partials = get_enum(m, "partials", Partials::fp32);
  n.numerics.epilogue = get_enum(m, "epilogue", Epilogue::scale_before_reduce);
  n.schedule = get_enum(m, "schedule", ScheduleKind::unknown);
  n.min_k_slice = m.get<std::int32_t>();
  require(n.min_k_slice >= 16 && n.min_k_slice % 16 == 0, "worker message: min_k_slice=", n.min_k_slice);
  return n;
}

}  // namespace

Message encode_info(const WorkerInfo& info) {
  Message m;
  m.put<std::uint32_t>(kProtocolVersion);
  m.put_string(info.kernel_name);
  m.put_string(info.variant);
  m.put<std::int32_t>(static_cast<std::int32_t>(info.configs.size()));
  for (const TileConfig& c : info.configs) m.put(c);
  m.put_string(info.device);
  m.put<std::int32_t>(info.multiprocessors);
  m.put<std::uint8_t>(info.declares_numerics ? 1 : 0);
  m.put<std::uint8_t>(info.lists_formats ? 1 : 0);
  m.put<std::int32_t>(static_cast<std::int32_t>(info.formats.size()));
  for (const tc_format& f : info.formats) put_format(m, f);
  return m;
}

WorkerInfo decode_info(Message& m) {
  WorkerInfo info;
  check_version(m, "the ready frame");
  info.kernel_name = m.get_string();
  info.variant = m.get_string();
  const int count = m.get<std::int32_t>();
  for (int i = 0; i < count; ++i) info.configs.push_back(m.get<TileConfig>());
  info.device = m.get_string();
  info.multiprocessors = m.get<std::int32_t>();
  info.declares_numerics = m.get<std::uint8_t>() != 0;
  info.lists_formats = m.get<std::uint8_t>() != 0;
  const auto formats = m.get<std::int32_t>();
  require(formats >= 1 && formats <= 1024, "worker message: ", formats, " formats (expected 1 to 1024)");
  info.formats.clear();  // the default's ABI 1 format: the worker's list replaces it
  for (int i = 0; i < formats; ++i) info.formats.push_back(get_format(m));
  return info;
}

Message encode_case(const KernelOperands& ops) {
  Message m;
  m.put<std::uint32_t>(kProtocolVersion);
  for (const int field : {ops.shape.M, ops.shape.N, ops.shape.K, ops.shape.group}) m.put<std::int32_t>(field);
  m.put<std::int32_t>(static_cast<std::int32_t>(ops.contract));
  put_fixture_format(m, ops.format);
  m.put_matrix(ops.A);
  m.put_matrix(ops.B);
  m.put_matrix(ops.scales);
  m.put_matrix(ops.zero_points);
  put_ints(m, ops.g_idx);
  put_ints(m, ops.perm);
  return m;
}

KernelOperands decode_case(Message& m) {
  check_version(m, "a case");
  KernelOperands c;
  Shape& s = c.shape;
  for (int* field : {&s.M, &s.N, &s.K, &s.group}) *field = m.get<std::int32_t>();
  require(s.M >= 1 && s.N >= 8 && s.N % 8 == 0 && s.K >= 16 && s.K % 16 == 0 &&
              (s.group == -1 || (s.group > 0 && s.K % s.group == 0)),
          "worker message: a case of M=", s.M, " N=", s.N, " K=", s.K, " group=", s.group);
  const auto contract = m.get<std::int32_t>();
  require(contract == 0 || contract == 1, "worker message: contract=", contract);
  c.contract = static_cast<Contract>(contract);
  c.format = get_fixture_format(m);
  const FixtureFormat& f = c.format;
  const Eigen::Index G = s.group > 0 ? s.K / s.group : 1;
  c.A = m.get_matrix<HalfMatrix>();
  require_shape(c.A, s.M, s.K, "A", f);
  c.B = m.get_matrix<PackedMatrix>();
  require_shape(c.B, s.K / 16, Eigen::Index(s.N) * 2 * code_bits(f.weights) / 4, "packed B", f);
  c.scales = m.get_matrix<HalfMatrix>();
  require_shape(c.scales, G, s.N, "scales", f);
  c.zero_points = m.get_matrix<PackedMatrix>();
  if (has_zero_points(f.weights)) {
    require_shape(c.zero_points, G, s.N / 8, "zero points", f);
  } else {
    require_shape(c.zero_points, 0, 0, "zero points", f);
  }
  c.g_idx = get_ints(m, "g_idx");
  c.perm = get_ints(m, "perm");
  const std::size_t rows = f.act_order != ActOrder::none ? static_cast<std::size_t>(s.K) : 0;
  require(c.g_idx.size() == rows && c.perm.size() == rows, "worker message: a case's g_idx and perm have ",
          c.g_idx.size(), " and ", c.perm.size(), " entries; format ", name(f), " needs ", rows);
  return c;
}

Message encode_launch(const Launch& launch) {
  Message m;
  m.put(launch.config);
  m.put<std::int32_t>(launch.sms);
  m.put<std::int32_t>(launch.max_par);
  m.put<std::uint32_t>(launch.flags);
  put_round(m, launch.perturb);
  return m;
}

Launch decode_launch(Message& m) {
  Launch l;
  l.config = m.get<TileConfig>();
  l.sms = m.get<std::int32_t>();
  l.max_par = m.get<std::int32_t>();
  l.flags = m.get<std::uint32_t>();
  l.perturb = get_round(m);
  return l;
}

Message encode_result(const KernelRun& r) {
  Message m;
  m.put<std::int32_t>(r.status.status);
  m.put<std::uint8_t>(r.fault ? 1 : 0);
  m.put_string(r.status.message);
  m.put_matrix(r.C);
  m.put<std::int64_t>(r.guard.cells);
  m.put<std::int64_t>(static_cast<std::int64_t>(r.guard.written.size()));
  for (const GuardCell& g : r.guard.written) m.put(g);
  put_numerics(m, r.declared);
  m.put_string(r.workspace);
  return m;
}

KernelRun decode_result(Message& m) {
  KernelRun r;
  r.status.status = static_cast<tc_status>(m.get<std::int32_t>());
  r.fault = m.get<std::uint8_t>() != 0;
  r.status.message = m.get_string();
  r.C = m.get_matrix<HalfMatrix>();
  r.guard.cells = m.get<std::int64_t>();
  const auto written = m.get<std::int64_t>();
  require(written >= 0, "worker message: ", written, " guard cells");
  for (std::int64_t i = 0; i < written; ++i) r.guard.written.push_back(m.get<GuardCell>());
  r.declared = get_numerics(m);
  r.workspace = m.get_string();
  return r;
}

}  // namespace tc::worker
