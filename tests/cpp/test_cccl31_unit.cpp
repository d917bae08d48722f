// test_cccl31_unit.cpp: mrctx::cccl_resource in CCCL 3.1+'s spelling of
// cuda::mr (allocate/deallocate with the stream first, allocate_sync and
// deallocate_sync; NVIDIA/cccl#5313), with a plain host compiler (no nvcc,
// no driver): the concepts and properties it satisfies, the references it
// converts to (and any_resource, which current rmm's device_buffer takes),
// the accessibility check of its constructor, and allocation through it and
// through CCCL's references over host tags. The unit suite has no driver, so
// device tags exist and fail to allocate.
//
// It is built against whichever CCCL 3.1+ is found (tests/cpp/meson.build):
// a toolkit of CUDA 13.1 or later, or the headers -Dcccl names. It also
// checks how the adaptor is switched on without asking: mrctx.hpp included
// before any CCCL header defines no adaptor; included again after them, it
// does.
#include <cstdarg>
#include <csetjmp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

#include <mrctx/mrctx.hpp>
#ifdef MRCTX_HAS_CCCL_RESOURCE
#error "mrctx.hpp defined its CCCL adaptor with no CCCL header included and nothing asked"
#endif

#include <cuda/version>
#if CCCL_MAJOR_VERSION != 3 || CCCL_MINOR_VERSION < 1
#error "test_cccl31_unit.cpp is for CCCL 3.1 and later 3.x"
#endif
#if CCCL_MINOR_VERSION == 1
// CCCL 3.1 still keeps its resource references (not the concepts) behind
// the experimental macro; 3.2 and later do not.
#define LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE
#endif
#include <cuda/memory_resource>
#include <cuda/stream_ref>

// Again, now after CCCL's headers: the adaptor, found without asking.
#include <mrctx/mrctx.hpp>
#if !defined(MRCTX_HAS_CCCL_RESOURCE) || MRCTX_CCCL_SPELLING != 301
#error "mrctx.hpp included after CCCL 3.1+ headers did not define its CCCL 3.1+ adaptor"
#endif

// cmocka 1.1's header does not declare C linkage itself; last, as its fail()
// macro would break a later <ios>.
extern "C" {
#include <cmocka.h>
}

using cuda::mr::device_accessible;
using cuda::mr::host_accessible;

// The concepts and properties, as CUB, Thrust, rmm and cudf check them.
static_assert(cuda::mr::synchronous_resource<mrctx::device_accessible_resource>);
static_assert(cuda::mr::resource<mrctx::device_accessible_resource>);
static_assert(cuda::mr::resource_with<mrctx::device_accessible_resource, device_accessible>);
static_assert(
    cuda::mr::synchronous_resource_with<mrctx::device_accessible_resource, device_accessible>);
static_assert(!cuda::mr::resource_with<mrctx::device_accessible_resource, host_accessible>);
static_assert(
    !cuda::mr::synchronous_resource_with<mrctx::device_accessible_resource, host_accessible>);
static_assert(cuda::mr::resource_with<mrctx::host_accessible_resource, host_accessible>);
static_assert(!cuda::mr::resource_with<mrctx::host_accessible_resource, device_accessible>);
static_assert(cuda::mr::resource_with<mrctx::host_device_accessible_resource, host_accessible,
                                      device_accessible>);
static_assert(cuda::mr::synchronous_resource_with<mrctx::host_device_accessible_resource,
                                                  host_accessible, device_accessible>);
static_assert(std::is_copy_constructible_v<mrctx::device_accessible_resource>);

// The references they convert to, and those they do not.
static_assert(std::is_constructible_v<cuda::mr::resource_ref<device_accessible>,
                                      mrctx::device_accessible_resource &>);
static_assert(std::is_constructible_v<cuda::mr::synchronous_resource_ref<device_accessible>,
                                      mrctx::device_accessible_resource &>);
static_assert(std::is_constructible_v<cuda::mr::resource_ref<host_accessible, device_accessible>,
                                      mrctx::host_device_accessible_resource &>);
static_assert(std::is_constructible_v<cuda::mr::resource_ref<device_accessible>,
                                      mrctx::host_device_accessible_resource &>);
static_assert(!std::is_constructible_v<cuda::mr::resource_ref<host_accessible>,
                                       mrctx::device_accessible_resource &>);
