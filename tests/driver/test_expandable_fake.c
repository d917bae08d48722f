/*
 * test_expandable_fake.c: expandable(...) over the fake driver, whose
 * virtual memory management keeps books a test can read
 * (fake_cuda_vmm_books): one reserved range per stream, pages mapped as
 * blocks land on them, kept when idle, given back by trim and the
 * process-wide reclaim only after the stream's work on them, granularity
 * rounding, a larger page for large blocks, out-of-memory through the
 * reclaim, capture, bad frees, and a device without virtual memory
 * management.
 */
#include <string.h>

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

static void test_describes_and_rounds(void **state) {
  mr_resource *mr = make("expandable");
  assert_string_equal(mr_resource_describe(mr), "expandable");
  mr_resource_release(mr);
  /* A page is a whole number of the driver's 2 MiB granules; the
   * description says what it became, and reads back the same. */
  mr = make("expandable(page=3MiB, reserve=5MiB)");
  assert_string_equal(mr_resource_describe(mr), "expandable(page=4MiB, reserve=8MiB)");
  mr_resource *again = make(mr_resource_describe(mr));
  assert_string_equal(mr_resource_describe(again), mr_resource_describe(mr));
  mr_resource_release(again);
  mr_resource_release(mr);
  mr = make("expandable(page=2MiB, ipc=fd)");
  assert_string_equal(mr_resource_describe(mr), "expandable(ipc=fd)");
  mr_resource_props props = {.size = sizeof props};
  assert_ok(mr_resource_get_props(mr, &props));
  assert_int_equal(props.kind, MR_MEMORY_DEVICE);
  assert_int_equal(props.device, 0);
  assert_true(props.stream_ordered);
  mr_resource_release(mr);
  /* The C constructor with NULL builds the default. */
  assert_ok(mr_expandable_resource_create(0, NULL, &mr));
  assert_string_equal(mr_resource_describe(mr), "expandable");
  mr_resource_release(mr);
  /* Nothing was reserved: ranges come with the first allocation. */
  assert_int_equal(fake_cuda_vmm_books().reserved_ranges, 0);
}

/* A page that is not a power of two (20 MiB: ten of the driver's 2 MiB
 * granules) still reserves and maps: the range is aligned to the largest
 * power of two the page is a multiple of, not to the page itself, which the
 * driver refuses as an alignment (CUDA_ERROR_INVALID_VALUE on an H100,
 * as the fake does). */
static void test_page_not_power_of_two(void **state) {
  mr_resource *mr = make("expandable(page=6MiB, reserve=24MiB)");
  assert_string_equal(mr_resource_describe(mr), "expandable(page=6MiB, reserve=24MiB)");
  CUstream s = fake_new_stream();
  void *a = NULL, *b = NULL;
  assert_ok(mr_allocate(mr, 4096, 0, s, &a));
  assert_ok(mr_allocate(mr, (size_t)7 << 20, 0, s, &b));
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, (size_t)12 << 20);
  memset(b, 0x5a, (size_t)7 << 20);
  assert_ok(mr_deallocate(mr, b, (size_t)7 << 20, 0, s));
  assert_ok(mr_deallocate(mr, a, 4096, 0, s));
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, 0);
  mr_resource_release(mr);
  assert_int_equal(fake_cu()->cuStreamDestroy(s), CUDA_SUCCESS);
  assert_fake_clean();
}

/* Blocks on one stream share one range; pages are mapped as the blocks
 * reach them, in the device's memory, and stay mapped when idle. */
