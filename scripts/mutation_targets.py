"""What the kill matrix (scripts/mutation-matrix.py) judges: a Target - the control's library, the
mutants' libraries and what is known of each, and how every detector runs them - planned for our
kernel's mutants, upstream IST-DASLab Marlin's (--upstream, plugins/ist-marlin/mutants.txt) and vLLM's
Marlin's (--vllm, plugins/vllm-marlin/mutants.txt). Standard library only."""
import importlib.util
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("ist_marlin_mutants",
                                               os.path.join(ROOT, "scripts", "ist-marlin-mutants.py"))
kit = importlib.util.module_from_spec(_spec)  # the peers' mutant descriptions: their parser and writer
_spec.loader.exec_module(kit)

_spec = importlib.util.spec_from_file_location("kernel_mutants", os.path.join(ROOT, "scripts", "kernel_mutants.py"))
_mutants = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mutants)
MUTANTS: Dict[int, tuple] = _mutants.MUTANTS  # our kernel's mutants, their slugs and expected hints
DEFAULT_FILTER = r"_(m1n8k8|m2n16k4|m4n16k4)g[a-z0-9]+_[a-z0-9]+_[a-z0-9]+_sms(1|3|7|132)$"
TIER_ALLOWLIST = os.path.join(ROOT, "tests", "sanitizer", "allowlist.txt")
# Upstream Marlin's configurations (plugins/ist-marlin) bar m1n8k8g8, which faults on sm_90 whatever
# the source (a compiler fault); its variant "upstream-2f6d7c1[-uNN]" is written with '_' in cell names.
UPSTREAM_FILTER = r"_(m1n8k8gcol|m[1-4]n16k4g(8|col))_marlin_[a-z0-9_]+_sms(1|3|7|132)$"
UPSTREAM_DETERMINISM = "Cases/Determinism.*:MarlinContract/Determinism.*"
UPSTREAM_SANITIZER_FILTERS = {"racecheck": "Sanitize/*-*_m1n8k8g8_*",
                              "memcheck": "Sanitize/*-*_m1n8k8g8_*"}

# vLLM's Marlin (plugins/vllm-marlin): the mutants act on the formats their description names, and the
# matrix judges those formats' cells only. The clean adapter's own failures are left out, so that the
# control raises no alarm: every cell of act-order on a shard of K (-kpart), vLLM's defect
# (docs/case-study-vllm-marlin-formats.md, class A).
VLLM_DESCRIPTION = os.path.join(ROOT, "plugins", "vllm-marlin", "mutants.txt")
VLLM_NOT_CONTROL_FAILS = r"(?!.*_kpart_)"  # at a name's start
VLLM_VARIANT = "vllm-bc390b9-fp32-reduce"  # the control's (libtc_vllm_marlin.so: vLLM's default fp32 reduction)


@dataclass
class Target:
    """What the matrix judges: a clean library and its mutants, and how each detector runs them."""
    clean: str                                   # the control's library
    clean_label: str
    mutants: Dict[object, str]                   # key (ours: 1..18; a peer's: "u01", "v01") -> library, in order
    catalogue: Dict[object, tuple]               # key -> (slug, text, cause hints, tile hints)
    cell_filter: str = DEFAULT_FILTER
    expect: Dict[object, List[str]] = field(default_factory=dict)   # key -> alarms expected (a peer's)
    classes: Dict[object, str] = field(default_factory=dict)        # key -> bug class (a peer's)
    determinism_filter: str = "Cases/Determinism.*"
    sanitizer_filters: Dict[str, str] = field(default_factory=dict)  # tool -> gtest filter (else the runner's)
    sanitizer_args: List[str] = field(default_factory=list)          # e.g. --per-config --allow-na
    allowlist: str = TIER_ALLOWLIST
    source_dirs: Dict[str, str] = field(default_factory=dict)        # library -> its source's directory
    log_dir: str = ""                                                # sanitizer logs kept here (else the runner's)
    title: str = ""                    # the table's title after "Mutation kill matrix" (a peer's kit)
    flag: str = ""                     # the script's mode flag, as the table quotes it: --upstream, --vllm
    build_hint: str = "-DTC_MUTANT_LIST"                             # how its libraries are built


def plan_ours(args, numbers: List[int]) -> Target:
    kernel_dir = os.path.join(args.build, "kernel")
    return Target(os.path.join(kernel_dir, "libtc_kernel_upstream.so"), "clean (upstream)",
                  {n: os.path.join(kernel_dir, f"libtc_kernel_mut{n:02d}.so") for n in numbers}, MUTANTS,
                  args.filter or DEFAULT_FILTER)


