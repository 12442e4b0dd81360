// The worker's side of tilecheck/suite/worker.h: load the plugin, make the context, then serve.
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>

#include <cstdio>
#include <memory>

#include <cuda_runtime.h>

#include "tilecheck/core/error.h"
#include "tilecheck/suite/worker.h"
#include "tilecheck/suite/worker_pipe.h"
#include "tilecheck/suite/worker_messages.h"

namespace tc {
namespace {

using worker::Frame;
using worker::Message;

constexpr int kExitFault = 3;    // the kernel faulted: the context is gone, so is this worker
constexpr int kExitFailed = 4;   // could not start (plugin, device) or the parent spoke nonsense

}  // namespace

int serve_worker(const std::string& kernel_path, int device) {
  worker::ignore_broken_pipes();
  // In a process group of its own (spawn_child) a worker gets no Ctrl-C: it dies with its parent
  // instead, also when the parent is killed outright, and never keeps a GPU busy on its own.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() == 1) return kExitFailed;  // the parent is already gone
  std::unique_ptr<KernelPlugin> plugin;
  try {
    plugin = std::make_unique<KernelPlugin>(KernelPlugin::load(kernel_path));
    const std::string why = gpu_unavailable_reason();
    require(why.empty(), why);
    const cudaError_t e = cudaSetDevice(device);
    require(e == cudaSuccess, "cudaSetDevice(", device, "): ", cudaGetErrorString(e));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kExitFailed;
  }
  WorkerInfo info;
  info.kernel_name = plugin->info().name ? plugin->info().name : "";
  info.variant = plugin->info().variant ? plugin->info().variant : "";
  info.configs = plugin->configs();
  info.device = device_description();
  info.multiprocessors = device_multiprocessors();
  info.declares_numerics = plugin->declares_numerics();
  info.formats = plugin->formats();
  info.lists_formats = plugin->declares_formats();
  if (!worker::write_frame(STDOUT_FILENO, Frame::ready, worker::encode_info(info))) return kExitFailed;

  std::unique_ptr<DeviceCase> loaded;
  Workspace workspace;
  for (;;) {
    Frame type{};
    Message m;
    if (worker::read_frame(STDIN_FILENO, type, m, -1) != worker::ReadStatus::ok || type == Frame::quit) return 0;
    try {
      if (type == Frame::load) {
        loaded.reset();  // free the last case's buffers first
        loaded = std::make_unique<DeviceCase>(worker::decode_case(m));  // any format, its buffers too
        continue;
      }
      require((type == Frame::run || type == Frame::ask) && loaded != nullptr, "worker: unexpected frame ",
              static_cast<int>(type));
      const Launch launch = worker::decode_launch(m);
      if (!worker::write_frame(STDOUT_FILENO, Frame::launched, Message())) return kExitFailed;
      KernelRun r;
      if (type == Frame::ask) {
        r.status = loaded->ask(*plugin, launch, workspace);
      } else {
        r = loaded->run(*plugin, launch, workspace);
      }
      if (!worker::write_frame(STDOUT_FILENO, Frame::result, worker::encode_result(r))) return kExitFailed;
      if (r.fault) return kExitFault;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return kExitFailed;
    }
  }
}

}  // namespace tc
