"""Files in and out: TREC runs, qrels and topics (plain or compressed), parquet, and dict interop.

``trec_files`` holds the public readers of runs and qrels, ``writers`` the writers, ``dicts`` the
dict-of-dicts interop; ``trec_reader`` is the one reader of TREC files (pyarrow in blocks), ``trec_lines`` what a
line must look like and the locator that names a bad line, ``text_files`` the bytes, text and comments of a file;
``run_frame`` turns every reader's columns into one run frame; ``topics`` reads topic files;
``msmarco`` reads and writes MS MARCO's TSVs (through ``read_run``/``read_qrels``' ``format=``),
``jsonl`` streams retrieval logs of JSON lines (``json_lines`` names a bad line), ``beir`` reads BEIR folders.
"""

from .beir import BeirData, read_beir
from .dicts import qrels_from_dict, qrels_to_dict, run_from_dict, run_to_dict
from .jsonl import RetrievalLog, read_jsonl
from .topics import read_topics
from .trec_files import read_qrels, read_run, read_runs
from .writers import write_jsonl, write_qrels, write_run

__all__ = [
    "read_run",
    "read_runs",
    "read_qrels",
    "read_topics",
    "write_run",
    "write_qrels",
    "read_beir",
    "BeirData",
    "read_jsonl",
    "write_jsonl",
    "RetrievalLog",
    "run_to_dict",
    "qrels_to_dict",
    "run_from_dict",
    "qrels_from_dict",
]
