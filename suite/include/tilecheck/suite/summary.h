// The summary of a suite run: rows are configuration families (tile and group), columns are
// edge-case families; each cell of the table says pass / FAIL / FAULT / HANG / n/a over every matrix cell that
// falls in it, with the worst ULP distance and the worst bound utilisation seen there.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "tilecheck/suite/runner.h"

namespace tc {

class Summary {
 public:
  void add(const CellOutcome& o);
  const std::vector<CellOutcome>& outcomes() const { return outcomes_; }
  int count(CellStatus s) const;
  // Every cell that ran passed: n/a cells (the library does not implement them) fail nothing.
  bool passed() const;

  // The table, then one line per non-passing cell (at most `max_listed`).
  void print(std::ostream& out, std::size_t max_listed = 40) const;
  // Every cell: name, status, worst ULP, utilisation, seconds, message, error map.
  void write_json(const std::string& path) const;

 private:
  void print_not_applicable(std::ostream& out) const;  // one line per distinct reason, with its count
  void print_error_maps(std::ostream& out) const;      // how many written, their size, how many skipped

  std::vector<CellOutcome> outcomes_;
};

}  // namespace tc
