KNOWN_FAILURES: dict[tuple[str, str], str] = {}
