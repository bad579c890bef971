"""The ``fmtest`` command line (also ``python -m fmtest``).

Two commands fit :class:`fmtest.FMeasureComparison` and print the results.

``fmtest example``
    Fit ``correct ~ algorithm + dataset`` on the bundled example data
    (:func:`fmtest.datasets.load_example`: 5 imbalanced data sets, 4
    classifiers, 5-fold cross-validation) and print the full text summary::

        $ fmtest example
        $ fmtest example --beta 2 --method wong --format json --output example.json

``fmtest compare FILE --formula FORMULA``
    Read long data, one row per (data set, instance, algorithm), from a CSV
    file (``.csv``, ``.csv.gz``, ``.tsv`` with tabs) or from Parquet (a
    ``.parquet`` file or a folder of Parquet files), fit and print. Parquet
    is reduced to count tables by DuckDB, without loading the rows, when
    duckdb and narwhals are installed (``pip install ".[scale]"`` from a clone), and
    read by pandas (needs pyarrow) otherwise::

        $ fmtest compare predictions.csv --formula "correct ~ algorithm + dataset"
        $ fmtest compare runs.parquet --formula "ok ~ model + task" \\
              --truth y --instance id --fold cv --format csv --table fmeasures
        $ fmtest compare preds.tsv --formula "predicted ~ algorithm" \\
              --response predicted --no-instance --positive minority

    A truth column with three or more labels is multi-class data: F is
    averaged over the classes (``--average macro``, the default, ``micro``,
    ``weighted`` or ``macro_f1_of_averages``)::

        $ fmtest compare intents.csv --formula "predicted ~ algorithm" --average micro

    ``--labels`` lists the classes to report and average (scikit-learn's
    ``labels=``, typed like the truth's labels). Multi-label data come in the
    long layout (``--label COLUMN``) or as 0/1 indicator columns, one per
    label, named by a pattern (``*`` stands for the label) or a list::

        $ fmtest compare tags.csv --formula "p_* ~ algorithm" --truth "y_*"
        $ fmtest compare tags.csv --formula "p_a + p_b ~ algorithm" --truth y_a,y_b

Both commands take the fit options (``--beta``, ``--alpha``, ``--method``,
``--min-count``, ``--multitest``, ``--wong-divisor``, …) and the output
options: ``--format text|latex|html|csv|json`` (``csv`` writes the table
chosen by ``--table``, ``json`` writes every table, the configuration and the
notes; a table of more than ``--json-max-rows`` rows, default 200 000, is
left out and named under ``"omitted"``, ``--json-max-rows 0`` writes it) and
``--output FILE`` (default: standard output). For two-column papers,
``--format latex`` takes ``--twocolumn`` (the summary) and, with ``--table``
(the paper table), ``--wide``, ``--compact`` and ``--caption-above``.

Bad input (a missing file, a formula naming an unknown column, a
correct/incorrect response on multi-class data, …) prints one line
``fmtest: error: <message>`` on standard error and exits with status 2, as do
usage errors.
"""

from __future__ import annotations

import argparse
import json
import math
import numbers
import os
import re
import sys
import warnings
from pathlib import Path

from fmtest import __version__

# numpy, pandas, statsmodels and the models are imported where they are used,
# so that ``fmtest --version`` and ``--help`` start in milliseconds.

__all__ = ["main", "read_data", "render_results", "results_to_dict", "write_json"]

EXAMPLE_FORMULA = "correct ~ algorithm + dataset"
FORMATS = ("text", "latex", "html", "csv", "json")
TABLES = ("fmeasures", "pairwise", "omnibus", "across_datasets")
#: Multi-class results only: each class's precision, recall and F.
MULTICLASS_TABLES = ("per_class",)
PAPER_TABLE = "paper"
#: Written to JSON (and by --table) when the data allow them.
OPTIONAL_TABLES = ("algorithm_tests", "tango", "paired_errors", "roc")
#: The choices of ``fit(method=)`` and ``fit(ci_method=)``; tests check them
#: against ``fmtest.model.METHODS``, ``fmtest.results.CI_METHODS`` and
#: ``fmtest.fit_options.MULTICLASS_CI_METHODS``.
METHOD_CHOICES = ("delta", "jvesr", "wong")
CI_METHOD_CHOICES = (
    "score",
    "mover-score",
    "mover",
    "binomial",
    "wald",
    "logit",
    "bootstrap",
    "logit-wald",  # multi-class data only
)
F_METRICS = ("f1", "fbeta")
#: ``--average`` choices (``fmtest.estimates.multiclass.AVERAGES``; tests check).
AVERAGE_CHOICES = ("macro", "micro", "weighted", "macro_f1_of_averages")
ZERO_DIVISION_CHOICES = ("warn", "0", "1", "nan")
CSV_SUFFIXES = {".csv": ",", ".tsv": "\t"}
COMPRESSION_SUFFIXES = ("", ".gz", ".bz2", ".xz", ".zip")
PARQUET_HINT = (
    "reading Parquet needs pyarrow (or fastparquet), which could not be imported; "
    "install it with `pip install pyarrow`"
)

# Library messages name Python arguments; on the command line the options.
CLI_WORDING = (
    ("`instance=None`", "--no-instance"),
    ("`positive='minority'`", "--positive minority"),
    ("pass `positive=`", "pass --positive LABEL"),
    (" (`response_kind='predicted'` in CountTables.from_long)", ""),
    ("(`average=` of fit)", "(--average)"),
    ("(`average=`)", "(--average)"),
    ("`response_kind='correct'`", "--response correct"),
    ("`response_kind='predicted'`", "--response predicted"),
    ("`response='correct'`", "--response correct"),
    ("`response='predicted'`", "--response predicted"),
    ("`method='wong'`", "--method wong"),
    ("(`fold=`)", "(--fold COLUMN)"),
    ("use method='delta'", "use --method delta"),
    ("interval pass alpha=", "interval pass --alpha "),
    ("`labels=`", "--labels"),
    ("`truth=`", "--truth"),
)
ROLE_OPTION = re.compile(r"`(algorithm|dataset|truth|label)=('[^']*')`")
LIBRARY_ONLY = re.compile(r"; `dataset='[^']*'` in CountTables\.from_long")
FIT_OPTION = re.compile(
    r"`(alpha|beta|min_count|rho_fallback|multitest|wong_divisor|re_method|re_test"
    r"|estimand|control|alternative|margin|average|zero_division|ci_method)`"
)


# -- reading ---------------------------------------------------------------


