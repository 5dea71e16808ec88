#include "CSystemShims.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>

int switchyard_poller_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int switchyard_poller_add(int poller_fd, int fd, unsigned long long token) {
    struct epoll_event event = {.events = EPOLLIN, .data.u64 = token};
    return epoll_ctl(poller_fd, EPOLL_CTL_ADD, fd, &event);
}

int switchyard_poller_remove(int poller_fd, int fd) {
    struct epoll_event unused = {0};
    return epoll_ctl(poller_fd, EPOLL_CTL_DEL, fd, &unused);
}

int switchyard_poller_wait(int poller_fd, unsigned long long *tokens, int capacity, int timeout_ms) {
    struct epoll_event events[256];
    if (capacity > 256) {
        capacity = 256;
    }
    int ready = epoll_wait(poller_fd, events, capacity, timeout_ms);
    for (int i = 0; i < ready; i++) {
        tokens[i] = events[i].data.u64;
    }
    return ready;
}

int switchyard_wake_create(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int switchyard_wake_signal(int wake_fd) { return eventfd_write(wake_fd, 1); }

int switchyard_wake_clear(int wake_fd) {
    eventfd_t count;
    return eventfd_read(wake_fd, &count);
}

int switchyard_poller_set_writable_interest(int poller_fd, int fd, unsigned long long token, int wants_writable) {
    struct epoll_event event = {.events = EPOLLIN | (wants_writable ? EPOLLOUT : 0), .data.u64 = token};
    return epoll_ctl(poller_fd, EPOLL_CTL_MOD, fd, &event);
}
