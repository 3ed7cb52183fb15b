/* SPDX-License-Identifier: MIT */
/* vipl.h: the VI Provider Library personality's public API (the published VIPL names, layouts). */
#ifndef VIPL_H
#define VIPL_H

/*
 * Which document: the VIPL API of the Intel Virtual Interface (VI)
 * Architecture Developer's Guide, Revision 1.0 (September 1998), with the
 * descriptor format of the Virtual Interface Architecture Specification,
 * Version 1.0 (December 1997).  Names, types, structure layouts and field
 * names, constants and status values are the published ones, as the vendor
 * headers of that era spell them (Intel's reference VIPL, Giganet cLAN), so
 * a program written for a VIPL builds unmodified against this header; the
 * two additions of the later headers that programs use (VIP_NOT_REACHABLE,
 * VIP_ERROR_NOT_SUPPORTED) keep the values those headers give them.
 * layout_check.c asserts the descriptor's layout.
 *
 * This header is the personality's whole public API; the build installs it
 * into build/<cfg>/include/ beside comm.h.  The other names it defines, all
 * with the project prefix LCVIPL_, are this personality's own.
 *
 * Conventions of every call:
 *   - returns a VIP_RETURN: VIP_SUCCESS, or the code of the first problem
 *     found (the text in LCVIPL_RETURN_LIST below);
 *   - timeouts are milliseconds; 0 only polls, VIP_INFINITE (or any larger
 *     value) waits without limit; a wait that runs out returns VIP_TIMEOUT;
 *   - a handle argument must be one the matching Create/Open call returned
 *     and no Destroy/Close call has taken back (else VIP_INVALID_PARAMETER).
 *
 * Libcomm job model: the NIC of a node is its emulated Myrinet NIC; the
 * name service (VipNSInit, VipNSGetHostByName, VipNSGetHostByAddr) maps the
 * host name "node<k>" to node k's NIC address and back, with no file to
 * read: NSInitInfo may be NULL.
 */
#include <stddef.h>     /* NULL: the handle that names no CQ, no QoS, no NSInitInfo */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The published headers spell argument directions with IN and OUT, and some
 * programs use them in their own declarations; they expand to nothing.
 */
#ifndef IN
#define IN
#endif
#ifndef OUT
#define OUT
#endif

/* ---- Basic types (the published headers' __int64, __int32, ... are these C types) ---- */
typedef void *VIP_PVOID;
typedef int VIP_BOOLEAN;
typedef char VIP_CHAR;
typedef unsigned char VIP_UCHAR;
typedef short VIP_SHORT;
typedef unsigned short VIP_USHORT;
typedef long VIP_LONG;
typedef unsigned long VIP_ULONG;
typedef unsigned long long VIP_UINT64;
typedef unsigned int VIP_UINT32;
typedef unsigned short VIP_UINT16;
typedef unsigned char VIP_UINT8;

#define VIP_TRUE  (1)
#define VIP_FALSE (0)

/* Quality of service: no VIPL defines its contents; any value (NULL) is accepted. */
typedef VIP_PVOID VIP_QOS;

/* Opaque handles of the objects the calls create. */
typedef VIP_PVOID VIP_NIC_HANDLE;
typedef VIP_PVOID VIP_VI_HANDLE;
typedef VIP_PVOID VIP_CQ_HANDLE;
typedef VIP_PVOID VIP_PROTECTION_HANDLE;
typedef VIP_PVOID VIP_CONN_HANDLE;

/* A registered memory region, as the NIC names it in descriptors (32 bits, also on the wire). */
typedef VIP_UINT32 VIP_MEM_HANDLE;

/* Wait without limit (the published value: the 32-bit all-ones of Win32's INFINITE). */
#define VIP_INFINITE ((VIP_ULONG)0xFFFFFFFFul)

/* ---- Return codes ---- */

/*
 * Columns: name, value (the published one), text.  The enum below is made
 * from this table; the implementation makes its error strings from it too.
 */
