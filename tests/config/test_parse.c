/*
 * test_parse.c: the spec language's parser and sizes (internal API): every
 * grammar feature, token positions, and every syntax error with its exact
 * message, source naming and caret column.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"
#include "test_util.h"

static mri_config *parse_named(const char *name, bool is_file, const char *text) {
  mri_text_source src = {.name = name, .is_file = is_file, .text = text, .length = strlen(text)};
  mri_config *config = NULL;
  assert_ok(mri_config_parse(&src, &config));
  assert_non_null(config);
  return config;
}

static mri_config *parse(const char *text) { return parse_named("TEST_VAR", false, text); }

/* Parse must fail with exactly `expected` as the message. */
static void expect_error_named(const char *name, bool is_file, const char *text,
                               const char *expected) {
  mri_text_source src = {.name = name, .is_file = is_file, .text = text, .length = strlen(text)};
  mri_config *config = (mri_config *)0x1;
  mr_clear_error();
  assert_status(mri_config_parse(&src, &config), MR_ERR_CONFIG);
  assert_null(config);
  if (strcmp(mr_last_error(), expected) != 0) {
    print_error("text:     [%s]\nexpected: [%s]\ngot:      [%s]\n", text, expected,
                mr_last_error());
    fail();
  }
}

static void expect_error(const char *text, const char *expected) {
  expect_error_named("TEST_VAR", false, text, expected);
}

static void expect_spec_error(const char *text, const char *expected) {
  mri_text_source src = {.name = "spec", .text = text, .length = strlen(text)};
  mri_config *config = (mri_config *)0x1;
  assert_status(mri_spec_parse(&src, &config), MR_ERR_CONFIG);
  assert_null(config);
  if (strcmp(mr_last_error(), expected) != 0) {
    print_error("text:     [%s]\nexpected: [%s]\ngot:      [%s]\n", text, expected,
                mr_last_error());
    fail();
  }
}

static void assert_pos(mri_pos pos, int line, int column, size_t offset) {
  if (pos.line != line || pos.column != column || pos.offset != offset) {
    print_error("position is line %d column %d offset %zu; expected %d/%d/%zu\n", pos.line,
                pos.column, pos.offset, line, column, offset);
    fail();
  }
}

/* ---- the grammar ---------------------------------------------------------- */

static void test_empty_texts(void **state) {
  const char *texts[] = {"", " ", "\t\n  \n", "# only a comment", ";;;", "\n;\n ; # c\n", "\r\n"};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    mri_config *c = parse(texts[i]);
    assert_int_equal(c->entry_count, 0);
    mri_config_free(c);
  }
}

static void test_one_entry_positions(void **state) {
  mri_config *c = parse("temp=arena(device, chunk=64MiB)");
  assert_int_equal(c->entry_count, 1);
  const mri_config_entry *e = &c->entries[0];
  assert_string_equal(e->tag, "temp");
  assert_pos(e->tag_pos, 1, 1, 0);
  assert_int_equal(e->device, -1);
  assert_string_equal(e->spec_text, "arena(device, chunk=64MiB)");
  const mri_spec_node *n = e->spec;
  assert_int_equal(n->kind, MRI_NODE_CALL);
  assert_string_equal(n->text, "arena");
  assert_true(n->has_parens);
  assert_pos(n->pos, 1, 6, 5);
  assert_pos(n->args_pos, 1, 12, 11);
  assert_pos(n->end, 1, 32, 31);
  assert_int_equal(n->arg_count, 2);
  assert_null(n->args[0].key);
  assert_int_equal(n->args[0].value->kind, MRI_NODE_CALL);
  assert_string_equal(n->args[0].value->text, "device");
  assert_false(n->args[0].value->has_parens);
  assert_pos(n->args[0].value->pos, 1, 12, 11);
  assert_string_equal(n->args[1].key, "chunk");
  assert_pos(n->args[1].key_pos, 1, 20, 19);
  assert_int_equal(n->args[1].value->kind, MRI_NODE_ATOM);
  assert_string_equal(n->args[1].value->text, "64MiB");
  assert_pos(n->args[1].value->pos, 1, 26, 25);
  mri_config_free(c);
}

