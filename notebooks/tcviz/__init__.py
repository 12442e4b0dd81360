"""tcviz: the notebooks' only reader of tilecheck's files, and their drawing helpers.

  tcviz.read  golden fixtures and error maps (documented HDF5 schemas) -> numpy / dataclasses,
              the notebooks' parameters (environment variables)
  tcviz.plot  one matplotlib view per function

Everything is re-exported here: notebooks write `tcviz.read_errmap(...)`, `tcviz.plot_tile_map(ax, em)`.
"""
from .plot import *  # noqa: F401,F403
from .plot import MARK_COLORS, VERDICT_COLORS  # noqa: F401
from .read import *  # noqa: F401,F403