#define LCVIPL_RETURN_LIST(X)                                                           \
	X(VIP_SUCCESS,                   0,  "success")                                 \
	X(VIP_NOT_DONE,                  1,  "no completed descriptor (yet)")           \
	X(VIP_INVALID_PARAMETER,         2,  "invalid parameter")                       \
	X(VIP_ERROR_RESOURCE,            3,  "out of resources")                        \
	X(VIP_TIMEOUT,                   4,  "timed out")                               \
	X(VIP_REJECT,                    5,  "connection request rejected")             \
	X(VIP_INVALID_RELIABILITY_LEVEL, 6,  "reliability level not supported")         \
	X(VIP_INVALID_MTU,               7,  "transfer size beyond the limit")          \
	X(VIP_INVALID_QOS,               8,  "invalid quality of service")              \
	X(VIP_INVALID_PTAG,              9,  "protection tag mismatch")                 \
	X(VIP_INVALID_RDMAREAD,          10, "RDMA read not supported or not enabled")  \
	X(VIP_DESCRIPTOR_ERROR,          11, "descriptor error")                        \
	X(VIP_INVALID_STATE,             12, "object in the wrong state for the call")  \
	X(VIP_ERROR_NAMESERVICE,         13, "name service error")                      \
	X(VIP_NO_MATCH,                  14, "no matching connection request")          \
	X(VIP_NOT_REACHABLE,             15, "remote end point not reachable")          \
	X(VIP_ERROR_NOT_SUPPORTED,       16, "operation not supported")

typedef enum {
#define LCVIPL_X_RETURN(name, value, ...) name = value,
	LCVIPL_RETURN_LIST(LCVIPL_X_RETURN)
#undef LCVIPL_X_RETURN
} VIP_RETURN;

/* ---- Reliability levels (bits of VIP_RELIABILITY_LEVEL) ---- */
typedef VIP_USHORT VIP_RELIABILITY_LEVEL;

#define VIP_SERVICE_UNRELIABLE         0x01
#define VIP_SERVICE_RELIABLE_DELIVERY  0x02
#define VIP_SERVICE_RELIABLE_RECEPTION 0x04

/* ---- Network addresses ---- */

/*
 * A VI end point's address: HostAddressLen bytes of the NIC's address, then
 * DiscriminatorLen bytes of discriminator (which tells the end points of one
 * host apart in connection set-up), both in HostAddress[], which the caller
 * allocates with room for both (sizeof(VIP_NET_ADDRESS) + NicAddressLen +
 * MaxDiscriminatorLen of VIP_NIC_ATTRIBUTES is enough).
 */
typedef struct _VIP_NET_ADDRESS {
	VIP_UINT16 HostAddressLen;
	VIP_UINT16 DiscriminatorLen;
	VIP_UINT8 HostAddress[1];
} VIP_NET_ADDRESS;

/* ---- NIC attributes (VipQueryNic): fixed when the NIC is opened ---- */
typedef struct _VIP_NIC_ATTRIBUTES {
	VIP_CHAR Name[64];
	VIP_ULONG HardwareVersion;
	VIP_ULONG ProviderVersion;
	VIP_UINT16 NicAddressLen;
	const VIP_UINT8 *LocalNicAddress;       /* NicAddressLen bytes, valid while the NIC is open */
	VIP_BOOLEAN ThreadSafe;
	VIP_UINT16 MaxDiscriminatorLen;
	VIP_ULONG MaxRegisterBytes;
	VIP_ULONG MaxRegisterRegions;
	VIP_ULONG MaxRegisterBlockBytes;
	VIP_ULONG MaxVI;
	VIP_ULONG MaxDescriptorsPerQueue;
	VIP_ULONG MaxSegmentsPerDesc;
	VIP_ULONG MaxCQ;
	VIP_ULONG MaxCQEntries;
	VIP_ULONG MaxTransferSize;
	VIP_ULONG NativeMTU;
	VIP_ULONG MaxPtags;
	VIP_RELIABILITY_LEVEL ReliabilityLevelSupport;
	VIP_RELIABILITY_LEVEL RDMAReadSupport;
} VIP_NIC_ATTRIBUTES;

