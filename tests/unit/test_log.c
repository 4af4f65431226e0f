/*
 * Unit tests: log lines (lib/log.c). Text lines for people, and runc's JSON
 * lines ({"level":"…","msg":"…","time":"…Z"}) that the containerd shim parses:
 * each must be one valid JSON object on one line, whatever the message holds.
 */
#include "config.h"
#include "lib/log.h"
#include "lib/error.h"
#include "lib/util.h"
#include "unit.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Format a JSON line and parse it back; returns the object (caller puts it). */
static json_object *json_line(char *buf, size_t size, enum rung_log_level level, long long when,
			      const char *msg, size_t *len_out)
{
	size_t len = rung_log_format_line(buf, size, LOG_FORMAT_JSON, level, when, msg);
	json_tokener *tok;
	json_object *obj;

	ck_assert_uint_gt(len, 0);
	ck_assert_msg(len < size, "line of %zu bytes in a buffer of %zu", len, size);
	ck_assert_msg(buf[len - 1] == '\n', "line does not end in a newline");
	ck_assert_msg(memchr(buf, '\n', len - 1) == NULL, "newline inside the line");
	ck_assert_msg(memchr(buf, '\0', len) == NULL, "NUL inside the line");
	tok = json_tokener_new();
	obj = json_tokener_parse_ex(tok, buf, (int)(len - 1));
	ck_assert_msg(obj && json_tokener_get_error(tok) == json_tokener_success, "not JSON: %.*s",
		      (int)len, buf);
	ck_assert_int_eq(json_tokener_get_parse_end(tok), len - 1);
	json_tokener_free(tok);
	ck_assert(json_object_is_type(obj, json_type_object));
	if (len_out)
		*len_out = len;
	return obj;
}

static const char *field(json_object *obj, const char *key)
{
	json_object *v;

	ck_assert_msg(json_object_object_get_ex(obj, key, &v), "no \"%s\"", key);
	ck_assert(json_object_is_type(v, json_type_string));
	return json_object_get_string(v);
}

/* The exact JSON shape: key order, level names, UTC time with Z. */
START_TEST(test_json_exact)
{
	char buf[256];
	size_t len = rung_log_format_line(buf, sizeof(buf), LOG_FORMAT_JSON, LOG_LEVEL_ERROR, 0,
					  "hello");
	const char want[] =
		"{\"level\":\"error\",\"msg\":\"hello\",\"time\":\"1970-01-01T00:00:00Z\"}\n";

	ck_assert_uint_eq(len, sizeof(want) - 1);
	ck_assert_int_eq(memcmp(buf, want, len), 0);
	len = rung_log_format_line(buf, sizeof(buf), LOG_FORMAT_JSON, LOG_LEVEL_WARNING, 1700000000,
				   "w");
	ck_assert_int_eq(
		memcmp(buf,
		       "{\"level\":\"warning\",\"msg\":\"w\",\"time\":\"2023-11-14T22:13:20Z\"}\n",
		       len),
		0);
}
END_TEST

/* Every level has its runc name, in text and in JSON. */
START_TEST(test_levels)
{
	static const struct {
		enum rung_log_level level;
		const char *name, *text;
	} levels[] = {
		{LOG_LEVEL_ERROR, "error", "rung: msg\n"},
		{LOG_LEVEL_WARNING, "warning", "rung: warning: msg\n"},
		{LOG_LEVEL_INFO, "info", "rung: info: msg\n"},
		{LOG_LEVEL_DEBUG, "debug", "rung: debug: msg\n"},
	};
	char buf[256];

	for (unsigned i = 0; i < ARRAY_SIZE(levels); i++) {
		json_object *obj = json_line(buf, sizeof(buf), levels[i].level, 86400, "msg", NULL);
		size_t len;

		ck_assert_str_eq(field(obj, "level"), levels[i].name);
		ck_assert_str_eq(field(obj, "msg"), "msg");
		ck_assert_str_eq(field(obj, "time"), "1970-01-02T00:00:00Z");
		ck_assert_int_eq(json_object_object_length(obj), 3);
		json_object_put(obj);
		len = rung_log_format_line(buf, sizeof(buf), LOG_FORMAT_TEXT, levels[i].level, 0,
					   "msg");
		ck_assert_uint_eq(len, strlen(levels[i].text));
		ck_assert_int_eq(memcmp(buf, levels[i].text, len), 0);
	}
}
END_TEST

