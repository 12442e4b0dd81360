"""The tilecheck pytest plugin (entry point pytest11 'tilecheck'; docs/python.md).

- ``tilecheck_case``: a fixture parametrised over the catalogue's committed cases, one test per case,
  its id the case id; ``--tilecheck-filter REGEX`` (and a test's ``@pytest.mark.tilecheck(filter=...)``)
  narrow it, ``--tilecheck-generated`` adds the large on-demand cases.
- ``tilecheck.assert_close`` fails a test with the comparator's report as its message;
  ``--tilecheck-errmaps DIR`` writes the error map of every failing output there.
"""
from __future__ import annotations

import re

import pytest

from . import _api


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tilecheck")
    group.addoption("--tilecheck-filter", metavar="REGEX", default=None,
                    help="tilecheck_case: only the cases whose id matches REGEX (re.search)")
    group.addoption("--tilecheck-generated", action="store_true", default=False,
                    help="tilecheck_case: also the large cases made on demand")
    group.addoption("--tilecheck-errmaps", metavar="DIR", default=None,
                    help="write the error map (HDF5) of every output assert_close rejects into DIR")
    group.addoption("--tilecheck-fixtures", metavar="DIR", default=None,
                    help="the fixtures directory (default: $TILECHECK_HOME/fixtures, else the package's copy)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tilecheck(filter=REGEX): the cases tilecheck_case takes for this test")
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
    ids = _api.cases(metafunc.config.getoption("--tilecheck-filter"),
                     generated=metafunc.config.getoption("--tilecheck-generated"))
    marker = metafunc.definition.get_closest_marker("tilecheck")
    if marker is not None and marker.kwargs.get("filter"):
        ids = [i for i in ids if re.search(marker.kwargs["filter"], i)]
    metafunc.parametrize("tilecheck_case", ids, ids=ids, indirect=True)


@pytest.fixture
def tilecheck_case(request: pytest.FixtureRequest) -> _api.CaseData:
    """The catalogue case of this test (tilecheck.load of its id)."""
    return _api.load(request.param)