/* ---- Memory attributes (VipRegisterMem, VipQueryMem, VipSetMemAttributes) ---- */
typedef struct _VIP_MEM_ATTRIBUTES {
	VIP_PROTECTION_HANDLE Ptag;     /* only VIs with this tag may use the region */
	VIP_BOOLEAN EnableRdmaWrite;    /* a remote VI may RDMA-write into the region */
	VIP_BOOLEAN EnableRdmaRead;     /* a remote VI may RDMA-read from it */
} VIP_MEM_ATTRIBUTES;

/* ---- Descriptors ---- */

/* Descriptors start on this boundary (and live in registered memory). */
#define VIP_DESCRIPTOR_ALIGNMENT 64

struct _VIP_DESCRIPTOR;

/* A 64-bit address field of a descriptor, whatever the host's pointer width. */
typedef union {
	VIP_UINT64 AddressBits;
	VIP_PVOID Address;
	struct _VIP_DESCRIPTOR *Descriptor;
} VIP_PVOID64;

/*
 * The control segment (32 bytes), first in every descriptor.  The consumer
 * sets Control, SegCount (the address and data segments that follow),
 * Length (send: the bytes of the data segments) and, with
 * VIP_CONTROL_IMMEDIATE, ImmediateData, and clears Status; Next,
 * NextHandle and Reserved belong to the provider while the descriptor is
 * posted.  On completion the provider writes Length (receive: the bytes
 * that arrived), ImmediateData (receive, when VIP_STATUS_IMMEDIATE) and
 * last Status, with VIP_STATUS_DONE.
 */
typedef struct {
	VIP_PVOID64 Next;
	VIP_MEM_HANDLE NextHandle;
	VIP_UINT16 SegCount;
	VIP_UINT16 Control;
	VIP_UINT32 Reserved;
	VIP_UINT32 ImmediateData;
	VIP_UINT32 Length;
	VIP_UINT32 Status;
} VIP_CONTROL_SEGMENT;

/* The remote buffer of an RDMA operation (16 bytes): the segment after the control segment. */
typedef struct {
	VIP_PVOID64 Data;               /* address in the remote process */
	VIP_MEM_HANDLE Handle;          /* its memory handle at the remote NIC */
	VIP_UINT32 Reserved;
} VIP_ADDRESS_SEGMENT;

/* A local buffer (16 bytes): one element of a gather (send, RDMA) or scatter (receive) list. */
typedef struct {
	VIP_PVOID64 Data;
	VIP_MEM_HANDLE Handle;
	VIP_UINT32 Length;
} VIP_DATA_SEGMENT;

typedef union {
	VIP_ADDRESS_SEGMENT Remote;
	VIP_DATA_SEGMENT Local;
} VIP_DESCRIPTOR_SEGMENT;

/*
 * A descriptor: the control segment and SegCount segments.  CS and DS[2]
 * are the spec's and Intel's names (64 bytes, one alignment unit); a
 * descriptor with more segments is allocated with room for them and
 * indexes DS beyond 1.  Control and Data[] are the same bytes under the
 * names of Giganet's header (its default layout), so programs written
 * for either build.
 */
typedef struct _VIP_DESCRIPTOR {
	union {
		VIP_CONTROL_SEGMENT CS;
		VIP_CONTROL_SEGMENT Control;
	};
	union {
		VIP_DESCRIPTOR_SEGMENT DS[2];
		VIP_DATA_SEGMENT Data[2];
	};
} VIP_DESCRIPTOR;

/* Bits of VIP_CONTROL_SEGMENT.Control. */
#define VIP_CONTROL_OP_SENDRECV  0x0000
#define VIP_CONTROL_OP_RDMAWRITE 0x0001
#define VIP_CONTROL_OP_RDMAREAD  0x0002
#define VIP_CONTROL_OP_RESERVED  0x0003
#define VIP_CONTROL_OP_MASK      0x0003
#define VIP_CONTROL_IMMEDIATE    0x0004 /* ImmediateData goes with the operation */
#define VIP_CONTROL_QFENCE       0x0008 /* start only after every earlier RDMA read completed */
#define VIP_CONTROL_RESERVED     0xFFF0

