// SIGINT, SIGTERM and SIGHUP end tilecheck as before (the default action, so callers see the true
// cause), but first remove this run's scratch directories (tilecheck/fixtures/scratch_dir.h), so an
// interrupted `golden check` leaves no folder behind. Half-written outputs need nothing: they are
// temporaries that the next write into their directory removes (tilecheck/core/atomic_write.h).
#pragma once

namespace tc::cli {

void install_termination_cleanup();

}  // namespace tc::cli