static void test_separators_and_devices(void **state) {
  mri_config *c = parse("a=host;b@1=device\n\n c@12 = managed ;; # trailing\n d=pinned");
  assert_int_equal(c->entry_count, 4);
  assert_string_equal(c->entries[0].tag, "a");
  assert_int_equal(c->entries[0].device, -1);
  assert_string_equal(c->entries[1].tag, "b");
  assert_int_equal(c->entries[1].device, 1);
  assert_pos(c->entries[1].device_pos, 1, 10, 9);
  assert_string_equal(c->entries[2].tag, "c");
  assert_int_equal(c->entries[2].device, 12);
  assert_pos(c->entries[2].tag_pos, 3, 2, 20);
  assert_string_equal(c->entries[2].spec_text, "managed");
  assert_string_equal(c->entries[3].tag, "d");
  assert_pos(c->entries[3].tag_pos, 4, 2, 50);
  mri_config_free(c);
}

static void test_whitespace_everywhere(void **state) {
  mri_config *c = parse("  temp \t@ 0 =  arena ( device , chunk = 1M )  ");
  assert_int_equal(c->entry_count, 1);
  assert_int_equal(c->entries[0].device, 0);
  assert_string_equal(c->entries[0].spec_text, "arena ( device , chunk = 1M )");
  assert_int_equal(c->entries[0].spec->arg_count, 2);
  mri_config_free(c);
}

static void test_newlines_inside_parentheses(void **state) {
  mri_config *c = parse("temp = arena(device,   # the upstream\n"
                        "             chunk=64MiB)\n"
                        "result = host");
  assert_int_equal(c->entry_count, 2);
  assert_int_equal(c->entries[0].spec->arg_count, 2);
  assert_pos(c->entries[0].spec->args[1].key_pos, 2, 14, 51);
  assert_string_equal(c->entries[1].tag, "result");
  mri_config_free(c);
}

static void test_values(void **state) {
  mri_config *c =
      parse("t=f(@other, path=/tmp/log.csv, s=\"a \\\"b\\\" # \\\\ c\", n=12, size=1.5GiB,"
            " pct=50%, up=stats(host), ref=@x, w=a-b+c:d~e.f, e=\"\")");
  const mri_spec_node *n = c->entries[0].spec;
  assert_int_equal(n->arg_count, 10);
  assert_int_equal(n->args[0].value->kind, MRI_NODE_REF);
  assert_string_equal(n->args[0].value->text, "other");
  assert_pos(n->args[0].value->pos, 1, 5, 4);
  assert_pos(n->args[0].value->text_pos, 1, 6, 5);
  assert_int_equal(n->args[1].value->kind, MRI_NODE_ATOM);
  assert_string_equal(n->args[1].value->text, "/tmp/log.csv");
  assert_int_equal(n->args[2].value->kind, MRI_NODE_STRING);
  assert_string_equal(n->args[2].value->text, "a \"b\" # \\ c");
  assert_string_equal(n->args[3].value->text, "12");
  assert_string_equal(n->args[4].value->text, "1.5GiB");
  assert_string_equal(n->args[5].value->text, "50%");
  assert_int_equal(n->args[6].value->kind, MRI_NODE_CALL);
  assert_string_equal(n->args[6].value->text, "stats");
  assert_int_equal(n->args[6].value->arg_count, 1);
  assert_int_equal(n->args[7].value->kind, MRI_NODE_REF);
  assert_string_equal(n->args[8].value->text, "a-b+c:d~e.f");
  assert_int_equal(n->args[9].value->kind, MRI_NODE_STRING);
  assert_string_equal(n->args[9].value->text, "");
  mri_config_free(c);
}

static void test_references_and_empty_lists(void **state) {
  mri_config *c = parse("a=@b; c=host(); d=stats(@a)");
  assert_int_equal(c->entries[0].spec->kind, MRI_NODE_REF);
  assert_string_equal(c->entries[0].spec->text, "b");
  assert_string_equal(c->entries[0].spec_text, "@b");
  assert_true(c->entries[1].spec->has_parens);
  assert_int_equal(c->entries[1].spec->arg_count, 0);
  assert_int_equal(c->entries[2].spec->args[0].value->kind, MRI_NODE_REF);
  mri_config_free(c);
}

