"""The tilecheck pytest plugin (entry point pytest11 'tilecheck'; docs/python.md).

- ``tilecheck_case``: a fixture parametrised over the catalogue's committed cases, one test per case,
  its id the case id; ``--tilecheck-filter REGEX`` (and a test's ``@pytest.mark.tilecheck(filter=...)``)
  narrow it, ``--tilecheck-generated`` adds the large on-demand cases. Cases of format fp16-uint4b8
  unless ``--tilecheck-format NAME`` (repeatable; ``all``) or the mark's ``format=`` (a name, a list,
  or None for every format) says which formats the kernel under test runs; given both, the cases of
  formats in both.
- ``tilecheck.assert_close`` fails a test with the comparator's report as its message;
  ``--tilecheck-errmaps DIR`` writes the error map of every failing output there.
"""
from __future__ import annotations

import re
from typing import List, Optional, Union

import pytest

from . import _api


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tilecheck")
    group.addoption("--tilecheck-filter", metavar="REGEX", default=None,
                    help="tilecheck_case: only the cases whose id matches REGEX (re.search)")
    group.addoption("--tilecheck-generated", action="store_true", default=False,
                    help="tilecheck_case: also the large cases made on demand")
    group.addoption("--tilecheck-format", metavar="NAME", action="append", default=None,
                    help="tilecheck_case: cases of this format (e.g. bf16-uint4b8; repeat it for several, 'all' for "
                         "every format; default fp16-uint4b8)")
    group.addoption("--tilecheck-errmaps", metavar="DIR", default=None,
                    help="write the error map (HDF5) of every output assert_close rejects into DIR")
    group.addoption("--tilecheck-fixtures", metavar="DIR", default=None,
                    help="the fixtures directory (default: $TILECHECK_HOME/fixtures, else the package's copy)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tilecheck(filter=REGEX, format=NAME|[NAMES]|None): the cases "
                                       "tilecheck_case takes for this test")
    _api.set_error_map_dir(config.getoption("--tilecheck-errmaps"))
    fixtures = config.getoption("--tilecheck-fixtures")
    if fixtures:
        from ._data import set_fixtures  # noqa: PLC0415
        set_fixtures(fixtures)


def pytest_unconfigure(config: pytest.Config) -> None:
    _api.set_error_map_dir(None)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "tilecheck_case" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("tilecheck")
    ids = _api.cases(metafunc.config.getoption("--tilecheck-filter"),
                     format=_chosen_formats(metafunc.config.getoption("--tilecheck-format"), marker),
                     generated=metafunc.config.getoption("--tilecheck-generated"))
    if marker is not None and marker.kwargs.get("filter"):
        ids = [i for i in ids if re.search(marker.kwargs["filter"], i)]
    metafunc.parametrize("tilecheck_case", ids, ids=ids, indirect=True)


_UNSAID = object()


def _chosen_formats(option: Optional[List[str]], marker: Optional[pytest.Mark]) -> Union[List[str], None]:
    """The formats whose cases a test takes (None: every format): the option's and the mark's, both
    where both are given; fp16-uint4b8 where neither is (the one format a kernel of ABI 1 runs)."""
    said = _UNSAID if option is None else None if "all" in option else _api._formats(option)
    marked = _UNSAID if marker is None or "format" not in marker.kwargs else _api._formats(marker.kwargs["format"])
    if said is _UNSAID and marked is _UNSAID:
        return [_api.V1_FORMAT]
    if said is _UNSAID or said is None:
        return marked if marked is not _UNSAID else None
    if marked is _UNSAID or marked is None:
        return said
    return [f for f in marked if f in said]


@pytest.fixture
def tilecheck_case(request: pytest.FixtureRequest) -> _api.CaseData:
    """The catalogue case of this test (tilecheck.load of its id)."""
    return _api.load(request.param)
