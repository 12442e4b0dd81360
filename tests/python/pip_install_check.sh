#!/usr/bin/env bash
# `pip install .` from a clean clone into a fresh venv, then the installed package judges a case and
# its pytest plugin is found through the entry point. Slow (it builds the libraries the module needs):
# run by `make python-check`, not by ctest. Usage: tests/python/pip_install_check.sh [REPO]
set -euo pipefail
repo=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q --depth 1 "file://$repo" "$work/src"
python3 -m venv "$work/venv"
start=$(date +%s)
"$work/venv/bin/pip" install -q --disable-pip-version-check "$work/src"
echo "pip install .: $(( $(date +%s) - start )) s"
"$work/venv/bin/pip" install -q --disable-pip-version-check "pytest==8.3.4"
cd "$work"  # not the source tree: the installed package must be the one imported
"$work/venv/bin/python" - <<'PY'
import importlib.metadata as md
import pathlib
import tilecheck

package = pathlib.Path(tilecheck.__file__).parent
assert (package / "__init__.pyi").is_file() and (package / "py.typed").is_file(), "type stubs not shipped"

assert "site-packages" in tilecheck.__file__, tilecheck.__file__
case = tilecheck.load("normal_m16_n256_k192_g64_marlin", framework="numpy")
assert tilecheck.judge(case.expected, case).passed
wrong = case.expected.copy()
wrong[0, 0] = 4096
assert not tilecheck.judge(wrong, case).passed
plugins = [e.value for e in md.entry_points(group="pytest11")]
assert "tilecheck.pytest_plugin" in plugins, plugins
print("installed package: judged a case; pytest plugin registered")
PY
"$work/venv/bin/python" -m pytest --help | grep -q -- "--tilecheck-errmaps"
echo "pip install check: ok"