static void test_crlf_and_utf8_columns(void **state) {
  /* CRLF files; columns count characters, so the caret after a UTF-8 path
   * lines up. */
  mri_config *c = parse("a=host\r\nb=f(file=\"/tmp/\xc3\xa9t\xc3\xa9\", x=1)\r\n");
  assert_int_equal(c->entry_count, 2);
  assert_string_equal(c->entries[1].spec->args[0].value->text, "/tmp/\xc3\xa9t\xc3\xa9");
  assert_pos(c->entries[1].spec->args[1].key_pos, 2, 22, 31);
  mri_config_free(c);
}

static void test_spec_mode(void **state) {
  mri_text_source src = {.name = "spec", .text = "  # a comment\n stats(\n host)  \n"};
  src.length = strlen(src.text);
  mri_config *c;
  assert_ok(mri_spec_parse(&src, &c));
  assert_int_equal(c->entry_count, 1);
  assert_null(c->entries[0].tag);
  assert_string_equal(c->entries[0].spec_text, "stats(\n host)");
  mri_config_free(c);
}

static void test_text_is_copied(void **state) {
  char text[] = "a=host";
  mri_text_source src = {.name = "x", .text = text, .length = strlen(text)};
  mri_config *c;
  assert_ok(mri_config_parse(&src, &c));
  text[2] = 'X';
  assert_string_equal(c->entries[0].spec->text, "host");
  assert_int_equal(c->source.text[2], 'h');
  mri_config_free(c);
}

static void test_embedded_nul_is_an_error(void **state) {
  const char text[] = "a=host\0b=host";
  mri_text_source src = {.name = "TEST_VAR", .text = text, .length = sizeof text - 1};
  mri_config *c;
  assert_status(mri_config_parse(&src, &c), MR_ERR_CONFIG);
  assert_string_equal(mr_last_error(),
                      "TEST_VAR, column 7: unexpected byte 0x00\n  a=host?b=host\n        ^");
}

/* ---- syntax errors -------------------------------------------------------- */

static void test_error_missing_equals(void **state) {
  expect_error("temp arena(device)",
               "TEST_VAR, column 6: expected '=' after the tag 'temp', found 'arena'\n"
               "  temp arena(device)\n"
               "       ^");
  expect_error("temp@1",
               "TEST_VAR, column 7: expected '=' after the tag 'temp', found the end of the text\n"
               "  temp@1\n"
               "        ^");
}

static void test_error_missing_spec(void **state) {
  expect_error("temp=",
               "TEST_VAR, column 6: expected a resource name or @tag after '=', found the end of "
               "the text\n  temp=\n       ^");
  expect_error("temp=\nresult=host",
               "TEST_VAR, line 1, column 6: expected a resource name or @tag after '=', found a "
               "new line\n  temp=\n       ^");
  expect_error("temp=64MiB",
               "TEST_VAR, column 6: expected a resource name or @tag after '=', found '64MiB' (a "
               "resource name is letters, digits and '_')\n  temp=64MiB\n       ^");
}

static void test_error_bad_tag(void **state) {
  expect_error("1temp=host", "TEST_VAR, column 1: expected a tag name (tag=spec), found '1temp'\n"
                             "  1temp=host\n"
                             "  ^");
  expect_error("=host",
               "TEST_VAR, column 1: expected a tag name (tag=spec), found '='\n  =host\n  ^");
  expect_error("a=host;@b=host", "TEST_VAR, column 8: expected a tag name (tag=spec), found '@'\n"
                                 "  a=host;@b=host\n"
                                 "         ^");
}

static void test_error_device_number(void **state) {
  expect_error("temp@x=host", "TEST_VAR, column 6: expected a device number after '@', found 'x'\n"
                              "  temp@x=host\n"
                              "       ^");
  expect_error("temp@=host", "TEST_VAR, column 6: expected a device number after '@', found '='\n"
                             "  temp@=host\n"
                             "       ^");
  expect_error("temp@99999999999=host",
               "TEST_VAR, column 6: device number 99999999999 is too large\n"
               "  temp@99999999999=host\n"
               "       ^");
}

