/*
 * test_snapshot_merge.c (unit): where a snapshot was taken (the host, and
 * the rank, local rank and world size its launcher's variables say, in
 * their documented order), those fields and device memory in the JSON both
 * ways (files without them still read), and several processes' snapshots
 * merged into one view: two ranks of one host, three processes on two
 * hosts, the same pid on two hosts, the latest device-memory reading per
 * host, and the merge's argument errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "context/snapshot_internal.h"
#include "test_util.h"

static void assert_contains(const char *text, const char *needle) {
  if (strstr(text, needle) == NULL) fail_msg("\"%s\" not found in:\n%s", needle, text);
}

static void assert_lacks(const char *text, const char *needle) {
  if (strstr(text, needle) != NULL) fail_msg("\"%s\" found in:\n%s", needle, text);
}

static mr_snapshot *read_text(const char *json) {
  mr_snapshot *snap = NULL;
  mr_status st = mr_snapshot_read(json, strlen(json), &snap);
  if (st != MR_OK) fail_msg("mr_snapshot_read: %s\n%s", mr_last_error(), json);
  return snap;
}

typedef mr_status (*writer)(const mr_snapshot *const *snapshots, size_t count, FILE *out);

/* What `write` writes, malloc'd. */
static char *written(writer write, const mr_snapshot *const *snaps, size_t count) {
  char *text = NULL;
  size_t length = 0;
  FILE *f = open_memstream(&text, &length);
  assert_non_null(f);
  mr_status st = write(snaps, count, f);
  fclose(f);
  if (st != MR_OK) fail_msg("merge: %s", mr_last_error());
  /* A copy: gcc -O3 takes pointers into the buffer open_memstream filled
   * through &text for pointers to the local itself (-Wdangling-pointer). */
  char *copy = strdup(text);
  free(text);
  assert_non_null(copy);
  return copy;
}

/* Where `needle` starts in `text`, or -1. */
static ptrdiff_t offset_of(const char *text, const char *needle) {
  const char *at = strstr(text, needle);
  return at == NULL ? -1 : at - text;
}

/* One snapshot as mr_snapshot_write_json or _text writes it, malloc'd. */
static char *single(mr_status (*write)(const mr_snapshot *, FILE *), const mr_snapshot *snap) {
  char *text = NULL;
  size_t length = 0;
  FILE *f = open_memstream(&text, &length);
  assert_ok(write(snap, f));
  fclose(f);
  return text;
}
#define single_json(snap) single(mr_snapshot_write_json, (snap))
#define single_text(snap) single(mr_snapshot_write_text, (snap))

/* A snapshot file of one process: `where` is the members after "pid"
 * (host, rank, ...), `bytes` what its one tag "train:memory" holds on
 * device `device`, `devices` the "devices" member or "". */
static char *snapshot_json(long pid, const char *where, int device, unsigned long long bytes,
                           unsigned long long time, const char *devices) {
  char *text = NULL;
  int n = asprintf(&text,
                   "{\"schema\": \"mrctx-snapshot\", \"version\": 1, \"mrctx_version\": \"0.2.0\","
                   " \"pid\": %ld, %s \"time_unix_ns\": %llu, \"trigger\": \"request\","
                   " \"contexts\": [{\"id\": 1, \"library\": \"train\", \"device_count\": %d,"
                   " \"tags\": [{\"tag\": \"memory\", \"devices\": [%s{\"device\": %d,"
                   " \"spec\": \"retry(cache(device))\", \"origin\": \"env\", \"stats\":"
                   " {\"current_bytes\": %llu, \"peak_bytes\": %llu, \"total_bytes\": %llu,"
                   " \"current_count\": 1, \"peak_count\": 1, \"total_count\": 1,"
                   " \"failed_count\": 0}}]}]}], \"pools\": []%s}",
                   pid, where, time, device + 1,
                   device == 1 ? "{\"device\": 0, \"spec\": \"device\", \"origin\": \"default\","
                                 " \"stats\": {\"current_bytes\": 0, \"peak_bytes\": 0,"
                                 " \"total_bytes\": 0, \"current_count\": 0, \"peak_count\": 0,"
                                 " \"total_count\": 0, \"failed_count\": 0}}, "
                               : "",
                   device, bytes, bytes, bytes, devices);
  assert_true(n > 0);
  return text;
}

