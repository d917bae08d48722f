/*
 * mrctx.hpp: the C API for C++17, header-only.
 *
 *   mrctx::context      owns an mr_context (move-only); ctx.get(TAG) is
 *                       ctx_get_mr(ctx, TAG) as a resource_ref
 *   mrctx::resource_ref a borrowed mr_resource* (copyable, never NULL)
 *   mrctx::resource     an owned reference to an mr_resource (copy retains)
 *   mrctx::buffer       memory that frees itself on its stream (move-only)
 *   mrctx::bad_alloc    what a failing allocation throws (a std::bad_alloc)
 *   mrctx::error        what any other failing call throws
 *
 * Both exceptions carry the mr_status and the thread's mr_last_error() as
 * it was when the call failed.
 *
 * Where CCCL's memory resources are in use, this header also defines
 * mrctx::cccl_resource<Properties...>: a resource_ref as a CCCL memory
 * resource, for APIs that take one (CUB, Thrust, rmm, cudf). It speaks both
 * of CCCL's spellings of cuda::mr, chosen by CCCL's version macros: CCCL 3.0
 * (CUDA 13.0; allocate_async with the stream last) and CCCL 3.1 to 3.x
 * (CUDA 13.1 on, current rmm; allocate with the stream first, allocate_sync;
 * NVIDIA/cccl#5313). It is defined when MRCTX_WITH_CCCL or
 * LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE (which CCCL 3.0 needs) is
 * defined, or when a CCCL 3.1+ header was included before this one; another
 * CCCL version asked for is an #error, and MRCTX_NO_CCCL turns it all off.
 * docs/cpp.md has the whole story.
 *
 * Nothing here adds state or locks to the C objects: a resource_ref is a
 * pointer, a context a handle, and what the C API says about threads, stream
 * order and lifetime holds as it is.
 */
#ifndef MRCTX_MRCTX_HPP
#define MRCTX_MRCTX_HPP

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "mrctx.hpp needs C++17 or later; C code includes <mrctx/mrctx.h>"
#endif

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <mrctx/mrctx.h>

namespace mrctx {

namespace detail {

// "MR_ERR_CONFIG: <message>", or the status's own description when the
// thread has no message.
inline std::string describe_failure(mr_status status, const char *message) {
  std::string text = mr_status_name(status);
  text += ": ";
  text += (message != nullptr && message[0] != '\0') ? message : mr_status_string(status);
  return text;
}

} // namespace detail

// A failed call. Construct it right after the call that failed: it reads
// this thread's mr_last_error() then.
class error : public std::runtime_error {
public:
  explicit error(mr_status status)
      : std::runtime_error(detail::describe_failure(status, mr_last_error())), status_(status) {}

  mr_status status() const noexcept { return status_; }

private:
  mr_status status_;
};

// A failed allocation: a std::bad_alloc, as allocators throw, that also
// carries the status (MR_ERR_OUT_OF_MEMORY, or MR_ERR_NO_DRIVER for a device
// tag on a machine without a GPU, ...) and mr_last_error() from when it
// failed. Copying it cannot throw.
class bad_alloc : public std::bad_alloc {
public:
  explicit bad_alloc(mr_status status)
      : status_(status), what_(detail::describe_failure(status, mr_last_error())) {}