/* Bits of VIP_CONTROL_SEGMENT.Status: completion and errors. */
#define VIP_STATUS_DONE               0x00000001
#define VIP_STATUS_FORMAT_ERROR       0x00000002
#define VIP_STATUS_PROTECTION_ERROR   0x00000004
#define VIP_STATUS_LENGTH_ERROR       0x00000008
#define VIP_STATUS_PARTIAL_ERROR      0x00000010
#define VIP_STATUS_DESC_FLUSHED_ERROR 0x00000020
#define VIP_STATUS_TRANSPORT_ERROR    0x00000040
#define VIP_STATUS_RDMA_PROT_ERROR    0x00000080
#define VIP_STATUS_REMOTE_DESC_ERROR  0x00000100
#define VIP_STATUS_ERROR_MASK         0x000001FE

/* Status: the operation that completed (a field, not bits: compare under VIP_STATUS_OP_MASK). */
#define VIP_STATUS_OP_SEND              0x00000000
#define VIP_STATUS_OP_RECEIVE           0x00010000
#define VIP_STATUS_OP_RDMA_WRITE        0x00020000
#define VIP_STATUS_OP_REMOTE_RDMA_WRITE 0x00030000 /* receive taken by an RDMA write + immediate */
#define VIP_STATUS_OP_RDMA_READ         0x00040000
#define VIP_STATUS_OP_MASK              0x00070000

#define VIP_STATUS_IMMEDIATE 0x00080000 /* ImmediateData is valid */
#define VIP_STATUS_RESERVED  0xFFF0FE00

/* ---- VIs ---- */

/* VipQueryVi: a VI's connection state. */
typedef enum {
	VIP_STATE_IDLE,
	VIP_STATE_CONNECTED,
	VIP_STATE_CONNECT_PENDING,
	VIP_STATE_ERROR
} VIP_VI_STATE;

/* VipCreateVi, VipQueryVi, VipSetViAttributes; the peer's, from the connection calls. */
typedef struct _VIP_VI_ATTRIBUTES {
	VIP_RELIABILITY_LEVEL ReliabilityLevel;
	VIP_ULONG MaxTransferSize;      /* bytes of one descriptor, at most the NIC's */
	VIP_QOS QoS;
	VIP_PROTECTION_HANDLE Ptag;
	VIP_BOOLEAN EnableRdmaWrite;    /* the peer may RDMA-write through this VI */
	VIP_BOOLEAN EnableRdmaRead;
} VIP_VI_ATTRIBUTES;

/* ---- Asynchronous errors (VipErrorCallback) ---- */
typedef enum _VIP_RESOURCE_CODE {
	VIP_RESOURCE_NIC,
	VIP_RESOURCE_VI,
	VIP_RESOURCE_CQ,
	VIP_RESOURCE_DESCRIPTOR
} VIP_RESOURCE_CODE;

typedef enum _VIP_ERROR_CODE {
	VIP_ERROR_POST_DESC,
	VIP_ERROR_CONN_LOST,
	VIP_ERROR_RECVQ_EMPTY,
	VIP_ERROR_VI_OVERRUN,
	VIP_ERROR_RDMAW_PROT,
	VIP_ERROR_RDMAW_DATA,
	VIP_ERROR_RDMAW_ABORT,
	VIP_ERROR_RDMAR_PROT,
	VIP_ERROR_COMP_PROT,
	VIP_ERROR_RDMA_TRANSPORT,
	VIP_ERROR_CATASTROPHIC
} VIP_ERROR_CODE;

typedef struct _VIP_ERROR_DESCRIPTOR {
	VIP_NIC_HANDLE NicHandle;
	VIP_VI_HANDLE ViHandle;
	VIP_CQ_HANDLE CQHandle;
	VIP_DESCRIPTOR *DescriptorPtr;
	VIP_ULONG OpCode;
	VIP_RESOURCE_CODE ResourceCode;
	VIP_ERROR_CODE ErrorCode;
} VIP_ERROR_DESCRIPTOR;

/* ---- System management (VipQuerySystemManagementInfo) ---- */
#define VIP_SMI_AUTODISCOVERY ((VIP_ULONG)1)

typedef struct {
	VIP_ULONG NumberOfHops;
	VIP_NET_ADDRESS **ADAddrArray;
	VIP_ULONG NumAdAddrs;
} VIP_AUTODISCOVERY_LIST;

