/* tilecheck plugin ABI: how the suite drives any INT4xFP16 GEMM kernel built as a shared library.
 *
 * A kernel library exports the three functions declared at the end (tc_plugin_info,
 * tc_plugin_workspace_size, tc_plugin_run). tilecheck loads it with dlopen, fills a tc_problem and
 * calls tc_plugin_run. Our own kernel is exposed through exactly this ABI (docs/plugin.md).
 * Optionally it also exports tc_plugin_numerics, declaring its arithmetic and work split per problem
 * (a library without it is judged by the problem's contract with bounds that hold for any split of
 * K), and, since ABI 1.1, tc_plugin_workspace_layout, saying which bytes of its workspace are locks
 * and which are scratch (a library without it has a workspace of locks only).
 *
 * ABI 2 extends ABI 1 by appending only: tc_problem gains fields after ABI 1's, so a library built
 * against the 1.x header still loads and reads the same prefix. tilecheck hands a library that says
 * abi_version 1 only problems of ABI 1's one format (fp16 / uint4b8, no act-order), with
 * abi_version 1; a library that says 2 lists the formats it implements with the optional
 * tc_plugin_formats (without it: ABI 1's format only) and is handed only those.
 *
 * Layouts (all device pointers, 16-byte aligned; G = num_groups, the rows of scales):
 *   A:      (M, K) a_dtype row-major, columns in the ORIGINAL K order, also under act-order (a kernel
 *           permutes A itself, as vLLM's marlin_mm does: A'[:, i] = A[:, perm[i]])
 *   B:      int32 (K/16, 2N) for 4-bit codes, (K/16, 4N) for 8-bit codes; rows in the kernel's K
 *           order (row i of the codes is original row perm[i] under act-order). Row kb holds the
 *           16-deep slab [16kb, 16kb+16); each 64-column chunk holds, for mma lane `lane` (r =
 *           2*(lane%4), column lane/4 of n8 blocks b = 0, 1) and n16 tile j of the chunk, the eight
 *           codes rows r, r+1, r+8, r+9 of block 0 and of block 1:
 *             4-bit: 128 words a chunk; word 4*lane + j, nibbles 0..7 =
 *                    b0:r b0:r8 b1:r b1:r8 b0:r1 b0:r9 b1:r1 b1:r9 (nibble 0 in bits 0-3)
 *             8-bit: 256 words a chunk; word 8*lane + 2*j + b, bytes 0..3 = b:r b:r8 b:r1 b:r9
 *           (docs/plugin.md; reference/marlin_format.h, reference/marlin_format_8bit.h)
 *   scales: (G, N) scale_dtype, Marlin-permuted (grouped: an 8x8 transpose within each 64 columns;
 *           per column: the accumulator fragment order within each 32 columns); G = K/group, or 1
 *           for per-column scales (group = -1)
 *   zero_points (uint4 only): int32 (G, N/8). Take a row of zero points z[n] in 0..15; move column
 *           n to p = the grouped scale permutation of n (64*(n/64) + 8*(n%8) + (n%64)/8, also for
 *           per-column scales); position p goes to word p/8, nibble 4*(p%2) + (p%8)/2 (the
 *           interleave 0 2 4 6 1 3 5 7 of vLLM's marlin_zero_points; reference/zero_points.h)
 *   g_idx (act-order): int32 (K), the scale group of each row in the kernel's order: sorted
 *           (g_idx[i] <= g_idx[i+1]); it is the checkpoint's g_idx at perm[i]
 *   perm (act-order):  int32 (K), row i of the kernel's order is original row perm[i]
 *   C:      (M, N) c_dtype row-major, written by the kernel
 * Plain C, so that any toolchain can implement it. */
#ifndef TILECHECK_PLUGIN_H
#define TILECHECK_PLUGIN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TC_PLUGIN_ABI_VERSION 2
/* 1.1 added the optional tc_plugin_workspace_layout; 2.0 the format fields of tc_problem and the
   optional tc_plugin_formats. Libraries of 1.0, 1.1 and 2.0 all load. */
#define TC_PLUGIN_ABI_MINOR 0
#define TC_PLUGIN_ABI_OLDEST 1 /* the oldest abi_version tilecheck loads */

#if defined(__GNUC__)
#define TC_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define TC_PLUGIN_EXPORT
#endif

typedef enum {
  TC_OK = 0,
  TC_ERR_INVALID_ARGUMENT = 1, /* a size, pointer, alignment or option is invalid */
  TC_ERR_UNSUPPORTED = 2,      /* valid problem, but no configuration of this kernel runs it */
  TC_ERR_WORKSPACE = 3,        /* workspace missing, too small, or not in its zeroed state */
  TC_ERR_CUDA = 4              /* a CUDA call or the launch failed */
} tc_status;

