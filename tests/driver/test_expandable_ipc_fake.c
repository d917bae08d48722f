/*
 * test_expandable_ipc_fake.c: expandable(..., ipc=fd) shares a block with
 * another process over the fake driver: the parent exports the pages of a
 * block that spans two of them, sends the record and the descriptors over
 * a Unix socket (mr_ipc_send), and the child (fork) imports them, reads
 * the parent's bytes and writes its answer, which the parent then reads.
 * Then what the export and the import refuse.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mrctx/ipc.h>

#include "fake_test.h"

#define MiB ((size_t)1 << 20)

static mr_resource *make(const char *spec) {
  mr_resource *mr = NULL;
  if (mr_resource_from_spec(spec, 0, &mr) != MR_OK) {
    print_error("%s: %s\n", spec, mr_last_error());
    fail();
  }
  return mr;
}

/* The child's side; its exit status says where it failed. */
static int child_side(int sock, size_t bytes) {
  mr_ipc_pages pages;
  if (mr_ipc_receive(sock, NULL, &pages, sizeof pages) != MR_OK) return 2;
  if (pages.page_count != 2) return 3;
  int fds[2] = {-1, -1};
  for (int i = 0; i < 2; i++) {
    char tag;
    if (mr_ipc_receive(sock, &fds[i], &tag, 1) != MR_OK || fds[i] < 0) return 4;
  }
  void *p = NULL;
  if (mr_ipc_pages_import(0, &pages, fds, &p) != MR_OK) return 5;
  close(fds[0]);
  close(fds[1]);
  char *q = p;
  if (strcmp(q, "from the parent") != 0 || strcmp(q + bytes - 64, "parent's end") != 0) return 6;
  strcpy(q + MiB, "from the child");
  if (mr_ipc_pages_close(p) != MR_OK) return 7;
  if (mr_ipc_pages_close(p) != MR_ERR_INVALID_ARGUMENT) return 8; /* once */
  if (mr_ipc_send(sock, -1, "k", 1) != MR_OK) return 9;
  return 0;
}

static void test_two_processes_share_bytes(void **state) {
  mr_resource *mr = make("expandable(reserve=64MiB, ipc=fd)");
  void *pad = NULL, *block = NULL;
  const size_t bytes = 3 * MiB;
  assert_ok(mr_allocate(mr, 4096, 0, NULL, &pad));
  assert_ok(mr_allocate(mr, bytes, 0, NULL, &block)); /* pages 0 and 1 */
  char *b = block;
  strcpy(b, "from the parent");
  strcpy(b + bytes - 64, "parent's end");

  mr_ipc_pages pages;
  int fds[4] = {-1, -1, -1, -1};
  assert_int_equal(mr_ipc_pages_export(mr, block, bytes, &pages, fds, 1), MR_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(mr_last_error(), "spans 2 pages"));
  assert_ok(mr_ipc_pages_export(mr, block, bytes, &pages, fds, 4));
  assert_int_equal(pages.page_count, 2);
  assert_int_equal(pages.offset, 4096);
  assert_int_equal(pages.page_size, 2 * MiB);

  int socks[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, socks), 0);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    close(socks[0]);
    _exit(child_side(socks[1], bytes));
  }
  close(socks[1]);
  assert_ok(mr_ipc_send(socks[0], -1, &pages, sizeof pages));
  for (int i = 0; i < 2; i++) assert_ok(mr_ipc_send(socks[0], fds[i], "p", 1));
  close(fds[0]);
  close(fds[1]);
  char ack = 0;
  mr_status answered = mr_ipc_receive(socks[0], NULL, &ack, 1);
  int status = 0;
  assert_int_equal(waitpid(child, &status, 0), child);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  assert_ok(answered);
  assert_string_equal(b + MiB, "from the child");
  close(socks[0]);

  assert_ok(mr_deallocate(mr, block, bytes, 0, NULL));
  /* A freed block is not exported. */
  assert_int_equal(mr_ipc_pages_export(mr, block, bytes, &pages, fds, 4), MR_ERR_INVALID_ARGUMENT);
  assert_ok(mr_deallocate(mr, pad, 4096, 0, NULL));
  mr_resource_release(mr);
  assert_fake_clean();
}