/* ---- Callbacks (the parameter types of the Notify calls and of VipErrorCallback) ---- */
typedef void (*VIP_ERROR_HANDLER)(VIP_PVOID Context, VIP_ERROR_DESCRIPTOR *ErrorDesc);
typedef void (*VIP_VI_CALLBACK)(VIP_PVOID Context, VIP_NIC_HANDLE NicHandle, VIP_VI_HANDLE ViHandle,
				VIP_DESCRIPTOR *Descriptor);
typedef void (*VIP_CQ_CALLBACK)(VIP_PVOID Context, VIP_NIC_HANDLE NicHandle, VIP_VI_HANDLE ViHandle,
				VIP_BOOLEAN RecvQueue);

/* ==== Calls ==== */

/* ---- NIC ---- */

/*
 * VipOpenNic: open the NIC named DeviceName; *NicHandle receives its handle.
 * VIP_INVALID_PARAMETER: no such NIC; VIP_ERROR_RESOURCE: no room.
 */
VIP_RETURN VipOpenNic(const VIP_CHAR *DeviceName, VIP_NIC_HANDLE *NicHandle);

/* VipCloseNic: close the NIC; what was made on it and not destroyed is released. */
VIP_RETURN VipCloseNic(VIP_NIC_HANDLE NicHandle);

/* VipQueryNic: copy the NIC's attributes into *Attributes. */
VIP_RETURN VipQueryNic(VIP_NIC_HANDLE NicHandle, VIP_NIC_ATTRIBUTES *Attributes);

/* ---- Name service ---- */

/* VipNSInit: start the name service on the NIC (NSInitInfo: NULL here, see the top of the file). */
VIP_RETURN VipNSInit(VIP_NIC_HANDLE NicHandle, VIP_PVOID NSInitInfo);

/*
 * VipNSGetHostByName: the NameIndex-th address of host Name into *Address
 * (HostAddressLen and HostAddress; DiscriminatorLen 0: the caller appends
 * its discriminator).  VIP_ERROR_NAMESERVICE: unknown name or index.
 */
VIP_RETURN VipNSGetHostByName(VIP_NIC_HANDLE NicHandle, VIP_CHAR *Name, VIP_NET_ADDRESS *Address,
			      VIP_ULONG NameIndex);

/*
 * VipNSGetHostByAddr: the name of the host of *Address (its discriminator
 * is ignored) into Name, NUL-terminated; *NameLen: in, the room in Name; out,
 * the length the name needs with its NUL.  VIP_ERROR_RESOURCE: Name too
 * small (*NameLen says how big); VIP_ERROR_NAMESERVICE: unknown address.
 */
VIP_RETURN VipNSGetHostByAddr(VIP_NIC_HANDLE NicHandle, VIP_NET_ADDRESS *Address, VIP_CHAR *Name,
			      VIP_ULONG *NameLen);

/* VipNSShutdown: stop the name service on the NIC. */
VIP_RETURN VipNSShutdown(VIP_NIC_HANDLE NicHandle);

/* ---- Protection tags ---- */

/* VipCreatePtag: a new protection tag of the NIC into *ProtectionTag. */
VIP_RETURN VipCreatePtag(VIP_NIC_HANDLE NicHandle, VIP_PROTECTION_HANDLE *ProtectionTag);

/* VipDestroyPtag: VIP_INVALID_STATE while a VI or a memory region still uses the tag. */
VIP_RETURN VipDestroyPtag(VIP_NIC_HANDLE NicHandle, VIP_PROTECTION_HANDLE ProtectionTag);

/* ---- Memory registration ---- */

/*
 * VipRegisterMem: register Length bytes at VirtualAddress with *MemAttributes
 * (the tag and the RDMA rights); *MemHandle receives the handle that data
 * segments and the Post calls name it by.  VIP_INVALID_PTAG: not a tag of
 * this NIC; VIP_ERROR_RESOURCE: beyond MaxRegisterBytes/Regions/BlockBytes.
 */
VIP_RETURN VipRegisterMem(VIP_NIC_HANDLE NicHandle, VIP_PVOID VirtualAddress, VIP_ULONG Length,
			  VIP_MEM_ATTRIBUTES *MemAttributes, VIP_MEM_HANDLE *MemHandle);

