#!/usr/bin/env python3
"""Writes expected.json: what npyflow must read from each MATLAB-written
file in this folder, under the mapping of MATLAB types to numpy that the
matfile package documents.

The values are transcribed by hand from the MATLAB scripts that wrote the
files (the reference's generators/*.m: test_string_gen.m,
test_times_gen.m, test_tables_gen.m, test_maps_gen.m, test_enum_gen.m,
test_user_defined_gen.m, test_dynamic.m, test_basic_gen.m), cross-checked
against mat-io's tests of the same files (the reference's expected/*.py),
then mapped to numpy as npyflow documents it:

- string -> U<n>, datetime -> datetime64[ns] (UTC instants with the zone
  kept apart), duration -> timedelta64[ns], calendarDuration -> struct
  (months i4, days i4, millis i8), categorical -> U<n> of the category
  names (+ categories, ordered, <undefined> invalid), enumerations -> U<n>
  of member names, table/timetable/containers.Map/dictionary -> one
  structured array of records, user class objects -> the struct of their
  properties, flattened into paths like any struct.
- Values are listed in MATLAB's linear (column-major) order, datetimes as
  ISO text in UTC, durations as exact decimal seconds.

Nothing here reads the .mat files: run it with any Python 3.
"""
import json
import struct

HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def arr(dtype, shape, values, cls, fortran=True, **kw):
    e = {"class": cls, "dtype": dtype, "shape": shape, "fortran": fortran, "values": values}
    e.update(kw)
    return e


def num(cls, dtype, shape, values):
    return arr(dtype, shape, values, cls)


def text(s, cls="char"):
    """A MATLAB char row vector: one string, numpy shape (1,)."""
    return arr("'<U%d'" % max(1, len(s)), [1], [s], cls)


def ustr(dims, values, cls, width=None, **kw):
    w = width or max([1] + [len(v) for v in values])
    return arr("'<U%d'" % w, dims, values, cls, **kw)


def dt(dims, values, **kw):
    return arr("'<M8[ns]'", dims, values, "datetime", **kw)


def dur(dims, values):
    return arr("'<m8[ns]'", dims, values, "duration")


CDUR = "[('months', '<i4'), ('days', '<i4'), ('millis', '<i8')]"


def cdur(dims, triples):
    return arr(CDUR, dims, [{"months": m, "days": d, "millis": ms} for m, d, ms in triples], "calendarDuration")


def col(name, cls, dtype, values, shape=None, **kw):
    c = {"name": name, "class": cls, "dtype": dtype, "shape": shape, "values": values}
    c.update(kw)
    return c


def table(cls, rows, columns, dims, **kw):
    """A table-like variable: one structured array of records."""
    fields = []
    for c in columns:
        if c["shape"]:
            fields.append("('%s', %s, (%s,))" % (c["name"], c["dtype"], ", ".join(str(x) for x in c["shape"])))
        else:
            fields.append("('%s', %s)" % (c["name"], c["dtype"]))
    records = []
    for r in range(rows):
        rec = {}
        for c in columns:
            rec[c["name"]] = c["values"][r]
        records.append(rec)
    e = arr("[" + ", ".join(fields) + "]", [rows], records, cls, fortran=False)
    t = {"rows": rows, "dims": dims, "columns": columns}
    t.update(kw)
    e["table"] = t
    return e


files = {}

# ---- test_string_gen.m
files["test_string_v7.mat"] = {
    "members": {
        "string_scalar": ustr([1, 1], ["Hello"], "string"),
        "string_array": ustr([2, 3], ["Apple", "Date", "Banana", "Fig", "Cherry", "Grapes"], "string"),
        "string_empty": ustr([1, 1], [""], "string"),
    },
    "variables": {"string_scalar": ["string", [1, 1]], "string_array": ["string", [2, 3]], "string_empty": ["string", [1, 1]]},
    "warnings": [],
}

