"""Match records (`crapette-record/1`): export a match stream, import a record as a match, verify
a record by recomputing every decision with the engine, in JSON and in a PGN-like text form.

docs/records.md describes the format; docs/spec/records.md is the specification.
"""
