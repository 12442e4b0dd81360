// The summary of a suite run: rows are configuration families (tile and group), columns are
// edge-case families; each cell of the table says pass / FAIL / FAULT / HANG / n/a over every matrix cell that
// falls in it, with the worst ULP distance and the worst bound utilisation seen there.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "tilecheck/suite/outcome.h"
#include "tilecheck/suite/run_json.h"

namespace tc {

class Summary {
 public:
  void add(const CellOutcome& o);
  const std::vector<CellOutcome>& outcomes() const { return outcomes_; }
  int count(CellStatus s) const;
  // Every cell ran and passed: n/a cells (the library does not implement them) fail nothing; a cell
  // not run (an interrupted run, a spent time budget) leaves the run unfinished, not passed.
  bool passed() const;

  // The table, then one line per non-passing cell (at most `max_listed`).
  void print(std::ostream& out, std::size_t max_listed = 40) const;
  // Every cell and the counts (tilecheck/suite/run_json.h), complete unless a cell was not run.
  void write_json(const std::string& path, const RunHeader& header = {}) const;

 private:
  void print_reasons(std::ostream& out, CellStatus status, const char* label) const;  // one line per distinct message
  void print_error_maps(std::ostream& out) const;      // how many written, their size, how many skipped

  std::vector<CellOutcome> outcomes_;
};

}  // namespace tc