# ---- test_times_gen.m (dt_array is reshape(dt_vector, 2, 3), as mat-io's
# test shows: the script's own line refers to itself).
days6 = ["2025-04-0%dT00:00:00" % d for d in range(1, 7)]
files["test_time_v73.mat"] = {
    "members": {
        "dt_basic": dt([1, 1], ["2025-04-01T12:00:00"]),
        "dt_vector": dt([1, 6], days6),
        "dt_array": dt([2, 3], days6),
        "dt_empty": dt([0, 0], []),
        # 12:00 in New York on 1 April 2025 (EDT, UTC-4) is 16:00 UTC.
        "dt_tz": dt([1, 1], ["2025-04-01T16:00:00"], timezone="America/New_York"),
        "dt_fmt": dt([1, 1], ["2025-04-01T12:00:00"]),
        "dur_s": dur([1, 1], ["5s"]),
        "dur_m": dur([1, 1], ["300s"]),
        "dur_h": dur([1, 1], ["18000s"]),
        "dur_days": dur([1, 1], ["432000s"]),
        "dur_hms": dur([1, 1], ["3723s"]),
        "dur_array": dur([2, 3], ["10s", "40s", "20s", "50s", "30s", "60s"]),
        "dur_empty": dur([0, 0], []),
        # MATLAB's year is 365.2425 days.
        "dur_years": dur([1, 3], ["31556952s", "63113904s", "94670856s"]),
        "cdur_empty": cdur([0, 0], []),
        "cdur_days": cdur([1, 3], [(0, 1, 0), (0, 2, 0), (0, 3, 0)]),
        "cdur_weeks": cdur([1, 2], [(0, 7, 0), (0, 14, 0)]),
        "cdur_days_and_months": cdur([1, 2], [(1, 1, 0), (0, 2, 0)]),
        "cdur_months_and_years": cdur([1, 2], [(12, 0, 0), (18, 0, 0)]),
        "cdur_days_and_qtrs": cdur([1, 1], [(3, 15, 0)]),
        "cdur_array": cdur([2, 2], [(1, 0, 0), (2, 0, 0), (0, 5, 0), (0, 10, 0)]),
        "cdur_millis": cdur([1, 1], [(0, 1, 3723000)]),
    },
    "warnings": [],
}
files["test_time_v73.mat"]["variables"] = {k: [v["class"], v["shape"]] for k, v in files["test_time_v73.mat"]["members"].items()}

# ---- test_tables_gen.m
F8 = "'<f8'"
M8 = "'<M8[ns]'"
m8 = "'<m8[ns]'"
d2023 = ["2023-01-0%dT00:00:00" % d for d in (1, 2, 3)]
tables = {}
tables["table_empty"] = table("table", 0, [], [0, 0], dimnames=["Row", "Variables"])
tables["table_numeric"] = table("table", 3, [col("Var1", "double", F8, [1.1, 2.2, 3.3]), col("Var2", "double", F8, [4.4, 5.5, 6.6])], [3, 2])
tables["table_strings"] = table("table", 3, [col("Var1", "string", "'<U6'", ["apple", "banana", "cherry"])], [3, 1])
tables["table_time"] = table("table", 3, [
    col("Time", "datetime", M8, ["2020-01-0%dT00:00:00" % d for d in (1, 2, 3)]),
    col("Duration", "duration", m8, ["30s", "60s", "90s"])], [3, 2])
# C is a cell of three 1x1 structs of the same fields: a nested struct;
# Var2 is a cell of BasicClass objects: left out with a warning.
tables["table_with_objects"] = table("table", 3, [
    col("C", "struct", "[('field1', '<f8'), ('field2', '<U3')]", [{"field1": 123.0, "field2": "abc"}] * 3,
        columns=[col("field1", "double", F8, [123.0] * 3), col("field2", "char", "'<U3'", ["abc"] * 3)])], [3, 2])
