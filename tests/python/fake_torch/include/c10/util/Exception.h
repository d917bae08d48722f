/*
 * The stand-in's c10/util/Exception.h: what mrctx's helper
 * (python/mrctx/_torch_oom_helper.py) uses of PyTorch's, declared as
 * PyTorch 2 declares it: c10::Error's constructor and what() live in
 * libc10.so (csrc/c10.cpp), OutOfMemoryError inherits its constructors,
 * C10_THROW_ERROR throws with the source location, TORCH_CHECK with the
 * message's parts joined.
 */
#ifndef FAKE_TORCH_C10_UTIL_EXCEPTION_H
#define FAKE_TORCH_C10_UTIL_EXCEPTION_H

#include <cstdint>
#include <exception>
#include <sstream>
#include <string>

#define C10_API __attribute__((visibility("default")))

namespace c10 {

struct SourceLocation {
  const char *function;
  const char *file;
  uint32_t line;
};

class C10_API Error : public std::exception {
  std::string msg_;
  std::string what_;

public:
  Error(SourceLocation source_location, std::string msg);
  const char *what() const noexcept override;
  virtual const char *what_without_backtrace() const noexcept { return msg_.c_str(); }
};

class C10_API OutOfMemoryError : public Error {
  using Error::Error;
};

} // namespace c10

#define C10_THROW_ERROR(err_type, msg) \
  throw ::c10::err_type({__func__, __FILE__, static_cast<uint32_t>(__LINE__)}, msg)

namespace c10::detail {
template <typename... Args> std::string str(const Args &...args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}
} // namespace c10::detail

/* TORCH_CHECK(cond, message parts...): c10::Error with the parts joined. */
#define TORCH_CHECK(cond, ...) \
  if (!(cond)) C10_THROW_ERROR(Error, ::c10::detail::str(__VA_ARGS__))

#endif