/* VipDeregisterMem: the region that VipRegisterMem returned MemHandle for, at VirtualAddress. */
VIP_RETURN VipDeregisterMem(VIP_NIC_HANDLE NicHandle, VIP_PVOID VirtualAddress,
			    VIP_MEM_HANDLE MemHandle);

/* VipQueryMem: the attributes of the region (VirtualAddress, MemHandle) into *MemAttributes. */
VIP_RETURN VipQueryMem(VIP_NIC_HANDLE NicHandle, VIP_PVOID VirtualAddress, VIP_MEM_HANDLE MemHandle,
		       VIP_MEM_ATTRIBUTES *MemAttributes);

/* VipSetMemAttributes: change the region's attributes to *MemAttributes. */
VIP_RETURN VipSetMemAttributes(VIP_NIC_HANDLE NicHandle, VIP_PVOID VirtualAddress,
			       VIP_MEM_HANDLE MemHandle, VIP_MEM_ATTRIBUTES *MemAttributes);

/* ---- Asynchronous errors ---- */

/*
 * VipErrorCallback: ErrorHandler(Context, error) runs, on a thread of the
 * provider, for each asynchronous error of the NIC and what was made on it
 * (a lost connection, a receive queue found empty, ...).  NULL restores the
 * default handler, which prints the error on stderr.  libcomm: the thread
 * is the one whose VIPL call found the error, once the call released the
 * NIC (the handler may call VIPL), or the provider thread of the Notify calls.
 */
VIP_RETURN VipErrorCallback(VIP_NIC_HANDLE NicHandle, VIP_PVOID Context,
			    VIP_ERROR_HANDLER ErrorHandler);

/* VipQuerySystemManagementInfo: InfoType VIP_SMI_AUTODISCOVERY fills a VIP_AUTODISCOVERY_LIST. */
VIP_RETURN VipQuerySystemManagementInfo(VIP_NIC_HANDLE NicHandle, VIP_ULONG InfoType,
					VIP_PVOID SysManInfo);

/* ---- Completion queues ---- */

/* VipCreateCQ: a completion queue of at least EntryCount entries into *CQHandle. */
VIP_RETURN VipCreateCQ(VIP_NIC_HANDLE NicHandle, VIP_ULONG EntryCount, VIP_CQ_HANDLE *CQHandle);

/* VipDestroyCQ: VIP_INVALID_STATE while a VI's work queue is still bound to it. */
VIP_RETURN VipDestroyCQ(VIP_CQ_HANDLE CQHandle);

/* VipResizeCQ: room for EntryCount entries; VIP_INVALID_PARAMETER below the entries it holds. */
VIP_RETURN VipResizeCQ(VIP_CQ_HANDLE CQHandle, VIP_ULONG EntryCount);

/*
 * VipCQDone: take the oldest entry: the VI (*ViHandle) and which of its work
 * queues (*RecvQueue: VIP_TRUE for the receive queue) has a completed
 * descriptor, which the caller then takes with VipRecvDone or VipSendDone.
 * VIP_NOT_DONE: the queue is empty.
 */
VIP_RETURN VipCQDone(VIP_CQ_HANDLE CQHandle, VIP_VI_HANDLE *ViHandle, VIP_BOOLEAN *RecvQueue);

/* VipCQWait: VipCQDone, waiting up to Timeout ms for an entry (VIP_TIMEOUT). */
VIP_RETURN VipCQWait(VIP_CQ_HANDLE CQHandle, VIP_ULONG Timeout, VIP_VI_HANDLE *ViHandle,
		     VIP_BOOLEAN *RecvQueue);

/* VipCQNotify: Handler(Context, nic, vi, recvq) runs once (provider thread) for the next entry. */
VIP_RETURN VipCQNotify(VIP_CQ_HANDLE CQHandle, VIP_PVOID Context, VIP_CQ_CALLBACK Handler);

/* ---- VIs ---- */

/*
 * VipCreateVi: a VI with *ViAttributes; its send and receive queues report
 * to SendCQHandle and RecvCQHandle (NULL: that queue has no CQ and completes
 * through VipSendWait/VipRecvWait, or the Done calls).  The VI starts Idle;
 * receives may be posted before it connects.
 */
