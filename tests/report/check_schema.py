#!/usr/bin/env python3
"""Validates JSON reports against docs/shb-report.schema.json.

usage: check_schema.py SCHEMA REPORT.json...

Every report must be valid, and so must the schema itself (draft
2020-12). A report the schema rejects is printed with each error and its
path; the exit status is then 1."""
import json
import sys

import jsonschema


def main(argv):
    if len(argv) < 3:
        print("usage: check_schema.py SCHEMA REPORT.json...", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        # A comparison's report is an array of documents.
        docs = doc if isinstance(doc, list) else [doc]
        if not docs:
            print(f"{path}: an empty array", file=sys.stderr)
            return 1
        errors = [e for d in docs for e in validator.iter_errors(d)]
        for e in errors:
            where = "/".join(str(p) for p in e.absolute_path) or "(top)"
            print(f"{path}: {where}: {e.message}", file=sys.stderr)
        bad += bool(errors)
        print(f"{path}: {'invalid' if errors else 'valid'}")
    # The schema must reject what it does not describe, or the check
    # above proves nothing.
    probe = dict(docs[0])
    probe["noSuchKey"] = 1
    if validator.is_valid(probe):
        print("the schema accepts an unknown key", file=sys.stderr)
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
