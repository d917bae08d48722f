/*
 * catch.h: how the stand-in turns what C++ throws into what PyTorch's
 * bindings raise (torch/csrc/Exceptions.h, CATCH_CORE_ERRORS), as a code
 * and a message, since ctypes cannot catch a C++ exception: 0 done, 1
 * RuntimeError (c10::Error or another std::exception), 2
 * torch.OutOfMemoryError (c10::OutOfMemoryError). The message goes to
 * message[0..cap).
 */
#ifndef FAKE_TORCH_CATCH_H
#define FAKE_TORCH_CATCH_H

#include <c10/util/Exception.h>

#include <cstdio>

template <typename F> int fake_torch_catch(char *message, size_t cap, F f) {
  try {
    f();
    return 0;
  } catch (const c10::OutOfMemoryError &e) {
    snprintf(message, cap, "%s", e.what_without_backtrace());
    return 2;
  } catch (const c10::Error &e) {
    snprintf(message, cap, "%s", e.what_without_backtrace());
    return 1;
  } catch (const std::exception &e) {
    snprintf(message, cap, "%s", e.what());
    return 1;
  }
}

#endif
