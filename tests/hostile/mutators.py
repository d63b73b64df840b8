"""Input mutators of the hostile harness.

A mutator takes an entry's valid example inputs and returns a :class:`Mutation`: the
mutated inputs and what the outcome must be:

``EQUIVALENT``        the mutation keeps every value (a dtype, a row order, a consistent
                      renaming of ids, systems or segments): the result's numbers must equal
                      the unmutated ones (rankviz warnings are allowed, errors are not);
``EQUAL_OR_REFUSED``  the same value in a form rankviz may refuse (decimals, UTF-16, CRLF):
                      the unmutated numbers or a rankviz error;
``FLAGGED``           a damaged or suspicious value (NaN, a list for a scalar, a duplicate,
                      a binary file): the unmutated numbers, a rankviz error, or a new
                      rankviz warning; never a different number in silence;
``ROBUST``            a legitimate but unusual input (empty, one row, a truncated file):
                      anything but a raw exception, a changed input or a hang.

Mutators draw their choices with Hypothesis (``draw``), so a failure shrinks to a small repro.
"""

from __future__ import annotations

import copy
import decimal
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from .data import QUERIES, SYSTEMS, Deep, FileInput, Pairs, gzip_bytes

EQUIVALENT = "equivalent"
EQUAL_OR_REFUSED = "equal_or_refused"
FLAGGED = "flagged"
ROBUST = "robust"


@dataclass
class Mutation:
    inputs: dict
    expect: str
    description: str
    renames: bool = False  # queries renamed/reordered: resampling may differ, so stochastic entries compare shapes
    sign_free: bool = False  # systems renamed: a difference of two systems may change its sign


@dataclass(frozen=True)
class Mutator:
    name: str
    roles: frozenset[str]
    mutate: Callable[[Callable, Any, dict], Mutation | None]  # (draw, entry, inputs) -> mutation or None (n/a)
    skip: Callable[[Any], bool] = field(default=lambda entry: False)

    def applies(self, entry) -> bool:
        return bool(self.roles & set(entry.roles)) and not self.skip(entry)


MUTATORS: list[Mutator] = []


def mutator(name: str, *roles: str, skip: Callable[[Any], bool] = lambda entry: False):
    def wrap(fn):
        MUTATORS.append(Mutator(name, frozenset(roles), fn, skip))
        return fn

    return wrap


# ---------------------------------------------------------------------------------------------- walking inputs


def doc_ids(inputs: dict) -> list[str]:
    found: set[str] = set()

    def visit(frame: pd.DataFrame) -> pd.DataFrame:
        if "doc_id" in frame:
            found.update(str(v) for v in frame["doc_id"] if isinstance(v, str))
        return frame

    map_frames(inputs, visit)
    return sorted(found, key=lambda d: (len(d), d))


def map_frames(inputs: dict, fn: Callable[[pd.DataFrame], pd.DataFrame], *, files: bool = True) -> dict:
    """A deep copy of ``inputs`` with ``fn`` applied to every DataFrame (also inside file inputs, dicts and lists)."""

    def walk(value: Any) -> Any:
        if isinstance(value, pd.DataFrame):
            return fn(value.copy())
        if isinstance(value, FileInput):
            if not files:
                return value
            value.obj = walk(value.obj)
            return value
        if isinstance(value, dict) and not isinstance(value, Pairs):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list) and not isinstance(value, Pairs):
            return [walk(v) for v in value]
        if isinstance(value, tuple):  # a suite's {dataset: (run, qrels)}
            return tuple(walk(v) for v in value)
        return value

    return {key: walk(value) for key, value in copy.deepcopy(inputs).items()}


def rename(inputs: dict, mapping: dict) -> dict:
    """A deep copy of ``inputs`` with every string equal to a key of ``mapping`` replaced (values, keys, indexes)."""

    def one(v: Any) -> Any:
        return mapping.get(v, v) if isinstance(v, str) else v

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return one(value)
        if isinstance(value, pd.DataFrame):
            value = value.copy()
            for name in value.columns:
                if value[name].dtype == object or pd.api.types.is_string_dtype(value[name].dtype):
                    value[name] = [walk(v) for v in value[name]]
            if value.index.dtype == object:
                value.index = [one(v) for v in value.index]
            return value
        if isinstance(value, pd.Series):
            return pd.Series([walk(v) for v in value], index=[one(v) for v in value.index], name=value.name)
        if isinstance(value, FileInput):
            value.obj = walk(value.obj)
            return value
        if isinstance(value, Pairs):
            return Pairs((one(k), walk(v)) for k, v in value)
        if isinstance(value, dict):
            return {one(k): walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, tuple):
            return tuple(walk(v) for v in value)
        return value

    return {key: walk(value) for key, value in copy.deepcopy(inputs).items()}