static void test_error_characters(void **state) {
  expect_error("temp=host!",
               "TEST_VAR, column 10: unexpected character '!'\n  temp=host!\n           ^");
  /* A shell's quotes that came along get a hint about them. */
  expect_error("temp='cache(device)'",
               "TEST_VAR, column 6: unexpected character ''' (a shell quote reached the spec: "
               "quote the value once, as in MYLIB_MEMORY='temp=cache(device)', and write no "
               "quotes in a file, Python string or override text)\n"
               "  temp='cache(device)'\n"
               "       ^");
  expect_error("temp=arena(device, chunk=\"64MiB)",
               "TEST_VAR, column 26: unterminated string: a closing '\"' is missing\n"
               "  temp=arena(device, chunk=\"64MiB)\n"
               "                           ^");
  expect_error("t=f(file=\"a\\nb\")",
               "TEST_VAR, column 12: unknown escape in a string (only \\\" and \\\\ are known)\n"
               "  t=f(file=\"a\\nb\")\n"
               "             ^");
  expect_error("t=f(file=\"a\x01\")", "TEST_VAR, column 12: control character 0x01 in a string\n"
                                      "  t=f(file=\"a?\")\n"
                                      "             ^");
  expect_error("t=f(file=\"a\nb\")",
               "TEST_VAR, line 1, column 10: unterminated string: a closing '\"' is missing\n"
               "  t=f(file=\"a\n"
               "           ^");
}

static void test_error_parentheses(void **state) {
  expect_error("temp=arena(device",
               "TEST_VAR, column 18: '(' at line 1, column 11 is never closed\n"
               "  temp=arena(device\n"
               "                   ^");
  expect_error("temp=arena(device chunk=1)",
               "TEST_VAR, column 19: expected ',' or ')', found 'chunk'\n"
               "  temp=arena(device chunk=1)\n"
               "                    ^");
  expect_error("temp=arena(device,)",
               "TEST_VAR, column 19: expected an argument (a resource, or key=value), found ')'\n"
               "  temp=arena(device,)\n"
               "                    ^");
  expect_error("temp=arena(,device)",
               "TEST_VAR, column 12: expected an argument (a resource, or key=value), found ','\n"
               "  temp=arena(,device)\n"
               "             ^");
  expect_error("temp=host)",
               "TEST_VAR, column 10: expected ';' or a new line after the spec, found ')'\n"
               "  temp=host)\n"
               "           ^");
  expect_error("temp=@big(x)",
               "TEST_VAR, column 10: expected ';' or a new line after the spec, found '('\n"
               "  temp=@big(x)\n"
               "           ^");
}

static void test_error_arguments(void **state) {
  expect_error("temp=arena(device, chunk=64MiB, chunk=1)",
               "TEST_VAR, column 33: parameter 'chunk' given twice (first at column 20)\n"
               "  temp=arena(device, chunk=64MiB, chunk=1)\n"
               "                                  ^");
  /* A value without its key: the hint names the parameter it most likely
   * is (limit's bytes=, arena's chunk=), key= for a call it does not know. */
  expect_error("temp=arena(device, 64MiB)",
               "TEST_VAR, column 20: expected a resource name or key=value, found '64MiB' (did "
               "you mean chunk=64MiB?)\n"
               "  temp=arena(device, 64MiB)\n"
               "                     ^");
  expect_error("temp=limit(device, 8GiB)",
               "TEST_VAR, column 20: expected a resource name or key=value, found '8GiB' (did "
               "you mean bytes=8GiB?)\n"
               "  temp=limit(device, 8GiB)\n"
               "                     ^");
  expect_error("temp=mine(device, 8GiB)",
               "TEST_VAR, column 19: expected a resource name or key=value, found '8GiB' (did "
               "you mean key=8GiB?)\n"
               "  temp=mine(device, 8GiB)\n"
               "                    ^");
  expect_error("temp=arena(device, 1x=2)",
               "TEST_VAR, column 20: '1x' is not a parameter name (letters, digits and '_')\n"
               "  temp=arena(device, 1x=2)\n"
               "                     ^");
  expect_error("temp=arena(device, chunk=)",
               "TEST_VAR, column 26: expected a value for 'chunk', found ')'\n"
               "  temp=arena(device, chunk=)\n"
               "                           ^");
  expect_error("temp=arena(device, up=64M(host))",
               "TEST_VAR, column 23: '64M' is not a resource name (letters, digits and '_')\n"
               "  temp=arena(device, up=64M(host))\n"
               "                        ^");
  expect_error("temp=arena(@)", "TEST_VAR, column 13: expected a tag name after '@', found ')'\n"
                                "  temp=arena(@)\n"
                                "              ^");
  expect_error("temp=arena(\"device\")",
               "TEST_VAR, column 12: expected an argument (a resource, or key=value), found a "
               "quoted string\n"
               "  temp=arena(\"device\")\n"
               "             ^");
}

