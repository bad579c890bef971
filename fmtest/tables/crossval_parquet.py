"""Stream the long data of ``cross_validate(to_parquet=...)`` to one Parquet file.

Each data set's rows are one row group, written when its last fit has
finished (in the order of the data sets), so memory holds the fits of the
data sets in flight, never the whole study. Whether the study keeps the
``score`` column is known only after the last fit; until then the column is
written (NaN where a fit has no score), and if it must go, the file is
rewritten without it one row group at a time. The failed fits of
``on_error="skip"`` go into the file's key-value metadata
(:data:`FAILED_FITS_KEY`, JSON records), where
:func:`fmtest.tables.crossval.failed_fits` reads them, and so does the
seeding (:data:`SEEDS_KEY`: what ``attrs["seeds"]`` holds in memory, read
by :func:`read_seeds`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = [
    "FAILED_FITS_KEY",
    "SEEDS_KEY",
    "ParquetSink",
    "read_failed_fits",
    "read_seeds",
]

#: Key of the failed fits (JSON records) in the file's metadata.
FAILED_FITS_KEY = b"fmtest.failed_fits"
#: Key of the fits' seeding (a JSON object, ``attrs["seeds"]``) in the metadata.
SEEDS_KEY = b"fmtest.seeds"


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - exercised without pyarrow
        raise ImportError(
            "to_parquet needs pyarrow: pip install '.[scale]' from a clone of fmtest "
            "(or pip install pyarrow)."
        ) from None
    return pa, pq


def _plain(value):
    return value.item() if hasattr(value, "item") else value


class ParquetSink:
    """One Parquet file, written one data set (row group) at a time.

    Parameters
    ----------
    path : str or os.PathLike
        The file; written under a temporary name beside it and renamed when
        complete, so a killed run leaves no half-written file under ``path``.
    """

    def __init__(self, path):
        self.pa, self.pq = _pyarrow()
        self.path = Path(path)
        self.partial = self.path.with_name(f".{self.path.name}.partial")
        self.writer = None
        self.schema = None

    def write(self, frame, name):
        """Append one data set's long rows (``name`` is named in errors).

        The columns and their types are the first data set's; a later data
        set whose columns differ (labels of another type: float against
        int) is refused rather than converted.
        """
        table = self.pa.Table.from_pandas(frame, preserve_index=False)
        if self.writer is None:
            self.schema = table.schema
            self.writer = self.pq.ParquetWriter(self.partial, self.schema)
        elif not table.schema.equals(self.schema, check_metadata=False):
            theirs = dict(zip(table.schema.names, table.schema.types, strict=True))
            differ = [
                f"{field.name!r}: {theirs.get(field.name)} instead of {field.type}"
                for field in self.schema
                if theirs.get(field.name) != field.type
            ]
            raise ValueError(
                f"to_parquet: the rows of data set {name!r} do not fit the columns "
                f"of the first data set ({'; '.join(differ)}). One Parquet file "
                "needs one type per column: give every data set labels of one "
                "type (e.g. y.astype(int))."
            )
        self.writer.write_table(table, row_group_size=max(len(frame), 1))

    def close(self, failures, keep_score, seeds=None):
        """Finish the file: the failed fits in its metadata; drop ``score`` if told.

        Parameters
        ----------
        failures : list of dict
            The failed fits' records.
        keep_score : bool
            False: rewrite the file without the ``score`` column.
        seeds : dict, optional
            The fits' seeding (``attrs["seeds"]``), stored under
            :data:`SEEDS_KEY`.

        Returns
        -------
        pathlib.Path
        """
        if self.writer is None:
            raise ValueError("to_parquet: no fit succeeded, so there are no rows.")
        records = [{k: _plain(v) for k, v in row.items()} for row in failures]
        meta = {FAILED_FITS_KEY: json.dumps(records).encode()}
        if seeds is not None:
            meta[SEEDS_KEY] = json.dumps(seeds).encode()
        if keep_score:
            self.writer.add_key_value_metadata(meta)
            self.writer.close()
        else:
            self.writer.close()
            self._drop_score(meta)
        os.replace(self.partial, self.path)
        return self.path

    def _drop_score(self, meta):
        source = self.pq.ParquetFile(self.partial)
        keep = [name for name in self.schema.names if name != "score"]
        rewritten = self.partial.with_name(self.partial.name + "2")
        schema = self.pa.schema([self.schema.field(name) for name in keep])
        with self.pq.ParquetWriter(rewritten, schema) as writer:
            for i in range(source.num_row_groups):
                table = source.read_row_group(i, columns=keep)
                writer.write_table(table, row_group_size=max(table.num_rows, 1))
            writer.add_key_value_metadata(meta)
        source.close()
        os.replace(rewritten, self.partial)

    def abort(self):
        """Close and remove the partial file (after an error)."""
        if self.writer is not None:
            try:
                self.writer.close()
            except Exception:  # pragma: no cover - already broken
                pass
        try:
            os.unlink(self.partial)
        except OSError:
            pass


def read_failed_fits(path):
    """The failed-fit records stored in a ``to_parquet`` file (a list of dicts)."""
    _, pq = _pyarrow()
    meta = pq.read_metadata(path).metadata or {}
    return json.loads(meta.get(FAILED_FITS_KEY, b"[]"))


def read_seeds(path):
    """The fits' seeding stored in a ``to_parquet`` file (a dict), or None."""
    _, pq = _pyarrow()
    meta = pq.read_metadata(path).metadata or {}
    return json.loads(meta[SEEDS_KEY]) if SEEDS_KEY in meta else None