def distinct(draw, pool: list, n: int, label: str) -> list:
    return draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n, unique=True), label=label)


def _ok_in_text_file(s: str) -> bool:
    """Whether an id survives a whitespace-separated text line unchanged (trec_eval splits on ASCII whitespace)."""
    return s == s.strip() and not any(c in s for c in " \t\r\n\v\f\x00\x1c\x1d\x1e\x85\u2028\u2029")


def _id_pools(entry, queries: list, docs: list, make: Callable[[str, int], list]) -> dict | None:
    mapping: dict = {}
    for old, family in ((queries, "q"), (docs, "d")):
        pool = [s for s in make(family, len(old)) if not entry.text_ids or _ok_in_text_file(s)]
        if len(pool) < len(old):
            return None
        mapping.update(zip(old, pool))
    return mapping


# ---------------------------------------------------------------------------------------------- ids (equivalent)


def _renaming(draw, entry, inputs: dict, pool_of: Callable[[str, int], list], what: str) -> Mutation | None:
    queries, docs = list(QUERIES), doc_ids(inputs)
    pools = {}
    for family, n in (("q", len(queries)), ("d", len(docs))):
        pool = [s for s in pool_of(family, n) if not entry.text_ids or _ok_in_text_file(s)]
        if len(pool) < n:
            return None
        pools[family] = distinct(draw, pool, n, f"{what} {family}-ids")
    mapping = {**dict(zip(queries, pools["q"])), **dict(zip(docs, pools["d"]))}
    return Mutation(rename(inputs, mapping), EQUIVALENT, f"ids renamed consistently ({what}): {mapping!r}", True)


def _numeric_pool(family: str, n: int) -> list:
    """Strings that are distinct as text but share few numeric values: '1', '01', '1.0', '001', ' 1', ..."""
    out = []
    for value in range(1, 4 if family == "q" else 6):
        out += [f"{value}", f"0{value}", f"00{value}", f"{value}.0", f"{value}.00", f"+{value}", f"{value}e0"]
        out += [f"0{value}.0", f"{value}_0", f"{value}.", f"0x{value}"]
    return out


@mutator("ids_numeric_strings", "ids")
def ids_numeric_strings(draw, entry, inputs):
    return _renaming(draw, entry, inputs, _numeric_pool, "numeric-looking strings")


_INVISIBLE = [
    "",
    " ",
    "\u00a0",
    "\u200b",
    "\u200f",
    "\u202e",
    "\ufeff",
    "\u200d",
    "\u2060",
    "\r",
    "\x00",
    "\u2028",
    "\t",
]


def _unicode_pool(family: str, n: int) -> list:
    """Ids that differ only by invisible or control characters: 'q', 'q\\u00a0', '\\u200bq', ..."""
    out = []
    for base in (family, family * 2, family * 3):
        for mark in _INVISIBLE:
            out += [base + mark, mark + base] if mark else [base]
    return list(dict.fromkeys(out))


@mutator("ids_unicode", "ids")
def ids_unicode(draw, entry, inputs):
    """Ids that differ only by invisible characters: kept apart, or refused with a message; never merged."""
    mutation = _renaming(draw, entry, inputs, _unicode_pool, "invisible/control characters")
    if mutation is not None:
        mutation.expect = EQUAL_OR_REFUSED
    return mutation


_MARKUP = ["<script>alert(1)</script>", "$x$", "**b**", "\\textbf{x}", "&amp;", "_u_", "`c`", "{{x}}", "%s", "<b>"]


def _markup_pool(family: str, n: int) -> list:
    return [f"{m}{family}{i}" for i in range(3) for m in _MARKUP] + [
        f"{family}{i}{m}" for i in range(3) for m in _MARKUP
    ]


@mutator("ids_markup", "ids")
def ids_markup(draw, entry, inputs):
    return _renaming(draw, entry, inputs, _markup_pool, "markup")


@mutator("ids_big_integers", "ids")
def ids_big_integers(draw, entry, inputs):
    """Ids as Python/NumPy integers at and beyond 2**53 (distinct as integers, equal as float64 neighbours)."""
    base = draw(st.sampled_from([2**53, 2**60, 2**63 - 64]), label="integer base")
    queries, docs = list(QUERIES), doc_ids(inputs)
    mapping: dict = {q: base + i for i, q in enumerate(queries)}
    mapping.update({d: base + 32 + i for i, d in enumerate(docs)})
    # in a JSON file an integer id is a JSON number, where formats such as BEIR's want strings: refusing is fine
    expect = EQUAL_OR_REFUSED if "json" in entry.roles else EQUIVALENT
    return Mutation(rename(inputs, mapping), expect, f"ids renamed to 64-bit integers from {base}", True)