# A cell of mixed types (1, 'text', a datetime): left out with a warning.
tables["table_from_cell"] = table("table", 3, [], [3, 1])
tables["table_nan"] = table("table", 3, [col("Var1", "double", F8, [1.1, "NaN", 3.3]), col("Var2", "string", "'<U1'", ["A", "", "C"])], [3, 2])
tables["table_var_names"] = table("table", 3, [col("X", "double", F8, [10.0, 20.0, 30.0]), col("Y", "double", F8, [100.0, 200.0, 300.0])], [3, 2])
tables["table_row_names"] = table("table", 3, [
    col("Row", "cell", "'<U2'", ["R1", "R2", "R3"], index=True),
    col("Col1", "double", F8, [1.0, 2.0, 3.0]), col("Col2", "double", F8, [4.0, 5.0, 6.0])], [3, 2])
tables["table_with_attrs"] = table("table", 2, [
    col("ID", "double", F8, [1.0, 2.0], unit="", description="ID number"),
    col("Label", "string", "'<U3'", ["one", "two"], unit="category", description="Category label")], [2, 2],
    dimnames=["RowId", "Features"], description="Test table with full metadata")
tables["table_multi_col_data"] = table("table", 3, [
    col("Var1", "datetime", M8, d2023),
    col("multicoldata", "double", F8, [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]], shape=[2])], [3, 2])
tables["timetable_datetime"] = table("timetable", 3, [col("Time", "datetime", M8, d2023, index=True), col("data1", "double", F8, [1.0, 2.0, 3.0])], [3, 1])
tables["timetable_duration"] = table("timetable", 3, [col("Time", "duration", m8, ["10s", "20s", "30s"], index=True), col("data1", "double", F8, [1.0, 2.0, 3.0])], [3, 1])
tables["timetable_multi_col"] = table("timetable", 3, [
    col("Time", "duration", m8, ["10s", "20s", "30s"], index=True),
    col("data2", "double", F8, [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]], shape=[2])], [3, 1])
tables["timetable_var_names"] = table("timetable", 3, [col("Time", "datetime", M8, d2023, index=True), col("Pressure", "double", F8, [1.0, 2.0, 3.0])], [3, 1])
# SampleRate 10000 Hz: row i at i/10000 s.
tables["timetable_from_sample_rate"] = table("timetable", 3, [col("Time", "duration", m8, ["0s", "0.0001s", "0.0002s"], index=True), col("data1", "double", F8, [1.0, 2.0, 3.0])], [3, 1])
tables["timetable_from_duration"] = table("timetable", 3, [col("Time", "duration", m8, ["0s", "1s", "2s"], index=True), col("data1", "double", F8, [1.0, 2.0, 3.0])], [3, 1])
tables["timetable_from_starttime_duration"] = table("timetable", 3, [col("Time", "duration", m8, ["10s", "11s", "12s"], index=True), col("data1", "double", F8, [1.0, 2.0, 3.0])], [3, 1])
tables["timetable_from_starttime_datetime"] = table("timetable", 3, [
    col("Time", "datetime", M8, ["2020-01-01T00:00:00", "2020-01-01T00:00:01", "2020-01-01T00:00:02"], index=True),
    col("data1", "double", F8, [1.0, 2.0, 3.0])], [3, 1])
# TimeStep calmonths(3) from 1 January 2020.
tables["timetable_from_starttime_calendarDuration"] = table("timetable", 3, [
    col("Time", "datetime", M8, ["2020-01-01T00:00:00", "2020-04-01T00:00:00", "2020-07-01T00:00:00"], index=True),
    col("data1", "double", F8, [1.0, 2.0, 3.0])], [3, 1])
tables["timetable_with_attrs"] = table("timetable", 3, [
    col("Date", "datetime", M8, d2023, index=True),
    col("data1", "double", F8, [1.0, 2.0, 3.0], unit="m/s", description="myVar")], [3, 1],
    dimnames=["Date", "Pressure"], description="Random Description")
tables["timetable_empty"] = table("timetable", 0, [col("Time", "datetime", M8, [], index=True)], [0, 0])