  mr_status status() const noexcept { return status_; }
  const char *what() const noexcept override { return what_.what(); }

private:
  mr_status status_;
  std::runtime_error what_; // a reference-counted string: nothrow copies
};

// Throws mrctx::error unless `status` is MR_OK: for calling the C API from
// C++ code.
inline void check(mr_status status) {
  if (status != MR_OK) throw error(status);
}

namespace detail {

inline void check_allocation(mr_status status) {
  if (status != MR_OK) throw mrctx::bad_alloc(status);
}

// The operations of a resource, shared by resource_ref and resource, both
// of which say which mr_resource they mean through get().
template <class Derived> class resource_operations {
public:
  // Stream-ordered, as mr_allocate: usable by work ordered after this call
  // on `stream`. Alignment 0 is 256 bytes. Size 0 gives nullptr. Throws
  // mrctx::bad_alloc.
  void *allocate(std::size_t bytes, std::size_t alignment, mr_stream stream) const {
    void *ptr = nullptr;
    check_allocation(mr_allocate(self(), bytes, alignment, stream, &ptr));
    return ptr;
  }

  // Frees on `stream` with the size and alignment it was allocated with.
  // Throws mrctx::error (a size that does not match, a driver error).
  void deallocate(void *ptr, std::size_t bytes, std::size_t alignment, mr_stream stream) const {
    check(mr_deallocate(self(), ptr, bytes, alignment, stream));
  }

  // As mr_allocate_sync: usable by anyone on return. Throws mrctx::bad_alloc.
  void *allocate_sync(std::size_t bytes, std::size_t alignment) const {
    void *ptr = nullptr;
    check_allocation(mr_allocate_sync(self(), bytes, alignment, &ptr));
    return ptr;
  }

  // As mr_deallocate_sync: freed after all prior work. Throws mrctx::error.
  void deallocate_sync(void *ptr, std::size_t bytes, std::size_t alignment) const {
    check(mr_deallocate_sync(self(), ptr, bytes, alignment));
  }

  // As mr_record_stream: the live block `ptr` is used on `stream` too; its
  // free waits for the work queued there before it. Throws mrctx::error.
  void record_stream(void *ptr, mr_stream stream) const {
    check(mr_record_stream(self(), ptr, stream));
  }

  void synchronize(mr_stream stream) const { check(mr_resource_synchronize(self(), stream)); }

  void trim() const { check(mr_resource_trim(self())); }

  mr_resource_props props() const {
    mr_resource_props props{};
    props.size = sizeof props;
    check(mr_resource_get_props(self(), &props));
    return props;
  }

  // The resolved spec text, e.g. "arena(device, chunk=64MiB)"; lives as
  // long as the resource.
  const char *describe() const noexcept { return mr_resource_describe(self()); }
  const char *name() const noexcept { return mr_resource_name(self()); }

private:
  mr_resource *self() const noexcept { return static_cast<const Derived *>(this)->get(); }
};

} // namespace detail

// A borrowed resource: what ctx_get_mr returns, as a value. It takes no
// reference, so whatever owns the resource (a context, an mrctx::resource)
// must outlive it. Copies are cheap and compare equal when they name the
// same resource.
class resource_ref : public detail::resource_operations<resource_ref> {
public:
  // Throws mrctx::error (MR_ERR_INVALID_ARGUMENT) for NULL.
  explicit resource_ref(mr_resource *mr) : mr_(mr) {
    if (mr == nullptr)
      throw error(mr_error(MR_ERR_INVALID_ARGUMENT, "mrctx::resource_ref: the resource is NULL"));
  }

  mr_resource *get() const noexcept { return mr_; }

  friend bool operator==(resource_ref a, resource_ref b) noexcept { return a.mr_ == b.mr_; }
  friend bool operator!=(resource_ref a, resource_ref b) noexcept { return a.mr_ != b.mr_; }

private:
  mr_resource *mr_;
};

// An owned reference to a resource: copying retains, destruction releases.
// Empty after a move or default construction; operations on an empty one
// throw. Every allocation must be freed before the last reference goes.
class resource : public detail::resource_operations<resource> {
public:
  resource() noexcept = default;

  // Another reference to a borrowed resource (retained).
  explicit resource(resource_ref ref) noexcept : mr_(mr_resource_retain(ref.get())) {}

  // Takes over a reference the caller owns, such as one from an
  // mr_*_resource_create call; nullptr gives an empty resource.
  static resource adopt(mr_resource *owned) noexcept { return resource(owned); }

  // As mr_resource_from_spec: e.g. resource::from_spec("arena(device)", 0).
  // Throws mrctx::error (MR_ERR_CONFIG with the text and column, ...).
  static resource from_spec(const std::string &spec, int device) {
    mr_resource *mr = nullptr;
    check(mr_resource_from_spec(spec.c_str(), device, &mr));
    return resource(mr);
  }

  resource(const resource &other) noexcept : mr_(mr_resource_retain(other.mr_)) {}
  resource(resource &&other) noexcept : mr_(std::exchange(other.mr_, nullptr)) {}
  resource &operator=(resource other) noexcept {
    std::swap(mr_, other.mr_);
    return *this;
  }
  ~resource() { mr_resource_release(mr_); }

