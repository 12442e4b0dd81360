// Which cells the misbehaving kit's libraries spoil, and how (misbehaving_plugin.cpp). Shared with
// the tests that assert tilecheck's verdict on each of them.
#pragma once
#include "tilecheck/plugin/plugin.h"

namespace tc_kit {

enum class Behaviour {
  trap = 1,
  hang = 2,
  unsupported = 3,
  wrong_tile = 4,
  crash = 5,
  dirty_lock = 6,      // leaves the workspace's first lock at 1
  scratch_reader = 7,  // reads 2 bytes of its scratch before writing them, into C[0]
  row_past_m = 8       // writes 8 elements of row M, one past the output
};

struct Victim {
  Behaviour behaviour;
  const char* variant;   // the library's variant name: libtc_kit_<variant without "kit-">.so
  tc_tile_config config; // m_blocks 0: any configuration with this group_blocks
  int contract;          // -1: either contract
};

// The victim of each behaviour: a configuration (or group and contract) that the suite's matrix
// reaches with committed fixtures.
constexpr Victim kVictims[] = {
    {Behaviour::trap, "kit-trap", {1, 8, 8, 4}, -1},
    {Behaviour::hang, "kit-hang", {2, 16, 4, 8}, -1},
    {Behaviour::unsupported, "kit-unsupported", {0, 0, 0, 2}, TC_CONTRACT_FP32},
    {Behaviour::wrong_tile, "kit-wrong-tile", {1, 8, 8, -1}, -1},
    {Behaviour::crash, "kit-crash", {4, 16, 4, -1}, -1},
    {Behaviour::dirty_lock, "kit-dirty-lock", {1, 16, 4, 8}, -1},
    {Behaviour::scratch_reader, "kit-scratch-reader", {2, 8, 8, -1}, -1},
    {Behaviour::row_past_m, "kit-row-past-m", {1, 16, 4, -1}, -1},
};

// The scratch the scratch reader asks for beyond its forward target's workspace, and declares.
constexpr size_t kKitScratchBytes = 256;

// The message a cell of the dirty-lock victim fails with (tilecheck/suite/device_case.h's words).
constexpr const char* kDirtyLockFinding = "workspace: lock 0 (workspace byte 0) left at 1;";

constexpr bool matches(const Victim& v, const tc_tile_config& c, int contract) {
  const bool config = v.config.m_blocks == 0
                          ? c.group_blocks == v.config.group_blocks
                          : c.m_blocks == v.config.m_blocks && c.n_blocks == v.config.n_blocks &&
                                c.k_blocks == v.config.k_blocks && c.group_blocks == v.config.group_blocks;
  return config && (v.contract < 0 || v.contract == contract);
}

// Like upstream Marlin, whose faulting configuration also has cells it does not implement: the trap
// library declines its victim's fp32 cells (TC_ERR_UNSUPPORTED from tc_plugin_workspace_size and
// tc_plugin_run), so those must be n/a, also after the configuration is no longer launched.
constexpr const char* kTrapDeclines = "the misbehaving kit's trapping configuration implements no fp32 cell";
constexpr bool declines(const Victim& v, const tc_tile_config& c, int contract) {
  return v.behaviour == Behaviour::trap && contract == TC_CONTRACT_FP32 && matches(v, c, contract);
}

#ifdef TC_KIT_BEHAVIOUR
constexpr Behaviour kBehaviour = static_cast<Behaviour>(TC_KIT_BEHAVIOUR);
constexpr const Victim& kVictim = kVictims[TC_KIT_BEHAVIOUR - 1];
constexpr const char* kVariant = kVictim.variant;
inline bool is_victim(const tc_problem& p) { return matches(kVictim, p.config, p.contract); }
inline bool is_declined(const tc_problem& p) { return declines(kVictim, p.config, p.contract); }
#endif

}  // namespace tc_kit