cats = {
    "cat_scalar": ([1, 4], ["red", "green", "blue", "red"], ["blue", "green", "red"], False, None),
    "cat_array": ([2, 2], ["low", "high", "medium", "low"], ["high", "low", "medium"], False, None),
    "cat_3D": ([2, 3, 2], ["yes", "yes", "no", "no", "maybe", "maybe"] * 2, ["maybe", "no", "yes"], False, None),
    "cat_unordered": ([1, 3], ["cold", "hot", "warm"], ["cold", "warm", "hot"], False, None),
    "cat_ordered": ([1, 3], ["small", "medium", "large"], ["small", "medium", "large"], True, None),
    "cat_from_numeric": ([1, 5], ["low", "medium", "high", "medium", "low"], ["low", "medium", "high"], False, None),
    "cat_empty": ([0, 0], [], [], False, None),
    "cat_missing": ([1, 4], ["cat", "", "dog", "mouse"], ["cat", "dog", "mouse"], False, [True, False, True, True]),
    "cat_string": ([1, 4], ["spring", "summer", "autumn", "winter"], sorted(["spring", "summer", "autumn", "winter"]), False, None),
    # MATLAB sorts the categories by character code, as Python does.
    "cat_mixed_case": ([1, 5], ["On", "off", "OFF", "ON", "on"], sorted(["On", "off", "OFF", "ON", "on"]), False, None),
}
members = dict(tables)
for name, (dims, vals, cs, ordered, valid) in cats.items():
    kw = {"categories": cs, "ordered": ordered}
    if valid is not None:
        kw["valid"] = valid
    members[name] = ustr(dims, vals, "categorical", **kw)
files["test_tables_v7.mat"] = {
    "members": members,
    "variables": {k: [v["class"], v["table"]["dims"] if "table" in v else v["shape"]] for k, v in members.items()},
    "warnings": ["table_with_objects.Var2:cell", "table_from_cell.Var1:cell"],
}

# ---- test_maps_gen.m
maps = {
    "map_numeric_keys": table("containers.Map", 2, [col("key", "double", F8, [1.0, 2.0]), col("value", "cell", "'<U1'", ["a", "b"])], [2, 1]),
    "map_char_keys": table("containers.Map", 2, [col("key", "cell", "'<U1'", ["a", "b"]), col("value", "double", F8, [1.0, 2.0])], [2, 1]),
    # containers.Map turns string keys into char.
    "map_string_keys": table("containers.Map", 2, [col("key", "cell", "'<U1'", ["a", "b"]), col("value", "double", F8, [1.0, 2.0])], [2, 1]),
    "dict_numeric_keys": table("dictionary", 3, [col("key", "double", F8, [1.0, 2.0, 3.0]), col("value", "string", "'<U6'", ["apple", "banana", "cherry"])], [1, 1]),
    "dict_string_keys": table("dictionary", 3, [col("key", "string", "'<U1'", ["x", "y", "z"]), col("value", "double", F8, [10.0, 20.0, 30.0])], [1, 1]),
    # dictionary turns the value 'a' into the string "a", for every key.
    "dict_val_scalar": table("dictionary", 3, [col("key", "double", F8, [1.0, 2.0, 3.0]), col("value", "string", "'<U1'", ["a", "a", "a"])], [1, 1]),
}
files["test_maps_v7.mat"] = {
    "members": maps,
    "variables": dict({k: [v["class"], v["table"]["dims"]] for k, v in maps.items()},
                      map_empty=["containers.Map", [1, 1]], dict_cell_vals=["dictionary", [1, 1]],
                      dict_cell_keys=["dictionary", [1, 1]], dict_empty=["dictionary", [1, 1]]),
    # An empty map of value type 'any', cells of keys or values, and an
    # unconfigured dictionary have no numpy form.
    "warnings": ["map_empty:containers.Map", "dict_cell_vals:dictionary", "dict_cell_keys:dictionary", "dict_empty:dictionary"],
}

