/*
 * mrctx info: what the driver shows: its version, each device, and the
 * driver's memory pools (each device's current and default pool, the pinned
 * and managed default pools) with their release thresholds and usage.
 *
 * It only reads (mr_device_get_info, mr_driver_pool_get_info): it creates no
 * resource, so it never raises a default pool's release threshold the way
 * a first allocation does.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mrctx/mrctx.h>

#include "commands.h"

typedef struct pool_report {
  mr_status status;
  char reason[512]; /* why it could not be read */
  mr_pool_info info;
} pool_report;

typedef struct device_report {
  mr_status status;
  char reason[512];
  mr_device_info info;
  mr_status memory_status; /* of mr_device_get_memory: free memory now */
  char memory_reason[512];
  uint64_t free_memory;
  pool_report current, default_pool;
} device_report;

static void read_pool(mr_driver_pool which, int device, pool_report *r) {
  memset(r, 0, sizeof *r);
  r->info.size = sizeof r->info;
  r->status = mr_driver_pool_get_info(which, device, &r->info);
  if (r->status != MR_OK) snprintf(r->reason, sizeof r->reason, "%s", mr_last_error());
}

static void read_device(int device, device_report *r) {
  memset(r, 0, sizeof *r);
  r->info.size = sizeof r->info;
  r->status = mr_device_get_info(device, &r->info);
  if (r->status != MR_OK) {
    snprintf(r->reason, sizeof r->reason, "%s", mr_last_error());
    return;
  }
  /* Free memory is the whole device's, every process's allocations
   * counted; reading it takes the device's primary context (created if no
   * one has), and a failure is shown, not fatal. */
  uint64_t total = 0;
  r->memory_status = mr_device_get_memory(device, &r->free_memory, &total);
  if (r->memory_status != MR_OK)
    snprintf(r->memory_reason, sizeof r->memory_reason, "%s", mr_last_error());
  read_pool(MR_DRIVER_POOL_DEVICE_CURRENT, device, &r->current);
  read_pool(MR_DRIVER_POOL_DEVICE_DEFAULT, device, &r->default_pool);
}

/* A pool that cannot be read because the device has none is information;
 * any other failure makes the command fail. */
static bool pool_read_failed(const pool_report *r) {
  return r->status != MR_OK && r->status != MR_ERR_UNSUPPORTED;
}

/* ---- text ------------------------------------------------------------------- */

static const char *yes_no(bool b) { return b ? "yes" : "no"; }

static void print_threshold(uint64_t threshold) {
  char size[32];
  if (threshold == MR_POOL_RELEASE_MAX) {
    printf("max");
  } else {
    mri_format_bytes(threshold, true, size, sizeof size);
    printf("%s", size);
  }
}

static void print_pool_usage(const mr_pool_info *info) {
  char reserved[32], reserved_high[32], used[32], used_high[32];
  mri_format_bytes(info->reserved_bytes, true, reserved, sizeof reserved);
  mri_format_bytes(info->reserved_high, true, reserved_high, sizeof reserved_high);
  mri_format_bytes(info->used_bytes, true, used, sizeof used);
  mri_format_bytes(info->used_high, true, used_high, sizeof used_high);
  printf("release threshold ");
  print_threshold(info->release_threshold);
  printf(", reserved %s (peak %s), used %s (peak %s)\n", reserved, reserved_high, used, used_high);
}

#define FIELD "  %-27s "

static void print_pool_line(const char *label, const pool_report *r) {
  printf(FIELD, label);
  if (r->status != MR_OK)
    printf("unavailable: %s\n", r->reason);
  else
    print_pool_usage(&r->info);
}

