// A suite cell's outcome: its verdict (or why it has none) with the numbers the summary, the JSON
// and the kill matrix read. Produced by the judge chain (tilecheck/suite/judge.h) or, for cells that
// left nothing to judge, from how their run ended.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tilecheck/compare/compare.h"
#include "tilecheck/suite/cells.h"

namespace tc {

// pass / fail: judged; fault: the kernel faulted, crashed its process or was not run after its
// configuration kept faulting; hang: the watchdog ended it, or its configuration hung too often to
// run it; not_applicable: the library answered TC_ERR_UNSUPPORTED (never a failure); error: any other
// refusal, or a problem judging it; not_run: no verdict, because the run was interrupted or its time
// budget was spent (`tilecheck run --resume` runs such cells).
enum class CellStatus { pass, fail, fault, hang, not_applicable, error, not_run };
const char* name(CellStatus s);
CellStatus parse_cell_status(const std::string& text);  // the inverse of name(); throws naming the text

// A judged cell's tiers, in the comparator's order: (key, status), e.g. {"t0", "n/a"}, {"t1", "fail"}
// (tc::Comparison::tiers). The results file holds them as an object {"t0": "n/a", "t1": "fail", ...}.
using TierStatuses = std::vector<std::pair<std::string, std::string>>;
TierStatuses tier_statuses(const Comparison& c);
std::string tier_line(const TierStatuses& t);               // "t0=n/a t1=fail t2=pass"
TierStatuses parse_tier_line(const std::string& line);      // its inverse (results files of before)
std::string tier_status(const TierStatuses& t, const std::string& key);  // "" when absent

struct CellOutcome {
  Cell cell;
  std::string family;            // case_family() of the cell's case
  CellStatus status = CellStatus::error;
  std::int32_t worst_ulp = 0;    // largest |ulp| over comparable elements
  double worst_utilization = 0;  // largest share of its bound any element used
  std::string message;           // header line, or the fault / error text
  Counts counts;                 // per verdict (judged cells)
  TierStatuses tiers;            // judged cells
  std::vector<std::string> hints;  // hint kinds the comparator found (tc::name(HintKind))
  std::string workspace;         // what the workspace check found after the launch ("" clean)
  std::string error_map;         // written for failing cells when an error-map directory is set
  std::uint64_t error_map_bytes = 0;
  bool error_map_skipped = false;  // failing, but the run's error-map budget had no room for its map
  std::string numerics;          // what the bounds assumed, name(KernelNumerics) (judged cells)
  double seconds = 0;
};

// A cell with no verdict: `why` says what stopped it ("not run: time budget", ...).
CellOutcome not_run_outcome(const Cell& cell, const std::string& family, const std::string& why);

}  // namespace tc
