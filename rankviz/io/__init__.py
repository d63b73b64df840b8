"""Files in and out: TREC runs, qrels and topics (plain or compressed), parquet, and dict interop.

``trec_files`` holds the public readers of runs and qrels, ``writers`` the writers, ``dicts`` the
dict-of-dicts interop; ``fast_reader`` parses well-formed TREC files with
pyarrow in blocks; ``validating_reader`` is the exact line-by-line reader that names the line of any error;
``run_frame`` turns every reader's columns into one run frame; ``topics`` reads topic files.
"""

from .dicts import qrels_from_dict, qrels_to_dict, run_from_dict, run_to_dict
from .topics import read_topics
from .trec_files import read_qrels, read_run, read_runs
from .writers import write_qrels, write_run

__all__ = [
    "read_run",
    "read_runs",
    "read_qrels",
    "read_topics",
    "write_run",
    "write_qrels",
    "run_to_dict",
    "qrels_to_dict",
    "run_from_dict",
    "qrels_from_dict",
]