static void print_device(int device, const device_report *r) {
  if (r->status != MR_OK) {
    printf("device %d: unavailable: %s\n", device, r->reason);
    return;
  }
  const mr_device_info *d = &r->info;
  char total[32];
  mri_format_bytes(d->total_memory, true, total, sizeof total);
  printf("device %d: %s\n", device, d->name);
  printf(FIELD "%s\n", "total memory:", total);
  if (r->memory_status == MR_OK) {
    char free_text[32];
    mri_format_bytes(r->free_memory, true, free_text, sizeof free_text);
    printf(FIELD "%s\n", "free memory:", free_text);
  } else {
    printf(FIELD "unavailable: %s\n", "free memory:", r->memory_reason);
  }
  printf(FIELD "%d.%d\n", "compute capability:", d->compute_capability_major,
         d->compute_capability_minor);
  printf(FIELD "%s\n", "memory pools:", yes_no(d->memory_pools_supported));
  printf(FIELD "%s\n", "host memory pools:", yes_no(d->host_memory_pools_supported));
  printf(FIELD "%s\n", "managed memory:", yes_no(d->managed_memory));
  printf(FIELD "%s\n", "concurrent managed access:", yes_no(d->concurrent_managed_access));
  if (r->current.status == MR_OK && r->current.info.is_default) {
    printf(FIELD "%s\n", "current pool:", "the default pool");
  } else if (r->current.status == MR_OK) {
    printf(FIELD "set by the application: ", "current pool:");
    print_pool_usage(&r->current.info);
  } else {
    print_pool_line("current pool:", &r->current);
  }
  print_pool_line("default pool:", &r->default_pool);
}

static void print_text(int version, int count, const device_report *devices,
                       const pool_report *pinned, const pool_report *managed) {
  printf("mrctx %s\n", mr_version());
  printf("CUDA driver: %d.%d\n", version / 1000, (version % 1000) / 10);
  printf("devices: %d\n", count);
  for (int d = 0; d < count; d++) {
    printf("\n");
    print_device(d, &devices[d]);
  }
  printf("\nhost pools:\n");
  print_pool_line("pinned default pool:", pinned);
  print_pool_line("managed default pool:", managed);
}

/* ---- JSON ------------------------------------------------------------------- */

static void json_string(const char *s) { mri_json_write_string(stdout, s); }

static void json_pool(const pool_report *r) {
  if (r->status != MR_OK) {
    printf("{\"available\": false, \"reason\": ");
    json_string(r->reason);
    printf("}");
    return;
  }
  const mr_pool_info *i = &r->info;
  printf("{\"available\": true, \"kind\": \"%s\", \"device\": %d, \"is_default\": %s, "
         "\"is_current\": %s, \"release_threshold\": ",
         mr_pool_kind_name(i->kind), i->device, i->is_default ? "true" : "false",
         i->is_current ? "true" : "false");
  if (i->release_threshold == MR_POOL_RELEASE_MAX)
    printf("\"max\"");
  else
    printf("%llu", (unsigned long long)i->release_threshold);
  printf(", \"reserved_bytes\": %llu, \"reserved_high\": %llu, \"used_bytes\": %llu, "
         "\"used_high\": %llu}",
         (unsigned long long)i->reserved_bytes, (unsigned long long)i->reserved_high,
         (unsigned long long)i->used_bytes, (unsigned long long)i->used_high);
}

static void print_json(int version, int count, const device_report *devices,
                       const pool_report *pinned, const pool_report *managed) {
  printf("{\"mrctx\": ");
  json_string(mr_version());
  printf(", \"driver_version\": %d, \"devices\": [", version);
  for (int d = 0; d < count; d++) {
    const device_report *r = &devices[d];
    printf("%s\n  {\"device\": %d, ", d == 0 ? "" : ",", d);
    if (r->status != MR_OK) {
      printf("\"available\": false, \"reason\": ");
      json_string(r->reason);
      printf("}");
      continue;
    }
    const mr_device_info *i = &r->info;
    printf("\"available\": true, \"name\": ");
    json_string(i->name);
    printf(", \"total_memory\": %llu, \"compute_capability\": \"%d.%d\", "
           "\"memory_pools\": %s, \"host_memory_pools\": %s, \"managed_memory\": %s, "
           "\"concurrent_managed_access\": %s, ",
           (unsigned long long)i->total_memory, i->compute_capability_major,
           i->compute_capability_minor, i->memory_pools_supported ? "true" : "false",
           i->host_memory_pools_supported ? "true" : "false", i->managed_memory ? "true" : "false",
           i->concurrent_managed_access ? "true" : "false");
    if (r->memory_status == MR_OK)
      printf("\"free_memory\": %llu,", (unsigned long long)r->free_memory);
    else
      printf("\"free_memory\": null,");
    printf("\n   \"current_pool\": ");
    json_pool(&r->current);
    printf(",\n   \"default_pool\": ");
    json_pool(&r->default_pool);
    printf("}");
  }
  printf("],\n \"pinned_default_pool\": ");
  json_pool(pinned);
  printf(",\n \"managed_default_pool\": ");
  json_pool(managed);
  printf("}\n");
}