@mutator("systems_markup", "systems")
def systems_markup(draw, entry, inputs):
    names = distinct(draw, [f"{m}" for m in _MARKUP] + ["A\u00a0", "\u200bA", "01", "1"], len(SYSTEMS), "system names")
    if entry.text_ids and not all(_ok_in_text_file(n) for n in names):
        return None
    mapping = dict(zip(SYSTEMS, names))
    return Mutation(rename(inputs, mapping), EQUIVALENT, f"systems renamed: {mapping!r}", True, sign_free=True)


# ---------------------------------------------------------------------------------------------- frames (equivalent)


def _frames_of(entry) -> bool:
    return not ({"run", "qrels", "table"} & set(entry.roles))


@mutator("shuffle_rows", "run", "qrels", "table")
def shuffle_rows(draw, entry, inputs):
    seed = draw(st.integers(0, 2**32 - 1), label="shuffle seed")
    keep_index = draw(st.booleans(), label="keep the shuffled index")

    def shuffle(frame):
        out = frame.sample(frac=1.0, random_state=seed)
        return out if keep_index else out.reset_index(drop=True)

    return Mutation(map_frames(inputs, shuffle, files=False), EQUIVALENT, f"rows shuffled (seed {seed})", True)


_STRING_DTYPES = ["string[python]", "string[pyarrow]", "arrow_string", "category", "object"]


def _as_dtype(column: pd.Series, dtype: str) -> pd.Series:
    import pyarrow as pa

    if dtype == "arrow_string":
        return column.astype(pd.ArrowDtype(pa.string()))
    if dtype == "arrow_float":
        return column.astype(pd.ArrowDtype(pa.float64()))
    if dtype == "arrow_int":
        return column.astype(pd.ArrowDtype(pa.int64()))
    if dtype == "decimal128":
        return pd.Series(
            pa.array([decimal.Decimal(repr(float(v))) for v in column], type=pa.decimal128(38, 20)),
            index=column.index,
            dtype=pd.ArrowDtype(pa.decimal128(38, 20)),
            name=column.name,
        )
    if dtype == "decimal":
        return pd.Series([decimal.Decimal(repr(v)) for v in column], index=column.index, name=column.name, dtype=object)
    return column.astype(dtype)


@mutator("string_dtypes", "run", "qrels", "table")
def string_dtypes(draw, entry, inputs):
    chosen = {}

    def convert(frame):
        for name in frame.columns:
            if all(isinstance(v, str) for v in frame[name]) and len(frame):
                dtype = draw(st.sampled_from(_STRING_DTYPES), label=f"dtype of {name}")
                chosen[name] = dtype
                frame[name] = _as_dtype(frame[name], dtype)
        return frame

    return Mutation(map_frames(inputs, convert, files=False), EQUIVALENT, "string columns converted", False)


@mutator("numeric_dtypes", "run", "qrels", "table")
def numeric_dtypes(draw, entry, inputs):
    chosen = {}

    def convert(frame):
        for name in frame.columns:
            kind = frame[name].dtype.kind
            if kind == "f":
                dtype = draw(st.sampled_from(["Float64", "arrow_float"]), label=f"dtype of {name}")
            elif kind in "iu":
                dtype = draw(
                    st.sampled_from(["Int64", "arrow_int", "int32", "int8", "uint8"]), label=f"dtype of {name}"
                )
            else:
                continue
            chosen[name] = dtype
            frame[name] = _as_dtype(frame[name], dtype)
        return frame

    out = map_frames(inputs, convert, files=False)
    return Mutation(out, EQUIVALENT, f"numeric columns converted: {chosen}", False)


@mutator("decimals", "run", "table")
def decimals(draw, entry, inputs):
    dtype = draw(st.sampled_from(["decimal", "decimal128"]), label="decimal kind")
    touched = []

    def convert(frame):
        for name in frame.columns:
            if frame[name].dtype.kind == "f" and np.isfinite(frame[name]).all():
                touched.append(name)
                frame[name] = _as_dtype(frame[name], dtype)
        return frame

    out = map_frames(inputs, convert, files=False)
    return Mutation(out, EQUAL_OR_REFUSED, f"float columns {touched} as {dtype}", False)


# ---------------------------------------------------------------------------------------------- frames (damaged)