static void test_grows_by_pages(void **state) {
  mr_resource *mr = make("expandable(reserve=64MiB)");
  CUstream s = fake_new_stream();
  void *a = NULL, *b = NULL, *c = NULL;
  assert_ok(mr_allocate(mr, 4096, 0, s, &a));
  fake_vmm_books books = fake_cuda_vmm_books();
  assert_int_equal(books.reserved_ranges, 1);
  assert_int_equal(books.reserved_bytes, 64 * MiB);
  assert_int_equal(books.mapped_bytes, 2 * MiB);
  assert_int_equal(fake_cuda_used_memory(0), 2 * MiB);
  /* 3 MiB after the first 4 KiB: pages 0 and 1. */
  assert_ok(mr_allocate(mr, 3 * MiB, 0, s, &b));
  assert_ptr_equal(b, (char *)a + 4096);
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, 4 * MiB);
  memset(b, 0x7e, 3 * MiB); /* mapped with access: the host can write it */
  assert_ok(mr_allocate(mr, 256, 0, s, &c));
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, 4 * MiB); /* lands on page 1 */
  assert_ok(mr_deallocate(mr, b, 3 * MiB, 0, s));
  assert_ok(mr_deallocate(mr, a, 4096, 0, s));
  /* Freed space is reused lowest first, on pages still mapped. */
  void *d = NULL;
  assert_ok(mr_allocate(mr, MiB, 0, s, &d));
  assert_ptr_equal(d, a);
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, 4 * MiB);
  assert_ok(mr_deallocate(mr, d, MiB, 0, s));
  assert_ok(mr_deallocate(mr, c, 256, 0, s));
  /* Idle pages stay mapped until someone asks for them. */
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, 4 * MiB);
  /* A second stream gets its own range. */
  CUstream t = fake_new_stream();
  assert_ok(mr_allocate(mr, 4096, 0, t, &a));
  assert_int_equal(fake_cuda_vmm_books().reserved_ranges, 2);
  assert_ok(mr_deallocate(mr, a, 4096, 0, t));
  mr_resource_release(mr);
  assert_int_equal(fake_cu()->cuStreamDestroy(s), CUDA_SUCCESS);
  assert_int_equal(fake_cu()->cuStreamDestroy(t), CUDA_SUCCESS);
  assert_fake_clean();
  assert_int_equal(fake_cuda_used_memory(0), 0);
}

/* Idle pages go back only after the stream's work on them: trim waits
 * for the free's event, which in the fake lets the busy stream's work
 * finish; the pages and the range then go. */
static void test_trim_after_stream_work(void **state) {
  mr_resource *mr = make("expandable(reserve=64MiB)");
  CUstream s = fake_new_stream();
  void *p = NULL;
  assert_ok(mr_allocate(mr, 5 * MiB, 0, s, &p));
  assert_int_equal(fake_cuda_set_stream_busy(s, true), CUDA_SUCCESS);
  assert_ok(mr_deallocate(mr, p, 5 * MiB, 0, s));
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, 6 * MiB);
  assert_int_equal(fake_cu()->cuStreamQuery(s), CUDA_ERROR_NOT_READY);
  long waits = fake_cuda_calls("cuEventSynchronize");
  assert_ok(mr_resource_trim(mr));
  assert_true(fake_cuda_calls("cuEventSynchronize") > waits);
  /* The wait came first: the stream's work is done, then nothing is left. */
  assert_int_equal(fake_cu()->cuStreamQuery(s), CUDA_SUCCESS);
  fake_vmm_books books = fake_cuda_vmm_books();
  assert_int_equal(books.mapped_bytes, 0);
  assert_int_equal(books.handles, 0);
  assert_int_equal(books.reserved_ranges, 0);
  assert_int_equal(fake_cuda_used_memory(0), 0);
  /* Live blocks keep their pages through a trim. */
  void *q = NULL, *r = NULL;
  assert_ok(mr_allocate(mr, MiB, 0, s, &q));
  assert_ok(mr_allocate(mr, 2 * MiB, 0, s, &r)); /* pages 0 and 1 */
  assert_ok(mr_deallocate(mr, r, 2 * MiB, 0, s));
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, 2 * MiB); /* page 0, under q */
  memset(q, 1, MiB);
  assert_ok(mr_deallocate(mr, q, MiB, 0, s));
  mr_resource_release(mr);
  assert_int_equal(fake_cu()->cuStreamDestroy(s), CUDA_SUCCESS);
  assert_fake_clean();
}

/* mr_release_idle and an allocation that runs out reach expandable's idle
 * pages (the process-wide reclaim). */
