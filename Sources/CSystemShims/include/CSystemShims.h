#ifndef SWITCHYARD_CSYSTEMSHIMS_H
#define SWITCHYARD_CSYSTEMSHIMS_H

#include <stddef.h>
#include <netinet/in.h>
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
    /// After a receive on a socket with receive timestamps on: when the kernel took the datagram in,
    /// in nanoseconds of the wall clock (CLOCK_REALTIME); 0 when it gave no timestamp.
    unsigned long long received_nanoseconds;
} switchyard_datagram_slot;

/// Receives up to `count` datagrams without blocking. Returns the number received, or -1 with errno set.
int switchyard_recv_batch(int socket_fd, switchyard_datagram_slot *slots, unsigned int count);

/// Asks the kernel to stamp each datagram `fd` receives (SO_TIMESTAMPNS), so a receive can tell how
/// long it has waited. 0, or -1 with errno set.
int switchyard_enable_receive_timestamps(int fd);

/// Sends `count` datagrams (each slot's `length` bytes to its `address`), in as many `sendmmsg` calls
/// as the kernel needs. Returns how many of the slots went out (the first ones), or -1 with errno set
/// when none did.
int switchyard_send_batch(int socket_fd, switchyard_datagram_slot *slots, unsigned int count);

/// Sends `count` datagrams like `switchyard_send_batch`, but hands each run of equal-sized datagrams
/// to one destination (the last may be shorter) to the kernel as one UDP_SEGMENT (GSO) send: the
/// stack is walked once per run instead of once per datagram, and the receiver still gets separate
/// datagrams. Returns how many of the slots went out (the first ones), or -1 with errno set when none
/// did. Sets `*segmentation_refused` when the kernel or device refused segmentation; the caller then
/// sends the rest with `switchyard_send_batch`.
int switchyard_send_batch_segmented(int socket_fd, switchyard_datagram_slot *slots, unsigned int count,
                                    int *segmentation_refused);

/// The most datagrams, and bytes, one segmented send carries (the kernel's UDP_MAX_SEGMENTS, and
/// what fits one UDP datagram), and the largest datagram sent segmented: the kernel refuses a segment
/// that would not fit the path's MTU with its headers, and a refusal turns segmentation off, so
/// datagrams too large for a 1500-byte Ethernet frame with room for a tunnel go out singly.
#define SWITCHYARD_MAX_SEGMENTS 64
#define SWITCHYARD_MAX_SEGMENTED_BYTES 65000
#define SWITCHYARD_MAX_SEGMENT_BYTES 1400

/// The most datagrams one batch call handles; callers size their slot arrays to at most this.
#define SWITCHYARD_MAX_BATCH 64

/* Readiness polling for many sockets on one thread. struct epoll_event is packed on x86-64, which
 * Swift does not import faithfully, so callers see only file descriptors and 64-bit tokens. */

/// A new epoll instance (close-on-exec), or -1 with errno set.
int switchyard_poller_create(void);

/// Watches `fd` for readability; `token` comes back from `switchyard_poller_wait`. 0, or -1 with errno.
int switchyard_poller_add(int poller_fd, int fd, unsigned long long token);

/// Stops watching `fd`. 0, or -1 with errno.
int switchyard_poller_remove(int poller_fd, int fd);

/// Watches `fd` (already added) for readability and, when `wants_writable`, writability too: a TCP
/// socket whose send buffer filled asks to hear when it drains. 0, or -1 with errno.
int switchyard_poller_set_writable_interest(int poller_fd, int fd, unsigned long long token, int wants_writable);

/// Waits up to `timeout_ms` (-1: forever) and writes the tokens of up to `capacity` readable
/// descriptors. Returns their count, 0 on timeout, or -1 with errno set (EINTR included).
int switchyard_poller_wait(int poller_fd, unsigned long long *tokens, int capacity, int timeout_ms);

/* TCP for ICE-TCP (RFC 6544): accept4 and MSG_NOSIGNAL need _GNU_SOURCE, which Swift's Glibc does
 * not define. */

/// Accepts one connection from a non-blocking listening socket as a non-blocking, close-on-exec
/// socket with Nagle off (media must not wait for a full segment) and, when `send_buffer_bytes` > 0,
/// that send buffer. Writes the peer's address. The descriptor, or -1 with errno set (EAGAIN when
/// none waits).
int switchyard_tcp_accept(int listen_fd, struct sockaddr_in *peer, int send_buffer_bytes);

/// Sends without blocking and without SIGPIPE on a reset connection. Bytes taken, or -1 with errno.
long switchyard_tcp_send(int fd, const void *bytes, unsigned long count);

/* A wake-up descriptor for a poll loop (an eventfd; Swift's Glibc module does not import
 * <sys/eventfd.h>): other threads signal it, the loop sees it readable and clears it. */

/// A new non-blocking, close-on-exec eventfd, or -1 with errno set.
int switchyard_wake_create(void);

/// Makes the descriptor readable. 0, or -1 with errno set.
int switchyard_wake_signal(int wake_fd);

/// Makes the descriptor unreadable again. 0, or -1 with errno set (EAGAIN when it was not signalled).
int switchyard_wake_clear(int wake_fd);

/* Names the calling thread (at most 15 characters are kept), as `top -H` and `perf` show it;
 * pthread_setname_np is declared only under _GNU_SOURCE. 0, or an error number. */
int switchyard_name_current_thread(const char *name);

/* Raises the soft limit on open files to the hard limit. A server with a socket per client (and a
 * load tester with a thousand clients) outgrows the usual soft limit of 1024 long before the hard
 * one. Returns the new soft limit, or -1 with errno set. */
long long switchyard_raise_open_file_limit(void);

/* Caps glibc's malloc arenas at `arenas`, unless the MALLOC_ARENA_MAX environment variable already
 * chose. Returns 1 when the cap was set, 0 when the environment chose or glibc refused. */
int switchyard_limit_malloc_arenas(int arenas);

/* Returns to the system the free memory glibc's malloc holds in every arena (malloc_trim(0)),
 * pages in the middle of a heap included. Blocks the calling thread while it walks the heaps.
 * Returns 1 when memory was released, 0 when there was none to release. */
int switchyard_return_free_memory(void);

/* The process's resident anonymous memory (/proc/self/statm) less what malloc has handed out and
 * not had back (mallinfo2: in use in every arena, and mmapped chunks): freed memory glibc keeps
 * resident, plus a rest that does not move (thread stacks, static data). Its growth is what a
 * malloc_trim could give back. Returns -1 when /proc/self/statm cannot be read. */
long long switchyard_freed_resident_bytes(void);

#endif