static_assert(!std::is_constructible_v<cuda::mr::resource_ref<device_accessible>,
                                       mrctx::host_accessible_resource &>);
#if CCCL_MINOR_VERSION >= 2
// The owning, type-erased resource that current rmm's device_buffer takes.
static_assert(std::is_constructible_v<cuda::mr::any_resource<device_accessible>,
                                      mrctx::device_accessible_resource>);
static_assert(!std::is_constructible_v<cuda::mr::any_resource<device_accessible>,
                                       mrctx::host_accessible_resource>);
#endif

namespace {

enum tags { HOST, DEVICE, TRACKED, LIMITED };

mrctx::context test_context() {
  return mrctx::context({"cccltest",
                         {{"host", "host"},
                          {"device", "device"},
                          {"tracked", "track(host)"},
                          {"limited", "limit(host, bytes=4KiB)"}}});
}

template <class E, class F> std::optional<E> thrown(F f) {
  try {
    f();
  } catch (const E &e) {
    return e;
  }
  return std::nullopt;
}

bool contains(const char *text, const char *needle) { return std::strstr(text, needle) != nullptr; }

// The legacy stream; CCCL 3.1+ deprecates stream_ref's default constructor.
const cuda::stream_ref legacy{cudaStream_t{}};

void test_host_tag_as_cccl_resource(void **) {
  mrctx::context ctx = test_context();
  mrctx::host_accessible_resource mr(ctx.get(HOST));
  assert_true(mr.ref() == ctx.get(HOST));

  void *p = mr.allocate_sync(1000);
  assert_true(reinterpret_cast<std::uintptr_t>(p) % 256 == 0);
  std::memset(p, 1, 1000);
  mr.deallocate_sync(p, 1000);

  void *q = mr.allocate(legacy, 64, 1024);
  assert_true(reinterpret_cast<std::uintptr_t>(q) % 1024 == 0);
  mr.deallocate(legacy, q, 64, 1024);

  // Through CCCL's type-erased references, as CUB, Thrust, rmm or cudf take it.
  cuda::mr::resource_ref<host_accessible> ref{mr};
  void *r = ref.allocate(legacy, 128, 256);
  std::memset(r, 2, 128);
  ref.deallocate(legacy, r, 128, 256);
  void *s = ref.allocate_sync(48, 16);
  ref.deallocate_sync(s, 48, 16);
  cuda::mr::synchronous_resource_ref<host_accessible> sync_ref{mr};
  void *t = sync_ref.allocate_sync(32, 16);
  sync_ref.deallocate_sync(t, 32, 16);
  assert_int_equal(ctx.stats(HOST).total_count, 5);
  assert_int_equal(ctx.stats(HOST).current_count, 0);
}

void test_refs_keep_the_properties(void **) {
  mrctx::context ctx = test_context();
  mrctx::host_accessible_resource mr(ctx.get(TRACKED));
  cuda::mr::resource_ref<host_accessible> ref{mr};
  // A reference narrows to a synchronous one and keeps pointing at the adaptor.
  cuda::mr::synchronous_resource_ref<host_accessible> sync_ref{ref};
  void *p = sync_ref.allocate_sync(100, 64);
  assert_int_equal(ctx.stats(TRACKED).current_count, 1);
  mr.deallocate_sync(p, 100, 64); // memory from the reference, freed by the adaptor
  assert_int_equal(ctx.stats(TRACKED).current_count, 0);
  assert_int_equal(ctx.stats(TRACKED).total_count, 1);
}

#if CCCL_MINOR_VERSION >= 2
void test_any_resource(void **) {
  mrctx::context ctx = test_context();
  // any_resource keeps a copy of the adaptor, which still borrows the tag.
  cuda::mr::any_resource<host_accessible> owned{mrctx::host_accessible_resource(ctx.get(TRACKED))};
  void *p = owned.allocate(legacy, 256, 256);
  assert_int_equal(ctx.stats(TRACKED).current_count, 1);
  cuda::mr::any_resource<host_accessible> copy = owned;
  copy.deallocate(legacy, p, 256, 256);
  assert_int_equal(ctx.stats(TRACKED).current_count, 0);
  assert_true(owned == copy);
}
#endif

void test_equality(void **) {
  mrctx::context ctx = test_context();
  mrctx::host_accessible_resource a(ctx.get(HOST));
  mrctx::host_accessible_resource b(ctx.get(HOST));
  mrctx::host_accessible_resource c(ctx.get(TRACKED));
  assert_true(a == b);
  assert_false(a != b);
  assert_true(a != c);
  cuda::mr::resource_ref<host_accessible> ra{a}, rb{b}, rc{c};
  assert_true(ra == rb);
  assert_false(ra == rc);
}

void test_accessibility_is_checked(void **) {
  mrctx::context ctx = test_context();
  auto host_as_device =
      thrown<mrctx::error>([&] { mrctx::device_accessible_resource mr(ctx.get(HOST)); });
  assert_true(host_as_device.has_value());
  assert_int_equal(host_as_device->status(), MR_ERR_INVALID_ARGUMENT);
  assert_true(
      contains(host_as_device->what(), "'host' gives host memory, which is not device-accessible"));
  auto both =
      thrown<mrctx::error>([&] { mrctx::host_device_accessible_resource mr(ctx.get(HOST)); });
  assert_true(both.has_value());
  assert_true(contains(both->what(), "which is not device-accessible"));

  auto device_as_host =
      thrown<mrctx::error>([&] { mrctx::host_accessible_resource mr(ctx.get(DEVICE)); });
  assert_true(device_as_host.has_value());
  assert_true(
      contains(device_as_host->what(), "gives device memory, which is not host-accessible"));
}

void test_device_tag_without_driver(void **) {
  mrctx::context ctx = test_context();
  mrctx::device_accessible_resource mr(ctx.get(DEVICE));
  auto failed = thrown<mrctx::bad_alloc>([&] { static_cast<void>(mr.allocate(legacy, 256, 256)); });
  assert_true(failed.has_value());
  assert_int_equal(failed->status(), MR_ERR_NO_DRIVER);
  assert_true(contains(failed->what(), "cccltest:device"));
  cuda::mr::resource_ref<device_accessible> ref{mr};
  auto through_ref =
      thrown<std::bad_alloc>([&] { static_cast<void>(ref.allocate_sync(256, 256)); });
  assert_true(through_ref.has_value());
  assert_int_equal(ctx.stats(DEVICE).failed_count, 2);
}

void test_out_of_memory(void **) {
  mrctx::context ctx = test_context();
  mrctx::host_accessible_resource mr(ctx.get(LIMITED));
  void *p = mr.allocate(legacy, 4096);
  auto full = thrown<mrctx::bad_alloc>([&] { static_cast<void>(mr.allocate_sync(1)); });
  assert_true(full.has_value());
  assert_int_equal(full->status(), MR_ERR_OUT_OF_MEMORY);
  mr.deallocate(legacy, p, 4096);
}

void test_deallocate_does_not_throw(void **) {
  mrctx::context ctx = test_context();
  mrctx::host_accessible_resource mr(ctx.get(TRACKED));
  static_assert(noexcept(mr.deallocate(legacy, nullptr, 0)));
  static_assert(noexcept(mr.deallocate_sync(nullptr, 0)));
  void *p = mr.allocate_sync(128);
  mr_clear_error();
  mr.deallocate_sync(p, 64); // the wrong size: refused, and said
  assert_true(contains(mr_last_error(), "allocated with 128 bytes"));
  mr_clear_error();
  mr.deallocate(legacy, p, 128, 512); // the wrong alignment, likewise
  assert_true(contains(mr_last_error(), "aligned to 512"));
  assert_int_equal(ctx.stats(TRACKED).current_count, 1);
  mr.deallocate(legacy, p, 128);
  assert_int_equal(ctx.stats(TRACKED).current_count, 0);
}

} // namespace

int main() {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_host_tag_as_cccl_resource),
    cmocka_unit_test(test_refs_keep_the_properties),
#if CCCL_MINOR_VERSION >= 2
    cmocka_unit_test(test_any_resource),
#endif
    cmocka_unit_test(test_equality),
    cmocka_unit_test(test_accessibility_is_checked),
    cmocka_unit_test(test_device_tag_without_driver),
    cmocka_unit_test(test_out_of_memory),
    cmocka_unit_test(test_deallocate_does_not_throw),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
