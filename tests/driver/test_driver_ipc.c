/*
 * Pools shared between processes over the fake driver (suite fake), whose
 * shared pools carve their memory from a memfd, so two real processes
 * share bytes (tests/fake_driver/fakecuda_ipc.c):
 *  - pool(kind=device, ipc=fd) from the spec and from C build the same
 *    pool; an older caller's smaller mr_pool_desc means no handle type;
 *    pinned and managed pools, and a device without file-descriptor
 *    handles, are refused with a clear error;
 *  - two processes (the test and test_driver_ipc_peer, spawned): one
 *    allocates and writes, the other imports, checks the bytes and frees;
 *    the importer exits first, or the exporter does (after the importer's
 *    free, or even with the import live); the pools hold nothing
 *    afterwards and the fake holds nothing at all;
 *  - error paths: exporting a pool without ipc=fd or an adaptor, importing
 *    a block twice, freeing an import twice or with the wrong size,
 *    allocating from an imported pool, importing into another pool, a
 *    damaged record, a device this process does not see; a closed socket,
 *    a message without a descriptor, a short message, an unexpected
 *    descriptor; the leak report of an imported pool released with
 *    imports live; threads importing one block at once (one gets it);
 *  - sizes and devices the records claim, checked against the driver: a
 *    block exported with more bytes than its allocation or from inside
 *    it; a record whose size was raised, or whose export data names an
 *    address inside a block (the import is undone); a pool record naming
 *    another device, or with fields no exporter writes;
 *  - SEQPACKET and DGRAM sockets: a message cut by the kernel (MSG_TRUNC),
 *    a short one, control data cut (MSG_CTRUNC), and no descriptor left
 *    open; a stream reads exactly the record;
 *  - the fake itself refuses what the driver refuses.
 * The test's argument is the path of test_driver_ipc_peer.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fake_test.h"
#include "ipc_cases.h"

static const char *peer_path;

static mr_resource *new_ipc_pool(void) {
  mr_resource *pool = NULL;
  assert_ok(ipc_pool_create(&pool));
  return pool;
}

/* Export `pool` and import it in this process (the fake allows it; the
 * real driver shares between processes only). */
static mr_resource *import_here(mr_resource *pool) {
  int fd = -1;
  mr_ipc_pool_data data;
  assert_ok(mr_ipc_pool_export(pool, &fd, &data));
  assert_true(fd >= 0);
  mr_resource *imported = NULL;
  assert_ok(mr_ipc_pool_import(fd, &data, &imported));
  close(fd);
  return imported;
}

/* ---- creating shared pools ----------------------------------------------------- */

static void test_spec_and_c_build_the_same_pool(void **state) {
  mr_resource *from_spec = new_ipc_pool();
  assert_string_equal(mr_resource_describe(from_spec), "pool(kind=device, ipc=fd)");
  mr_pool_desc desc;
  mr_pool_desc_init(&desc, MR_POOL_DEVICE);
  desc.handle_type = MR_POOL_HANDLE_FD;
  mr_resource *from_c = NULL;
  assert_ok(mr_pool_resource_create(0, &desc, &from_c));
  assert_string_equal(mr_resource_describe(from_c), mr_resource_describe(from_spec));
  /* The description parses back to the same pool. */
  mr_resource *again = NULL;
  assert_ok(mr_resource_from_spec(mr_resource_describe(from_c), 0, &again));
  assert_string_equal(mr_resource_describe(again), "pool(kind=device, ipc=fd)");
  mr_resource *plain = NULL;
  assert_ok(mr_resource_from_spec("pool(kind=device, ipc=none)", 0, &plain));
  assert_string_equal(mr_resource_describe(plain), "pool(kind=device)");
  mr_resource_release(plain);
  mr_resource_release(again);
  mr_resource_release(from_c);
  mr_resource_release(from_spec);
}

static void test_older_desc_means_no_handle(void **state) {
  /* A caller built against the header before handle_type: its struct ends
   * there, and whatever follows in memory is not read. */
  mr_pool_desc desc;
  mr_pool_desc_init(&desc, MR_POOL_DEVICE);
  desc.size = offsetof(mr_pool_desc, handle_type);
  desc.handle_type = MR_POOL_HANDLE_FD;
  mr_resource *pool = NULL;
  assert_ok(mr_pool_resource_create(0, &desc, &pool));
  assert_string_equal(mr_resource_describe(pool), "pool(kind=device)");
  int fd = 7;
  mr_ipc_pool_data data;
  assert_status(mr_ipc_pool_export(pool, &fd, &data), MR_ERR_UNSUPPORTED);
  assert_error_contains("ipc=fd");
  assert_int_equal(fd, -1);
  mr_resource_release(pool);
}

