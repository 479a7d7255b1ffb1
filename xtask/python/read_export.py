"""Reads files the exporter wrote with the readers its users have, pyarrow and
DuckDB, and prints what each reader saw. Run by the vidplat-export test
`python_readers` with the tools venv's python (`cargo xtask lint` installs the
pinned pyarrow and duckdb there):

    python read_export.py --columns '[["date_time", "timestamp (+09:00)"], ...]' \
        csv=out/part-000.csv ndjson=... parquet=... arrow=...

`--columns` is the exporter's column declaration, in order: each column's name
and its kind's name (`ColumnKind::name`). Parquet and Arrow IPC files carry
their own schema and are read with it; CSV and NDJSON carry none, so they are
read with the types the declaration gives (below, `PYARROW_TYPES` and
`DUCKDB_TYPES`).

pyarrow reads all four formats (`pyarrow.csv.read_csv` with
`convert_options.column_types`, `pyarrow.json.read_json` with
`parse_options.explicit_schema`, `pyarrow.parquet.read_table`,
`pyarrow.ipc.open_file`); DuckDB reads CSV, NDJSON and Parquet (`read_csv` and
`read_json` with `columns={...}`, `read_parquet`; its Arrow IPC reader is an
extension that must be downloaded).

Prints one JSON object:

    {"pyarrow": "<version>", "duckdb": "<version>", "files": [
      {"format": "csv", "path": "...", "readers": [
        {"reader": "pyarrow", "columns": [{"name": "date_time", "type": "timestamp[ms, tz=+09:00]"}, ...],
         "rows": [[...], ...], "notes": ["..."]},
        {"reader": "duckdb", "error": "..."}]}]}

Values in `rows`: null; timestamps with a zone as UTC epoch milliseconds;
timestamps without one as ISO-8601 text without an offset (so they never equal
a number); dates as `YYYY-MM-DD`; the JSON columns as the JSON value their text
holds; everything else as the reader gives it. A reader that fails gives
`error` instead, and the script goes on with the next. `notes` says where the
script had to help a reader (see `read_ndjson_pyarrow`).

Exit status: 0 when it printed its report (whatever the readers made of the
files), 3 when pyarrow or duckdb is not installed, 2 on bad arguments.
"""

import argparse
import json
import sys

try:
    import duckdb
    import pyarrow as pa
    import pyarrow.csv
    import pyarrow.ipc
    import pyarrow.json
    import pyarrow.parquet
except ImportError as missing:
    print(f"read_export.py: {missing}", file=sys.stderr)
    sys.exit(3)

TIMEZONE = "+09:00"

# The exporter's kinds (`ColumnKind::name`) as pyarrow types: those of the
# exporter's Arrow schema (`crates/vidplat-export/src/arrow.rs`), except open
# enums, which are plain strings here (pyarrow's JSON reader converts to no
# dictionary type), and JSON, which is text in CSV and nested JSON in NDJSON.
PYARROW_TYPES = {
    "text": pa.string(),
    "open enum": pa.string(),
    "integer": pa.int64(),
    "float": pa.float64(),
    "boolean": pa.bool_(),
    "timestamp (+09:00)": pa.timestamp("ms", tz=TIMEZONE),
    "date": pa.date32(),
    "json": pa.string(),
}

DUCKDB_TYPES = {
    "text": "VARCHAR",
    "open enum": "VARCHAR",
    "integer": "BIGINT",
    "float": "DOUBLE",
    "boolean": "BOOLEAN",
    "timestamp (+09:00)": "TIMESTAMPTZ",
    "date": "DATE",
    "json": "JSON",
}

def sql_text(text):
    return "'" + text.replace("'", "''") + "'"


def sql_name(name):
    return '"' + name.replace('"', '""') + '"'


def json_value(value):
    """A JSON column's value: its text parsed, or the nested value a reader inferred."""
    if isinstance(value, str):
        return json.loads(value)
    return value


# ---------------------------------------------------------------------- pyarrow


def pyarrow_column(column):
    """A pyarrow column's values as the report gives them (see the module's doc)."""
    kind = column.type
    if isinstance(kind, pa.BaseExtensionType):
        column = pa.chunked_array([chunk.storage for chunk in column.chunks], kind.storage_type)
        kind = kind.storage_type
    if pa.types.is_timestamp(kind) and kind.tz is not None:
        # Through milliseconds (a finer unit that cannot be cut to it fails the cast).
        return column.cast(pa.timestamp("ms", tz=kind.tz)).cast(pa.int64()).to_pylist()
    if pa.types.is_timestamp(kind):
        return [None if v is None else v.isoformat() for v in column.to_pylist()]
    if pa.types.is_date(kind):
        return [None if v is None else v.isoformat() for v in column.to_pylist()]
    return column.to_pylist()


def pyarrow_report(table, kinds, notes):
    columns = [{"name": field.name, "type": str(field.type)} for field in table.schema]
    values = []
    for field, column in zip(table.schema, table.columns):
        cells = pyarrow_column(column)
        if kinds.get(field.name) == "json":
            cells = [None if v is None else json_value(v) for v in cells]
        values.append(cells)
    rows = [list(row) for row in zip(*values)] if values else []
    return {"reader": "pyarrow", "columns": columns, "rows": rows, "notes": notes}


def read_csv_pyarrow(path, declared):
    types = {name: PYARROW_TYPES[kind] for name, kind in declared}
    table = pyarrow.csv.read_csv(
        path,
        # Quoted values may hold line breaks (RFC 4180); pyarrow only reads them when told.
        parse_options=pyarrow.csv.ParseOptions(newlines_in_values=True),
        # An empty field is null, in text columns too (the exporter writes null as nothing).
        convert_options=pyarrow.csv.ConvertOptions(column_types=types, strings_can_be_null=True),
    )
    return table, []


