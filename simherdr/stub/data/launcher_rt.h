/* The native launcher's own C runtime (simherdr/stub/data/launcher.c, built with
 * -DSIMHERDR_FREESTANDING -nostdlib by simherdr/stub/native.py): the few C library functions
 * the launcher calls, as system calls, and its process entry.
 *
 * Why: the C library's static start-up detects the CPU's features and caches (dozens of
 * CPUID instructions: in a virtual machine each one traps to the hypervisor) and reads
 * /proc/self/exe before main runs: ~0.3 ms of CPU of every `herdr` call on the team's VM (an
 * empty static glibc program: ~400 us per exec, an empty program of its own entry: ~90 us),
 * more than the rest of the launcher's work.  The launcher calls nothing that needs it.
 *
 * Only what launcher.c uses, with the C library's behaviour for its uses: errno, environ,
 * sigaction (the kernel's layout, a restorer of our own), the formats "%s", "%llu", "%llx"
 * of its printf calls, strerror's texts for what exec and the rest return.  x86-64 Linux
 * only: elsewhere the build fails and native.py builds the launcher on the C library. */
#ifndef SIMHERDR_LAUNCHER_RT_H
#define SIMHERDR_LAUNCHER_RT_H

#if !defined(__x86_64__) || !defined(__linux__)
#error "the launcher's own runtime is x86-64 Linux only (native.py then uses the C library)"
#endif

#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <termios.h>

static long rt_syscall6(long n, long a, long b, long c, long d, long e, long f) {
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}

static int rt_errno;
int *__errno_location(void) { return &rt_errno; }

/* a system call's result as the C library returns it: -1 and errno on failure */
static long rt_ret(long ret) {
    if (ret < 0 && ret > -4096) {
        rt_errno = (int)-ret;
        return -1;
    }
    return ret;
}

#define RT_SYS(n, a, b, c, d, e, f) \
    rt_ret(rt_syscall6((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f)))

char **environ;

/* -- memory and strings (the compiler may call memcpy and memset itself) ------------------ */
void *memcpy(void *dest, const void *src, size_t n) {
    void *d = dest;
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
    return dest;
}

void *memset(void *dest, int c, size_t n) {
    void *d = dest;
    __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
    return dest;
}

size_t strlen(const char *s) {
    const char *p = s;
    while (*p) p++;
    return (size_t)(p - s);
}

char *getenv(const char *name) {
    size_t n = strlen(name);
    for (char **e = environ; e && *e; e++) {
        const char *entry = *e;
        size_t i = 0;
        while (i < n && entry[i] == name[i]) i++;
        if (i == n && entry[n] == '=') return (char *)entry + n + 1;
    }
    return 0;
}

/* Never freed (a process of a few milliseconds): a static arena, then whole mappings. */
static char rt_arena[1 << 16] __attribute__((aligned(16)));
static size_t rt_used;

void *malloc(size_t n) {
    size_t want = (n + 15) & ~(size_t)15;
    if (want >= n && want <= sizeof rt_arena - rt_used) {
        void *p = rt_arena + rt_used;
        rt_used += want;
        return p;
    }
    size_t size = n + 16;
    if (size < n) return 0;
    long p = rt_syscall6(SYS_mmap, 0, (long)size, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p < 0 && p > -4096) {
        rt_errno = ENOMEM;
        return 0;
    }
    *(size_t *)p = n;  /* its size, for realloc */
    return (char *)p + 16;
}

static size_t rt_size_of(void *p) {
    char *c = p;
    if (c >= rt_arena && c < rt_arena + sizeof rt_arena) return (size_t)(rt_arena + rt_used - c);
    return *(size_t *)(c - 16);
}

void *calloc(size_t count, size_t size) {
    if (size && count > (size_t)-1 / size) return 0;
    void *p = malloc(count * size);
    if (p) memset(p, 0, count * size);  /* (the arena's bytes were zero; a mapping's too) */
    return p;
}

void *realloc(void *old, size_t n) {
    void *p = malloc(n);
    if (p && old) {
        size_t had = rt_size_of(old);
        memcpy(p, old, had < n ? had : n);
    }
    return p;
}

