/*
 * error.c: status names and the per-thread error message.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

const char *mr_version(void) { return MRCTX_VERSION_STRING; }

const char *mr_status_name(mr_status status) {
  switch (status) {
#define MRI_NAME_CASE_(name, value, description) \
  case name:                                     \
    return #name;
    MR_STATUS_LIST(MRI_NAME_CASE_)
#undef MRI_NAME_CASE_
  }
  return "MR_ERR_UNKNOWN";
}

const char *mr_status_string(mr_status status) {
  switch (status) {
#define MRI_STRING_CASE_(name, value, description) \
  case name:                                       \
    return description;
    MR_STATUS_LIST(MRI_STRING_CASE_)
#undef MRI_STRING_CASE_
  }
  return "unknown status";
}

/*
 * Each thread's message lives in a heap block of MRI_ERROR_CAPACITY bytes,
 * taken at the thread's first failure, kept for the thread's life (so later
 * failures, out-of-memory ones included, never allocate) and freed by a
 * pthread key destructor when the thread exits. Only the pointer is
 * thread-local: the library's static TLS stays a few bytes, so it can be
 * dlopen'ed late into a process that used up glibc's static-TLS surplus.
 * If the block cannot be had, the thread's message is a static text for
 * the status (tls_fallback), until a later failure gets a block.
 */
static _Thread_local char *tls_message;
static _Thread_local const char *tls_fallback;

static pthread_once_t message_once = PTHREAD_ONCE_INIT;
static pthread_key_t message_key;
static bool message_key_ok;

static void message_free(void *block) {
  free(block);
  tls_message = NULL;
}

static void message_key_create(void) {
  message_key_ok = pthread_key_create(&message_key, message_free) == 0;
}

/* What a thread without a message block says: the status, and that the
 * detail was lost. */
static const char *fallback_text(mr_status status) {
  switch (status) {
#define MRI_FALLBACK_CASE_(name, value, description) \
  case name:                                         \
    return #name ": " description " (no host memory was left to record what failed)";
    MR_STATUS_LIST(MRI_FALLBACK_CASE_)
#undef MRI_FALLBACK_CASE_
  }
  return "MR_ERR_UNKNOWN (no host memory was left to record what failed)";
}

/* This thread's message block, taken on first use; NULL (and the fallback
 * text for `status` recorded) when no host memory or no key is left. */
static char *message_block(mr_status status) {
  if (MRI_LIKELY(tls_message != NULL)) return tls_message;
  pthread_once(&message_once, message_key_create);
  char *block = message_key_ok ? mri_host_malloc(MRI_ERROR_CAPACITY) : NULL;
  if (block != NULL && pthread_setspecific(message_key, block) != 0) {
    free(block);
    block = NULL;
  }
  if (block == NULL) {
    tls_fallback = fallback_text(status);
    return NULL;
  }
  block[0] = '\0';
  tls_message = block;
  tls_fallback = NULL;
  return block;
}

const char *mr_last_error(void) {
  if (MRI_UNLIKELY(tls_fallback != NULL)) return tls_fallback;
  return tls_message != NULL ? tls_message : "";
}

void mr_clear_error(void) {
  tls_fallback = NULL;
  if (tls_message != NULL) tls_message[0] = '\0';
}

void mri_vformat_fit(char *buf, size_t cap, const char *format, va_list args) {
  /* Most messages fit the scratch; a longer one is formatted again in full
   * where host memory allows (if not, its far end is lost). */
  char scratch[4 * MRI_ERROR_CAPACITY];
  va_list again;
  va_copy(again, args);
  int n = vsnprintf(scratch, sizeof scratch, format, args);
  if (n < 0) {
    va_end(again);
    if (cap > 0) buf[0] = '\0';
    return;
  }
  if ((size_t)n < sizeof scratch) {
    va_end(again);
    mri_fit_text(buf, cap, scratch, (size_t)n);
    return;
  }
  char *whole = mri_host_malloc((size_t)n + 1);
  if (whole != NULL) vsnprintf(whole, (size_t)n + 1, format, again);
  va_end(again);
  if (whole != NULL)
    mri_fit_text(buf, cap, whole, (size_t)n);
  else
    mri_fit_text(buf, cap, scratch, sizeof scratch - 1);
  free(whole);
}

mr_status mri_verror(mr_status status, const char *format, va_list args) {
  /* Format into a scratch buffer first: `args` may refer to the current
   * message (a caller re-reporting mr_last_error()). */
  char scratch[MRI_ERROR_CAPACITY];
  mri_vformat_fit(scratch, sizeof scratch, format, args);
  char *message = message_block(status);
  if (message != NULL) memcpy(message, scratch, sizeof scratch);
  return status;
}

