/*
 * held_specs.h: every resource that keeps memory for reuse, over every
 * upstream a GPU can use — the specs the held-stream scenarios
 * (held_streams.h) run against, in the fake suite and on the GPU.
 */
#ifndef MRCTX_HELD_SPECS_H
#define MRCTX_HELD_SPECS_H

static const char *const held_specs[] = {
    "cache(device)",
    "retry(cache(device))",
    "cache(pool(kind=device))",
    "expandable",
    "cache(expandable)",
    "cache(pinned)",
    "cache(managed)",
    "cache(sync_device)",
    "cache(sync_pinned)",
    "cache(sync_managed)",
    "arena(device, chunk=1MiB)",
    "arena(pool(kind=device), chunk=1MiB)",
    "arena(pinned, chunk=1MiB)",
    "arena(managed, chunk=1MiB)",
    "arena(sync_device, chunk=1MiB)",
    "arena(sync_pinned, chunk=1MiB)",
    "fixed(device, block=64KiB, count=4)",
    "fixed(pinned, block=64KiB, count=4)",
    "fixed(managed, block=64KiB, count=4)",
    "fixed(sync_device, block=64KiB, count=4)",
    "bin(device, min=256B, max=64KiB, count=4)",
    "bin(pinned, min=256B, max=64KiB, count=4)",
    "bin(sync_managed, min=256B, max=64KiB, count=4)",
};

/* Resources whose large blocks take another path (expandable's large
 * pages, and a cache's large segments on them): run with HELD_LARGE_BLOCK
 * besides the sizes every spec gets. */
static const char *const held_large_specs[] = {
    "expandable(large_page=4MiB)",
    "cache(expandable(large_page=4MiB))",
};
#define HELD_LARGE_BLOCK ((size_t)8 << 20)

#endif
