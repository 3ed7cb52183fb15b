# SPDX-License-Identifier: MIT
"""Where each suite runs in full; on the other configs it runs as a smoke test (read by tools/run_tests.py).

A suite runs in full on the configs that compose what it exercises, and as a smoke test on the
rest: tools/run_tests.py sets LC_T_SMOKE=1 for it (a Criterion suite reads it through
lc_t_smoke() and LC_T_N(full, smoke), tests/pipeline/lc_run.h), and SMOKE_ENV below, and its row
says "smoke".  A smoke run makes every case smaller -- fewer iterations, inputs or sizes, a
shorter backpressure limit -- and skips none; what a case asserts is the same.  A suite without
a row runs in full everywhere: every suite is checked in full somewhere, and a suite whose cases
cannot get smaller (they wait a fixed time, or each is one call) gains nothing from a row.

One row per suite: the program's name (a Criterion suite, or fuzz_<name> for a fuzz harness's
replay), where it runs in full (a predicate on the config), and what its smoke run leaves out.
The predicate sees a Config:
  name      the config's name
  protos    the protocols it composes (build/<cfg>/config.json, active_protocols)
  every     it composes every implemented protocol (protocols/*/protocol.lua)
  variant   it extends a config that composes the same protocols and changes only a mode or the
            geometry (baseline_thread, small_rings, reliable_saw, all_nic, ...): what the
            protocols do is checked in full on the config it extends
"""


def reference(c):
    """The reference config: no protocol, the MCP inline, the default geometry."""
    return not c.protos and not c.variant


def alone(c, proto):
    """proto composed alone, not a variant (reliable, flowctl, checksum, multicast_host, ...)."""
    return c.protos == {proto} and not c.variant


def personality(c):
    """A personality over the plain pipeline, over reliability alone (exactly_once: the cases
    under faults) and over every protocol composed, multicast replicated by the host and by the
    NIC (the collectives' lc_bcast, the rendezvous' large messages)."""
    return reference(c) or alone(c, 'reliability') or c.every


# What a smoke run's environment adds besides LC_T_SMOKE=1.  LC_BACKPRESSURE_US (framework/geom.h):
# the job runs with a backpressure limit of 100 ms instead of the config's (500 ms in every config
# here), and every wait a case makes in units of the limit -- a send to a stopped node, a receive
# from a dead one, a live receiver away for longer than the limit -- shrinks with it; the full
# runs keep the config's, and so do the sanitizers' builds (tools/run_tests.py: their code runs
# 3-10 x slower and a limit counts time).
SMOKE_ENV = {'LC_BACKPRESSURE_US': '100000'}

SUITES = {
    # suite: (runs in full where, what a smoke run leaves out)
    'test_mpi': (personality, 'ping-pong sizes above 1 MiB; NetPIPE above 64 KiB, 20 repeats a size '
                             'instead of 200; the rendezvous messages the unexpected budget and '
                             '64 KiB instead of twice the budget; mpicc at -O0'),
    'test_atlas': (personality, 'smaller counts; Table 1 with 5 iterations; the C++ wrapper build; '
                               'atlascc at -O0'),
    'test_csn': (personality, 'benchmark iterations (20 and 1 MiB a size); csncc at -O0'),
    'test_vipl': (personality, 'example iterations; viplcc at -O0'),
    'test_vi': (personality, 'one round of traffic instead of three'),
    'test_put': (lambda c: personality(c) or 'rendezvous' in c.protos,
                 'rounds: 1 instead of 3, 20 notices instead of 200'),
    # the plain pipeline, reliability's give-up, flow control's holding: each composed alone
    'test_pipeline_load': (lambda c: reference(c) or alone(c, 'reliability') or
                           alone(c, 'flow_control'),
                           'beside the CPU hogs 8 MiB instead of 64 MiB; a live receiver away 2 x the '
                           'backpressure limit instead of 3 x, the limit 100 ms, a busy one not past '
                           "reliability's give-up (the sleeping one still is)"),
    # the limit's waits (a send without a slot, behind a waiting NIC, a receive from a dead peer;
    # a node that computes 2 x the limit; a member asleep 2 x the limit; a rendezvous peer's death)
    'test_pipeline': (lambda c: reference(c) or alone(c, 'reliability') or alone(c, 'flow_control') or
                      (c.every and not c.variant), 'the backpressure limit 100 ms'),
    # a killed node's survivors see it dead within the limit: the launcher's own cases are the same
    'test_pipeline_faults': (lambda c: reference(c) or alone(c, 'reliability') or
                             (c.every and not c.variant), 'the backpressure limit 100 ms'),
    'test_pipeline_bibw': (lambda c: reference(c) or alone(c, 'reliability') or alone(c, 'flow_control'),
                           'the backpressure limit 100 ms'),
    'test_multicast': (lambda c: alone(c, 'multicast') or (c.every and not c.variant),
                       'the backpressure limit 100 ms'),
    'test_rendezvous': (lambda c: alone(c, 'rendezvous') or (c.every and not c.variant),
                        'the backpressure limit 100 ms'),
    # reliability's end-to-end runs: alone, in its stop-and-wait mode, and beside every protocol
    'test_rel_e2e': (lambda c: alone(c, 'reliability') or c.name == 'reliable_saw' or
                     (c.every and not c.variant),
                     'a tenth of the messages under faults (5 000 a node, a ring of 1 000)'),
    'test_rel_faults': (lambda c: 'reliability' in c.protos,
                        'without reliability: sizes above 16 KiB, all but one window a size; a lost '
                        "window's tail waited out for 50 ms instead of 200"),
    # every boundary size on 2, 3 and 8 nodes: a smoke run keeps every size but the large one
    'test_pipeline_sizes': (lambda c: reference(c) or alone(c, 'reliability') or
                            alone(c, 'rendezvous') or (c.every and not c.variant),
                            'the large message 8 MiB instead of 64 MiB'),
    # the frame parsers: the framework's alone and all of them together (each protocol's
    # parser in `every`, beside the others); a protocol composed alone replays one corpus
    # input in eight and every regression input
    'fuzz_frame': (lambda c: reference(c) or (c.every and not c.variant),
                   'seven corpus inputs in eight (every regression input runs)'),
}

# fuzz_<name> replay as a smoke run: every FUZZ_SMOKE_STRIDE-th corpus input (in name order)
FUZZ_SMOKE_STRIDE = 8
