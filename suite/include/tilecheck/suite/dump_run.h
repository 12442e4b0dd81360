// Runs the dump variant of the kernel (tc_kernel_run_dump, tilecheck/plugin/debug_entry_points.h) on a case and
// decodes what it recorded for one output tile into the form K-bisection reads (tilecheck/compare/bisect.h).
#pragma once
#include "tilecheck/compare/bisect.h"
#include "tilecheck/suite/device_case.h"
#include "tilecheck/fixtures/fixture.h"

namespace tc {

struct DumpRun {
  AccumulatorDump dump;
  KernelRun run;  // the dump variant's own output; dump is empty unless run.status is ok
};

// `schedule` is the launch's schedule (config and sms as in `launch`); `tile` one of its tiles.
DumpRun record_accumulators(const KernelPlugin& dumper, const Fixture& f, Contract contract, const Launch& launch,
                            const Schedule& schedule, const TileInfo& tile);

}  // namespace tc