static void test_error_nesting(void **state) {
  char text[4 * MRI_SPEC_MAX_DEPTH + 64];
  size_t n = (size_t)snprintf(text, sizeof text, "t=");
  for (int i = 0; i < MRI_SPEC_MAX_DEPTH; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "s(");
  snprintf(text + n, sizeof text - n, "host");
  mri_text_source src = {.name = "TEST_VAR", .text = text, .length = strlen(text)};
  mri_config *c;
  assert_status(mri_config_parse(&src, &c), MR_ERR_CONFIG);
  assert_error_contains("specs nest deeper than 32 levels");
  /* 31 levels are fine. */
  n = (size_t)snprintf(text, sizeof text, "t=");
  for (int i = 0; i < MRI_SPEC_MAX_DEPTH - 1; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "s(");
  n += (size_t)snprintf(text + n, sizeof text - n, "host");
  for (int i = 0; i < MRI_SPEC_MAX_DEPTH - 1; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, ")");
  src.length = strlen(text);
  assert_ok(mri_config_parse(&src, &c));
  mri_config_free(c);
}

static void test_error_spec_mode(void **state) {
  expect_spec_error("", "spec, column 1: expected a resource name or @tag, found the end of the "
                        "text\n  \n  ^");
  expect_spec_error("host; device", "spec, column 5: expected the end of the spec, found ';'\n"
                                    "  host; device\n"
                                    "      ^");
  expect_spec_error("temp=host", "spec, column 5: expected the end of the spec, found '='\n"
                                 "  temp=host\n"
                                 "      ^");
}

/* ---- how errors name their source and quote the text --------------------- */

static void test_error_source_naming(void **state) {
  /* A file always gives the line. */
  expect_error_named("/etc/mylib.conf", true, "temp=arena(device",
                     "/etc/mylib.conf, line 1, column 18: '(' at line 1, column 11 is never "
                     "closed\n  temp=arena(device\n                   ^");
  /* A one-line variable gives only the column; a several-line one the line too. */
  expect_error_named("MYLIB_MEMORY", false, "temp=host x\n",
                     "MYLIB_MEMORY, column 11: expected ';' or a new line after the spec, found "
                     "'x'\n  temp=host x\n            ^");
}

static void test_error_source_naming_lines(void **state) {
  expect_error_named("MYLIB_MEMORY", false, "temp=host\n# comment\nresult=host x",
                     "MYLIB_MEMORY, line 3, column 13: expected ';' or a new line after the spec, "
                     "found 'x'\n  result=host x\n              ^");
  expect_error_named("override text", false, "temp=host!",
                     "override text, column 10: unexpected character '!'\n"
                     "  temp=host!\n"
                     "           ^");
}

static void test_caret_under_tabs(void **state) {
  expect_error("\ttemp=\thost!", "TEST_VAR, column 12: unexpected character '!'\n"
                                 "  \ttemp=\thost!\n"
                                 "  \t     \t    ^");
}

