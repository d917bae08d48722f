// test_cccl_unit.cpp: mrctx::cccl_resource with the toolkit's CCCL and a plain
// host compiler (no nvcc, no driver): the cuda::mr concepts and properties it
// satisfies, the accessibility check of its constructor, and allocation
// through it and through cuda::mr resource refs over host tags. The unit
// suite has no driver, so device tags exist and fail to allocate.
#include <cstdarg>
#include <csetjmp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

// cmocka 1.1's header does not declare C linkage itself.
extern "C" {
#include <cmocka.h>
}

#include <mrctx/mrctx.hpp>

using cuda::mr::device_accessible;
using cuda::mr::host_accessible;

static_assert(cuda::mr::resource<mrctx::device_accessible_resource>);
static_assert(cuda::mr::async_resource<mrctx::device_accessible_resource>);
static_assert(cuda::mr::async_resource_with<mrctx::device_accessible_resource, device_accessible>);
static_assert(!cuda::mr::resource_with<mrctx::device_accessible_resource, host_accessible>);
static_assert(cuda::mr::async_resource_with<mrctx::host_accessible_resource, host_accessible>);
static_assert(!cuda::mr::resource_with<mrctx::host_accessible_resource, device_accessible>);
static_assert(cuda::mr::async_resource_with<mrctx::host_device_accessible_resource, host_accessible,
                                            device_accessible>);
static_assert(std::is_copy_constructible_v<mrctx::device_accessible_resource>);

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

void test_host_tag_as_cccl_resource(void **) {
  mrctx::context ctx = test_context();
  mrctx::host_accessible_resource mr(ctx.get(HOST));
  assert_true(mr.ref() == ctx.get(HOST));

  void *p = mr.allocate(1000);
  assert_true(reinterpret_cast<std::uintptr_t>(p) % 256 == 0);
  std::memset(p, 1, 1000);
  mr.deallocate(p, 1000);

  void *q = mr.allocate_async(64, 1024, cuda::stream_ref{});
  assert_true(reinterpret_cast<std::uintptr_t>(q) % 1024 == 0);
  mr.deallocate_async(q, 64, 1024, cuda::stream_ref{});

  // Through CCCL's type-erased references, as CUB, Thrust or cudf take it.
  cuda::mr::async_resource_ref<host_accessible> async_ref{mr};
  void *r = async_ref.allocate_async(128, 256, cuda::stream_ref{});
  async_ref.deallocate_async(r, 128, 256, cuda::stream_ref{});
  cuda::mr::resource_ref<host_accessible> sync_ref{mr};
  void *s = sync_ref.allocate(32, 16);
  sync_ref.deallocate(s, 32, 16);
  assert_int_equal(ctx.stats(HOST).total_count, 4);
  assert_int_equal(ctx.stats(HOST).current_count, 0);
}

void test_equality(void **) {
  mrctx::context ctx = test_context();
  mrctx::host_accessible_resource a(ctx.get(HOST));
  mrctx::host_accessible_resource b(ctx.get(HOST));
  mrctx::host_accessible_resource c(ctx.get(TRACKED));
  assert_true(a == b);
  assert_false(a != b);
  assert_true(a != c);
  cuda::mr::async_resource_ref<host_accessible> ra{a}, rb{b}, rc{c};
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

  auto device_as_host =
      thrown<mrctx::error>([&] { mrctx::host_accessible_resource mr(ctx.get(DEVICE)); });
  assert_true(device_as_host.has_value());
  assert_true(
      contains(device_as_host->what(), "gives device memory, which is not host-accessible"));
}

void test_device_tag_without_driver(void **) {
  mrctx::context ctx = test_context();
  mrctx::device_accessible_resource mr(ctx.get(DEVICE));
  auto failed = thrown<mrctx::bad_alloc>(
      [&] { static_cast<void>(mr.allocate_async(256, 256, cuda::stream_ref{})); });
  assert_true(failed.has_value());
  assert_int_equal(failed->status(), MR_ERR_NO_DRIVER);
  assert_true(contains(failed->what(), "cccltest:device"));
  cuda::mr::async_resource_ref<device_accessible> ref{mr};
  auto through_ref = thrown<std::bad_alloc>([&] { static_cast<void>(ref.allocate(256, 256)); });
  assert_true(through_ref.has_value());
  assert_int_equal(ctx.stats(DEVICE).failed_count, 2);
}

void test_out_of_memory(void **) {
  mrctx::context ctx = test_context();
  mrctx::host_accessible_resource mr(ctx.get(LIMITED));
  void *p = mr.allocate(4096);
  auto full = thrown<mrctx::bad_alloc>([&] { static_cast<void>(mr.allocate(1)); });
  assert_true(full.has_value());
  assert_int_equal(full->status(), MR_ERR_OUT_OF_MEMORY);
  mr.deallocate(p, 4096);
}

void test_deallocate_does_not_throw(void **) {
  mrctx::context ctx = test_context();
  mrctx::host_accessible_resource mr(ctx.get(TRACKED));
  static_assert(noexcept(mr.deallocate(nullptr, 0)));
  static_assert(noexcept(mr.deallocate_async(nullptr, 0, 0, cuda::stream_ref{})));
  void *p = mr.allocate(128);
  mr_clear_error();
  mr.deallocate(p, 64); // the wrong size: refused, and said
  assert_true(contains(mr_last_error(), "allocated with 128 bytes"));
  assert_int_equal(ctx.stats(TRACKED).current_count, 1);
  mr.deallocate(p, 128);
  assert_int_equal(ctx.stats(TRACKED).current_count, 0);
}

} // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_host_tag_as_cccl_resource),
      cmocka_unit_test(test_equality),
      cmocka_unit_test(test_accessibility_is_checked),
      cmocka_unit_test(test_device_tag_without_driver),
      cmocka_unit_test(test_out_of_memory),
      cmocka_unit_test(test_deallocate_does_not_throw),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