def read_data(
    path, *, engine="pandas", encoding=None, sep=None, na_values=None,
    keep_default_na=True,
):  # fmt: skip
    """Read long data from a CSV or Parquet file, or a folder of Parquet files.

    Parameters
    ----------
    path : str or os.PathLike
        ``.csv`` or ``.tsv`` (tab-separated), optionally compressed
        (``.gz``, ``.bz2``, ``.xz``, ``.zip``); ``.parquet``; or a folder,
        read as one Parquet data set (every ``.parquet`` file under it).
    engine : {"pandas", "auto"}, default="pandas"
        How Parquet is read. ``"pandas"`` loads it into a DataFrame.
        ``"auto"`` (what ``fmtest compare`` uses) returns a DuckDB relation
        over the files when duckdb and narwhals are installed, so that the
        reduction to count tables runs in DuckDB without loading the rows
        (see :func:`fmtest.tables.engines.count_tables`), and falls back to pandas
        otherwise or when DuckDB cannot open the files. CSV is always read
        by pandas.
    encoding : str, optional
        Text encoding of a CSV file (default UTF-8), e.g. ``"latin-1"`` or
        ``"utf-16"``.
    sep : str, optional
        Field separator of a CSV file; default ``,`` for ``.csv`` and a tab
        for ``.tsv``.
    na_values : list of str, optional
        More cell texts read as missing.
    keep_default_na : bool, default=True
        Read pandas' default missing-value texts (``""``, ``NA``, ``N/A``,
        ``NaN``, ``nan``, ``null``, ``None``, …) as missing. With ``False``
        only empty cells and ``na_values`` are missing, so that level names
        such as ``NA`` or ``None`` are kept.

    Returns
    -------
    pandas.DataFrame or duckdb.DuckDBPyRelation

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    ValueError
        For an unknown extension, a folder without Parquet files, or a file
        that cannot be parsed.
    ImportError
        When reading Parquet and neither pyarrow nor fastparquet is installed.
    """

    if engine not in ("pandas", "auto"):
        raise ValueError(f"`engine` must be 'pandas' or 'auto'; got {engine!r}.")
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"The file {str(path)!r} does not exist.")
    if path.is_dir():
        if not any(p.is_file() for p in path.rglob("*.parquet")):
            raise ValueError(
                f"{str(path)!r} is a folder without .parquet files; give a CSV or "
                "Parquet file, or a folder of Parquet files."
            )
        return _read_parquet(path, engine)
    name = path.name.lower()
    if name.endswith(".parquet"):
        return _read_parquet(path, engine)
    for suffix, default_sep in CSV_SUFFIXES.items():
        if any(name.endswith(suffix + comp) for comp in COMPRESSION_SUFFIXES):
            return _read_csv(
                path, sep or default_sep, encoding, na_values, keep_default_na
            )
    raise ValueError(
        f"Cannot tell the format of {str(path)!r} from its extension; fmtest reads "
        ".csv, .csv.gz, .tsv (tab-separated), .parquet and folders of Parquet files."
    )


def _read_csv(path, sep, encoding, na_values, keep_default_na):
    """``pandas.read_csv`` with hints for the encoding and the separator."""
    import pandas as pd

    missing = list(na_values or [])
    if not keep_default_na:
        missing = ["", *missing]  # empty cells stay missing
    try:
        data = pd.read_csv(
            path,
            sep=sep,
            encoding=encoding,
            na_values=missing or None,
            keep_default_na=keep_default_na,
        )
    except UnicodeError as err:
        raise ValueError(
            f"Cannot decode {str(path)!r} as {encoding or 'UTF-8'} ({err}); give its "
            "encoding with --encoding, e.g. --encoding latin-1 or --encoding utf-16."
        ) from None
    except LookupError as err:  # an unknown codec name
        raise ValueError(f"Unknown --encoding {encoding!r}: {err}.") from None
    if data.shape[1] == 1:
        header = str(data.columns[0])
        found = [c for c in (";", ",", "\t", "|") if c in header and c != sep]
        hint = (
            f"; the header holds {found[0]!r}: pass --sep {found[0]!r}"
            if found
            else "; pass the separator with --sep"
        )
        raise ValueError(
            f"{str(path)!r} was read as one column ({header[:80]!r}) with "
            f"separator {sep!r}{hint}."
        )
    return data


def _read_parquet(path, engine="pandas"):
    import pandas as pd

    if engine == "auto":
        relation = _duckdb_relation(path)
        if relation is not None:
            return relation
    try:
        return pd.read_parquet(path)
    except ImportError:
        raise ImportError(PARQUET_HINT) from None


def _duckdb_relation(path):
    """A DuckDB relation over the Parquet file or folder, or None.

    None when duckdb or narwhals is missing, or when DuckDB cannot open the
    files: pandas then reads them, and words any error as before.
    """
    from fmtest.tables.engines import narwhals_available

    try:
        import duckdb
    except ImportError:
        return None
    if not narwhals_available():
        return None
    target = path / "**" / "*.parquet" if path.is_dir() else path
    try:
        return duckdb.read_parquet(str(target))  # on DuckDB's default connection
    except duckdb.Error:
        return None


# -- output -----------------------------------------------------------------


def _plain(value):
    """``value`` as JSON-ready Python: NaN/NA to None, ±inf to "inf"/"-inf", numpy to Python."""
    import numpy as np
    import pandas as pd

    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float):
        if math.isinf(value):  # distinguishable from NaN (null); float("inf") reads it
            return "inf" if value > 0 else "-inf"
        return value if math.isfinite(value) else None
    if isinstance(value, (bool, int, str)):
        return value
    return str(value)


def _records(frame):
    return [_plain(r) for r in frame.reset_index().to_dict(orient="records")]