static void test_kinds_that_cannot_share(void **state) {
  static const char *const specs[] = {"pool(kind=pinned, ipc=fd)", "pool(kind=managed, ipc=fd)"};
  for (size_t i = 0; i < 2; i++) {
    mr_resource *mr = NULL;
    mr_status st = mr_resource_from_spec(specs[i], 0, &mr);
    assert_int_not_equal(st, MR_OK);
    assert_null(mr);
    assert_error_contains("only device pools can be shared between processes");
  }
  mr_pool_desc desc;
  mr_pool_desc_init(&desc, MR_POOL_PINNED);
  desc.handle_type = MR_POOL_HANDLE_FD;
  mr_resource *mr = NULL;
  assert_status(mr_pool_resource_create(0, &desc, &mr), MR_ERR_UNSUPPORTED);
  desc.handle_type = (mr_pool_handle)7;
  assert_status(mr_pool_resource_create(0, &desc, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("unknown handle type 7");
  assert_int_not_equal(mr_resource_from_spec("pool(kind=device, ipc=shm)", 0, &mr), MR_OK);
  assert_error_contains("ipc");
  /* A device whose driver cannot share pools as file descriptors. */
  assert_int_equal(
      fake_cuda_set_attribute(0, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, 0),
      CUDA_SUCCESS);
  mr_pool_desc_init(&desc, MR_POOL_DEVICE);
  desc.handle_type = MR_POOL_HANDLE_FD;
  assert_status(mr_pool_resource_create(0, &desc, &mr), MR_ERR_UNSUPPORTED);
  assert_error_contains("cannot share pool memory as file descriptors");
  assert_null(mr);
}

/* ---- two processes ---------------------------------------------------------------- */

static void test_importer_exits_first(void **state) { ipc_case_importer_exits_first(peer_path); }

static void test_exporter_exits_first(void **state) { ipc_case_exporter_exits_first(peer_path); }

static void test_exporter_exits_with_an_import_live(void **state) {
  int sock = -1;
  pid_t pid = -1;
  void *p = NULL;
  ipc_block_msg block;
  mr_resource *imported = ipc_import_from_peer(peer_path, "export-exit", &pid, &sock, &p, &block);
  assert_true(ipc_send_ack(sock, MR_OK, "imported"));
  assert_int_equal(ipc_wait_peer(pid), 0);
  close(sock);
  /* The fake's mapping outlives the exporter (the real driver's rules
   * forbid this order: docs/driver.md). The free still works. */
  assert_true(ipc_check_bytes(p, (size_t)block.ptr.bytes, IPC_PATTERN_PEER));
  assert_ok(mr_deallocate(imported, p, (size_t)block.ptr.bytes, 0, NULL));
  mr_resource_release(imported);
}

/* ---- errors ------------------------------------------------------------------------ */

static void test_export_errors(void **state) {
  int fd = 9;
  mr_ipc_pool_data data;
  mr_resource *plain = NULL;
  assert_ok(mr_resource_from_spec("pool(kind=device)", 0, &plain));
  assert_status(mr_ipc_pool_export(plain, &fd, &data), MR_ERR_UNSUPPORTED);
  assert_error_contains("pool(kind=device, ipc=fd)");
  assert_int_equal(fd, -1);
  mr_ipc_ptr record;
  void *q = NULL;
  assert_ok(mr_allocate(plain, 256, 0, NULL, &q));
  assert_status(mr_ipc_ptr_export(plain, q, 256, &record), MR_ERR_UNSUPPORTED);
  assert_ok(mr_deallocate(plain, q, 256, 0, NULL));
  mr_resource_release(plain);

  mr_resource *over = NULL;
  assert_ok(mr_resource_from_spec("stats(pool(kind=device, ipc=fd))", 0, &over));
  assert_status(mr_ipc_pool_export(over, &fd, &data), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("is not a pool resource");
  mr_resource_release(over);
  assert_status(mr_ipc_pool_export(NULL, &fd, &data), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_ipc_pool_export(plain = new_ipc_pool(), NULL, &data), MR_ERR_INVALID_ARGUMENT);

  /* Blocks: not this pool's, not a block's start, nothing. */
  mr_resource *other = new_ipc_pool();
  void *p = NULL, *mine = NULL;
  assert_ok(mr_allocate(other, 1024, 0, NULL, &p));
  assert_status(mr_ipc_ptr_export(plain, p, 1024, &record), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("was not allocated from");
  assert_ok(mr_allocate(plain, 1024, 0, NULL, &mine));
  assert_status(mr_ipc_ptr_export(plain, (char *)mine + 256, 512, &record),
                MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("not its start");
  assert_status(mr_ipc_ptr_export(plain, mine, 0, &record), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_ipc_ptr_export(plain, NULL, 8, &record), MR_ERR_INVALID_ARGUMENT);
  assert_ok(mr_deallocate(plain, mine, 1024, 0, NULL));
  assert_ok(mr_deallocate(other, p, 1024, 0, NULL));
  mr_resource_release(other);
  mr_resource_release(plain);
}

static void test_import_errors(void **state) {
  mr_resource *pool = new_ipc_pool(), *other = new_ipc_pool();
  mr_resource *imported = import_here(pool), *imported_other = import_here(other);
  void *p = NULL, *q = NULL;
  assert_ok(mr_allocate(pool, 4096, 0, NULL, &p));
  assert_ok(mr_allocate(other, 4096, 0, NULL, &q));
  mr_ipc_ptr record, record_other;
  assert_ok(mr_ipc_ptr_export(pool, p, 4096, &record));
  assert_ok(mr_ipc_ptr_export(other, q, 4096, &record_other));

  /* An imported pool does not allocate, and is no pool to export. */
  void *none = (void *)1;
  assert_status(mr_allocate(imported, 256, 0, NULL, &none), MR_ERR_UNSUPPORTED);
  assert_error_contains("an imported pool cannot allocate");
  assert_null(none);
  int fd = -1;
  mr_ipc_pool_data data;
  assert_status(mr_ipc_pool_export(imported, &fd, &data), MR_ERR_INVALID_ARGUMENT);

  /* Another pool's block. */
  void *in = (void *)1;
  assert_status(mr_ipc_ptr_import(imported, &record_other, &in), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("import it into the resource its own pool was imported as");
  assert_null(in);
  /* Into what is no imported pool. */
  assert_status(mr_ipc_ptr_import(pool, &record, &in), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("is not an imported pool");
  /* A damaged record. */
  mr_ipc_ptr damaged = record;
  damaged.magic ^= 1;
  assert_status(mr_ipc_ptr_import(imported, &damaged, &in), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("not an mrctx IPC record");

  /* Import, twice; free with the wrong size, twice. */
  assert_ok(mr_ipc_ptr_import(imported, &record, &in));
  assert_true(ipc_fill(p, 4096, 0x11));
  assert_true(ipc_check_bytes(in, 4096, 0x11));
  void *again = NULL;
  assert_status(mr_ipc_ptr_import(imported, &record, &again), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("imported already");
  assert_null(again);
  assert_status(mr_deallocate(imported, in, 100, 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("it was imported with 4096");
  size_t live = 0;
  assert_ok(mr_ipc_imports_live(imported, &live));
  assert_int_equal(live, 1);
  assert_ok(mr_deallocate(imported, in, 4096, 0, NULL));
  assert_status(mr_deallocate(imported, in, 4096, 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("is not a live import of this pool");
  assert_status(mr_ipc_imports_live(pool, &live), MR_ERR_INVALID_ARGUMENT);
  /* Freed, the block can be imported again. */
  assert_ok(mr_ipc_ptr_import(imported, &record, &in));
  assert_ok(mr_deallocate(imported, in, 4096, 0, NULL));

  assert_ok(mr_deallocate(pool, p, 4096, 0, NULL));
  assert_ok(mr_deallocate(other, q, 4096, 0, NULL));
  mr_resource_release(imported_other);
  mr_resource_release(imported);
  mr_resource_release(other);
  mr_resource_release(pool);
}

static void test_pool_import_errors(void **state) {
  mr_resource *pool = new_ipc_pool();
  int fd = -1;
  mr_ipc_pool_data data;
  assert_ok(mr_ipc_pool_export(pool, &fd, &data));
  mr_resource *imported = (mr_resource *)1;
  mr_ipc_pool_data bad = data;
  bad.magic = 0;
  assert_status(mr_ipc_pool_import(fd, &bad, &imported), MR_ERR_INVALID_ARGUMENT);
  assert_null(imported);
  bad = data;
  bad.version = 99;
  assert_status(mr_ipc_pool_import(fd, &bad, &imported), MR_ERR_UNSUPPORTED);
  bad = data;
  bad.device_uuid[0] ^= 0xff;
  assert_status(mr_ipc_pool_import(fd, &bad, &imported), MR_ERR_NO_DEVICE);
  assert_error_contains("CUDA_VISIBLE_DEVICES");
  assert_status(mr_ipc_pool_import(-1, &data, &imported), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_ipc_pool_import(fd, NULL, &imported), MR_ERR_INVALID_ARGUMENT);
  /* A descriptor that is no pool's: the driver refuses it. */
  int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  assert_status(mr_ipc_pool_import(devnull, &data, &imported), MR_ERR_DRIVER);
  assert_error_contains("cuMemPoolImportFromShareableHandle");
  close(devnull);
  close(fd);
  mr_resource_release(pool);
}

static void test_socket_errors(void **state) {
  int pair[2];
  char payload[64] = "x";
  int fd = 5;
  /* A message without the descriptor that was expected. */
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
  assert_ok(mr_ipc_send(pair[0], -1, payload, sizeof payload));
  assert_status(mr_ipc_receive(pair[1], &fd, payload, sizeof payload), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("carried no file descriptor");
  assert_int_equal(fd, -1);
  /* A descriptor that was not expected: refused and closed. */
  int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  assert_ok(mr_ipc_send(pair[0], devnull, payload, sizeof payload));
  assert_status(mr_ipc_receive(pair[1], NULL, payload, sizeof payload), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("none was expected");
  /* One that was: a new descriptor of the same file. */
  assert_ok(mr_ipc_send(pair[0], devnull, payload, sizeof payload));
  assert_ok(mr_ipc_receive(pair[1], &fd, payload, sizeof payload));
  assert_true(fd >= 0 && fd != devnull);
  close(fd);
  close(devnull);
  /* A short message: the peer closes part way. */
  assert_ok(mr_ipc_send(pair[0], -1, payload, 10));
  close(pair[0]);
  assert_status(mr_ipc_receive(pair[1], NULL, payload, sizeof payload), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("short message: the peer closed the socket after 10 of 64 bytes");
  /* Then nothing at all. */
  assert_status(mr_ipc_receive(pair[1], NULL, payload, sizeof payload), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("the peer closed the socket (no message)");
  mr_resource *imported = (mr_resource *)1;
  assert_status(mr_ipc_pool_receive(pair[1], &imported), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("mr_ipc_pool_receive");
  assert_null(imported);
  close(pair[1]);
  /* Sending to a closed peer, and to what is no socket. */
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
  close(pair[1]);
  assert_status(mr_ipc_send(pair[0], -1, payload, sizeof payload), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("the peer closed the socket");
  close(pair[0]);
  devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  assert_status(mr_ipc_send(devnull, -1, payload, sizeof payload), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("not a socket");
  close(devnull);
  assert_status(mr_ipc_send(3, -1, NULL, 8), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_ipc_receive(3, NULL, payload, 0), MR_ERR_INVALID_ARGUMENT);
}

typedef struct import_race {
  mr_resource *imported;
  const mr_ipc_ptr *record;
  pthread_barrier_t *start;
  mr_status status;
  void *ptr;
} import_race;

static void *race_import(void *arg) {
  import_race *r = arg;
  pthread_barrier_wait(r->start);
  r->status = mr_ipc_ptr_import(r->imported, r->record, &r->ptr);
  return NULL;
}

/* Threads importing the same block at once: one gets it, the others are
 * told it is imported already. */
static void test_concurrent_imports_of_one_block(void **state) {
  enum { THREADS = 4 };
  mr_resource *pool = new_ipc_pool();
  mr_resource *imported = import_here(pool);
  void *p = NULL;
  assert_ok(mr_allocate(pool, 8192, 0, NULL, &p));
  mr_ipc_ptr record;
  assert_ok(mr_ipc_ptr_export(pool, p, 8192, &record));
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, THREADS);
  pthread_t threads[THREADS];
  import_race races[THREADS];
  for (int i = 0; i < THREADS; i++) {
    races[i] = (import_race){.imported = imported, .record = &record, .start = &start};
    assert_int_equal(pthread_create(&threads[i], NULL, race_import, &races[i]), 0);
  }
  int winners = 0;
  void *in = NULL;
  for (int i = 0; i < THREADS; i++) {
    pthread_join(threads[i], NULL);
    if (races[i].status == MR_OK) {
      winners++;
      in = races[i].ptr;
    } else {
      assert_int_equal(races[i].status, MR_ERR_INVALID_ARGUMENT);
      assert_null(races[i].ptr);
    }
  }
  pthread_barrier_destroy(&start);
  assert_int_equal(winners, 1);
  assert_ok(mr_deallocate(imported, in, 8192, 0, NULL));
  assert_ok(mr_deallocate(pool, p, 8192, 0, NULL));
  mr_resource_release(imported);
  mr_resource_release(pool);
}

/* Run fn with stderr going to a file; what was written there. */
static char *capture_stderr(void (*fn)(void *), void *arg) {
  char path[] = "/tmp/mrctx-ipc-stderr-XXXXXX";
  int file = mkstemp(path);
  assert_true(file >= 0);
  unlink(path);
  fflush(stderr);
  int saved = dup(2);
  dup2(file, 2);
  fn(arg);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  off_t size = lseek(file, 0, SEEK_END);
  char *text = calloc(1, (size_t)size + 1);
  assert_non_null(text);
  assert_int_equal(pread(file, text, (size_t)size, 0), size);
  close(file);
  return text;
}

static void release_resource(void *mr) { mr_resource_release(mr); }

static void test_release_with_imports_live_reports_a_leak(void **state) {
  mr_resource *pool = new_ipc_pool();
  mr_resource *imported = import_here(pool);
  void *p = NULL, *in = NULL;
  assert_ok(mr_allocate(pool, 3000, 0, NULL, &p));
  mr_ipc_ptr record;
  assert_ok(mr_ipc_ptr_export(pool, p, 3000, &record));
  assert_ok(mr_ipc_ptr_import(imported, &record, &in));
  char *report = capture_stderr(release_resource, imported);
  if (strstr(report, "mrctx: leak: ipc_import(device=0") == NULL ||
      strstr(report, "1 imported block never freed") == NULL ||
      strstr(report, "3000 bytes in all") == NULL) {
    print_error("the report was: %s\n", report);
    fail();
  }
  free(report);
  /* The driver keeps the import until it is freed: free it, as a process
   * exit would, so that the fake ends clean. */
  assert_int_equal(fake_cu()->cuMemFreeAsync((CUdeviceptr)(uintptr_t)in, NULL), CUDA_SUCCESS);
  assert_ok(mr_deallocate(pool, p, 3000, 0, NULL));
  mr_resource_release(pool);
}

/* ---- sizes and devices the records claim ------------------------------------------ */

static void test_sizes_are_checked(void **state) { ipc_case_sizes_are_checked(peer_path); }

/* "[0x..., 0x...), N bytes": the range the library's messages name. */
static void range_text(char *text, size_t size, const void *start, size_t bytes) {
  snprintf(text, size, "the driver's allocation is [0x%llx, 0x%llx), %zu bytes",
           (unsigned long long)(uintptr_t)start, (unsigned long long)(uintptr_t)start + bytes,
           bytes);
}

/* The fake carves a shared pool's blocks one after another: a size past
 * the end of one block is the next block's bytes. */
static void test_export_stays_inside_the_block(void **state) {
  mr_resource *pool = new_ipc_pool();
  void *a = NULL, *b = NULL;
  assert_ok(mr_allocate(pool, 4096, 0, NULL, &a));
  assert_ok(mr_allocate(pool, 4096, 0, NULL, &b));
  assert_ptr_equal((char *)a + 4096, b);
  char text[128];
  mr_ipc_ptr record;
  range_text(text, sizeof text, a, 4096);
  /* Bytes larger than the block: they reach into b. */
  assert_status(mr_ipc_ptr_export(pool, a, 8192, &record), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("with 8192 bytes runs past its block");
  assert_error_contains(text);
  assert_int_equal(record.magic, 0);
  assert_int_equal(record.bytes, 0);
  assert_status(mr_ipc_ptr_export(pool, a, 4097, &record), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains(text);
  assert_status(mr_ipc_ptr_export(pool, a, SIZE_MAX, &record), MR_ERR_INVALID_ARGUMENT);
  /* A pointer in the middle of another block, with a size that fits it
   * and one that runs past it. */
  range_text(text, sizeof text, b, 4096);
  assert_status(mr_ipc_ptr_export(pool, (char *)b + 1024, 512, &record), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("not its start");
  assert_error_contains(text);
  range_text(text, sizeof text, a, 4096);
  assert_status(mr_ipc_ptr_export(pool, (char *)a + 2048, 4096, &record), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains(text);
  /* The block's size, or less, is exported. */
  assert_ok(mr_ipc_ptr_export(pool, a, 4096, &record));
  assert_int_equal(record.bytes, 4096);
  assert_ok(mr_ipc_ptr_export(pool, b, 100, &record));
  assert_int_equal(record.bytes, 100);
  assert_ok(mr_deallocate(pool, b, 4096, 0, NULL));
  assert_ok(mr_deallocate(pool, a, 4096, 0, NULL));
  mr_resource_release(pool);
}

/* A record whose size was raised after export would have the importer
 * read (and believe it owns) the pool's next block, which was never
 * exported. The driver maps the whole allocation and says how long it
 * is; the import is checked against that, and undone. */
static void test_import_refuses_a_record_larger_than_its_block(void **state) {
  mr_resource *pool = new_ipc_pool();
  mr_resource *imported = import_here(pool);
  void *a = NULL, *secret = NULL;
  assert_ok(mr_allocate(pool, 4096, 0, NULL, &a));
  assert_ok(mr_allocate(pool, 4096, 0, NULL, &secret));
  assert_true(ipc_fill(a, 4096, 0x11));
  assert_true(ipc_fill(secret, 4096, 0x99));
  mr_ipc_ptr record;
  assert_ok(mr_ipc_ptr_export(pool, a, 4096, &record));
  long allocations = fake_cuda_live_allocations();

  mr_ipc_ptr forged = record;
  forged.bytes = 8192;
  void *in = (void *)1;
  assert_status(mr_ipc_ptr_import(imported, &forged, &in), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains(
      "the record says 8192 bytes, but the block the driver mapped is 4096 bytes");
  assert_null(in);
  size_t live = 1;
  assert_ok(mr_ipc_imports_live(imported, &live));
  assert_int_equal(live, 0);
  assert_int_equal(fake_cuda_imported_bytes(), 0); /* the mapping was undone */
  assert_int_equal(fake_cuda_live_allocations(), allocations);
  forged.bytes = 4097;
  assert_status(mr_ipc_ptr_import(imported, &forged, &in), MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(fake_cuda_imported_bytes(), 0);

  /* Export data naming an address inside the block rather than its start
   * (the fake's data: magic, pool ID, then the offset; fakecuda_ipc.c). */
  forged = record;
  uint64_t offset;
  memcpy(&offset, forged.data + 16, sizeof offset);
  offset += 1024;
  memcpy(forged.data + 16, &offset, sizeof offset);
  forged.bytes = 1024;
  assert_status(mr_ipc_ptr_import(imported, &forged, &in), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("and not its start");
  assert_null(in);
  assert_int_equal(fake_cuda_imported_bytes(), 0);
  assert_int_equal(fake_cuda_live_allocations(), allocations);

  /* Reserved bytes are zero in every record mr_ipc_ptr_export makes. */
  forged = record;
  forged.reserved[7] = 1;
  assert_status(mr_ipc_ptr_import(imported, &forged, &in), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("reserved bytes not zero");
  forged = record;
  forged.bytes = (uint64_t)PTRDIFF_MAX + 1;
  assert_status(mr_ipc_ptr_import(imported, &forged, &in), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("cannot come from mr_ipc_ptr_export");

  /* The true record imports, and maps the whole allocation, as the
   * driver does, even for a record of fewer bytes. */
  assert_ok(mr_ipc_ptr_import(imported, &record, &in));
  assert_int_equal(fake_cuda_imported_bytes(), 4096);
  assert_true(ipc_check_bytes(in, 4096, 0x11));
  assert_ok(mr_deallocate(imported, in, 4096, 0, NULL));
  mr_ipc_ptr prefix;
  assert_ok(mr_ipc_ptr_export(pool, a, 1000, &prefix));
  assert_ok(mr_ipc_ptr_import(imported, &prefix, &in));
  assert_int_equal(fake_cuda_imported_bytes(), 4096);
  assert_ok(mr_deallocate(imported, in, 1000, 0, NULL));
  assert_int_equal(fake_cuda_imported_bytes(), 0);

  assert_ok(mr_deallocate(pool, secret, 4096, 0, NULL));
  assert_ok(mr_deallocate(pool, a, 4096, 0, NULL));
  mr_resource_release(imported);
  mr_resource_release(pool);
}

/* A pool record naming another device than the pool's: refused, naming
 * both, rather than imported as memory of the wrong device. */
static void test_pool_record_of_another_device(void **state) {
  mr_resource *pool = new_ipc_pool();
  int fd = -1;
  mr_ipc_pool_data data;
  assert_ok(mr_ipc_pool_export(pool, &fd, &data));
  long pools = fake_cuda_live_pools();
  CUuuid other;
  CUdevice dev1;
  assert_int_equal(fake_cu()->cuDeviceGet(&dev1, 1), CUDA_SUCCESS);
  assert_int_equal(fake_cu()->cuDeviceGetUuid(&other, dev1), CUDA_SUCCESS);
  mr_ipc_pool_data forged = data;
  memcpy(forged.device_uuid, other.bytes, sizeof forged.device_uuid);
  mr_resource *imported = (mr_resource *)1;
  assert_status(mr_ipc_pool_import(fd, &forged, &imported), MR_ERR_INVALID_ARGUMENT);
  assert_null(imported);
  /* The fake's UUIDs: "fakecuda-dev" and the ordinal, as hex. */
  assert_error_contains("names the pool's device as GPU-66616b65-6375-6461-2d64-657600000001 "
                        "(device 1 here), but the driver's pool is on device 0 "
                        "(GPU-66616b65-6375-6461-2d64-657600000000)");
  assert_int_equal(fake_cuda_live_pools(), pools); /* the imported pool was let go */

  /* Fields mr_ipc_pool_export never writes. */
  forged = data;
  forged.reserved[15] = 1;
  assert_status(mr_ipc_pool_import(fd, &forged, &imported), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("reserved bytes not zero");
  forged = data;
  forged.exporter_pid = 0;
  assert_status(mr_ipc_pool_import(fd, &forged, &imported), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("exporter pid 0");
  forged = data;
  forged.exporter_device = -3;
  assert_status(mr_ipc_pool_import(fd, &forged, &imported), MR_ERR_INVALID_ARGUMENT);
  forged = data;
  forged.pool_id = 0;
  assert_status(mr_ipc_pool_import(fd, &forged, &imported), MR_ERR_INVALID_ARGUMENT);
  forged = data;
  forged.kind = 77;
  assert_status(mr_ipc_pool_import(fd, &forged, &imported), MR_ERR_UNSUPPORTED);
  assert_error_contains("(kind 77)");
  assert_null(imported);

  /* The true record imports on device 0. */
  assert_ok(mr_ipc_pool_import(fd, &data, &imported));
  mr_resource_props props = {.size = sizeof props};
  assert_ok(mr_resource_get_props(imported, &props));
  assert_int_equal(props.device, 0);
  mr_resource_release(imported);
  close(fd);
  mr_resource_release(pool);
}

/* Descriptors this process has open (the directory's own included). */
static int open_descriptors(void) {
  DIR *dir = opendir("/proc/self/fd");
  assert_non_null(dir);
  int n = 0;
  while (readdir(dir) != NULL) n++;
  closedir(dir);
  return n;
}

/* On a SEQPACKET or DGRAM socket one receive is one message: one larger
 * than the record is cut by the kernel (MSG_TRUNC), one smaller is short;
 * neither may come back as a record, and a descriptor it carried is
 * closed. Control data cut (MSG_CTRUNC) likewise. */
static void test_message_sockets_refuse_cut_messages(void **state) {
  static const int types[] = {SOCK_SEQPACKET, SOCK_DGRAM};
  int before = open_descriptors();
  for (size_t t = 0; t < 2; t++) {
    int pair[2];
    assert_int_equal(socketpair(AF_UNIX, types[t] | SOCK_CLOEXEC, 0, pair), 0);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    assert_true(devnull >= 0);
    char big[128], payload[64];
    memset(big, 'b', sizeof big);
    int fd = 5;
    /* Oversize, with a descriptor. */
    assert_ok(mr_ipc_send(pair[0], devnull, big, sizeof big));
    assert_status(mr_ipc_receive(pair[1], &fd, payload, sizeof payload), MR_ERR_INVALID_ARGUMENT);
    assert_error_contains("was 128 bytes and 64 were expected: it was truncated");
    assert_error_contains(types[t] == SOCK_SEQPACKET ? "SOCK_SEQPACKET" : "SOCK_DGRAM");
    assert_int_equal(fd, -1);
    /* Oversize, without one. */
    assert_ok(mr_ipc_send(pair[0], -1, big, sizeof big));
    assert_status(mr_ipc_receive(pair[1], NULL, payload, sizeof payload), MR_ERR_INVALID_ARGUMENT);
    assert_error_contains("truncated");
    /* Short: not joined with the next message. */
    assert_ok(mr_ipc_send(pair[0], devnull, big, 10));
    assert_ok(mr_ipc_send(pair[0], -1, big, sizeof payload));
    assert_status(mr_ipc_receive(pair[1], &fd, payload, sizeof payload), MR_ERR_INVALID_ARGUMENT);
    assert_error_contains("short message: 10 of 64 bytes in one message");
    assert_int_equal(fd, -1);
    assert_ok(mr_ipc_receive(pair[1], NULL, payload, sizeof payload));
    /* The right size comes through, with its descriptor. */
    assert_ok(mr_ipc_send(pair[0], devnull, big, sizeof payload));
    assert_ok(mr_ipc_receive(pair[1], &fd, payload, sizeof payload));
    assert_true(fd >= 0 && fd != devnull);
    close(fd);

    /* More descriptors than the receiver has room for: the control data
     * is cut; those that came are closed. */
    enum { MANY = 12 };
    union {
      char buf[CMSG_SPACE(MANY * sizeof(int))];
      struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    int fds[MANY];
    for (int i = 0; i < MANY; i++) fds[i] = devnull;
    struct iovec iov = {.iov_base = big, .iov_len = sizeof payload};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    assert_int_equal(sendmsg(pair[0], &msg, 0), (ssize_t)sizeof payload);
    assert_status(mr_ipc_receive(pair[1], &fd, payload, sizeof payload), MR_ERR_INVALID_ARGUMENT);
    assert_error_contains("control data was truncated");
    assert_int_equal(fd, -1);
    close(devnull);
    close(pair[0]);
    close(pair[1]);
  }
  /* Nothing received was left open. */
  assert_int_equal(open_descriptors(), before);
}

/* A stream keeps no boundaries: exactly the record's size is read, and
 * what follows stays for the next receive. */
static void test_stream_reads_exactly_the_record(void **state) {
  int before = open_descriptors();
  int pair[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
  char out[96], in[64];
  memset(out, 'x', 64);
  memset(out + 64, 'y', 32);
  assert_ok(mr_ipc_send(pair[0], -1, out, sizeof out));
  assert_ok(mr_ipc_receive(pair[1], NULL, in, sizeof in));
  assert_memory_equal(in, out, sizeof in);
  assert_ok(mr_ipc_receive(pair[1], NULL, in, 32));
  assert_memory_equal(in, out + 64, 32);
  close(pair[0]);
  close(pair[1]);
  assert_int_equal(open_descriptors(), before);
}

/* What the fake refuses, as the driver does. */
static void test_fake_refuses_what_the_driver_refuses(void **state) {
  const mri_cuda_api *cu = fake_cu();
  CUmemPoolProps props;
  memset(&props, 0, sizeof props);
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location = (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0};
  CUmemoryPool plain, shared, other;
  assert_int_equal(cu->cuMemPoolCreate(&plain, &props), CUDA_SUCCESS);
  props.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  assert_int_equal(cu->cuMemPoolCreate(&shared, &props), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemPoolCreate(&other, &props), CUDA_SUCCESS);
  /* Host pools are not IPC capable. */
  CUmemoryPool host;
  CUmemPoolProps host_props = props;
  host_props.location = (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_HOST, .id = 0};
  assert_int_equal(cu->cuMemPoolCreate(&host, &host_props), CUDA_ERROR_INVALID_VALUE);
  /* A pool without handle types does not export. */
  int fd = -1;
  assert_int_equal(
      cu->cuMemPoolExportToShareableHandle(&fd, plain, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
      CUDA_ERROR_INVALID_VALUE);
  CUdeviceptr a = 0, b = 0;
  assert_int_equal(cu->cuMemAllocFromPoolAsync(&a, 512, plain, NULL), CUDA_SUCCESS);
  CUmemPoolPtrExportData data;
  assert_int_equal(cu->cuMemPoolExportPointer(&data, a), CUDA_ERROR_INVALID_VALUE);
  assert_int_equal(cu->cuMemFreeAsync(a, NULL), CUDA_SUCCESS);
  /* An imported pool does not allocate, nor become a current pool. */
  assert_int_equal(cu->cuMemPoolExportToShareableHandle(
                       &fd, shared, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                   CUDA_SUCCESS);
  CUmemoryPool imported;
  assert_int_equal(cu->cuMemPoolImportFromShareableHandle(&imported, (void *)(uintptr_t)fd,
                                                          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                                                          0),
                   CUDA_SUCCESS);
  close(fd);
  assert_int_equal(cu->cuMemAllocFromPoolAsync(&a, 512, imported, NULL), CUDA_ERROR_INVALID_VALUE);
  CUmemLocation dev0 = props.location;
  assert_int_equal(cu->cuMemSetMemPool(&dev0, CU_MEM_ALLOCATION_TYPE_PINNED, imported),
                   CUDA_ERROR_INVALID_VALUE);
  /* Another pool's pointer does not import. */
  assert_int_equal(cu->cuMemAllocFromPoolAsync(&b, 512, other, NULL), CUDA_SUCCESS);
  /* As driver 580: no pointer of a pool whose handle was never exported. */
  assert_int_equal(cu->cuMemPoolExportPointer(&data, b), CUDA_ERROR_INVALID_VALUE);
  int other_fd = -1;
  assert_int_equal(cu->cuMemPoolExportToShareableHandle(
                       &other_fd, other, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                   CUDA_SUCCESS);
  close(other_fd);
  assert_int_equal(cu->cuMemPoolExportPointer(&data, b), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemPoolImportPointer(&a, imported, &data), CUDA_ERROR_INVALID_VALUE);
  /* Its own pool's does, and shares the bytes. */
  assert_int_equal(cu->cuMemFreeAsync(b, NULL), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemAllocFromPoolAsync(&b, 512, shared, NULL), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemPoolExportPointer(&data, b), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemPoolImportPointer(&a, imported, &data), CUDA_SUCCESS);
  memset((void *)(uintptr_t)b, 0x42, 512);
  assert_int_equal(*(unsigned char *)(uintptr_t)a, 0x42);
  assert_int_equal(cu->cuMemFreeAsync(a, NULL), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemFreeAsync(b, NULL), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemPoolDestroy(imported), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemPoolDestroy(other), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemPoolDestroy(shared), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemPoolDestroy(plain), CUDA_SUCCESS);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s PATH_OF_test_driver_ipc_peer\n", argv[0]);
    return 2;
  }
  peer_path = argv[1];
#define T(f) cmocka_unit_test_setup_teardown(f, fake_test_setup, fake_teardown)
  const struct CMUnitTest tests[] = {
      T(test_spec_and_c_build_the_same_pool),
      T(test_older_desc_means_no_handle),
      T(test_kinds_that_cannot_share),
      T(test_importer_exits_first),
      T(test_exporter_exits_first),
      T(test_exporter_exits_with_an_import_live),
      T(test_export_errors),
      T(test_import_errors),
      T(test_pool_import_errors),
      T(test_socket_errors),
      T(test_concurrent_imports_of_one_block),
      T(test_release_with_imports_live_reports_a_leak),
      T(test_sizes_are_checked),
      T(test_export_stays_inside_the_block),
      T(test_import_refuses_a_record_larger_than_its_block),
      T(test_pool_record_of_another_device),
      T(test_message_sockets_refuse_cut_messages),
      T(test_stream_reads_exactly_the_record),
      T(test_fake_refuses_what_the_driver_refuses),
  };
#undef T
  return cmocka_run_group_tests_name("pools shared between processes (fake driver)", tests, NULL,
                                     NULL);
}
