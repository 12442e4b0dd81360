// `tilecheck golden list | regenerate | check`: the golden fixtures' catalogue, their deterministic
// regeneration (committed files and MANIFEST.json, reviewed as a diff), and the check CI runs:
// regenerate into a temporary directory and compare every dataset's hash with the manifest. The
// workflows are tc_fixtures' (tilecheck/fixtures/golden.h); this file parses options and prints.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.h"
#include "data_paths.h"
#include "output_paths.h"
#include "tilecheck/fixtures/golden.h"

namespace tc::cli {
namespace {
namespace fs = std::filesystem;

// --fixtures and --generated, resolved when the command runs (data_paths.h).
struct PathOptions {
  DataOptions data;
  GoldenPaths paths;
  void add_to(CLI::App* app) { data.add_to(app); }
  void resolve() { paths = data.find().golden; }
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string group_text(int group) { return is_per_column(group) ? "col" : std::to_string(group); }

std::string join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : separator) + p;
  return out;
}

int run_list(const PathOptions& o) {
  const Catalogue catalogue = load_catalogue(o.paths.catalogue());
  std::printf("%-44s %5s %6s %5s %5s %-8s %-13s %6s %-10s %-15s %s\n", "id", "M", "N", "K", "group",
              "contract", "distribution", "seed", "storage", "tiles", "file");
  int committed = 0, present = 0;
  std::uintmax_t bytes = 0;
  for (const CatalogueEntry& e : catalogue.entries) {
    const Shape& s = e.spec.shape;
    const std::string path = o.paths.location(e);
    std::error_code ec;
    const bool exists = fs::exists(path, ec);
    if (e.storage == Storage::committed) ++committed;
    if (exists) {
      ++present;
      if (e.storage == Storage::committed) bytes += fs::file_size(path, ec);
    }
    const std::vector<std::string> tiles = runnable_tiles(s);
    // A schema v2 format no ABI v1 library runs: its tiles say so instead of listing tiles.
    const std::string runs = !is_v1_format(e.spec.format) ? "none (ABI v1)"
                             : tiles.empty()              ? "none (edge)"
                                                          : join(tiles, ",");
    std::printf("%-44s %5d %6d %5d %5s %-8s %-13s %6llu %-10s %-15s %s\n", e.spec.id.c_str(), s.M, s.N, s.K,
                group_text(s.group).c_str(), std::string(name(e.spec.contract)).c_str(),
                std::string(name(e.spec.distribution)).c_str(), static_cast<unsigned long long>(e.spec.seed),
                std::string(name(e.storage)).c_str(), runs.c_str(), exists ? "present" : "missing");
  }
  std::printf("%zu cases: %d committed (%.1f MB in %s), %zu generated on demand into %s; %d files present\n",
              catalogue.entries.size(), committed, double(bytes) / 1e6, o.paths.golden_dir().c_str(),
              catalogue.entries.size() - committed, o.paths.generated_dir.c_str(), present);
  return 0;
}

struct RegenerateOptions {
  PathOptions paths;
  RegenerateRequest request;
  bool keep_manifest = false;
};

int run_regenerate(const RegenerateOptions& o) {
  const GoldenPaths& paths = o.paths.paths;
  PathPlan().output_dir("--out", o.request.out_dir).check();
  const auto start = std::chrono::steady_clock::now();
  RegenerateProgress progress;
  progress.starting = [](int index, int total, const CatalogueEntry& e) {
    const Shape& s = e.spec.shape;
    std::printf("[%3d/%d] %-44s M=%-5d N=%-5d K=%-5d ... ", index, total, e.spec.id.c_str(), s.M, s.N, s.K);
    std::fflush(stdout);
  };
  progress.finished = [](const CatalogueEntry&, const Regenerated& r, double seconds) {
    std::printf("%.2f s%s\n", seconds, r.written ? "" : " (unchanged, kept)");
  };
  const Regeneration r = regenerate_cases(paths, o.request, progress);
  std::printf("regenerated %d cases in %.1f s (%d files written, %d unchanged)\n", r.cases, seconds_since(start),
              r.written, r.cases - r.written);

  if (r.changes.empty()) {
    std::printf("%s: unchanged\n", paths.manifest().c_str());
  } else if (o.keep_manifest || !o.request.out_dir.empty()) {  // --out writes nothing outside its directory
    std::printf("%s: not updated (%s); %zu differences:\n", paths.manifest().c_str(),
                o.keep_manifest ? "--keep-manifest" : "--out", r.changes.size());
  } else {
    write_manifest(r.manifest, paths.manifest());
    std::printf("%s: updated; %zu differences:\n", paths.manifest().c_str(), r.changes.size());
  }
  for (const std::string& line : r.changes) std::printf("  %s\n", line.c_str());
  return 0;
}

struct CheckOptions {
  PathOptions paths;
  bool all = false;
  bool verbose = false;
};

int run_check(const CheckOptions& o) {
  const GoldenPaths& paths = o.paths.paths;
  const auto start = std::chrono::steady_clock::now();
  const CheckReport report =
      check_golden(paths, o.all, [&](int index, int total, const CatalogueEntry& e, double seconds) {
        if (o.verbose || seconds > 5.0) std::printf("[%3d/%d] %-44s %.2f s\n", index, total, e.spec.id.c_str(), seconds);
        std::fflush(stdout);
      });
  const double seconds = seconds_since(start);
  if (report.ok()) {
    std::printf("golden check: %d cases regenerated, all their datasets match %s (%.1f s)\n", report.cases,
                paths.manifest().c_str(), seconds);
    return 0;
  }
  std::printf("golden check: FAILED: %zu problems in %d cases (%.1f s):\n", report.problems.size(), report.cases,
              seconds);
  for (const std::string& p : report.problems) std::printf("  %s\n", p.c_str());
  std::printf("If the change is intended: `tilecheck golden regenerate`, then review `git diff fixtures/`.\n");
  return 1;
}

}  // namespace

