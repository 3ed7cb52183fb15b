/* SPDX-License-Identifier: MIT */
/* layout_check.c: compile-time check that vipl.h lays descriptors out as published. */
#include <stddef.h>

#include "vipl.h"

/*
 * The numbers: the descriptor format of the Virtual Interface Architecture
 * Specification 1.0, which the VIPL headers (Intel's reference VIPL, Giganet
 * cLAN) declare field for field.  A descriptor is a 32-byte control segment
 * -- next descriptor address (64 bits), its memory handle (32), segment
 * count (16), control (16), reserved (32), immediate data (32), length (32),
 * status (32) -- followed by 16-byte segments: an address segment (remote
 * address 64, memory handle 32, reserved 32) and data segments (address
 * 64, memory handle 32, length 32).  The NIC reads and writes these bytes,
 * so the layout is the same whatever the host; the headers' VIP_DESCRIPTOR
 * (CS and DS[2]) is 64 bytes, VIP_DESCRIPTOR_ALIGNMENT.  Asserted on every
 * target; the x86-64 block adds what follows from the C types there.
 */
#define LCVIPL_AT(type, field, off) \
	_Static_assert(offsetof(type, field) == (off), #type "." #field " at " #off)
#define LCVIPL_SIZE(type, n) _Static_assert(sizeof(type) == (n), "sizeof(" #type ") is " #n)

LCVIPL_SIZE(VIP_UINT8, 1);
LCVIPL_SIZE(VIP_UINT16, 2);
LCVIPL_SIZE(VIP_UINT32, 4);
LCVIPL_SIZE(VIP_UINT64, 8);
LCVIPL_SIZE(VIP_MEM_HANDLE, 4);
LCVIPL_SIZE(VIP_PVOID64, 8);

LCVIPL_SIZE(VIP_CONTROL_SEGMENT, 32);
LCVIPL_AT(VIP_CONTROL_SEGMENT, Next, 0);
LCVIPL_AT(VIP_CONTROL_SEGMENT, NextHandle, 8);
LCVIPL_AT(VIP_CONTROL_SEGMENT, SegCount, 12);
LCVIPL_AT(VIP_CONTROL_SEGMENT, Control, 14);
LCVIPL_AT(VIP_CONTROL_SEGMENT, Reserved, 16);
LCVIPL_AT(VIP_CONTROL_SEGMENT, ImmediateData, 20);
LCVIPL_AT(VIP_CONTROL_SEGMENT, Length, 24);
LCVIPL_AT(VIP_CONTROL_SEGMENT, Status, 28);

LCVIPL_SIZE(VIP_ADDRESS_SEGMENT, 16);
LCVIPL_AT(VIP_ADDRESS_SEGMENT, Data, 0);
LCVIPL_AT(VIP_ADDRESS_SEGMENT, Handle, 8);
LCVIPL_AT(VIP_ADDRESS_SEGMENT, Reserved, 12);

LCVIPL_SIZE(VIP_DATA_SEGMENT, 16);
LCVIPL_AT(VIP_DATA_SEGMENT, Data, 0);
LCVIPL_AT(VIP_DATA_SEGMENT, Handle, 8);
LCVIPL_AT(VIP_DATA_SEGMENT, Length, 12);

/* Remote and Local overlay each other: the address and handle sit at the same offsets. */
LCVIPL_SIZE(VIP_DESCRIPTOR_SEGMENT, 16);
LCVIPL_AT(VIP_DESCRIPTOR_SEGMENT, Remote.Data, 0);
LCVIPL_AT(VIP_DESCRIPTOR_SEGMENT, Local.Data, 0);
LCVIPL_AT(VIP_DESCRIPTOR_SEGMENT, Remote.Handle, 8);
LCVIPL_AT(VIP_DESCRIPTOR_SEGMENT, Local.Handle, 8);

LCVIPL_SIZE(VIP_DESCRIPTOR, VIP_DESCRIPTOR_ALIGNMENT);
LCVIPL_AT(VIP_DESCRIPTOR, CS, 0);
LCVIPL_AT(VIP_DESCRIPTOR, DS, 32);
LCVIPL_AT(VIP_DESCRIPTOR, DS[1], 48);
/* Giganet's names of the same bytes. */
LCVIPL_AT(VIP_DESCRIPTOR, Control, 0);
LCVIPL_AT(VIP_DESCRIPTOR, Data, 32);
LCVIPL_AT(VIP_DESCRIPTOR, Data[1].Length, 60);
LCVIPL_AT(VIP_DESCRIPTOR, DS[1].Local.Length, 60);
_Static_assert((VIP_DESCRIPTOR_ALIGNMENT & (VIP_DESCRIPTOR_ALIGNMENT - 1)) == 0,
	       "descriptor alignment is a power of two");

/* The address header: two 16-bit lengths, then the bytes (no padding before them). */
LCVIPL_AT(VIP_NET_ADDRESS, HostAddressLen, 0);
LCVIPL_AT(VIP_NET_ADDRESS, DiscriminatorLen, 2);
LCVIPL_AT(VIP_NET_ADDRESS, HostAddress, 4);

/* Control and status fields: the operation codes fit their masks, the bits do not overlap. */
#define LCVIPL_CONTROL_FLAGS (VIP_CONTROL_IMMEDIATE | VIP_CONTROL_QFENCE | VIP_CONTROL_RESERVED)
#define LCVIPL_STATUS_OTHER  (VIP_STATUS_DONE | VIP_STATUS_OP_MASK | VIP_STATUS_IMMEDIATE | \
			      VIP_STATUS_RESERVED)
