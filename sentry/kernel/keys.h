/*
 * Linux key retention (security/keys): "user" keys and keyrings, one key
 * table per sandbox. A task has a thread and a session keyring (the session
 * one is inherited by clone, as Linux's cred->session_keyring), its thread
 * group a process keyring; each user has a user and a user-session keyring.
 * Serial numbers, descriptions and the permission mask follow Linux; there
 * are no upcalls (request_key only searches), no expiry, no quotas per user
 * (one cap for the whole sandbox).
 */
#ifndef RUNG_KEYS_H
#define RUNG_KEYS_H

#include <stddef.h>
#include <stdint.h>

struct kernel;
struct task;
struct thread_group;
struct key;

/* Special serials (linux/keyctl.h). */
#define KEY_SPEC_THREAD_KEYRING	      -1
#define KEY_SPEC_PROCESS_KEYRING      -2
#define KEY_SPEC_SESSION_KEYRING      -3
#define KEY_SPEC_USER_KEYRING	      -4
#define KEY_SPEC_USER_SESSION_KEYRING -5

/* Linux's limits: description, type name, payloads. */
#define KEY_DESC_MAX	     4096
#define KEY_TYPE_MAX	     32
#define KEY_PAYLOAD_MAX	     (1024 * 1024 - 1) /* add_key */
#define KEY_USER_PAYLOAD_MAX 32767	       /* a "user" key's data */

/* add_key: a new or updated key of type/desc in keyring ring (a serial,
 * special ones made when missing). Returns its serial or -errno. */
long keys_add(struct task *t, const char *type, const char *desc, const void *payload, size_t plen,
	      int32_t ring);
/* request_key: search the caller's keyrings; link into dest if non-zero. */
long keys_request(struct task *t, const char *type, const char *desc, int32_t dest);
/* keyctl(op, ...) with the guest's arguments; strings already copied in
 * by the caller where the operation takes them. */
long keys_keyctl(struct task *t, int op, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5);

/* Keyrings across clone (c gets t's session keyring; a new thread group
 * starts without a process keyring), exec (thread and process keyrings go),
 * and exit (the task's, and its group's when last). */
void keys_clone(struct task *t, struct task *c);
void keys_exec(struct task *t);
void keys_task_exit(struct task *t);
void keys_tg_exit(struct thread_group *tg);
/* Free the sandbox's key table (kernel_destroy). */
void keys_destroy(struct kernel *k);

#endif
