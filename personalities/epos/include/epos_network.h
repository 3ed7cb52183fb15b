/* SPDX-License-Identifier: MIT */
/* EPOS Network family: the selected network's traits, compile-time constants of this config. */
#ifndef EPOS_NETWORK_H
#define EPOS_NETWORK_H

#include "lc_config.h"
#include "lc_coop.h"       /* LC_PC_EXACTLY_ONCE: some composed protocol makes delivery exact */

/*
 * The Network family abstracts the technology under the channels.  This
 * build has one member, Myrinet (the emulated NIC of libcomm), selected by
 * the config key epos.network (LC_EPOS_NETWORK_MYRINET).  Its traits are the
 * config's: the frame payload (MTU), whether a composed protocol makes it
 * reliable (provides exactly_once, lc_coop.h) and whether they give it multicast.  Every trait
 * is a constant expression, so code that tests one with `if` or `#if` costs
 * nothing for the value the config did not choose.
 */
#if LC_EPOS_NETWORK_MYRINET
#define EPOS_NETWORK_NAME      "myrinet"
#define EPOS_NETWORK_MTU       LC_MTU
#define EPOS_NETWORK_RELIABLE  LC_PC_EXACTLY_ONCE
#define EPOS_NETWORK_MULTICAST LC_PROTO_MULTICAST
#else
#error "epos: no member of the Network family is selected (epos.network)"
#endif

#endif /* EPOS_NETWORK_H */