typedef enum {
  TC_CONTRACT_MARLIN = 0, /* fp16 partial sums in C; per-column: RN16(RN16(acc) * s) */
  TC_CONTRACT_FP32 = 1    /* fp32 partial sums in the workspace; per-column: RN16(acc * s) */
} tc_contract;

/* A tile configuration; all zero asks the kernel to choose. */
typedef struct {
  int m_blocks;     /* 16-row blocks per thread-block tile: 1..4 */
  int n_blocks;     /* 16-column blocks: 8 (128 wide) or 16 (256 wide) */
  int k_blocks;     /* 16-deep blocks: 8 (128 deep) or 4 (64 deep) */
  int group_blocks; /* group / 16, or -1 for per-column scales */
} tc_tile_config;

/* ABI 2. Every enum starts at 1: a field left 0 is refused as not declared. */
typedef enum {
  TC_DTYPE_FP16 = 1,
  TC_DTYPE_BF16 = 2
} tc_dtype;

typedef enum {
  TC_WEIGHT_UINT4B8 = 1,  /* 4-bit code q stands for q - 8 (GPTQ symmetric; ABI 1's only type) */
  TC_WEIGHT_UINT4 = 2,    /* 4-bit code q with a per-group zero point z stands for q - z (AWQ) */
  TC_WEIGHT_UINT8B128 = 3 /* 8-bit code q stands for q - 128 (GPTQ 8-bit) */
} tc_weight_type;

/* A format a library implements (ABI 2): what the operands hold, not their sizes. Grouped and
   per-column scales are not formats: a library refuses a group it does not run, as in ABI 1. */
typedef struct {
  int a_dtype;     /* tc_dtype of A */
  int scale_dtype; /* tc_dtype of scales */
  int c_dtype;     /* tc_dtype of C */
  int weight_type; /* tc_weight_type */
  int act_order;   /* 0: none; 1: g_idx and perm are given */
  int is_k_full;   /* 1; 0 only with act_order: the K rows are a tensor-parallel shard's (vLLM's is_k_full) */
} tc_format;

#define TC_FLAG_SKIP_WORKSPACE_CHECK 1u /* do not read the locks back before launching (benchmarks,
                                           CUDA graph capture); the caller vouches they are zero */

typedef struct {
  int abi_version; /* the library's: 1 for a library of ABI 1, else TC_PLUGIN_ABI_VERSION */
  int M, N, K;
  int group;       /* 32, 64, 128, or -1: one scale per output column */
  tc_contract contract;
  const void* A;
  const void* B;
  const void* scales;
  void* C;
  void* workspace;        /* zeroed once by the caller; a launch leaves its locks zero, its scratch
                             in any state (tc_plugin_workspace_layout) */
  size_t workspace_bytes; /* at least tc_plugin_workspace_size() */
  void* stream;           /* cudaStream_t; NULL is the legacy default stream */
  tc_tile_config config;  /* all zero: automatic */
  int sms;                /* grid size (thread blocks); 0: the device's multiprocessor count */
  int max_par;            /* most 64-row problems batched per launch; 0: 16 */
  unsigned flags;
  /* ABI 2: present only when abi_version >= 2 (a library of ABI 1 is never given a problem of
     another format, and reads only the fields above). */
  tc_format format;        /* one the library lists in tc_plugin_formats */
  int bits;                /* bits a code: 4 (uint4b8, uint4) or 8 (uint8b128) */
  int num_groups;          /* G, the rows of scales and zero_points: K/group, 1 for per-column scales */
  const void* zero_points; /* uint4: int32 (G, N/8), packed (layouts above); NULL otherwise */
  const void* g_idx;       /* act_order: int32 (K), sorted; NULL otherwise */
  const void* perm;        /* act_order: int32 (K); NULL otherwise */
} tc_problem;

typedef struct {
  int abi_version;         /* TC_PLUGIN_ABI_VERSION the library was built against (1 or 2) */
  const char* name;        /* e.g. "tilecheck-marlin" */
  const char* variant;     /* e.g. "upstream", "swapped", "mut07-no-lock" */
  int config_count;        /* entries in configs */
  const tc_tile_config* configs;
} tc_plugin_info_t;

/* A kernel's numerics (docs/numerics.md, "Declared numerics"). Every enum starts at 1: a field left
 * zero is refused as not declared, and so is any value not listed here. */
typedef enum {
  TC_ACCUMULATOR_FP32 = 1, /* fp32 MMA accumulators (all tilecheck can bound) */
  TC_ACCUMULATOR_FP16 = 2  /* fp16 accumulators: declared honestly, refused by the judge */
} tc_accumulator;