def results_to_dict(res):
    """The results as a JSON-ready dict.

    Parameters
    ----------
    res : FMeasureComparisonResults

    Returns
    -------
    dict
        ``config`` (every fit option), ``notes`` (list of str) and one list of
        records per table (``fmeasures`` — ``estimates`` for other metrics —,
        ``pairwise``, ``omnibus``, ``across_datasets``, and where the data
        allow them ``algorithm_tests`` (the algorithm estimand, with the
        ``--rope`` of the Bayesian test), ``tango`` (needs TN counts), ``paired_errors`` (needs
        predictions paired by instance) and ``roc`` (needs a score column)),
        and with several data sets ``ranks`` (per data set), ``mean_ranks``,
        ``friedman`` and ``posthoc`` (Nemenyi), each record holding the index
        columns too. NaN and missing values are ``None``; +inf and −inf are
        the strings ``"inf"`` and ``"-inf"`` (e.g. the Iman–Davenport F
        under perfect agreement; ``float()`` reads them back); numpy scalars
        are Python scalars.
    """
    out = {"config": _plain(dict(res.config)), "notes": _plain(list(res.notes))}
    for table in available_tables(res):  # multi-class: also per_class
        out[table] = _records(getattr(res, table))
    if len(res.counts.datasets) > 1:  # ranks across data sets (Demšar 2006)
        ranks = res.ranks
        out["ranks"] = _records(ranks.per_dataset)
        out["mean_ranks"] = _records(ranks.mean.to_frame())
        out["friedman"] = _records(res.friedman)
        out["posthoc"] = _records(res.posthoc())
    return out


#: Records per write of :func:`write_json`: bounds the text held in memory.
JSON_CHUNK = 20_000
_JSON_TOKENS = {"NaN": "null", "Infinity": '"inf"', "-Infinity": '"-inf"'}


def _json_column(values):
    """Each value of one column as JSON text (NaN null, ±inf "inf"/"-inf").

    Numbers are encoded by the C encoder in one call per column; text and
    other objects once per distinct value.
    """
    import numpy as np
    import pandas as pd

    array = values.to_numpy() if hasattr(values, "to_numpy") else np.asarray(values)
    kind = array.dtype.kind
    if kind in "fiu" and not isinstance(values.dtype, pd.CategoricalDtype):
        if kind == "f":
            array = array.astype(float, copy=False)
        text = json.dumps(array.tolist())[1:-1]
        if not text:
            return []
        parts = text.split(", ")  # numbers hold no ", "
        if kind == "f":
            for i in np.flatnonzero(~np.isfinite(array)).tolist():
                parts[i] = _JSON_TOKENS[parts[i]]
        return parts
    if kind == "b":
        return np.where(array, "true", "false").tolist()
    codes, uniques = pd.factorize(pd.Series(array, dtype=object), use_na_sentinel=True)
    encoded = [json.dumps(_plain(u), ensure_ascii=True) for u in uniques]
    encoded.append("null")  # the missing-value code -1
    return [encoded[c] for c in codes.tolist()]


def _json_records(frame):
    """The rows of ``frame`` (index as columns) as one-line JSON objects, lazily.

    Each chunk of rows gets its index as columns on its own, so the whole
    table is never copied.
    """
    keys = [json.dumps(str(col)) for col in frame.iloc[:0].reset_index().columns]
    escaped = [key.replace("{", "{{").replace("}", "}}") for key in keys]
    template = "{{" + ", ".join(f"{key}: {{}}" for key in escaped) + "}}"
    for start in range(0, len(frame), JSON_CHUNK):
        part = frame.iloc[start : start + JSON_CHUNK].reset_index()
        columns = [_json_column(part[col]) for col in part.columns]
        yield [template.format(*row) for row in zip(*columns, strict=True)]


#: Default of :func:`write_json`'s ``max_rows``: a table with more rows is
#: left out (named under ``"omitted"``). 200 000 rows keep every table of
#: 200 algorithms on 10 data sets (about 100 MiB of JSON for ``pairwise``);
#: the 5 million data-set × pair rows of 1000 algorithms would be 5 GiB.
JSON_MAX_ROWS = 200_000


#: Tables with one row per data set and compared pair.
DATASET_PAIR_TABLES = ("pairwise", "paired_errors", "algorithm_tests")


def _known_rows(res, name):
    """Rows of table ``name`` without computing it, where the pairs tell; else None.

    Tables already computed give their length; the data-set × pair tables
    have one row per data set and compared pair, the pair tables across data
    sets one per compared pair.
    """
    if name not in (*DATASET_PAIR_TABLES, "across_datasets", "posthoc"):
        return None
    cached = res.__dict__.get(name)  # a cached_property already computed
    if cached is not None:
        return len(cached)
    comparisons = getattr(res, "comparisons", None)
    if comparisons is None:
        return None
    pairs = len(comparisons.first)
    if name in DATASET_PAIR_TABLES:
        return len(res.counts.datasets) * pairs
    if len(res.counts.datasets) > 1:  # one data set: computed, to be sure
        return pairs
    return None


def _omitted_note(name, rows, max_rows):
    return (
        f"{rows} rows, more than max_rows={max_rows}: not written. Read "
        f"res.{name} in Python (e.g. res.{name}.to_parquet(...)), or write "
        "every table with write_json(res, stream, max_rows=None) or the "
        "command line's --json-max-rows 0."
    )


def _json_tables_within(res, max_rows):
    """(name, frame or None, note) of every table, None when left out."""
    names = [name for name, _ in _JSON_GETTERS]
    getters = dict(_JSON_GETTERS)
    several = len(res.counts.datasets) > 1
    for name in [*available_tables(res), *(names if several else [])]:
        rows = None if max_rows is None else _known_rows(res, name)
        if rows is not None and rows > max_rows:  # left out uncomputed
            yield name, None, _omitted_note(name, rows, max_rows)
            continue
        frame = getters[name](res) if name in getters else getattr(res, name)
        if max_rows is not None and len(frame) > max_rows:
            yield name, None, _omitted_note(name, len(frame), max_rows)
        else:
            yield name, frame, None


#: The tables across data sets of :func:`results_to_dict`, by name.
_JSON_GETTERS = (
    ("ranks", lambda res: res.ranks.per_dataset),
    ("mean_ranks", lambda res: res.ranks.mean.to_frame()),
    ("friedman", lambda res: res.friedman),
    ("posthoc", lambda res: res.posthoc()),
)