/* -- system calls ------------------------------------------------------------------------- */
ssize_t read(int fd, void *buf, size_t n) { return RT_SYS(SYS_read, fd, buf, n, 0, 0, 0); }
static ssize_t rt_write(int fd, const void *buf, size_t n) {
    return RT_SYS(SYS_write, fd, buf, n, 0, 0, 0);
}
int close(int fd) { return (int)RT_SYS(SYS_close, fd, 0, 0, 0, 0, 0); }
int open(const char *path, int flags, ...) {
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, mode_t);
        va_end(ap);
    }
    return (int)RT_SYS(SYS_openat, AT_FDCWD, path, flags, mode, 0, 0);
}
int fcntl(int fd, int cmd, ...) {
    va_list ap;
    va_start(ap, cmd);
    long arg = va_arg(ap, long);
    va_end(ap);
    return (int)RT_SYS(SYS_fcntl, fd, cmd, arg, 0, 0, 0);
}
int stat(const char *restrict path, struct stat *restrict st) {
    return (int)RT_SYS(SYS_newfstatat, AT_FDCWD, path, st, 0, 0, 0);
}
off_t lseek(int fd, off_t offset, int whence) {
    return RT_SYS(SYS_lseek, fd, offset, whence, 0, 0, 0);
}
int isatty(int fd) {
    struct termios t;
    return RT_SYS(SYS_ioctl, fd, TCGETS, &t, 0, 0, 0) == 0;
}
mode_t umask(mode_t mask) { return (mode_t)rt_syscall6(SYS_umask, mask, 0, 0, 0, 0, 0); }
uid_t geteuid(void) { return (uid_t)rt_syscall6(SYS_geteuid, 0, 0, 0, 0, 0, 0); }
int kill(pid_t pid, int sig) { return (int)RT_SYS(SYS_kill, pid, sig, 0, 0, 0, 0); }
int socket(int domain, int type, int protocol) {
    return (int)RT_SYS(SYS_socket, domain, type, protocol, 0, 0, 0);
}
/* (the address argument: a pointer, or glibc's transparent union of pointers; either way
 * the pointer is its first bytes) */
int connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len) {
    return (int)RT_SYS(SYS_connect, fd, *(const void *const *)&addr, len, 0, 0, 0);
}
int bind(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len) {
    return (int)RT_SYS(SYS_bind, fd, *(const void *const *)&addr, len, 0, 0, 0);
}
int getsockopt(int fd, int level, int name, void *restrict value, socklen_t *restrict len) {
    return (int)RT_SYS(SYS_getsockopt, fd, level, name, value, len, 0);
}
ssize_t sendmsg(int fd, const struct msghdr *msg, int flags) {
    return RT_SYS(SYS_sendmsg, fd, msg, flags, 0, 0, 0);
}
ssize_t send(int fd, const void *buf, size_t n, int flags) {
    return RT_SYS(SYS_sendto, fd, buf, n, flags, 0, 0);
}
int execve(const char *path, char *const argv[], char *const envp[]) {
    return (int)RT_SYS(SYS_execve, path, argv, envp, 0, 0, 0);
}
int execv(const char *path, char *const argv[]) { return execve(path, argv, environ); }
void _exit(int status) {
    for (;;) rt_syscall6(SYS_exit_group, status, 0, 0, 0, 0, 0);
}

/* -- signals (the kernel's sigaction: 64 signals in one word, a restorer of our own) ------- */
struct rt_ksigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    unsigned long mask;
};
#define RT_SA_RESTORER 0x04000000UL

__attribute__((naked)) static void rt_restore(void) {
    __asm__ volatile("mov $15, %eax\n\tsyscall\n\thlt");  /* rt_sigreturn */
}

static unsigned long rt_word(const sigset_t *set) {
    unsigned long word;
    memcpy(&word, set, sizeof word);
    return word;
}

int sigaction(int sig, const struct sigaction *restrict act, struct sigaction *restrict old) {
    struct rt_ksigaction kact, kold;
    if (act) {
        kact.handler = act->sa_handler;
        kact.flags = (unsigned long)act->sa_flags | RT_SA_RESTORER;
        kact.restorer = rt_restore;
        kact.mask = rt_word(&act->sa_mask);
    }
    int ret = (int)RT_SYS(SYS_rt_sigaction, sig, act ? &kact : 0, old ? &kold : 0, 8, 0, 0);
    if (ret == 0 && old) {
        memset(old, 0, sizeof *old);
        old->sa_handler = kold.handler;
        old->sa_flags = (int)kold.flags;
        old->sa_restorer = kold.restorer;
        memcpy(&old->sa_mask, &kold.mask, sizeof kold.mask);
    }
    return ret;
}

sighandler_t signal(int sig, sighandler_t handler) {
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_handler = handler;
    act.sa_flags = SA_RESTART;
    if (sigaction(sig, &act, &old)) return SIG_ERR;
    return old.sa_handler;
}

int sigprocmask(int how, const sigset_t *restrict set, sigset_t *restrict old) {
    unsigned long word = set ? rt_word(set) : 0, was = 0;
    int ret = (int)RT_SYS(SYS_rt_sigprocmask, how, set ? &word : 0, old ? &was : 0, 8, 0, 0);
    if (ret == 0 && old) {
        memset(old, 0, sizeof *old);
        memcpy(old, &was, sizeof was);
    }
    return ret;
}

int sigemptyset(sigset_t *set) {
    memset(set, 0, sizeof *set);
    return 0;
}

int sigaddset(sigset_t *set, int sig) {
    if (sig < 1 || sig > 64) {
        rt_errno = EINVAL;
        return -1;
    }
    unsigned long word = rt_word(set) | 1UL << (sig - 1);
    memcpy(set, &word, sizeof word);
    return 0;
}

