#include "tilecheck/suite/worker_messages.h"

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

template <typename Enum>
Enum get_enum(Message& m, const char* what) {
  const auto v = m.get<std::int32_t>();
  require(v == 1 || v == 2, "worker message: ", what, "=", v);
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

std::optional<KernelNumerics> get_numerics(Message& m) {
  if (m.get<std::uint8_t>() == 0) return std::nullopt;
  KernelNumerics n;
  n.numerics.accumulator = get_enum<Accumulator>(m, "accumulator");
  n.numerics.partials = get_enum<Partials>(m, "partials");
  n.numerics.epilogue = get_enum<Epilogue>(m, "epilogue");
  n.schedule = get_enum<ScheduleKind>(m, "schedule");
  n.min_k_slice = m.get<std::int32_t>();
  require(n.min_k_slice >= 16 && n.min_k_slice % 16 == 0, "worker message: min_k_slice=", n.min_k_slice);
  return n;
}

}  // namespace

Message encode_info(const WorkerInfo& info) {
  Message m;
  m.put_string(info.kernel_name);
  m.put_string(info.variant);
  m.put<std::int32_t>(static_cast<std::int32_t>(info.configs.size()));
  for (const TileConfig& c : info.configs) m.put(c);
  m.put_string(info.device);
  m.put<std::int32_t>(info.multiprocessors);
  m.put<std::uint8_t>(info.declares_numerics ? 1 : 0);
  return m;
}

WorkerInfo decode_info(Message& m) {
  WorkerInfo info;
  info.kernel_name = m.get_string();
  info.variant = m.get_string();
  const int count = m.get<std::int32_t>();
  for (int i = 0; i < count; ++i) info.configs.push_back(m.get<TileConfig>());
  info.device = m.get_string();
  info.multiprocessors = m.get<std::int32_t>();
  info.declares_numerics = m.get<std::uint8_t>() != 0;
  return info;
}

Message encode_case(const HalfMatrix& A, const PackedMatrix& B, const HalfMatrix& scales, int group, Contract contract) {
  Message m;
  m.put<std::int32_t>(group);
  m.put<std::int32_t>(static_cast<std::int32_t>(contract));
  m.put_matrix(A);
  m.put_matrix(B);
  m.put_matrix(scales);
  return m;
}

CaseInputs decode_case(Message& m) {
  CaseInputs c;
  c.group = m.get<std::int32_t>();
  c.contract = static_cast<Contract>(m.get<std::int32_t>());
  c.A = m.get_matrix<HalfMatrix>();
  c.B = m.get_matrix<PackedMatrix>();
  c.scales = m.get_matrix<HalfMatrix>();
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
