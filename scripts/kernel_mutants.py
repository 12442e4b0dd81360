"""Our kernel's mutants (kernel/src/variants.h, built as libtc_kernel_mutNN.so with -DTC_MUTANT_LIST) as
the kill matrix (scripts/mutation-matrix.py) judges them: each one's slug, description, and the hints
expected of the comparator. Standard library only."""
from typing import Dict

# number -> (slug, description, hint kinds that name the cause, hint kinds that name the right tiles).
# An empty set means no hint is expected: a race the sanitizer (not the comparator) must find, or a
# bug the harness reports as an error before any output is judged.
MUTANTS: Dict[int, tuple] = {
    1: ("scales-in-reduce-scratch", "per-column scale slot inside the block-reduction scratch", {"scale_fetch"}, {"whole_tiles", "scale_fetch"}),
    2: ("no-scale-wait", "no cp.async wait before the per-column scales are read", {"scale_fetch"}, {"whole_tiles", "scale_fetch"}),
    3: ("no-stage-barrier", "no barrier after the pipeline stage wait", {"race"}, set()),
    4: ("wait-one-too-few", "wait_group leaves one group too many in flight", {"race"}, set()),
    5: ("shared-group-scale-slot", "group scales read from the group's first stage (vLLM race)", {"race", "scale_ratio"}, set()),
    6: ("no-writeout-barrier", "no barrier at the end of the write-out", {"race"}, set()),
    7: ("no-lock", "cross-block reduction without taking the lock", {"multi_slice", "race"}, {"multi_slice"}),
    8: ("no-lock-reset", "last block does not reset its lock", set(), set()),
    9: ("no-row-predicate", "rows past M written on the last partial M tile", {"row_predication"}, {"row_predication"}),
    10: ("group-off-by-one", "scale group index off by one", {"scale_ratio", "group_boundary"}, {"whole_tiles", "group_boundary"}),
    11: ("zero-point-7", "zero point 7 instead of 8", {"code_mapping", "wide_errors"}, {"code_mapping", "whole_tiles"}),
    12: ("nibble-swap", "nibbles swapped in dequantization", {"whole_tiles"}, {"whole_tiles"}),
    13: ("round-toward-zero", "epilogue rounds toward zero", {"rounding_bias", "not_exact"}, set()),
    14: ("fp16-partials", "fp16 partial sums under the fp32 contract", {"fp16_reduction", "multi_slice", "not_exact", "low_precision"},
         {"fp16_reduction", "multi_slice"}),
    15: ("wrong-column-permutation", "per-column scales read with the grouped permutation", {"column_half", "scale_ratio"}, {"whole_tiles", "column_half"}),
    # The served formats' paths (plugin ABI 2), caught on their cells only. 17's errors sit everywhere
    # (every dot product meets the wrong activations): its hint names every failing column and tile column.
    16: ("bf16-scale-through-fp16", "bf16 scales converted through fp16", {"bf16_scale_through_fp16"}, {"bf16_scale_through_fp16"}),
    17: ("act-order-scatter", "act-order: A's columns scattered by perm instead of gathered", {"act_order_scatter"}, {"act_order_scatter"}),
    18: ("zero-point-off-by-one", "uint4: every zero point read as z + 1", {"zero_point_off_by_one"}, {"zero_point_off_by_one"}),
}