int sigismember(const sigset_t *set, int sig) {
    if (sig < 1 || sig > 64) {
        rt_errno = EINVAL;
        return -1;
    }
    return (int)(rt_word(set) >> (sig - 1) & 1);
}

int raise(int sig) {
    long pid = rt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
    long tid = rt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
    return (int)RT_SYS(SYS_tgkill, pid, tid, sig, 0, 0, 0);
}

/* -- messages ------------------------------------------------------------------------------ */
/* glibc's texts (string/_strerror.c, sysdeps/gnu/errlist.h) for what the launcher's calls
 * return; any other number as glibc prints an unknown one */
char *strerror(int code) {
    static char unknown[32];
    switch (code) {
    case EPERM: return "Operation not permitted";
    case ENOENT: return "No such file or directory";
    case EIO: return "Input/output error";
    case E2BIG: return "Argument list too long";
    case ENOEXEC: return "Exec format error";
    case EBADF: return "Bad file descriptor";
    case EAGAIN: return "Resource temporarily unavailable";
    case ENOMEM: return "Cannot allocate memory";
    case EACCES: return "Permission denied";
    case EFAULT: return "Bad address";
    case EBUSY: return "Device or resource busy";
    case ENOTDIR: return "Not a directory";
    case EISDIR: return "Is a directory";
    case EINVAL: return "Invalid argument";
    case ENFILE: return "Too many open files in system";
    case EMFILE: return "Too many open files";
    case ETXTBSY: return "Text file busy";
    case ENAMETOOLONG: return "File name too long";
    case ELOOP: return "Too many levels of symbolic links";
    case ELIBBAD: return "Accessing a corrupted shared library";
    }
    const char prefix[] = "Unknown error ";
    char *p = unknown;
    memcpy(p, prefix, sizeof prefix - 1);
    p += sizeof prefix - 1;
    unsigned int value = (unsigned int)code;
    if (code < 0) {
        *p++ = '-';
        value = 0U - value;
    }
    char digits[12];
    int n = 0;
    do digits[n++] = (char)('0' + value % 10);
    while (value /= 10);
    while (n) *p++ = digits[--n];
    *p = 0;
    return unknown;
}

/* "%s", "%llu", "%llx" and "%%": the formats launcher.c prints */
static size_t rt_format(char *out, size_t room, const char *fmt, va_list ap) {
    size_t len = 0;
#define RT_PUT(ch)                          \
    do {                                    \
        if (len + 1 < room) out[len] = (ch); \
        len++;                              \
    } while (0)
    for (const char *f = fmt; *f; f++) {
        if (*f != '%') {
            RT_PUT(*f);
            continue;
        }
        f++;
        if (*f == 's') {
            for (const char *s = va_arg(ap, const char *); *s; s++) RT_PUT(*s);
        } else if (f[0] == 'l' && f[1] == 'l' && (f[2] == 'u' || f[2] == 'x')) {
            unsigned long long v = va_arg(ap, unsigned long long);
            unsigned base = f[2] == 'x' ? 16 : 10;
            char digits[24];
            int n = 0;
            do digits[n++] = "0123456789abcdef"[v % base];
            while (v /= base);
            while (n) RT_PUT(digits[--n]);
            f += 2;
        } else if (*f == '%') {
            RT_PUT('%');
        } else {
            break; /* (no other format in launcher.c) */
        }
    }
    if (room) out[len < room ? len : room - 1] = 0;
#undef RT_PUT
    return len;
}

int snprintf(char *restrict out, size_t room, const char *restrict fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    size_t len = rt_format(out, room, fmt, ap);
    va_end(ap);
    return (int)len;
}

/* (only stderr: the stream is not looked at) */
FILE *stderr;

int fprintf(FILE *restrict stream, const char *restrict fmt, ...) {
    (void)stream;
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    size_t len = rt_format(text, sizeof text, fmt, ap);
    va_end(ap);
    if (len >= sizeof text) len = sizeof text - 1;
    for (size_t off = 0; off < len;) {
        ssize_t wrote = rt_write(2, text + off, len - off);
        if (wrote < 0 && rt_errno == EINTR) continue;
        if (wrote <= 0) break;
        off += (size_t)wrote;
    }
    return (int)len;
}

/* -- the process's entry -------------------------------------------------------------------- */
int main(int argc, char **argv);

__attribute__((used)) static void rt_start_c(long *sp) {
    int argc = (int)sp[0];
    char **argv = (char **)(sp + 1);
    environ = argv + argc + 1;
    _exit(main(argc, argv));
}

__attribute__((naked, noreturn)) void _start(void) {
    __asm__ volatile(
        "xor %ebp, %ebp\n\t"
        "mov %rsp, %rdi\n\t"
        "and $-16, %rsp\n\t"
        "call rt_start_c\n\t"
        "hlt");
}

#endif
