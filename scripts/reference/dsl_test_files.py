"""Writes generated DSL tests into files the project's size limit allows.

A generator (tests/stdlib/reference/make_*.py) builds its tests as lists of lines and
hands them here: they go in order into STEM.dsl, STEM2.dsl, ... each starting with the
same header (comments and the `let ref = load(...)` the tests read), none longer than
max_lines. A file past 700 lines is past what one reading takes in.
"""
import pathlib


def write_test_files(stem, header, tests, max_lines=695):
    """Writes `tests` (each a list of lines) under `header`; returns the paths written."""
    files, current = [], list(header)
    for lines in tests:
        if len(current) + len(lines) > max_lines and len(current) > len(header):
            files.append(current)
            current = list(header)
        current += lines
    files.append(current)
    paths = []
    for k, lines in enumerate(files):
        path = pathlib.Path(f"{stem}{'' if k == 0 else k + 1}.dsl")
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths
