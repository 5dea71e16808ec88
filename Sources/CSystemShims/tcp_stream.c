#define _GNU_SOURCE
#include "CSystemShims.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

int switchyard_tcp_accept(int listen_fd, struct sockaddr_in *peer, int send_buffer_bytes) {
    socklen_t length = sizeof(*peer);
    int fd = accept4(listen_fd, (struct sockaddr *)peer, &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    int on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
    if (send_buffer_bytes > 0) {
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &send_buffer_bytes, sizeof(send_buffer_bytes));
    }
    return fd;
}

long switchyard_tcp_send(int fd, const void *bytes, unsigned long count) {
    return send(fd, bytes, count, MSG_DONTWAIT | MSG_NOSIGNAL);
}
