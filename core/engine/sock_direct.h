/* Sockets made by the ring: IORING_OP_SOCKET straight into a slot of the
 * registered file table, and setsockopt as a socket uring command
 * (SOCKET_URING_OP_SETSOCKOPT, kernel 6.7). A TCP connection then costs
 * no socket(), setsockopt() or file-table update system call of its own:
 * socket, options and connect go to the kernel as one linked chain with
 * the rest of a pass's submissions, and the socket never has a descriptor
 * (it is held in the table only, as with ring_only_fds). Under connection
 * churn those calls are a few percent of the client's CPU per connection.
 *
 * liburing 2.3 has the socket helper but not the command's fields: they
 * are written at the kernel's sqe layout here. */
#ifndef SHB_CORE_SOCK_DIRECT_H
#define SHB_CORE_SOCK_DIRECT_H

#include <liburing.h>

/* [worker] A setsockopt of an int option on the socket in fixed-file slot
 * `slot`. `val` is read when the command runs (possibly after the
 * submit): it must stay valid until its completion. */
void shb_prep_setsockopt_int(struct io_uring_sqe *sqe, unsigned slot,
			     int level, int optname, const int *val);

/* [worker] Whether this kernel makes a TCP socket of `family` into a file
 * slot and sets SO_TIMESTAMPNS and TCP_NODELAY on it through the ring:
 * tried once in `slot` (which must be free; it is free again after).
 * Submits and waits on `ring`: call before any connection (the
 * completions of anything queued before are dropped). Entries already
 * queued are submitted first, a bounded number of times; 0 if they stay. 1 or 0. */
int shb_sock_direct_probe(struct io_uring *ring, int family, unsigned slot);

#endif