/* ---- where a snapshot was taken -------------------------------------------------- */

static const char *const launcher_vars[] = {
    "RANK",       "OMPI_COMM_WORLD_RANK",       "PMI_RANK",        "SLURM_PROCID",
    "LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID",
    "WORLD_SIZE", "OMPI_COMM_WORLD_SIZE",       "PMI_SIZE",        "SLURM_NTASKS"};

static void clear_launcher(void) {
  for (size_t i = 0; i < sizeof launcher_vars / sizeof *launcher_vars; i++)
    unsetenv(launcher_vars[i]);
}

static mr_snapshot_info info_now(void) {
  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_take(NULL, &snap));
  mr_snapshot_info info = {.size = sizeof info};
  assert_ok(mr_snapshot_get_info(snap, &info));
  char host[256];
  assert_int_equal(gethostname(host, sizeof host), 0);
  host[sizeof host - 1] = '\0';
  assert_non_null(info.host);
  assert_string_equal(info.host, host);
  mr_snapshot_destroy(snap); /* info's strings are not used past here */
  info.host = NULL;
  return info;
}

static void test_host_and_ranks(void **state) {
  (void)state;
  clear_launcher();
  mr_snapshot_info info = info_now();
  assert_int_equal(info.rank, -1);
  assert_int_equal(info.local_rank, -1);
  assert_int_equal(info.world_size, -1);

  /* torchrun's variables first. */
  setenv("RANK", "3", 1);
  setenv("LOCAL_RANK", "1", 1);
  setenv("WORLD_SIZE", "8", 1);
  setenv("SLURM_PROCID", "7", 1);
  info = info_now();
  assert_int_equal(info.rank, 3);
  assert_int_equal(info.local_rank, 1);
  assert_int_equal(info.world_size, 8);

  /* Then Open MPI's, then PMI's, then Slurm's; a value that is not a whole
   * number from 0 up is passed over. */
  clear_launcher();
  setenv("RANK", "first", 1);
  setenv("OMPI_COMM_WORLD_RANK", "-2", 1);
  setenv("PMI_RANK", "", 1);
  setenv("SLURM_PROCID", "5", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "2", 1);
  setenv("SLURM_LOCALID", "9", 1);
  setenv("PMI_SIZE", "6x", 1);
  setenv("SLURM_NTASKS", "6", 1);
  info = info_now();
  assert_int_equal(info.rank, 5);
  assert_int_equal(info.local_rank, 2);
  assert_int_equal(info.world_size, 6);

  /* An older caller's struct ends before the new fields: still filled. */
  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_take(NULL, &snap));
  mr_snapshot_info old = {.size = MRI_SIZE_THROUGH(mr_snapshot_info, context_count)};
  old.rank = 77;
  assert_ok(mr_snapshot_get_info(snap, &old));
  assert_int_equal(old.size, MRI_SIZE_THROUGH(mr_snapshot_info, context_count));
  assert_int_equal(old.rank, 77); /* past its size: untouched */

  /* In the JSON and the text, and back. */
  char *json = single_json(snap);
  assert_contains(json, "\"rank\": 5,\n");
  assert_contains(json, "\"local_rank\": 2,\n");
  assert_contains(json, "\"world_size\": 6,\n");
  assert_contains(json, "\"host\": \"");
  mr_snapshot *back = read_text(json);
  char *again = single_json(back);
  assert_string_equal(json, again);
  char *text = single_text(back);
  assert_contains(text, ", rank 5 of 6, local rank 2\n");
  assert_contains(text, ")\nhost "); /* right under the first line */
  free(json);
  free(again);
  free(text);
  mr_snapshot_destroy(back);
  mr_snapshot_destroy(snap);
  clear_launcher();
}

/* A file without host, ranks or devices (written before they were
 * recorded) reads, writes back without them and shows no host line;
 * one with them keeps them; bad values are named. */
