#include "tilecheck/suite/perturb_report.h"

#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "tilecheck/core/atomic_write.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

constexpr int kPerturbJsonVersion = 1;

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string seconds_one_decimal(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", s);
  return text;
}

// "FAIL 5, HANG 1"
std::string failed_by_text(const CellRounds& c) {
  std::string text;
  for (const auto& [status, n] : c.failed_by) text += cat(text.empty() ? "" : ", ", name(status), " ", n);
  return text;
}

nlohmann::json to_json(const PerturbRound& r) {
  return {{"index", r.index},
          {"noise_sm_percent", r.noise_sm_percent},
          {"noise_blocks_per_sm", r.noise_blocks_per_sm},
          {"noise_threads", r.noise_threads},
          {"noise_smem_kib", r.noise_smem_kib},
          {"noise_crowd_warp", r.noise_crowd_warp},
          {"order", name(r.order)},
          {"kernel_priority", name(r.priority)},
          {"seed", r.seed},
          {"noise_limit_ms", r.noise_limit_ms},
          {"text", describe(r)}};
}

nlohmann::json to_json(const CellRounds& c) {
  nlohmann::json failed_by = nlohmann::json::object();
  for (const auto& [status, n] : c.failed_by) failed_by[name(status)] = n;
  nlohmann::json first = nullptr;
  if (c.first_failure) {
    const FirstFailure& f = *c.first_failure;
    nlohmann::json tiers = nlohmann::json::object();  // as in the run's results file: {"t0": "n/a", ...}
    for (const auto& [key, status] : f.tiers) tiers[key] = status;
    first = {{"round", to_json(f.round)}, {"status", name(f.status)}, {"message", f.message},
             {"tiers", tiers},           {"workspace", f.workspace}, {"error_map", f.error_map}};
  }
  return {{"cell", c.cell.name()},
          {"case", c.cell.case_id},
          {"config", name(c.cell.config)},
          {"contract", std::string(name(c.cell.contract))},
          {"variant", c.cell.variant},
          {"sms", c.cell.sms},
          {"family", c.family},
          {"verdict", cell_verdict(c)},
          {"rounds_planned", c.rounds_planned},
          {"rounds_run", c.rounds_run},
          {"rounds_failed", c.rounds_failed},
          {"failed_by", failed_by},
          {"first_failure", first},
          {"not_applicable", c.not_applicable},
          {"stopped", c.stopped},
          {"seconds", c.seconds}};
}

}  // namespace

PerturbCounts count(const PerturbRun& run) {
  PerturbCounts n;
  for (const CellRounds& c : run.cells) {
    ++n.cells;
    n.rounds_planned += c.rounds_planned;
    n.rounds_run += c.rounds_run;
    n.rounds_failed += c.rounds_failed;
    const std::string v = cell_verdict(c);
    if (v == "failed") ++n.failed;
    if (v == "passed") ++n.passed;
    if (v == "n/a") ++n.not_applicable;
    if (v == "incomplete") ++n.incomplete;
    if (v == "not run") ++n.not_run;
  }
  return n;
}

bool perturbation_passed(const PerturbRun& run) {
  const PerturbCounts n = count(run);
  return n.failed == 0 && n.incomplete == 0 && n.not_run == 0;
}

void print_perturbation(std::ostream& out, const PerturbRun& run, const PerturbHeader& header) {
  const PerturbCounts n = count(run);
  if (n.failed > 0) out << "cells with failing rounds: " << n.failed << " of " << n.cells << "\n";
  for (const CellRounds& c : run.cells) {
    if (c.rounds_failed == 0) continue;
    out << "  " << c.cell.name() << ": " << c.rounds_failed << " of " << c.rounds_run << " rounds failed ("
        << failed_by_text(c) << ")\n";
    const FirstFailure& f = *c.first_failure;
    nlohmann::json tiers = nlohmann::json::object();  // as in the run's results file: {"t0": "n/a", ...}
    for (const auto& [key, status] : f.tiers) tiers[key] = status;
    // A fault's or hang's message starts with its verdict already ("FAULT: ..."); a judged one does not.
    const std::string verdict = name(f.status);
    const bool named = f.message.rfind(verdict, 0) == 0;
    out << "    first: " << describe(f.round) << "\n    " << (named ? "" : verdict + ": ") << first_line(f.message)
        << "\n";
    if (!f.workspace.empty()) out << "    " << f.workspace << "\n";
    if (!f.error_map.empty()) out << "    error map: " << f.error_map << "\n";
  }
  std::map<std::string, int> stopped, not_applicable;  // each reason once, with its cells
  for (const CellRounds& c : run.cells) {
    if (!c.stopped.empty()) ++stopped[first_line(c.stopped)];
    if (!c.not_applicable.empty()) ++not_applicable[first_line(c.not_applicable)];
  }
  const auto cells_text = [](int cells) { return cat(cells, " cell", cells == 1 ? "" : "s"); };
  for (const auto& [why, cells] : stopped) out << "stopped early: " << cells_text(cells) << ": " << why << "\n";
  for (const auto& [why, cells] : not_applicable) out << "n/a: " << cells_text(cells) << ": " << why << "\n";
  out << "perturb: " << n.cells << " cells, " << n.rounds_run << " of " << n.rounds_planned << " rounds run in "
      << seconds_one_decimal(run.seconds) << " s (seed " << header.seed << ", " << header.rounds << " rounds a cell): "
      << n.failed << " cell" << (n.failed == 1 ? "" : "s") << " failed in " << n.rounds_failed << " round"
      << (n.rounds_failed == 1 ? "" : "s") << ", " << n.passed << " passed, " << n.not_applicable << " n/a, "
      << n.incomplete << " incomplete, " << n.not_run << " not run\n";
}

void write_perturb_json(const std::string& path, const PerturbRun& run, const PerturbHeader& header) {
  nlohmann::json cells = nlohmann::json::array();
  for (const CellRounds& c : run.cells) cells.push_back(to_json(c));
  const PerturbCounts n = count(run);
  const RunHeader& h = header.run;
  const nlohmann::json doc = {{"tilecheck_perturb_json", kPerturbJsonVersion},
                              {"kernel", h.kernel},
                              {"variant", h.variant},
                              {"library", h.library},
                              {"device", h.device},
                              {"tilecheck_version", h.tilecheck_version},
                              {"seed", header.seed},
                              {"rounds", header.rounds},
                              {"noise_limit_ms", header.noise_limit_ms},
                              {"time_budget", header.time_budget},
                              {"seconds", run.seconds},
                              {"interrupted", run.interrupted},
                              {"out_of_time", run.out_of_time},
                              {"passed", perturbation_passed(run)},
                              {"not_in_matrix", header.not_in_matrix},
                              {"counts",
                               {{"cells", n.cells},
                                {"failed", n.failed},
                                {"passed", n.passed},
                                {"n/a", n.not_applicable},
                                {"incomplete", n.incomplete},
                                {"not run", n.not_run},
                                {"rounds_planned", n.rounds_planned},
                                {"rounds_run", n.rounds_run},
                                {"rounds_failed", n.rounds_failed}}},
                              {"cells", cells}};
  write_text_atomically(path, doc.dump(1) + "\n");
}

}  // namespace tc
