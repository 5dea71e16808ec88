#define _GNU_SOURCE
#include "CSystemShims.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>

int switchyard_recv_batch(int socket_fd, switchyard_datagram_slot *slots, unsigned int count) {
    if (count > SWITCHYARD_MAX_BATCH) {
        count = SWITCHYARD_MAX_BATCH;
    }
    struct mmsghdr headers[SWITCHYARD_MAX_BATCH];
    struct iovec vectors[SWITCHYARD_MAX_BATCH];
    memset(headers, 0, sizeof(struct mmsghdr) * count);
    for (unsigned int i = 0; i < count; i++) {
        vectors[i].iov_base = slots[i].buffer;
        vectors[i].iov_len = slots[i].capacity;
        headers[i].msg_hdr.msg_iov = &vectors[i];
        headers[i].msg_hdr.msg_iovlen = 1;
        headers[i].msg_hdr.msg_name = &slots[i].address;
        headers[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_storage);
    }
    int received = recvmmsg(socket_fd, headers, count, MSG_DONTWAIT, NULL);
    for (int i = 0; i < received; i++) {
        slots[i].length = headers[i].msg_len;
        slots[i].address_length = headers[i].msg_hdr.msg_namelen;
    }
    return received;
}

int switchyard_send_batch(int socket_fd, switchyard_datagram_slot *slots, unsigned int count) {
    if (count > SWITCHYARD_MAX_BATCH) {
        count = SWITCHYARD_MAX_BATCH;
    }
    struct mmsghdr headers[SWITCHYARD_MAX_BATCH];
    struct iovec vectors[SWITCHYARD_MAX_BATCH];
    memset(headers, 0, sizeof(struct mmsghdr) * count);
    for (unsigned int i = 0; i < count; i++) {
        vectors[i].iov_base = slots[i].buffer;
        vectors[i].iov_len = slots[i].length;
        headers[i].msg_hdr.msg_iov = &vectors[i];
        headers[i].msg_hdr.msg_iovlen = 1;
        headers[i].msg_hdr.msg_name = &slots[i].address;
        headers[i].msg_hdr.msg_namelen = slots[i].address_length;
    }
    return sendmmsg(socket_fd, headers, count, MSG_DONTWAIT);
}
