#include "tilecheck/suite/run_json.h"

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tilecheck/core/atomic_write.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

constexpr int kRunJsonVersion = 2;  // 2: header, "complete", "not run" cells, "workspace"

nlohmann::json tiers_json(const TierStatuses& t) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, status] : t) out[key] = status;
  return out;
}

// An object {"t0": "pass", ...}; a results file written before the object held "t0=pass ...".
TierStatuses tiers_from_json(const nlohmann::json& cell) {
  const auto it = cell.find("tiers");
  if (it == cell.end() || it->is_null()) return {};
  if (it->is_string()) return parse_tier_line(it->get<std::string>());
  TierStatuses out;
  for (const auto& [key, status] : it->items()) out.emplace_back(key, status.get<std::string>());
  return out;
}

nlohmann::json to_json(const CellOutcome& o) {
  return {{"cell", o.cell.name()},
          {"case", o.cell.case_id},
          {"config", name(o.cell.config)},
          {"contract", std::string(name(o.cell.contract))},
          {"variant", o.cell.variant},
          {"sms", o.cell.sms},
          {"family", o.family},
          {"status", name(o.status)},
          {"worst_ulp", o.worst_ulp},
          {"worst_utilization", o.worst_utilization},
          {"seconds", o.seconds},
          {"message", o.message},
          {"tiers", tiers_json(o.tiers)},
          {"numerics", o.numerics},
          {"hints", o.hints},
          {"workspace", o.workspace},
          {"bound", o.counts.bound},
          {"nonfinite", o.counts.nonfinite},
          {"unwritten", o.counts.unwritten},
          {"guard", o.counts.guard},
          {"not_exact", o.counts.not_exact},
          {"elements", o.counts.elements},
          {"error_map", o.error_map},
          {"error_map_bytes", o.error_map_bytes},
          {"error_map_skipped", o.error_map_skipped}};
}

template <typename T>
T field(const nlohmann::json& cell, const char* key, T otherwise) {
  const auto it = cell.find(key);
  return it == cell.end() || it->is_null() ? otherwise : it->get<T>();
}

CellOutcome from_json(const nlohmann::json& j) {
  CellOutcome o;
  o.cell.case_id = j.at("case").get<std::string>();
  o.cell.config = parse_config(j.at("config").get<std::string>());
  o.cell.contract = parse_contract(j.at("contract").get<std::string>());
  o.cell.variant = j.at("variant").get<std::string>();
  o.cell.sms = j.at("sms").get<int>();
  const std::string written = j.at("cell").get<std::string>();
  require(written == o.cell.name(), "cell '", written, "' does not match its fields (", o.cell.name(), ")");
  o.status = parse_cell_status(j.at("status").get<std::string>());
  o.family = field<std::string>(j, "family", "");
  o.worst_ulp = field<std::int32_t>(j, "worst_ulp", 0);
  o.worst_utilization = field<double>(j, "worst_utilization", 0);
  o.seconds = field<double>(j, "seconds", 0);
  o.message = field<std::string>(j, "message", "");
  o.tiers = tiers_from_json(j);
  o.numerics = field<std::string>(j, "numerics", "");
  o.hints = field<std::vector<std::string>>(j, "hints", {});
  o.workspace = field<std::string>(j, "workspace", "");
  o.counts.bound = field<long long>(j, "bound", 0);
  o.counts.nonfinite = field<long long>(j, "nonfinite", 0);
  o.counts.unwritten = field<long long>(j, "unwritten", 0);
  o.counts.guard = field<long long>(j, "guard", 0);
  o.counts.not_exact = field<long long>(j, "not_exact", 0);
  o.counts.elements = field<long long>(j, "elements", 0);
  o.error_map = field<std::string>(j, "error_map", "");
  o.error_map_bytes = field<std::uint64_t>(j, "error_map_bytes", 0);
  o.error_map_skipped = field<bool>(j, "error_map_skipped", false);
  return o;
}

}  // namespace

void write_run_json(const std::string& path, const RunFile& run) {
  nlohmann::json cells = nlohmann::json::array();
  for (const CellOutcome& o : run.outcomes) cells.push_back(to_json(o));
  const auto count = [&](CellStatus s) {
    return std::count_if(run.outcomes.begin(), run.outcomes.end(), [s](const CellOutcome& o) { return o.status == s; });
  };
  const RunHeader& h = run.header;
  const nlohmann::json doc = {{"tilecheck_run_json", kRunJsonVersion},
                              {"kernel", h.kernel},
                              {"variant", h.variant},
                              {"library", h.library},
                              {"device", h.device},
                              {"tilecheck_version", h.tilecheck_version},
                              {"complete", run.complete},
                              {"cells", cells},
                              {"pass", count(CellStatus::pass)},
                              {"fail", count(CellStatus::fail)},
                              {"fault", count(CellStatus::fault)},
                              {"hang", count(CellStatus::hang)},
                              {"n/a", count(CellStatus::not_applicable)},
                              {"error", count(CellStatus::error)},
                              {"not run", count(CellStatus::not_run)}};
  write_text_atomically(path, doc.dump(1) + "\n");
}

RunFile read_run_json(const std::string& path) {
  std::ifstream in(path);
  require(in.good(), path, ": cannot read it");
  RunFile run;
  try {
    const nlohmann::json doc = nlohmann::json::parse(in);
    require(doc.is_object() && doc.contains("cells") && doc["cells"].is_array(),
            "no \"cells\" array: not a `tilecheck run --json` file");
    run.header.kernel = field<std::string>(doc, "kernel", "");
    run.header.variant = field<std::string>(doc, "variant", "");
    run.header.library = field<std::string>(doc, "library", "");
    run.header.device = field<std::string>(doc, "device", "");
    run.header.tilecheck_version = field<std::string>(doc, "tilecheck_version", "");
    run.complete = field<bool>(doc, "complete", true);
    std::size_t i = 0;
    for (const nlohmann::json& cell : doc["cells"]) {
      try {
        run.outcomes.push_back(from_json(cell));
      } catch (const std::exception& e) {
        throw Error(cat("cell ", i, ": ", e.what()));
      }
      ++i;
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(cat(path, ": not valid JSON of a `tilecheck run --json` file: ", e.what()));
  } catch (const Error& e) {
    throw Error(cat(path, ": ", e.what()));
  }
  return run;
}

}  // namespace tc
