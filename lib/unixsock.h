/* AF_UNIX sockets named by paths of any length. */
#ifndef RUNG_LIB_UNIXSOCK_H
#define RUNG_LIB_UNIXSOCK_H

/* Both return a socket fd (SOCK_CLOEXEC) or -errno. A path longer than
 * sun_path (Docker's state directories make such paths) is reached through
 * its directory, opened O_PATH and named as /proc/self/fd/N/BASENAME. */
int unix_listen(const char *path, int type, int backlog);
int unix_connect(const char *path, int type);

#endif