Command add_golden(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "golden", "Golden HDF5 fixtures: list the catalogue, regenerate files and MANIFEST.json, check them");
  app->require_subcommand(1);

  CLI::App* list = app->add_subcommand("list", "List every case of the catalogue, the tiles that can run it, "
                                               "and whether its file is present");
  auto list_options = std::make_shared<PathOptions>();
  list_options->add_to(list);

  CLI::App* regenerate = app->add_subcommand(
      "regenerate", "Regenerate fixtures (default: the committed ones) and update MANIFEST.json");
  auto regen = std::make_shared<RegenerateOptions>();
  regen->paths.add_to(regenerate);
  CLI::Option* cases =
      regenerate->add_option("--case", regen->request.ids, "Regenerate only this case (repeatable)");
  regenerate->add_flag("--all", regen->request.all, "Regenerate every case, the large on-demand ones included")
      ->excludes(cases);
  regenerate->add_option("--out", regen->request.out_dir,
                         "Write the files here instead of golden/ (committed) and --generated (on demand); "
                         "nothing outside it, MANIFEST.json included, is written");
  regenerate->add_flag("--keep-manifest", regen->keep_manifest, "Report hash changes without rewriting MANIFEST.json");
  regenerate->add_flag("--force", regen->request.force,
                       "Also rewrite a file whose datasets are unchanged but whose bytes differ (its generator "
                       "version kept); identical files are never rewritten");

  CLI::App* check = app->add_subcommand(
      "check", "Regenerate into a temporary directory and compare every dataset's hash with MANIFEST.json; "
               "also verify the committed files. Exit 1 listing each differing dataset");
  auto check_options = std::make_shared<CheckOptions>();
  check_options->paths.add_to(check);
  check->add_flag("--all", check_options->all, "Also check the large on-demand cases (slow)");
  check->add_flag("-v,--verbose", check_options->verbose, "Print every case as it is checked");

  return {app, [=] {
            if (list->parsed()) {
              list_options->resolve();
              return run_list(*list_options);
            }
            if (regenerate->parsed()) {
              regen->paths.resolve();
              return run_regenerate(*regen);
            }
            check_options->paths.resolve();
            return run_check(*check_options);
          }};
}

}  // namespace tc::cli
