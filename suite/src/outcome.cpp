#include "tilecheck/suite/outcome.h"

#include "tilecheck/reference/error.h"

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

CellOutcome not_run_outcome(const Cell& cell, const std::string& family, const std::string& why) {
  CellOutcome out;
  out.cell = cell;
  out.family = family;
  out.status = CellStatus::not_run;
  out.message = why;
  return out;
}

}  // namespace tc
