/* The bearer token that guards TCP listeners: read from a file (the daemon's
 * token_file, the client's --token-file), compared in constant time. */
#ifndef CUZK_DAEMON_TOKEN_H
#define CUZK_DAEMON_TOKEN_H

#include "cuzk/cuzk.h"

/* *token <- the file's contents without surrounding white space (malloc'd).
 * An empty token, or a file over 4 KiB, is an error. */
int token_load(const char *path, char **token, cuzk_error *err);

/* 1 when the Authorization header value is "Bearer <expected>", else 0.
 * The time taken does not depend on where the two tokens differ, nor on
 * their lengths: SHA-256 digests of both are compared with CRYPTO_memcmp. */
int token_authorizes(const char *expected, const char *authorization);

#endif