# ---- test_enum_gen.m
E = "TestClasses.EnumClass"
files["test_enum_v73.mat"] = {
    "members": {
        "enum_scalar": ustr([1, 1], ["enum1"], E),
        "enum_uint32": ustr([1, 1], ["enum1"], "TestClasses.EnumClassWithBase"),
        "enum_array": ustr([2, 3], ["enum1", "enum2", "enum3", "enum4", "enum5", "enum6"], E),
        "enum_nested.a": ustr([1, 1], ["enum1"], E),
        "enum_nested.b{1}": ustr([1, 1], ["enum2"], E),
        "enum_nested.c.InnerProp": ustr([1, 1], ["enum3"], E),
    },
    "variables": {"enum_scalar": [E, [1, 1]], "enum_uint32": ["TestClasses.EnumClassWithBase", [1, 1]],
                  "enum_array": [E, [2, 3]], "enum_nested": ["TestClasses.BasicClass", [1, 1]]},
    "warnings": ["enum_nested:TestClasses.BasicClass"],
}

# ---- test_user_defined_gen.m: user class objects read as the struct of
# their properties (defaults included).
empty = num("double", "'<f8'", [0, 0], [])


def one(v):
    return num("double", "'<f8'", [1, 1], [float(v)])


ud = {}
for k, v in {"a": empty, "b": empty, "c": empty}.items():
    ud["obj_no_vals." + k] = v
ud.update({"obj_with_vals.a": one(10), "obj_with_vals.b": empty, "obj_with_vals.c": empty})
ud.update({"obj_with_default_val.a": ustr([1, 1], ["Default String"], "string"), "obj_with_default_val.b": one(10)})
for p, (a, b) in {"obj_with_nested_props.a": (1, "Obj1"), "obj_with_nested_props.b{1}": (1, "Obj1"),
                  "obj_with_nested_props.c.InnerProp": (2, "Obj2")}.items():
    ud[p + ".a"] = one(a)
    ud[p + ".b"] = text(b)
    ud[p + ".c"] = empty
# [obja1, obja2; objb1, objb2] with a = 1, 2; 3, 4: column-major elements.
for k, a in enumerate([1, 3, 2, 4]):
    ud["obj_array(%d).a" % (k + 1)] = one(a)
    ud["obj_array(%d).b" % (k + 1)] = empty
    ud["obj_array(%d).c" % (k + 1)] = empty
# Two variables of one handle object: both show a = 20.
ud["obj_handle_1.a"] = one(20)
ud["obj_handle_2.a"] = one(20)
B = "TestClasses.BasicClass"
files["test_user_defined_v7.mat"] = {
    "members": ud,
    "variables": {"obj_no_vals": [B, [1, 1]], "obj_with_vals": [B, [1, 1]], "obj_with_default_val": ["TestClasses.DefaultClass", [1, 1]],
                  "obj_with_nested_props": [B, [1, 1]], "obj_array": [B, [2, 2]],
                  "obj_handle_1": ["TestClasses.HandleClass", [1, 1]], "obj_handle_2": ["TestClasses.HandleClass", [1, 1]]},
    "warnings": ["obj_no_vals:" + B, "obj_with_default_val:TestClasses.DefaultClass", "obj_handle_1:TestClasses.HandleClass"],
}

# ---- test_dynamic.m: the dynamic property reads as a field.
files["test_dynamic_v73.mat"] = {
    "members": {"obj.Name": text("Example"), "obj.DynamicData": one(42)},
    "variables": {"obj": ["TestClasses.BasicDynamic", [1, 1]]},
    "warnings": ["obj:TestClasses.BasicDynamic"],
}

# ---- test_corrupted_subsystem.mat: the subsystem is damaged; var (a
# datetime) is skipped with a warning carrying the error.
files["test_corrupted_subsystem.mat"] = {
    "members": {},
    "variables": {"var": ["datetime", None]},
    "warnings": ["var:datetime"],
    "damaged": ["var"],
}

# ---- test_basic_gen.m
basic = {}
ints = {"int8": "'|i1'", "uint8": "'|u1'", "int16": "'<i2'", "uint16": "'<u2'", "int32": "'<i4'", "uint32": "'<u4'",
        "int64": "'<i8'", "uint64": "'<u8'"}
