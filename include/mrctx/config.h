/**
 * @file
 * config.h: the spec language and the registry of resource factories.
 *
 * One grammar serves strings, environment variables and files:
 *
 * @code{.unparsed}
 *   config := entry { (';' | newline) entry }      '#' starts a comment
 *   entry  := tag [ '@' device ] '=' spec
 *   spec   := name [ '(' [ arg { ',' arg } ] ')' ]  |  '@' tag
 *   arg    := spec                                  positional: the upstream
 *           | key '=' value
 *   value  := size | number | word | spec
 *   size   := number [ B | KiB | MiB | GiB | TiB | K | M | G | T ]
 *           | number '%'                            of the device's memory
 * @endcode
 *
 * A spec names a factory; the built-in names are those of driver.h, host.h
 * and adaptors.h. Applications and libraries add their own with
 * mr_register_factory. The factories build resources through the same C
 * constructors a program would call.
 *
 * Details (docs/configuration.md has them all): whitespace may appear
 * between any two tokens, and new lines inside parentheses are whitespace;
 * empty entries and empty text are fine. Units are binary and any letter
 * case (64mib = 64MiB = 64M); "MB" and friends are refused as ambiguous. A
 * fraction must give whole bytes (1.5KiB); N% of the device's memory rounds
 * down; sizes past 2^64 - 1 are errors. A word is letters, digits and
 * . / _ - + : ~ (a path), or any text in double quotes (`\"` and `\\` escape).
 */
#ifndef MRCTX_CONFIG_H
#define MRCTX_CONFIG_H

#include <mrctx/resource.h>

MR_EXTERN_C_BEGIN

/** Build the resource one spec describes, for `device` (used by device-bound
 * names and by sizes given in %). A spec that names a tag (`@tag`) is an error
 * here: tags exist only in a context. On a bad spec: MR_ERR_CONFIG, and
 * mr_last_error() quotes the text and points at the column. */
MR_NODISCARD MR_API mr_status mr_resource_from_spec(const char *spec, int device,
                                                    mr_resource **out);

/** The arguments of one spec call, as a factory sees them. */
typedef struct mr_spec_args mr_spec_args;

/**
 * A factory builds the resource for one spec call. It reads its arguments
 * with the mr_spec_args_* getters; arguments it never asked for are
 * reported as unknown after it returns. On failure it returns the getter's
 * status or its own (with mr_error()); its own message is then given the
 * spec's position. MR_ERR_NO_DRIVER and MR_ERR_NO_DEVICE are not config
 * errors: in a context the call stands in as a resource whose allocations
 * fail with that status and message. Other statuses become MR_ERR_CONFIG,
 * except MR_ERR_OUT_OF_MEMORY and MR_ERR_DRIVER, which are kept.
 */
typedef mr_status (*mr_factory_fn)(void *user, const mr_spec_args *args, mr_resource **out);

/** Add a resource name to the process-wide registry. Names are letters,
 * digits and '_', starting with a letter; a name already registered
 * (built-in or not) is refused with MR_ERR_INVALID_ARGUMENT. Register before
 * the contexts that use the name are created. Thread-safe. */
MR_NODISCARD MR_API mr_status mr_register_factory(const char *name, mr_factory_fn factory,
                                                  void *user);

/** Call `fn` for each registered name, in sorted order. `fn` runs with the
 * registry locked: it must not call mr_register_factory, nor create,
 * release or trim resources, nor fork (a fork waits for the lock). */
MR_API void mr_factory_foreach(void (*fn)(void *user, const char *name), void *user);

/** The device the spec is being resolved for. */
MR_API int mr_spec_args_device(const mr_spec_args *args);

/** The spec call's name (what the factory was registered as). */
MR_API const char *mr_spec_args_name(const mr_spec_args *args);

/** How many positional arguments (upstream specs) the call has. */
MR_API size_t mr_spec_args_positional_count(const mr_spec_args *args);

/** Resolve positional argument `index` into a resource. OUT: *out, a new
 * reference the factory owns (release it once the constructor has taken its
 * own). A missing argument is MR_ERR_CONFIG. */
MR_NODISCARD MR_API mr_status mr_spec_args_upstream(const mr_spec_args *args, size_t index,
                                                    mr_resource **out);

/** True if `key` was given. */
MR_API bool mr_spec_args_has(const mr_spec_args *args, const char *key);

/** `key` as a size in bytes (units B K KiB M MiB G GiB T TiB, or N% of the
 * device's memory); `fallback` if absent. Overflow is an error, and so is a
 * bare number (no unit) from 1 to 4095, as a likely forgotten unit
 * ("chunk=64"), except for a key named "alignment" or ending in
 * "_alignment". */
MR_NODISCARD MR_API mr_status mr_spec_args_size(const mr_spec_args *args, const char *key,
                                                uint64_t fallback, uint64_t *out);

/** `key` as a non-negative whole number; `fallback` if absent. */
MR_NODISCARD MR_API mr_status mr_spec_args_uint(const mr_spec_args *args, const char *key,
                                                uint64_t fallback, uint64_t *out);

/** `key` as a word (letters, digits, and . / _ - + : ~) or a double-quoted
 * string; `fallback` if absent. *out lives as long as `args`. Any bare
 * value reads as a word, numbers and sizes included. */
MR_NODISCARD MR_API mr_status mr_spec_args_word(const mr_spec_args *args, const char *key,
                                                const char *fallback, const char **out);

/** `key` as one of `choices` (NULL-terminated); OUT: its index. Absent:
 * `fallback`. Anything else is an error that lists the choices. */
MR_NODISCARD MR_API mr_status mr_spec_args_choice(const mr_spec_args *args, const char *key,
                                                  const char *const *choices, int fallback,
                                                  int *out);

/** `key` given as a nested spec (key=arena(device)); resolved like a
 * positional argument. Absent: MR_OK and *out NULL. */
MR_NODISCARD MR_API mr_status mr_spec_args_spec(const mr_spec_args *args, const char *key,
                                                mr_resource **out);

/** Fail with MR_ERR_CONFIG pointing at argument `key` (or the call itself if
 * `key` is NULL or absent), with a printf-style reason; the message names
 * the source and starts "name: reason". */
MR_API mr_status mr_spec_args_error(const mr_spec_args *args, const char *key, const char *format,
                                    ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

MR_EXTERN_C_END

#endif /* MRCTX_CONFIG_H */
