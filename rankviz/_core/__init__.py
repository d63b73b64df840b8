"""Canonical data: column roles, options and checks, and the one path from any input shape to flat arrays.

Everything above this package sees a run as ``RunArrays``/``Judged`` values (query codes, doc ids, ranks,
grades) whatever shape the user's frame had; nothing here knows about measures, files or statistics.
"""
