#include "tilecheck/suite/run_matrix.h"

#include <atomic>
#include <cstdio>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>

#include "tilecheck/core/error.h"
#include "tilecheck/suite/interrupt.h"
#include "tilecheck/suite/judge.h"
#include "tilecheck/suite/judge_pool.h"
#include "tilecheck/suite/runner.h"

namespace tc {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kRewriteSeconds = 2;  // the results file is rewritten at most this often during a run
constexpr const char* kPending = "not run: the run had not reached it when this file was written";

// Every cell's outcome so far, and the results file that mirrors them.
class Journal {
 public:
  Journal(const std::vector<Cell>& cells, const MatrixRunOptions& o) : path_(o.json), header_(o.header) {
    for (const Cell& c : cells) {
      const auto f = o.families.find(c.case_id);
      outcomes_.push_back(not_run_outcome(c, f == o.families.end() ? "" : f->second, kPending));
    }
    has_.assign(cells.size(), false);
  }
  void record(std::size_t index, CellOutcome o) {
    std::lock_guard<std::mutex> lock(mutex_);
    outcomes_[index] = std::move(o);
    has_[index] = true;
    if (!path_.empty() && Clock::now() - written_ >= std::chrono::duration<double>(kRewriteSeconds)) write(false);
  }
  bool has(std::size_t index) const { return has_[index]; }
  // The cells without an outcome become "not run" with `why`; the file is written a last time.
  std::vector<CellOutcome> finish(const std::string& why) {
    std::lock_guard<std::mutex> lock(mutex_);
    bool complete = true;
    for (std::size_t i = 0; i < outcomes_.size(); ++i) {
      if (!has_[i]) outcomes_[i].message = why;
      complete = complete && outcomes_[i].status != CellStatus::not_run;
    }
    if (!path_.empty()) write(complete);
    return outcomes_;
  }

 private:
  void write(bool complete) {
    write_run_json(path_, {header_, complete, outcomes_});
    written_ = Clock::now();
  }
  std::mutex mutex_;
  std::string path_;
  RunHeader header_;
  std::vector<CellOutcome> outcomes_;
  std::vector<bool> has_;
  Clock::time_point written_ = Clock::now();
};

// The cells of one case, in matrix order, that still need running: a worker uploads a case's
// inputs once for all of them.
std::vector<std::vector<std::size_t>> case_runs(const std::vector<Cell>& cells, const Journal& journal) {
  std::vector<std::vector<std::size_t>> runs;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (journal.has(i)) continue;
    if (runs.empty() || cells[runs.back().front()].case_id != cells[i].case_id) runs.emplace_back();
    runs.back().push_back(i);
  }
  return runs;
}

// A live run's outcome (on a judging thread): judged, or FAULT / HANG / n/a / ERROR / not run when
// the run left nothing to judge; its seconds are the kernel's run and the judging together.
CellOutcome live_outcome(const Fixture& f, const Cell& cell, const CellRun& r, const MatrixRunOptions& o,
                         std::mutex& hdf5, ErrorMapBudget& budget) {
  const auto judged = Clock::now();
  CellOutcome outcome;
  if (judgeable(r.run)) {
    outcome = judge_cell(f, cell, judged_numerics(r.run.declared, cell.contract, o.schedule),
                         {r.run.C, r.run.guard, r.run.workspace}, o.error_maps, &hdf5, &budget);
  } else {
    outcome = unjudged_outcome(cell, r.run);
    outcome.family = case_family(f.spec);
  }
  outcome.seconds = r.seconds + std::chrono::duration<double>(Clock::now() - judged).count();
  return outcome;
}

// A cell that ended in an exception (its case could not be loaded, its launch or its judging threw).
CellOutcome error_outcome(const Cell& cell, std::string family, const std::exception& e) {
  CellOutcome outcome;
  outcome.cell = cell;
  outcome.family = std::move(family);
  outcome.status = CellStatus::error;
  outcome.message = e.what();
  return outcome;
}

}  // namespace

std::vector<std::optional<CellOutcome>> verdicts_to_keep(const std::vector<Cell>& cells,
                                                         const std::vector<CellOutcome>& done) {
  std::unordered_map<std::string, const CellOutcome*> by_name;
  for (const CellOutcome& d : done)
    if (d.status != CellStatus::not_run) by_name[d.cell.name()] = &d;
  std::vector<std::optional<CellOutcome>> kept(cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto it = by_name.find(cells[i].name());
    if (it != by_name.end()) kept[i] = *it->second;
  }
  return kept;
}

MatrixRun run_matrix(KernelWorkers& workers, const std::vector<Cell>& cells, const GoldenPaths& paths,
                     const MatrixRunOptions& o, const std::vector<CellOutcome>& done) {
  Journal journal(cells, o);
  const std::vector<std::optional<CellOutcome>> kept = verdicts_to_keep(cells, done);
  for (std::size_t i = 0; i < cells.size(); ++i)
    if (kept[i]) journal.record(i, *kept[i]);
  const auto runs = case_runs(cells, journal);
  std::mutex hdf5;  // fixture loads on the feeders, error-map writes on the judges
  ErrorMapBudget budget(o.errmap_budget_bytes);
  MatrixRun result;
  std::mutex recorded_mutex;
  std::atomic<std::size_t> next_run{0}, completed{0};
  std::atomic<bool> out_of_time{false};
  const std::size_t to_run = [&] {
    std::size_t n = 0;
    for (const auto& r : runs) n += r.size();
    return n;
  }();
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(o.time_budget > 0 ? o.time_budget : 1e9));
  // A cell's outcome is in: into the journal, and counted for the progress line.
  const auto settle = [&](std::size_t i, const Cell& cell, const CellOutcome& outcome) {
    journal.record(i, outcome);
    const std::size_t n = ++completed;
    if (o.progress) o.progress(n, to_run, cell);
  };
  {
    JudgePool pool(o.threads);
    // One feeder thread per device: it takes the next case, runs its cells in its worker, and hands
    // each output to the judges, until the cases, the time budget or the run's patience end.
    const auto feed = [&](int slot) {
      SuiteRunner fixtures(nullptr, paths);
      for (std::size_t r = next_run++; r < runs.size(); r = next_run++) {
        for (const std::size_t i : runs[r]) {
          if (interrupt_requested()) return;
          if (Clock::now() >= deadline) {
            out_of_time = true;
            return;
          }
          const Cell& cell = cells[i];
          std::shared_ptr<const Fixture> f;
          std::shared_ptr<const CellRun> run;
          try {  // a case that cannot be loaded, or a launch that throws, is this cell's ERROR
            {
              std::lock_guard<std::mutex> lock(hdf5);
              f = fixtures.shared_fixture(cell.case_id);
            }
            run = std::make_shared<const CellRun>(workers.run(slot, cell, *f));
          } catch (const std::exception& e) {
            const auto family = o.families.find(cell.case_id);
            settle(i, cell, error_outcome(cell, family == o.families.end() ? "" : family->second, e));
            continue;
          }
          if (o.record && judgeable(run->run)) {
            std::lock_guard<std::mutex> lock(recorded_mutex);
            result.recorded.push_back(
                {cell, run->run.C, run->run.guard, run->run.declared, run->run.workspace, f->spec.format.dtype});
          }
          pool.submit(cell, [f, run, i, &cell, &o, &hdf5, &budget, &settle] {
            CellOutcome outcome;
            try {
              outcome = live_outcome(*f, cell, *run, o, hdf5, budget);
            } catch (const std::exception& e) {
              outcome = error_outcome(cell, case_family(f->spec), e);
            }
            settle(i, cell, outcome);
            return outcome;
          });
        }
      }
    };
    std::vector<std::thread> feeders;
    for (int slot = 0; slot < workers.slots(); ++slot) feeders.emplace_back(feed, slot);
    for (std::thread& t : feeders) t.join();
    pool.finish();
  }
  result.interrupted = interrupt_requested();
  result.out_of_time = out_of_time && !result.interrupted;
  char budget_text[64];
  std::snprintf(budget_text, sizeof budget_text, "not run: the time budget (%.0f s) was spent", o.time_budget);
  result.outcomes = journal.finish(result.interrupted ? "not run (interrupted)" : budget_text);
  return result;
}

}  // namespace tc
