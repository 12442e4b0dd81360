#include "tilecheck/suite/outcome.h"

#include "tilecheck/core/error.h"

namespace tc {

const char* name(CellStatus s) {
  switch (s) {
    case CellStatus::pass: return "pass";
    case CellStatus::fail: return "FAIL";
    case CellStatus::fault: return "FAULT";
    case CellStatus::hang: return "HANG";
    case CellStatus::not_applicable: return "n/a";
    case CellStatus::error: return "ERROR";
    case CellStatus::not_run: return "not run";
  }
  return "?";
}

CellStatus parse_cell_status(const std::string& text) {
  for (CellStatus s : {CellStatus::pass, CellStatus::fail, CellStatus::fault, CellStatus::hang,
                       CellStatus::not_applicable, CellStatus::error, CellStatus::not_run})
    if (text == name(s)) return s;
  throw Error(cat("cell status '", text, "' is none of pass, FAIL, FAULT, HANG, n/a, ERROR, not run"));
}

TierStatuses tier_statuses(const Comparison& c) {
  TierStatuses out;
  for (const TierResult& t : c.tiers) out.emplace_back(t.key, name(t.status));
  return out;
}

std::string tier_line(const TierStatuses& t) {
  std::string line;
  for (const auto& [key, status] : t) line += cat(line.empty() ? "" : " ", key, "=", status);
  return line;
}

TierStatuses parse_tier_line(const std::string& line) {
  TierStatuses out;
  std::size_t begin = 0;
  while (begin < line.size()) {
    std::size_t end = line.find(' ', begin);
    if (end == std::string::npos) end = line.size();
    const std::string word = line.substr(begin, end - begin);
    const std::size_t eq = word.find('=');
    require(eq != std::string::npos && eq > 0, "tiers '", line, "': '", word, "' is not key=status");
    out.emplace_back(word.substr(0, eq), word.substr(eq + 1));
    begin = end + 1;
  }
  return out;
}

std::string tier_status(const TierStatuses& t, const std::string& key) {
  for (const auto& [k, status] : t)
    if (k == key) return status;
  return "";
}

CellOutcome not_run_outcome(const Cell& cell, const std::string& family, const std::string& why) {
  CellOutcome out;
  out.cell = cell;
  out.family = family;
  out.status = CellStatus::not_run;
  out.message = why;
  return out;
}

}  // namespace tc
