"""The tournament bench: duplicate deals, statistics, reports."""
