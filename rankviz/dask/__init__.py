"""rankviz on Dask: evaluate runs that do not fit in memory, with the same numbers as pandas.

``import rankviz.dask`` (needs ``pip install rankviz[dask]``) registers the
``ddf.rankviz`` namespace (and ``ddf.rank``: Dask DataFrames have no ``rank``
method) on Dask DataFrames; ``import rankviz`` alone never imports Dask::

    from distributed import Client, LocalCluster
    import rankviz.dask

    client = Client(LocalCluster(n_workers=2, memory_limit="4GB"))  # or Client("tcp://scheduler:8786")
    run = rankviz.dask.read_run("runs/*.txt.gz")                   # or a parquet dataset
    per_query = run.rankviz.evaluate(["RR@10", "nDCG@10", "AP", "R@100"], qrels="qrels.txt", per_query=True)
    rankviz.stats.bootstrap(per_query, ["nDCG@10"])                  # a pandas table: everything else works

See ``docs/dask.md`` for how the work is split and what each worker needs.
"""

from __future__ import annotations

try:
    import dask.dataframe  # noqa: F401
    import distributed  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised without the extra only
    raise ImportError(
        f"rankviz.dask needs Dask ({exc.name} is not installed); install it with: pip install 'rankviz[dask]'"
    ) from None

from . import accessor
from .accessor import DaskRankAccessor
from .evaluation import SHORTCUT_FUNCTIONS, evaluate
from .io import read_run, write_run

# the seven shortcuts (mrr, ndcg, mean_average_precision, ...), from their one declaration
globals().update(SHORTCUT_FUNCTIONS)

__all__ = ["DaskRankAccessor", "evaluate", *SHORTCUT_FUNCTIONS, "read_run", "write_run"]

accessor.register()
