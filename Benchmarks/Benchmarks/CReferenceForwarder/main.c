// The minimal C forwarder the Swift media plane is compared against, run on the same machine under the
// same load as ForwardingBenchmark: one forwarding thread doing recvmmsg, srtp_unprotect, and for each
// of 20 subscribers a copy, an SSRC / sequence-number rewrite and srtp_protect, then one sendmmsg per
// subscriber socket. Nothing else: no RTP parsing, statistics, retransmission buffer, RTCP or timers.
// The publisher and receiver threads are ForwardingBenchmark's: pre-protected 1200-byte packets in
// bursts of 5 at a fixed rate, and 20 non-blocking sockets drained after poll.
//
// Prints `c_reference_forward <profile> subscribers=20 forwarded_pps_per_cpu_second=<N>`, where the
// CPU is the forwarding thread's own (CLOCK_THREAD_CPUTIME_ID over the window).
//
// Usage: CReferenceForwarder [--window <seconds>] [--only <profile>]
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <srtp2/srtp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { subscriber_count = 20, batch = 64, packet_stride = 1280, rtp_bytes = 1200, packets_per_burst = 5 };

typedef struct {
    const char *name;
    int gcm;
    int packets_per_second;
} profile_case;

static int use_gcm;
static int packets_per_second, packet_count;
static uint8_t *packets;
static int *lengths;
static int publisher_socket, router_socket, subscriber_out[subscriber_count], subscriber_in[subscriber_count];
static struct sockaddr_in subscriber_address[subscriber_count];
static srtp_t inbound_session, outbound_session[subscriber_count];
static atomic_int stop_requested, receiver_stop_requested, threads_started;
static atomic_long forwarded, received;
static clockid_t forwarder_clock;

static uint64_t nanoseconds(clockid_t clock) {
    struct timespec time;
    clock_gettime(clock, &time);
    return (uint64_t)time.tv_sec * 1000000000ull + (uint64_t)time.tv_nsec;
}

static struct sockaddr_in loopback(uint16_t port) {
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    address.sin_addr.s_addr = htonl(0x7f000001);
    return address;
}

static int loopback_socket(uint16_t *port) {
    int descriptor = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    int size = 4 << 20;
    setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    struct sockaddr_in address = loopback(0);
    if (bind(descriptor, (struct sockaddr *)&address, sizeof address) != 0) { perror("bind"); exit(1); }
    socklen_t length = sizeof address;
    getsockname(descriptor, (struct sockaddr *)&address, &length);
    if (port) *port = ntohs(address.sin_port);
    return descriptor;
}

/// A session with `key` (random when NULL) in one direction; outbound sessions may repeat packets.
static srtp_t make_session(const uint8_t *key, int outbound) {
    uint8_t random_key[32];
    if (key == NULL) {
        getrandom(random_key, sizeof random_key, 0);
        key = random_key;
    }
    srtp_policy_t policy;
    memset(&policy, 0, sizeof policy);
    if (use_gcm) {
        srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp);
        srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp);
    } else {
        srtp_crypto_policy_set_rtp_default(&policy.rtp);
        srtp_crypto_policy_set_rtcp_default(&policy.rtcp);
    }
    policy.ssrc.type = outbound ? ssrc_any_outbound : ssrc_any_inbound;
    policy.key = (unsigned char *)key;
    policy.window_size = 1024;
    policy.allow_repeat_tx = outbound;
    srtp_t session;
    if (srtp_create(&session, &policy) != srtp_err_status_ok) { fprintf(stderr, "srtp_create failed\n"); exit(1); }
    return session;
}

static uint8_t receive_buffers[batch][2048] __attribute__((aligned(64)));
static uint8_t send_buffers[subscriber_count][batch][1536] __attribute__((aligned(64)));