def _one_cell(draw, inputs: dict, value_of: Callable[[Any], Any], columns: Callable[[pd.DataFrame], list], what: str):
    """Change one cell of one frame (drawn), returning (inputs, description) or None when no frame has such a column."""
    frames = []
    map_frames(inputs, lambda f: (frames.append(list(f.columns)), f)[1], files=False)
    candidates = [(i, c) for i, cols in enumerate(frames) for c in columns(pd.DataFrame(columns=cols))]
    if not candidates:
        return None
    pick = draw(st.sampled_from(candidates), label=f"{what} column")
    counter = iter(range(len(frames)))
    chosen = {}

    def change(frame):
        i = next(counter)
        if i != pick[0]:
            return frame
        row = draw(st.integers(0, len(frame) - 1), label="row")
        new = value_of(frame[pick[1]].iloc[row])
        frame[pick[1]] = frame[pick[1]].astype(object)
        frame.iat[row, frame.columns.get_loc(pick[1])] = new
        chosen.update(column=pick[1], row=row, value=new)
        return frame

    out = map_frames(inputs, change, files=False)
    return out, f"{what}: {chosen}"


def _all_columns(frame):
    return list(frame.columns)


@mutator("missing_values", "run", "qrels", "table")
def missing_values(draw, entry, inputs):
    token = draw(st.sampled_from([np.nan, None, pd.NA, pd.NaT]), label="missing token")
    done = _one_cell(draw, inputs, lambda v: token, _all_columns, "a missing value")
    return done and Mutation(done[0], FLAGGED, done[1])


@mutator("lists_for_scalars", "run", "qrels", "table")
def lists_for_scalars(draw, entry, inputs):
    shape = draw(st.sampled_from(["list", "tuple", "array", "dict", "set"]), label="container")
    wrap = {
        "list": lambda v: [v, v],
        "tuple": lambda v: (v,),
        "array": lambda v: np.array([v]),
        "dict": lambda v: {"v": v},
        "set": lambda v: {v},
    }[shape]
    done = _one_cell(draw, inputs, wrap, _all_columns, f"a {shape} in a scalar cell")
    return done and Mutation(done[0], FLAGGED, done[1])


def _score_like(frame):
    return [c for c in frame.columns if c not in ("system", "query_id", "doc_id", "relevance", "rank")]


@mutator("infinite_values", "run", "table")
def infinite_values(draw, entry, inputs):
    value = draw(st.sampled_from([np.inf, -np.inf, 1e308 * 10, 2.0**1023 * 1.5]), label="value")
    done = _one_cell(draw, inputs, lambda v: value, _score_like, "an infinite/huge value")
    return done and Mutation(done[0], FLAGGED, done[1])


@mutator("rank_preserving_infinity", "run", skip=lambda entry: "qrels" not in entry.roles)
def rank_preserving_infinity(draw, entry, inputs):
    """The best score of one ranked list becomes +inf (the order, hence every measure, is unchanged)."""
    query = draw(st.sampled_from(list(QUERIES)), label="query")

    def change(frame):
        if "score" not in frame or "query_id" not in frame:
            return frame
        rows = frame.index[frame["query_id"] == query]
        if len(rows):
            keys = ["system"] if "system" in frame else []
            for _, part in frame.loc[rows].groupby(keys) if keys else [(None, frame.loc[rows])]:
                frame.loc[part["score"].idxmax(), "score"] = np.inf
        return frame

    return Mutation(map_frames(inputs, change, files=True), EQUAL_OR_REFUSED, f"best score of {query} set to +inf")


@mutator("odd_grades", "qrels")
def odd_grades(draw, entry, inputs):
    value = draw(
        st.sampled_from(
            [2**53 + 1, 2**60, -(2**60), 2**63 - 1, 1.5, 1.7, "1", "01", "high", True, np.uint64(2**64 - 1)]
        ),
        label="grade",
    )
    done = _one_cell(draw, inputs, lambda v: value, lambda f: [c for c in f.columns if c == "relevance"], "a grade")
    return done and Mutation(done[0], FLAGGED, done[1])


@mutator("numeric_strings_in_values", "run", "table")
def numeric_strings_in_values(draw, entry, inputs):
    style = draw(st.sampled_from(["plain", "padded", "comma"]), label="style")
    fmt = {
        "plain": lambda v: repr(float(v)),
        "padded": lambda v: f" {float(v)!r} ",
        "comma": lambda v: repr(float(v)).replace(".", ","),
    }[style]
    done = _one_cell(draw, inputs, lambda v: fmt(v) if isinstance(v, float) else v, _score_like, "a number as text")
    return done and Mutation(done[0], FLAGGED, done[1])


