"""Reads an export's output directory as one dataset, the way an analyst
would, with the types its `_manifest.json` declares, and prints what each
reader saw. Run by the command line's export tests with the tools venv's
python (`cargo xtask lint` installs the pinned pyarrow and duckdb there):

    python read_dataset.py DIR FORMAT

FORMAT is csv, ndjson, arrow or parquet. pyarrow reads the directory with
`pyarrow.dataset` (hive partitioning: `date=YYYY-MM-DD` or `period=...`;
files starting with `_` or `.`, the manifest and the state, are left out by
its defaults); DuckDB reads `DIR/*/part-*.EXT` with `hive_partitioning`
(CSV, NDJSON and Parquet; its Arrow IPC reader is an extension that must be
downloaded). CSV and NDJSON carry no types: both readers get the manifest's.

Prints one JSON object:

    {"manifest_rows": 123, "readers": [
      {"reader": "pyarrow", "rows": 123, "partitions": 6,
       "columns": {"date_time": "timestamp[ms, tz=+09:00]", ...}},
      {"reader": "duckdb", "error": "..."}]}

Exit status: 0 when it printed its report, 3 when pyarrow or duckdb is not
installed, 2 on bad arguments.
"""

import json
import os
import sys

try:
    import duckdb
    import pyarrow as pa
    import pyarrow.csv
    import pyarrow.dataset as ds
    import pyarrow.json
except ImportError as missing:
    print(f"read_dataset.py: {missing}", file=sys.stderr)
    sys.exit(3)

# The manifest's column kinds as each reader's types: the same as read_export.py's
# (beside this file), which reads one file at a time.
from read_export import DUCKDB_TYPES, PYARROW_TYPES  # noqa: E402

EXTENSIONS = {"csv": "csv", "ndjson": "ndjson", "arrow": "arrow", "parquet": "parquet"}


def pyarrow_read(directory, kind, columns, partition):
    schema = pa.schema([(c["name"], PYARROW_TYPES[c["kind"]]) for c in columns])
    notes = []
    dates = []
    dataset_schema = None
    if kind == "csv":
        file_format = ds.CsvFileFormat(
            convert_options=pyarrow.csv.ConvertOptions(column_types=dict(zip(schema.names, schema.types)))
        )
    elif kind == "ndjson":
        # pyarrow's JSON reader makes no date32 of text (apache/arrow#45936) and no
        # string of a nested value (apache/arrow#45574): dates are read as text and
        # cast after, nested JSON columns left out.
        fields = []
        for column, field in zip(columns, schema):
            if column["kind"] == "json":
                notes.append(f"{field.name}: nested JSON, left out")
            elif column["kind"] == "date":
                dates.append(field.name)
                fields.append(pa.field(field.name, pa.string()))
            else:
                fields.append(field)
        dataset_schema = pa.schema([*fields, partition])
        file_format = ds.JsonFileFormat(parse_options=pyarrow.json.ParseOptions(explicit_schema=pa.schema(fields)))
    elif kind == "arrow":
        file_format = "ipc"
    else:
        file_format = "parquet"
    dataset = ds.dataset(directory, schema=dataset_schema, format=file_format, partitioning="hive")
    table = dataset.to_table()
    for name in dates:
        table = table.set_column(table.schema.get_field_index(name), name, table.column(name).cast(pa.date32()))
    return {
        "reader": "pyarrow",
        "rows": table.num_rows,
        "partitions": len(dataset.files),
        "columns": {field.name: str(field.type) for field in table.schema},
        "notes": notes,
    }


def duckdb_read(directory, kind, columns):
    pattern = os.path.join(directory, "*", f"part-*.{EXTENSIONS[kind]}")
    declared = "{" + ", ".join(f"'{c['name']}': '{DUCKDB_TYPES[c['kind']]}'" for c in columns) + "}"
    options = {
        "csv": ("read_csv", f"header = true, columns = {declared}"),
        "ndjson": ("read_json", f"format = 'newline_delimited', columns = {declared}"),
        "parquet": ("read_parquet", None),
    }
    if kind not in options:
        return {"reader": "duckdb", "skipped": "DuckDB's Arrow IPC reader is an extension to download"}
    function, typed = options[kind]

    def source(*more):
        arguments = [f"'{pattern}'", "hive_partitioning = true", *([typed] if typed else []), *more]
        return f"{function}({', '.join(arguments)})"

    connection = duckdb.connect()
    relation = connection.sql(f"SELECT * FROM {source()}")
    rows = connection.execute(f"SELECT count(*) FROM {source()}").fetchall()[0][0]
    files = connection.execute(f"SELECT count(DISTINCT filename) FROM {source('filename = true')}").fetchall()[0][0]
    return {
        "reader": "duckdb",
        "rows": rows,
        "partitions": files,
        "columns": {name: str(kind) for name, kind in zip(relation.columns, relation.types)},
    }


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in EXTENSIONS:
        print("usage: read_dataset.py DIR csv|ndjson|arrow|parquet", file=sys.stderr)
        sys.exit(2)
    directory, kind = sys.argv[1], sys.argv[2]
    with open(os.path.join(directory, "_manifest.json"), encoding="utf-8") as file:
        manifest = json.load(file)
    columns = manifest["columns"]
    partition = pa.field("date" if manifest["split"] == "by_day" else "period", pa.string())
    report = {"manifest_rows": sum(p["rows"] or 0 for p in manifest["partitions"]), "readers": []}
    for read in (pyarrow_read, duckdb_read):
        try:
            arguments = (directory, kind, columns) + ((partition,) if read is pyarrow_read else ())
            report["readers"].append(read(*arguments))
        except Exception as error:  # noqa: BLE001 - the report says what each reader made of the files
            report["readers"].append({"reader": read.__name__.split("_")[0], "error": str(error)})
    print(json.dumps(report))


if __name__ == "__main__":
    main()
