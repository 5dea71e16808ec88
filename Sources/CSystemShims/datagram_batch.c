#define _GNU_SOURCE
#include "CSystemShims.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

int switchyard_enable_receive_timestamps(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}

/* When the kernel took a datagram in, from its SO_TIMESTAMPNS stamp, in wall-clock nanoseconds; 0
 * without one. */
static unsigned long long received_at(struct msghdr *header) {
    for (struct cmsghdr *control = CMSG_FIRSTHDR(header); control != NULL; control = CMSG_NXTHDR(header, control)) {
        if (control->cmsg_level != SOL_SOCKET || control->cmsg_type != SCM_TIMESTAMPNS) {
            continue;
        }
        struct timespec stamp;
        memcpy(&stamp, CMSG_DATA(control), sizeof stamp);
        return (unsigned long long)stamp.tv_sec * 1000000000ULL + (unsigned long long)stamp.tv_nsec;
    }
    return 0;
}

int switchyard_recv_batch(int socket_fd, switchyard_datagram_slot *slots, unsigned int count) {
    if (count > SWITCHYARD_MAX_BATCH) {
        count = SWITCHYARD_MAX_BATCH;
    }
    struct mmsghdr headers[SWITCHYARD_MAX_BATCH];
    struct iovec vectors[SWITCHYARD_MAX_BATCH];
    union {
        char bytes[CMSG_SPACE(sizeof(struct timespec))];
        struct cmsghdr align;
    } controls[SWITCHYARD_MAX_BATCH];
    memset(headers, 0, sizeof(struct mmsghdr) * count);
    for (unsigned int i = 0; i < count; i++) {
        vectors[i].iov_base = slots[i].buffer;
        vectors[i].iov_len = slots[i].capacity;
        headers[i].msg_hdr.msg_iov = &vectors[i];
        headers[i].msg_hdr.msg_iovlen = 1;
        headers[i].msg_hdr.msg_name = &slots[i].address;
        headers[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_storage);
        headers[i].msg_hdr.msg_control = controls[i].bytes;
        headers[i].msg_hdr.msg_controllen = sizeof controls[i].bytes;
    }
    int received = recvmmsg(socket_fd, headers, count, MSG_DONTWAIT, NULL);
    for (int i = 0; i < received; i++) {
        slots[i].length = headers[i].msg_len;
        slots[i].address_length = headers[i].msg_hdr.msg_namelen;
        slots[i].received_nanoseconds = received_at(&headers[i].msg_hdr);
    }
    return received;
}

/* Whether slot `b` can ride in the same segmented send as slot `a`: same destination. */
static int same_destination(const switchyard_datagram_slot *a, const switchyard_datagram_slot *b) {
    return a->address_length == b->address_length && memcmp(&a->address, &b->address, a->address_length) == 0;
}

/* Sends the slots, one message per datagram or, with `segment` set, one per run of equal-sized
 * datagrams to one destination (UDP_SEGMENT). Returns how many slots went out, or -1 with errno set
 * when none did and segmentation was not what the kernel refused. */
static int send_runs(int socket_fd, switchyard_datagram_slot *slots, unsigned int count, int segment_runs,
                     int *segmentation_refused) {
    if (count > SWITCHYARD_MAX_BATCH) {
        count = SWITCHYARD_MAX_BATCH;
    }
    *segmentation_refused = 0;
    struct mmsghdr headers[SWITCHYARD_MAX_BATCH];
    struct iovec vectors[SWITCHYARD_MAX_BATCH];
    /* Where each message's slots start, and one control buffer per message for its UDP_SEGMENT. */
    unsigned int first_slot[SWITCHYARD_MAX_BATCH + 1];
    union {
        char bytes[CMSG_SPACE(sizeof(uint16_t))];
        struct cmsghdr align;
    } controls[SWITCHYARD_MAX_BATCH];
    unsigned int messages = 0;
    memset(headers, 0, sizeof(struct mmsghdr) * count);
    for (unsigned int start = 0; start < count; messages++) {
        size_t segment = slots[start].length;
        size_t total = segment;
        unsigned int end = start + 1;
        /* Equal segments to one destination, the last one possibly shorter (UDP_SEGMENT's rule). */
        while (segment_runs && end < count && segment <= SWITCHYARD_MAX_SEGMENT_BYTES &&
               end - start < SWITCHYARD_MAX_SEGMENTS && same_destination(&slots[start], &slots[end]) &&
               slots[end - 1].length == segment && slots[end].length <= segment &&
               total + slots[end].length <= SWITCHYARD_MAX_SEGMENTED_BYTES) {
            total += slots[end].length;
            end++;
        }
        for (unsigned int i = start; i < end; i++) {
            vectors[i].iov_base = slots[i].buffer;
            vectors[i].iov_len = slots[i].length;
        }
        struct msghdr *header = &headers[messages].msg_hdr;
        header->msg_iov = &vectors[start];
        header->msg_iovlen = end - start;
        header->msg_name = &slots[start].address;
        header->msg_namelen = slots[start].address_length;
        if (end - start > 1) {
            header->msg_control = controls[messages].bytes;
            header->msg_controllen = sizeof controls[messages].bytes;
            struct cmsghdr *control = CMSG_FIRSTHDR(header);
            control->cmsg_level = SOL_UDP;
            control->cmsg_type = UDP_SEGMENT;
            control->cmsg_len = CMSG_LEN(sizeof(uint16_t));
            uint16_t segment_size = (uint16_t)segment;
            memcpy(CMSG_DATA(control), &segment_size, sizeof segment_size);
        }
        first_slot[messages] = start;
        start = end;
    }
    first_slot[messages] = count;
    unsigned int sent = 0;
    while (sent < messages) {
        int result = sendmmsg(socket_fd, headers + sent, messages - sent, MSG_DONTWAIT);
        if (result > 0) {
            sent += (unsigned int)result;
            continue;
        }
        /* A device without checksum offload (EIO) or a kernel without UDP_SEGMENT (EINVAL,
         * ENOPROTOOPT) refuses segmentation; the caller sends the rest one datagram at a time. */
        if (result < 0 && headers[sent].msg_hdr.msg_controllen != 0 &&
            (errno == EIO || errno == EINVAL || errno == ENOPROTOOPT)) {
            *segmentation_refused = 1;
        }
        break;
    }
    if (sent == 0 && messages > 0 && !*segmentation_refused) {
        return -1;
    }
    return (int)first_slot[sent];
}

int switchyard_send_batch(int socket_fd, switchyard_datagram_slot *slots, unsigned int count) {
    int unused;
    return send_runs(socket_fd, slots, count, 0, &unused);
}

int switchyard_send_batch_segmented(int socket_fd, switchyard_datagram_slot *slots, unsigned int count,
                                    int *segmentation_refused) {
    return send_runs(socket_fd, slots, count, 1, segmentation_refused);
}
