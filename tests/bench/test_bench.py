#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The benchmark driver's own checks: prints "N passed, M failed" (tools/run_tests.py).

usage: tests/bench/test_bench.py BUILD_DIR   (any config: its commrun runs the jobs)

A failed cell's reason (tools/bench/run.py failure_text, through run_sweep on a real commrun job):
every node's last line of its own and commrun's first lines, so that the node that died first is
named beside the peer that saw it die.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
sys.path.insert(0, os.path.join(ROOT, 'tools', 'bench'))
import run  # noqa: E402
sys.path.insert(0, os.path.join(HERE, '..'))
from pychecks import check, finish, skip  # noqa: E402


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    commrun = os.path.join(argv[0], 'bin', 'commrun')
    if not os.access(commrun, os.X_OK):
        skip('%s is not built' % commrun)
        return finish()
    # node 1 dies at once; node 0 notices a while later, says so and fails in turn
    job = ('if [ "$LC_NODE" = 1 ]; then echo "node one starts" >&2; kill -9 $$; fi; '
           'echo "# Size  Latency (us)"; echo "8 1.5"; sleep 0.3; '
           'echo "wait: peer node died or stopped answering" >&2; exit 1')
    got, err = run.run_sweep([commrun, '-n', '2', 'sh', '-c', job], [8, 16], 1, 30, lambda s: None)
    check(got == {8: 1.5}, 'the figure printed before the failure is kept: %r' % got)
    check(err and err.startswith('exit status 137: '),
          "commrun's status, node 1 killed (128 + 9): %r" % err)
    check(err and '[0] wait: peer node died' in err, "the survivor's own last line: %r" % err)
    check(err and '[1] node one starts' in err, "the dead node's own last line: %r" % err)
    check(err and 'node 1 died: signal 9' in err, 'commrun names the node that died: %r' % err)
    at = [(err or '').find(k) for k in ('[0]', '[1]', 'commrun:')]
    check(min(at) >= 0 and at == sorted(at), 'nodes in order, then commrun: %r' % err)
    # the text alone: valgrind's lines and blank lines left out, commrun's first lines kept
    lines = ['==123== Memcheck', '', '[2] two', 'plain'] + \
        ['commrun: line %d' % i for i in range(run.FAILURE_LAUNCHER_LINES + 2)]
    t = run.failure_text(3, lines)
    check(t == 'exit status 3: plain | [2] two | ' +
          ' | '.join('commrun: line %d' % i for i in range(run.FAILURE_LAUNCHER_LINES)),
          'failure_text: %r' % t)
    check(run.failure_text(1, []) == 'exit status 1: no message', 'no stderr at all')
    return finish()


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
