#ifndef SWITCHYARD_CSYSTEMSHIMS_H
#define SWITCHYARD_CSYSTEMSHIMS_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

/* Batched datagram I/O. Glibc declares recvmmsg / sendmmsg and struct mmsghdr only under _GNU_SOURCE,
 * which Swift's Glibc module does not define, so the media plane reaches them through these
 * wrappers. Each slot is described by parallel arrays so Swift never has to spell struct mmsghdr. */

/// One datagram slot of a batch: a buffer, its capacity and, after a receive, its length and source.
typedef struct switchyard_datagram_slot {
    void *buffer;
    size_t capacity;
    size_t length;
    struct sockaddr_storage address;
    socklen_t address_length;
} switchyard_datagram_slot;

/// Receives up to `count` datagrams without blocking. Returns the number received, or -1 with errno set.
int switchyard_recv_batch(int socket_fd, switchyard_datagram_slot *slots, unsigned int count);

/// Sends `count` datagrams (each slot's `length` bytes to its `address`). Returns the number sent, or -1
/// with errno set.
int switchyard_send_batch(int socket_fd, switchyard_datagram_slot *slots, unsigned int count);

/// The most datagrams one batch call handles; callers size their slot arrays to at most this.
#define SWITCHYARD_MAX_BATCH 64

#endif
