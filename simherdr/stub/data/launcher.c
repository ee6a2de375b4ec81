/* simherdr's native stand-in launcher (issue 34): this project's own code, compiled by
 * `simherdr install-stub` (simherdr/stub/native.py) when a C compiler is present.
 *
 * A `herdr ...` call through it: find the stand-in fork server of the simherdr whose API
 * socket is $HERDR_SOCKET_PATH (a Linux abstract socket named after that socket file's device
 * and inode, owned by the server: simherdr/standin.py), check it runs as this user, hand it
 * argv, the environment, the working directory and fds 0/1/2 (SCM_RIGHTS), forward the
 * signals this process receives to the forked stand-in, and leave as it left: its exit status,
 * or the same signal.  Wherever that is not possible (no such socket: a real herdr, the record
 * proxy, a client's own fake; another user; a closed standard descriptor; another simherdr
 * tree or interpreter) it execs the Python stand-in installed beside it, which behaves as
 * every call did before.  The fork server may also ask for that path (reply 'F'), or ask this
 * process to exec a program itself (reply 'X': `herdr server` becomes `simherdr serve` in this
 * very process, as the Python stand-in's execve does).
 *
 * The wire (little-endian u32 lengths):
 *   launcher -> server: "SHS2" u32 n, then n bytes of NUL-terminated fields:
 *     python, root, release, exe, umask, ignored-signal mask, blocked mask, stdio, argv..., "",
 *     env... (stdio: bit fd set when fd 0/1/2 seeks, bit 3 + fd when it is a terminal)
 *     with SCM_RIGHTS [0, 1, 2, cwd] on the first byte.
 *   server -> launcher: 'P' u32 pid | 'F' | 'E' u32 status | 'S' u32 signal
 *     | 'X' u32 n, then n bytes: path, argv..., "", env... (NUL-terminated)
 *
 * The per-install values live in CONFIG, written into the binary by the installer (the block
 * after the marker: python, python launcher script, project root, release, this launcher's
 * path, the install's mark, the shared fork server's name or ""; NUL-separated).
 *
 * A shared fork server (simherdr/standin.py SharedStandin: one for a whole test run that
 * starts many servers) serves the calls a simherdr's own fork server would (the socket's
 * derived name is held), in its place: the stand-in it runs connects to $HERDR_SOCKET_PATH
 * itself, as the Python stand-in does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>
#ifdef SIMHERDR_FREESTANDING
#include "launcher_rt.h" /* no C library: its start-up costs more than the launcher's work */
#endif

#define MARKER "@@SIMHERDR-STANDIN-CONFIG@@"
#define CONFIG_SIZE 8192

/* volatile: the installer rewrites these bytes in the binary; the compiler must read them. */
static volatile char CONFIG[CONFIG_SIZE] = MARKER;

extern char **environ;

static const char *config_field(int index) {
    const char *p = (const char *)CONFIG + sizeof(MARKER);
    for (int i = 0; i < index; i++) p += strlen(p) + 1;
    return p;
}

/* What this process changed of its signal dispositions, put back before any exec. */
static struct sigaction original_pipe;
static int pipe_changed = 0;
static void restore_signals(void);

/* The Python stand-in: `python -I -S script args...` (the script sets argv[0] to this path). */
static void fallback(char **argv) {
    restore_signals();
    int argc = 0;
    while (argv[argc]) argc++;
    char **args = calloc((size_t)argc + 4, sizeof(char *));
    if (!args) _exit(127);
    args[0] = (char *)config_field(0);
    args[1] = "-IS";
    args[2] = (char *)config_field(1);
    for (int i = 1; i < argc; i++) args[i + 2] = argv[i];
    execv(args[0], args);
    fprintf(stderr, "herdr: cannot run the stand-in %s: %s\n", args[0], strerror(errno));
    _exit(127);
}

static volatile sig_atomic_t child_pid = 0;
static volatile sig_atomic_t pending[65]; /* signals received before the stand-in's pid */

static void forward(int sig) {
    int saved = errno;
    pid_t pid = child_pid;
    if (pid > 0)
        kill(pid, sig);
    else
        pending[sig] = 1;
    if (sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) raise(SIGSTOP); /* stop with it */
    errno = saved;
}

static const int FORWARDED[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM,
                                SIGWINCH, SIGCONT, SIGTSTP, SIGTTIN, SIGTTOU};

static void restore_signals(void) {
    for (size_t i = 0; i < sizeof FORWARDED / sizeof *FORWARDED; i++) {
        struct sigaction now;
        if (sigaction(FORWARDED[i], NULL, &now) == 0 && now.sa_handler == forward)
            signal(FORWARDED[i], SIG_DFL);
    }
    if (pipe_changed) sigaction(SIGPIPE, &original_pipe, NULL);
}

struct buf {
    char *data;
    size_t len, cap;
};