for t, d in ints.items():
    basic[t + "_scalar"] = num(t, d, [1, 1], [42.0])
    basic[t + "_array"] = num(t, d, [2, 3], [1.0, 4.0, 2.0, 5.0, 3.0, 6.0])
basic["single_scalar"] = num("single", "'<f4'", [1, 1], [f32(3.14)])
basic["single_array"] = num("single", "'<f4'", [2, 3], [f32(x) for x in (1.1, 4.4, 2.2, 5.5, 3.3, 6.6)])
basic["double_scalar"] = num("double", "'<f8'", [1, 1], [3.14])
basic["double_array"] = num("double", "'<f8'", [2, 3], [1.1, 4.4, 2.2, 5.5, 3.3, 6.6])
basic["complex_scalar"] = num("double", "'<c16'", [1, 1], [[1.0, 2.0]])
basic["complex_array"] = num("double", "'<c16'", [3, 1], [[1.0, 2.0], [2.0, 4.0], [4.0, 8.0]])
basic["char_scalar"] = text("Hello")
basic["char_array"] = arr("'<U2'", [3], ["ab", "cd", "ef"], "char")
basic["logical_scalar"] = num("logical", "'|b1'", [1, 1], [True])
basic["logical_array"] = num("logical", "'|b1'", [1, 3], [True, False, True])
basic["numeric_empty"] = empty
basic["char_empty"] = arr("'<U1'", [0], [], "char")
basic["logical_empty"] = num("logical", "'|b1'", [0, 0], [])
basic["cell_scalar{1}"] = text("text")
basic["cell_array{1}"] = text("A")
basic["cell_array{2}"] = num("double", "'<f8'", [2, 2], [1.0, 3.0, 2.0, 4.0])
basic["cell_array{3}{1}"] = num("logical", "'|b1'", [1, 1], [True])
basic["cell_array{3}{2}"] = num("logical", "'|b1'", [1, 1], [False])
basic["cell_empty"] = arr("'<f8'", [0, 0], [], "cell", marker=True)
basic["cell_nested{1}{1}"] = text("level1")
basic["cell_nested{1}{2}{1}{1}"] = text("level2")
basic["cell_nested{1}{2}{1}{2}{1}{1}"] = text("level3")
basic["cell_nested{1}{2}{1}{2}{1}{2}"] = one(123)
basic["struct_scalar.name"] = text("test")
basic["struct_scalar.value"] = one(123)
basic["struct_scalar.data"] = num("double", "'<f8'", [2, 2], [1.0, 3.0, 2.0, 4.0])
basic["struct_array(1).id"] = one(1)
basic["struct_array(1).info"] = text("first")
basic["struct_array(2).id"] = one(2)
basic["struct_array(2).info"] = text("second")
basic["struct_nested.level1.level2.level3.value"] = one(42)
basic["struct_nested.level1.level2.cell{1}{1}"] = text("nested")
basic["struct_nested.level1.level2.cell{1}{2}.a"] = one(1)
basic["struct_nested.level1.level2.cell{1}{2}.b"] = one(2)
basic["struct_no_fields"] = arr("'<f8'", [1, 1, 0], [], "struct", marker=True)
basic["struct_empty"] = arr("'<f8'", [0, 0], [], "struct", marker=True)
# 526 fields field1..field526 of 1, 4093 fields s1..s4093 of 2: listed
# as patterns (the test expands them) to keep this file small.
patterns = {"struct_large.field%d": [1, 526, one(1)], "struct_even_larger.s%d": [1, 4093, one(2)]}


def dense(rows, cols, entries, dtype="'<f8'", cls="double"):
    """entries: {(i, j): value}, 1-based; column-major values."""
    zero = [0.0, 0.0] if dtype == "'<c16'" else (False if dtype == "'|b1'" else 0.0)
    vals = []
    for j in range(1, cols + 1):
        for i in range(1, rows + 1):
            vals.append(entries.get((i, j), zero))
    return arr(dtype, [rows, cols], vals, cls, sparse=True)


