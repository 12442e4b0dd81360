#!/usr/bin/env python3
"""Every configuration's outcome in a `tilecheck run --json` file, as a Markdown table.

    scripts/run-by-config.py cells.json [--title "upstream Marlin, run 24"]

One row per (configuration, contract): cells, pass, fail, FAULT, HANG, n/a, error, the worst |ULP|
and bound utilisation of the passing cells, and the distinct messages of the cells that did not pass
(n/a reasons, fault messages), each once with its count. Python 3 standard library only.
"""
import argparse
import collections
import json
import sys

STATUSES = ("pass", "FAIL", "FAULT", "HANG", "n/a", "ERROR")


def normalise(status: str) -> str:
    upper = status.upper()
    return "pass" if upper == "PASS" else "n/a" if upper in ("N/A", "NA") else upper


def table(cells, title=None):
    rows = collections.OrderedDict()
    for c in sorted(cells, key=lambda c: (c["config"], c["contract"])):
        key = (c["config"], c["contract"])
        row = rows.setdefault(key, {"count": collections.Counter(), "ulp": 0, "util": 0.0,
                                    "why": collections.Counter()})
        status = normalise(c["status"])
        row["count"][status] += 1
        if status == "pass":
            row["ulp"] = max(row["ulp"], c.get("worst_ulp") or 0)
            row["util"] = max(row["util"], c.get("worst_utilization") or 0.0)  # null: an exact cell, no bound
        elif c.get("message"):
            text = c["message"]
            row["why"][text if text.upper().startswith(status.upper() + ":") else f"{status}: {text}"] += 1
    out = []
    if title:
        out += [f"### {title}", ""]
    out.append("| configuration | contract | cells | " + " | ".join(STATUSES) +
               " | worst pass |ULP| / bound use | what did not pass |")
    out.append("|---" * (4 + len(STATUSES)) + "|---|")
    for (config, contract), row in rows.items():
        n = sum(row["count"].values())
        counts = " | ".join(str(row["count"][s]) for s in STATUSES)
        worst = f"{row['ulp']} / {row['util']:.2f}" if row["count"]["pass"] else "-"
        why = "; ".join(f"{text} (x{k})" for text, k in row["why"].most_common())
        out.append(f"| {config} | {contract} | {n} | {counts} | {worst} | {why} |")
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", help="the file `tilecheck run --json` wrote")
    parser.add_argument("--title", help="a heading above the table")
    args = parser.parse_args(argv)
    try:
        with open(args.json, encoding="utf-8") as f:
            doc = json.load(f)
        cells = doc["cells"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"run-by-config: cannot read {args.json}: {e}", file=sys.stderr)
        return 2
    print(table(cells, args.title))
    return 0


if __name__ == "__main__":
    sys.exit(main())