def write_json(res, stream, *, max_rows=JSON_MAX_ROWS):
    """Write :func:`results_to_dict` as JSON to ``stream``, table by table.

    The same content as ``json.dumps(results_to_dict(res))`` (up to
    ``max_rows`` rows a table), one record per line, written in chunks of
    :data:`JSON_CHUNK` records: the text is never held whole, and numbers
    go through the C encoder a column at a time.

    Parameters
    ----------
    res : FMeasureComparisonResults or MetricComparisonResults
    stream : text stream
        Anything with a ``write(str)`` method.
    max_rows : int or None, default=JSON_MAX_ROWS (200 000)
        A table with more rows is not written (nor computed, where its row
        count is known beforehand); the object ``"omitted"`` then names it
        with its row count and how to get it. With 1000 algorithms on 10
        data sets the data-set × pair tables (``pairwise``,
        ``paired_errors``) have 5 million rows, about 5 GiB of text, and
        the pair tables across data sets (``across_datasets``,
        ``posthoc``) half a million. None writes every table whole.

    Examples
    --------
    >>> import io, json
    >>> from fmtest import FMeasureComparison
    >>> from fmtest.datasets import load_example
    >>> res = FMeasureComparison.from_formula(
    ...     "correct ~ algorithm + dataset", load_example()
    ... ).fit()
    >>> buffer = io.StringIO()
    >>> write_json(res, buffer, max_rows=25)  # 4 algorithms, 5 data sets
    >>> got = json.loads(buffer.getvalue())
    >>> len(got["fmeasures"]), "pairwise" in got, sorted(got["omitted"])
    (20, False, ['algorithm_tests', 'paired_errors', 'pairwise'])
    """
    if max_rows is not None and (
        isinstance(max_rows, bool)
        or not isinstance(max_rows, numbers.Integral)
        or max_rows < 0
    ):
        raise ValueError(
            f"max_rows must be a non-negative integer or None, not {max_rows!r}."
        )
    head = {"config": _plain(dict(res.config)), "notes": _plain(list(res.notes))}
    stream.write("{\n")
    for key, value in head.items():
        text = json.dumps(value, indent=2, allow_nan=False).replace("\n", "\n  ")
        stream.write(f"  {json.dumps(key)}: {text},\n")
    first = True
    omitted = {}
    for name, frame, note in _json_tables_within(res, max_rows):
        if frame is None:
            omitted[name] = note
            continue
        stream.write(("" if first else ",\n") + f"  {json.dumps(name)}: [")
        first = False
        started = False
        for records in _json_records(frame):
            if records:
                stream.write(("," if started else "") + "\n    ")
                stream.write(",\n    ".join(records))
                started = True
        stream.write("\n  ]" if started else "]")
    if omitted:
        text = json.dumps(omitted, indent=2).replace("\n", "\n  ")
        stream.write(("" if first else ",\n") + f'  "omitted": {text}')
    stream.write("\n}\n")


def available_tables(res):
    """The names of the results tables these data allow, in output order."""
    multiclass = res.design.multiclass
    first = "fmeasures" if res.has_wong or multiclass else "estimates"
    names = [first, *TABLES[1:]]
    if multiclass:  # the misclassification tables are binary only
        names.append("per_class")
    roles = getattr(res.model, "roles", None) or {}
    for name, ok in (
        ("algorithm_tests", "algorithm_tests" in res.question.extra_tables),
        ("tango", not multiclass and res.design.tn_known),
        ("paired_errors", not multiclass and res.design.paired),
        ("roc", roles.get("score") is not None),
    ):
        if ok:
            names.append(name)
    return names


def render_results(
    res, fmt="text", table="pairwise", *, misclassification=False, twocolumn=False,
    wide=False, compact=False, caption_above=False,
):  # fmt: skip
    """Render fitted results as text.

    Parameters
    ----------
    res : FMeasureComparisonResults or MetricComparisonResults
    fmt : {"text", "latex", "html", "csv", "json"}, default="text"
        ``text``, ``latex`` and ``html`` render ``res.summary()``; ``csv``
        writes one table with its index at full precision; ``json`` writes
        :func:`results_to_dict` (NaN as ``null``, ±inf as ``"inf"``/``"-inf"``)
        through :func:`write_json`, which leaves out tables of more than
        :data:`JSON_MAX_ROWS` rows and names them under ``"omitted"``.
    table : str, default="pairwise"
        The table written by ``fmt="csv"``: ``fmeasures`` (``estimates``),
        ``pairwise``, ``omnibus``, ``across_datasets``, ``tango``,
        ``paired_errors`` or ``roc`` (see :func:`available_tables`);
        ``"paper"`` writes
        :meth:`~fmtest.results.MetricComparisonResults.table` instead of the
        summary in ``text``, ``latex``, ``html`` or ``csv``.
    misclassification : bool, default=False
        Add the misclassification-balance tables to the summary.
    twocolumn : bool, default=False
        ``fmt="latex"``: the summary for a two-column document
        (``summary().as_latex(twocolumn=True)``).
    wide, compact, caption_above : bool, default=False
        ``fmt="latex"`` with ``table="paper"``: the paper table's
        ``to_latex(wide=..., compact=..., caption_above=...)`` (a ``table*``
        over both columns, one column of a two-column page, the caption
        above; see ``docs/paper.rst``).

    Returns
    -------
    str
        Ending with a newline.

    Raises
    ------
    ValueError
        For a LaTeX layout option with an output it does not apply to.

    Examples
    --------
    >>> from fmtest import FMeasureComparison
    >>> from fmtest.datasets import load_example
    >>> res = FMeasureComparison.from_formula(
    ...     "correct ~ algorithm + dataset", load_example()).fit(estimand="models")
    >>> latex = render_results(res, "latex", "paper", wide=True, caption_above=True)
    >>> latex == res.table().to_latex(wide=True, caption_above=True)
    True
    """
    paper = {"wide": wide, "compact": compact, "caption_above": caption_above}
    used = [k for k, v in paper.items() if v] + (["twocolumn"] if twocolumn else [])
    if used and fmt != "latex":
        raise ValueError(
            f"`{used[0]}` is a layout of the LaTeX output; it needs fmt='latex'."
        )
    if table == PAPER_TABLE:  # fmtest.report.paper_table, in the format asked
        if twocolumn:
            raise ValueError(
                "`twocolumn` lays out the LaTeX summary; the paper table of a "
                "two-column page takes `wide` (both columns) or `compact` (one)."
            )
        return _render_paper_table(res.table(), fmt, **paper)
    if any(paper.values()):
        name = next(k for k, v in paper.items() if v)
        raise ValueError(
            f"`{name}` lays out the paper table (table='paper'); the summary of a "
            "two-column page takes `twocolumn`."
        )
    if fmt in ("text", "latex", "html"):
        smry = res.summary(misclassification=misclassification)
        if fmt == "latex":
            return smry.as_latex(twocolumn=twocolumn) + "\n"
        return getattr(smry, f"as_{fmt}")() + "\n"
    if fmt == "csv":
        f_table = res.has_wong or res.design.multiclass  # the F table's own name
        if table == "fmeasures" and not f_table:
            table = "estimates"
        elif table == "estimates" and f_table:
            table = "fmeasures"
        known = available_tables(res)
        if table not in known:
            raise ValueError(
                f"`table` must be one of {known} for these results; got {table!r}."
            )
        return getattr(res, table).to_csv(lineterminator="\n")
    if fmt == "json":
        import io

        buffer = io.StringIO()
        write_json(res, buffer)
        return buffer.getvalue()
    raise ValueError(f"`fmt` must be one of {list(FORMATS)}; got {fmt!r}.")


