/*
 * ipc_socket.c: passing a file descriptor and a small payload over a
 * connected Unix socket (SCM_RIGHTS), for <mrctx/ipc.h>. It needs no
 * driver, so it is built with and without the toolkit's headers.
 *
 * One message is one mr_ipc_send: the payload's bytes, with the
 * descriptor attached to the first of them. On a stream socket the kernel
 * may hand the bytes over in pieces, so the receiver reads until it has
 * exactly the size it expects (a stream keeps no boundaries: a longer
 * message's rest stays for the next read); the descriptor comes with the
 * first piece. On a SEQPACKET or DGRAM socket one recvmsg is one whole
 * message, which the kernel cuts to the buffer (MSG_TRUNC) or hands over
 * short: either is refused, never returned as a record. Descriptors that
 * come with a refused message are closed.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mrctx/ipc.h>

#include "core/core.h"

/* The first descriptor a message carries, -1 if none; any further ones
 * (a peer that is not mrctx) are closed. */
static int take_descriptors(struct msghdr *msg) {
  int fd = -1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < n; i++) {
      int got;
      memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof got);
      if (fd < 0)
        fd = got;
      else
        close(got);
    }
  }
  return fd;
}

mr_status mr_ipc_send(int socket, int fd, const void *payload, size_t bytes) {
  if (payload == NULL || bytes == 0)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_send: the payload is %s (a message carries at least one byte)",
                     payload == NULL ? "NULL" : "empty");
  if (fd < -1)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_ipc_send: fd %d is not a descriptor", fd);
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } control;
  memset(&control, 0, sizeof control);
  const char *next = payload;
  size_t left = bytes;
  bool attached = false;
  while (left > 0) {
    struct iovec iov = {.iov_base = (void *)next, .iov_len = left};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (fd >= 0 && !attached) {
      msg.msg_control = control.buf;
      msg.msg_controllen = sizeof control.buf;
      struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int));
      memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    /* MSG_NOSIGNAL: a closed peer is an error here, not SIGPIPE. */
    ssize_t n = sendmsg(socket, &msg, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_ipc_send: sendmsg on socket %d: %s%s", socket,
                       strerror(errno),
                       errno == EPIPE || errno == ECONNRESET ? " (the peer closed the socket)"
                       : errno == ENOTSOCK                   ? " (not a socket)"
                                                             : "");
    attached = true;
    next += n;
    left -= (size_t)n;
  }
  return MR_OK;
}

/* The socket's type (SOCK_STREAM, SOCK_SEQPACKET, SOCK_DGRAM), which says
 * where one message ends. */
static mr_status socket_type(int socket, int *type) {
  socklen_t length = sizeof *type;
  if (getsockopt(socket, SOL_SOCKET, SO_TYPE, type, &length) != 0)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_ipc_receive: socket %d: %s%s", socket,
                     strerror(errno), errno == ENOTSOCK ? " (not a socket)" : "");
  return MR_OK;
}

static const char *type_name(int type) {
  return type == SOCK_SEQPACKET ? "SOCK_SEQPACKET"
         : type == SOCK_DGRAM   ? "SOCK_DGRAM"
                                : "SOCK_STREAM";
}

/* One recvmsg into [next, next + room): *n its bytes (on a message socket,
 * with MSG_TRUNC, the whole message's, which may exceed room); any
 * descriptor it carried joins *received (a second one is closed). */
static mr_status receive_piece(int socket, bool message, char *next, size_t room, ssize_t *n,
                               int *flags, int *received) {
  union {
    char buf[CMSG_SPACE(4 * sizeof(int))];
    struct cmsghdr align;
  } control;
  for (;;) {
    struct iovec iov = {.iov_base = next, .iov_len = room};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    memset(&control, 0, sizeof control);
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof control.buf;
    *n = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC | (message ? MSG_TRUNC : 0));
    if (*n < 0 && errno == EINTR) continue;
    if (*n < 0)
      return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_ipc_receive: recvmsg on socket %d: %s%s",
                       socket, strerror(errno), errno == ENOTSOCK ? " (not a socket)" : "");
    /* Taken before anything else is looked at, so that every error path
     * below closes what came. */
    int more = take_descriptors(&msg);
    if (more >= 0) {
      if (*received < 0)
        *received = more;
      else
        close(more);
    }
    *flags = msg.msg_flags;
    return MR_OK;
  }
}

