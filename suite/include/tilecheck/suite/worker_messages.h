// The payloads that the parent and its workers exchange (tilecheck/suite/worker.h), each written by
// one side and read by the other; kept together so that the two stay in step.
#pragma once
#include "tilecheck/suite/worker.h"
#include "tilecheck/suite/worker_pipe.h"

namespace tc::worker {

Message encode_info(const WorkerInfo& info);
WorkerInfo decode_info(Message& m);

struct CaseInputs {
  int group = 0;
  Contract contract = Contract::fp32;
  HalfMatrix A;        // (M, K)
  PackedMatrix B;      // (K/16, 2N)
  HalfMatrix scales;   // Marlin-permuted
};
Message encode_case(const HalfMatrix& A, const PackedMatrix& B, const HalfMatrix& scales, int group, Contract contract);
CaseInputs decode_case(Message& m);

Message encode_launch(const Launch& launch);  // the stream stays the worker's own (null); a round travels
Launch decode_launch(Message& m);

Message encode_result(const KernelRun& r);
KernelRun decode_result(Message& m);

}  // namespace tc::worker