def _render_paper_table(table, fmt, **layout):
    if fmt == "latex":
        return table.to_latex(**layout)
    if fmt == "html":
        return table.to_html()
    if fmt == "csv":
        return table.to_frame().to_csv(lineterminator="\n")
    if fmt == "text":
        return table.to_string() + "\n"
    raise ValueError(
        f"The paper table is written as text, latex, html or csv; not {fmt!r}."
    )


def _emit_json(res, output, max_rows=JSON_MAX_ROWS):
    if output is None:
        write_json(res, sys.stdout, max_rows=max_rows)
        sys.stdout.flush()
    else:
        with open(output, "w", encoding="utf-8") as fh:
            write_json(res, fh, max_rows=max_rows)


def _emit(text, output):
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)


# -- commands ---------------------------------------------------------------


def _model_class(args):
    from fmtest.model import FMeasureComparison, MetricComparison

    return FMeasureComparison if args.metric in F_METRICS else MetricComparison


#: Options that only ``FMeasureComparison.fit`` takes, with their defaults.
F_ONLY_DEFAULTS = {
    "beta": 1.0,
    "min_count": 5,
    "rho_fallback": 1.0,
    "wong_divisor": "theorem",
    "ci_method": None,
    "n_resamples": 2000,
    "random_state": None,
}


def _f_only_options(args):
    """The F-only options given with values other than their defaults, as flags."""
    return [
        "--" + dest.replace("_", "-")
        for dest, default in F_ONLY_DEFAULTS.items()
        if getattr(args, dest, default) != default
    ]


def _fit(model, args):
    from fmtest.model import MetricComparison

    if args.metric not in F_METRICS:  # the F-only options do not apply
        return MetricComparison.fit(
            model,
            metric=args.metric,
            alpha=args.alpha,
            multitest=args.multitest,
            re_method=args.re_method,
            re_test=args.re_test,
            estimand=args.estimand,
            rope=args.rope,
            control=args.control,
            alternative=args.alternative,
            margin=args.margin,
        )
    return model.fit(
        average=args.average,
        zero_division=_zero_division(args.zero_division),
        beta=args.beta,
        method=args.method,
        alpha=args.alpha,
        min_count=args.min_count,
        rho_fallback=args.rho_fallback,
        multitest=args.multitest,
        wong_divisor=args.wong_divisor,
        re_method=args.re_method,
        re_test=args.re_test,
        ci_method=args.ci_method,
        n_resamples=args.n_resamples,
        random_state=args.random_state,
        wong=args.wong,
        estimand=args.estimand,
        rope=args.rope,
        control=args.control,
        alternative=args.alternative,
        margin=args.margin,
    )


def _zero_division(text):
    """``--zero-division`` as ``fit`` takes it: "warn", 0, 1 or NaN."""
    if text is None or text == "warn":
        return text
    return float("nan") if text == "nan" else int(text)


def _run_example(args):
    from fmtest.datasets import load_example

    model = _model_class(args).from_formula(EXAMPLE_FORMULA, load_example())
    return _fit(model, args)


def _run_compare(args):
    # ROC output needs the rows in memory: with --score, Parquet is read by
    # pandas as CSV is (the DuckDB route keeps only count tables)
    # multi-class and multi-label options are read in pandas (the DuckDB route
    # reduces binary data only)
    in_pandas = args.score or args.labels or args.label or set("*,") & set(args.truth)
    data = read_data(
        args.file,
        engine="pandas" if in_pandas else "auto",
        encoding=args.encoding,
        sep=args.sep,
        na_values=[v for v in (args.na_values or "").split(",") if v],
        keep_default_na=args.default_na,
    )
    truth = _truth_columns(args.truth, data)
    try:
        model = _model_class(args).from_formula(
            args.formula,
            data,
            response=args.response,
            truth=truth,
            instance=args.instance,
            fold=args.fold,
            repeat=args.repeat,
            score=args.score,
            positive=args.positive,
            algorithm=args.algorithm,
            dataset=args.dataset,
            label=args.label,
            labels=_typed_labels(args.labels, data, truth, args.label),
        )
    except _engine_errors(data) as err:  # e.g. Parquet files whose columns differ
        raise ValueError(f"DuckDB cannot read {str(args.file)!r}: {err}") from None
    except ValueError as err:
        if args.default_na and "missing value" in str(err):
            raise ValueError(
                f"{err} If a level is named NA, None, nan or null, pass "
                "--no-default-na (only empty cells are then missing)."
            ) from None
        raise
    return _fit(model, args)


def _truth_columns(text, data):
    """``--truth``: a column, a ``*`` pattern, or comma-separated indicator columns.

    Text with commas is a list only when no column has that very name.
    """
    columns = getattr(data, "columns", ())
    if "," not in text or text in columns:
        return text
    return [part.strip() for part in text.split(",")]


def _typed_labels(text, data, truth, label):
    """``--labels`` as the list ``labels=`` takes, typed like the data's labels.

    Each comma-separated item is the class (or label) whose text it is, among
    the values of the truth column and the response columns (the label
    column with ``--label``; the label names of indicator columns); an item
    no value spells is read as the column's type (an integer for an integer
    column). A label in quotes (``'"1"'``) is always the string inside them.
    """
    if text is None:
        return None
    items = [item.strip() for item in text.split(",")]
    if not all(items):
        raise ValueError(
            f"--labels {text!r} has an empty item; give the classes separated by "
            "commas, e.g. --labels sport,politics."
        )
    if isinstance(truth, list) or "*" in truth:  # indicator columns: names
        return [_unquote(item) for item in items]
    import pandas as pd

    column = label if label is not None else truth
    if not isinstance(data, pd.DataFrame) or column not in data.columns:
        return [_positive(item) for item in items]  # from_formula names the column
    values = data[column].dropna()
    levels = {}
    for value in pd.unique(values):
        levels.setdefault(str(value), value)
    integer = pd.api.types.is_integer_dtype(values.dtype) or (
        len(levels) and all(isinstance(v, int) for v in levels.values())
    )
    out = []
    for item in items:
        quoted = _unquote(item)
        if quoted != item:
            out.append(quoted)
        elif item in levels:
            out.append(levels[item])
        elif integer:
            if not re.fullmatch(r"[+-]?\d+", item):
                raise ValueError(
                    f"--labels lists {item!r}, but column {column!r} holds integer "
                    "labels; list integers (or quote a string label: '\"x\"')."
                )
            out.append(int(item))
        else:
            out.append(item)
    return out


