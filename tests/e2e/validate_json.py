#!/usr/bin/env python3
"""Validates one fprev-golden JSON document against docs/fprev-golden.schema.json.

usage: validate_json.py SCHEMA DOCUMENT COMMAND [PATH=VALUE ...]

The document must be valid JSON, follow the schema (which is itself checked against the JSON Schema
2020-12 meta-schema) and have "command": COMMAND. Each PATH=VALUE asserts one value: PATH is
slash-separated keys and array indices (cases/0/status), VALUE is compared as JSON when it parses
as JSON (true, 3, null, "x") and as a string otherwise; PATH=@type asserts a JSON type
(@string, @number, @object, @array, @boolean, @null), PATH=@nonempty a non-empty string or array.
Exit status 0 when everything holds, 1 with every problem printed otherwise, 77 when the
jsonschema module is missing (python3-jsonschema; scripts/install-deps installs it).
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("SKIP: python3-jsonschema is not installed (scripts/install-deps installs it)")
    sys.exit(77)

TYPES = {"@string": str, "@number": (int, float), "@object": dict, "@array": list,
         "@boolean": bool, "@null": type(None)}


def lookup(document, path):
    value = document
    for key in path.split("/"):
        if isinstance(value, list):
            value = value[int(key)]
        elif isinstance(value, dict):
            value = value[key]
        else:
            raise KeyError(path)
    return value


def check_expectation(document, expectation):
    path, _, expected = expectation.partition("=")
    try:
        actual = lookup(document, path)
    except (KeyError, IndexError, ValueError):
        return f"{path}: missing"
    if expected in TYPES:
        ok = isinstance(actual, TYPES[expected]) and not (expected == "@number" and isinstance(actual, bool))
        return None if ok else f"{path}: expected {expected[1:]}, got {json.dumps(actual)[:200]}"
    if expected == "@nonempty":
        return None if isinstance(actual, (str, list)) and actual else f"{path}: empty"
    try:
        wanted = json.loads(expected)
    except ValueError:
        wanted = expected
    return None if actual == wanted else f"{path}: expected {json.dumps(wanted)}, got {json.dumps(actual)[:200]}"


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    schema_path, document_path, command = sys.argv[1:4]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    with open(document_path, encoding="utf-8") as f:
        text = f.read()
    try:
        document = json.loads(text)
    except ValueError as e:
        print(f"{document_path}: not JSON: {e}\n{text[:400]}")
        return 1
    problems = []
    # Validate against the command's own definition for readable errors, then against the whole
    # schema (its oneOf over every command).
    definition = {"gate": ["check", "update"], "resolve": ["accept", "reject"], "diff_command": ["diff"]}
    name = next((k for k, v in definition.items() if command in v), command)
    sub_schema = dict(schema, **{"$ref": f"#/$defs/{name}"})
    sub_schema.pop("oneOf")
    for error in validator_class(sub_schema).iter_errors(document):
        location = "/".join(str(p) for p in error.absolute_path) or "(document)"
        problems.append(f"{location}: {error.message[:300]}")
    if not problems:
        problems += [f"(document): {e.message[:300]}" for e in validator_class(schema).iter_errors(document)]
    if document.get("command") != command:
        problems.append(f"command: expected {command!r}, got {document.get('command')!r}")
    for expectation in sys.argv[4:]:
        problem = check_expectation(document, expectation)
        if problem:
            problems.append(problem)
    for problem in problems:
        print(f"{document_path}: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