static void test_reclaim(void **state) {
  mr_resource *mr = make("expandable(reserve=64MiB)");
  CUstream s = fake_new_stream(), t = fake_new_stream();
  void *p = NULL;
  assert_ok(mr_allocate(mr, 4 * MiB, 0, s, &p));
  assert_ok(mr_deallocate(mr, p, 4 * MiB, 0, s));
  size_t released = 0;
  assert_ok(mr_release_idle(0, 0, &released));
  assert_true(released >= 4 * MiB);
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, 0);
  assert_int_equal(fake_cuda_used_memory(0), 0);

  /* 8 MiB in all: stream s's idle 6 MiB must go back for t's 6 MiB. */
  assert_int_equal(fake_cuda_set_total_memory(0, 8 * MiB), CUDA_SUCCESS);
  assert_ok(mr_allocate(mr, 6 * MiB, 0, s, &p));
  assert_ok(mr_deallocate(mr, p, 6 * MiB, 0, s));
  assert_int_equal(fake_cuda_used_memory(0), 6 * MiB);
  void *q = NULL;
  assert_ok(mr_allocate(mr, 6 * MiB, 0, t, &q));
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, 6 * MiB);
  /* Live memory is never taken: a second 6 MiB fails, and says so. */
  assert_int_equal(mr_allocate(mr, 6 * MiB, 0, s, &p), MR_ERR_OUT_OF_MEMORY);
  assert_null(p);
  assert_non_null(strstr(mr_last_error(), "cuMemCreate"));
  assert_ok(mr_deallocate(mr, q, 6 * MiB, 0, t));
  mr_resource_release(mr);
  assert_int_equal(fake_cu()->cuStreamDestroy(s), CUDA_SUCCESS);
  assert_int_equal(fake_cu()->cuStreamDestroy(t), CUDA_SUCCESS);
  assert_fake_clean();
}

/* A block freed on another stream goes back after that stream's work; a
 * range too small for a block says what to change. */