static void test_old_and_new_files(void **state) {
  (void)state;
  char *old = snapshot_json(10, "", 0, 1024, 1000000000, "");
  mr_snapshot *snap = read_text(old);
  mr_snapshot_info info = {.size = sizeof info};
  assert_ok(mr_snapshot_get_info(snap, &info));
  assert_null(info.host);
  assert_int_equal(info.rank, -1);
  assert_int_equal(info.local_rank, -1);
  assert_int_equal(info.world_size, -1);
  char *json = single_json(snap);
  assert_lacks(json, "\"host\"");
  assert_lacks(json, "\"rank\"");
  assert_lacks(json, "\"devices\": [\n    {\"device\"");
  char *text = single_text(snap);
  assert_lacks(text, "\nhost ");
  assert_lacks(text, "device memory");
  free(json);
  free(text);
  mr_snapshot_destroy(snap);
  free(old);

  char *with =
      snapshot_json(11, "\"host\": \"gpu07\", \"rank\": 1, \"world_size\": 2,", 0, 1024, 1000000000,
                    ", \"devices\": [{\"device\": 0, \"free_bytes\": 3221225472, \"total_bytes\": "
                    "4294967296}]");
  snap = read_text(with);
  json = single_json(snap);
  assert_contains(json, "  \"host\": \"gpu07\",\n  \"rank\": 1,\n  \"world_size\": 2,\n");
  assert_lacks(json, "local_rank");
  assert_contains(json, "\"devices\": [\n    {\"device\": 0, \"free_bytes\": 3221225472, "
                        "\"total_bytes\": 4294967296}\n  ]\n}\n");
  mr_snapshot *back = read_text(json);
  char *again = single_json(back);
  assert_string_equal(json, again);
  text = single_text(back);
  assert_contains(text, "\nhost gpu07, rank 1 of 2\n");
  assert_contains(text, "device memory (every process's use counts)\n"
                        "device 0: 3.0 GiB free of 4.0 GiB (25% in use)\n");
  free(json);
  free(again);
  free(text);
  mr_snapshot_destroy(back);
  mr_snapshot_destroy(snap);
  free(with);

  static const struct {
    const char *where, *devices, *message;
  } bad[] = {
      {"\"host\": 7,", "", "host: expected a string, found a number"},
      {"\"rank\": -1,", "", "rank: expected a whole number from 0"},
      {"\"world_size\": \"2\",", "", "world_size: expected a number, found a string"},
      {"", ", \"devices\": [{\"device\": 0, \"free_bytes\": 1}]",
       "devices[0]: the member \"total_bytes\" is missing"},
      {"", ", \"devices\": [3]", "devices[0]: expected an object, found a number"},
      {"", ", \"devices\": {}", "devices: expected an array, found an object"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char *file = snapshot_json(12, bad[i].where, 0, 1, 1, bad[i].devices);
    mr_snapshot *s = (mr_snapshot *)0x1;
    assert_status(mr_snapshot_read(file, strlen(file), &s), MR_ERR_INVALID_ARGUMENT);
    assert_null(s);
    assert_error_contains(bad[i].message);
    free(file);
  }
}

/* ---- merging --------------------------------------------------------------------- */

static void test_merge_two_ranks(void **state) {
  (void)state;
  char *a = snapshot_json(4242,
                          "\"host\": \"gpu07\", \"rank\": 1, \"local_rank\": 1, "
                          "\"world_size\": 2,",
                          1, 3u << 20, 2000000000,
                          ", \"devices\": [{\"device\": 1, \"free_bytes\": 100, "
                          "\"total_bytes\": 1000}]");
  char *b = snapshot_json(4241,
                          "\"host\": \"gpu07\", \"rank\": 0, \"local_rank\": 0, "
                          "\"world_size\": 2,",
                          1, 5u << 20, 1000000000,
                          ", \"devices\": [{\"device\": 1, \"free_bytes\": 900, "
                          "\"total_bytes\": 1000}]");
  /* Given rank 1 first: the view orders by rank, names each by its index. */
  const mr_snapshot *snaps[] = {read_text(a), read_text(b)};
  char *json = written(mr_snapshot_write_merged_json, snaps, 2);
  assert_contains(json, "\"schema\": \"mrctx-snapshot-merged\",\n  \"version\": 1,\n");
  assert_contains(json, "{\"process\": 0, \"host\": \"gpu07\", \"pid\": 4242, \"rank\": 1, "
                        "\"local_rank\": 1, \"world_size\": 2, \"time_unix_ns\": 2000000000");
  const char *rank0 = strstr(json, "{\"process\": 1, \"host\": \"gpu07\", \"pid\": 4241, "
                                   "\"rank\": 0, \"device\": 1, \"library\": \"train\", "
                                   "\"tag\": \"memory\", \"spec\": \"retry(cache(device))\", "
                                   "\"stats\": {\"current_bytes\": 5242880");
  const char *rank1 = strstr(json, "{\"process\": 0, \"host\": \"gpu07\", \"pid\": 4242, "
                                   "\"rank\": 1, \"device\": 1");
  assert_non_null(rank0);
  assert_non_null(rank1);
  assert_true(rank0 < rank1);
  /* One device: both processes' bytes, the memory of the later snapshot. */
  assert_contains(json, "\"devices\": [\n    {\"host\": \"gpu07\", \"device\": 1, "
                        "\"current_bytes\": 8388608, \"peak_bytes\": 8388608, "
                        "\"processes\": 2, \"free_bytes\": 100, \"total_bytes\": 1000}\n  ],\n");
  assert_contains(json, "\"total\": {\"current_bytes\": 8388608, \"processes\": 2, \"hosts\": 1, "
                        "\"rows\": 2, \"idle_slots\": 2}");

  char *text = written(mr_snapshot_write_merged_text, snaps, 2);
  assert_contains(text, "mrctx: 2 snapshots of 1 host\n");
  assert_contains(text, "memory by host, process, device, library and tag\n");
  const char *t0 = strstr(text, "gpu07    0/2     4241      1  train:memory    5.0 MiB");
  const char *t1 = strstr(text, "gpu07    1/2     4242      1  train:memory    3.0 MiB");
  if (t0 == NULL || t1 == NULL) fail_msg("rows not found in:\n%s", text);
  assert_true(t0 < t1);
  assert_contains(text, "(2 tag and device slots that never allocated not shown)\n");
  assert_contains(text, "totals by host and device\n");
  assert_contains(text, "gpu07      1    8.0 MiB     8.0 MiB         2  100 B free of 1000 B "
                        "(90% in use)\n");
  assert_contains(text, "total           8.0 MiB                     2\n");
  free(json);
  free(text);
  for (size_t i = 0; i < 2; i++) mr_snapshot_destroy((mr_snapshot *)snaps[i]);
  free(a);
  free(b);
}

/* Three processes on two hosts, two of them with the same pid (each host
 * numbers its own processes): rows and devices kept apart by host. */
static void test_merge_three_on_two_hosts(void **state) {
  (void)state;
  char *files[] = {
      snapshot_json(100, "\"host\": \"node-b\", \"rank\": 2, \"world_size\": 3,", 0, 1u << 20, 5,
                    ""),
      snapshot_json(100, "\"host\": \"node-a\", \"rank\": 0, \"world_size\": 3,", 0, 2u << 20, 5,
                    ""),
      snapshot_json(101, "\"host\": \"node-a\", \"rank\": 1, \"world_size\": 3,", 0, 4u << 20, 5,
                    ""),
  };
  const mr_snapshot *snaps[3];
  for (size_t i = 0; i < 3; i++) snaps[i] = read_text(files[i]);
  char *json = written(mr_snapshot_write_merged_json, snaps, 3);
  ptrdiff_t a0 = offset_of(json, "{\"process\": 1, \"host\": \"node-a\", \"pid\": 100, "
                                 "\"rank\": 0, \"device\": 0");
  ptrdiff_t a1 = offset_of(json, "{\"process\": 2, \"host\": \"node-a\", \"pid\": 101, "
                                 "\"rank\": 1, \"device\": 0");
  ptrdiff_t b2 = offset_of(json, "{\"process\": 0, \"host\": \"node-b\", \"pid\": 100, "
                                 "\"rank\": 2, \"device\": 0");
  if (a0 < 0 || a1 < 0 || b2 < 0) fail_msg("rows not found in:\n%s", json);
  assert_true(a0 < a1 && a1 < b2);
  assert_contains(json, "{\"host\": \"node-a\", \"device\": 0, \"current_bytes\": 6291456, "
                        "\"peak_bytes\": 6291456, \"processes\": 2, \"free_bytes\": null, "
                        "\"total_bytes\": null}");
  assert_contains(json, "{\"host\": \"node-b\", \"device\": 0, \"current_bytes\": 1048576, "
                        "\"peak_bytes\": 1048576, \"processes\": 1, \"free_bytes\": null, "
                        "\"total_bytes\": null}");
  assert_contains(json, "\"total\": {\"current_bytes\": 7340032, \"processes\": 3, \"hosts\": 2, "
                        "\"rows\": 3, \"idle_slots\": 0}");
  char *text = written(mr_snapshot_write_merged_text, snaps, 3);
  assert_contains(text, "mrctx: 3 snapshots of 2 hosts\n");
  assert_contains(text, "node-a      0    6.0 MiB     6.0 MiB         2  not read\n");
  assert_contains(text, "node-b      0    1.0 MiB     1.0 MiB         1  not read\n");
  free(json);
  free(text);

  /* One snapshot as the merged view; one without host or rank. */
  char *bare = snapshot_json(7, "", 0, 1u << 10, 5, "");
  const mr_snapshot *one[] = {read_text(bare)};
  json = written(mr_snapshot_write_merged_json, one, 1);
  assert_contains(json, "{\"process\": 0, \"host\": null, \"pid\": 7, \"rank\": null, "
                        "\"local_rank\": null, \"world_size\": null,");
  text = written(mr_snapshot_write_merged_text, one, 1);
  assert_contains(text, "-          -        7      0  train:memory    1.0 KiB");
  free(json);
  free(text);
  mr_snapshot_destroy((mr_snapshot *)one[0]);
  free(bare);
  for (size_t i = 0; i < 3; i++) {
    mr_snapshot_destroy((mr_snapshot *)snaps[i]);
    free(files[i]);
  }
}

static void test_merge_arguments(void **state) {
  (void)state;
  char *file = snapshot_json(7, "", 0, 1, 5, "");
  const mr_snapshot *snaps[] = {read_text(file), NULL};
  writer writers[] = {mr_snapshot_write_merged_text, mr_snapshot_write_merged_json};
  for (size_t w = 0; w < 2; w++) {
    assert_status(writers[w](snaps, 0, stdout), MR_ERR_INVALID_ARGUMENT);
    assert_error_contains("no snapshots to merge");
    assert_status(writers[w](NULL, 1, stdout), MR_ERR_INVALID_ARGUMENT);
    assert_error_contains("snapshots is NULL");
    assert_status(writers[w](snaps, 2, stdout), MR_ERR_INVALID_ARGUMENT);
    assert_error_contains("snapshots[1] is NULL");
    assert_status(writers[w](snaps, 1, NULL), MR_ERR_INVALID_ARGUMENT);
    assert_error_contains("out is NULL");
  }
  FILE *full = fopen("/dev/full", "w");
  if (full != NULL) {
    assert_status(mr_snapshot_write_merged_json(snaps, 1, full), MR_ERR_INVALID_ARGUMENT);
    assert_error_contains("writing failed");
    fclose(full);
  }
  mr_snapshot_destroy((mr_snapshot *)snaps[0]);
  free(file);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_host_and_ranks),  cmocka_unit_test(test_old_and_new_files),
      cmocka_unit_test(test_merge_two_ranks), cmocka_unit_test(test_merge_three_on_two_hosts),
      cmocka_unit_test(test_merge_arguments),
  };
  return cmocka_run_group_tests_name("snapshot merge", tests, NULL, NULL);
}