@mutator("duplicate_rows", "run", "qrels", "table", skip=lambda e: e.name == "rankviz.labels.LabelStore.add")
def duplicate_rows(draw, entry, inputs):
    which = draw(st.integers(0, 10_000), label="row")
    exact = draw(st.booleans(), label="exact copy")

    def dup(frame):
        if len(frame) == 0:
            return frame
        row = frame.iloc[[which % len(frame)]].copy()
        if not exact:
            for name in row.columns:
                if row[name].dtype.kind == "f":
                    row[name] = row[name] / 3.0
                elif name == "relevance":
                    row[name] = (row[name] + 1) % 3
        return pd.concat([frame, row], ignore_index=True)

    frames = draw(st.sampled_from(["first", "all"]), label="frames")
    counter = iter(range(100))
    out = map_frames(inputs, lambda f: dup(f) if frames == "all" or next(counter) == 0 else f, files=True)
    return Mutation(
        out, FLAGGED, f"row {which} duplicated ({'exact' if exact else 'other values'}) in {frames} frame(s)"
    )


@mutator("empty_frames", "run", "qrels", "table")
def empty_frames(draw, entry, inputs):
    which = draw(st.sampled_from(["first", "all"]), label="frames")
    counter = iter(range(100))
    out = map_frames(inputs, lambda f: f.iloc[:0] if which == "all" or next(counter) == 0 else f, files=True)
    return Mutation(out, ROBUST, f"{which} frame(s) emptied")


@mutator("single_row", "run", "qrels", "table")
def single_row(draw, entry, inputs):
    row = draw(st.integers(0, 10_000), label="row")
    out = map_frames(inputs, lambda f: f.iloc[[row % len(f)]] if len(f) else f, files=True)
    return Mutation(out, ROBUST, f"every frame cut to its row {row} (modulo its length)")


# ---------------------------------------------------------------------------------------------- attributes (by=)


def _segments(inputs: dict) -> dict | None:
    by = inputs.get("by")
    return by if isinstance(by, dict) else None


def _map_segments(inputs: dict, mapping: dict) -> dict:
    """Rename the segment values of ``by=`` and of the queries' ``kind``/``topic`` attribute."""
    out = copy.deepcopy(inputs)
    if isinstance(out.get("by"), dict):
        out["by"] = {q: mapping.get(v, v) if isinstance(v, str) else v for q, v in out["by"].items()}

    def frames(frame):
        if "kind" in frame:
            frame["kind"] = [mapping.get(v, v) for v in frame["kind"]]
        return frame

    out = map_frames(out, frames)
    for value in out.values():  # JSONL logs: the 'topic' field
        if isinstance(value, FileInput) and value.kind == "jsonl_log":
            for record in value.obj:
                if isinstance(record, dict) and record.get("topic") in mapping:
                    record["topic"] = mapping[record["topic"]]
    return out


_SEGMENT_PAIRS = [
    ("01", "1"),
    ("007", "7"),
    ("1.0", "1"),
    ("1", " 1"),
    (0.1, 0.1000001),
    (12345.6, 12345.7),
    (2**53, 2**53 + 1),
    (2**60, 2**60 + 1),
    (-(2**63), 2**63 - 1),
    ("x", "x\u00a0"),
    ("x", "x\u200b"),
    ("<script>alert(1)</script>", "$x$"),
    ("**b**", "\\textbf{b}"),
    (True, 1),
]


@mutator("segments_distinct_values", "by")
def segments_distinct_values(draw, entry, inputs):
    """The two segments get values that are distinct but look alike (as numbers, text or markup)."""
    pair = draw(st.sampled_from(_SEGMENT_PAIRS), label="segment values")
    if pair == (True, 1):
        return None  # True == 1 in Python: not distinct keys
    mapping = {"short": pair[0], "long": pair[1]}
    return Mutation(_map_segments(inputs, mapping), EQUIVALENT, f"segments renamed: {mapping!r}")


@mutator("segments_damaged", "by")
def segments_damaged(draw, entry, inputs):
    token = draw(
        st.sampled_from([np.nan, None, pd.NA, np.inf, -np.inf, ["a", "b"], np.array([1, 2]), {"a": 1}, ("a",), b"x"]),
        label="value",
    )
    query = draw(st.sampled_from(list(QUERIES)), label="query")
    out = copy.deepcopy(inputs)
    if isinstance(out.get("by"), dict):
        out["by"][query] = token
    else:

        def frames(frame):
            if "kind" in frame and "query_id" in frame:
                frame["kind"] = frame["kind"].astype(object)
                frame.loc[frame["query_id"] == query, "kind"] = pd.Series([token], dtype=object).iloc[0:1].values
            return frame

        out = map_frames(out, frames)
    return Mutation(out, ROBUST, f"attribute of {query} set to {token!r}")


