// The payloads that the parent and its workers exchange (tilecheck/suite/worker.h), each written by
// one side and read by the other; kept together so that the two stay in step.
#pragma once
#include "tilecheck/suite/worker.h"
#include "tilecheck/suite/worker_pipe.h"

namespace tc::worker {

Message encode_info(const WorkerInfo& info);
WorkerInfo decode_info(Message& m);

// The protocol's version: the first field of the worker's `ready` frame and of every case it is sent,
// so that a parent and a worker of different tilecheck builds stop with an error that says so.
// 2: a case carries its format and plugin ABI 2's buffers; the ready frame the library's formats.
constexpr std::uint32_t kProtocolVersion = 2;

// A case's operands as the plugin ABI lays them out (tilecheck/suite/kernel_operands.h): shape,
// contract, format, A, B, scales and, where the format has them, zero points, g_idx and perm. The
// decoder checks the version, every enum and that each buffer has the size the shape and format
// give it (a mismatch names the buffer).
Message encode_case(const KernelOperands& ops);
KernelOperands decode_case(Message& m);

Message encode_launch(const Launch& launch);  // the stream stays the worker's own (null); a round travels
Launch decode_launch(Message& m);

Message encode_result(const KernelRun& r);
KernelRun decode_result(Message& m);

}  // namespace tc::worker