mr_status mri_error(mr_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  mri_verror(status, format, args);
  va_end(args);
  return status;
}

mr_status mr_error(mr_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  if (format == NULL) format = "";
  mri_verror(status, format, args);
  va_end(args);
  return status;
}

mr_status mri_error_prefix(mr_status status, const char *format, ...) {
  char prefix[MRI_ERROR_CAPACITY];
  va_list args;
  va_start(args, format);
  mri_vformat_fit(prefix, sizeof prefix, format, args);
  va_end(args);
  /* prefix + ": " + old message, shortened in the middle to fit: the old
   * message's end says why. */
  char scratch[2 * MRI_ERROR_CAPACITY + 2];
  size_t n = strlen(prefix);
  memcpy(scratch, prefix, n + 1);
  const char *old = mr_last_error();
  if (old[0] != '\0') {
    memcpy(scratch + n, ": ", 2);
    n += 2;
    size_t rest = strnlen(old, MRI_ERROR_CAPACITY - 1);
    memcpy(scratch + n, old, rest);
    n += rest;
    scratch[n] = '\0';
  }
  char *message = message_block(status);
  if (message != NULL) mri_fit_text(message, MRI_ERROR_CAPACITY, scratch, n);
  return status;
}

mr_status mri_size_overflow(const char *who, size_t bytes, size_t multiple, const char *what) {
  return mri_error(MR_ERR_OUT_OF_MEMORY,
                   "%s: %zu bytes cannot be allocated: rounded up to a multiple of %zu (%s) "
                   "the size passes SIZE_MAX (%zu), so no memory is that large (a size "
                   "computed as n - 1 with n == 0?)",
                   who, bytes, multiple, what, SIZE_MAX);
}

void *mri_calloc(size_t count, size_t size) {
  void *p = mri_host_calloc(count, size);
  if (p == NULL && count != 0 && size != 0)
    mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory allocating %zu x %zu bytes of bookkeeping",
              count, size);
  return p;
}

char *mri_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *copy = mri_host_malloc(n);
  if (copy == NULL) {
    mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory copying a %zu-byte string", n);
    return NULL;
  }
  memcpy(copy, s, n);
  return copy;
}

char *mri_vasprintf(const char *format, va_list args) {
  va_list again;
  va_copy(again, args);
  int n = vsnprintf(NULL, 0, format, args);
  if (n < 0) {
    va_end(again);
    mri_error(MR_ERR_INVALID_ARGUMENT, "could not format text");
    return NULL;
  }
  char *s = mri_host_malloc((size_t)n + 1);
  if (s == NULL) {
    va_end(again);
    mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory formatting %d bytes of text", n);
    return NULL;
  }
  vsnprintf(s, (size_t)n + 1, format, again);
  va_end(again);
  return s;
}

char *mri_asprintf(const char *format, ...) {
  va_list args;
  va_start(args, format);
  char *s = mri_vasprintf(format, args);
  va_end(args);
  return s;
}

mr_status mri_spec_quote(const char *what, const char *text, char **out) {
  *out = NULL;
  size_t n = 0, escapes = 0;
  bool bare = text[0] != '\0';
  for (const char *c = text; *c != '\0'; c++, n++) {
    unsigned char u = (unsigned char)*c;
    if (u < 0x20 && u != '\t') {
      char brief[MRI_BRIEF_CAP], shown[MRI_BRIEF_CAP];
      snprintf(shown, sizeof shown, "%s", mri_brief(text, brief));
      for (char *s = shown; *s != '\0'; s++)
        if ((unsigned char)*s < 0x20 && *s != '\t') *s = '?';
      return mri_error(MR_ERR_INVALID_ARGUMENT,
                       "%s: '%s' has a control character (0x%02x), which spec text cannot carry",
                       what, shown, u);
    }
    if (!mri_is_word_char(u)) bare = false;
    if (u == '"' || u == '\\') escapes++;
  }
  if (bare) {
    *out = mri_strdup(text);
    return *out != NULL ? MR_OK : MR_ERR_OUT_OF_MEMORY;
  }
  char *quoted = mri_host_malloc(n + escapes + 3);
  if (quoted == NULL)
    return mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory quoting %zu bytes of text", n);
  size_t k = 0;
  quoted[k++] = '"';
  for (const char *c = text; *c != '\0'; c++) {
    if (*c == '"' || *c == '\\') quoted[k++] = '\\';
    quoted[k++] = *c;
  }
  quoted[k++] = '"';
  quoted[k] = '\0';
  *out = quoted;
  return MR_OK;
}