static int put(struct buf *b, const char *s, size_t n) {
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n) cap *= 2;
        char *data = realloc(b->data, cap);
        if (!data) return -1;
        b->data = data;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    return 0;
}

static int put_str(struct buf *b, const char *s) { return put(b, s, strlen(s) + 1); }

static int put_num(struct buf *b, unsigned long long v) {
    char text[32];
    snprintf(text, sizeof text, "%llu", v);
    return put_str(b, text);
}

static int read_full(int fd, void *out, size_t n) {
    char *p = out;
    while (n) {
        ssize_t got = read(fd, p, n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* 'X': exec what the stand-in asked for, in this process. */
static void exec_request(int sock) {
    unsigned char head[4];
    if (read_full(sock, head, 4)) _exit(1);
    uint32_t n = le32(head);
    char *data = malloc((size_t)n + 1);
    if (!data || read_full(sock, data, n)) _exit(1);
    data[n] = 0;
    size_t count = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!data[i]) count++;
    char **argv = calloc(count + 1, sizeof(char *)), **env = calloc(count + 1, sizeof(char *));
    if (!argv || !env) _exit(1);
    char *p = data, *end = data + n, *path = p;
    p += strlen(p) + 1;
    size_t a = 0, e = 0;
    while (p < end && *p) {
        argv[a++] = p;
        p += strlen(p) + 1;
    }
    p++; /* the empty field between argv and env */
    while (p < end) {
        env[e++] = p;
        p += strlen(p) + 1;
    }
    close(sock);
    restore_signals();
    execve(path, argv, env);
    /* the stand-in reports a failed exec itself; here it can only say so and fail the same */
    fprintf(stderr, "simherdr: cannot start %s: %s\n", path, strerror(errno));
    _exit(1);
}

/* A connection to the fork server listening on the abstract socket \0name, run by this user;
 * -1 when there is none. */
static int connect_to(const char *name) {
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    size_t name_len = strlen(name);
    if (!name_len || name_len >= sizeof addr.sun_path - 1) return -1;
    memcpy(addr.sun_path + 1, name, name_len);
    int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0) return -1;
    socklen_t addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + name_len);
    struct ucred peer;
    socklen_t peer_len = sizeof peer;
    if (connect(sock, (struct sockaddr *)&addr, addr_len) ||
        getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &peer, &peer_len) || peer.uid != geteuid()) {
        close(sock);
        return -1;
    }
    return sock;
}

/* Whether some process holds the abstract name \0name (a simherdr server's fork-server name):
 * a bind probe, which no listener notices (a connect would start that server's fork server).
 * CHOICE(standin-shared-probe): a server binding its name in the same microseconds sees it
 * taken and has no fork server of its own: its calls run the Python stand-in (speed only). */
static int name_taken(const char *name) {
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    size_t name_len = strlen(name);
    memcpy(addr.sun_path + 1, name, name_len);
    int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe < 0) return 0;
    socklen_t addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + name_len);
    int taken = bind(probe, (struct sockaddr *)&addr, addr_len) != 0 && errno == EADDRINUSE;
    close(probe);
    return taken;
}