/* ---- the verb ------------------------------------------------------------- */

static void info_usage(FILE *out) {
  fprintf(out, "usage: mrctx info [--json]\n"
               "\n"
               "Show the CUDA driver's version, each device (name, total memory and\n"
               "what is free now on the whole device, compute capability, pool and\n"
               "managed-memory support) and the driver's memory\n"
               "pools: each device's current and default pool, the pinned and managed\n"
               "default pools, with release threshold (max: keeps all freed memory),\n"
               "reserved and used bytes. Reading changes no pool.\n"
               "\n"
               "  --json   the same as one JSON object\n"
               "\n"
               "Exit status: 0 shown, 1 a device or pool could not be read, 2 bad usage,\n"
               "3 no driver or no device (one line, or --json's \"error\", says why).\n");
}

/* No driver (or no device): one line saying why, on standard output (it is
 * the answer to "what is there"), and exit status 3, so that a script can
 * tell a machine without a GPU from one that shows its devices (0) and from
 * a failure to read them (1). */
static int report_unavailable(bool json) {
  if (json) {
    printf("{\"mrctx\": ");
    json_string(mr_version());
    printf(", \"error\": ");
    json_string(mr_last_error());
    printf("}\n");
  } else {
    printf("mrctx info: %s\n", mr_last_error());
  }
  return MRCTX_EXIT_UNAVAILABLE;
}

int mrctx_cmd_info(int argc, char **argv) {
  if (mrctx_wants_help(argc, argv)) {
    info_usage(stdout);
    return MRCTX_EXIT_OK;
  }
  static const struct option longopts[] = {{"json", no_argument, NULL, 'j'}, {NULL, 0, NULL, 0}};
  bool json = false;
  optind = 1;
  int c;
  while ((c = mrctx_getopt("info", argc, argv, "", longopts)) != -1) {
    if (c != 'j') {
      info_usage(stderr);
      return MRCTX_EXIT_USAGE;
    }
    json = true;
  }

  mr_status st = mr_driver_load();
  if (st == MR_ERR_NO_DRIVER || st == MR_ERR_NO_DEVICE) return report_unavailable(json);
  int version = 0, count = 0;
  if (st == MR_OK) st = mr_driver_version(&version);
  if (st == MR_OK) st = mr_device_count(&count);
  if (st != MR_OK) {
    fprintf(stderr, "mrctx info: %s\n", mr_last_error());
    return MRCTX_EXIT_FAILURE;
  }

  device_report *devices = calloc(count > 0 ? (size_t)count : 1, sizeof *devices);
  if (devices == NULL) {
    fprintf(stderr, "mrctx info: out of memory\n");
    return MRCTX_EXIT_FAILURE;
  }
  bool failed = false;
  for (int d = 0; d < count; d++) {
    read_device(d, &devices[d]);
    failed |= devices[d].status != MR_OK || pool_read_failed(&devices[d].current) ||
              pool_read_failed(&devices[d].default_pool);
  }
  /* The host pools are the same for every device; device 0 picks the
   * context the driver wants for the query. */
  pool_report pinned, managed;
  read_pool(MR_DRIVER_POOL_PINNED_DEFAULT, 0, &pinned);
  read_pool(MR_DRIVER_POOL_MANAGED_DEFAULT, 0, &managed);
  failed |= pool_read_failed(&pinned) || pool_read_failed(&managed);

  if (json)
    print_json(version, count, devices, &pinned, &managed);
  else
    print_text(version, count, devices, &pinned, &managed);
  free(devices);
  return failed ? MRCTX_EXIT_FAILURE : MRCTX_EXIT_OK;
}