static void test_other_stream_and_limits(void **state) {
  mr_resource *mr = make("expandable(reserve=4MiB)");
  CUstream s = fake_new_stream(), t = fake_new_stream();
  void *p = NULL;
  assert_ok(mr_allocate(mr, MiB, 0, s, &p));
  assert_int_equal(fake_cuda_set_stream_busy(t, true), CUDA_SUCCESS);
  assert_ok(mr_deallocate(mr, p, MiB, 0, t));
  assert_int_equal(fake_cu()->cuStreamQuery(t), CUDA_SUCCESS); /* waited for */
  void *q = NULL;
  assert_ok(mr_allocate(mr, MiB, 0, s, &q));
  assert_ptr_equal(q, p);
  assert_ok(mr_deallocate(mr, q, MiB, 0, s));

  assert_int_equal(mr_allocate(mr, 6 * MiB, 0, s, &q), MR_ERR_OUT_OF_MEMORY);
  assert_non_null(strstr(mr_last_error(), "reserve="));
  /* Bad frees are refused, not believed. */
  assert_ok(mr_allocate(mr, MiB, 0, s, &q));
  assert_int_equal(mr_deallocate(mr, (char *)q + 8 * MiB, 256, 0, s), MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(mr_deallocate(mr, (void *)(uintptr_t)0x1000, 256, 0, s),
                   MR_ERR_INVALID_ARGUMENT);
  assert_ok(mr_deallocate(mr, q, MiB, 0, s));
  assert_int_equal(mr_deallocate(mr, q, MiB, 0, s), MR_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(mr_last_error(), "not a live block"));
  mr_resource_release(mr);
  assert_int_equal(fake_cu()->cuStreamDestroy(s), CUDA_SUCCESS);
  assert_int_equal(fake_cu()->cuStreamDestroy(t), CUDA_SUCCESS);
  assert_fake_clean();
}

/* large_page=SIZE: blocks of at least that size get pages of it, in a
 * reserved range of their own per stream; smaller blocks keep the small
 * page. Both ranges give their pages back on trim. */
static void test_large_page(void **state) {
  mr_resource *mr = make("expandable(large_page=8MiB, reserve=64MiB)");
  assert_string_equal(mr_resource_describe(mr), "expandable(large_page=8MiB, reserve=64MiB)");
  mr_resource *again = make(mr_resource_describe(mr));
  assert_string_equal(mr_resource_describe(again), mr_resource_describe(mr));
  mr_resource_release(again);
  CUstream s = fake_new_stream();
  void *small = NULL, *big = NULL, *edge = NULL, *under = NULL;
  assert_ok(mr_allocate(mr, MiB, 0, s, &small));
  fake_vmm_books books = fake_cuda_vmm_books();
  assert_int_equal(books.reserved_ranges, 1);
  assert_int_equal(books.mapped_bytes, 2 * MiB);
  assert_int_equal(books.handles, 1);
  /* 10 MiB: two 8 MiB pages, in the stream's second range. */
  assert_ok(mr_allocate(mr, 10 * MiB, 0, s, &big));
  books = fake_cuda_vmm_books();
  assert_int_equal(books.reserved_ranges, 2);
  assert_int_equal(books.reserved_bytes, 128 * MiB);
  assert_int_equal(books.mapped_bytes, 18 * MiB);
  assert_int_equal(books.handles, 3);
  /* Exactly large_page is large: after `big`, on its second page and a
   * third. */
  assert_ok(mr_allocate(mr, 8 * MiB, 0, s, &edge));
  assert_ptr_equal(edge, (char *)big + 10 * MiB);
  books = fake_cuda_vmm_books();
  assert_int_equal(books.mapped_bytes, 26 * MiB);
  assert_int_equal(books.handles, 4);
  /* Under it: small pages, after `small` (pages 0 to 3 of the first range). */
  assert_ok(mr_allocate(mr, 7 * MiB, 0, s, &under));
  assert_ptr_equal(under, (char *)small + MiB);
  books = fake_cuda_vmm_books();
  assert_int_equal(books.mapped_bytes, 32 * MiB);
  assert_int_equal(books.handles, 7);
  memset(big, 0x11, 10 * MiB);
  memset(edge, 0x22, 8 * MiB);
  memset(under, 0x33, 7 * MiB);
  assert_ok(mr_deallocate(mr, big, 10 * MiB, 0, s));
  assert_ok(mr_deallocate(mr, edge, 8 * MiB, 0, s));
  /* The large range's idle pages go back; the small range's live block
   * keeps its pages. */
  size_t released = 0;
  assert_ok(mr_release_idle(0, 0, &released));
  assert_int_equal(released, 24 * MiB);
  books = fake_cuda_vmm_books();
  assert_int_equal(books.mapped_bytes, 8 * MiB);
  assert_int_equal(books.reserved_ranges, 1);
  assert_ok(mr_deallocate(mr, under, 7 * MiB, 0, s));
  assert_ok(mr_deallocate(mr, small, MiB, 0, s));
  assert_ok(mr_resource_trim(mr));
  books = fake_cuda_vmm_books();
  assert_int_equal(books.mapped_bytes, 0);
  assert_int_equal(books.handles, 0);
  assert_int_equal(books.reserved_ranges, 0);
  mr_resource_release(mr);

  /* Rounded to the driver's granules; never smaller than the page. */
  mr = make("expandable(page=4MiB, large_page=9MiB)");
  assert_string_equal(mr_resource_describe(mr), "expandable(page=4MiB, large_page=10MiB)");
  mr_resource_release(mr);
  mr_expandable_desc desc;
  mr_expandable_desc_init(&desc);
  desc.page_size = 4 * MiB;
  desc.large_page_size = 3 * MiB;
  mr = NULL;
  assert_int_equal(mr_expandable_resource_create(0, &desc, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  assert_non_null(strstr(mr_last_error(), "large_page=4MiB is not larger than page=4MiB"));
  assert_int_not_equal(mr_resource_from_spec("expandable(large_page=2MiB)", 0, &mr), MR_OK);
  assert_null(mr);
  assert_int_equal(fake_cu()->cuStreamDestroy(s), CUDA_SUCCESS);
  assert_fake_clean();
}

/* mr_expandable_resource_get_info agrees with the fake driver's books:
 * ranges, reserved and mapped bytes, their peak, idle pages and live
 * blocks; reset_peak starts the peak again from what is mapped. Any other
 * resource, a NULL info and a struct too old for its fields are refused. */
static void test_info(void **state) {
  mr_resource *mr = make("expandable(large_page=8MiB, reserve=64MiB)");
  mr_expandable_info info = {.size = sizeof info};
  assert_ok(mr_expandable_resource_get_info(mr, &info));
  assert_int_equal(info.device, 0);
  assert_int_equal(info.page_size, 2 * MiB);
  assert_int_equal(info.large_page_size, 8 * MiB);
  assert_int_equal(info.ranges, 0);
  assert_int_equal(info.mapped_bytes, 0);
  assert_int_equal(info.mapped_high, 0);
  assert_int_equal(info.live_blocks, 0);
  CUstream s = fake_new_stream();
  void *small = NULL, *big = NULL, *more = NULL;
  assert_ok(mr_allocate(mr, MiB, 0, s, &small));
  assert_ok(mr_allocate(mr, 10 * MiB, 0, s, &big));
  fake_vmm_books books = fake_cuda_vmm_books();
  assert_ok(mr_expandable_resource_get_info(mr, &info));
  assert_int_equal(info.ranges, books.reserved_ranges);
  assert_int_equal(info.ranges, 2);
  assert_int_equal(info.reserved_bytes, books.reserved_bytes);
  assert_int_equal(info.mapped_bytes, books.mapped_bytes);
  assert_int_equal(info.mapped_bytes, 18 * MiB);
  assert_int_equal(info.mapped_high, 18 * MiB);
  assert_int_equal(info.idle_bytes, 0);
  assert_int_equal(info.live_blocks, 2);
  assert_ok(mr_deallocate(mr, big, 10 * MiB, 0, s));
  assert_ok(mr_expandable_resource_get_info(mr, &info));
  assert_int_equal(info.idle_bytes, 16 * MiB);
  assert_int_equal(info.mapped_bytes, 18 * MiB);
  assert_int_equal(info.live_blocks, 1);
  size_t released = 0;
  assert_ok(mr_release_idle(0, 0, &released));
  assert_int_equal(released, 16 * MiB);
  assert_ok(mr_expandable_resource_get_info(mr, &info));
  assert_int_equal(info.mapped_bytes, fake_cuda_vmm_books().mapped_bytes);
  assert_int_equal(info.mapped_bytes, 2 * MiB);
  assert_int_equal(info.mapped_high, 18 * MiB);
  assert_int_equal(info.idle_bytes, 0);
  assert_int_equal(info.ranges, 1);
  /* The peak starts again from what is mapped now. */
  assert_ok(mr_expandable_resource_reset_peak(mr));
  assert_ok(mr_expandable_resource_get_info(mr, &info));
  assert_int_equal(info.mapped_high, 2 * MiB);
  assert_ok(mr_allocate(mr, 3 * MiB, 0, s, &more)); /* after `small`: pages 0 and 1 */
  assert_ok(mr_expandable_resource_get_info(mr, &info));
  assert_int_equal(info.mapped_bytes, 4 * MiB);
  assert_int_equal(info.mapped_high, 4 * MiB);
  assert_ok(mr_deallocate(mr, more, 3 * MiB, 0, s));
  assert_ok(mr_deallocate(mr, small, MiB, 0, s));
  assert_ok(mr_resource_trim(mr));
  assert_ok(mr_expandable_resource_get_info(mr, &info));
  assert_int_equal(info.mapped_bytes, 0);
  assert_int_equal(info.mapped_high, 4 * MiB);
  assert_int_equal(info.live_blocks, 0);
  /* A block whose second page cannot be made: its first stays mapped,
   * idle, and counts so. */
  fake_cuda_fail("cuMemCreate", 2, 1, CUDA_ERROR_UNKNOWN);
  void *failed = NULL;
  assert_int_equal(mr_allocate(mr, 3 * MiB, 0, s, &failed), MR_ERR_DRIVER);
  assert_ok(mr_expandable_resource_get_info(mr, &info));
  assert_int_equal(info.mapped_bytes, 2 * MiB);
  assert_int_equal(info.idle_bytes, 2 * MiB);
  assert_int_equal(info.live_blocks, 0);
  assert_ok(mr_resource_trim(mr));
  assert_ok(mr_expandable_resource_get_info(mr, &info));
  assert_int_equal(info.mapped_bytes, 0);
  assert_int_equal(info.idle_bytes, 0);
  /* Refusals, with the reason. */
  mr_resource *other = make("device");
  assert_int_equal(mr_expandable_resource_get_info(other, &info), MR_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(mr_last_error(), "device is not an expandable resource"));
  assert_int_equal(mr_expandable_resource_reset_peak(other), MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(mr_expandable_resource_get_info(NULL, &info), MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(mr_expandable_resource_get_info(mr, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(mr_last_error(), "info is NULL"));
  mr_expandable_info old = {.size = sizeof(size_t)};
  assert_int_equal(mr_expandable_resource_get_info(mr, &old), MR_ERR_INVALID_ARGUMENT);
  mr_resource_release(other);
  mr_resource_release(mr);
  assert_int_equal(fake_cu()->cuStreamDestroy(s), CUDA_SUCCESS);
  assert_fake_clean();
}

/* A page a new block needs takes the physical memory of an idle page of
 * the range once the stream's work on it is done (its free's event
 * completed), instead of new memory: a range keeps what its live blocks
 * need, not every page it ever touched. While that work runs, or where a
 * free's event could not be recorded, new pages are made instead. */
static void test_recycles_idle_pages(void **state) {
  mr_resource *mr = make("expandable(reserve=64MiB)");
  CUstream s = fake_new_stream();
  void *a = NULL, *b = NULL, *c = NULL;
  assert_ok(mr_allocate(mr, 4 * MiB, 0, s, &a)); /* pages 0, 1 */
  assert_ok(mr_allocate(mr, 4 * MiB, 0, s, &b)); /* pages 2, 3 */
  memset(a, 0x11, 4 * MiB);
  assert_ok(mr_deallocate(mr, a, 4 * MiB, 0, s));
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, 8 * MiB);
  /* 6 MiB does not fit the 4 MiB hole: pages 4 to 6, two of them the
   * idle pages 0 and 1 moved, one new. */
  long creates = fake_cuda_calls("cuMemCreate");
  assert_ok(mr_allocate(mr, 6 * MiB, 0, s, &c));
  assert_ptr_equal(c, (char *)b + 4 * MiB);
  assert_int_equal(fake_cuda_calls("cuMemCreate") - creates, 1);
  fake_vmm_books books = fake_cuda_vmm_books();
  assert_int_equal(books.mapped_bytes, 10 * MiB);
  assert_int_equal(books.handles, 5);
  memset(c, 0x22, 6 * MiB); /* mapped, with access */
  mr_expandable_info info = {.size = sizeof info};
  assert_ok(mr_expandable_resource_get_info(mr, &info));
  assert_int_equal(info.mapped_bytes, 10 * MiB);
  assert_int_equal(info.mapped_high, 10 * MiB);
  assert_int_equal(info.idle_bytes, 0);
  /* The hole is unmapped now: a block there maps pages again. */
  void *d = NULL;
  assert_ok(mr_allocate(mr, 2 * MiB, 0, s, &d));
  assert_ptr_equal(d, a);
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, 12 * MiB);
  memset(d, 0x33, 2 * MiB);
  assert_ok(mr_deallocate(mr, d, 2 * MiB, 0, s));
  assert_ok(mr_deallocate(mr, c, 6 * MiB, 0, s));
  assert_ok(mr_deallocate(mr, b, 4 * MiB, 0, s));
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, 0);

  /* An idle page that cannot be unmapped once stays idle and is moved at
   * the next try: one new page for the three, as above. */
  assert_ok(mr_allocate(mr, 4 * MiB, 0, s, &a));
  assert_ok(mr_allocate(mr, 4 * MiB, 0, s, &b));
  assert_ok(mr_deallocate(mr, a, 4 * MiB, 0, s));
  fake_cuda_fail("cuMemUnmap", 1, 1, CUDA_ERROR_UNKNOWN);
  creates = fake_cuda_calls("cuMemCreate");
  assert_ok(mr_allocate(mr, 6 * MiB, 0, s, &c));
  assert_int_equal(fake_cuda_calls("cuMemCreate") - creates, 1);
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, 10 * MiB);
  memset(c, 0x44, 6 * MiB);
  assert_ok(mr_deallocate(mr, c, 6 * MiB, 0, s));
  assert_ok(mr_deallocate(mr, b, 4 * MiB, 0, s));
  assert_ok(mr_resource_trim(mr));

  /* The stream still works on the freed block: its pages stay where they
   * are, and the next block gets new ones. */
  assert_ok(mr_allocate(mr, 4 * MiB, 0, s, &a));
  assert_ok(mr_allocate(mr, 4 * MiB, 0, s, &b));
  assert_int_equal(fake_cuda_set_stream_busy(s, true), CUDA_SUCCESS);
  assert_ok(mr_deallocate(mr, a, 4 * MiB, 0, s));
  assert_ok(mr_allocate(mr, 6 * MiB, 0, s, &c));
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, 14 * MiB);
  assert_int_equal(fake_cuda_set_stream_busy(s, false), CUDA_SUCCESS);
  assert_ok(mr_deallocate(mr, c, 6 * MiB, 0, s));
  assert_ok(mr_deallocate(mr, b, 4 * MiB, 0, s));
  assert_ok(mr_resource_trim(mr));

  /* A free whose event cannot be recorded leaves its pages unmovable. */
  assert_ok(mr_allocate(mr, 4 * MiB, 0, s, &a));
  assert_ok(mr_allocate(mr, 4 * MiB, 0, s, &b));
  fake_cuda_fail("cuEventRecord", 1, 1, CUDA_ERROR_UNKNOWN);
  assert_ok(mr_deallocate(mr, a, 4 * MiB, 0, s));
  assert_ok(mr_allocate(mr, 6 * MiB, 0, s, &c));
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, 14 * MiB);
  assert_ok(mr_deallocate(mr, c, 6 * MiB, 0, s));
  assert_ok(mr_deallocate(mr, b, 4 * MiB, 0, s));
  /* Giving them back waits for the whole device instead. */
  long syncs = fake_cuda_calls("cuCtxSynchronize");
  assert_ok(mr_resource_trim(mr));
  assert_true(fake_cuda_calls("cuCtxSynchronize") > syncs);
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, 0);
  mr_resource_release(mr);
  assert_int_equal(fake_cu()->cuStreamDestroy(s), CUDA_SUCCESS);
  assert_fake_clean();
}

