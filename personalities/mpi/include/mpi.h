/* SPDX-License-Identifier: MIT */
/* mpi.h: the MPI-1 subset of the MPI personality over libcomm (names, types, constants of the standard). */
#ifndef MPI_H
#define MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A subset of MPI-1 (with the const-correct C prototypes of MPI-3): the
 * calls declared below exist, every other MPI call is absent (a program
 * that uses one fails to link: never a stub).  MPI_VERSION says 1.3.
 *
 * Mapping on libcomm: a rank of MPI_COMM_WORLD is a node; a message's
 * libcomm match word is (context id << 32 | tag), each communicator having
 * two context ids (point-to-point, collectives), so communicators, tags and
 * collectives never match each other's messages; MPI_ANY_TAG masks the tag
 * half out.  Errors: MPI_ERRORS_ARE_FATAL by default (the error string on
 * stderr, exit status 1: commrun reports the node failed), MPI_ERRORS_RETURN
 * with MPI_Comm_set_errhandler.
 */
#define MPI_VERSION 1
#define MPI_SUBVERSION 3

/* Handles: small integers, except requests. */
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Info;
typedef int MPI_Errhandler;
typedef struct lcmpi_request *MPI_Request;
typedef ptrdiff_t MPI_Aint;

typedef struct MPI_Status {
	int MPI_SOURCE;
	int MPI_TAG;
	int MPI_ERROR;
	int lc_cancelled;       /* private: MPI_Test_cancelled */
	size_t lc_count;        /* private: bytes (the true size, also when truncated) */
} MPI_Status;

#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)1)
#define MPI_COMM_SELF ((MPI_Comm)2)

/* Predefined datatypes (datatype.c: the table indexed by these values). */
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_CHAR ((MPI_Datatype)1)
#define MPI_SIGNED_CHAR ((MPI_Datatype)2)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)3)
#define MPI_BYTE ((MPI_Datatype)4)
#define MPI_SHORT ((MPI_Datatype)5)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)6)
#define MPI_INT ((MPI_Datatype)7)
#define MPI_UNSIGNED ((MPI_Datatype)8)
#define MPI_LONG ((MPI_Datatype)9)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)10)
#define MPI_LONG_LONG ((MPI_Datatype)11)
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)12)
#define MPI_FLOAT ((MPI_Datatype)13)
#define MPI_DOUBLE ((MPI_Datatype)14)
#define MPI_LONG_DOUBLE ((MPI_Datatype)15)
#define MPI_LONG_LONG_INT MPI_LONG_LONG

/* Predefined reduction operations (datatype.c). */
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_SUM ((MPI_Op)1)
#define MPI_PROD ((MPI_Op)2)
#define MPI_MIN ((MPI_Op)3)
#define MPI_MAX ((MPI_Op)4)

#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)1)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)2)
#define MPI_REQUEST_NULL ((MPI_Request)0)

#define MPI_PROC_NULL (-1)
#define MPI_ANY_SOURCE (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_TAG_UB_VALUE 0x7fffffff     /* tags are 0 .. this (no attribute calls: a constant) */

#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_IN_PLACE ((void *)-1)

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 256

/*
 * Error classes (codes are classes).  Columns: name, value, text
 * (MPI_Error_string).  MPI_SUCCESS first; MPI_ERR_LASTCODE after the last.
 */
#define LCMPI_ERROR_LIST(X)                                                     \
	X(MPI_SUCCESS,       0,  "no error")                                    \
	X(MPI_ERR_BUFFER,    1,  "invalid buffer pointer")                      \
	X(MPI_ERR_COUNT,     2,  "invalid count argument")                      \
	X(MPI_ERR_TYPE,      3,  "invalid datatype")                            \
	X(MPI_ERR_TAG,       4,  "invalid tag")                                 \
	X(MPI_ERR_COMM,      5,  "invalid communicator")                        \
	X(MPI_ERR_RANK,      6,  "invalid rank")                                \
	X(MPI_ERR_REQUEST,   7,  "invalid request")                             \
	X(MPI_ERR_ROOT,      8,  "invalid root")                                \
	X(MPI_ERR_GROUP,     9,  "invalid group")                               \
	X(MPI_ERR_OP,        10, "invalid reduction operation")                 \
	X(MPI_ERR_TOPOLOGY,  11, "invalid topology")                            \
	X(MPI_ERR_DIMS,      12, "invalid dimension argument")                  \
	X(MPI_ERR_ARG,       13, "invalid argument")                            \
	X(MPI_ERR_UNKNOWN,   14, "unknown error")                               \
	X(MPI_ERR_TRUNCATE,  15, "message truncated on receive")                \
	X(MPI_ERR_OTHER,     16, "other error (peer failed, message lost, no resource)") \
	X(MPI_ERR_INTERN,    17, "internal error")                              \
	X(MPI_ERR_IN_STATUS, 18, "error code is in status")                     \
	X(MPI_ERR_PENDING,   19, "pending request")                             \
	X(MPI_ERR_NO_MEM,    20, "out of memory (MPI_Alloc_mem)")

enum {
#define LCMPI_X_ERR(name, value, ...) name = value,
	LCMPI_ERROR_LIST(LCMPI_X_ERR)
#undef LCMPI_X_ERR
	MPI_ERR_LASTCODE
};

/* Environment (init.c). */
int MPI_Init(int *argc, char ***argv);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int MPI_Initialized(int *flag);
int MPI_Finalize(void);
int MPI_Finalized(int *flag);
int MPI_Abort(MPI_Comm comm, int errorcode);
int MPI_Query_thread(int *provided);
int MPI_Get_processor_name(char *name, int *resultlen);
int MPI_Get_version(int *version, int *subversion);
double MPI_Wtime(void);
double MPI_Wtick(void);
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int MPI_Free_mem(void *base);

/* Errors (errors.c). */
int MPI_Error_string(int errorcode, char *string, int *resultlen);
int MPI_Error_class(int errorcode, int *errorclass);
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);

/* Communicators (comm.c). */
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int MPI_Comm_free(MPI_Comm *comm);

/* Datatypes (datatype.c). */
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
int MPI_Type_size(MPI_Datatype datatype, int *size);

/* Point-to-point (send.c, recv.c, probe.c). */
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
	     MPI_Status *status);
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
		 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
		 MPI_Comm comm, MPI_Status *status);
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
	      MPI_Request *request);
int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
	       MPI_Request *request);
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
	      MPI_Request *request);
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);

/* Requests (request.c). */
int MPI_Wait(MPI_Request *request, MPI_Status *status);
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);
int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
		MPI_Status array_of_statuses[]);
int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status);
int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
		MPI_Status *status);
int MPI_Cancel(MPI_Request *request);
int MPI_Test_cancelled(const MPI_Status *status, int *flag);
int MPI_Request_free(MPI_Request *request);

/* Collectives (coll.c). */
int MPI_Barrier(MPI_Comm comm);
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	       int root, MPI_Comm comm);
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
		  MPI_Comm comm);
int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
	       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, MPI_Comm comm);

#ifdef __cplusplus
}
#endif
#endif /* MPI_H */