mr_status mr_ipc_receive(int socket, int *fd, void *payload, size_t bytes) {
  if (fd != NULL) *fd = -1;
  if (payload == NULL || bytes == 0)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_receive: the payload buffer is %s (a message carries at least "
                     "one byte)",
                     payload == NULL ? "NULL" : "empty");
  int type = SOCK_STREAM;
  mr_status st = socket_type(socket, &type);
  if (st != MR_OK) return st;
  /* A stream has no message boundaries: read exactly `bytes`, in as many
   * pieces as come. A SEQPACKET or DGRAM socket hands over one whole
   * message per recvmsg, cut to the buffer: its size must be `bytes`. */
  bool message = type != SOCK_STREAM;
  char *next = payload;
  size_t got = 0;
  int received = -1;
  while (st == MR_OK && got < bytes) {
    ssize_t n = 0;
    int flags = 0;
    st = receive_piece(socket, message, next + got, bytes - got, &n, &flags, &received);
    if (st != MR_OK) break;
    if (flags & MSG_CTRUNC) {
      st = mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_receive: the message's control data was truncated (it carried "
                     "more descriptors than one mr_ipc_send attaches); those that came were "
                     "closed");
    } else if (message && ((flags & MSG_TRUNC) || (size_t)n > bytes)) {
      st = mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_receive: the message on %s socket %d was %zd bytes and %zu were "
                     "expected: it was truncated and is refused (a record of another kind or "
                     "version, or another sender's)",
                     type_name(type), socket, n, bytes);
    } else if (n == 0 && got == 0) {
      st = mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_receive: the peer closed the socket (no message)");
    } else if (n == 0) {
      st = mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_receive: short message: the peer closed the socket after %zu of "
                     "%zu bytes",
                     got, bytes);
    } else if (message && (size_t)n < bytes) {
      st = mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_receive: short message: %zd of %zu bytes in one message on %s "
                     "socket %d (a record of another kind or version, or another sender's)",
                     n, bytes, type_name(type), socket);
    } else {
      got += (size_t)n;
    }
  }
  if (st == MR_OK && fd != NULL && received < 0)
    st = mri_error(MR_ERR_INVALID_ARGUMENT,
                   "mr_ipc_receive: the message (%zu bytes) carried no file descriptor; one "
                   "was expected (the sender passed fd -1?)",
                   bytes);
  if (st == MR_OK && fd == NULL && received >= 0)
    st = mri_error(MR_ERR_INVALID_ARGUMENT,
                   "mr_ipc_receive: the message carried a file descriptor and none was "
                   "expected (pass fd to take it); it was closed");
  if (st != MR_OK) {
    if (received >= 0) close(received);
    return st;
  }
  if (fd != NULL) *fd = received;
  return MR_OK;
}

mr_status mr_ipc_pool_send(int socket, const mr_resource *mr) {
  int fd = -1;
  mr_ipc_pool_data data;
  mr_status st = mr_ipc_pool_export(mr, &fd, &data);
  if (st != MR_OK) return st;
  st = mr_ipc_send(socket, fd, &data, sizeof data);
  close(fd);
  return st;
}

mr_status mr_ipc_pool_receive(int socket, mr_resource **out) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_ipc_pool_receive: out is NULL");
  *out = NULL;
  int fd = -1;
  mr_ipc_pool_data data;
  mr_status st = mr_ipc_receive(socket, &fd, &data, sizeof data);
  if (st != MR_OK) return mri_error_prefix(st, "mr_ipc_pool_receive");
  st = mr_ipc_pool_import(fd, &data, out);
  close(fd);
  return st;
}