static void test_long_line_is_windowed(void **state) {
  char text[400];
  size_t n = 0;
  for (int i = 0; i < 20; i++) n += (size_t)snprintf(text + n, sizeof text - n, "t%02d=host;", i);
  n += (size_t)snprintf(text + n, sizeof text - n, "bad!");
  for (int i = 20; i < 40; i++) n += (size_t)snprintf(text + n, sizeof text - n, ";t%02d=host", i);
  mri_text_source src = {.name = "V", .text = text, .length = n};
  mri_config *c;
  assert_status(mri_config_parse(&src, &c), MR_ERR_CONFIG);
  /* 60 characters either side of the caret, marked with "...". */
  const char *expected =
      "V, column 184: unexpected character '!'\n"
      "  ...st;t14=host;t15=host;t16=host;t17=host;t18=host;t19=host;bad!;t20=host;t21=host;"
      "t22=host;t23=host;t24=host;t25=host;t26=...\n"
      "                                                                 ^";
  if (strcmp(mr_last_error(), expected) != 0) {
    print_error("expected:\n%s\ngot:\n%s\n", expected, mr_last_error());
    fail();
  }
}

/* ---- sizes ----------------------------------------------------------------- */

static uint64_t size_of(const char *text, uint64_t total) {
  mri_size_text s;
  char why[256];
  mr_status st = mri_size_parse(text, &s, why, sizeof why);
  if (st != MR_OK) {
    print_error("'%s' did not parse: %s\n", text, why);
    fail();
  }
  uint64_t bytes = 0;
  st = mri_size_bytes(&s, total, &bytes, why, sizeof why);
  if (st != MR_OK) {
    print_error("'%s' did not convert: %s\n", text, why);
    fail();
  }
  return bytes;
}

static void size_fails(const char *text, uint64_t total, const char *why_expected) {
  mri_size_text s;
  char why[256] = "";
  mr_status st = mri_size_parse(text, &s, why, sizeof why);
  if (st == MR_OK) {
    uint64_t bytes;
    st = mri_size_bytes(&s, total, &bytes, why, sizeof why);
  }
  assert_int_equal(st, MR_ERR_CONFIG);
  if (strcmp(why, why_expected) != 0) {
    print_error("'%s': expected \"%s\", got \"%s\"\n", text, why_expected, why);
    fail();
  }
}

static void test_sizes(void **state) {
  assert_int_equal(size_of("0", 0), 0);
  assert_int_equal(size_of("4096", 0), 4096);
  assert_int_equal(size_of("12B", 0), 12);
  assert_int_equal(size_of("1K", 0), 1024);
  assert_int_equal(size_of("1KiB", 0), 1024);
  assert_int_equal(size_of("64M", 0), 64ull << 20);
  assert_int_equal(size_of("64MiB", 0), 64ull << 20);
  assert_int_equal(size_of("3G", 0), 3ull << 30);
  assert_int_equal(size_of("3GiB", 0), 3ull << 30);
  assert_int_equal(size_of("2T", 0), 2ull << 40);
  assert_int_equal(size_of("2TiB", 0), 2ull << 40);
  /* Any letter case. */
  assert_int_equal(size_of("64mib", 0), 64ull << 20);
  assert_int_equal(size_of("64m", 0), 64ull << 20);
  assert_int_equal(size_of("1kIB", 0), 1024);
  assert_int_equal(size_of("7b", 0), 7);
  /* Fractions that come out whole. */
  assert_int_equal(size_of("1.5KiB", 0), 1536);
  assert_int_equal(size_of("0.5G", 0), 512ull << 20);
  assert_int_equal(size_of("2.0", 0), 2);
  assert_int_equal(size_of("1.25000000000000000000000MiB", 0), 1310720);
  /* Percentages of the device's memory round down. */
  assert_int_equal(size_of("50%", 1000), 500);
  assert_int_equal(size_of("12.5%", 1000), 125);
  assert_int_equal(size_of("33%", 10), 3);
  assert_int_equal(size_of("0%", 1000), 0);
  assert_int_equal(size_of("100%", UINT64_MAX), UINT64_MAX);
  assert_int_equal(size_of("100.000%", 1000), 1000);
  assert_int_equal(size_of("99.9999%", 1000000), 999999);
  assert_int_equal(size_of("0.0%", 1000), 0);
  assert_int_equal(size_of("0.000001%", 141733920768ull), 1417);
  /* The largest sizes. */
  assert_int_equal(size_of("18446744073709551615", 0), UINT64_MAX);
  assert_int_equal(size_of("16777215T", 0), 16777215ull << 40);
}