def _unquote(text):
    quoted = re.fullmatch(r"(['\"])(.*)\1", text, flags=re.DOTALL)
    return quoted.group(2) if quoted else text


def _engine_errors(data):
    """The errors of the engine that reads ``data`` lazily (DuckDB), if any."""
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        return ()
    import duckdb

    return (duckdb.Error,)


# -- argument parsing ---------------------------------------------------------


def _positive(text):
    """An int when ``text`` looks like one, else the string itself.

    A label in quotes (``'"1"'``) is always the string inside them, so the
    string label "1" can be named.
    """
    quoted = re.fullmatch(r"(['\"])(.*)\1", text, flags=re.DOTALL)
    if quoted:
        return quoted.group(2)
    return int(text) if re.fullmatch(r"\s*[+-]?\d+\s*", text) else text


def _multitest(text):
    from statsmodels.stats.multitest import multitest_methods_names

    from fmtest.within.multitest import check_multitest

    try:
        check_multitest(text)
    except ValueError:
        examples = ["holm", "bonferroni", "sidak", "hommel"] + [
            m for m in multitest_methods_names if m.startswith("fdr_")
        ]
        raise argparse.ArgumentTypeError(
            f"unknown multiple-testing method {text!r}; use a method of statsmodels' "
            f"multipletests, e.g. {', '.join(examples)}"
        ) from None
    return text


def _fit_options():
    parser = argparse.ArgumentParser(add_help=False)
    group = parser.add_argument_group("fit options")
    group.add_argument(
        "--beta",
        type=float,
        default=F_ONLY_DEFAULTS["beta"],
        help="F-measure beta (default: 1)",
    )
    group.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="level of the confidence intervals (default: 0.05)",
    )
    group.add_argument(
        "--metric",
        default="f1",
        metavar="METRIC",
        help="the compared metric: f1 (default) or fbeta (with --beta), or any "
        "key of fmtest.estimates.metrics.METRICS, e.g. gmean, mcc, kappa, balanced_accuracy "
        "(the Wong and interval options then do not apply)",
    )
    group.add_argument(
        "--method",
        choices=list(METHOD_CHOICES),
        default="delta",
        help="variance method leading the summary (default: delta; jvesr = delta)",
    )
    group.add_argument(
        "--min-count",
        type=int,
        default=F_ONLY_DEFAULTS["min_count"],
        metavar="N",
        help="Wong's large-sample threshold for TP, FN, FP (default: 5)",
    )
    group.add_argument(
        "--rho-fallback",
        type=float,
        default=F_ONLY_DEFAULTS["rho_fallback"],
        metavar="RHO",
        help="Wong's fold correlation where it is undefined (default: 1)",
    )
    group.add_argument(
        "--multitest",
        type=_multitest,
        default="holm",
        metavar="METHOD",
        help="p-value adjustment within each data set and over pairs across "
        "data sets, any statsmodels multipletests method (default: holm)",
    )
    group.add_argument(
        "--wong-divisor",
        choices=["theorem", "printed"],
        default=F_ONLY_DEFAULTS["wong_divisor"],
        help="across data sets, Wong's variance divisor: M^2 (theorem, default) "
        "or M as printed in his formula (7)",
    )
    group.add_argument(
        "--re-method",
        choices=["dl", "pm"],
        default="dl",
        help="tau^2 estimator of the random-effects pooling (default: dl)",
    )
    group.add_argument(
        "--re-test",
        choices=["hksj-floor", "hksj", "z"],
        default="hksj-floor",
        help="random-effects test across data sets: Hartung-Knapp-Sidik-Jonkman "
        "t(M-1) with its scale floored at 1 (hksj-floor, default: holds its "
        "level with few data sets of unequal sizes), the same unfloored (hksj; "
        "its p is in the across-data-set table either way) or the classical z",
    )
    group.add_argument(
        "--ci-method",
        choices=list(CI_METHOD_CHOICES),
        default=F_ONLY_DEFAULTS["ci_method"],
        help="intervals of F and of the differences, and the matching pairwise "
        "test: score and the paired score interval (default for binary data), "
        "mover-score (score "
        "and MOVER-score, the earlier default), mover (Wilson and MOVER-Jeffreys; "
        "binomial is its old name), wald, logit (the default for multi-class "
        "data: logit for each F, MOVER-logit for the differences), logit-wald "
        "(multi-class: logit for each F, Wald differences) or a parametric "
        "bootstrap; multi-class data take logit, logit-wald and wald",
    )
    group.add_argument(
        "--average",
        choices=list(AVERAGE_CHOICES),
        default=None,
        help="multi-class data (three or more classes): how F is averaged over "
        "the classes: macro (default; scikit-learn's average='macro', the mean "
        "of the per-class F), micro, weighted, or macro_f1_of_averages (the F of "
        "macro precision and macro recall)",
    )
    group.add_argument(
        "--zero-division",
        choices=list(ZERO_DIVISION_CHOICES),
        default=None,
        help="multi-class data: the value of a 0/0 precision, recall or F, as "
        "in scikit-learn (default: warn, which gives 0 without a warning)",
    )
    group.add_argument(
        "--estimand",
        choices=["models", "algorithms"],
        default=None,
        help="the question answered: is the learning algorithm better, with "
        "retraining variability (algorithms: the corrected repeated k-fold t; the "
        "default when the data have folds), or are these fitted models better "
        "(models: the default for a fixed test set)",
    )
    group.add_argument(
        "--rope",
        type=float,
        default=0.0,
        help="region of practical equivalence of the Bayesian correlated t-test "
        "in the algorithm tests (default 0)",
    )
    group.add_argument(
        "--control",
        default=None,
        metavar="ALGORITHM",
        help="compare every algorithm with this one only (control - other; "
        "Holm over the A - 1 comparisons; summary, paper table and ranks follow)",
    )
    group.add_argument(
        "--alternative",
        choices=["two-sided", "greater", "less"],
        default="two-sided",
        help="of the difference algorithm_1 - algorithm_2 (control - other): "
        "greater = the first is better (one-sided tests and intervals); "
        "default two-sided",
    )
    group.add_argument(
        "--margin",
        type=float,
        default=0.0,
        help="non-inferiority margin m >= 0 with --alternative greater (H0: "
        "difference <= -m); default 0",
    )
    group.add_argument(
        "--n-resamples",
        type=int,
        default=F_ONLY_DEFAULTS["n_resamples"],
        metavar="N",
        help="resamples of --ci-method bootstrap (default: 2000)",
    )
    group.add_argument(
        "--random-state",
        type=int,
        default=F_ONLY_DEFAULTS["random_state"],
        help="seed of --ci-method bootstrap (default: none)",
    )
    group.add_argument(  # deprecated name of --random-state (one release)
        "--seed",
        type=int,
        default=None,
        help=argparse.SUPPRESS,
    )
    group.add_argument(
        "--wong",
        action="store_true",
        help="show Wong's columns and notes in the summary",
    )
    return parser