typedef enum {
  TC_PARTIALS_FP16 = 1, /* partial sums passed between thread blocks are stored as fp16 */
  TC_PARTIALS_FP32 = 2  /* ... as fp32 */
} tc_partials;

typedef enum {
  TC_EPILOGUE_ROUND_THEN_SCALE = 1,   /* per-column scales: RN16(RN16(acc) * s) */
  TC_EPILOGUE_SCALE_THEN_ROUND = 2,   /* per-column scales: RN16(RN32(acc * s)); grouped scales: each is RN16(acc) */
  TC_EPILOGUE_SCALE_BEFORE_REDUCE = 3 /* per-column scales: each block's fp32 sum times s in fp32 before the reduction
                                         between blocks (the partials hold scaled sums), RN16 of the total: vLLM's
                                         Marlin for 8-bit codes */
} tc_epilogue;

typedef enum {
  TC_SCHEDULE_MARLIN_STRIPED = 1, /* Marlin's striped split of K over the grid, as reference/schedule.h models it */
  TC_SCHEDULE_UNKNOWN = 2         /* any split of K into slices of at least min_k_slice rows, any reduction order */
} tc_schedule;

typedef struct {
  int accumulator; /* tc_accumulator */
  int partials;    /* tc_partials */
  int epilogue;    /* tc_epilogue */
  int schedule;    /* tc_schedule */
  int min_k_slice; /* the shallowest range of K one thread block sums, in rows: a multiple of 16; 0: not known (16) */
} tc_numerics;

/* ABI 1.1: the parts of a problem's workspace (byte ranges of the tc_plugin_workspace_size bytes).
 * Locks are zero when a launch starts and the launch must leave them zero; scratch may hold anything
 * when a launch starts (tilecheck fills it with a poison pattern), so the kernel writes what it
 * reads there first. Bytes in neither range are locks. Either range may be empty (bytes 0). */
typedef struct {
  size_t lock_offset;
  size_t lock_bytes;
  size_t scratch_offset;
  size_t scratch_bytes;
} tc_workspace_layout;

/* Static description of the library. */
TC_PLUGIN_EXPORT const tc_plugin_info_t* tc_plugin_info(void);
/* Bytes of workspace tc_plugin_run needs for this problem (sizes, group, contract, config, sms,
 * max_par are read; pointers are not). Returns TC_OK or an error with a message; answering
 * TC_ERR_UNSUPPORTED here, as tc_plugin_run would, lets tilecheck report a cell n/a without a launch
 * (it asks this way once a configuration has faulted and is no longer launched). */
TC_PLUGIN_EXPORT tc_status tc_plugin_workspace_size(const tc_problem* problem, size_t* bytes, char* message,
                                            size_t message_capacity);
/* Validates everything, then launches on problem->stream. Never launches on invalid input. On
 * error, writes a one-line reason into message (if not NULL). Thread-safe for different streams
 * with different workspaces; a workspace must not be shared by launches that may run at once. */
TC_PLUGIN_EXPORT tc_status tc_plugin_run(const tc_problem* problem, char* message, size_t message_capacity);
/* OPTIONAL. The numerics tc_plugin_run uses for this problem (sizes, group, contract, config, sms,
 * max_par are read; pointers are not): fills *numerics and returns TC_OK, or TC_ERR_UNSUPPORTED
 * (tilecheck reports the cell n/a) or another error with a message. Called after each run that
 * returned TC_OK, for the same problem. */
TC_PLUGIN_EXPORT tc_status tc_plugin_numerics(const tc_problem* problem, tc_numerics* numerics, char* message,
                                              size_t message_capacity);
/* OPTIONAL (ABI 1.1). The layout of the workspace tc_plugin_workspace_size asked for this problem
 * (the same fields are read). Returns TC_OK or an error with a message. Without it, tilecheck
 * treats the whole workspace as locks: every byte must be zero again after each launch. */
TC_PLUGIN_EXPORT tc_status tc_plugin_workspace_layout(const tc_problem* problem, tc_workspace_layout* layout,
                                                      char* message, size_t message_capacity);

/* OPTIONAL (ABI 2). The formats the library implements: returns an array of *count entries (at
 * least one) that lives as long as the library. tilecheck reads it once, at load, from a library of
 * abi_version 2 only; a problem of a format not listed is n/a without a call. A library without it
 * implements ABI 1's format only (fp16 / uint4b8, no act-order). */
TC_PLUGIN_EXPORT const tc_format* tc_plugin_formats(int* count);

#ifdef __cplusplus
}
#endif

#endif /* TILECHECK_PLUGIN_H */