static void test_size_errors(void **state) {
  size_fails("", 0,
             "'' is not a size (a number with an optional unit: B, K, KiB, M, MiB, G, GiB, "
             "T, TiB; or N%)");
  size_fails("MiB", 0,
             "'MiB' is not a size (a number with an optional unit: B, K, KiB, M, MiB, "
             "G, GiB, T, TiB; or N%)");
  size_fails(".5G", 0,
             "'.5G' is not a size (a number with an optional unit: B, K, KiB, M, MiB, "
             "G, GiB, T, TiB; or N%)");
  size_fails("-1", 0,
             "'-1' is not a size (a number with an optional unit: B, K, KiB, M, MiB, G, "
             "GiB, T, TiB; or N%)");
  size_fails("5.G", 0, "'5.G' is not a size: a digit must follow '.'");
  size_fails("64MB", 0,
             "'64MB': the unit 'MB' is ambiguous (units here are binary): write 64MiB "
             "or 64M");
  size_fails("1kb", 0,
             "'1kb': the unit 'kb' is ambiguous (units here are binary): write 1KiB or "
             "1K");
  size_fails("64Mi", 0,
             "'64Mi' has an unknown unit 'Mi' (known: B, K, KiB, M, MiB, G, GiB, T, "
             "TiB, %)");
  size_fails("1.5%x", 0,
             "'1.5%x' has an unknown unit '%x' (known: B, K, KiB, M, MiB, G, GiB, T, "
             "TiB, %)");
  size_fails("1.3KiB", 0, "the size is not a whole number of bytes");
  size_fails("0.5", 0, "the size is not a whole number of bytes");
  /* Overflow is an error, never a wrap. */
  size_fails("18446744073709551616", 0, "'18446744073709551616' is too large a number");
  size_fails("16777216T", 0, "the size is larger than 2^64 - 1 bytes");
  size_fails("18446744073709551615K", 0, "the size is larger than 2^64 - 1 bytes");
  /* A share of the device's memory is at most all of it; checked before the
   * device's memory is read, so a mistake is an error with or without one. */
  size_fails("101%", 1000,
             "'101%' is more than 100% (a size in % is a share of the device's "
             "memory)");
  size_fails("200%", UINT64_MAX,
             "'200%' is more than 100% (a size in % is a share of the "
             "device's memory)");
  size_fails("1000000%", 0,
             "'1000000%' is more than 100% (a size in % is a share of the "
             "device's memory)");
  size_fails("100.000001%", 1000,
             "'100.000001%' is more than 100% (a size in % is a share of "
             "the device's memory)");
  size_fails("1.000000000000000000001", 0,
             "'1.000000000000000000001' has more than 20 digits "
             "after the '.'");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_empty_texts),
      cmocka_unit_test(test_one_entry_positions),
      cmocka_unit_test(test_separators_and_devices),
      cmocka_unit_test(test_whitespace_everywhere),
      cmocka_unit_test(test_newlines_inside_parentheses),
      cmocka_unit_test(test_values),
      cmocka_unit_test(test_references_and_empty_lists),
      cmocka_unit_test(test_crlf_and_utf8_columns),
      cmocka_unit_test(test_spec_mode),
      cmocka_unit_test(test_text_is_copied),
      cmocka_unit_test(test_embedded_nul_is_an_error),
      cmocka_unit_test(test_error_missing_equals),
      cmocka_unit_test(test_error_missing_spec),
      cmocka_unit_test(test_error_bad_tag),
      cmocka_unit_test(test_error_device_number),
      cmocka_unit_test(test_error_characters),
      cmocka_unit_test(test_error_parentheses),
      cmocka_unit_test(test_error_arguments),
      cmocka_unit_test(test_error_nesting),
      cmocka_unit_test(test_error_spec_mode),
      cmocka_unit_test(test_error_source_naming),
      cmocka_unit_test(test_error_source_naming_lines),
      cmocka_unit_test(test_caret_under_tabs),
      cmocka_unit_test(test_long_line_is_windowed),
      cmocka_unit_test(test_sizes),
      cmocka_unit_test(test_size_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