/* Quotes, backslashes and control characters are escaped; JSON reads back the message. */
START_TEST(test_json_escaping)
{
	static const char *const msgs[] = {
		"say \"hi\"",
		"C:\\path\\",
		"two\nlines",
		"tab\there",
		"cr\rlf",
		"\x01\x1f\x7f",
		"bell\a esc\x1b",
		"utf-8: \xc3\xa9t\xc3\xa9 \xe2\x9c\x93",
		"{\"level\":\"debug\"}",
		"",
		"trailing backslash \\",
	};
	char buf[512];

	for (unsigned i = 0; i < ARRAY_SIZE(msgs); i++) {
		json_object *obj = json_line(buf, sizeof(buf), LOG_LEVEL_ERROR, 0, msgs[i], NULL);
		ck_assert_str_eq(field(obj, "msg"), msgs[i]);
		ck_assert_str_eq(field(obj, "level"), "error");
		json_object_put(obj);
	}
	rung_log_format_line(buf, sizeof(buf), LOG_FORMAT_JSON, LOG_LEVEL_ERROR, 0,
			     "a\"b\\c\nd\x02");
	ck_assert_ptr_nonnull(strstr(buf, "\"msg\":\"a\\\"b\\\\c\\nd\\u0002\""));
}
END_TEST

/* Random messages of every byte 1..255 round-trip (ASCII exactly; all stay valid lines). */
START_TEST(test_json_random_messages)
{
	uint64_t seed = 3;
	char buf[1024], msg[300];

	for (int round = 0; round < 2000; round++) {
		size_t n = unit_rand(&seed) % sizeof(msg);
		bool ascii = round % 2;
		json_object *obj;

		for (size_t i = 0; i < n; i++)
			msg[i] = (char)(ascii ? 1 + unit_rand(&seed) % 127
					      : 1 + unit_rand(&seed) % 255);
		msg[n] = 0;
		if (!ascii) {
			/* Bytes >= 0x80 pass through: check only that the line is well formed. */
			size_t len = rung_log_format_line(buf, sizeof(buf), LOG_FORMAT_JSON,
							  LOG_LEVEL_INFO, 0, msg);
			ck_assert_uint_lt(len, sizeof(buf));
			ck_assert_int_eq(buf[len - 1], '\n');
			ck_assert(memchr(buf, '\n', len - 1) == NULL);
			continue;
		}
		obj = json_line(buf, sizeof(buf), LOG_LEVEL_INFO, 0, msg, NULL);
		ck_assert_str_eq(field(obj, "msg"), msg);
		json_object_put(obj);
	}
}
END_TEST

/* Messages too long for the buffer are cut, and the line stays valid JSON ending in "}\n". */
START_TEST(test_json_truncation)
{
	static char msg[20000], buf[4096];
	static const long long times[] = {0,
					  1700000000,
					  -1,
					  253402300799ll /* 9999-12-31 */,
					  253402300800ll /* year 10000 */,
					  67767976233316800ll /* a 10-digit year */,
					  0x7fffffffffffffffll /* beyond struct tm */};

	for (int kind = 0; kind < 3; kind++) {
		/* Plain, all-escaped (\"), and all control characters (\u00xx). */
		memset(msg, kind == 0 ? 'x' : kind == 1 ? '"' : '\x01', sizeof(msg) - 1);
		for (size_t size = 64; size <= sizeof(buf); size += size < 200 ? 1 : 97) {
			for (unsigned t = 0; t < ARRAY_SIZE(times); t++) {
				size_t len;
				json_object *obj =
					json_line(buf, size, LOG_LEVEL_ERROR, times[t], msg, &len);
				const char *m = field(obj, "msg");
				/* A prefix of the message; empty only in the smallest buffers. */
				ck_assert_uint_lt(strlen(m), size);
				ck_assert_int_eq(strncmp(m, msg, strlen(m)), 0);
				if (size >= 128)
					ck_assert_uint_gt(strlen(m), 0);
				json_object_put(obj);
			}
		}
	}
	/* Too small for any line. */
	ck_assert_uint_eq(rung_log_format_line(buf, 63, LOG_FORMAT_JSON, LOG_LEVEL_ERROR, 0, "x"),
			  0);
	ck_assert_uint_eq(rung_log_format_line(buf, 0, LOG_FORMAT_TEXT, LOG_LEVEL_ERROR, 0, "x"),
			  0);
}
END_TEST

