/*
 * Logging: one line per event, to stderr or to a --log file, as text or as
 * runc's JSON lines ({"level":"…","msg":"…","time":"…"}), which the
 * containerd shim parses for the last error.
 */
#ifndef RUNG_LOG_H
#define RUNG_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

enum rung_log_level {
	LOG_LEVEL_ERROR = 0,
	LOG_LEVEL_WARNING,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

enum rung_log_format {
	LOG_FORMAT_TEXT,
	LOG_FORMAT_JSON,
};

struct rung_error;

/* Open the log sink: path NULL means stderr. Returns < 0 with err set. */
int rung_log_init(const char *path, enum rung_log_format format, bool debug,
		  struct rung_error *err);
/* Parse "text" or "json"; returns < 0 for anything else. */
int rung_log_parse_format(const char *s, enum rung_log_format *out);
void rung_log_set_level(enum rung_log_level level);
enum rung_log_level rung_log_get_level(void);
bool rung_log_enabled(enum rung_log_level level);
/* True when log lines go to stderr (no --log file). */
bool rung_log_to_stderr(void);
/* The descriptor log lines go to (stderr, or the --log file). */
int rung_log_fd(void);
/* The format of the log lines (for a helper process that writes to the
 * same descriptor). */
enum rung_log_format rung_log_get_format(void);

void rung_log(enum rung_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rung_vlog(enum rung_log_level level, const char *fmt, va_list ap);

/* Format one log line into buf (exposed for the unit tests). Returns its length. */
size_t rung_log_format_line(char *buf, size_t size, enum rung_log_format format,
			    enum rung_log_level level, long long epoch_seconds, const char *msg);

#define log_error(...)	 rung_log(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warning(...) rung_log(LOG_LEVEL_WARNING, __VA_ARGS__)
#define log_info(...)                                          \
	do {                                                   \
		if (rung_log_enabled(LOG_LEVEL_INFO))          \
			rung_log(LOG_LEVEL_INFO, __VA_ARGS__); \
	} while (0)
#define log_debug(...)                                          \
	do {                                                    \
		if (rung_log_enabled(LOG_LEVEL_DEBUG))          \
			rung_log(LOG_LEVEL_DEBUG, __VA_ARGS__); \
	} while (0)

#endif