int main(int argc, char **argv) {
    (void)argc;
    const char *socket_path = getenv("HERDR_SOCKET_PATH");
    const char *shared = config_field(6);
    struct stat st;
    int has_socket =
        socket_path && *socket_path && !stat(socket_path, &st) && S_ISSOCK(st.st_mode);
    /* With no socket a shared fork server still gets the call: it serves only the verbs that
     * reach no socket, asking for the Python path otherwise (simherdr/stub/forkserver.py,
     * standin-shared-socketless). */
    if (!has_socket && !*shared) fallback(argv);
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0) fallback(argv); /* a closed standard descriptor */

    int sock = -1;
    if (has_socket) {
        /* device, inode and mtime (ns) of the socket file, as simherdr/standin.py abstract_name */
        char name[96];
        unsigned long long mtime_ns = (unsigned long long)st.st_mtim.tv_sec * 1000000000ULL +
                                      (unsigned long long)st.st_mtim.tv_nsec;
        snprintf(name, sizeof name, "simherdr-standin-%llx-%llx-%llx",
                 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, mtime_ns);
        /* A shared fork server named at install (SIMHERDR_STANDIN_SERVER) serves the calls the
         * socket's own would (a simherdr's: its name is held), without starting that one. */
        sock = *shared && name_taken(name) ? connect_to(shared) : -1;
        if (sock < 0) sock = connect_to(name);
    } else {
        sock = connect_to(shared);
    }
    if (sock < 0) fallback(argv);
    int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cwd < 0) cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (cwd < 0) {
        close(sock);
        fallback(argv);
    }

    /* What this process inherited: ignored signals and the blocked mask travel to the call. */
    unsigned long long ignored = 0, blocked = 0;
    sigset_t mask;
    sigprocmask(SIG_SETMASK, NULL, &mask);
    for (int sig = 1; sig < 64; sig++) {
        struct sigaction now;
        if (sig < 32 && sigaction(sig, NULL, &now) == 0 && now.sa_handler == SIG_IGN)
            ignored |= 1ULL << sig;
        if (sigismember(&mask, sig) == 1) blocked |= 1ULL << sig;
    }
    mode_t umask_now = umask(0);
    umask(umask_now);
    /* what a Python start's standard streams keep of their descriptors (FileIO's seekable, a
     * terminal's line buffering): the fork server's child takes streams made to match */
    unsigned long long stdio = 0;
    for (int fd = 0; fd < 3; fd++) {
        if (lseek(fd, 0, SEEK_CUR) >= 0) stdio |= 1ULL << fd;
        if (isatty(fd)) stdio |= 1ULL << (3 + fd);
    }

    struct buf msg = {0};
    char head[8] = "SHS2";
    if (put(&msg, head, 8) || put_str(&msg, config_field(0)) || put_str(&msg, config_field(2)) ||
        put_str(&msg, config_field(3)) || put_str(&msg, config_field(4)) ||
        put_num(&msg, umask_now) || put_num(&msg, ignored) || put_num(&msg, blocked) ||
        put_num(&msg, stdio))
        fallback(argv);
    for (int i = 0; argv[i]; i++)
        if (put_str(&msg, argv[i])) fallback(argv);
    if (put(&msg, "", 1)) fallback(argv);
    for (char **e = environ; *e; e++)
        if (put_str(&msg, *e)) fallback(argv);
    uint32_t n = (uint32_t)(msg.len - 8);
    msg.data[4] = (char)(n & 0xff);
    msg.data[5] = (char)(n >> 8 & 0xff);
    msg.data[6] = (char)(n >> 16 & 0xff);
    msg.data[7] = (char)(n >> 24 & 0xff);

    /* Signals arriving from here on go to the stand-in once its pid is known. */
    for (size_t i = 0; i < sizeof FORWARDED / sizeof *FORWARDED; i++) {
        int sig = FORWARDED[i];
        if (ignored & 1ULL << sig) continue;
        struct sigaction act;
        memset(&act, 0, sizeof act);
        act.sa_handler = forward;
        act.sa_flags = SA_RESTART;
        sigaction(sig, &act, NULL);
    }
    /* a fork server gone mid-write is an error return, not a death (put back before exec) */
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    pipe_changed = sigaction(SIGPIPE, &ignore, &original_pipe) == 0;

    int fds[4] = {0, 1, 2, cwd};
    char control[CMSG_SPACE(sizeof fds)];
    memset(control, 0, sizeof control);
    struct iovec iov = {msg.data, msg.len};
    struct msghdr hdr = {0};
    hdr.msg_iov = &iov;
    hdr.msg_iovlen = 1;
    hdr.msg_control = control;
    hdr.msg_controllen = sizeof control;
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&hdr);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(cmsg), fds, sizeof fds);
    ssize_t sent;
    do sent = sendmsg(sock, &hdr, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    if (sent <= 0) fallback(argv); /* nothing of the call has run: the Python path runs it */
    size_t off = (size_t)sent;
    while (off < msg.len) {
        ssize_t more = send(sock, msg.data + off, msg.len - off, MSG_NOSIGNAL);
        if (more < 0 && errno == EINTR) continue;
        if (more <= 0) fallback(argv);
        off += (size_t)more;
    }
    close(cwd);

    for (;;) {
        char kind;
        ssize_t got = read(sock, &kind, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            if (child_pid == 0) fallback(argv); /* the fork server left before starting it */
            /* CHOICE(lost-fork-server): the server went away during the call (it stopped, and
             * its fork server ended the calls it was running): say so, exit 1. */
            fprintf(stderr, "herdr: the simherdr serving this call went away\n");
            return 1;
        }
        unsigned char value[4];
        if (kind == 'F') {
            close(sock);
            fallback(argv);
        }
        if (kind == 'X') exec_request(sock);
        if (read_full(sock, value, 4)) continue;
        uint32_t v = le32(value);
        if (kind == 'P') {
            child_pid = (pid_t)v;
            for (int sig = 1; sig < 65; sig++)
                if (pending[sig]) {
                    pending[sig] = 0;
                    kill(child_pid, sig);
                }
        } else if (kind == 'E') {
            return (int)(v & 0xff);
        } else if (kind == 'S') {
            /* leave by the same signal (a shell shows "Killed", "Broken pipe", 128+n) */
            int sig = (int)v;
            signal(sig, SIG_DFL);
            sigset_t only;
            sigemptyset(&only);
            sigaddset(&only, sig);
            sigprocmask(SIG_UNBLOCK, &only, NULL);
            raise(sig);
            return 128 + sig;
        }
    }
}
