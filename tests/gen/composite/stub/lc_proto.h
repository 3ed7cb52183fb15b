/* SPDX-License-Identifier: MIT */
/* Test stand-in for framework/lc_proto.h: the composite test needs no pipeline. */
#ifndef LC_PROTO_H
#define LC_PROTO_H
#include "lc_verdict.h"
#endif
