"""Hostile bots: each file is a bot that breaks a rule of the ladder (see tests/ladder/sandbox/test_hostile.py).

These files are data for the sandbox tests: the ladder runs them in the
sandbox and never imports them. Some hold placeholders (``TARGETS``,
``LADDER_PID``, ``PORT``...) that the tests fill in on a copy.
"""
