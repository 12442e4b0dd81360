#include "tilecheck/suite/summary.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "tilecheck/core/error.h"

namespace tc {
namespace {

struct Aggregate {
  int cells = 0, fail = 0, fault = 0, hang = 0, not_applicable = 0, error = 0, not_run = 0;
  std::int32_t worst_ulp = 0;
  double worst_utilization = 0;
};

std::string describe(const Aggregate& a) {
  if (a.cells == 0) return "-";
  if (a.fault) return cat("FAULT ", a.fault);
  if (a.hang) return cat("HANG ", a.hang);
  if (a.error) return cat("ERROR ", a.error);
  if (a.fail) return cat("FAIL ", a.fail, "/", a.cells);
  if (a.not_run) return cat("not run ", a.not_run);
  if (a.not_applicable == a.cells) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "pass %d/%.2f", a.worst_ulp, a.worst_utilization);
  return text;
}

}  // namespace

void Summary::add(const CellOutcome& o) { outcomes_.push_back(o); }

int Summary::count(CellStatus s) const {
  return static_cast<int>(std::count_if(outcomes_.begin(), outcomes_.end(), [s](const CellOutcome& o) { return o.status == s; }));
}

void Summary::print(std::ostream& out, std::size_t max_listed) const {
  std::map<std::string, std::map<std::string, Aggregate>> table;  // row -> column -> aggregate
  for (const CellOutcome& o : outcomes_) {
    Aggregate& a = table[config_family(o.cell.config)][o.family];
    ++a.cells;
    a.fail += o.status == CellStatus::fail;
    a.fault += o.status == CellStatus::fault;
    a.hang += o.status == CellStatus::hang;
    a.not_applicable += o.status == CellStatus::not_applicable;
    a.error += o.status == CellStatus::error;
    a.not_run += o.status == CellStatus::not_run;
    a.worst_ulp = std::max(a.worst_ulp, o.worst_ulp);
    a.worst_utilization = std::max(a.worst_utilization, o.worst_utilization);
  }
  constexpr int kRowWidth = 14, kColWidth = 16;
  char line[64];
  std::snprintf(line, sizeof line, "%-*s", kRowWidth, "config \\ case");
  out << line;
  for (const std::string& family : case_families()) {
    std::snprintf(line, sizeof line, "%-*s", kColWidth, family.c_str());
    out << line;
  }
  out << "\n";
  for (const auto& [row, columns] : table) {
    std::snprintf(line, sizeof line, "%-*s", kRowWidth, row.c_str());
    out << line;
    for (const std::string& family : case_families()) {
      const auto it = columns.find(family);
      std::snprintf(line, sizeof line, "%-*s", kColWidth, it == columns.end() ? "-" : describe(it->second).c_str());
      out << line;
    }
    out << "\n";
  }
  out << "(cells: pass <worst |ULP|>/<worst bound utilisation>; FAIL n/m; FAULT n; HANG n; n/a: not implemented "
         "by the library; not run n: no verdict; - none)\n";
  const int listable = static_cast<int>(outcomes_.size()) - count(CellStatus::pass) -
                       count(CellStatus::not_applicable) - count(CellStatus::not_run);
  out << outcomes_.size() << " cells: " << count(CellStatus::pass) << " pass, " << count(CellStatus::fail)
      << " fail, " << count(CellStatus::fault) << " fault, " << count(CellStatus::hang) << " hang, "
      << count(CellStatus::not_applicable) << " n/a, " << count(CellStatus::error) << " error";
  if (count(CellStatus::not_run) > 0) out << ", " << count(CellStatus::not_run) << " not run";
  out << "\n";
  print_reasons(out, CellStatus::not_applicable, "n/a");
  print_reasons(out, CellStatus::not_run, "not run");
  print_error_maps(out);
  std::size_t listed = 0;
  for (const CellOutcome& o : outcomes_) {
    if (o.status == CellStatus::pass || o.status == CellStatus::not_applicable || o.status == CellStatus::not_run)
      continue;
    if (listed++ == max_listed) {
      out << "  ... and " << listable - static_cast<int>(max_listed) << " more (see --json)\n";
      break;
    }
    out << "  " << name(o.status) << " " << o.cell.name() << ": " << o.message;
    if (!o.error_map.empty()) out << " [" << o.error_map << "]";
    if (o.error_map_skipped) out << " [no error map: over the budget]";
    out << "\n";
  }
}

void Summary::print_error_maps(std::ostream& out) const {
  int written = 0, skipped = 0;
  std::uint64_t bytes = 0;
  for (const CellOutcome& o : outcomes_) {
    written += !o.error_map.empty();
    skipped += o.error_map_skipped;
    bytes += o.error_map_bytes;
  }
  if (written + skipped == 0) return;
  char line[160];
  std::snprintf(line, sizeof line, "error maps: %d written (%.1f MB)", written, double(bytes) / 1e6);
  out << line;
  if (skipped > 0) out << "; " << skipped << " not written: the run's error-map budget was reached";
  out << "\n";
}

void Summary::print_reasons(std::ostream& out, CellStatus status, const char* label) const {
  std::map<std::string, int> reasons;  // the words, and how many cells they were said for
  for (const CellOutcome& o : outcomes_)
    if (o.status == status) ++reasons[o.message];
  for (const auto& [reason, cells] : reasons) out << "  " << label << " " << cells << " cells: " << reason << "\n";
}

bool Summary::passed() const {
  return count(CellStatus::fail) + count(CellStatus::fault) + count(CellStatus::hang) + count(CellStatus::error) +
             count(CellStatus::not_run) ==
         0;
}

void Summary::write_json(const std::string& path, const RunHeader& header) const {
  write_run_json(path, {header, count(CellStatus::not_run) == 0, outcomes_});
}

}  // namespace tc