  mr_resource *get() const noexcept { return mr_; }
  explicit operator bool() const noexcept { return mr_ != nullptr; }

  // A borrowed view, valid while this (or another reference) lives. Throws
  // mrctx::error when empty.
  resource_ref ref() const { return resource_ref(mr_); }
  operator resource_ref() const { return ref(); }

private:
  explicit resource(mr_resource *owned) noexcept : mr_(owned) {}

  mr_resource *mr_ = nullptr;
};

// One allocation kind of a context: mr_tag with owned strings.
struct tag {
  std::string name;         // letters, digits, '_'
  std::string default_spec; // the library's choice, e.g. "device"
};

// mr_context_desc with owned strings; an empty string is a source not given,
// so {"mylib", {{"temp", "device"}}, "MYLIB_MEMORY"} leaves out the rest.
// Tag value i is entry i of `tags`.
struct context_desc {
  std::string library;
  std::vector<tag> tags = {};
  std::string env_var = {};     // the operator's overrides
  std::string config_file = {}; // an error only if named and missing
  std::string overrides = {};   // the application's override text
  // What each tag's memory must be (mr_context_desc.tag_requires): empty,
  // or one set of MR_REQUIRE_* flags per tag, in tag order.
  std::vector<std::uint32_t> tag_requires = {};
};

// A library's memory policy: one resource per tag and device, resolved at
// creation and never changed. Move-only: the context owns its resources, and
// every resource_ref it hands out lives as long as it does. Shared by any
// number of threads once created; get() takes no lock.
class context {
public:
  // Throws mrctx::error: MR_ERR_CONFIG for a bad spec, its message quoting
  // the text, naming the source and pointing at the column.
  explicit context(const context_desc &desc) {
    std::vector<mr_tag> tags;
    tags.reserve(desc.tags.size());
    for (const tag &t : desc.tags) tags.push_back(mr_tag{t.name.c_str(), t.default_spec.c_str()});
    mr_context_desc c{};
    c.size = sizeof c;
    c.library = desc.library.c_str();
    c.tags = tags.data();
    c.tag_count = tags.size();
    c.env_var = optional(desc.env_var);
    c.config_file = optional(desc.config_file);
    c.overrides = optional(desc.overrides);
    if (!desc.tag_requires.empty()) {
      if (desc.tag_requires.size() != tags.size())
        throw error(mr_error(MR_ERR_INVALID_ARGUMENT,
                             "%s: tag_requires has %zu entries for %zu tags (one per tag, or "
                             "none)",
                             desc.library.c_str(), desc.tag_requires.size(), tags.size()));
      c.tag_requires = desc.tag_requires.data();
    }
    check(mr_context_create(&c, &ctx_));
  }

  // From the C description, for a library whose C API shares it (set
  // desc.size). Throws as above.
  explicit context(const mr_context_desc &desc) { check(mr_context_create(&desc, &ctx_)); }

  context(const context &) = delete;
  context &operator=(const context &) = delete;
  context(context &&other) noexcept : ctx_(std::exchange(other.ctx_, nullptr)) {}
  context &operator=(context &&other) noexcept {
    std::swap(ctx_, other.ctx_);
    return *this;
  }
  // Memory allocated through the context must have been freed.
  ~context() { mr_context_destroy(ctx_); }

  // For the C API; nullptr after a move.
  mr_context *native_handle() const noexcept { return ctx_; }

  // The resource for `tag` (an int or an enum, scoped or not) on the calling
  // thread's current device: ctx_get_mr. Throws mrctx::error for a tag the
  // context does not have or a moved-from context.
  template <class Tag> resource_ref get(Tag tag) const {
    return found(mr_context_get_mr(ctx_, index(tag)), index(tag));
  }

  // The resource for `tag` on `device`. Throws mrctx::error
  // (MR_ERR_NO_DEVICE for a device the context has no slot for).
  template <class Tag> resource_ref get_on(Tag tag, int device) const {
    return found(mr_context_get_mr_on(ctx_, index(tag), device), index(tag));
  }