VIP_RETURN VipCreateVi(VIP_NIC_HANDLE NicHandle, VIP_VI_ATTRIBUTES *ViAttributes,
		       VIP_CQ_HANDLE SendCQHandle, VIP_CQ_HANDLE RecvCQHandle, VIP_VI_HANDLE *ViHandle);

/* VipDestroyVi: VIP_INVALID_STATE unless the VI is Idle with both work queues empty. */
VIP_RETURN VipDestroyVi(VIP_VI_HANDLE ViHandle);

/* VipQueryVi: the VI's state, attributes and whether each work queue is empty. */
VIP_RETURN VipQueryVi(VIP_VI_HANDLE ViHandle, VIP_VI_STATE *State, VIP_VI_ATTRIBUTES *Attributes,
		      VIP_BOOLEAN *SendQueueEmpty, VIP_BOOLEAN *RecvQueueEmpty);

/* VipSetViAttributes: change the VI's attributes (VIP_INVALID_STATE for some, once connected). */
VIP_RETURN VipSetViAttributes(VIP_VI_HANDLE ViHandle, VIP_VI_ATTRIBUTES *Attributes);

/* ---- Connections: client-server ---- */

/*
 * VipConnectWait (server): wait up to Timeout ms for a connection request
 * to LocalAddr (this NIC's host address and a discriminator); the
 * requester's address goes to *RemoteAddr (room as for any address), its
 * VI's attributes to *RemoteViAttributes, and *ConnHandle names the
 * request for VipConnectAccept or VipConnectReject.
 */
VIP_RETURN VipConnectWait(VIP_NIC_HANDLE NicHandle, VIP_NET_ADDRESS *LocalAddr, VIP_ULONG Timeout,
			  VIP_NET_ADDRESS *RemoteAddr, VIP_VI_ATTRIBUTES *RemoteViAttributes,
			  VIP_CONN_HANDLE *ConnHandle);

/*
 * VipConnectAccept (server): connect the Idle VI ViHandle to the requester.
 * VIP_INVALID_RELIABILITY_LEVEL, VIP_INVALID_MTU, VIP_INVALID_QOS: the two
 * VIs' attributes do not match.
 */
VIP_RETURN VipConnectAccept(VIP_CONN_HANDLE ConnHandle, VIP_VI_HANDLE ViHandle);

/* VipConnectReject (server): refuse the request (the requester's VipConnectRequest: VIP_REJECT). */
VIP_RETURN VipConnectReject(VIP_CONN_HANDLE ConnHandle);

/*
 * VipConnectRequest (client): ask the server at RemoteAddr (its host address
 * and the discriminator it waits on) to connect the Idle VI ViHandle, from
 * LocalAddr; waits up to Timeout ms.  The server VI's attributes go to
 * *RemoteViAttributes.  VIP_REJECT, VIP_TIMEOUT, VIP_NO_MATCH (nobody waits
 * there), VIP_NOT_REACHABLE.  libcomm: a request waits at the server until
 * a VipConnectWait on its discriminator takes it, so an address nobody
 * serves within Timeout gives VIP_TIMEOUT; VIP_NO_MATCH is not returned.
 */
VIP_RETURN VipConnectRequest(VIP_VI_HANDLE ViHandle, VIP_NET_ADDRESS *LocalAddr,
			     VIP_NET_ADDRESS *RemoteAddr, VIP_ULONG Timeout,
			     VIP_VI_ATTRIBUTES *RemoteViAttributes);

/*
 * VipDisconnect: the VI goes Idle; its posted descriptors complete with
 * VIP_STATUS_DESC_FLUSHED_ERROR (and reach its CQs) and are then taken with
 * the Done calls.  The peer VI (reliable levels) goes to the Error state and
 * its NIC reports VIP_ERROR_CONN_LOST to the error handler.
 */
VIP_RETURN VipDisconnect(VIP_VI_HANDLE ViHandle);

/* ---- Connections: peer to peer ---- */