/* Idle large pages are idle memory of the process: another resource (a
 * second library's `device` tag) that runs out gets them through the
 * process-wide reclaim. A size no page count can hold is refused, and the
 * resource still hands out sound, separate blocks afterwards. */
static void test_large_page_reclaim_and_huge(void **state) {
  mr_resource *a = make("expandable(large_page=4MiB, reserve=64MiB)");
  mr_resource *b = make("device");
  CUstream s = fake_new_stream();
  assert_int_equal(fake_cuda_set_total_memory(0, 16 * MiB), CUDA_SUCCESS);
  void *p = NULL, *q = NULL;
  assert_ok(mr_allocate(a, 12 * MiB, 0, s, &p));
  assert_ok(mr_deallocate(a, p, 12 * MiB, 0, s));
  assert_int_equal(fake_cuda_vmm_books().mapped_bytes, 12 * MiB); /* idle, kept */
  assert_ok(mr_allocate(b, 8 * MiB, 0, s, &q));
  assert_true(fake_cuda_vmm_books().mapped_bytes <= 8 * MiB);
  assert_ok(mr_deallocate(b, q, 8 * MiB, 0, s));

  p = (void *)1;
  assert_int_not_equal(mr_allocate(a, SIZE_MAX - MiB, 0, s, &p), MR_OK);
  assert_null(p);
  void *x = NULL, *y = NULL;
  assert_ok(mr_allocate(a, 6 * MiB, 0, s, &x));
  assert_ok(mr_allocate(a, 5 * MiB, 0, s, &y));
  assert_true((char *)y >= (char *)x + 6 * MiB || (char *)x >= (char *)y + 5 * MiB);
  memset(x, 0x41, 6 * MiB);
  memset(y, 0x42, 5 * MiB);
  assert_int_equal(((unsigned char *)x)[6 * MiB - 1], 0x41);
  assert_int_equal(((unsigned char *)y)[0], 0x42);
  assert_ok(mr_deallocate(a, y, 5 * MiB, 0, s));
  assert_ok(mr_deallocate(a, x, 6 * MiB, 0, s));
  mr_resource_release(b);
  mr_resource_release(a);
  assert_int_equal(fake_cu()->cuStreamDestroy(s), CUDA_SUCCESS);
  assert_fake_clean();
}