basic["sparse_empty"] = dense(0, 0, {})
basic["sparse_col"] = dense(4, 1, {(2, 1): 1.0, (4, 1): 3.0})
basic["sparse_row"] = dense(1, 4, {(1, 2): 5.0})
basic["sparse_diag"] = dense(5, 5, {(i, i): float(i) for i in range(1, 6)})
basic["sparse_rec_row"] = dense(4, 2, {(1, 1): 1.0, (2, 2): 2.0, (3, 1): 3.0, (4, 2): 4.0})
basic["sparse_rec_col"] = dense(2, 4, {(1, 1): 1.0, (1, 4): 2.0, (2, 2): 3.0})
basic["sparse_symmetric"] = dense(3, 3, {(1, 1): 1.0, (1, 2): 2.0, (2, 1): 2.0, (2, 2): 3.0, (2, 3): 4.0, (3, 2): 4.0, (3, 3): 5.0})
basic["sparse_neg"] = dense(3, 3, {(1, 2): -1.0, (2, 1): 2.0, (3, 3): 3.0})
basic["sparse_logical"] = dense(3, 3, {(1, 1): True, (2, 2): True, (3, 3): True}, "'|b1'", "logical")
basic["sparse_complex"] = dense(3, 3, {(1, 1): [1.0, 1.0], (2, 2): [2.0, -2.0], (3, 3): [3.0, 3.0]}, "'<c16'")
basic["sparse_nnz"] = dense(2, 2, {(1, 1): 1.0, (2, 1): 3.0, (1, 2): 2.0, (2, 2): 4.0})
basic["sparse_all_zeros"] = dense(2, 2, {})
files["test_basic_v7.mat"] = {"members": basic, "patterns": patterns, "variables": {}, "warnings": []}

# ---- chars.mat (mat-io's test_bug52): f, a 3x8x2 char array of
# characters outside the BMP, is left out here: see objects_test.go.
files["chars_v7.mat"] = {
    "members": {
        "a": text("Hello, MATLAB! 12345 ~!@#$%^&*()_+-=[]{};:,.<>/?"),
        "b": text("Café naïve résumé — π ≈ 3.14159"),
        "c": arr("'<U37'", [1], ["Music symbol: 𝄞  | Gothic letter: 𐍈"], "char"),
        "d": arr("'<U30'", [1], ["Mixed planes: A Ω Ж 中 😀 🚀 🧬"], "char"),
        "e": arr("'<U2'", [2], ["AB", "😀"], "char"),
        "g": arr("'<U3'", [2], ["ABC", "DEF"], "char"),
    },
    "variables": {},
    "warnings": [],
    "unchecked": ["f"],
}

# ---- synth_objects_v73.mat: written by gen_v73_synth.py (h5py, in
# MATLAB's v7.3 layout for objects); the values are the ones it writes.
files["synth_objects_v73.mat"] = {
    "members": {
        "tbl": table("table", 3, [
            col("Row", "cell", "'<U2'", ["R1", "R2", "R3"], index=True),
            col("A", "double", F8, [1.0, 2.0, 3.0], unit="m"),
            col("B", "string", "'<U5'", ["apple", "", ""], valid=[True, True, False], unit="")], [3, 2],
            dimnames=["Row", "Variables"], description="synthetic"),
        "s.greet": ustr([1, 1], ["héllo"], "string"),
        "s.when": dt([1, 1], ["2020-01-01T00:00:00"], timezone="UTC"),
        "c{1}": ustr([3, 1], ["apple", "", ""], "string", valid=[True, True, False]),
        "nofields": arr("'<f8'", [1, 1, 0], [], "struct", marker=True),
        "x": num("double", "'<f8'", [1, 2], [1.5, 2.5]),
    },
    "variables": {"tbl": ["table", [3, 2]], "s": ["struct", [1, 1]], "c": ["cell", [1, 1]],
                  "nofields": ["struct", [1, 1]], "x": ["double", [1, 2]]},
    "warnings": [],
}

with open(HERE + "/expected.json", "w", encoding="utf-8") as fh:
    json.dump(files, fh, ensure_ascii=False, indent=1, sort_keys=True)
    fh.write("\n")
