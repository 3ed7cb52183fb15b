# SPDX-License-Identifier: MIT
"""The fuzz harnesses: one row each (read by SConstruct and tools/fuzz.py).

tests/fuzz/<name>/fuzz_<name>.c defines LLVMFuzzerTestOneInput (and may define
LLVMFuzzerInitialize); the folder's other .c files are linked with it.  Seed
inputs live in tests/fuzz/<name>/corpus/, every input that once crashed or hung
in tests/fuzz/<name>/regress/ (named after what it found).

  link     what the harness links besides its own files:
             'lib'       the config's libcomm.a
             'launcher'  the launcher's objects (launcher/*.c without main) and libcomm.a
             'lua'       Lua 5.4 (the generator runs in-process) and libcomm.a
  configs  the configs it is built and run for by `scons fuzz` (the first is the default
           when configs= is not given), and replayed for by `scons test`
  max_len  libFuzzer's -max_len
  timeout  seconds one input may take before it counts as a hang (-timeout)
  doc      one line: what it feeds and what it checks
  personalities  (optional) personalities/<p> whose libraries (build/<cfg>/lib/lib<p>.a) and
           installed headers the harness uses
"""

TARGETS = {
    'frame': {
        'link': 'lib',
        # the inline-MCP configs: every protocol alone, composed, NIC multicast, stop-and-wait, tiny rings
        'configs': ['all', 'baseline', 'checksum', 'reliable', 'flowctl', 'multicast',
                    'reliable_flowctl', 'all_nic', 'reliable_saw', 'small_rings'],
        'max_len': 4096, 'timeout': 20,
        'doc': 'recorded, damaged and forged frames of a peer into a real node\'s Receive Ring',
    },
    'config': {
        'link': 'lua', 'configs': ['baseline'], 'max_len': 4096, 'timeout': 20,
        'doc': 'a config file through gen/main.lua in-process: complete outputs, or file:line '
               'diagnostics and nothing written',
    },
    'launcher': {
        'link': 'launcher', 'configs': ['baseline'], 'max_len': 4096, 'timeout': 10,
        'doc': "commrun's options, fault specs, multi-program command lines and spec files: "
               'a complete job or a usage error with its message, nothing leaked or started',
    },
    'personality': {
        'link': 'lib', 'configs': ['baseline', 'reliable', 'all'], 'max_len': 2048, 'timeout': 20,
        'personalities': ['mpi', 'csn', 'atlas', 'epos'],
        'doc': 'MPI, CSN, ATLAS, EPOS calls with fuzzed arguments in a one-node job: each returns '
               'its error or succeeds, self-sends deliver their bytes, nothing hangs or leaks',
    },
}