@mutator("segments_many_numbers", "by")
def segments_many_numbers(draw, entry, inputs):
    """A numeric attribute with a distinct value per query (binned), with huge or infinite values among them."""
    values = draw(
        st.sampled_from(
            [
                [2**60 + i for i in range(8)],
                [float(i) for i in range(7)] + [np.inf],
                [-np.inf] + [float(i) for i in range(7)],
                [0.1 + i * 1e-9 for i in range(8)],
                [2**53 + i for i in range(8)],
            ]
        ),
        label="values",
    )
    out = copy.deepcopy(inputs)
    if not isinstance(out.get("by"), dict):
        return None
    out["by"] = dict(zip(QUERIES, values))
    return Mutation(out, ROBUST, f"numeric attribute {values!r}")


@mutator("segments_reserved_names", "by")
def segments_reserved_names(draw, entry, inputs):
    if "by" not in inputs:
        return None
    name = draw(st.sampled_from(["system", "query_id", "doc_id", "score", "relevance", "", "\u200b"]), label="by")
    return Mutation({**copy.deepcopy(inputs), "by": name}, ROBUST, f"by={name!r}")


# ---------------------------------------------------------------------------------------------- files


def _file_inputs(inputs: dict) -> list[FileInput]:
    found = []
    for value in inputs.values():
        if isinstance(value, FileInput):
            found.append(value)
        elif isinstance(value, list):
            found += [v for v in value if isinstance(v, FileInput)]
    return found


