/* The floor of a `herdr pane get` (issue 34): a native one-request client, built by
 * `make bench` (benchmarks/native_call.py).  Connect to $HERDR_SOCKET_PATH, send herdr's
 * pane.get request line for argv[1], print the reply line, exit 0.  No ping, no parsing: the
 * least any compiled CLI can do for the call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv) {
    const char *path = getenv("HERDR_SOCKET_PATH");
    if (!path || argc < 2) return 2;
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr = {0};
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    if (connect(s, (struct sockaddr *)&addr, sizeof addr)) return 1;
    char line[512];
    int n = snprintf(line, sizeof line,
                     "{\"id\":\"cli:pane:get\",\"method\":\"pane.get\",\"params\":{\"pane_id\":\"%s\"}}\n",
                     argv[1]);
    if (write(s, line, (size_t)n) != n) return 1;
    char buf[65536];
    size_t got = 0;
    for (;;) {
        ssize_t r = read(s, buf + got, sizeof buf - got);
        if (r <= 0) break;
        got += (size_t)r;
        if (memchr(buf, '\n', got) || got == sizeof buf) break;
    }
    fwrite(buf, 1, got, stdout);
    return got ? 0 : 1;
}
