"""The tests of a gtest filter, grouped by the kernel configuration they run: the per-configuration
mode of the sanitizer tier (run_sanitizer.py --per-config) gives each group a process of its own.

A suite cell's test name ends in the cell's name (suite/src/cells.cpp, Cell::name):
    <case>_<config>_<contract>_<variant>_sms<S>
    e.g. Sanitize/KernelVsGolden.Matches/normal_m17_n128_k128_g128_marlin_m2n16k4g8_marlin_upstream_sms3
with <config> as tc::name(TileConfig) writes it ("m1n8k8g8"; per-column scales "m4n16k4gcol"),
<contract> "marlin" or "fp32", and a variant of letters, digits and '_'. Case ids separate their
fields with '_' ("m17_n128"), so the one token of the form m<M>n<N>k<K>g<G|col> is the configuration.

Python 3 standard library only. docs/sanitizer.md describes the tier.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional

CELL_NAME = re.compile(r"^(?P<case>\w+?)_(?P<config>m\d+n\d+k\d+g(?:\d+|col))_(?P<contract>marlin|fp32)"
                       r"_(?P<variant>\w+)_sms(?P<sms>\d+)$")
# Tests whose name is not a cell's (another test the filter selected) run together under this name.
OTHER = "other"


class ListingError(Exception):
    pass


def parse_test_list(text: str) -> List[str]:
    """Full test names from `--gtest_list_tests` output:
        Sanitize/KernelVsGolden.
          Matches/<cell>  # GetParam() = <cell>
    Lines before the first test suite (e.g. "Running main() from ...") are not tests."""
    names: List[str] = []
    suite: Optional[str] = None
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line:
            continue
        if not line[0].isspace():
            suite = line if line.endswith(".") and " " not in line else None
        elif suite is not None and " " not in line.strip():
            names.append(suite + line.strip())
    return names


def config_of(test_name: str) -> Optional[str]:
    """The configuration of a suite cell's test ("m1n8k8g8"), or None if the name is not a cell's."""
    cell = test_name.rsplit("/", 1)[-1]
    m = CELL_NAME.match(cell)
    return m.group("config") if m else None


@dataclass
class ConfigGroup:
    config: str                      # "m1n8k8g8", or OTHER
    tests: List[str] = field(default_factory=list)

    def gtest_filter(self) -> str:
        """Exactly these tests (gtest filters have no intersection; names carry no wildcard)."""
        return ":".join(self.tests)


def group_by_config(test_names: List[str]) -> List[ConfigGroup]:
    """One group per configuration, in the order the configurations first appear; tests that are
    not cells last, as one group."""
    groups: Dict[str, ConfigGroup] = {}
    for name in test_names:
        if any(ch in name for ch in "*?:"):
            raise ListingError(f"test name '{name}' contains a gtest filter character (*, ? or :)")
        config = config_of(name) or OTHER
        groups.setdefault(config, ConfigGroup(config)).tests.append(name)
    ordered = [g for c, g in groups.items() if c != OTHER]
    return ordered + ([groups[OTHER]] if OTHER in groups else [])