  const char *library() const noexcept { return mr_context_library(ctx_); }
  std::size_t tag_count() const noexcept { return mr_context_tag_count(ctx_); }
  int device_count() const noexcept { return mr_context_device_count(ctx_); }

  // The tag's name. Throws mrctx::error for a tag the context does not have.
  template <class Tag> const char *tag_name(Tag tag) const {
    const char *name = mr_context_tag_name(ctx_, index(tag));
    if (name == nullptr)
      throw error(mr_error(MR_ERR_INVALID_ARGUMENT,
                           "%s: tag %d does not exist (the context has %zu tags)", library(),
                           index(tag), tag_count()));
    return name;
  }

  // The tag's statistics on `device`, or summed over devices (-1).
  template <class Tag> mr_stats stats(Tag tag, int device = -1) const {
    mr_stats s;
    mr_stats_init(&s);
    check(mr_context_get_stats(ctx_, index(tag), device, &s));
    return s;
  }

  // Where the tag's spec on `device` came from; its strings live as long as
  // the context.
  template <class Tag> mr_spec_source source(Tag tag, int device) const {
    mr_spec_source s{};
    s.size = sizeof s;
    check(mr_context_get_source(ctx_, index(tag), device, &s));
    return s;
  }

  // Every tag's statistics as a table (mr_context_print_stats).
  void print_stats(std::FILE *out) const { check(mr_context_print_stats(ctx_, out)); }

  // What every tag resolved to, as `mrctx resolve` shows it
  // (mr_context_print_resolved).
  void print_resolved(std::FILE *out) const { check(mr_context_print_resolved(ctx_, out)); }

private:
  static const char *optional(const std::string &s) noexcept {
    return s.empty() ? nullptr : s.c_str();
  }

  template <class Tag> static int index(Tag tag) noexcept {
    static_assert(std::is_integral<Tag>::value || std::is_enum<Tag>::value,
                  "a tag is an int or an enum value");
    return static_cast<int>(tag);
  }

  // mr_context_get_mr's NULL has set the message; the status is not
  // returned, so tell an unknown tag from an unknown device here.
  resource_ref found(mr_resource *mr, int tag) const {
    if (mr != nullptr) return resource_ref(mr);
    bool bad_tag = ctx_ == nullptr || tag < 0 || static_cast<std::size_t>(tag) >= tag_count();
    throw error(bad_tag ? MR_ERR_INVALID_ARGUMENT : MR_ERR_NO_DEVICE);
  }

  mr_context *ctx_ = nullptr;
};

// Memory that knows its size, alignment, stream and resource, as
// rmm::device_buffer does: allocated stream-ordered when constructed, freed
// on its stream when destroyed or reset(), move-only. It holds its own
// reference to the resource, so it may outlive the context or resource it
// came from. It never copies memory (use cudaMemcpyAsync on data()).
//
//   mrctx::buffer scratch(ctx.get(TEMP), n, stream);
//   kernel<<<grid, block, 0, stream>>>(scratch.data_as<float>(), n / 4);
//   // freed on `stream` at the end of the scope
class buffer {
public:
  // No memory: data() nullptr, size() 0.
  buffer() noexcept = default;

  // `bytes` from `mr` on `stream` (alignment 0: 256 bytes), usable by work
  // ordered after this on `stream`. Size 0 holds no memory. Throws
  // mrctx::bad_alloc, as resource_ref::allocate.
  buffer(resource_ref mr, std::size_t bytes, mr_stream stream, std::size_t alignment = 0)
      : mr_(mr), size_(bytes), alignment_(alignment), stream_(stream) {
    data_ = mr_.allocate(bytes, alignment, stream);
  }

  // The same from the C handle. Throws mrctx::error for NULL.
  buffer(mr_resource *mr, std::size_t bytes, mr_stream stream, std::size_t alignment = 0)
      : buffer(resource_ref(mr), bytes, stream, alignment) {}

  buffer(const buffer &) = delete;
  buffer &operator=(const buffer &) = delete;