def _non_negative_int(text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"--json-max-rows takes a non-negative integer, not {text!r}"
        )
    return value


def _output_options():
    parser = argparse.ArgumentParser(add_help=False)
    group = parser.add_argument_group("output options")
    group.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text, latex or html summary; csv (one table); json (all tables, "
        "config and notes). Default: text",
    )
    group.add_argument(
        "--table",
        choices=(
            *TABLES,
            "estimates",
            *MULTICLASS_TABLES,
            *OPTIONAL_TABLES,
            PAPER_TABLE,
        ),
        nargs="?",
        const=PAPER_TABLE,
        default=None,
        help="the table written by --format csv (default: pairwise; estimates "
        "and fmeasures name the same table; per_class for multi-class data; tango, "
        "paired_errors and roc where the data allow them); "
        "--table alone (or 'paper'): data sets x algorithms with CIs, best in "
        "bold, mean ranks, as text, latex, html or csv",
    )
    group.add_argument(
        "--misclassification",
        action="store_true",
        help="add the misclassification-balance tables (Tango's delta, paired "
        "error rates, confident ROC segment) to the text, LaTeX or HTML summary",
    )
    layout = parser.add_argument_group(
        "LaTeX layout (--format latex; two-column papers, docs/paper.rst)"
    )
    layout.add_argument(
        "--twocolumn",
        action="store_true",
        help="the summary as tabular pieces that break by themselves in a "
        "two-column document (summary().as_latex(twocolumn=True))",
    )
    layout.add_argument(
        "--wide",
        action="store_true",
        help="with --table: the paper table as a table* over both columns",
    )
    layout.add_argument(
        "--compact",
        action="store_true",
        help="with --table: the paper table in one column of a two-column page, "
        "without shrinking (wrapped data-set names, rotated algorithm names)",
    )
    layout.add_argument(
        "--caption-above",
        action="store_true",
        help="with --table: the caption above the paper table (IEEE, ACM)",
    )
    group.add_argument(
        "--json-max-rows",
        type=_non_negative_int,
        metavar="N",
        default=JSON_MAX_ROWS,
        help="--format json leaves out a table of more than N rows, naming it "
        'under "omitted" (0: write every table whole; default: '
        f"{JSON_MAX_ROWS})",
    )
    group.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        default=None,
        help="write to FILE instead of standard output",
    )
    return parser


