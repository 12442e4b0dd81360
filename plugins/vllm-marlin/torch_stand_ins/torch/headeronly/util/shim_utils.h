// tilecheck's stand-in for torch's torch/headeronly/util/shim_utils.h, written for the vllm-marlin
// adapter (plugins/vllm-marlin). vLLM's scalar_type.hpp includes this header for STD_TORCH_CHECK
// alone; the stand-in provides that (Exception.h beside it) and nothing else of torch.
#pragma once

#include "torch/headeronly/util/Exception.h"
