#include "tilecheck/suite/dump_run.h"

#include <vector>

#include "tilecheck/core/error.h"

namespace tc {

DumpRun record_accumulators(const KernelPlugin& dumper, const Fixture& f, Contract contract, const Launch& launch,
                            const Schedule& schedule, const TileInfo& t) {
  require(dumper.can_dump(), dumper.path(), " is not a dump variant (it does not export tc_kernel_run_dump)");
  const LaunchSchedule& ls = schedule.launches.at(t.launch);
  const TileConfig& c = ls.config;
  const int warp_rows = 32 / c.n_blocks, tile_elems = c.tile_m() * c.tile_n();
  const std::size_t floats = static_cast<std::size_t>(ls.k_tiles * warp_rows + t.slice_count()) * tile_elems;
  DeviceCase device(f.A, f.B_marlin, f.scales_marlin, f.spec.shape.group, contract);
  Workspace workspace;
  std::size_t need = 0;
  const RunResult sized = dumper.workspace_size(device.problem(launch, workspace), need);
  require(sized.ok(), "workspace size: ", sized.message);
  workspace.reserve(need);
  DeviceBuffer dump(floats * sizeof(float));
  dump.zero();
  device.poison();
  DumpRun out;
  out.run = device.collect(
      launch, dumper.run_dump(device.problem(launch, workspace), t.launch, t.column, static_cast<float*>(dump.get())));
  if (!out.run.status.ok()) return out;
  std::vector<float> host(floats);
  dump.download(host.data(), floats * sizeof(float));
  const auto records = [&](std::size_t first, int count) {  // the sum of `count` consecutive tile records
    F64Matrix m = F64Matrix::Zero(t.rows, t.cols);
    for (int k = 0; k < count; ++k)
      for (int r = 0; r < t.rows; ++r)
        for (int col = 0; col < t.cols; ++col) m(r, col) += host[(first + k) * tile_elems + r * c.tile_n() + col];
    return m;
  };
  out.dump.after_k_tile.resize(ls.k_tiles);
  for (const Slice& s : t.slices)  // a block's running sum: its warp rows added
    for (int kt = s.k_tile_begin; kt < s.k_tile_end; ++kt)
      out.dump.after_k_tile[kt] = records(std::size_t(kt) * warp_rows, warp_rows);
  if (t.slice_count() > 1)  // the kernel records reduction steps only where there are several
    for (int j = 0; j < t.slice_count(); ++j)
      out.dump.after_step.push_back(records(std::size_t(ls.k_tiles) * warp_rows + j, 1));
  return out;
}

}  // namespace tc
