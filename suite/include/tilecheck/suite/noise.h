// The perturbation tier's device side (docs/perturb.md): one launch of a kernel library with a
// round's noise beside it. The noise is a kernel of ours on a stream of its own that occupies a share
// of the SMs and of their shared memory, streams over a buffer larger than L2 and sleeps in bursts
// drawn from the round's seed, from before the kernel's launch (or right after it) until the kernel
// has ended, and never longer than the round's limit: it cannot hang a run. The library is called as
// in any run; the tier only chooses its stream (of the round's priority), its grid size and the noise.
// Runs where the kernels run: in a worker process (DeviceCase::run, for a Launch that carries a round)
// or in a GPU test.
#pragma once
#include "tilecheck/plugin/plugin_loader.h"
#include "tilecheck/suite/perturb_plan.h"

namespace tc {

// The kernel's stream for a round of priority `p`: a non-blocking stream at the device's highest or
// lowest priority (cudaDeviceGetStreamPriorityRange), made once per process and device.
void* perturbation_stream(StreamPriority p);

// Calls kernel.run(problem) with the round's noise launched before it (and waited for until its
// blocks run, 1 ms at most) or right after it; problem.stream must be perturbation_stream(round.priority).
// A library that exports tc_kernel_set_delay_seed (our delay variants) gets the round's seed first.
// Returns the library's result once the kernel's stream and the noise have ended; a fault of the
// kernel is left for the caller's synchronisation to report (DeviceCase::collect). A failure of the
// noise itself is TC_ERR_CUDA with a message that says so.
RunResult run_perturbed(const KernelPlugin& kernel, const tc_problem& problem, const PerturbRound& round);

}  // namespace tc
