"""Where the package finds its data, in the CLI's order (cli/data_paths.h):

fixtures (catalogue.txt, MANIFEST.json, golden/): the first of
  1. the ``fixtures=`` argument, or what :func:`tilecheck.set_fixtures` set
  2. ``$TILECHECK_HOME/fixtures`` (a checkout, a build tree's ``share/tilecheck``, an install prefix's)
  3. the copy inside the installed package (``tilecheck/data/fixtures``, shipped in the wheel)
cases made on demand: ``<data>/generated`` if it exists, else ``$XDG_CACHE_HOME/tilecheck/generated``
(``~/.cache`` when unset).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Tuple

_chosen: Optional[str] = None
# A relative $TILECHECK_HOME names a directory relative to where the process started, not to wherever
# it has changed directory since (pytest's pytester, a test that chdirs).
_START_DIR = os.getcwd()


def set_fixtures(directory: Optional[str]) -> None:
    """Use this fixtures directory from now on (None: search again)."""
    global _chosen
    _chosen = directory


def _holds_fixtures(d: Path) -> bool:
    return (d / "catalogue.txt").is_file()


def _generated(data: Optional[Path]) -> str:
    if data is not None and (data / "generated").is_dir():
        return str(data / "generated")
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "tilecheck", "generated")


def data_paths(fixtures: Optional[str] = None) -> Tuple[str, str]:
    """(fixtures directory, directory for the on-demand cases); raises naming every place searched."""
    given = fixtures or _chosen
    if given:
        d = Path(given).absolute()
        if not _holds_fixtures(d):
            raise FileNotFoundError(f"fixtures {given}: no catalogue.txt there (expected a fixtures directory: "
                                    "catalogue.txt, MANIFEST.json, golden/)")
        return str(d), _generated(None)
    home = os.environ.get("TILECHECK_HOME")
    if home is not None:
        data = Path(os.path.normpath(os.path.join(_START_DIR, home)))  # join keeps an absolute home
        if not _holds_fixtures(data / "fixtures"):
            raise FileNotFoundError(f"TILECHECK_HOME={home}: no fixtures/catalogue.txt there (expected "
                                    "<prefix>/share/tilecheck or a tilecheck checkout)")
        return str(data / "fixtures"), _generated(data)
    data = Path(__file__).resolve().parent / "data"
    if _holds_fixtures(data / "fixtures"):
        return str(data / "fixtures"), _generated(None)
    raise FileNotFoundError("no tilecheck fixtures found: no fixtures= argument, TILECHECK_HOME not set, and "
                            f"{data / 'fixtures'} (the package's copy) has no catalogue.txt")