/* During a capture, blocks come from the device's pool (graph-safe). */
static void test_capture(void **state) {
  mr_resource *mr = make("expandable(reserve=64MiB)");
  CUstream s = fake_new_stream();
  assert_int_equal(fake_cuda_set_stream_capturing(s, true), CUDA_SUCCESS);
  void *p = NULL;
  assert_ok(mr_allocate(mr, 4096, 0, s, &p));
  assert_non_null(fake_cuda_allocation_pool(p));
  assert_int_equal(fake_cuda_vmm_books().reserved_ranges, 0);
  assert_ok(mr_deallocate(mr, p, 4096, 0, s));
  assert_int_equal(fake_cuda_set_stream_capturing(s, false), CUDA_SUCCESS);
  mr_resource_release(mr);
  assert_int_equal(fake_cu()->cuStreamDestroy(s), CUDA_SUCCESS);
  assert_fake_clean();
}

static void test_unsupported_and_bad_arguments(void **state) {
  mr_resource *mr = NULL;
  fake_cuda_set_attribute(1, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0);
  assert_int_equal(mr_expandable_resource_create(1, NULL, &mr), MR_ERR_UNSUPPORTED);
  assert_null(mr);
  assert_non_null(strstr(mr_last_error(), "device 1 has no virtual memory management"));
  fake_cuda_set_attribute(0, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 0);
  mr_expandable_desc desc;
  mr_expandable_desc_init(&desc);
  desc.handle_type = MR_POOL_HANDLE_FD;
  assert_int_equal(mr_expandable_resource_create(0, &desc, &mr), MR_ERR_UNSUPPORTED);
  desc.handle_type = (mr_pool_handle)7;
  assert_int_equal(mr_expandable_resource_create(0, &desc, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(mr_expandable_resource_create(0, NULL, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(mr_expandable_resource_create(99, NULL, &mr), MR_ERR_NO_DEVICE);
  assert_int_equal(mr_resource_from_spec("expandable(pages=2MiB)", 0, &mr), MR_ERR_CONFIG);
  assert_int_equal(mr_resource_from_spec("expandable(ipc=socket)", 0, &mr), MR_ERR_CONFIG);
  assert_fake_clean();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_describes_and_rounds, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_page_not_power_of_two, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_grows_by_pages, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_trim_after_stream_work, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_reclaim, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_large_page, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_info, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_recycles_idle_pages, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_large_page_reclaim_and_huge, fake_test_setup,
                                      fake_teardown),
      cmocka_unit_test_setup_teardown(test_other_stream_and_limits, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_capture, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_unsupported_and_bad_arguments, fake_test_setup,
                                      fake_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
