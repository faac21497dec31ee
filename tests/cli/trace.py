#!/usr/bin/env python3
"""trace.py BUILD SOURCE: run --trace writes the Chrome trace event format
(checked against trace.schema.json by the validator below, and by
python3-jsonschema too when Debian's package is installed), with a timeline
for every process in every superstep, measured and predicted: its spans
follow each other; the measured operations of each process are those the
exact model counts (cost --json), and the predicted superstep lasts what
cost --json predicts for it; run --profile --json gives the same
prediction and each superstep's source position."""
import json
import os
import subprocess
import sys
import tempfile

BUILD, SOURCE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def resolve(schema, root):
    if "$ref" in schema:
        node = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        return node
    return schema


TYPES = {"object": dict, "array": list, "string": str, "integer": int, "number": (int, float)}


def errors(value, schema, root, at="$"):
    """The keywords the schema uses: type, required, properties, items, enum,
    const, minimum, allOf, if/then, $ref."""
    schema = resolve(schema, root)
    found = []
    kind = schema.get("type")
    if kind and (not isinstance(value, TYPES[kind]) or (kind in ("integer", "number") and isinstance(value, bool))):
        return [f"{at}: not {kind}"]
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{at}: {value!r} is not one of {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        found.append(f"{at}: {value!r} is not {schema['const']!r}")
    if "minimum" in schema and isinstance(value, (int, float)) and value < schema["minimum"]:
        found.append(f"{at}: {value} < {schema['minimum']}")
    if isinstance(value, dict):
        found += [f"{at}: no {key}" for key in schema.get("required", []) if key not in value]
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                found += errors(value[key], sub, root, f"{at}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            found += errors(item, schema["items"], root, f"{at}[{i}]")
    for sub in schema.get("allOf", []):
        found += errors(value, sub, root, at)
    if "if" in schema and not errors(value, schema["if"], root, at):
        found += errors(value, schema["then"], root, at)
    return found


def debian_jsonschema():
    """python3-jsonschema, if installed from Debian's packages."""
    status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", "python3-jsonschema"], capture_output=True, text=True)
    if "install ok installed" not in status.stdout:
        return None
    sys.path.insert(0, "/usr/lib/python3/dist-packages")
    import jsonschema
    return jsonschema


def vecbsp(*args, cwd):
    done = subprocess.run([os.path.join(BUILD, "vecbsp"), *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"FAIL: vecbsp {' '.join(args)}: {done.stderr}")
    return done.stdout


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b)) + 1e-6


def check_timeline(events, p, nsteps, cost):
    for group, name in ((0, "measured"), (1, "predicted")):
        spans = [e for e in events if e["ph"] == "X" and e["pid"] == group]
        for k in range(p):
            mine = sorted((e for e in spans if e["tid"] == k), key=lambda e: e["ts"])
            steps = {e["args"]["superstep"] for e in mine}
            if steps != set(range(1, nsteps + 1)):
                failures.append(f"{name}, process {k}: supersteps {sorted(steps)}, not 1..{nsteps}")
            for a, b in zip(mine, mine[1:]):
                if b["ts"] < a["ts"] + a["dur"] - 1e-3:
                    failures.append(f"{name}, process {k}: '{b['name']}' starts before '{a['name']}' ends")
        for i in range(1, nsteps + 1):
            step = [e for e in spans if e["args"]["superstep"] == i and e["args"].get("repetition", 1) == 1]
            where = {e["args"]["where"] for e in step}
            if where != {cost["supersteps"][i - 1]["where"]}:
                failures.append(f"{name}, superstep {i}: where {where}, cost --json says {cost['supersteps'][i - 1]['where']}")
            if group == 1:
                length = (max(e["ts"] + e["dur"] for e in step) - min(e["ts"] for e in step)) / 1e6
                if not close(length, cost["supersteps"][i - 1]["seconds"]):
                    failures.append(f"predicted superstep {i}: {length} s, cost --json {cost['supersteps'][i - 1]['seconds']} s")
            else:
                for e in step:
                    if e["name"] == "work" and e["args"]["w"] != cost["supersteps"][i - 1]["procs"][e["tid"]]["w"]:
                        failures.append(f"measured superstep {i}, process {e['tid']}: w {e['args']['w']}, the model's "
                                        f"{cost['supersteps'][i - 1]['procs'][e['tid']]['w']}")


def main():
    schema = json.load(open(os.path.join(HERE, "trace.schema.json")))
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(VECBSP_CACHE=os.path.join(tmp, "cache"), VECBSP_CC_OPT="-O0")
        p = 3
        args = [os.path.join(SOURCE, "examples", "matvec1.vec"), "-D", "m=30", "-D", "n=40", "--plan", "paper",
                "-p", str(p), "--machine", "local"]
        cost = json.loads(vecbsp("cost", *args, "--json", cwd=tmp))
        run = json.loads(vecbsp("run", *args, "--random", "1", "--profile", "--json", "--trace", "t.json",
                                "--repeat", "2", cwd=tmp))
        trace = json.load(open(os.path.join(tmp, "t.json")))
        found = errors(trace, schema, schema)
        failures.extend(found[:10])
        jsonschema = debian_jsonschema()
        if jsonschema:
            try:
                jsonschema.validate(trace, schema)
            except jsonschema.ValidationError as e:
                failures.append(f"python3-jsonschema: {e.message}")
        bad = dict(trace)
        bad["traceEvents"] = trace["traceEvents"] + [{"name": "x", "ph": "X", "pid": 0, "tid": 0, "ts": -1}]
        if len(errors(bad, schema, schema)) != 2:  # ts < 0, no dur: the validator must see both
            failures.append("the validator accepts an event with ts < 0 and no dur")
        nsteps = len(cost["supersteps"])
        if len(run["supersteps"]) != nsteps:
            failures.append(f"run counted {len(run['supersteps'])} supersteps, cost predicts {nsteps}")
        for i, (r, c) in enumerate(zip(run["supersteps"], cost["supersteps"])):
            if r.get("where") != c["where"] or not close(r.get("predicted_seconds", -1), c["seconds"]):
                failures.append(f"run --profile superstep {i + 1}: {r.get('where')} {r.get('predicted_seconds')}, "
                                f"cost --json {c['where']} {c['seconds']}")
        check_timeline(trace["traceEvents"], p, nsteps, cost)
        reps = {e["args"].get("repetition") for e in trace["traceEvents"] if e.get("cat") == "measured"}
        if reps != {1, 2}:
            failures.append(f"measured repetitions {reps}, not 1 and 2")
        print(f"{len(trace['traceEvents'])} events, {nsteps} supersteps, p = {p}"
              f"{', python3-jsonschema too' if jsonschema else ''}")
    for f in failures:
        print("FAIL:", f)
    print("trace: ok" if not failures else f"trace: {len(failures)} failures")
    return 1 if failures else 0


sys.exit(main())