  // Takes the memory over; `other` is left empty.
  buffer(buffer &&other) noexcept
      : mr_(std::move(other.mr_)), data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)), alignment_(std::exchange(other.alignment_, 0)),
        stream_(std::exchange(other.stream_, nullptr)) {}

  // Frees what this buffer held (as the destructor does), then takes
  // `other`'s memory over.
  buffer &operator=(buffer &&other) noexcept {
    if (this != &other) {
      free_quietly();
      mr_ = std::move(other.mr_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      alignment_ = std::exchange(other.alignment_, 0);
      stream_ = std::exchange(other.stream_, nullptr);
    }
    return *this;
  }

  // Freed on its stream. A destructor cannot throw: a free the resource
  // refuses leaves its message in mr_last_error() (call reset() to see it
  // thrown).
  ~buffer() { free_quietly(); }

  void *data() const noexcept { return data_; }
  template <class T> T *data_as() const noexcept { return static_cast<T *>(data_); }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t alignment() const noexcept { return alignment_; }
  // The stream it was allocated on and is freed on.
  mr_stream stream() const noexcept { return stream_; }

  // Free on `stream` instead: the caller has ordered it after the memory's
  // last use on the old stream (an event, a synchronize).
  void set_stream(mr_stream stream) noexcept { stream_ = stream; }

  // Work on `stream` (not the buffer's) uses the memory: its free waits
  // for that work (mr_record_stream). No-op for an empty buffer. Throws
  // mrctx::error.
  void record_stream(mr_stream stream) const {
    if (mr_ && data_ != nullptr) mr_.record_stream(data_, stream);
  }

  // The resource it came from. Throws mrctx::error for an empty buffer.
  resource_ref get_resource() const { return mr_.ref(); }

  // Free now, on its stream; the buffer is then empty. Throws mrctx::error
  // if the resource refuses the free (empty all the same: the memory is
  // never freed twice).
  void reset() {
    resource mr = std::move(mr_);
    void *data = std::exchange(data_, nullptr);
    std::size_t bytes = std::exchange(size_, 0);
    if (mr)
      mr.deallocate(data, bytes, std::exchange(alignment_, 0), std::exchange(stream_, nullptr));
  }

private:
  void free_quietly() noexcept {
    if (mr_) static_cast<void>(mr_deallocate(mr_.get(), data_, size_, alignment_, stream_));
    mr_ = resource();
    data_ = nullptr;
    size_ = 0;
  }

  resource mr_;
  void *data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t alignment_ = 0;
  mr_stream stream_ = nullptr;
};

} // namespace mrctx

#endif // MRCTX_MRCTX_HPP

// ---- CCCL memory resources (docs/cpp.md, "CCCL memory resources") ---------
//
// Outside the include guard on purpose: a translation unit that included
// this header before any CCCL header gets the adaptor by including it again
// after them. Defined when MRCTX_NO_CCCL is not, and
//   - MRCTX_WITH_CCCL or LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE is
//     defined: asked for, so a CCCL this header does not know, or one it
//     cannot use as configured, is an #error; or
//   - a CCCL 3.1 or later 3.x header was included before this one
//     (CCCL_MAJOR_VERSION is defined) and the toolkit's headers, which
//     cuda::mr needs, are on the include path: code that already uses CCCL's
//     resources gets the adaptor without asking. Any other CCCL found this
//     way is left alone, as before.
// Nothing here includes a CUDA header for code that did none of this.
#if !defined(MRCTX_NO_CCCL) && !defined(MRCTX_HAS_CCCL_RESOURCE)
#if defined(MRCTX_WITH_CCCL) || defined(LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE)
#define MRCTX_DETAIL_CCCL_WANTED 1
#elif defined(CCCL_MAJOR_VERSION) && defined(CCCL_MINOR_VERSION)
#if CCCL_MAJOR_VERSION == 3 && CCCL_MINOR_VERSION >= 1
#if defined(__CUDACC__) || __has_include(<cuda_runtime_api.h>)
#define MRCTX_DETAIL_CCCL_WANTED 1
#endif
#endif
#endif
#endif

#ifdef MRCTX_DETAIL_CCCL_WANTED
#undef MRCTX_DETAIL_CCCL_WANTED

