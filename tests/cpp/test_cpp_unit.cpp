// test_cpp_unit.cpp: include/mrctx/mrctx.hpp with a plain C++ compiler and no
// CUDA anywhere: contexts and resources as RAII objects, the errors they
// throw, moves and copies, and resource_ref over host tags. The unit suite
// has no driver, so device tags exist and fail to allocate.
#include <cstdarg>
#include <csetjmp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

// cmocka 1.1's header does not declare C linkage itself.
extern "C" {
#include <cmocka.h>
}

#include <mrctx/mrctx.hpp>

namespace {

enum class tags { temp, result, gpu };

mrctx::context_desc test_desc() {
  return {"cpptest", {{"temp", "stats(host)"}, {"result", "host"}, {"gpu", "device"}}};
}

// What `f` threw as E, or nothing.
template <class E, class F> std::optional<E> thrown(F f) {
  try {
    f();
  } catch (const E &e) {
    return e;
  }
  return std::nullopt;
}

bool contains(const char *text, const char *needle) { return std::strstr(text, needle) != nullptr; }

void test_host_tags_allocate(void **) {
  mrctx::context ctx(test_desc());
  assert_string_equal(ctx.library(), "cpptest");
  assert_int_equal(ctx.tag_count(), 3);
  assert_int_equal(ctx.device_count(), 1); // no driver: one slot
  assert_string_equal(ctx.tag_name(tags::result), "result");

  mrctx::resource_ref temp = ctx.get(tags::temp);
  assert_ptr_equal(temp.get(), ctx_get_mr(ctx.native_handle(), 0));
  assert_string_equal(temp.describe(), "stats(host)");
  void *p = temp.allocate(1000, 0, nullptr);
  assert_non_null(p);
  assert_true(reinterpret_cast<std::uintptr_t>(p) % 256 == 0);
  std::memset(p, 0x5a, 1000);
  mr_stats s = ctx.stats(tags::temp);
  assert_int_equal(s.current_bytes, 1000);
  assert_int_equal(s.current_count, 1);
  temp.deallocate(p, 1000, 0, nullptr);
  assert_int_equal(ctx.stats(tags::temp, 0).current_bytes, 0);
  assert_int_equal(ctx.stats(tags::temp).total_bytes, 1000);

  // Size 0 is nullptr, as in C.
  assert_null(temp.allocate(0, 0, nullptr));

  // An int works as well as an enum; copies name the same resource.
  mrctx::resource_ref result = ctx.get(1);
  mrctx::resource_ref copy = result;
  assert_true(copy == ctx.get(tags::result));
  assert_true(copy != temp);
  mr_resource_props props = result.props();
  assert_int_equal(props.kind, MR_MEMORY_HOST);
  assert_true(props.host_accessible);
  assert_false(props.device_accessible);

  void *q = result.allocate_sync(64, 4096);
  assert_true(reinterpret_cast<std::uintptr_t>(q) % 4096 == 0);
  result.synchronize(nullptr);
  result.deallocate_sync(q, 64, 4096);
  result.trim();
}

void test_sources_and_precedence(void **) {
  const char *path = "test_cpp_unit.conf";
  std::FILE *f = std::fopen(path, "w");
  assert_non_null(f);
  std::fputs("temp = limit(host, bytes=1MiB)\n", f);
  std::fclose(f);
  setenv("CPPTEST_MEMORY", "result=stats(host)", 1);

  mrctx::context_desc desc = test_desc();
  desc.env_var = "CPPTEST_MEMORY";
  desc.config_file = path;
  desc.overrides = "temp=track(host); result=track(host); gpu=host";
  mrctx::context ctx(desc);
  unsetenv("CPPTEST_MEMORY");
  std::remove(path);

  assert_string_equal(ctx.get(tags::temp).describe(), "limit(host, bytes=1MiB)");
  assert_int_equal(ctx.source(tags::temp, 0).origin, MR_SPEC_FILE);
  assert_string_equal(ctx.get(tags::result).describe(), "stats(host)");
  mr_spec_source result = ctx.source(tags::result, 0);
  assert_int_equal(result.origin, MR_SPEC_ENV);
  assert_string_equal(result.where, "CPPTEST_MEMORY");
  assert_string_equal(ctx.get(tags::gpu).describe(), "host");
  assert_int_equal(ctx.source(tags::gpu, 0).origin, MR_SPEC_OVERRIDE);

  char *text = nullptr;
  size_t length = 0;
  std::FILE *out = open_memstream(&text, &length);
  assert_non_null(out);
  ctx.print_resolved(out);
  std::fclose(out);
  assert_non_null(std::strstr(text, "\ntemp    0       limit(host, bytes=1MiB)  file "
                                    "test_cpp_unit.conf, line 1\n"));
  std::free(text);
}

void test_context_from_c_desc(void **) {
  static const mr_tag c_tags[] = {{"scratch", "host"}};
  mr_context_desc desc{};
  desc.size = sizeof desc;
  desc.library = "clib";
  desc.tags = c_tags;
  desc.tag_count = 1;
  mrctx::context ctx(desc);
  assert_string_equal(ctx.tag_name(0), "scratch");
  assert_string_equal(ctx.get(0).describe(), "host");
}

void test_tag_requirements(void **) {
  mrctx::context_desc desc = test_desc();
  // temp and result: the host's; gpu: for kernels (a stand-in without a
  // driver, of the kind it stands for).
  desc.tag_requires = {MR_REQUIRE_HOST_ACCESSIBLE, MR_REQUIRE_HOST_ACCESSIBLE,
                       MR_REQUIRE_DEVICE_ACCESSIBLE};
  { mrctx::context ok(desc); }
  desc.overrides = "gpu=host";
  auto refused = thrown<mrctx::error>([&] { mrctx::context ctx(desc); });
  assert_true(refused.has_value());
  assert_int_equal(refused->status(), MR_ERR_CONFIG);
  assert_true(contains(refused->what(), "cpptest: tag 'gpu' needs device-accessible memory"));
  desc.overrides.clear();
  desc.tag_requires.pop_back();
  auto short_list = thrown<mrctx::error>([&] { mrctx::context ctx(desc); });
  assert_true(short_list.has_value());
  assert_int_equal(short_list->status(), MR_ERR_INVALID_ARGUMENT);
  assert_true(contains(short_list->what(), "tag_requires has 2 entries for 3 tags"));
}

void test_errors_carry_status_and_message(void **) {
  mrctx::context_desc desc = test_desc();
  desc.overrides = "temp=arena(host, chunk=)";
  auto config = thrown<mrctx::error>([&] { mrctx::context ctx(desc); });
  assert_true(config.has_value());
  assert_int_equal(config->status(), MR_ERR_CONFIG);
  assert_true(contains(config->what(), "MR_ERR_CONFIG: "));
  assert_true(contains(config->what(), "arena(host, chunk=)"));
  assert_true(contains(config->what(), "override"));

  desc = test_desc();
  desc.library = "";
  auto no_library = thrown<mrctx::error>([&] { mrctx::context ctx(desc); });
  assert_true(no_library.has_value());
  assert_int_equal(no_library->status(), MR_ERR_INVALID_ARGUMENT);
  assert_true(contains(no_library->what(), "library"));

  mrctx::context ctx(test_desc());
  auto bad_tag = thrown<mrctx::error>([&] { ctx.get(7); });
  assert_true(bad_tag.has_value());
  assert_int_equal(bad_tag->status(), MR_ERR_INVALID_ARGUMENT);
  assert_true(contains(bad_tag->what(), "cpptest: tag 7 does not exist"));
  auto negative = thrown<mrctx::error>([&] { ctx.get(-1); });
  assert_true(negative.has_value());
  assert_int_equal(negative->status(), MR_ERR_INVALID_ARGUMENT);
  auto bad_device = thrown<mrctx::error>([&] { ctx.get_on(tags::temp, 3); });
  assert_true(bad_device.has_value());
  assert_int_equal(bad_device->status(), MR_ERR_NO_DEVICE);
  auto bad_name = thrown<mrctx::error>([&] { ctx.tag_name(3); });
  assert_true(bad_name.has_value());
  assert_true(contains(bad_name->what(), "tag 3 does not exist"));
  auto bad_stats = thrown<mrctx::error>([&] { ctx.stats(9); });
  assert_true(bad_stats.has_value());
  assert_int_equal(bad_stats->status(), MR_ERR_INVALID_ARGUMENT);

  // check() for C calls, with mr_error's message.
  mrctx::check(MR_OK);
  auto checked = thrown<mrctx::error>(
      [] { mrctx::check(mr_error(MR_ERR_UNSUPPORTED, "no %s here", "such thing")); });
  assert_true(checked.has_value());
  assert_string_equal(checked->what(), "MR_ERR_UNSUPPORTED: no such thing here");
  // Without a message, the status says what it can.
  mr_clear_error();
  auto bare = thrown<mrctx::error>([] { mrctx::check(MR_ERR_DRIVER); });
  assert_true(bare.has_value());
  assert_string_equal(bare->what(), "MR_ERR_DRIVER: the CUDA driver reported an error");

  auto null_ref = thrown<mrctx::error>([] { mrctx::resource_ref r(nullptr); });
  assert_true(null_ref.has_value());
  assert_int_equal(null_ref->status(), MR_ERR_INVALID_ARGUMENT);
}

void test_allocation_failures_throw_bad_alloc(void **) {
  mrctx::context_desc desc = test_desc();
  desc.overrides = "temp=limit(host, bytes=4KiB)";
  mrctx::context ctx(desc);

  // No driver in the unit suite: the device tag is there, and says why it
  // cannot allocate. A std::bad_alloc, as allocators throw.
  mrctx::resource_ref gpu = ctx.get(tags::gpu);
  auto no_driver =
      thrown<std::bad_alloc>([&] { static_cast<void>(gpu.allocate(256, 0, nullptr)); });
  assert_true(no_driver.has_value());
  auto detail = thrown<mrctx::bad_alloc>([&] { static_cast<void>(gpu.allocate_sync(256, 0)); });
  assert_true(detail.has_value());
  assert_int_equal(detail->status(), MR_ERR_NO_DRIVER);
  assert_true(contains(detail->what(), "MR_ERR_NO_DRIVER: cpptest:gpu"));

  auto over = thrown<mrctx::bad_alloc>(
      [&] { static_cast<void>(ctx.get(tags::temp).allocate(8192, 0, nullptr)); });
  assert_true(over.has_value());
  assert_int_equal(over->status(), MR_ERR_OUT_OF_MEMORY);
  mrctx::bad_alloc copy = *over; // nothrow copy, same text
  assert_string_equal(copy.what(), over->what());

  auto alignment = thrown<mrctx::bad_alloc>(
      [&] { static_cast<void>(ctx.get(tags::result).allocate(64, 3, nullptr)); });
  assert_true(alignment.has_value());
  assert_int_equal(alignment->status(), MR_ERR_INVALID_ARGUMENT);
}

void test_deallocate_errors_throw(void **) {
  mrctx::resource tracked = mrctx::resource::from_spec("track(host)", 0);
  void *p = tracked.allocate(128, 0, nullptr);
  auto wrong = thrown<mrctx::error>([&] { tracked.deallocate(p, 64, 0, nullptr); });
  assert_true(wrong.has_value());
  assert_int_equal(wrong->status(), MR_ERR_INVALID_ARGUMENT);
  assert_true(contains(wrong->what(), "allocated with 128 bytes"));
  tracked.deallocate(p, 128, 0, nullptr);

  auto spec = thrown<mrctx::error>([] { mrctx::resource::from_spec("nosuch(host)", 0); });
  assert_true(spec.has_value());
  assert_int_equal(spec->status(), MR_ERR_CONFIG);
}

void test_context_moves(void **) {
  mrctx::context a(test_desc());
  mr_context *handle = a.native_handle();
  mrctx::context b(std::move(a));
  assert_ptr_equal(b.native_handle(), handle);
  assert_null(a.native_handle());
  auto moved_from = thrown<mrctx::error>([&] { a.get(tags::temp); });
  assert_true(moved_from.has_value());
  assert_int_equal(moved_from->status(), MR_ERR_INVALID_ARGUMENT);
  assert_true(contains(moved_from->what(), "NULL"));

  mrctx::context_desc other = test_desc();
  other.library = "other";
  mrctx::context c(other);
  c = std::move(b); // c's old context goes with b
  assert_ptr_equal(c.native_handle(), handle);
  assert_string_equal(c.library(), "cpptest");
  b = mrctx::context(other);
  assert_string_equal(b.library(), "other");
}

// A custom resource that counts its destruction, to see references.
int destroyed = 0;

mr_status counted_allocate(void *, std::size_t bytes, std::size_t, mr_stream, void **ptr) {
  *ptr = std::malloc(bytes);
  return *ptr != nullptr ? MR_OK : mr_error(MR_ERR_OUT_OF_MEMORY, "counted: %zu bytes", bytes);
}

mr_status counted_deallocate(void *, void *ptr, std::size_t, std::size_t, mr_stream) {
  std::free(ptr);
  return MR_OK;
}

void counted_destroy(void *) { destroyed++; }

mrctx::resource counted_resource() {
  static mr_resource_ops ops = [] {
    mr_resource_ops o{};
    o.size = sizeof o;
    o.name = "counted";
    o.allocate = counted_allocate;
    o.deallocate = counted_deallocate;
    o.destroy = counted_destroy;
    return o;
  }();
  mr_resource_props props{};
  props.size = sizeof props;
  props.kind = MR_MEMORY_HOST;
  props.device = -1;
  props.host_accessible = true;
  props.native_alignment = 16;
  mr_resource *mr = nullptr;
  mrctx::check(mr_resource_create(&ops, nullptr, &props, &mr));
  return mrctx::resource::adopt(mr);
}

void test_resource_references(void **) {
  destroyed = 0;
  {
    mrctx::resource a = counted_resource();
    assert_true(static_cast<bool>(a));
    mrctx::resource b = a; // retains
    mrctx::resource c(std::move(a));
    assert_false(static_cast<bool>(a));
    assert_ptr_equal(b.get(), c.get());
    a = b; // retains again
    void *p = c.allocate(100, 0, nullptr);
    assert_non_null(p);
    c.deallocate(p, 100, 0, nullptr);
    mrctx::resource_ref view = c;
    assert_ptr_equal(view.get(), c.get());
    assert_string_equal(view.name(), "counted");
    assert_int_equal(destroyed, 0);
  }
  assert_int_equal(destroyed, 1); // once, when the last reference went

  // An empty resource throws rather than crashing.
  mrctx::resource empty;
  assert_false(static_cast<bool>(empty));
  auto view = thrown<mrctx::error>([&] { static_cast<void>(empty.ref()); });
  assert_true(view.has_value());
  auto alloc = thrown<mrctx::bad_alloc>([&] { static_cast<void>(empty.allocate(8, 0, nullptr)); });
  assert_true(alloc.has_value());
  assert_int_equal(alloc->status(), MR_ERR_INVALID_ARGUMENT);
}

void test_resource_outlives_context(void **) {
  // A reference taken from a context keeps the resource after the context.
  mrctx::resource kept;
  {
    mrctx::context ctx(test_desc());
    kept = mrctx::resource(ctx.get(tags::result));
  }
  void *p = kept.allocate(32, 0, nullptr);
  assert_non_null(p);
  kept.deallocate(p, 32, 0, nullptr);
  assert_string_equal(kept.describe(), "host");
}

// docs/cpp.md quotes this function, word for word.
std::size_t sum_of_squares(const mrctx::context &ctx, std::size_t n, mr_stream stream) {
  // Scratch from the "temp" tag, freed on `stream` when it goes out of scope.
  mrctx::buffer scratch(ctx.get(tags::temp), n * sizeof(std::size_t), stream);
  std::size_t *v = scratch.data_as<std::size_t>();
  std::size_t total = 0;
  for (std::size_t i = 0; i < n; i++) {
    v[i] = i * i;
    total += v[i];
  }
  return total;
}

void test_buffer(void **) {
  mrctx::context ctx(test_desc());
  assert_int_equal(sum_of_squares(ctx, 10, nullptr), 285);
  mr_stats s = ctx.stats(tags::temp);
  assert_int_equal(s.current_bytes, 0); // freed at the end of its scope
  assert_int_equal(s.total_bytes, 10 * sizeof(std::size_t));

  mr_stream stream = reinterpret_cast<mr_stream>(std::uintptr_t{2});
  {
    mrctx::buffer a(ctx.get(tags::temp), 1000, stream, 4096);
    assert_non_null(a.data());
    assert_true(reinterpret_cast<std::uintptr_t>(a.data()) % 4096 == 0);
    assert_int_equal(a.size(), 1000);
    assert_int_equal(a.alignment(), 4096);
    assert_ptr_equal(a.stream(), stream);
    assert_false(a.empty());
    assert_ptr_equal(a.get_resource().get(), ctx.get(tags::temp).get());
    assert_int_equal(ctx.stats(tags::temp).current_bytes, 1000);

    // Move-only: the memory moves, the source is left empty.
    void *p = a.data();
    mrctx::buffer b(std::move(a));
    assert_ptr_equal(b.data(), p);
    assert_null(a.data());
    assert_int_equal(a.size(), 0);
    assert_true(a.empty());
    assert_true(thrown<mrctx::error>([&] { static_cast<void>(a.get_resource()); }).has_value());
    a.reset(); // nothing to free
    mrctx::buffer c(ctx.get(tags::temp).get(), 24, nullptr);
    c = std::move(b); // c's own 24 bytes are freed first
    assert_ptr_equal(c.data(), p);
    s = ctx.stats(tags::temp);
    assert_int_equal(s.current_bytes, 1000);
    assert_int_equal(s.current_count, 1);
    c.set_stream(nullptr);
    c.record_stream(nullptr); // host memory, no stream work: nothing to wait for
    a.record_stream(nullptr); // empty: nothing recorded
    assert_true(thrown<mrctx::error>([&] {
                  ctx.get(tags::temp).record_stream(nullptr, nullptr);
                }).has_value()); // a NULL block is refused
    c.reset();
    assert_null(c.data());
    assert_int_equal(ctx.stats(tags::temp).current_bytes, 0);
    c.reset(); // never freed twice
    assert_int_equal(ctx.stats(tags::temp).total_count, 3);
  }

  // Size 0 holds no memory; a default buffer is empty.
  mrctx::buffer zero(ctx.get(tags::result), 0, nullptr);
  assert_null(zero.data());
  mrctx::buffer none;
  assert_true(none.empty());

  // Errors: as the allocation's, and NULL.
  auto failed =
      thrown<mrctx::bad_alloc>([&] { mrctx::buffer big(ctx.get(tags::gpu), 64, nullptr); });
  assert_true(failed.has_value());
  assert_int_equal(failed->status(), MR_ERR_NO_DRIVER);
  auto odd =
      thrown<mrctx::bad_alloc>([&] { mrctx::buffer bad(ctx.get(tags::temp), 64, nullptr, 3); });
  assert_true(odd.has_value());
  assert_int_equal(odd->status(), MR_ERR_INVALID_ARGUMENT);
  auto null = thrown<mrctx::error>([] { mrctx::buffer n(nullptr, 8, nullptr); });
  assert_true(null.has_value());
  assert_int_equal(ctx.stats(tags::temp).current_count, 0);

  // It keeps its resource: the context may go first.
  destroyed = 0;
  mrctx::buffer kept;
  {
    mrctx::resource counted = counted_resource();
    kept = mrctx::buffer(counted, 100, nullptr);
  }
  assert_int_equal(destroyed, 0);
  std::memset(kept.data(), 1, 100);
  kept = mrctx::buffer();
  assert_int_equal(destroyed, 1);
}

} // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_host_tags_allocate),
      cmocka_unit_test(test_sources_and_precedence),
      cmocka_unit_test(test_context_from_c_desc),
      cmocka_unit_test(test_tag_requirements),
      cmocka_unit_test(test_errors_carry_status_and_message),
      cmocka_unit_test(test_allocation_failures_throw_bad_alloc),
      cmocka_unit_test(test_deallocate_errors_throw),
      cmocka_unit_test(test_context_moves),
      cmocka_unit_test(test_resource_references),
      cmocka_unit_test(test_resource_outlives_context),
      cmocka_unit_test(test_buffer),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