/* VipConnectPeerRequest: both ends call it, each naming the other; it returns at once. */
VIP_RETURN VipConnectPeerRequest(VIP_VI_HANDLE ViHandle, VIP_NET_ADDRESS *LocalAddr,
				 VIP_NET_ADDRESS *RemoteAddr, VIP_ULONG Timeout);

/* VipConnectPeerDone: VIP_SUCCESS once connected (*RemoteAttributes filled), or VIP_NOT_DONE. */
VIP_RETURN VipConnectPeerDone(VIP_VI_HANDLE ViHandle, VIP_VI_ATTRIBUTES *RemoteAttributes);

/* VipConnectPeerWait: wait for VipConnectPeerRequest's outcome (its Timeout applies). */
VIP_RETURN VipConnectPeerWait(VIP_VI_HANDLE ViHandle, VIP_VI_ATTRIBUTES *RemoteViAttributes);

/* ---- Data transfer ---- */

/*
 * VipPostSend: append the descriptor at DescriptorPtr (aligned to
 * VIP_DESCRIPTOR_ALIGNMENT, in the registered region MemoryHandle) to the
 * VI's send queue: a send (data segments: the gather list), an RDMA write
 * or read (one address segment, then the data segments).  The descriptor
 * is the provider's until a Done or Wait call returns it.  Descriptors of a
 * queue complete in the order they were posted; a malformed one completes
 * with VIP_STATUS_FORMAT_ERROR.  VIP_INVALID_PARAMETER: a bad handle, or a
 * descriptor not aligned; VIP_INVALID_STATE: the VI is in the Error state.
 */
VIP_RETURN VipPostSend(VIP_VI_HANDLE ViHandle, VIP_DESCRIPTOR *DescriptorPtr,
		       VIP_MEM_HANDLE MemoryHandle);

/*
 * VipPostRecv: append a receive descriptor (data segments: the scatter list)
 * to the VI's receive queue; allowed in the Idle state, before connecting.
 * A send, or an RDMA write with immediate data, arriving on a reliable VI
 * whose receive queue is empty breaks the connection.
 */
VIP_RETURN VipPostRecv(VIP_VI_HANDLE ViHandle, VIP_DESCRIPTOR *DescriptorPtr,
		       VIP_MEM_HANDLE MemoryHandle);

/*
 * VipSendDone, VipRecvDone: take the oldest descriptor of the queue if it
 * has completed, into *DescriptorPtr: VIP_SUCCESS when it completed without
 * error, VIP_DESCRIPTOR_ERROR when its Status has an error bit (flushed by
 * VipDisconnect, for one); VIP_NOT_DONE (*DescriptorPtr NULL): none has.
 */
VIP_RETURN VipSendDone(VIP_VI_HANDLE ViHandle, VIP_DESCRIPTOR **DescriptorPtr);
VIP_RETURN VipRecvDone(VIP_VI_HANDLE ViHandle, VIP_DESCRIPTOR **DescriptorPtr);

/*
 * VipSendWait, VipRecvWait: the Done call, waiting up to TimeOut ms
 * (VIP_TIMEOUT).  A queue bound to a CQ is waited for on the CQ (VipCQWait,
 * then the Done call): these calls refuse it (VIP_INVALID_STATE).
 */
VIP_RETURN VipSendWait(VIP_VI_HANDLE ViHandle, VIP_ULONG TimeOut, VIP_DESCRIPTOR **DescriptorPtr);
VIP_RETURN VipRecvWait(VIP_VI_HANDLE ViHandle, VIP_ULONG TimeOut, VIP_DESCRIPTOR **DescriptorPtr);

/*
 * VipSendNotify, VipRecvNotify: Callback(Context, nic, vi, descriptor) runs
 * once, on a provider thread, with the queue's next completed descriptor
 * (taken off the queue).  Not for a queue bound to a CQ (VIP_INVALID_STATE).
 */
VIP_RETURN VipSendNotify(VIP_VI_HANDLE ViHandle, VIP_PVOID Context, VIP_VI_CALLBACK Callback);
VIP_RETURN VipRecvNotify(VIP_VI_HANDLE ViHandle, VIP_PVOID Context, VIP_VI_CALLBACK Callback);

#ifdef __cplusplus
}
#endif
#endif /* VIPL_H */