static void *run_forwarder(void *unused) {
    (void)unused;
    pthread_getcpuclockid(pthread_self(), &forwarder_clock);
    atomic_fetch_add(&threads_started, 1);
    struct mmsghdr receive_messages[batch], send_messages[batch];
    struct iovec receive_vectors[batch], send_vectors[batch];
    int send_lengths[subscriber_count][batch];
    uint16_t sequence[subscriber_count] = {0};
    memset(receive_messages, 0, sizeof receive_messages);
    for (int index = 0; index < batch; index++) {
        receive_vectors[index] = (struct iovec){.iov_base = receive_buffers[index], .iov_len = 2048};
        receive_messages[index].msg_hdr.msg_iov = &receive_vectors[index];
        receive_messages[index].msg_hdr.msg_iovlen = 1;
    }
    struct pollfd readable = {.fd = router_socket, .events = POLLIN};
    while (!atomic_load_explicit(&stop_requested, memory_order_relaxed)) {
        if (poll(&readable, 1, 20) <= 0) continue;
        for (;;) {
            int count = recvmmsg(router_socket, receive_messages, batch, MSG_DONTWAIT, NULL);
            if (count <= 0) break;
            int used = 0;
            for (int index = 0; index < count; index++) {
                int length = (int)receive_messages[index].msg_len;
                if (srtp_unprotect(inbound_session, receive_buffers[index], &length) != srtp_err_status_ok) continue;
                for (int subscriber = 0; subscriber < subscriber_count; subscriber++) {
                    uint8_t *packet = send_buffers[subscriber][used];
                    memcpy(packet, receive_buffers[index], (size_t)length);
                    uint32_t ssrc = htonl(0x1000u + (uint32_t)subscriber);
                    uint16_t number = htons(sequence[subscriber]++);
                    memcpy(packet + 8, &ssrc, 4);
                    memcpy(packet + 2, &number, 2);
                    int protected_length = length;
                    srtp_protect(outbound_session[subscriber], packet, &protected_length);
                    send_lengths[subscriber][used] = protected_length;
                }
                used++;
            }
            for (int subscriber = 0; subscriber < subscriber_count && used > 0; subscriber++) {
                memset(send_messages, 0, sizeof(send_messages[0]) * (size_t)used);
                for (int index = 0; index < used; index++) {
                    send_vectors[index] = (struct iovec){
                        .iov_base = send_buffers[subscriber][index], .iov_len = (size_t)send_lengths[subscriber][index]};
                    send_messages[index].msg_hdr.msg_iov = &send_vectors[index];
                    send_messages[index].msg_hdr.msg_iovlen = 1;
                    send_messages[index].msg_hdr.msg_name = &subscriber_address[subscriber];
                    send_messages[index].msg_hdr.msg_namelen = sizeof subscriber_address[subscriber];
                }
                sendmmsg(subscriber_out[subscriber], send_messages, (unsigned)used, 0);
            }
            atomic_fetch_add_explicit(&forwarded, (long)used * subscriber_count, memory_order_relaxed);
            if (count < batch) break;
        }
    }
    return NULL;
}

static void *run_publisher(void *unused) {
    (void)unused;
    atomic_fetch_add(&threads_started, 1);
    uint64_t period = (uint64_t)packets_per_burst * 1000000000ull / (uint64_t)packets_per_second;
    uint64_t next = nanoseconds(CLOCK_MONOTONIC);
    for (int index = 0; index < packet_count && !atomic_load_explicit(&stop_requested, memory_order_relaxed);) {
        struct timespec deadline = {.tv_sec = (time_t)(next / 1000000000ull), .tv_nsec = (long)(next % 1000000000ull)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL);
        for (int end = index + packets_per_burst; index < end && index < packet_count; index++) {
            send(publisher_socket, packets + (size_t)index * packet_stride, (size_t)lengths[index], 0);
        }
        next += period;
    }
    return NULL;
}

static void *run_receiver(void *unused) {
    (void)unused;
    atomic_fetch_add(&threads_started, 1);
    struct pollfd sockets[subscriber_count];
    for (int index = 0; index < subscriber_count; index++) sockets[index] = (struct pollfd){.fd = subscriber_in[index], .events = POLLIN};
    static uint8_t buffer[2048];
    long count = 0;
    while (!atomic_load_explicit(&receiver_stop_requested, memory_order_relaxed)) {
        if (poll(sockets, subscriber_count, 20) > 0) {
            for (int index = 0; index < subscriber_count; index++) {
                if (sockets[index].revents == 0) continue;
                while (recv(subscriber_in[index], buffer, sizeof buffer, 0) > 0) count++;
            }
        }
        atomic_store_explicit(&received, count, memory_order_relaxed);
    }
    return NULL;
}

static void sleep_seconds(double seconds) {
    struct timespec duration = {.tv_sec = (time_t)seconds, .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&duration, &duration) != 0) {}
}

