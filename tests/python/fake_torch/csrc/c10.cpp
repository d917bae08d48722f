/*
 * The stand-in's libc10.so: c10::Error's out-of-line members, so that its
 * vtable and type information live in this library, as PyTorch's do.
 */
#include <c10/util/Exception.h>

#include <utility>

namespace c10 {

Error::Error(SourceLocation source_location, std::string msg)
    : msg_(std::move(msg)),
      what_(msg_ + " (raised from " + source_location.function + " at " + source_location.file +
            ":" + std::to_string(source_location.line) + ")") {}

const char *Error::what() const noexcept { return what_.c_str(); }

} // namespace c10
