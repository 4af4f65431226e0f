#include "config.h"
#include "lib/log.h"
#include "lib/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int log_fd = STDERR_FILENO;
static enum rung_log_format log_format = LOG_FORMAT_TEXT;
static enum rung_log_level log_level = LOG_LEVEL_WARNING;

static const char *const level_names[] = {
	[LOG_LEVEL_ERROR] = "error",
	[LOG_LEVEL_WARNING] = "warning",
	[LOG_LEVEL_INFO] = "info",
	[LOG_LEVEL_DEBUG] = "debug",
};

int rung_log_parse_format(const char *s, enum rung_log_format *out)
{
	if (strcmp(s, "text") == 0)
		*out = LOG_FORMAT_TEXT;
	else if (strcmp(s, "json") == 0)
		*out = LOG_FORMAT_JSON;
	else
		return -1;
	return 0;
}

int rung_log_init(const char *path, enum rung_log_format format, bool debug, struct rung_error *err)
{
	log_format = format;
	if (path) {
		int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0)
			return rung_error_make(err, errno, "open log file `%s`", path);
		if (log_fd != STDERR_FILENO)
			close(log_fd);
		log_fd = fd;
		/* A log file is for later reading: keep the informational events. */
		log_level = LOG_LEVEL_INFO;
	}
	if (debug)
		log_level = LOG_LEVEL_DEBUG;
	return 0;
}

void rung_log_set_level(enum rung_log_level level)
{
	log_level = level;
}

enum rung_log_level rung_log_get_level(void)
{
	return log_level;
}

int rung_log_fd(void)
{
	return log_fd;
}

enum rung_log_format rung_log_get_format(void)
{
	return log_format;
}

bool rung_log_to_stderr(void)
{
	return log_fd == STDERR_FILENO;
}

bool rung_log_enabled(enum rung_log_level level)
{
	return level <= log_level;
}

/* Append s to buf as the inside of a JSON string. */
static size_t json_escape(char *buf, size_t size, size_t pos, const char *s)
{
	for (; *s && pos + 7 < size; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '"':
		case '\\':
			buf[pos++] = '\\';
			buf[pos++] = (char)c;
			break;
		case '\n':
			buf[pos++] = '\\';
			buf[pos++] = 'n';
			break;
		case '\t':
			buf[pos++] = '\\';
			buf[pos++] = 't';
			break;
		case '\r':
			buf[pos++] = '\\';
			buf[pos++] = 'r';
			break;
		default:
			if (c < 0x20)
				pos += (size_t)snprintf(buf + pos, size - pos, "\\u%04x", c);
			else
				buf[pos++] = (char)c;
		}
	}
	return pos;
}

size_t rung_log_format_line(char *buf, size_t size, enum rung_log_format format,
			    enum rung_log_level level, long long epoch_seconds, const char *msg)
{
	size_t pos;
	int n;

	if (size < 64)
		return 0;
	if (format == LOG_FORMAT_JSON) {
		char when[64], tail[96];
		struct tm tm = {0};
		time_t t = (time_t)epoch_seconds;
		size_t tn;

		gmtime_r(&t, &tm);
		/* Not strftime: it reads the host's time zone files, which a
		 * confined sandbox no longer has. */
		snprintf(when, sizeof(when), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
		/* The tail goes in whole: the message is cut to leave room for it. */
		tn = (size_t)snprintf(tail, sizeof(tail), "\",\"time\":\"%s\"}\n", when);
		n = snprintf(buf, size, "{\"level\":\"%s\",\"msg\":\"", level_names[level]);
		if ((size_t)n + tn >= size)
			return 0;
		pos = json_escape(buf, size - tn, (size_t)n, msg);
		memcpy(buf + pos, tail, tn + 1);
		pos += tn;
	} else {
		if (level == LOG_LEVEL_ERROR)
			n = snprintf(buf, size, "rung: %s", msg);
		else
			n = snprintf(buf, size, "rung: %s: %s", level_names[level], msg);
		pos = (size_t)n < size - 2 ? (size_t)n : size - 2;
		buf[pos++] = '\n';
	}
	return pos;
}

void rung_vlog(enum rung_log_level level, const char *fmt, va_list ap)
{
	char msg[2048], line[4096];
	size_t len, off = 0;

	if (!rung_log_enabled(level))
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	len = rung_log_format_line(line, sizeof(line), log_format, level, (long long)time(NULL),
				   msg);
	/* One write per line, so lines from several sentry threads never interleave. */
	while (off < len) {
		ssize_t w = write(log_fd, line + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
}

void rung_log(enum rung_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rung_vlog(level, fmt, ap);
	va_end(ap);
}