static void run(const profile_case *profile, double window) {
    use_gcm = profile->gcm;
    packets_per_second = profile->packets_per_second;
    packet_count = (int)(packets_per_second * (window + 2));
    atomic_store(&stop_requested, 0);
    atomic_store(&receiver_stop_requested, 0);
    atomic_store(&threads_started, 0);
    atomic_store(&forwarded, 0);
    atomic_store(&received, 0);

    uint16_t router_port;
    router_socket = loopback_socket(&router_port);
    publisher_socket = loopback_socket(NULL);
    struct sockaddr_in router = loopback(router_port);
    connect(publisher_socket, (struct sockaddr *)&router, sizeof router);

    // The publisher and the forwarder share the publisher's key.
    uint8_t key[32];
    getrandom(key, sizeof key, 0);
    inbound_session = make_session(key, 0);
    srtp_t publisher_session = make_session(key, 1);

    for (int index = 0; index < subscriber_count; index++) {
        uint16_t port;
        subscriber_in[index] = loopback_socket(&port);
        subscriber_out[index] = loopback_socket(NULL);
        subscriber_address[index] = loopback(port);
        outbound_session[index] = make_session(NULL, 1);
    }

    packets = aligned_alloc(64, (size_t)packet_count * packet_stride);
    lengths = calloc((size_t)packet_count, sizeof(int));
    for (int index = 0; index < packet_count; index++) {
        uint8_t *packet = packets + (size_t)index * packet_stride;
        for (int byte = 12; byte < rtp_bytes; byte++) packet[byte] = (uint8_t)(byte * 7);
        packet[0] = 0x80;
        packet[1] = 96;
        uint16_t number = htons((uint16_t)(1000 + index));
        uint32_t timestamp = htonl(3000u * (uint32_t)(index / 10)), ssrc = htonl(0x51570001u);
        memcpy(packet + 2, &number, 2);
        memcpy(packet + 4, &timestamp, 4);
        memcpy(packet + 8, &ssrc, 4);
        packet[12] = 0x10;
        packet[13] = index == 0 ? 0x00 : 0x01;
        int length = rtp_bytes;
        srtp_protect(publisher_session, packet, &length);
        lengths[index] = length;
    }

    pthread_t threads[3];
    pthread_create(&threads[0], NULL, run_forwarder, NULL);
    pthread_create(&threads[1], NULL, run_receiver, NULL);
    pthread_create(&threads[2], NULL, run_publisher, NULL);
    while (atomic_load(&threads_started) < 3) usleep(1000);

    sleep_seconds(1);
    uint64_t cpu_before = nanoseconds(forwarder_clock);
    long forwarded_before = atomic_load(&forwarded);
    uint64_t time_before = nanoseconds(CLOCK_MONOTONIC);
    sleep_seconds(window);
    uint64_t cpu_after = nanoseconds(forwarder_clock);
    long forwarded_after = atomic_load(&forwarded);
    uint64_t time_after = nanoseconds(CLOCK_MONOTONIC);
    // Stop sending and forwarding, let the subscribers drain, then stop the receiver.
    atomic_store(&stop_requested, 1);
    pthread_join(threads[0], NULL);
    pthread_join(threads[2], NULL);
    sleep_seconds(0.3);
    atomic_store(&receiver_stop_requested, 1);
    pthread_join(threads[1], NULL);

    double cpu = (double)(cpu_after - cpu_before) / 1e9;
    long count = forwarded_after - forwarded_before;
    printf("c_reference_forward %s subscribers=%d forwarded_pps_per_cpu_second=%.0f\n", profile->name, subscriber_count,
        (double)count / cpu);
    printf("  source_pps=%d window_s=%.2f forwarded=%ld forwarding_thread_cpu_s=%.3f worker_cpu_share=%.2f"
           " us_per_forwarded_packet=%.2f run: forwarded=%ld subscribers_received=%ld\n",
        packets_per_second, (double)(time_after - time_before) / 1e9, count, cpu,
        cpu / ((double)(time_after - time_before) / 1e9), cpu * 1e6 / (double)count, atomic_load(&forwarded),
        atomic_load(&received));
    fflush(stdout);

    close(router_socket);
    close(publisher_socket);
    for (int index = 0; index < subscriber_count; index++) {
        close(subscriber_in[index]);
        close(subscriber_out[index]);
        srtp_dealloc(outbound_session[index]);
    }
    srtp_dealloc(inbound_session);
    srtp_dealloc(publisher_session);
    free(packets);
    free(lengths);
}

int main(int argc, char **argv) {
    double window = 5;
    const char *only = NULL;
    for (int index = 1; index < argc; index++) {
        if (strcmp(argv[index], "--window") == 0 && index + 1 < argc) {
            window = atof(argv[++index]);
        } else if (strcmp(argv[index], "--only") == 0 && index + 1 < argc) {
            only = argv[++index];
        } else {
            fprintf(stderr, "usage: %s [--window <seconds>] [--only <profile>]\n", argv[0]);
            return 2;
        }
    }
    if (srtp_init() != srtp_err_status_ok) { fprintf(stderr, "srtp_init failed\n"); return 1; }
    // The same rates as ForwardingBenchmark.
    const profile_case cases[] = {
        {"AEAD_AES_128_GCM", 1, 5000},
        {"AES_CM_128_HMAC_SHA1_80", 0, 2500},
    };
    for (size_t index = 0; index < sizeof cases / sizeof cases[0]; index++) {
        if (only && strcmp(only, cases[index].name) != 0) continue;
        run(&cases[index], window);
    }
    return 0;
}