def read_ndjson_pyarrow(path, declared):
    """pyarrow's JSON reader converts no `YYYY-MM-DD` string to date32 (it takes
    only numbers for it; apache/arrow#45936) and no nested value to a string
    (apache/arrow#45574): date columns are read as strings and cast to date32
    after, and JSON columns are left to its inference."""
    notes = []
    fields = []
    dates = []
    for name, kind in declared:
        if kind == "json":
            notes.append(f"{name}: nested JSON, its type inferred by pyarrow.json")
            continue
        if kind == "date":
            notes.append(f"{name}: read as string and cast to date32 (pyarrow.json reads no date32 from text)")
            dates.append(name)
            fields.append((name, pa.string()))
            continue
        fields.append((name, PYARROW_TYPES[kind]))
    table = pyarrow.json.read_json(
        path,
        parse_options=pyarrow.json.ParseOptions(
            explicit_schema=pa.schema(fields), unexpected_field_behavior="infer"
        ),
    )
    for name in dates:
        at = table.schema.get_field_index(name)
        table = table.set_column(at, name, table.column(name).cast(pa.date32()))
    # The inferred columns come after the declared ones: back into the file's order.
    return table.select([name for name, _ in declared]), notes


def read_pyarrow(fmt, path, declared):
    if fmt == "csv":
        table, notes = read_csv_pyarrow(path, declared)
    elif fmt == "ndjson":
        table, notes = read_ndjson_pyarrow(path, declared)
    elif fmt == "parquet":
        table, notes = pyarrow.parquet.read_table(path), []
    elif fmt == "arrow":
        with pa.memory_map(path) as source:
            table, notes = pyarrow.ipc.open_file(source).read_all(), []
    else:
        raise ValueError(f"unknown format {fmt}")
    return pyarrow_report(table, dict(declared), notes)


# ----------------------------------------------------------------------- DuckDB


def read_duckdb(fmt, path, declared):
    con = duckdb.connect()
    try:
        # Timestamps with a zone come out as epoch milliseconds; UTC anyway for any text.
        # `hive_partitioning = false`: the files are under `date=…/`, from which DuckDB
        # would otherwise add a `date` column; the file's own columns are compared here.
        con.execute("SET TimeZone = 'UTC'")
        columns = "{" + ", ".join(f"{sql_text(n)}: {sql_text(DUCKDB_TYPES[k])}" for n, k in declared) + "}"
        if fmt == "csv":
            source = (
                f"read_csv({sql_text(path)}, header = true, delim = ',', quote = '\"', "
                f"escape = '\"', columns = {columns}, hive_partitioning = false)"
            )
        elif fmt == "ndjson":
            source = (
                f"read_json({sql_text(path)}, format = 'newline_delimited', columns = {columns}, "
                "hive_partitioning = false)"
            )
        elif fmt == "parquet":
            source = f"read_parquet({sql_text(path)}, hive_partitioning = false)"
        else:
            raise ValueError(f"DuckDB does not read {fmt} here")
        relation = con.sql(f"SELECT * FROM {source}")
        names = relation.columns
        types = [str(t) for t in relation.types]
        selected = []
        for name, kind in zip(names, types):
            if kind == "TIMESTAMP WITH TIME ZONE":
                selected.append(f"epoch_ms({sql_name(name)})")
            elif kind.startswith("TIMESTAMP") or kind in ("DATE", "JSON"):
                # Naive timestamps as text without an offset; dates as YYYY-MM-DD.
                selected.append(f"CAST({sql_name(name)} AS VARCHAR)")
            else:
                selected.append(sql_name(name))
        rows = con.sql(f"SELECT {', '.join(selected)} FROM {source}").fetchall()
    finally:
        con.close()
    kinds = dict(declared)
    json_at = [i for i, name in enumerate(names) if kinds.get(name) == "json"]
    out = []
    for row in rows:
        row = list(row)
        for i in json_at:
            if row[i] is not None:
                row[i] = json_value(row[i])
        out.append(row)
    return {
        "reader": "duckdb",
        "columns": [{"name": n, "type": t} for n, t in zip(names, types)],
        "rows": out,
        "notes": [],
    }


READERS = {
    "csv": [read_pyarrow, read_duckdb],
    "ndjson": [read_pyarrow, read_duckdb],
    "parquet": [read_pyarrow, read_duckdb],
    "arrow": [read_pyarrow],
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", required=True, help="JSON: [[name, kind name], ...]")
    parser.add_argument("files", nargs="+", metavar="FORMAT=PATH")
    args = parser.parse_args()
    declared = [(name, kind) for name, kind in json.loads(args.columns)]
    unknown = sorted({kind for _, kind in declared} - PYARROW_TYPES.keys())
    if unknown:
        parser.error(f"unknown column kinds {unknown}: add them to PYARROW_TYPES and DUCKDB_TYPES")
    files = []
    for item in args.files:
        fmt, _, path = item.partition("=")
        if fmt not in READERS or not path:
            parser.error(f"{item!r} is not FORMAT=PATH with FORMAT one of {sorted(READERS)}")
        readers = []
        for read in READERS[fmt]:
            name = read.__name__.removeprefix("read_")
            try:
                readers.append(read(fmt, path, declared))
            except Exception as error:  # every reader's failure is reported, the others still run
                readers.append({"reader": name, "error": f"{type(error).__name__}: {error}"})
        files.append({"format": fmt, "path": path, "readers": readers})
    json.dump({"pyarrow": pa.__version__, "duckdb": duckdb.__version__, "files": files}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