#if !defined(__CUDACC__) && !__has_include(<cuda_runtime_api.h>)
#error \
    "mrctx::cccl_resource: CCCL's cuda::mr needs the CUDA toolkit's headers (cuda_runtime_api.h) on the include path; define MRCTX_NO_CCCL to do without it"
#endif

#include <cuda/version>

// Which of CCCL's two spellings of cuda::mr this is (docs/cpp.md):
//   300  CCCL 3.0 (CUDA 13.0): allocate/deallocate are synchronous,
//        allocate_async/deallocate_async take the stream last
//   301  CCCL 3.1 to 3.x (CUDA 13.1 on, current rmm and cudf):
//        allocate/deallocate take the stream first,
//        allocate_sync/deallocate_sync are synchronous (NVIDIA/cccl#5313)
#if CCCL_MAJOR_VERSION == 3 && CCCL_MINOR_VERSION == 0
#ifndef LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE
#error \
    "mrctx::cccl_resource: CCCL 3.0 (CUDA 13.0) defines cuda::mr only with LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE defined before any CCCL header (on the command line); or define MRCTX_NO_CCCL to do without it"
#endif
#define MRCTX_CCCL_SPELLING 300
#elif CCCL_MAJOR_VERSION == 3 && CCCL_MINOR_VERSION >= 1
#define MRCTX_CCCL_SPELLING 301
#else
#error \
    "mrctx::cccl_resource is written for CCCL 3.0 (CUDA 13.0) and CCCL 3.1 to 3.x, and this CCCL is neither; define MRCTX_NO_CCCL to do without it"
#endif

#include <cuda/memory_resource>
#include <cuda/stream_ref>

// Defined once the adaptor is: code may test it.
#define MRCTX_HAS_CCCL_RESOURCE 1