def _damage(draw, inputs: dict, damage: Callable[[bytes], bytes], what: str, expect: str, folder_file=None):
    out = copy.deepcopy(inputs)
    files = _file_inputs(out)
    if not files:
        return None
    target = draw(st.sampled_from(range(len(files))), label="file")
    files[target].damage = damage
    if files[target].kind in ("beir", "notebook_dir"):
        names = {"beir": ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv"], "notebook_dir": ["a.ipynb"]}
        files[target].damage_file = draw(st.sampled_from(names[files[target].kind]), label="file in the folder")
    return Mutation(
        out,
        expect,
        f"{what} ({files[target].name}{'/' + str(files[target].damage_file) if files[target].damage_file else ''})",
    )


@mutator("file_gzip", "path", skip=lambda e: e.name in ("cli:notebooks", "rankviz.io.read_beir"))
def file_gzip(draw, entry, inputs):
    return _damage(draw, inputs, gzip_bytes, "file gzip-compressed", EQUIVALENT)


@mutator("file_encodings", "path")
def file_encodings(draw, entry, inputs):
    form = draw(st.sampled_from(["utf-16", "utf-8-sig", "crlf", "cr"]), label="encoding")
    fn = {
        "utf-16": lambda b: b.decode("utf-8").encode("utf-16"),
        "utf-8-sig": lambda b: b"\xef\xbb\xbf" + b,
        "crlf": lambda b: b.replace(b"\n", b"\r\n"),
        "cr": lambda b: b.replace(b"\n", b"\r"),
    }[form]
    return _damage(draw, inputs, fn, f"file re-encoded as {form}", EQUAL_OR_REFUSED)


@mutator("file_binary", "path")
def file_binary(draw, entry, inputs):
    junk = draw(st.binary(min_size=0, max_size=64), label="bytes")
    return _damage(draw, inputs, lambda b: b"\x89PNG\r\n\x1a\n\x00\x00" + junk, "a binary (PNG-like) file", FLAGGED)


@mutator("file_truncated", "path")
def file_truncated(draw, entry, inputs):
    frac = draw(st.floats(0.0, 1.0), label="kept share")
    gz = draw(st.booleans(), label="gzip first")

    def cut(b: bytes) -> bytes:
        if gz:
            b = gzip_bytes(b)
        return b[: int(len(b) * frac)]

    expect = FLAGGED if gz and frac < 0.99 else ROBUST
    return _damage(draw, inputs, cut, f"file truncated to {frac:.3f} of its bytes{' after gzip' if gz else ''}", expect)


@mutator("file_nul_byte", "path")
def file_nul_byte(draw, entry, inputs):
    where = draw(st.floats(0.0, 1.0), label="position")
    return _damage(
        draw,
        inputs,
        lambda b: b[: int(len(b) * where)] + b"\x00" + b[int(len(b) * where) :],
        "a NUL byte inserted",
        FLAGGED,
    )


# ---------------------------------------------------------------------------------------------- JSON


def _json_files(inputs: dict) -> list[FileInput]:
    return [f for f in _file_inputs(inputs) if f.kind in ("jsonl_log", "label_studio", "beir", "notebook_dir")]


def _containers(obj: Any, path=()) -> list:
    """Paths of every dict and list in a JSON-like object (for beir: its queries/corpus records)."""
    found = []
    if isinstance(obj, (dict, list)) and not isinstance(obj, pd.DataFrame):
        found.append(path)
        items = obj.items() if isinstance(obj, dict) else enumerate(obj)
        for key, value in items:
            if not isinstance(value, pd.DataFrame):
                found += _containers(value, (*path, key))
    return found


def _get(obj, path):
    for key in path:
        obj = obj[key]
    return obj


def _json_target(draw, inputs: dict, want: str):
    out = copy.deepcopy(inputs)
    files = _json_files(out)
    if not files:
        return None
    spec = draw(st.sampled_from(files), label="file")
    roots = {"beir": ("queries", "corpus"), "notebook_dir": ("a.ipynb",)}.get(spec.kind)
    paths = [p for p in _containers(spec.obj) if roots is None or (p and p[0] in roots and len(p) >= 2)]
    paths = [p for p in paths if isinstance(_get(spec.obj, p), dict if want == "dict" else (dict, list))]
    paths = [p for p in paths if len(_get(spec.obj, p))]
    if not paths:
        return None
    path = draw(st.sampled_from(paths), label="where")
    return out, spec, path


def _set(spec: FileInput, path: tuple, value: Any) -> None:
    if not path:
        spec.obj = value
    else:
        _get(spec.obj, path[:-1])[path[-1]] = value


def _other(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    return None


@mutator("json_duplicate_keys", "json")
def json_duplicate_keys(draw, entry, inputs):
    found = _json_target(draw, inputs, "dict")
    if found is None:
        return None
    out, spec, path = found
    obj = _get(spec.obj, path)
    key = draw(st.sampled_from(sorted(obj, key=str)), label="key")
    first = draw(st.booleans(), label="the repeat comes first")
    pairs = [(k, v) for k, v in obj.items()]
    repeat = (key, _other(obj[key]))
    _set(spec, path, Pairs([repeat, *pairs] if first else [*pairs, repeat]))
    return Mutation(out, FLAGGED, f"JSON key {key!r} repeated with {repeat[1]!r} at {path}")


@mutator("json_deep_nesting", "json")
def json_deep_nesting(draw, entry, inputs):
    found = _json_target(draw, inputs, "any")
    if found is None:
        return None
    out, spec, path = found
    obj = _get(spec.obj, path)
    keys = list(obj) if isinstance(obj, dict) else list(range(len(obj)))
    key = draw(st.sampled_from(keys), label="key")
    depth = draw(st.sampled_from([1_000, 10_000, 200_000]), label="depth")
    obj[key] = Deep(depth)
    return Mutation(out, FLAGGED, f"value at {(*path, key)} nested {depth} deep")


@mutator("json_wrong_types", "json")
def json_wrong_types(draw, entry, inputs):
    found = _json_target(draw, inputs, "any")
    if found is None:
        return None
    out, spec, path = found
    obj = _get(spec.obj, path)
    keys = list(obj) if isinstance(obj, dict) else list(range(len(obj)))
    key = draw(st.sampled_from(keys), label="key")
    old = obj[key]
    new = draw(
        st.sampled_from([None, [old], {"v": old}, 2**60, -(2**63), 1.7, float("nan"), "", "1", True, "None", [], {}]),
        label="value",
    )
    if _another_valid_value(old, new):
        return None  # not a wrong type: a score 1.7 for 10.001, a choice '1' for 'great' are values in their own right
    obj[key] = new
    return Mutation(out, FLAGGED, f"value at {(*path, key)}: {old!r} -> {new!r}")


def _another_valid_value(old, new) -> bool:
    """Whether ``new`` has ``old``'s JSON type and is valid as such (a finite float, a non-empty string, a boolean)."""
    if type(old) is not type(new):
        return False
    return (isinstance(new, float) and new == new) or (isinstance(new, str) and new != "") or isinstance(new, bool)


# ---------------------------------------------------------------------------------------------- numbers, measures, text


@mutator("numbers_damaged", "numbers")
def numbers_damaged(draw, entry, inputs):
    key = draw(st.sampled_from(sorted(inputs)), label="argument")
    value = inputs[key]
    token = draw(
        st.sampled_from([np.nan, None, pd.NA, np.inf, -np.inf, -1, 2**60, 2**64, "0.5", "x", [0.5], True, 1.5, 10**9]),
        label="value",
    )
    out = copy.deepcopy(inputs)
    if isinstance(value, (list, np.ndarray)) and len(value):
        arr = list(np.asarray(value, dtype=object).ravel()) if isinstance(value, np.ndarray) else list(value)
        arr[draw(st.integers(0, len(arr) - 1), label="index")] = token
        out[key] = np.array(arr, dtype=object).reshape(np.shape(value)) if isinstance(value, np.ndarray) else arr
    else:
        out[key] = token
    # a big int is legitimate (ROBUST), as is a value the entry declares legitimate for this argument; compared
    # by type first, as `pd.NA in (...)` would raise (NA == x is NA)
    big = type(token) is int and token in (10**9, 2**60, 2**64)
    legitimate = big or entry.legitimate.get(key, lambda v: False)(token)
    return Mutation(out, ROBUST if legitimate else FLAGGED, f"{key} with {token!r}")


@mutator("numbers_other_types", "numbers")
def numbers_other_types(draw, entry, inputs):
    form = draw(st.sampled_from(["decimal", "numpy", "pandas", "arrow", "tuple"]), label="form")
    out = copy.deepcopy(inputs)

    def convert(v):
        if isinstance(v, (list, np.ndarray)):
            return (
                {
                    "decimal": lambda a: [decimal.Decimal(repr(float(x))) for x in np.ravel(a)],
                    "numpy": lambda a: np.asarray(a, dtype="float64"),
                    "pandas": lambda a: pd.Series(np.ravel(a)),
                    "arrow": lambda a: pd.array(np.ravel(a), dtype="float64[pyarrow]"),
                    "tuple": lambda a: tuple(np.ravel(a).tolist()),
                }[form](v)
                if np.ndim(v) == 1
                else v
            )
        if isinstance(v, int) and not isinstance(v, bool):
            return {"decimal": decimal.Decimal(v), "numpy": np.int64(v), "pandas": v, "arrow": v, "tuple": v}[form]
        if isinstance(v, float):
            return {"decimal": decimal.Decimal(repr(v)), "numpy": np.float64(v)}.get(form, v)
        return v

    out = {k: convert(v) for k, v in out.items()}
    return Mutation(out, EQUAL_OR_REFUSED, f"numbers given as {form}")


@mutator("measure_names", "measures")
def measure_names(draw, entry, inputs):
    new = draw(
        st.sampled_from(
            [
                "RR@10\u200b",
                "RR@10\u00a0",
                "<script>alert(1)</script>",
                "$x$",
                "",
                " ",
                "RR@1e1",
                "RR@10.0",
                "P@05",
                "P@-1",
                f"P@{2**60}",
                "P@0",
                "nDCG@10@10",
                "RR(rel=)@10",
                "RR(rel=2**60)@10",
                "\x00",
                "ＲＲ@10",
            ]
        ),
        label="measure",
    )
    out = copy.deepcopy(inputs)
    index = draw(st.integers(0, len(out["measures"]) - 1), label="index")
    out["measures"][index] = new
    return Mutation(out, FLAGGED, f"measure {index} -> {new!r}")


@mutator("markup_text", "text", "html")
def markup_text(draw, entry, inputs):
    """Every free text (query texts, titles, annotators) carries markup and control characters."""
    payload = draw(st.sampled_from(_MARKUP + ["a\u202eb", "a\x00b", "a\rb"]), label="markup")

    def frames(frame):
        for name in ("text", "question", "title"):
            if name in frame:
                frame[name] = [f"{payload} {v}" for v in frame[name]]
        return frame

    out = map_frames(inputs, frames)
    for key in ("title", "annotator"):
        if isinstance(out.get(key), str):
            out[key] = f"{payload}{out[key]}"
    for value in out.values():
        if isinstance(value, FileInput) and value.kind == "jsonl_log":
            for record in value.obj:
                if isinstance(record, dict) and isinstance(record.get("question"), str):
                    record["question"] = f"{payload} {record['question']}"
    return Mutation(out, ROBUST, f"markup {payload!r} in every text")


@mutator("measure_containers", "measures")
def measure_containers(draw, entry, inputs):
    form = draw(st.sampled_from(["tuple", "series", "array", "arrow", "one string"]), label="form")
    names = inputs["measures"]
    given = {
        "tuple": lambda: tuple(names),
        "series": lambda: pd.Series(names),
        "array": lambda: np.array(names),
        "arrow": lambda: pd.array(names, dtype="string[pyarrow]"),
        "one string": lambda: names[:1] if entry.name == "rankviz.parse_measure" else names[0],
    }[form]()
    out = {**copy.deepcopy(inputs), "measures": given}
    expect = EQUAL_OR_REFUSED if form != "one string" or entry.name == "rankviz.parse_measure" else ROBUST
    return Mutation(out, expect, f"measures given as {form}: {given!r}")


def applicable(entry) -> list[Mutator]:
    return [m for m in MUTATORS if m.applies(entry)]