/* Text lines are cut to the buffer, still ending in a newline. */
START_TEST(test_text_truncation)
{
	char msg[500], buf[128];
	size_t len;

	memset(msg, 'm', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = 0;
	for (size_t size = 64; size <= sizeof(buf); size++) {
		len = rung_log_format_line(buf, size, LOG_FORMAT_TEXT, LOG_LEVEL_WARNING, 0, msg);
		ck_assert_uint_lt(len, size);
		ck_assert_uint_eq(len, size - 1);
		ck_assert_int_eq(buf[len - 1], '\n');
		ck_assert_int_eq(memcmp(buf, "rung: warning: mmm", 18), 0);
	}
}
END_TEST

START_TEST(test_parse_format_and_levels)
{
	enum rung_log_format f = LOG_FORMAT_TEXT;

	ck_assert_int_eq(rung_log_parse_format("json", &f), 0);
	ck_assert_int_eq(f, LOG_FORMAT_JSON);
	ck_assert_int_eq(rung_log_parse_format("text", &f), 0);
	ck_assert_int_eq(f, LOG_FORMAT_TEXT);
	ck_assert_int_lt(rung_log_parse_format("JSON", &f), 0);
	ck_assert_int_lt(rung_log_parse_format("", &f), 0);
	ck_assert_int_lt(rung_log_parse_format("jsonx", &f), 0);
	ck_assert_int_eq(f, LOG_FORMAT_TEXT);

	/* The default shows warnings and errors only. */
	ck_assert_int_eq(rung_log_get_level(), LOG_LEVEL_WARNING);
	ck_assert(rung_log_enabled(LOG_LEVEL_ERROR));
	ck_assert(rung_log_enabled(LOG_LEVEL_WARNING));
	ck_assert(!rung_log_enabled(LOG_LEVEL_INFO));
	rung_log_set_level(LOG_LEVEL_DEBUG);
	ck_assert(rung_log_enabled(LOG_LEVEL_DEBUG));
	rung_log_set_level(LOG_LEVEL_ERROR);
	ck_assert(!rung_log_enabled(LOG_LEVEL_WARNING));
	ck_assert(rung_log_to_stderr());
}
END_TEST

/* --log FILE --log-format json: each event is one JSON line appended to the file. */
START_TEST(test_log_file)
{
	char path[] = "/tmp/rung-test-log-XXXXXX", buf[4096];
	struct rung_error err = {0};
	int fd = mkstemp(path);
	ssize_t n;
	char *line, *save = NULL;
	int count = 0;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "old\n", 4), 4);
	ck_assert_int_eq(rung_log_init(path, LOG_FORMAT_JSON, false, &err), 0);
	ck_assert(!rung_log_to_stderr());
	ck_assert_int_eq(rung_log_get_level(), LOG_LEVEL_INFO); /* a file keeps info events */
	log_error("first %d", 1);
	log_info("second \"quoted\"");
	log_debug("not shown");
	rung_log(LOG_LEVEL_WARNING, "third\nline");

	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	n = read(fd, buf, sizeof(buf) - 1);
	ck_assert_int_gt(n, 0);
	buf[n] = 0;
	ck_assert_int_eq(strncmp(buf, "old\n", 4), 0); /* appended, not truncated */
	for (line = strtok_r(buf + 4, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		static const char *const want[][2] = {{"error", "first 1"},
						      {"info", "second \"quoted\""},
						      {"warning", "third\nline"}};
		json_object *obj = json_tokener_parse(line);
		ck_assert_msg(obj != NULL, "not JSON: %s", line);
		ck_assert_int_lt(count, 3);
		ck_assert_str_eq(field(obj, "level"), want[count][0]);
		ck_assert_str_eq(field(obj, "msg"), want[count][1]);
		json_object_put(obj);
		count++;
	}
	ck_assert_int_eq(count, 3);
	close(fd);
	unlink(path);

	/* --debug turns debug events on. */
	ck_assert_int_eq(rung_log_init(NULL, LOG_FORMAT_TEXT, true, &err), 0);
	ck_assert_int_eq(rung_log_get_level(), LOG_LEVEL_DEBUG);
}
END_TEST

/* A log file that cannot be opened is an error naming it. */
START_TEST(test_log_file_error)
{
	struct rung_error err = {0};

	ck_assert_int_lt(rung_log_init("/nonexistent-dir/rung.log", LOG_FORMAT_JSON, false, &err),
			 0);
	ck_assert_int_eq(err.status, ENOENT);
	ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent-dir/rung.log"));
	ck_assert(rung_log_to_stderr());
	rung_error_release(&err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60); /* generous: slow CI machines, sanitizers */
	tcase_add_test(tc, test_json_exact);
	tcase_add_test(tc, test_levels);
	tcase_add_test(tc, test_json_escaping);
	tcase_add_test(tc, test_json_random_messages);
	tcase_add_test(tc, test_json_truncation);
	tcase_add_test(tc, test_text_truncation);
	tcase_add_test(tc, test_parse_format_and_levels);
	/* Last: these change the process-wide log sink (matters only with CK_FORK=no). */
	tcase_add_test(tc, test_log_file_error);
	tcase_add_test(tc, test_log_file);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
