/* SPDX-License-Identifier: MIT */
/* The libcomm error codes: the one list, shared by nic/ and the public API (framework/comm.h). */
#ifndef LC_ERRORS_H
#define LC_ERRORS_H

/*
 * Control-path calls return 0 or one of these negative codes and leave a
 * message with the detail.  Columns: name, value, one line of meaning.
 */
#define LC_ERROR_LIST(X)                                                      \
	X(LC_OK,            0,  "success")                                    \
	X(LC_ERR_INVAL,    -1,  "invalid argument")                           \
	X(LC_ERR_RANGE,    -2,  "node id out of range")                       \
	X(LC_ERR_TRUNC,    -3,  "receive buffer too small for the message")   \
	X(LC_ERR_CLOSED,   -4,  "node is not open")                           \
	X(LC_ERR_PEER_DEAD,-5,  "peer node died or stopped answering")        \
	X(LC_ERR_TIMEOUT,  -6,  "operation timed out")                        \
	X(LC_ERR_NOMEM,    -7,  "out of memory")                              \
	X(LC_ERR_AGAIN,    -8,  "no resource now (ring full): try again")     \
	X(LC_ERR_CONFIG,   -9,  "job segment was made for another config")    \
	X(LC_ERR_SYS,      -10, "system call failed")                         \
	X(LC_ERR_BUSY,     -11, "already in use")                             \
	X(LC_ERR_TOOBIG,   -12, "message larger than LC_MAX_MSG")             \
	X(LC_ERR_LOST,     -13, "message lost or damaged in the network")     \
	X(LC_ERR_CANCELED, -14, "request cancelled (lc_cancel)")                \
	X(LC_ERR_ACCESS,   -15, "remote memory access refused (handle, rights, tag or bounds)")

enum lc_err {
#define LC_X_ENUM(name, value, ...) name = (value),
	LC_ERROR_LIST(LC_X_ENUM)
#undef LC_X_ENUM
};

#endif /* LC_ERRORS_H */
