"""Harness cases that fail today, as (entry, mutator) -> the reason and repro (marked ``xfail(strict=True)``).

When a fix lands the case passes, the strict xfail fails, and its line here must go. The
deterministic repros of the same classes are in ``test_known_failures.py``. The cases are
derandomized (the same examples every run), so a listed case fails the same way each time.
"""

from __future__ import annotations

_LIST_IN_CELL = (
    "a list in a scalar cell (run.system.iat[0] = ['A', 'A']) is accepted in silence or raises a raw "
    "TypeError 'unhashable type: list'; repro: test_known_failures.py::test_list_in_run_cell_*"
)
_NAN_SYSTEM = (
    "NaN in the system column of a per-query table drops the row in silence; repro: "
    "test_known_failures.py::test_missing_system_in_table_is_flagged_by_paired_differences"
)
_LABEL_STUDIO_FILE = (
    "a gzip/UTF-16/binary Label Studio export raises a raw UnicodeDecodeError; repro: "
    "test_known_failures.py::test_label_studio_foreign_file_is_a_rankviz_error"
)

KNOWN_FAILURES: dict[tuple[str, str], str] = {
    ("rankviz.evaluate", "lists_for_scalars"): _LIST_IN_CELL,
    ("rankviz.mean_average_precision", "lists_for_scalars"): _LIST_IN_CELL,
    ("rankviz.fusion.tune", "lists_for_scalars"): _LIST_IN_CELL,
    ("rankviz.io.run_to_dict", "lists_for_scalars"): _LIST_IN_CELL,
    ("rankviz.io.write_jsonl", "lists_for_scalars"): _LIST_IN_CELL,
    ("rankviz.stats.bootstrap", "lists_for_scalars"): _LIST_IN_CELL,
    ("rankviz.stats.tukey_hsd_p", "numbers_damaged"): (
        "tukey_hsd_p(scores with a NaN in row 0, 100, default_rng(0)) returns other p-values in silence "
        "(0.0099 where the clean scores give 0.0396); repro: test_known_failures.py::test_tukey_refuses_nan_scores"
    ),
    ("cli:diff", "ids_markup"): (
        "rankviz diff's 'Most hurt queries' glues a long query id to its number "
        "('<script>alert(1)</script>q00.6433 -> 0.1900'); repro: test_known_failures.py::test_diff_hurt_queries_keep_ids_apart"
    ),
    ("rankviz.failure_slices", "missing_values"): _NAN_SYSTEM,
    ("rankviz.failure_slices", "lists_for_scalars"): _LIST_IN_CELL,
    ("rankviz.io.read_topics", "ids_markup"): (
        "a query_id<TAB>text file whose first id starts with '<' is read as topic XML and refused "
        "('not well-formed topic XML'); repro: test_known_failures.py::test_topics_tsv_with_markup_id"
    ),
    ("rankviz.io.read_jsonl", "json_wrong_types"): (
        "read_jsonl crashes the interpreter (SIGSEGV in pyarrow's JSON reader) on a 'null' line; repro: "
        'printf \'null\\n{"query_id": "q1", "retrieved": ["d1"]}\\n\' > log.jsonl; '
        "python -c \"import rankviz; rankviz.read_jsonl('log.jsonl')\""
    ),
    ("rankviz.io.write_run", "lists_for_scalars"): _LIST_IN_CELL,
    ("rankviz.labels.agreement", "lists_for_scalars"): _LIST_IN_CELL,
    ("rankviz.labels.bounds", "lists_for_scalars"): _LIST_IN_CELL,
    ("rankviz.labels.LabelStore.import_label_studio", "file_gzip"): _LABEL_STUDIO_FILE,
    ("rankviz.labels.LabelStore.import_label_studio", "json_duplicate_keys"): (
        "a repeated 'annotations' key in a task keeps the last in silence; repro: "
        "test_known_failures.py::test_label_studio_repeated_key_is_refused"
    ),
    ("rankviz.stats.compare", "missing_values"): _NAN_SYSTEM,
    ("rankviz.stats.compare", "lists_for_scalars"): _LIST_IN_CELL,
    ("rankviz.stats.paired_differences", "missing_values"): _NAN_SYSTEM,
    ("rankviz.stats.power", "lists_for_scalars"): _LIST_IN_CELL,
    ("rankviz.labels.alignment", "lists_for_scalars"): _LIST_IN_CELL,
    ("rankviz.stats.suite_compare", "missing_values"): (
        "suite_compare(table with NaN in the dataset column of row 0, baseline='A'): raw TypeError "
        "\"'<' not supported between instances of 'str' and 'float'\""
    ),
    ("rankviz.stats.holm", "numbers_damaged"): (
        "holm([nan, 0.04, 0.03, 0.2]) adjusts in silence; repro: test_known_failures.py::test_nan_p_value_is_refused"
    ),
    ("rankviz.stats.benjamini_hochberg", "numbers_damaged"): (
        "benjamini_hochberg([nan, ...]) adjusts in silence; repro: test_known_failures.py::test_nan_p_value_is_refused"
    ),
    ("rankviz.stats.wilson_interval", "numbers_damaged"): "wilson_interval(7, nan) returns an interval in silence",
    ("rankviz.stats.wilson_interval", "numbers_other_types"): (
        "wilson_interval(Decimal(7), Decimal(20)): raw TypeError; repro: "
        "test_known_failures.py::test_wilson_interval_takes_or_refuses_decimals"
    ),
    ("rankviz.fusion.weight_grid", "numbers_damaged"): (
        "weight_grid(nan, 0.25): raw TypeError; repro: test_known_failures.py::test_weight_grid_refuses_nan"
    ),
    ("rankviz.plots.failures", "lists_for_scalars"): _LIST_IN_CELL,
    ("rankviz.plots.changes", "empty_frames"): (
        "plots.changes(changes(...).iloc[:0]): raw KeyError 'doc_id'; repro: test_known_failures.py::test_empty_tables_in_plots"
    ),
    ("rankviz.plots.slices", "empty_frames"): (
        "plots.slices(evaluate(..., by=...).iloc[:0]): raw IndexError; repro: test_known_failures.py::test_empty_tables_in_plots"
    ),
    ("rankviz.widgets.judge", "missing_values"): (
        "judge(todo with query_id NaN in row 0, store, annotator='me'): raw IndexError 'single positional indexer is "
        "out-of-bounds'; repro: test_known_failures.py::test_judge_with_missing_query_id"
    ),
    ("cli:notebooks", "json_deep_nesting"): (
        "rankviz notebooks DIR with a notebook whose first cell is nested 1000 deep: raw RecursionError"
    ),
    ("cli:notebooks", "json_wrong_types"): (
        "rankviz notebooks DIR with a notebook whose first cell is null: raw TypeError 'argument of type NoneType is not iterable'"
    ),
}