def _parser():
    parser = argparse.ArgumentParser(
        prog="fmtest",
        description="Compare F-measures of classification algorithms on "
        "imbalanced data: tests and confidence intervals.",
    )
    parser.add_argument("--version", action="version", version=f"fmtest {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    parents = [_fit_options(), _output_options()]

    example = sub.add_parser(
        "example",
        parents=parents,
        help="compare the algorithms of the bundled example data",
        description=f"Fit {EXAMPLE_FORMULA!r} on the bundled example data "
        "(fmtest.datasets.load_example) and print the summary.",
    )
    example.set_defaults(run=_run_example)

    compare = sub.add_parser(
        "compare",
        parents=parents,
        help="compare the algorithms in a CSV or Parquet file",
        description="Read long data (one row per data set, instance and "
        "algorithm) and compare the algorithms' F-measures.",
    )
    compare.add_argument(
        "file",
        metavar="FILE",
        help=".csv, .csv.gz, .tsv, .parquet, or a folder of Parquet files",
    )
    compare.add_argument(
        "--formula",
        required=True,
        help="'response ~ algorithm + dataset' (the dataset term is optional)",
    )
    roles = compare.add_argument_group("column roles")
    roles.add_argument(
        "--response",
        choices=["correct", "predicted"],
        default=None,
        help="what the response column holds: 1/0 for a correct prediction, "
        "or the predicted label (default: read from the column name)",
    )
    roles.add_argument(
        "--truth",
        default="truth",
        metavar="COLUMN",
        help="column with the true label (default: truth); multi-label "
        "indicator columns: the truth columns separated by commas, in the order "
        "of the predicted columns left of '~' ('p_a + p_b ~ algorithm'), or a "
        "pattern such as 'y_*' with 'p_* ~ algorithm' (* stands for the label)",
    )
    roles.add_argument(
        "--label",
        default=None,
        metavar="COLUMN",
        help="multi-label data in the long layout: the column naming the label "
        "of each row (one row per instance, label and algorithm, 0/1 truth and "
        "response)",
    )
    roles.add_argument(
        "--labels",
        default=None,
        metavar="LABELS",
        help="multi-class data: the classes to report and average, separated by "
        "commas, in this order (scikit-learn's labels=; the others still count as "
        "errors); read as the truth column's labels (quote a label to keep it a "
        "string: '\"1\"'); also reads data with two classes as multi-class",
    )
    instance = roles.add_mutually_exclusive_group()
    instance.add_argument(
        "--instance",
        metavar="COLUMN",
        help="column pairing the algorithms' predictions of one instance "
        "(default: instance)",
    )
    instance.add_argument(
        "--no-instance",
        dest="instance",
        action="store_const",
        const=None,
        help="unpaired data: treat the algorithms as independent",
    )
    fold = roles.add_mutually_exclusive_group()
    fold.add_argument(
        "--fold",
        metavar="COLUMN",
        help="column with the cross-validation fold, needed by Wong's method "
        "(default: fold, used when present)",
    )
    fold.add_argument(
        "--no-fold",
        dest="fold",
        action="store_const",
        const=None,
        help="ignore folds (Wong's method is then not computed)",
    )
    roles.add_argument(
        "--repeat",
        metavar="COLUMN",
        default="repeat",
        help="column numbering the repeats of a repeated cross-validation "
        "(default: repeat, used when present)",
    )
    roles.add_argument(
        "--score",
        metavar="COLUMN",
        default=None,
        help="column with a continuous score for the positive class (checked; "
        "Parquet is then read into memory, as CSV is, for the ROC output)",
    )
    reading = compare.add_argument_group("reading CSV")
    reading.add_argument(
        "--sep",
        default=None,
        metavar="SEP",
        help="field separator (default: ',' for .csv, tab for .tsv), e.g. ';'",
    )
    reading.add_argument(
        "--encoding",
        default=None,
        metavar="CODEC",
        help="text encoding (default: utf-8), e.g. latin-1 or utf-16",
    )
    reading.add_argument(
        "--na-values",
        default=None,
        metavar="TEXTS",
        help="comma-separated cell texts read as missing, besides the defaults",
    )
    reading.add_argument(
        "--no-default-na",
        dest="default_na",
        action="store_false",
        help="read only empty cells (and --na-values) as missing; by default "
        "pandas' texts NA, N/A, NaN, nan, null, None, <NA>, ... are missing too, "
        "so a level named NA or None needs this option",
    )
    roles.add_argument(
        "--positive",
        type=_positive,
        default=None,
        metavar="LABEL",
        help="positive class in the truth column: an integer, a string, or "
        "'minority' for the rarer label (default: 1, with a warning when it "
        "is the majority class); put a label in quotes to make it a string, "
        'e.g. --positive \'"1"\' for the string label "1"',
    )
    for role in ("algorithm", "dataset"):
        roles.add_argument(
            f"--{role}",
            metavar="COLUMN",
            help=f"the formula term that is the {role} (default: a term named "
            f"{role}, or as the data show)",
        )
    compare.set_defaults(run=_run_compare, instance="instance", fold="fold")
    return parser


#: The paper table's LaTeX layout options (``to_latex`` keywords).
PAPER_LAYOUT = ("wide", "compact", "caption_above")


def _check_layout(parser, args):
    """The LaTeX layout options go with --format latex and their output."""
    flags = [
        name for name in ("twocolumn", *PAPER_LAYOUT) if getattr(args, name, False)
    ]
    if not flags:
        return
    shown = ", ".join("--" + name.replace("_", "-") for name in flags)
    if args.format != "latex":
        parser.error(f"{shown}: LaTeX layout options need --format latex")
    if args.twocolumn and args.table == PAPER_TABLE:
        parser.error(
            "--twocolumn lays out the LaTeX summary; the paper table (--table) of "
            "a two-column page takes --wide (both columns) or --compact (one)"
        )
    paper = [f for f in flags if f in PAPER_LAYOUT]
    if paper and args.table != PAPER_TABLE:
        verb = "lays" if len(paper) == 1 else "lay"
        parser.error(
            f"{', '.join('--' + f.replace('_', '-') for f in paper)} {verb} out the "
            "paper table: add --table (the summary of a two-column page takes "
            "--twocolumn)"
        )


def _one_line(err):
    text = str(err)
    for python, cli in CLI_WORDING:
        text = text.replace(python, cli)
    text = LIBRARY_ONLY.sub("", text)
    text = ROLE_OPTION.sub(lambda m: f"--{m.group(1)} {m.group(2)}", text)
    text = FIT_OPTION.sub(lambda m: "--" + m.group(1).replace("_", "-"), text)
    text = " ".join(line.strip() for line in text.splitlines() if line.strip())
    return text or type(err).__name__


#: Deprecated command-line options (kept for one release) and their new names.
RENAMED_OPTIONS = {"seed": "random_state"}


def _take_renamed_options(parser, args):
    """Move each deprecated option's value to its new name, with a FutureWarning."""
    for old, new in RENAMED_OPTIONS.items():
        value = getattr(args, old, None)
        if value is None:
            continue
        old_flag, new_flag = (f"--{name.replace('_', '-')}" for name in (old, new))
        if getattr(args, new) is not None:
            parser.error(f"{old_flag} is the deprecated name of {new_flag}; give one")
        warnings.warn(
            f"{old_flag} is deprecated and will be removed in the next release; "
            f"use {new_flag}.",
            FutureWarning,
            stacklevel=2,
        )
        setattr(args, new, value)
        setattr(args, old, None)


def main(argv=None):
    """Run the ``fmtest`` command line.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; ``sys.argv[1:]`` by default.

    Returns
    -------
    int
        The exit status: 0 on success; 2 on bad input, after printing one
        line ``fmtest: error: <message>`` on standard error. Usage errors
        exit through argparse (``SystemExit`` with status 2).

    Examples
    --------
    >>> main(["example", "--format", "csv", "--table", "omnibus",
    ...       "--estimand", "models"])  # doctest: +ELLIPSIS
    dataset,statistic,df,pvalue,reason
    digits_8,1145.458...
    0
    """
    parser = _parser()
    args = parser.parse_args(argv)
    _take_renamed_options(parser, args)
    if args.table not in (None, PAPER_TABLE) and args.format != "csv":
        parser.error("--table NAME is used only with --format csv")
    if args.table == PAPER_TABLE and args.format == "json":
        parser.error("--table (the paper table) is written as text, latex, html or csv")
    _check_layout(parser, args)
    if args.metric not in F_METRICS and (
        args.average is not None or args.zero_division is not None
    ):
        parser.error(
            "--average and --zero-division apply to F-measures only (--metric f1)"
        )
    if args.metric not in F_METRICS and (args.wong or args.method == "wong"):
        parser.error("--wong and --method wong apply to F-measures only (--metric f1)")
    if args.metric not in F_METRICS:
        used = _f_only_options(args)
        if used:
            verb = "applies" if len(used) == 1 else "apply"
            parser.error(
                f"{', '.join(used)} {verb} to F-measures only (--metric f1 or fbeta)"
            )
    try:
        res = args.run(args)
        if args.format == "json":  # streamed: never the whole text in memory
            _emit_json(res, args.output, args.json_max_rows or None)
            return 0
        text = render_results(
            res,
            args.format,
            args.table or "pairwise",
            misclassification=args.misclassification,
            twocolumn=args.twocolumn,
            wide=args.wide,
            compact=args.compact,
            caption_above=args.caption_above,
        )
        _emit(text, args.output)
    except BrokenPipeError:
        # The reader went away (``fmtest example | head``): stop quietly.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1
    except (ValueError, TypeError, OSError, ImportError) as err:
        print(f"fmtest: error: {_one_line(err)}", file=sys.stderr)
        return 2
    return 0