/* A block of the large pages (large_page=SIZE) is shared as those pages:
 * two 8 MiB descriptors for 10 MiB, which import as the same bytes. */
static void test_large_pages(void **state) {
  mr_resource *mr = make("expandable(large_page=8MiB, reserve=64MiB, ipc=fd)");
  void *block = NULL;
  const size_t bytes = 10 * MiB;
  assert_ok(mr_allocate(mr, bytes, 0, NULL, &block));
  char *b = block;
  strcpy(b, "large pages");
  strcpy(b + bytes - 64, "large end");
  mr_ipc_pages pages;
  int fds[4] = {-1, -1, -1, -1};
  assert_ok(mr_ipc_pages_export(mr, block, bytes, &pages, fds, 4));
  assert_int_equal(pages.page_size, 8 * MiB);
  assert_int_equal(pages.page_count, 2);
  assert_int_equal(pages.offset, 0);
  void *p = NULL;
  assert_ok(mr_ipc_pages_import(0, &pages, fds, &p));
  close(fds[0]);
  close(fds[1]);
  char *q = p;
  assert_string_equal(q, "large pages");
  assert_string_equal(q + bytes - 64, "large end");
  assert_ok(mr_ipc_pages_close(p));
  assert_ok(mr_deallocate(mr, block, bytes, 0, NULL));
  mr_resource_release(mr);
  assert_fake_clean();
}

static void test_refusals(void **state) {
  mr_resource *plain = make("expandable(reserve=64MiB)");
  mr_resource *cache = make("cache(expandable(reserve=64MiB, ipc=fd))");
  void *p = NULL;
  mr_ipc_pages pages;
  int fds[2];
  assert_ok(mr_allocate(plain, 4096, 0, NULL, &p));
  assert_int_equal(mr_ipc_pages_export(plain, p, 4096, &pages, fds, 2), MR_ERR_UNSUPPORTED);
  assert_non_null(strstr(mr_last_error(), "ipc=fd"));
  assert_int_equal(mr_ipc_pages_export(cache, p, 4096, &pages, fds, 2), MR_ERR_INVALID_ARGUMENT);
  assert_ok(mr_deallocate(plain, p, 4096, 0, NULL));
  mr_resource_release(cache);
  mr_resource_release(plain);

  /* Records are checked, not trusted. */
  mr_ipc_pages bad = {.magic = MR_IPC_MAGIC,
                      .version = 1,
                      .page_size = 2 * MiB,
                      .offset = 0,
                      .bytes = 4096,
                      .page_count = 1};
  int fd = 0;
  bad.offset = 2 * MiB;
  assert_int_equal(mr_ipc_pages_import(0, &bad, &fd, &p), MR_ERR_INVALID_ARGUMENT);
  assert_null(p);
  bad.offset = 0;
  bad.reserved[3] = 1;
  assert_int_equal(mr_ipc_pages_import(0, &bad, &fd, &p), MR_ERR_INVALID_ARGUMENT);
  bad.reserved[3] = 0;
  bad.bytes = 3 * MiB;
  assert_int_equal(mr_ipc_pages_import(0, &bad, &fd, &p), MR_ERR_INVALID_ARGUMENT);
  bad.bytes = 4096;
  /* A descriptor that is no page: the driver refuses, nothing stays. */
  assert_int_equal(mr_ipc_pages_import(0, &bad, &fd, &p), MR_ERR_DRIVER);
  assert_int_equal(mr_ipc_pages_close(NULL), MR_ERR_INVALID_ARGUMENT);
  assert_fake_clean();
}

int main(void) {
  /* The test forks. The idle-memory thread, started by the first resource,
   * may be inside the fake driver at that moment, holding its lock, which
   * the child then inherits held and waits on for ever (CI's
   * AddressSanitizer stage timed out so once). No decay thread here. */
  setenv("MRCTX_IDLE_TIME", "off", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_two_processes_share_bytes, fake_test_setup,
                                      fake_teardown),
      cmocka_unit_test_setup_teardown(test_large_pages, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_refusals, fake_test_setup, fake_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
