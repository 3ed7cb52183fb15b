# SPDX-License-Identifier: MIT
"""The checks of the Python test scripts (tests/placement, tests/costmodel): each counts what
passed and what failed, prints a failure as it happens (and a check it cannot run, "SKIP:
reason", which tools/run_tests.py counts skipped) and, at the end, the line tools/run_tests.py
reads: "N passed, M failed"."""

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print('FAIL: %s' % what)


def skip(why):
    """A check this build cannot run: tools/run_tests.py counts it skipped, with why."""
    print('SKIP: %s' % why)


def finish():
    """Print the summary line; the script's exit status."""
    print('%d passed, %d failed' % (passed, failed))
    return 0 if failed == 0 else 1
