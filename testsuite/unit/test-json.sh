#!/bin/bash
# test-json.sh - stap --json output read by a real JSON parser (python3's
# json module): every byte value through staprun's decoder comes back
# exactly (test-json --dump), and the stdout of the run tests json_print
# and json_partial (which check-run.sh compares byte for byte with what
# the VM printed) parses line by line with the fields doc/json.md says.
# usage: test-json.sh TEST-JSON-BINARY   (TAP; exit 1 on a failure)

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
run=$here/../run
bin=${1:?usage: test-json.sh TEST-JSON-BINARY}

if ! command -v python3 >/dev/null; then
	echo "1..1"
	echo "not ok 1 - python3 is needed (apt-get install python3)"
	exit 1
fi

"$bin" --dump >"${TMPDIR:-/tmp}/test-json.$$" || {
	echo "1..1"
	echo "not ok 1 - $bin --dump failed"
	exit 1
}
trap 'rm -f "${TMPDIR:-/tmp}/test-json.$$"' EXIT

exec python3 - "${TMPDIR:-/tmp}/test-json.$$" "$run" <<'PY'
import json, sys

n = 0
failed = 0

def ok(cond, name):
    global n, failed
    n += 1
    if not cond:
        failed += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (n, name))

def objects(lines, name):
    out = []
    for i, line in enumerate(lines):
        try:
            out.append(json.loads(line))
        except ValueError as e:
            ok(False, "%s line %d parses: %s" % (name, i + 1, e))
            return None
    ok(True, "%s: all %d lines parse" % (name, len(lines)))
    return out

def raw(s):
    # the bytes the script printed: \udcXX stands for byte XX
    return s.encode("utf-8", "surrogateescape")

# 1. every byte value through the decoder
dump = open(sys.argv[1], encoding="utf-8").read().splitlines()
objs = objects(dump, "dump")
if objs is not None:
    got = b"".join(raw(o["data"]) for o in objs)
    want = bytes(c if c != 10 else 32 for c in range(256))
    ok(got == want, "dump: the 256 byte values come back exactly")
    ok(all(set(o) == {"type", "data"} for o in objs),
       "dump: no field but type and data")

def stdout_of(test):
    text = open("%s/%s.expect" % (sys.argv[2], test), "rb").read()
    text = text.decode("utf-8", "surrogateescape")
    out = text.split("--- stdout\n", 1)[1].split("--- stderr\n", 1)[0]
    return out.splitlines()

# 2. json_print: printf lines, escapes, histograms, the globals
objs = objects(stdout_of("json_print"), "json_print")
if objs is not None:
    pf = [raw(o["data"]) for o in objs if o["type"] == "printf"]
    ok(pf[:6] == [b"plain line",
                  b"quote \" backslash \\ slash / tab \t cr \r end",
                  b"ctl \x01\x08\x0c\x1b\x7f|",
                  "utf8 \u00e9 \u2713 \U0001F600|".encode(),
                  b"bad \xff \xc3( \xed\xa0\x80 \xc0\xaf|",
                  b"one line from two printf calls"],
       "json_print: quotes, backslashes, control bytes, UTF-8 and "
       "invalid bytes decode to the bytes printed")
    ok(pf[6:] == [b"two", b"lines", b"", b"end"],
       "json_print: one object per line, empty lines too")
    hists = [o for o in objs if o["type"] == "hist"]
    ok(len(hists) == 2, "json_print: two hist objects")
    h = hists[0]
    ok(h["hist"] == "log" and h["count"] == 10 and h["sum"] == 285 and
       h["min"] == 0 and h["max"] == 81 and h["avg"] == 28,
       "json_print: log histogram statistics")
    vals = [i * i for i in range(10)]
    def logb(v):
        return 0 if v == 0 else 1 << (v.bit_length() - 1)
    want = {}
    for v in vals:
        want[logb(v)] = want.get(logb(v), 0) + 1
    ok(dict((b, c) for b, c in h["buckets"]) == want,
       "json_print: log buckets are those of 0, 1, 4 ... 81")
    h = hists[1]
    ok(h["hist"] == "linear" and (h["start"], h["stop"], h["interval"]) ==
       (0, 20, 10) and h["underflow"] == 1 and h["overflow"] == 1 and
       h["buckets"] == [[0, 2], [10, 1], [20, 1]] and h["count"] == 6,
       "json_print: linear histogram, underflow and overflow")
    g = [o for o in objs if o["type"] == "global"]
    byname = {}
    for o in g:
        byname.setdefault(o["name"], []).append(o)
    ok(byname["count"] == [{"type": "global", "name": "count",
                            "value": 42}], "json_print: a long global")
    ok(byname["name"][0]["value"] == "q\"uo\\te",
       "json_print: a string global, escaped")
    ok([(o["keys"], o["value"]) for o in byname["hits"]] ==
       [(["wr\"ite"], 30), (["read"], 10)],
       "json_print: an array, by descending value, string keys escaped")
    ok(byname["pairs"][0]["keys"] == ["k", 2] and
       byname["pairs"][0]["value"] == -5,
       "json_print: keys of two types, a negative value")
    ok(byname["lat"][0]["stat"] == {"count": 3, "sum": 90, "min": 10,
                                    "max": 60, "avg": 30},
       "json_print: a statistic")
    ok(byname["lats"][0]["keys"] == ["a"] and
       byname["lats"][0]["stat"]["count"] == 2,
       "json_print: an array of statistics")
    ok("h" not in byname and "hl" not in byname,
       "json_print: globals the script reads are not printed")

# 3. json_partial: the unfinished line
objs = objects(stdout_of("json_partial"), "json_partial")
if objs is not None:
    ok(objs == [{"type": "printf", "data": "first second"},
                {"type": "printf", "data": "tail", "partial": True}],
       "json_partial: a line of two calls, then the partial tail")

print("1..%d" % n)
sys.exit(1 if failed else 0)
PY
