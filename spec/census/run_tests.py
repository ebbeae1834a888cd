#!/usr/bin/python3
"""Runs the census tool's unittest tests (spec/census/test_*.py) and prints TAP:
"ok N - name" / "not ok N - name" (with "# " diagnostics), then "1..N".
Exit status 1 when a test fails or errors. Run with Debian's python3-torch:
/usr/bin/python3 spec/census/run_tests.py [PATTERN]"""

import os
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ in the tree
import traceback
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class TapResult(unittest.TestResult):
    """A TestResult that prints one TAP line per test."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def _line(self, ok, test, note=""):
        """Prints the TAP line of a test."""
        self.count += 1
        name = test.id().split(".", 1)[-1]
        print(f"{'ok' if ok else 'not ok'} {self.count} - {name}{note}", flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(True, test)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line(True, test, f" # SKIP {reason}")

    def _fail(self, test, err):
        """Prints a failing line and the traceback as diagnostics."""
        self._line(False, test)
        for line in "".join(traceback.format_exception(*err)).rstrip().splitlines():
            print(f"# {line}")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._fail(test, err)

    def addError(self, test, err):
        super().addError(test, err)
        self._fail(test, err)


def main(argv):
    """Discovers and runs the tests; 0 when all pass."""
    pattern = argv[1] if len(argv) > 1 else "test_*.py"
    sys.path.insert(0, HERE)
    suite = unittest.defaultTestLoader.discover(HERE, pattern=pattern, top_level_dir=HERE)
    result = TapResult()
    suite.run(result)
    print(f"1..{result.count}")
    return 0 if result.wasSuccessful() and result.count > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