namespace mrctx {

namespace detail {

template <class Property, class... Properties>
constexpr bool has_property_v = std::disjunction<std::is_same<Property, Properties>...>::value;

} // namespace detail

// An mrctx resource as a CCCL memory resource, with the accessibility
// `Properties` (cuda::mr::device_accessible, cuda::mr::host_accessible or
// both), so it converts to CCCL's resource references of those properties:
//   CCCL 3.0:  cuda::mr::resource and cuda::mr::async_resource;
//              cuda::mr::resource_ref<P...>, cuda::mr::async_resource_ref<P...>
//   CCCL 3.1+: cuda::mr::synchronous_resource and cuda::mr::resource;
//              cuda::mr::synchronous_resource_ref<P...>,
//              cuda::mr::resource_ref<P...>, cuda::mr::any_resource<P...>
//              (rmm::device_async_resource_ref, rmm::device_buffer's mr)
// CCCL's properties are types, fixed at compile time, while an mrctx
// resource's accessibility is known when it is resolved, so the constructor
// checks it: a host tag cannot become a device_accessible resource. Use the
// aliases below.
//
// It borrows the resource (a resource_ref): the context must outlive it and
// every copy, including the copies CCCL's any_resource and rmm keep. Copies
// compare equal when they wrap the same mrctx resource, so memory from one
// may be freed through another. As thread-safe as the resource (every
// built-in one is).
template <class... Properties> class cccl_resource {
  static_assert(
      sizeof...(Properties) > 0 && ((detail::has_property_v<Properties, cuda::mr::device_accessible,
                                                            cuda::mr::host_accessible>)&&...),
      "mrctx::cccl_resource takes cuda::mr::device_accessible and/or cuda::mr::host_accessible");

public:
  // Throws mrctx::error (MR_ERR_INVALID_ARGUMENT) when the resource's memory
  // is not accessible where Properties promise.
  explicit cccl_resource(resource_ref mr) : mr_(mr) {
    mr_resource_props props = mr.props();
    const char *missing = nullptr;
    if (detail::has_property_v<cuda::mr::device_accessible, Properties...> &&
        !props.device_accessible)
      missing = "device";
    else if (detail::has_property_v<cuda::mr::host_accessible, Properties...> &&
             !props.host_accessible)
      missing = "host";
    if (missing != nullptr)
      throw error(mr_error(MR_ERR_INVALID_ARGUMENT,
                           "mrctx::cccl_resource: '%s' gives %s memory, which is not %s-accessible",
                           mr.describe(), mr_memory_kind_name(props.kind), missing));
  }

#if MRCTX_CCCL_SPELLING == 300
  // Memory usable by anyone on return (mr_allocate_sync). Throws
  // mrctx::bad_alloc.
  void *allocate(std::size_t bytes,
                 std::size_t alignment = cuda::mr::default_cuda_malloc_alignment) {
    return mr_.allocate_sync(bytes, alignment);
  }

  // Freed after all prior work (mr_deallocate_sync). CCCL calls deallocate
  // as noexcept, so a failure (a size or alignment other than the
  // allocation's) is not thrown: mr_last_error() keeps it.
  void deallocate(void *ptr, std::size_t bytes,
                  std::size_t alignment = cuda::mr::default_cuda_malloc_alignment) noexcept {
    static_cast<void>(mr_deallocate_sync(mr_.get(), ptr, bytes, alignment));
  }

  // Stream-ordered on `stream` (mr_allocate). Throws mrctx::bad_alloc.
  void *allocate_async(std::size_t bytes, std::size_t alignment, cuda::stream_ref stream) {
    return mr_.allocate(bytes, alignment, stream.get());
  }

  // Stream-ordered on `stream` (mr_deallocate). Not thrown, as deallocate.
  void deallocate_async(void *ptr, std::size_t bytes, std::size_t alignment,
                        cuda::stream_ref stream) noexcept {
    static_cast<void>(mr_deallocate(mr_.get(), ptr, bytes, alignment, stream.get()));
  }
#else
  // Stream-ordered on `stream` (mr_allocate). Throws mrctx::bad_alloc.
  void *allocate(cuda::stream_ref stream, std::size_t bytes,
                 std::size_t alignment = cuda::mr::default_cuda_malloc_alignment) {
    return mr_.allocate(bytes, alignment, stream.get());
  }

  // Stream-ordered on `stream` (mr_deallocate). CCCL calls deallocate as
  // noexcept, so a failure (a size or alignment other than the
  // allocation's) is not thrown: mr_last_error() keeps it.
  void deallocate(cuda::stream_ref stream, void *ptr, std::size_t bytes,
                  std::size_t alignment = cuda::mr::default_cuda_malloc_alignment) noexcept {
    static_cast<void>(mr_deallocate(mr_.get(), ptr, bytes, alignment, stream.get()));
  }

  // Memory usable by anyone on return (mr_allocate_sync). Throws
  // mrctx::bad_alloc.
  void *allocate_sync(std::size_t bytes,
                      std::size_t alignment = cuda::mr::default_cuda_malloc_alignment) {
    return mr_.allocate_sync(bytes, alignment);
  }

  // Freed after all prior work (mr_deallocate_sync). Not thrown, as
  // deallocate.
  void deallocate_sync(void *ptr, std::size_t bytes,
                       std::size_t alignment = cuda::mr::default_cuda_malloc_alignment) noexcept {
    static_cast<void>(mr_deallocate_sync(mr_.get(), ptr, bytes, alignment));
  }
#endif

  resource_ref ref() const noexcept { return mr_; }

  friend bool operator==(const cccl_resource &a, const cccl_resource &b) noexcept {
    return a.mr_ == b.mr_;
  }
  friend bool operator!=(const cccl_resource &a, const cccl_resource &b) noexcept {
    return a.mr_ != b.mr_;
  }

  // CCCL's stateless properties: present exactly for Properties.
  template <class Property,
            std::enable_if_t<detail::has_property_v<Property, Properties...>, int> = 0>
  friend void get_property(const cccl_resource &, Property) noexcept {}

private:
  resource_ref mr_;
};

// Memory kernels may use: device, pinned and managed tags.
using device_accessible_resource = cccl_resource<cuda::mr::device_accessible>;
// Memory the host may use: host, pinned and managed tags.
using host_accessible_resource = cccl_resource<cuda::mr::host_accessible>;
// Memory both may use: pinned and managed tags.
using host_device_accessible_resource =
    cccl_resource<cuda::mr::host_accessible, cuda::mr::device_accessible>;

} // namespace mrctx

#endif // MRCTX_DETAIL_CCCL_WANTED