_Static_assert((VIP_CONTROL_OP_MASK & LCVIPL_CONTROL_FLAGS) == 0,
	       "control: op field apart from the flag bits");
_Static_assert((VIP_CONTROL_OP_MASK | LCVIPL_CONTROL_FLAGS) == 0xFFFF,
	       "control: the fields cover the 16 bits");
_Static_assert((VIP_STATUS_ERROR_MASK | LCVIPL_STATUS_OTHER) == 0xFFFFFFFFu,
	       "status: the fields cover the 32 bits");
_Static_assert((VIP_STATUS_ERROR_MASK & LCVIPL_STATUS_OTHER) == 0, "status: error bits apart");
_Static_assert((VIP_STATUS_FORMAT_ERROR | VIP_STATUS_PROTECTION_ERROR | VIP_STATUS_LENGTH_ERROR |
		VIP_STATUS_PARTIAL_ERROR | VIP_STATUS_DESC_FLUSHED_ERROR | VIP_STATUS_TRANSPORT_ERROR |
		VIP_STATUS_RDMA_PROT_ERROR | VIP_STATUS_REMOTE_DESC_ERROR) == VIP_STATUS_ERROR_MASK,
	       "status: the error mask is the error bits");
_Static_assert(VIP_STATUS_OP_RDMA_READ <= VIP_STATUS_OP_MASK &&
	       VIP_STATUS_OP_REMOTE_RDMA_WRITE <= VIP_STATUS_OP_MASK,
	       "status: op codes inside the op field");

/* The published return values (the headers number them by position). */
_Static_assert(VIP_SUCCESS == 0 && VIP_NOT_DONE == 1 && VIP_TIMEOUT == 4 &&
	       VIP_DESCRIPTOR_ERROR == 11 && VIP_NO_MATCH == 14 && VIP_NOT_REACHABLE == 15 &&
	       VIP_ERROR_NOT_SUPPORTED == 16, "VIP_RETURN values as published");
_Static_assert(VIP_STATE_IDLE == 0 && VIP_STATE_ERROR == 3, "VIP_VI_STATE as published");
_Static_assert(VIP_RESOURCE_DESCRIPTOR == 3 && VIP_ERROR_CATASTROPHIC == 10,
	       "error enums as published");

#if defined(__x86_64__)
/* x86-64 (LP64): handles and VIP_ULONG are 8 bytes, VIP_BOOLEAN 4. */
LCVIPL_SIZE(VIP_ULONG, 8);
LCVIPL_SIZE(VIP_BOOLEAN, 4);
LCVIPL_SIZE(VIP_NIC_HANDLE, 8);
LCVIPL_SIZE(VIP_NET_ADDRESS, 6);
_Static_assert(_Alignof(VIP_CONTROL_SEGMENT) == 8 && _Alignof(VIP_DESCRIPTOR) == 8,
	       "descriptor types align on 8 (VIP_DESCRIPTOR_ALIGNMENT is the program's to provide)");
LCVIPL_AT(VIP_VI_ATTRIBUTES, MaxTransferSize, 8);
LCVIPL_AT(VIP_VI_ATTRIBUTES, QoS, 16);
LCVIPL_AT(VIP_VI_ATTRIBUTES, EnableRdmaRead, 36);
LCVIPL_SIZE(VIP_VI_ATTRIBUTES, 40);
LCVIPL_SIZE(VIP_MEM_ATTRIBUTES, 16);
#endif

#undef LCVIPL_AT
#undef LCVIPL_SIZE
#undef LCVIPL_CONTROL_FLAGS
#undef LCVIPL_STATUS_OTHER