def cmake_cache(build: str, name: str) -> str:
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith(name + ":"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return ""


def plan_upstream(args, description) -> Target:
    """The control and the chosen mutants of upstream's file (kit.MutantError: a bad --mutants). The
    control is the base the mutants are planted on (upstream with its real races fixed, the
    description's `base`), or the plain adapter where the description names none."""
    chosen = kit.select(description, args.mutants)
    kernel_dir = os.path.join(args.build, "kernel")
    work = os.path.join(args.build, "mutation-ist-marlin")  # the sanitizer logs
    base = description.base
    clean = os.path.join(kernel_dir, f"libtc_ist_marlin_{base}.so" if base else "libtc_ist_marlin.so")
    label = f"control (ist-marlin {description.commit} + {base})" if base else f"clean (ist-marlin {description.commit})"
    t = Target(clean, label,
               {m.id: os.path.join(kernel_dir, f"libtc_ist_marlin_{m.id}.so") for m in chosen},
               {m.id: (m.slug, m.what, m.cause, m.tiles) for m in chosen}, args.filter or UPSTREAM_FILTER,
               expect={m.id: m.expect for m in chosen}, classes={m.id: m.klass for m in chosen},
               determinism_filter=UPSTREAM_DETERMINISM, sanitizer_filters=dict(UPSTREAM_SANITIZER_FILTERS),
               sanitizer_args=["--per-config", "--allow-na"], allowlist=TIER_ALLOWLIST, log_dir=work,
               title=": upstream IST-DASLab Marlin (plugins/ist-marlin/mutants.txt)", flag=" --upstream",
               build_hint="-DTC_IST_MARLIN_SRC and -DTC_IST_MARLIN_MUTANTS (the base fix is built with them)")
    mutant_dir = os.path.join(args.build, "plugins", "ist-marlin", "mutants")
    t.source_dirs = {lib: os.path.join(mutant_dir, key) for key, lib in t.mutants.items()}
    if base:
        t.source_dirs[clean] = os.path.join(mutant_dir, base)
    else:
        upstream_src = cmake_cache(args.build, "TC_IST_MARLIN_SRC")
        if upstream_src:
            t.source_dirs[clean] = upstream_src
    return t



def vllm_filter(formats: List[str]) -> str:
    """The cells of `formats` (fp16-uint8b128: its cells' names hold fp16_uint8b128), less the control's
    own failures."""
    if "fp16-uint4b8" in formats:  # plugin ABI 1's format: its cells' names carry no format
        raise kit.MutantError("the cells of fp16-uint4b8 cannot be told by name: pass --filter")
    return f"^{VLLM_NOT_CONTROL_FAILS}.*_({'|'.join(re.escape(f.replace('-', '_')) for f in formats)})_"


def plan_vllm(args, description) -> Target:
    """The control (the clean adapter, vLLM's default fp32 reduction) and the chosen mutants of vLLM's
    files, each library holding the kernels of the formats its mutant acts on; the matrix judges those
    formats' cells (kit.MutantError: a bad --mutants, or a control built without those formats)."""
    chosen = kit.select(description, args.mutants)
    kernel_dir = os.path.join(args.build, "kernel")
    formats = [f for m in chosen for f in m.formats]
    formats = sorted(set(formats), key=formats.index)
    if any(f != "fp16-uint4b8" for f in formats) and cmake_cache(args.build, "TC_VLLM_MARLIN_FORMATS") in ("OFF", "0"):
        raise kit.MutantError(f"{args.build} was configured with TC_VLLM_MARLIN_FORMATS=OFF: the control "
                              f"libtc_vllm_marlin.so lacks {', '.join(formats)} (the gpu preset turns it on)")
    return Target(os.path.join(kernel_dir, "libtc_vllm_marlin.so"), f"clean (vllm-marlin {VLLM_VARIANT})",
                  {m.id: os.path.join(kernel_dir, f"libtc_vllm_marlin_{m.id}.so") for m in chosen},
                  {m.id: (m.slug, m.what, m.cause, m.tiles) for m in chosen}, args.filter or vllm_filter(formats),
                  expect={m.id: m.expect for m in chosen}, classes={m.id: m.klass for m in chosen},
                  title=": vLLM's Marlin (plugins/vllm-marlin/mutants.txt)", flag=" --vllm",
                  build_hint="-DTC_VLLM_MARLIN_SRC and -DTC_VLLM_MARLIN_MUTANTS")
